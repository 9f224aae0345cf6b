/* SPDX-License-Identifier: MIT */
/* roster.h: `pidns-tutor --roster`, the instructor's view of a class: the
 * progress of every account on the machine (or of the homes and state
 * directories named), one row each. Progress files are other people's input
 * here: they are opened without following symlinks, read only up to a bound,
 * and a damaged one is reported as such.
 */
#ifndef PIDNS_TUTOR_ROSTER_H
#define PIDNS_TUTOR_ROSTER_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "tutor/progress.h"

struct lesson;

/* The largest progress file read (a real one is a few hundred bytes). */
#define ROSTER_MAX_BYTES (64 * 1024)

enum roster_state {
    ROSTER_OK,
    ROSTER_NONE,        /* no progress file: never started */
    ROSTER_DAMAGED,     /* lines that are not progress (the rest is shown) */
    ROSTER_SYMLINK,     /* a symlink on the way: not followed */
    ROSTER_NOT_REGULAR, /* a directory, a FIFO, a device... */
    ROSTER_TOO_LARGE,   /* more than ROSTER_MAX_BYTES */
    ROSTER_UNREADABLE,  /* permission denied, or another error */
};

struct roster_row {
    char account[256]; /* the account's name, or the PATH named */
    char path[4200];   /* the progress file, as looked for */
    enum roster_state state;
    char detail[160];              /* what is wrong, for the states that are not OK */
    size_t done;                   /* lessons done: finished, no exercise left skipped */
    char current[PROGRESS_ID_MAX]; /* the lesson in progress, "" if none */
    int step;                      /* its step (0-based) */
    int current_finished;          /* the current lesson was finished (1), and is done (2) */
    int current_skipped;           /* exercises skipped in the current lesson */
    size_t skipped;                /* exercises skipped, in every lesson */
    char skipped_at[512];          /* which: "ID:STEP ID:STEP", the step from 1 */
    time_t last_active;            /* the file's modification time, 0 if unknown */
};

/* The lessons the rows are read against: their ids, step counts and the
 * steps that hold an exercise (bit N: step N; may be NULL), with which a
 * format 1 file's skipped exercises are worked out (progress_settle). */
struct roster_lessons {
    const char *const *ids;
    const size_t *steps;
    size_t count;
    const unsigned long *exercises;
};

/* Reads the progress file at base/rel (rel may be "progress" or
 * ".local/state/pidns-tutor/progress") into row, following no symlink
 * below base. Never fails: what went wrong is the row's state. lessons may
 * be NULL. */
void roster_read(const char *base, const char *rel, const struct roster_lessons *lessons,
                 struct roster_row *row);

/* The steps of lesson l that hold an exercise: bit N for step N. */
unsigned long roster_exercise_steps(const struct lesson *l);

/* Rows as a table (csv 0) or as CSV with a header line (csv 1). */
void roster_print(FILE *out, const struct roster_row *rows, size_t count,
                  const struct roster_lessons *lessons, int csv);

/* `--roster [PATH...]`: reads the named homes, state directories or progress
 * files, or with none every account of the password database, and prints the
 * roster. Returns the exit status: 1 when a named PATH does not exist. */
int roster_run(FILE *out, FILE *err, char **paths, int path_count,
               const struct roster_lessons *lessons, int csv);

/* The whole of `pidns-tutor --roster [--csv] [--lessons DIR] [PATH...]`:
 * the lessons found as the shell finds them, the roster on stdout. */
int roster_main(char **paths, int path_count, const char *lessons_dir, int csv);

#endif
