/* SPDX-License-Identifier: MIT */
/* tutor_conditions.h: the named conditions of a check (need, same, not,
 * await, program, failed), as the sh text TUTOR_CONDITIONS_SH: the prelude
 * the tutor puts before every exercise's check and every hint's when=
 * condition, and the exported scripts' runtime before theirs. The text is
 * kept in tutor/tutor_conditions.sh, which says what each condition does;
 * the build turns it into $(O)/gen/tutor/tutor_conditions_sh.h (sh_to_c in the
 * Makefile).
 */
#ifndef TUTOR_CONDITIONS_H
#define TUTOR_CONDITIONS_H

#include "tutor/tutor_conditions_sh.h"

#endif
