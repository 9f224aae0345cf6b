/* SPDX-License-Identifier: MIT */
/* session.h: one run of the guided shell, from start-up to the lab's
 * verdict on exit. main() parses the options and calls these.
 */
#ifndef PIDNS_TUTOR_SESSION_H
#define PIDNS_TUTOR_SESSION_H

#include "tutor/shell.h"

struct session_options {
    const char *lessons_dir;  /* --lessons DIR, or NULL */
    const char *auto_lessons; /* --auto LESSON|all, or NULL */
    const char *present;      /* --present LESSON, or NULL */
    int no_colour;            /* --no-color */
    int user_namespace;       /* --user-namespace: the unprivileged route even as root */
};

/* Finds lessons and examples, loads the lessons and the progress, opens the
 * lab. Returns 0, or -1 after printing what failed and what to do. */
int session_open(struct shell *sh, const struct session_options *options);

/* The prompt loop (or --auto). Returns the exit status it earned. */
int session_run(struct shell *sh, const struct session_options *options);

/* Cleans the lab up and prints its verdict on the host (history is saved
 * by session_run, progress as it changes). Returns 1 when the host was left
 * changed, else 0. */
int session_close(struct shell *sh);

#endif
