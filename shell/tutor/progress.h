/* SPDX-License-Identifier: MIT */
/* progress.h: the learner's progress, kept per user in a small text file
 * under $XDG_STATE_HOME/pidns-tutor/ (default ~/.local/state/pidns-tutor/)
 * and resumed at the next start. Under sudo the directory lies in the
 * invoking user's home and the files belong to SUDO_UID/SUDO_GID. A home
 * that cannot be written is a warning, never a failure: progress then lasts
 * for the session only.
 */
#ifndef PIDNS_TUTOR_PROGRESS_H
#define PIDNS_TUTOR_PROGRESS_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PROGRESS_ID_MAX 128
/* Steps with a checked/skipped bit: those of an unsigned long. */
#define PROGRESS_STEPS_MAX ((int)(sizeof(unsigned long) * CHAR_BIT))

/* A lesson counts as done when it was finished and none of its exercises
 * is left skipped (progress_entry_done): `next` past an exercise that has not
 * passed marks it skipped, and a later pass clears the mark. */
struct progress_entry {
    char id[PROGRESS_ID_MAX]; /* the lesson's id, e.g. "01-new-namespace" */
    int step;                 /* the step reached (0-based) */
    int finished;             /* 1 once the last step was left (format 1: "done") */
    unsigned long checked;    /* bit N: the exercise of step N passed its check */
    unsigned long skipped;    /* bit N: the exercise of step N was left unpassed */
    int legacy;               /* read from a format 1 line, which has no skipped
                               * field: progress_settle() works it out */
};

struct progress {
    char dir[PATH_MAX];  /* the state directory ("" if none) */
    char path[PATH_MAX]; /* dir/progress */
    int writable;        /* 0 after a failure: warn once, keep going */
    int change_owner;    /* under sudo: chown new files to owner */
    uid_t owner_uid;
    gid_t owner_gid;
    char current[PROGRESS_ID_MAX]; /* the lesson in progress, "" if none */
    struct progress_entry *entries;
    size_t count;
};

/* Computes the state directory from the environment: $XDG_STATE_HOME if
 * absolute, else HOME/.local/state (under sudo: the invoking user's home),
 * plus "/pidns-tutor". Returns 0, or -1 when no home is known. */
int progress_state_dir(char *buf, size_t len);

/* The learner's home: $HOME, or under sudo the invoking user's, or the
 * password database's. Returns 0, or -1 when none is known. */
int progress_home(char *buf, size_t len);

/* Prepares dir (creating it, owned by the invoking user under sudo) and
 * loads dir/progress if it exists. dir NULL: progress_state_dir(). Problems
 * are written as one warning line to warn (may be NULL); never fails. */
void progress_open(struct progress *p, const char *dir, FILE *warn);

/* The entry of a lesson, or NULL. */
struct progress_entry *progress_get(const struct progress *p, const char *id);
/* The entry of a lesson, created (step 0) if missing. NULL only on ENOMEM. */
struct progress_entry *progress_entry(struct progress *p, const char *id);
/* 1 when the lesson is done: finished, no exercise skipped. */
int progress_entry_done(const struct progress_entry *e);
/* The number of exercises skipped, and the first one's step (0-based, -1 if
 * none) in *first (may be NULL). */
int progress_skipped(const struct progress_entry *e, int *first);
/* The exercise of step was passed (the skip mark goes), or left with `next`
 * before it passed (marked skipped unless it passed before). */
void progress_mark_passed(struct progress_entry *e, int step);
void progress_mark_skipped(struct progress_entry *e, int step);
/* A format 1 entry, which did not record skips, given the steps that hold an
 * exercise (bit N: step N): an exercise before the step reached (every one,
 * once finished) that never passed was skipped. Other entries: no change. */
void progress_settle(struct progress_entry *e, unsigned long exercise_steps);

/* Forgets every lesson. */
void progress_reset(struct progress *p);

/* Writes the file (atomically: a temporary file renamed over it). Returns 0,
 * or -1 with one warning line to warn the first time it fails. */
int progress_save(struct progress *p, FILE *warn);

/* Parses the text of a progress file into p (entries appended); malformed
 * lines are skipped. Returns the number of lines skipped. */
int progress_parse(struct progress *p, const char *text);

/* Under sudo, gives path to the invoking user; otherwise does nothing. */
void progress_own(const struct progress *p, const char *path);

void progress_close(struct progress *p);

#endif
