/* tutor.c: the guided flow of a lesson step, and --auto. See tutor.h. */
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"
#include "render/annotate.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "procfs/procfs.h"
#include "render/tee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tutor_prompt(const struct shell *sh, char *buf, size_t len)
{
    if (sh->lesson_index < 0 || sh->lessons == NULL) {
        snprintf(buf, len, "pidns-tutor> ");
        return;
    }
    const struct lesson *l = &sh->lessons[sh->lesson_index];
    if (sh->lesson_finished)
        snprintf(buf, len, "pidns-tutor (%d:done)> ", l->number);
    else
        snprintf(buf, len, "pidns-tutor (%d:%d/%zu)> ", l->number, sh->step_index + 1,
                 l->step_count);
}

/* The id without its leading "NN-". */
static const char *lesson_name(const struct lesson *l)
{
    const char *dash = strchr(l->id, '-');
    return dash != NULL ? dash + 1 : l->id;
}

int tutor_find_lesson(const struct shell *sh, const char *what)
{
    char *end;
    long number = strtol(what, &end, 10);
    int found = -1;
    size_t len = strlen(what);

    if (*what == '\0')
        return -1;
    for (size_t i = 0; i < sh->lesson_count; i++) {
        const struct lesson *l = &sh->lessons[i];
        if ((*end == '\0' && l->number == number) || strcmp(l->id, what) == 0 ||
            strcmp(lesson_name(l), what) == 0)
            return (int)i;
    }
    for (size_t i = 0; i < sh->lesson_count; i++) {
        const struct lesson *l = &sh->lessons[i];
        if (strncmp(l->id, what, len) == 0 || strncmp(lesson_name(l), what, len) == 0) {
            if (found != -1)
                return -1; /* ambiguous */
            found = (int)i;
        }
    }
    return found;
}

static void record(struct shell *sh)
{
    const struct lesson *l = &sh->lessons[sh->lesson_index];
    struct progress_entry *e = progress_entry(&sh->progress, l->id);

    if (e != NULL && !sh->auto_mode && !sh->presenting) {
        e->step = sh->step_index;
        snprintf(sh->progress.current, sizeof sh->progress.current, "%s", l->id);
        progress_save(&sh->progress, stderr);
    }
}

void tutor_enter(struct shell *sh, int index, int step)
{
    sh->lesson_index = index;
    sh->step_index = step;
    sh->lesson_finished = 0;
    sh->hint_counter = 0;
}

/* Index of a step's exercise, or its block count when it has none. */
static size_t exercise_index(const struct lesson_step *step)
{
    size_t i = 0;
    while (i < step->block_count && step->blocks[i].type != LESSON_EXERCISE)
        i++;
    return i;
}

const struct lesson_block *tutor_current_exercise(const struct shell *sh)
{
    if (sh->lesson_index < 0 || sh->lesson_finished)
        return NULL;
    const struct lesson_step *step = &sh->lessons[sh->lesson_index].steps[sh->step_index];
    size_t i = exercise_index(step);
    return i < step->block_count ? &step->blocks[i] : NULL;
}

static void annotate(struct shell *sh, const char *output)
{
    struct procfs_tree tree;

    if (output[0] == '\0' || procfs_read_tree(lab_path(sh->lab, "/proc"), &tree) == -1)
        return;
    tree.base_level = lab_level(sh->lab);
    char *notes = annotate_output(output, &tree, 4);
    procfs_tree_free(&tree);
    for (char *line = notes, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        render_text(&sh->render, RENDER_NOTE, line);
    }
    free(notes);
}

/* Said once when a command typed at the prompt still runs in the foreground
 * after TUTOR_STILL_RUNNING_MS (on an 80-column terminal, one line). */
#define TUTOR_STILL_RUNNING_MS 3000
static const char still_running_note[] =
    "(still running: Ctrl-C stops it; `sh CMD &` or `run` leave a program running)";

/* lab_run, lab_start or lab_start_background as mode says; output teed. */
static int run_teed(struct shell *sh, const char *command, int mode, char **output)
{
    int how = mode & ~TUTOR_RUN_TYPED;
    int noted = (mode & TUTOR_RUN_TYPED) && how != TUTOR_RUN_BACKGROUND && sh->interactive &&
                !sh->auto_mode && !sh->presenting;
    struct tee *t = tee_start_with_note(&sh->render, noted ? still_running_note : NULL,
                                        TUTOR_STILL_RUNNING_MS);
    int status = -1, job = 0, rc;

    if (t == NULL) {
        shell_error(sh, "cannot capture the output of '%s': out of resources", command);
        return -1;
    }
    shell_interrupted = 0;
    if (how == TUTOR_RUN_FOREGROUND) {
        status = lab_run(sh->lab, command, tee_fd(t), tee_fd(t));
        *output = tee_finish(t, 1);
        return status;
    }
    if (how == TUTOR_RUN_BACKGROUND)
        rc = lab_start_background(sh->lab, command, tee_fd(t), &status, &job);
    else
        rc = lab_start(sh->lab, command, tee_fd(t), &status, &job);
    *output = tee_finish(t, rc != 1);
    if (rc == 1) {
        render_textf(&sh->render, RENDER_NOTE,
                     "(it keeps running in the background as job %d: `status` lists it, "
                     "`cleanup` stops it)",
                     job);
        return 0;
    }
    return rc == 0 ? status : -1;
}

int tutor_run_command(struct shell *sh, const char *command, int mode, char **output)
{
    char *out = NULL;

    char *shown = NULL;
    if ((mode & ~TUTOR_RUN_TYPED) == TUTOR_RUN_BACKGROUND && asprintf(&shown, "%s &", command) == -1)
        shown = NULL;
    render_command(&sh->render, "#", shown != NULL ? shown : command);
    free(shown);
    if (sh->lab == NULL) {
        shell_error(sh, "the lab is not open: '%s' was not run", command);
        return -1;
    }
    int status = run_teed(sh, command, mode, &out);
    if (status == 130 || shell_interrupted) {
        render_text(&sh->render, RENDER_BAD, "(stopped by Ctrl-C)");
        status = 130;
    } else if (status == -1) {
        shell_error(sh, "could not run '%s' in the lab", command);
    } else if (out != NULL) {
        annotate(sh, out);
        if (!sh->erofs_noted && strstr(out, "Read-only file system") != NULL) {
            sh->erofs_noted = 1;
            /* One line on an 80-column terminal. ~, /tmp and / are the lab's
             * own tmpfs and vanish with it. */
            render_text(&sh->render, RENDER_NOTE,
                        "(the host's files are read-only in the lab, to keep them safe: use "
                        "/tmp or ~)");
        }
    }
    if (output != NULL)
        *output = out;
    else
        free(out);
    return status;
}

/* What a question's ask_* returns: the question was answered (or given up
 * with Enter), or the step is left (Ctrl-C, Ctrl-D, a command that moves). */
enum question_end { QUESTION_ANSWERED, QUESTION_LEFT };

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
        free(sh->pending_line);
        sh->pending_line = strdup(line);
    }
    return kind;
}

/* Ctrl-D at a question leaves the tutorial, as at the prompt. */
static void end_of_input(struct shell *sh)
{
    render_text(&sh->render, RENDER_NOTE, "(the question is left unanswered: Ctrl-D leaves)");
    free(sh->pending_line);
    sh->pending_line = strdup("quit");
}

static enum question_end ask_prediction(struct shell *sh, const struct lesson_block *b)
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
    else if (kind == SHELL_LINE_ANSWER)
        render_textf(&sh->render, RENDER_NOTE,
                     "Not what the lesson expects (%s). Watch the output to see why:", b->answer);
    free(given);
    if (kind == SHELL_LINE_LOOKS)
        return ask_prediction(sh, b); /* the question again, after what ran */
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
                        "Several answers start that way: type more of one, or its number.");
        else
            render_textf(&sh->render, RENDER_NOTE,
                         "Type a number from 1 to %zu or the start of an answer (Enter shows "
                         "the answer).",
                         b->choice_count);
    }
}

static enum question_end ask_quiz(struct shell *sh, const struct lesson_block *b)
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

static void show_exercise(struct shell *sh, const struct lesson_block *b)
{
    const struct lesson *l = &sh->lessons[sh->lesson_index];
    struct progress_entry *e = progress_get(&sh->progress, l->id);

    render_textf(&sh->render, RENDER_HEADING, "Exercise: %s", b->text);
    char file[PATH_MAX];
    if (b->program != NULL && !sh->auto_mode && !sh->presenting) {
        if (tutor_code_file(b, file, sizeof file) == 0)
            render_textf(&sh->render, RENDER_NOTE, "Your file: %s", file);
        render_text(&sh->render, RENDER_NOTE,
                    "`edit` opens it, `build` compiles it, `check` builds it and runs it in the "
                    "lab (`watch`: on every save); `hint` helps, `reset-file` starts it afresh.");
        return;
    }
    /* "Done already" only while the check still passes (a cleanup may
     * have removed the answer since). */
    if (e != NULL && sh->step_index < 64 && (e->checked & (1ul << sh->step_index)) &&
        tutor_check(sh, b) == 1)
        render_text(&sh->render, RENDER_NOTE,
                    "(you have done this one already: `check` "
                    "again to see it pass)");
    else if (!sh->auto_mode && !sh->presenting)
        render_text(&sh->render, RENDER_NOTE,
                    "Do it with `sh ...` or `run ...`, then type `check`; `hint` helps.");
}

/* Shows one block; returns 1 when the step should count as failed, 2 when
 * it was interrupted, 3 when a question was left for a command
 * (sh->pending_line). last_output holds the output of the last RUN. */
static int show_block(struct shell *sh, const struct lesson_block *b,
                      const struct lesson_block *next, char **last_output)
{
    int status;

    switch (b->type) {
    case LESSON_TEXT:
        render_text(&sh->render, RENDER_PLAIN, b->text);
        return 0;
    case LESSON_CODE:
        render_textf(
            &sh->render, RENDER_NOTE, "%s%s%s:", b->source_path != NULL ? b->source_path : "code",
            b->source_tag != NULL ? ", part " : "", b->source_tag != NULL ? b->source_tag : "");
        render_code(&sh->render, b->text, b->first_line > 0 ? b->first_line : 1);
        return 0;
    case LESSON_RUN:
        free(*last_output);
        *last_output = NULL;
        status = tutor_run_command(sh, b->text, b->background, last_output);
        if (status == 130)
            return 2;
        if (status != 0 && (next == NULL || next->type != LESSON_EXPECT)) {
            render_textf(&sh->render, RENDER_BAD, "(the command failed: exit status %d)", status);
            return 1;
        }
        return 0;
    case LESSON_EXPECT:
        if (*last_output != NULL && lesson_block_output_matches(b, *last_output))
            return 0;
        render_text(&sh->render, RENDER_BAD,
                    "This output is not what the lesson expected, "
                    "which was:");
        render_text(&sh->render, RENDER_OUTPUT, b->text);
        return 1;
    case LESSON_PREDICT:
        if (ask_prediction(sh, b) == QUESTION_LEFT)
            return sh->pending_line != NULL ? 3 : 2;
        return 0;
    case LESSON_EXERCISE:
        show_exercise(sh, b);
        return 0;
    case LESSON_QUIZ:
        if (ask_quiz(sh, b) == QUESTION_LEFT)
            return sh->pending_line != NULL ? 3 : 2;
        return 0;
    }
    return 0;
}

/* Shows blocks [from, to) of the current step; returns 1 if one failed or
 * the learner stopped it. */
static int show_blocks(struct shell *sh, size_t from, size_t to)
{
    const struct lesson_step *step = &sh->lessons[sh->lesson_index].steps[sh->step_index];
    char *last_output = NULL;
    int failed = 0;

    shell_interrupted = 0;
    for (size_t i = from; i < to; i++) {
        const struct lesson_block *next = i + 1 < step->block_count ? &step->blocks[i + 1] : NULL;
        if (step->blocks[i].type != LESSON_EXPECT)
            fputc('\n', sh->render.out); /* blocks read as paragraphs */
        int rc = show_block(sh, &step->blocks[i], next, &last_output);
        if (rc == 3)
            break; /* a command typed at a question: it says what happens next */
        if (rc == 2 || shell_interrupted) {
            render_text(&sh->render, RENDER_NOTE, "Step stopped. `again` runs it again.");
            failed = 1;
            break;
        }
        failed |= rc;
    }
    free(last_output);
    return failed;
}

/* A step shows its blocks up to its exercise, if it has one; what follows
 * the exercise talks about its result, so it waits for a passing check
 * (tutor_show_debrief). */
int tutor_show_step(struct shell *sh)
{
    const struct lesson *l = &sh->lessons[sh->lesson_index];
    const struct lesson_step *step = &l->steps[sh->step_index];
    size_t exercise = exercise_index(step);

    record(sh);
    sh->steps_shown++;
    fputc('\n', sh->render.out);
    render_textf(&sh->render, RENDER_HEADING, "Lesson %d, step %d of %zu: %s", l->number,
                 sh->step_index + 1, l->step_count, step->title != NULL ? step->title : "");
    int failed = show_blocks(sh, 0, exercise < step->block_count ? exercise + 1 : exercise);
    if (!failed && sh->interactive && !sh->auto_mode && !sh->presenting &&
        sh->pending_line == NULL && tutor_current_exercise(sh) == NULL)
        render_text(&sh->render, RENDER_NOTE,
                    sh->step_index + 1 < (int)l->step_count
                        ? "(Enter: next step.  again: run this step again.  help: commands)"
                        : "(Enter: finish the lesson.)");
    return failed ? SHELL_ERROR : SHELL_OK;
}

int tutor_show_debrief(struct shell *sh)
{
    const struct lesson_step *step = &sh->lessons[sh->lesson_index].steps[sh->step_index];
    size_t exercise = exercise_index(step);
    if (exercise + 1 >= step->block_count)
        return SHELL_OK;
    return show_blocks(sh, exercise + 1, step->block_count) ? SHELL_ERROR : SHELL_OK;
}

void tutor_show_solution(struct shell *sh, const struct lesson_block *exercise)
{
    if (exercise->program != NULL)
        tutor_code_show_solution(sh, exercise);
    if (exercise->solution == NULL)
        return;
    render_text(&sh->render, RENDER_NOTE, "A worked solution:");
    render_text(&sh->render, RENDER_COMMAND, exercise->solution);
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Writes the paths of lines "PREFIX PATH ..." to out, comma-separated; the
 * /procN among them sorted, a run of consecutive ones as "/procA-/procB".
 * Returns how many there were. */
static size_t print_paths(FILE *out, char **lines, size_t n, const char *prefix)
{
    int *numbers = malloc((n + 1) * sizeof *numbers);
    size_t count = 0, shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(lines[i], prefix, strlen(prefix)) != 0)
            continue;
        const char *path = lines[i] + strlen(prefix);
        int k, used = 0;
        count++;
        if (numbers != NULL && sscanf(path, "/proc%d%n", &k, &used) == 1 &&
            (path[used] == ' ' || path[used] == '\0'))
            numbers[shown++] = k;
        else
            fprintf(out, "%s%.*s", count - shown > 1 ? ", " : "", (int)strcspn(path, " "), path);
    }
    int others = count > shown;
    if (numbers != NULL)
        qsort(numbers, shown, sizeof *numbers, compare_ints);
    for (size_t i = 0; i < shown;) {
        size_t j = i;
        while (j + 1 < shown && numbers[j + 1] == numbers[j] + 1)
            j++;
        fprintf(out, "%s/proc%d", i > 0 || others ? ", " : "", numbers[i]);
        if (j > i)
            fprintf(out, "-/proc%d", numbers[j]);
        i = j + 1;
    }
    free(numbers);
    return count;
}

static size_t count_prefix(char **lines, size_t n, const char *prefix)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += strncmp(lines[i], prefix, strlen(prefix)) == 0;
    return count;
}

int tutor_cleanup(struct shell *sh, int verbose)
{
    char *report = NULL, *summary = NULL;
    size_t size, n = 0, ssize;
    FILE *out = open_memstream(&report, &size);

    fflush(sh->render.out);
    int rc = lab_cleanup(sh->lab, out != NULL ? out : sh->render.out);
    if (out == NULL || fclose(out) != 0) {
        free(report);
        return rc;
    }
    char **lines = calloc(strlen(report) / 2 + 2, sizeof *lines);
    for (char *line = strtok(lines != NULL ? report : NULL, "\n"); line != NULL;
         line = strtok(NULL, "\n"))
        lines[n++] = line;
    for (size_t i = 0; i < n; i++)
        if (verbose || strncmp(lines[i], "warning:", 8) == 0)
            fprintf(sh->render.out, "%s\n", lines[i]);
    /* A job's program is also among the stopped processes: count programs
     * once, as processes (the jobs when the sweep named none). */
    size_t processes = count_prefix(lines, n, "stopped process ");
    size_t jobs = count_prefix(lines, n, "stopped job ");
    size_t programs = processes > jobs ? processes : jobs;
    FILE *s = open_memstream(&summary, &ssize);
    if (s != NULL) {
        const char *sep = "";
        if (programs > 0) {
            fprintf(s, "stopped %zu program%s", programs, programs == 1 ? "" : "s");
            sep = ", ";
        }
        if (count_prefix(lines, n, "unmounted ") > 0) {
            fprintf(s, "%sunmounted ", sep);
            print_paths(s, lines, n, "unmounted ");
            sep = ", ";
        }
        size_t dirs = count_prefix(lines, n, "removed directory ");
        if (dirs > count_prefix(lines, n, "unmounted ")) { /* more than the mount points */
            fprintf(s, "%sremoved ", sep);
            print_paths(s, lines, n, "removed directory ");
        }
        if (fclose(s) != 0) {
            free(summary);
            summary = NULL;
        }
    }
    if (summary != NULL && summary[0] != '\0')
        render_textf(&sh->render, RENDER_NOTE, "Cleaned up: %s%s.", summary,
                     verbose ? "" : " (`cleanup -v` lists each)");
    free(summary);
    free(lines);
    free(report);
    return rc;
}
