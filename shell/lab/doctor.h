/* SPDX-License-Identifier: MIT */
/* doctor.h: `pidns-tutor --doctor`: what this machine offers the lessons
 * (kernel, privileges, user namespaces, container or WSL, procfs), which
 * route the lab will take, and the one-line fix for each problem.
 */
#ifndef PIDNS_TUTOR_DOCTOR_H
#define PIDNS_TUTOR_DOCTOR_H

#include <stdio.h>

struct lab_config;

/* Prints the report. Returns 0 when the lessons can run, 1 if not. */
int doctor_run(FILE *out, const struct lab_config *config);

/* Whether a kernel release string ("6.1.0-18-amd64") is at least major.minor. */
int doctor_kernel_at_least(const char *release, int major, int minor);

/* Whether the running kernel is at least version ("6.11"); its release is
 * copied to release (for the message when it is not). A version that does
 * not parse counts as met. */
int doctor_kernel_has(const char *version, char *release, size_t len);

#endif
