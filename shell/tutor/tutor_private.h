/* SPDX-License-Identifier: MIT */
/* tutor_private.h: the learner's exercise and state directories tightened to
 * 0700/0600 where an older tutor left them readable by others (see
 * tutor_private.c). */
#ifndef PIDNS_TUTOR_TUTOR_PRIVATE_H
#define PIDNS_TUTOR_TUTOR_PRIVATE_H

#include <stddef.h>

struct progress;

/* Tightens ~/pidns-exercises and the state directory of p. 1 with one
 * sentence for the learner in said when something changed, else 0. */
int tutor_private_tighten(const struct progress *p, char *said, size_t len);

#endif
