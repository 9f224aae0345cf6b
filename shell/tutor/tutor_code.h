/* SPDX-License-Identifier: MIT */
/* tutor_code.h: coding exercises, where the learner writes the C.
 *
 * An exercise with a [.program] (lesson.h) names a C file with a gap. The
 * learner's copy lives in a working directory of their own, kept between
 * sessions: ~/pidns-exercises/DIR/NAME.c (DIR the exercise's folder, such as
 * 01-two-pids; under sudo, in the invoking user's home and theirs). It is
 * edited and built outside the lab, by the learner's own editor and `cc`
 * with the examples' flags; the program built is copied into the lab, at
 * /tmp/pidns-exercises/DIR/NAME, and the check runs it there: the check and
 * the hints of such an exercise run in that directory, so they call the
 * program as ./NAME and may leave files there for the hints to read.
 */
#ifndef PIDNS_TUTOR_TUTOR_CODE_H
#define PIDNS_TUTOR_TUTOR_CODE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "tutor/shell.h"

struct lesson_block;

/* The directory in the lab where the exercise's program is put. */
#define TUTOR_CODE_LAB_DIR "/tmp/pidns-exercises"
/* The learner's working directory, under their home. */
#define TUTOR_CODE_HOME_DIR "pidns-exercises"

/* The exercise's folder ("01-two-pids") and program ("two_pids"). */
void tutor_code_names(const struct lesson_block *ex, char *dir, size_t dlen, char *name,
                      size_t nlen);

/* The learner's copy of the exercise's file. Returns 0, or -1 when no home
 * is known or the path is too long. */
int tutor_code_file(const struct lesson_block *ex, char *buf, size_t len);

/* How a check or a condition runs (tutor_code_command()). */
struct tutor_script {
    const char *conditions; /* the records' file in the lab, or NULL (none kept) */
    int verbose;            /* every condition runs, also after a failing one */
    const char *failed;     /* for a hint: the check's first failing sentence */
};

/* The script run in the lab for a check or a hint's condition of ex: the
 * named conditions' prelude (tutor_conditions.h), the settings of how, the
 * command, and `tutor_done $?`; for a coding exercise, in the program's
 * directory in the lab, with $TUTOR_PROGRAM its program (malloc'd; NULL on
 * ENOMEM). how may be NULL. */
char *tutor_code_command(const struct lesson_block *ex, const char *command,
                         const struct tutor_script *how);

/* Makes sure the learner's copy exists: copied from the exercise (and said
 * so) when it does not. Returns 0, or -1 after saying why not. */
int tutor_code_prepare(struct shell *sh, const struct lesson_block *ex);

/* Opens the learner's copy in $VISUAL, $EDITOR, or the first of editor,
 * nano, vi found. Returns SHELL_OK or SHELL_ERROR. */
int tutor_code_edit(struct shell *sh, const struct lesson_block *ex);

/* Builds the learner's copy with the examples' flags (the compiler's
 * messages name the file and line), and puts the program into the lab.
 * Returns 0 when built and in place, 1 when the compiler refused it, -1
 * when it could not run (said). */
int tutor_code_build(struct shell *sh, const struct lesson_block *ex);

/* Puts the exercise's file as given back in place of the learner's copy,
 * which is kept as NAME.c.bak. Returns SHELL_OK or SHELL_ERROR. */
int tutor_code_reset(struct shell *sh, const struct lesson_block *ex);

/* Shows the learner's version, then the reference solution. */
void tutor_code_show_solution(struct shell *sh, const struct lesson_block *ex);

/* What `watch` has seen of the learner's file. */
struct tutor_watch {
    struct timespec seen; /* the file's time and size when last built */
    off_t seen_size;
    int checked; /* built and checked once */
    int started; /* said it watches */
};

/* Rebuilds and checks each time the learner's copy is saved (polling its
 * time and size; the first call builds it at once), until the check passes
 * (returns 1), Ctrl-C or the end of the input (0), or a line is typed
 * (returns 2, the line in line: the caller answers it, e.g. `hint`, and
 * calls again with the same w); -1 on an error (said). */
int tutor_code_watch(struct shell *sh, const struct lesson_block *ex, struct tutor_watch *w,
                     char *line, size_t len);

/* --auto: the file as given must build and fail the check, each wrong
 * program must build and fail it, the reference solution must pass it.
 * Returns 0 when all held. */
int tutor_code_verify(struct shell *sh, const struct lesson_block *ex);

#endif
