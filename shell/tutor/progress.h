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

struct progress_entry {
    char id[PROGRESS_ID_MAX]; /* the lesson's id, e.g. "01-new-namespace" */
    int step;                 /* the step reached (0-based) */
    int done;                 /* 1 once the last step was passed */
    unsigned long checked;    /* bit N: the exercise of step N was checked */
};

struct progress {
    char dir[PATH_MAX];  /* the state directory ("" if none) */
    char path[PATH_MAX]; /* dir/progress */
    int writable;     /* 0 after a failure: warn once, keep going */
    int change_owner; /* under sudo: chown new files to owner */
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
struct progress_entry *progress_get(struct progress *p, const char *id);
/* The entry of a lesson, created (step 0) if missing. NULL only on ENOMEM. */
struct progress_entry *progress_entry(struct progress *p, const char *id);
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
