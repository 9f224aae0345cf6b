/* SPDX-License-Identifier: MIT */
/* export_runtime.h: the shell code shared by every exported lesson script
 * (see export_runtime.c). It expects the variables lab_name, lab_lesson,
 * lab_programs, lab_libexecdir and lab_examples to be set before it.
 */
#ifndef PIDNS_TUTOR_EXPORT_RUNTIME_H
#define PIDNS_TUTOR_EXPORT_RUNTIME_H

extern const char export_runtime[];

#endif
