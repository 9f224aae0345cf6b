/* SPDX-License-Identifier: MIT */
/* tutor_question.h: asking a step's [.predict] and [.quiz] questions. */
#ifndef PIDNS_TUTOR_TUTOR_QUESTION_H
#define PIDNS_TUTOR_TUTOR_QUESTION_H

#include "tutor/tutor.h"

/* What a question's ask returns: the question was answered (or given up
 * with Enter), or the step is left (Ctrl-C, Ctrl-D, a command that moves:
 * the command waits for the prompt loop: tutor_pending). */
enum question_end { QUESTION_ANSWERED, QUESTION_LEFT };

enum question_end tutor_ask_prediction(struct shell *sh, const struct lesson_block *b);
enum question_end tutor_ask_quiz(struct shell *sh, const struct lesson_block *b);

#endif
