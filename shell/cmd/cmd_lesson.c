/* SPDX-License-Identifier: MIT */
/* cmd_lesson.c: the commands of the guided flow: lessons, lesson, next,
 * back, again, where, check, hint, reset.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "lab/doctor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "render/tee.h"
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"
#include "tutor/tutor_cursor.h"
#include "util/list.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* The cells of one row of the `lessons` table: progress mark, number,
 * name, title with its length (in text, split by '\0'; cells point in). */
static void lessons_row(struct shell *sh, const struct lesson *l, char *text, size_t len,
                        const char **cells)
{
    const struct progress_entry *e = progress_get(&sh->progress, l->id);
    char mark[64] = "[    ]";
    int skipped = progress_skipped(e, NULL);
    if (progress_entry_done(e))
        snprintf(mark, sizeof mark, "[done]");
    else if (e != NULL && e->finished)
        snprintf(mark, sizeof mark, "[finished, %d skipped]", skipped);
    else if (e != NULL && skipped > 0)
        snprintf(mark, sizeof mark, "[step %d of %zu, %d skipped]", e->step + 1, l->step_count,
                 skipped);
    else if (e != NULL)
        snprintf(mark, sizeof mark, "[step %d of %zu]", e->step + 1, l->step_count);
    int a = snprintf(text, len, "%s", mark) + 1;
    int b = a + snprintf(text + a, len - (size_t)a, "%2d", l->number) + 1;
    int c = b + snprintf(text + b, len - (size_t)b, "%s", l->id) + 1;
    snprintf(text + c, len - (size_t)c, "%s (%d min)", l->title, l->minutes);
    cells[0] = text;
    cells[1] = text + a;
    cells[2] = text + b;
    cells[3] = text + c;
}

/* Whether every row with its name column fits the width unwrapped. */
static int lessons_fit(struct shell *sh, const char **cells, size_t rows)
{
    int widths[4] = {0};
    for (size_t i = 0; i < rows * 4; i++) {
        int w = render_display_width(cells[i], strlen(cells[i]));
        widths[i % 4] = w > widths[i % 4] ? w : widths[i % 4];
    }
    return widths[0] + widths[1] + widths[2] + widths[3] + 6 <= sh->render.width;
}

int cmd_lessons(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (sh->lesson_count == 0) {
        shell_error(sh, "no lessons found in %s (use --lessons DIR)", sh->dirs.lessons);
        return SHELL_ERROR;
    }
    size_t n = sh->lesson_count, text_len = 512;
    char *text = malloc(n * text_len);
    const char **cells = malloc(n * 4 * sizeof *cells);
    if (text == NULL || cells == NULL) {
        free(text);
        free(cells);
        shell_error(sh, "out of memory");
        return SHELL_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        const struct progress_entry *e = progress_get(&sh->progress, sh->lessons[i].id);
        if (e != NULL && !e->finished)
            tutor_read_lesson(sh, (int)i); /* its row says "step N of M" */
        lessons_row(sh, &sh->lessons[i], text + i * text_len, text_len, cells + 4 * i);
    }
    /* The names column when every row fits the width with it; else none,
     * and the titles wrap under themselves. */
    size_t columns = 4;
    if (!lessons_fit(sh, cells, n)) {
        for (size_t i = 0; i < n; i++) /* mark, number, title: 3 a row */
            for (size_t c = 0; c < 3; c++)
                cells[3 * i + c] = cells[4 * i + (c == 2 ? 3 : c)];
        columns = 3;
    }
    render_table(&sh->render, RENDER_PLAIN, 0, cells, n, columns);
    free(cells);
    free(text);
    render_text(&sh->render, RENDER_NOTE, "Type `lesson N` to start or resume one.");
    for (size_t i = 0; i < n; i++)
        if (progress_skipped(progress_get(&sh->progress, sh->lessons[i].id), NULL) > 0) {
            render_text(&sh->render, RENDER_NOTE,
                        "(skipped: an exercise left with `next` before it passed; `lesson N` "
                        "goes back to it, and the lesson is done once it passes)");
            break;
        }
    return SHELL_OK;
}

/* Where lesson l resumes: the step reached, or in a finished lesson the
 * first exercise skipped (0 when none, or the lesson is done). */
static int resume_step(const struct progress_entry *e, const struct lesson *l)
{
    int first;
    if (e == NULL)
        return 0;
    if (e->finished) {
        progress_skipped(e, &first);
        return first > 0 && first < (int)l->step_count ? first : 0;
    }
    return e->step < (int)l->step_count ? e->step : 0;
}

/* Starts lesson index (from_start: at step 1), or resumes it where
 * resume_step() says, and shows it. */
static int start_lesson(struct shell *sh, int index, int from_start)
{
    if (tutor_read_lesson(sh, index) == -1)
        return SHELL_ERROR;
    const struct lesson *l = &sh->lessons[index];
    const struct progress_entry *e = progress_get(&sh->progress, l->id);
    int step = from_start ? 0 : resume_step(e, l);
    char whose[64] = "left running";
    if (l->step_count == 0) {
        shell_error(sh, "lesson %s has no steps", l->id);
        return SHELL_ERROR;
    }
    if (tutor_lesson(sh) >= 0)
        snprintf(whose, sizeof whose, "left by lesson %d", sh->lessons[tutor_lesson(sh)].number);
    if (tutor_enter(sh, index, step) == -1)
        return SHELL_ERROR;
    render_textf(&sh->render, RENDER_HEADING, "Lesson %d: %s", l->number, l->title);
    struct utsname u;
    if (l->kernel != NULL && uname(&u) == 0) {
        int major = 0, minor = 0;
        if (sscanf(l->kernel, "%d.%d", &major, &minor) == 2 &&
            !doctor_kernel_at_least(u.release, major, minor))
            shell_warn(sh,
                       "this lesson needs Linux %s or later, this is %s: its steps are "
                       "shown but not run (pidns-tutor --doctor says more)",
                       l->kernel, u.release);
    }
    if (step > 0 && e != NULL && e->finished)
        render_textf(&sh->render, RENDER_NOTE, "(back to the exercise you skipped, at step %d)",
                     step + 1);
    else if (step > 0)
        render_textf(&sh->render, RENDER_NOTE, "(resuming at step %d)", step + 1);
    if (step > 0) /* what a learner may expect back and will not find */
        render_text(&sh->render, RENDER_NOTE,
                    "(Not restored: the programs you started and the files you made in the lab "
                    "yourself; only the lesson's own steps are replayed.)");
    else if (l->summary != NULL)
        render_text(&sh->render, RENDER_NOTE, l->summary);
    tutor_rebuild_lab(sh, whose); /* the lab the step expects */
    return tutor_show_step(sh);
}

/* `lesson N` for a lesson that is done: says so and, on a terminal, asks
 * whether to replay it (else `lesson N again` does). Returns 1 to replay. */
static int offer_replay(struct shell *sh, int index)
{
    const struct lesson *l = &sh->lessons[index];
    int next = tutor_next_unfinished(sh, index);
    char question[160];

    render_textf(&sh->render, RENDER_GOOD, "Lesson %d, %s, is done: every exercise in it passed.",
                 l->number, l->title);
    if (sh->interactive && sh->ask != NULL) {
        snprintf(question, sizeof question,
                 "Replay it from step 1? It stays done whatever you do. [y/N] ");
        char *answer = sh->ask(sh, question);
        int yes = answer != NULL && (strcmp(answer, "y") == 0 || strcmp(answer, "yes") == 0);
        free(answer);
        if (yes)
            return 1;
    } else {
        render_textf(&sh->render, RENDER_NOTE,
                     "`lesson %d again` replays it from step 1; it stays done whatever you do.",
                     l->number);
    }
    if (next >= 0)
        render_textf(&sh->render, RENDER_NOTE, "Next unfinished: `lesson %d`, %s.",
                     sh->lessons[next].number, sh->lessons[next].title);
    return 0;
}

int cmd_lesson(struct shell *sh, int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "again") != 0)
        return SHELL_USAGE;
    int index = tutor_find_lesson(sh, argv[1]);
    if (index < 0) {
        shell_error(sh, "no lesson '%s': type `lessons` for the list", argv[1]);
        return SHELL_ERROR;
    }
    if (argc < 3 && progress_entry_done(progress_get(&sh->progress, sh->lessons[index].id)) &&
        !offer_replay(sh, index))
        return SHELL_OK;
    return start_lesson(sh, index, argc == 3);
}

/* The lesson after the current one to suggest: the next not done (a lesson
 * done is not offered again), or -1 when no other is left. */
static int next_after(struct shell *sh)
{
    int next = tutor_next_unfinished(sh, tutor_lesson(sh) + 1);
    return next == tutor_lesson(sh) ? -1 : next;
}

/* The last step was passed: mark the lesson finished, clean the lab up. */
static int finish_lesson(struct shell *sh)
{
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    struct progress_entry *e = progress_entry(&sh->progress, l->id);

    int first, skipped = progress_skipped(e, &first);
    if (e != NULL) {
        e->finished = 1;
        e->step = 0;
        progress_save(&sh->progress, stderr);
    }
    tutor_finish(sh);
    if (skipped == 0)
        render_textf(&sh->render, RENDER_GOOD, "Lesson %d finished: %s.", l->number, l->title);
    else /* a plain line where "finished" is a good one: not done */
        render_textf(&sh->render, RENDER_PLAIN,
                     "Lesson %d finished, %d exercise%s skipped (step %d%s): it is done once "
                     "%s; `lesson %d` goes back to %s.",
                     l->number, skipped, skipped == 1 ? "" : "s", first + 1,
                     skipped == 1 ? "" : " first", skipped == 1 ? "it passes" : "they pass",
                     l->number, skipped == 1 ? "it" : "the first");
    if (sh->lab != NULL)
        tutor_cleanup(sh, 0);
    tee_reap(200);
    int next = next_after(sh);
    if (next >= 0)
        render_textf(&sh->render, RENDER_NOTE, "Next: lesson %d, %s (Enter or `next`).",
                     sh->lessons[next].number, sh->lessons[next].title);
    else if (skipped == 0)
        render_text(&sh->render, RENDER_NOTE, "That was the last lesson to do. Well done.");
    return SHELL_OK;
}

/* `next` past an exercise that has not passed: marked skipped, and said. */
static void skip_exercise(struct shell *sh, const struct lesson *l)
{
    struct progress_entry *e = progress_entry(&sh->progress, l->id);
    int step = tutor_step(sh);
    unsigned long bit = step < PROGRESS_STEPS_MAX ? 1ul << step : 0;
    if (e == NULL || bit == 0 || (e->checked & bit))
        return;
    progress_mark_skipped(e, step);
    progress_save(&sh->progress, stderr);
    render_text(&sh->render, RENDER_NOTE,
                "(exercise skipped: it has not passed, so `lessons` shows it skipped and the "
                "lesson is not done until it passes; `back` returns to it)");
}

int cmd_next(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    if (tutor_finished(sh)) {
        int next = next_after(sh);
        if (next < 0) {
            render_text(&sh->render, RENDER_NOTE,
                        "No other lesson left to do: `lessons` lists them all.");
            return SHELL_OK;
        }
        return start_lesson(sh, next, 0);
    }
    if (tutor_current_exercise(sh) != NULL && !sh->auto_mode && !sh->presenting)
        skip_exercise(sh, l);
    if (tutor_step(sh) + 1 >= (int)l->step_count)
        return finish_lesson(sh);
    return tutor_next(sh);
}

int cmd_back(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return tutor_back(sh);
}

int cmd_again(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return tutor_again(sh);
}

int cmd_where(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (tutor_lesson(sh) < 0) {
        render_text(&sh->render, RENDER_PLAIN,
                    "No lesson started. `lessons` lists them; `lesson 1` begins.");
        return SHELL_OK;
    }
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    int step = tutor_step(sh);
    const struct progress_entry *e = progress_get(&sh->progress, l->id);
    int first, skipped = progress_skipped(e, &first);
    if (tutor_finished(sh) && skipped > 0) {
        render_textf(&sh->render, RENDER_PLAIN,
                     "Lesson %d, %s: finished, %d exercise%s skipped (step %d%s): `lesson %d` "
                     "goes back to it.",
                     l->number, l->title, skipped, skipped == 1 ? "" : "s", first + 1,
                     skipped == 1 ? "" : " first", l->number);
        return SHELL_OK;
    }
    if (tutor_finished(sh)) {
        render_textf(&sh->render, RENDER_PLAIN, "Lesson %d, %s: done.", l->number, l->title);
        return SHELL_OK;
    }
    render_textf(&sh->render, RENDER_PLAIN, "Lesson %d, %s: step %d of %zu, %s.", l->number,
                 l->title, step + 1, l->step_count, l->steps[step].title);
    const struct lesson_block *ex = tutor_current_exercise(sh);
    int passed = e != NULL && step < PROGRESS_STEPS_MAX && (e->checked & (1ul << step));
    if (ex != NULL && passed)
        render_textf(&sh->render, RENDER_NOTE, "Exercise passed: %s (Enter: next step.)", ex->text);
    else if (ex != NULL)
        render_textf(&sh->render, RENDER_NOTE, "Exercise waiting for `check`: %s", ex->text);
    return SHELL_OK;
}

int cmd_check_passed(struct shell *sh, const struct lesson_block *ex)
{
    render_text(&sh->render, RENDER_GOOD, "Passed: the kernel's state shows it is done.");
    tutor_show_solution(sh, ex);
    tutor_show_debrief(sh);
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    struct progress_entry *e = progress_entry(&sh->progress, l->id);
    int was_done = progress_entry_done(e);
    progress_mark_passed(e, tutor_step(sh)); /* a skip of it is forgiven */
    progress_save(&sh->progress, stderr);
    if (!was_done && progress_entry_done(e))
        render_textf(&sh->render, RENDER_GOOD, "Lesson %d is done now: every exercise passed.",
                     l->number);
    if (tutor_pending(sh) == NULL) /* else a command typed at the debrief's quiz says */
        render_text(&sh->render, RENDER_NOTE, "(Enter: next step.)");
    return SHELL_OK;
}

int check_verbose_arg(struct shell *sh, int argc, char **argv)
{
    (void)sh;
    return argc == 1 || (argc == 2 && strcmp(argv[1], "-v") == 0) ? SHELL_OK : SHELL_USAGE;
}

int cmd_check(struct shell *sh, int argc, char **argv)
{
    int verbose = argc == 2 && strcmp(argv[1], "-v") == 0;
    const struct lesson_block *ex = tutor_current_exercise(sh);
    if (ex == NULL) {
        shell_error(sh, "this step has no exercise to check (`where` says where you are)");
        return SHELL_ERROR;
    }
    int built = ex->program != NULL ? tutor_code_build(sh, ex) : 0;
    if (built == -1)
        return SHELL_ERROR;
    if (built == 1) {
        render_text(&sh->render, RENDER_BAD,
                    "Not yet: fix what the compiler says, then `check` again.");
        return SHELL_ERROR;
    }
    if (ex->program != NULL)
        tutor_hints_restart(sh); /* a new program: the hints start from the most specific */
    struct tutor_verdict v;
    int passed = tutor_check_verdict(sh, ex, verbose, &v);
    if (passed != TUTOR_NO_CHECK)
        tutor_verdict_show(sh, ex, &v, verbose);
    tutor_verdict_free(&v);
    if (passed == TUTOR_NO_CHECK) {
        shell_error(sh, "the check could not run in the lab");
        return SHELL_ERROR;
    }
    if (passed == TUTOR_WAITING)
        return SHELL_ERROR;
    if (passed == TUTOR_FAILED) {
        render_text(&sh->render, RENDER_NOTE,
                    verbose ? "(`hint` looks at the lab and helps.)"
                            : "(`hint` looks at the lab and helps; `check -v` lists every "
                              "condition with what the kernel showed.)");
        /* A second try meets what the first left: say how to start clean. */
        if (tutor_check_failed(sh) >= 2 && ex->program == NULL)
            render_text(&sh->render, RENDER_NOTE,
                        "(What an earlier try left in the lab, a program still running or a "
                        "change it made, can stand in the way: `again` rebuilds the lab as this "
                        "step found it, for a fresh try.)");
        return SHELL_ERROR;
    }
    return cmd_check_passed(sh, ex);
}

/* A hint applies when it has no condition or its condition holds in the lab
 * (where `failed PATTERN` looks at the check's first failing condition,
 * failed); one that says to type `check` only when the check passes now,
 * so that a hint never contradicts the check. */
static int hint_applies(struct shell *sh, const struct lesson_block *ex,
                        const struct lesson_hint *h, int passes, const char *failed)
{
    struct tutor_script how = {NULL, 0, failed};
    char *out = NULL;
    if (h->text != NULL && strstr(h->text, "`check`") != NULL && !passes)
        return 0;
    if (h->when == NULL)
        return 1;
    char *command = tutor_code_command(ex, h->when, &how);
    int status = command != NULL ? tutor_capture_condition(sh, command, &out) : -1;
    free(command);
    free(out);
    return status == 0;
}

int cmd_hint(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const struct lesson_block *ex = tutor_current_exercise(sh);
    if (ex == NULL || ex->hint_count == 0) {
        shell_error(sh, "no hint here: this step has %s", ex == NULL ? "no exercise" : "no hints");
        return SHELL_ERROR;
    }
    /* The check first, quietly: the hints are chosen by what failed. */
    struct tutor_verdict v;
    char sentence[512];
    int passes = tutor_check_verdict_again(sh, ex, &v) == TUTOR_PASSED;
    const char *failed = tutor_verdict_failed(&v, sentence, sizeof sentence);
    const struct lesson_hint *apply[64];
    size_t n = 0;
    for (size_t i = 0; i < ex->hint_count && n < 64; i++)
        if (hint_applies(sh, ex, &ex->hints[i], passes, failed))
            apply[n++] = &ex->hints[i];
    tutor_verdict_free(&v);
    /* The next hint; another condition failing now starts them again from
     * the most specific. */
    size_t pick = tutor_hint_pick(sh, failed, n);
    if (n == 0) {
        render_text(&sh->render, RENDER_NOTE, "No hint fits what the lab shows now; try `check`.");
        return SHELL_OK;
    }
    render_textf(&sh->render, RENDER_NOTE, "Hint: %s", apply[pick]->text);
    return SHELL_OK;
}

int cmd_reset(struct shell *sh, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "-y") != 0)
        return SHELL_USAGE;
    if (argc == 1) {
        int yes = shell_confirm(sh, "reset", "Forget the progress of every lesson? [y/N] ");
        if (yes == -1)
            return SHELL_ERROR;
        if (!yes) {
            render_text(&sh->render, RENDER_NOTE, "Kept your progress.");
            return SHELL_OK;
        }
    }
    progress_reset(&sh->progress);
    progress_save(&sh->progress, stderr);
    tutor_leave(sh);
    render_text(&sh->render, RENDER_GOOD, "Progress forgotten; `lesson 1` starts again.");
    return SHELL_OK;
}

char **complete_lessons(struct shell *sh, const char *text, int argi)
{
    size_t n = sh->lesson_count;
    const char **items = calloc(3 * n + 1, sizeof *items);
    char(*numbers)[16] = calloc(n + 1, sizeof *numbers);
    char **list = NULL;

    if (argi > 1)
        list = NULL; /* export LESSON FILE: a path */
    else if (items != NULL && numbers != NULL) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            snprintf(numbers[i], sizeof numbers[i], "%d", sh->lessons[i].number);
            items[k++] = numbers[i];
            items[k++] = sh->lessons[i].id;
            const char *dash = strchr(sh->lessons[i].id, '-');
            if (dash != NULL)
                items[k++] = dash + 1;
        }
        list = list_filter(items, k, text);
    }
    free(items);
    free(numbers);
    return list;
}
