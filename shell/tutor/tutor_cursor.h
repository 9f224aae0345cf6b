/* SPDX-License-Identifier: MIT */
/* tutor_cursor.h: the step cursor, where the learner is in the lessons: the
 * current lesson and step, whether that lesson was finished, and what the
 * step has seen so far (hints given, checks that failed, a question left
 * for a command). The tutor owns it: its fields are tutor_cursor.c's, and
 * the other folders move it with the verbs below and read it with the
 * questions. A shell with no cursor (sh->cursor NULL, as a zeroed struct
 * shell has) is in no lesson.
 */
#ifndef PIDNS_TUTOR_TUTOR_CURSOR_H
#define PIDNS_TUTOR_TUTOR_CURSOR_H

#include <stddef.h>

#include "tutor/shell.h"

/* The index of the current lesson in sh->lessons, -1 when none. */
int tutor_lesson(const struct shell *sh);
/* The index of its current step (0 when no lesson is current). */
int tutor_step(const struct shell *sh);
/* Whether the current lesson's last step was passed. */
int tutor_finished(const struct shell *sh);

/* Makes lesson index the current one at step, without showing it: a new
 * step (no hint given, no check failed). Returns 0, or -1 when out of
 * memory (said). */
int tutor_enter(struct shell *sh, int index, int step);

/* Reads the steps of lesson index if the start read only its header
 * (lesson_read_body): before anything looks at them (tutor_enter does).
 * Returns 0, or -1 once the error (FILE:LINE: what is wrong) is said. */
int tutor_read_lesson(struct shell *sh, int index);
/* No lesson is current any more (`reset`, the end of --auto): the cursor
 * and a line left at a question go. */
void tutor_leave(struct shell *sh);
/* The current lesson's last step was passed. */
void tutor_finish(struct shell *sh);

/* The verbs of `next`, `back` and `again` (tutor_steps.c). Each starts a
 * new step, rebuilds the lab that step expects when it must, and shows it
 * (tutor_show_step's result). tutor_next: the step after the current one,
 * which is not the last (the caller finishes the lesson there). tutor_back:
 * the step before (the last one again in a finished lesson); SHELL_ERROR,
 * said, at the first. tutor_again: the current step from its start;
 * SHELL_ERROR, said, in a finished lesson. */
int tutor_next(struct shell *sh);
int tutor_back(struct shell *sh);
int tutor_again(struct shell *sh);

/* `hint`: which of n applicable hints to give, given the sentence of the
 * check's first failing condition (NULL when none): the next one each
 * time, from the first again when another condition fails now or the hints
 * were restarted (0, none given, when n is 0). */
size_t tutor_hint_pick(struct shell *sh, const char *failed, size_t n);
/* The hints start from the most specific again (a new program to check). */
void tutor_hints_restart(struct shell *sh);
/* Counts a check that said "Not yet" in this step; returns the count. */
int tutor_check_failed(struct shell *sh);

/* A command typed at a question that stops the step: the prompt loop runs
 * it once the step has stopped. tutor_pending: the line, NULL when none;
 * tutor_take_pending: the line (malloc'd, the caller frees it), which is
 * then no longer pending; tutor_set_pending: line replaces it. */
const char *tutor_pending(const struct shell *sh);
char *tutor_take_pending(struct shell *sh);
void tutor_set_pending(struct shell *sh, const char *line);

/* Where the cursor is, to tell afterwards whether a command moved it. */
struct tutor_place {
    int lesson, step;
    unsigned shown; /* steps shown so far */
};
struct tutor_place tutor_place(const struct shell *sh);
/* Whether a lesson is current, unfinished, at place, and its step was not
 * shown again since. */
int tutor_stayed(const struct shell *sh, struct tutor_place place);

/* For tutor/ only. tutor_show_step shows the current step from its start
 * (tutor_step_shown); a question left for a command cuts it short
 * (tutor_step_cut): what its later blocks start is missing until the lab
 * is rebuilt. tutor_new_step: step of the current lesson becomes the
 * current one, unfinished, as new (no hint given, no check failed); returns
 * whether the step before was cut short. */
void tutor_step_shown(struct shell *sh);
void tutor_step_cut(struct shell *sh);
int tutor_new_step(struct shell *sh, int step);

#endif
