/* SPDX-License-Identifier: MIT */
/* tutor_question.c: a step's questions, [.predict] and [.quiz], asked at
 * their own prompts. A line typed there that is no answer may be a command
 * of the shell: one that only looks runs and the question waits; one that
 * moves on leaves the question unanswered (see tutor_question.h).
 */
#include "tutor/tutor_question.h"
#include "tutor/tutor_cursor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A command typed at a question, up to 60 characters, for a note. */
static void note_command(struct shell *sh, const char *format, const char *line)
{
    const char *s = line + strspn(line, " \t");
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    char shown[80];
    snprintf(shown, sizeof shown, "%.*s%s", (int)(n > 60 ? 60 : n), s, n > 60 ? "..." : "");
    render_textf(&sh->render, RENDER_NOTE, format, shown);
}

/* A line typed at a question that is no answer to it may be a command of
 * the shell (see enum shell_line): one that only looks runs now, and the
 * question is asked again (returns SHELL_LINE_LOOKS); any other is kept for
 * the prompt loop, which runs it once the step has stopped
 * (SHELL_LINE_MOVES). SHELL_LINE_ANSWER: not a command. A room's answer
 * (--present) is never a command. */
static enum shell_line question_command(struct shell *sh, const char *line)
{
    enum shell_line kind = SHELL_LINE_ANSWER;
    if (sh->question_line != NULL && sh->run_line != NULL && !sh->presenting)
        kind = sh->question_line(line);
    if (kind == SHELL_LINE_LOOKS) {
        note_command(sh, "(the question waits: running `%s`)", line);
        sh->run_line(sh, line);
        fputc('\n', sh->render.out);
    } else if (kind == SHELL_LINE_MOVES) {
        note_command(sh, "(the question is left unanswered: running `%s`)", line);
        tutor_set_pending(sh, line);
    }
    return kind;
}

/* A wrong answer that reads like a shell command line (a program of the
 * lab's PATH, then arguments) was likely meant to run: say how. One word
 * alone may be a real guess ("init"), so it gets no note. */
static void note_program(struct shell *sh, const char *given)
{
    const char *s = given + strspn(given, " \t");
    size_t n = strcspn(s, " \t");
    char name[64];
    if (sh->lab == NULL || n == 0 || n >= sizeof name || s[n + strspn(s + n, " \t")] == '\0')
        return;
    memcpy(name, s, n);
    name[n] = '\0';
    if (lab_on_path(sh->lab, name))
        note_command(sh, "(`%s` reads like a command: to run it in the lab, type `sh` before it)",
                     given);
}

/* Ctrl-D at a question leaves the tutorial, as at the prompt. */
static void end_of_input(struct shell *sh)
{
    render_text(&sh->render, RENDER_NOTE, "(the question is left unanswered: Ctrl-D leaves)");
    tutor_set_pending(sh, "quit");
}

enum question_end tutor_ask_prediction(struct shell *sh, const struct lesson_block *b)
{
    render_textf(&sh->render, RENDER_HEADING, "Predict: %s", b->text);
    if (sh->auto_mode || !sh->interactive || sh->ask == NULL) {
        render_textf(&sh->render, RENDER_NOTE, "(expected answer: %s)", b->answer);
        return QUESTION_ANSWERED;
    }
    char *given = sh->ask(sh, "your prediction> ");
    if (shell_interrupted) {
        free(given);
        return QUESTION_LEFT;
    }
    if (given == NULL) {
        end_of_input(sh);
        return QUESTION_LEFT;
    }
    /* An answer first: a command's name may be what the lesson expects. */
    enum shell_line kind =
        lesson_answer_matches(b->answer, given) ? SHELL_LINE_ANSWER : question_command(sh, given);
    if (kind == SHELL_LINE_ANSWER && given[0] == '\0')
        render_textf(&sh->render, RENDER_NOTE,
                     "No guess? The lesson expects: %s. Watch:", b->answer);
    else if (kind == SHELL_LINE_ANSWER && lesson_answer_matches(b->answer, given))
        render_text(&sh->render, RENDER_GOOD, "Right. Let's see it happen:");
    else if (kind == SHELL_LINE_ANSWER) {
        note_program(sh, given);
        render_textf(&sh->render, RENDER_NOTE,
                     "Not what the lesson expects (%s). Watch the output to see why:", b->answer);
    }
    free(given);
    if (kind == SHELL_LINE_LOOKS)
        return tutor_ask_prediction(sh, b); /* the question again, after what ran */
    return kind == SHELL_LINE_MOVES ? QUESTION_LEFT : QUESTION_ANSWERED;
}

static void show_quiz(struct shell *sh, const struct lesson_block *b)
{
    render_textf(&sh->render, RENDER_HEADING, "Quiz: %s", b->text);
    for (size_t i = 0; i < b->choice_count; i++)
        render_textf(&sh->render, RENDER_PLAIN, "  %zu) %s", i + 1, b->choices[i].text);
}

/* Reads a choice, by its number or its text: its number, 0 when the learner
 * gives up (Enter), -1 when the step is left. */
static int ask_choice(struct shell *sh, const struct lesson_block *b)
{
    for (;;) {
        char *given = sh->ask(sh, "your answer (number)> ");
        if (given == NULL && !shell_interrupted)
            end_of_input(sh);
        if (given == NULL || shell_interrupted) {
            free(given);
            return -1;
        }
        int n = lesson_quiz_choice(b, given);
        enum shell_line kind =
            n == 0 && given[0] != '\0' ? question_command(sh, given) : SHELL_LINE_ANSWER;
        if (n == 0 && kind == SHELL_LINE_ANSWER)
            note_program(sh, given);
        int empty = given[0] == '\0';
        free(given);
        if (empty)
            return 0;
        if (n > 0)
            return n;
        if (kind == SHELL_LINE_MOVES)
            return -1;
        if (kind == SHELL_LINE_LOOKS)
            show_quiz(sh, b);
        else if (n == -1)
            render_text(&sh->render, RENDER_NOTE,
                        "That fits more than one answer: type more of one, or its number.");
        else
            render_textf(&sh->render, RENDER_NOTE,
                         "Type a number from 1 to %zu or the start of an answer (Enter shows "
                         "the answer).",
                         b->choice_count);
    }
}

enum question_end tutor_ask_quiz(struct shell *sh, const struct lesson_block *b)
{
    size_t correct = 0;

    show_quiz(sh, b);
    for (size_t i = 0; i < b->choice_count && correct == 0; i++)
        if (b->choices[i].correct)
            correct = i + 1;
    int asking = !sh->auto_mode && sh->interactive && sh->ask != NULL;
    for (;;) {
        int chosen = asking ? ask_choice(sh, b) : (int)correct;
        if (chosen < 0)
            return QUESTION_LEFT;
        size_t n = (size_t)chosen;
        if (n == 0 || n == correct || !asking) {
            n = correct;
            render_textf(&sh->render, RENDER_GOOD, "Answer %zu is right.", n);
        } else {
            render_textf(&sh->render, RENDER_BAD, "Not %zu.", n);
        }
        const char *why = n > 0 ? b->choices[n - 1].explanation : NULL;
        if (why != NULL)
            render_text(&sh->render, RENDER_NOTE, why);
        if (n == correct)
            return QUESTION_ANSWERED;
    }
}
