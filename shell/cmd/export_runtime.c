/* SPDX-License-Identifier: MIT */
/* export_runtime.c: the part of every exported lesson script that is the
 * same for all lessons (how it starts itself again in namespaces of its own,
 * builds a root of its own, compares outputs with the lesson's patterns,
 * waits for programs left running, and the named conditions of the checks).
 * cmd_export.c writes it after the lesson's variables and before its steps.
 * The text is kept in cmd/export_runtime.sh (checked by sh -n and shellcheck
 * in make check-sh); the build turns it into $(O)/gen/cmd/export_runtime_sh.h
 * (sh_to_c in the Makefile).
 */
#include "cmd/export_runtime.h"
#include "tutor/tutor_conditions.h"
#include "cmd/export_runtime_sh.h"

const char export_runtime[] = EXPORT_RUNTIME_SH;
