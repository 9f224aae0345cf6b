/* SPDX-License-Identifier: MIT */
/* tutor.c: the guided flow of a lesson step, and --auto. See tutor.h. */
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "tutor/tutor_code.h"
#include "render/annotate.h"
#include "lab/lab_limits.h"
#include "lab/doctor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "procfs/procfs.h"
#include "render/tee.h"
#include "tutor/tutor_question.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tutor_prompt(const struct shell *sh, char *buf, size_t len)
{
    if (tutor_lesson(sh) < 0 || sh->lessons == NULL) {
        snprintf(buf, len, "pidns-tutor> ");
        return;
    }
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    int skipped = progress_skipped(progress_get(&sh->progress, l->id), NULL);
    if (tutor_finished(sh) && skipped > 0) /* not "done": an exercise was skipped */
        snprintf(buf, len, "pidns-tutor (%d:finished, %d skipped)> ", l->number, skipped);
    else if (tutor_finished(sh))
        snprintf(buf, len, "pidns-tutor (%d:done)> ", l->number);
    else
        snprintf(buf, len, "pidns-tutor (%d:%d/%zu)> ", l->number, tutor_step(sh) + 1,
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
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    struct progress_entry *e = progress_entry(&sh->progress, l->id);

    if (e != NULL && !sh->auto_mode && !sh->presenting) {
        e->step = tutor_step(sh);
        snprintf(sh->progress.current, sizeof sh->progress.current, "%s", l->id);
        progress_save(&sh->progress, stderr);
    }
}

int tutor_next_unfinished(struct shell *sh, int from)
{
    for (size_t k = 0; k < sh->lesson_count; k++) {
        size_t i = ((size_t)(from > 0 ? from : 0) + k) % sh->lesson_count;
        if (!progress_entry_done(progress_get(&sh->progress, sh->lessons[i].id)))
            return (int)i;
    }
    return -1;
}

/* Index of a step's exercise, or its block count when it has none. */
static size_t exercise_index(const struct lesson_step *step)
{
    size_t i = 0;
    while (i < step->block_count && step->blocks[i].type != LESSON_EXERCISE)
        i++;
    return i;
}

int tutor_step_runs_here(const struct lesson_step *step, char *release, size_t len)
{
    return doctor_kernel_has(step->kernel, release, len);
}

const struct lesson_block *tutor_current_exercise(const struct shell *sh)
{
    char release[128];
    if (tutor_lesson(sh) < 0 || tutor_finished(sh))
        return NULL;
    const struct lesson_step *step = &sh->lessons[tutor_lesson(sh)].steps[tutor_step(sh)];
    if (!tutor_step_runs_here(step, release, sizeof release))
        return NULL; /* a step this kernel cannot show has no exercise to do */
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

/* The variable a named job's PID is kept in: "NAME_pid". */
static void job_variable(const char *job, char *buf, size_t len)
{
    snprintf(buf, len, "%s_pid", job);
}

int tutor_name_job(struct shell *sh, const char *job, int job_id)
{
    const struct lab_job *jobs;
    size_t n = sh->lab != NULL ? lab_jobs(sh->lab, &jobs) : 0;
    char name[64], value[32];

    for (size_t i = 0; i < n; i++) {
        if (jobs[i].id != job_id)
            continue;
        job_variable(job, name, sizeof name);
        snprintf(value, sizeof value, "%d", (int)jobs[i].lab_pid);
        /* The shell's environment is every lab command's: the lesson's
         * commands, checks and hints, and the learner's own. */
        return setenv(name, value, 1) == 0 ? (int)jobs[i].lab_pid : -1;
    }
    return -1;
}

void tutor_forget_jobs(struct shell *sh)
{
    char name[64];

    for (size_t l = 0; l < sh->lesson_count; l++)
        for (size_t s = 0; s < sh->lessons[l].step_count; s++)
            for (size_t i = 0; i < sh->lessons[l].steps[s].block_count; i++) {
                const struct lesson_block *b = &sh->lessons[l].steps[s].blocks[i];
                if (b->job != NULL) {
                    job_variable(b->job, name, sizeof name);
                    unsetenv(name);
                }
            }
}

/* Said once when a step's command has not yet printed what the lesson
 * expects after TUTOR_STILL_RUNNING_MS. */
static const char waiting_note[] =
    "(waiting for the output the lesson expects: Ctrl-C stops the command)";

double tutor_wait_bound(void)
{
    const char *env = getenv("PIDNS_TUTOR_EXPECT_WAIT");
    char *end;
    double s = env != NULL ? strtod(env, &end) : 0;
    return env != NULL && end != env && *end == '\0' && s > 0 && s <= 3600 ? s : 30;
}

static enum lab_output_state expected_output_state(const char *output, const void *expect)
{
    return (enum lab_output_state)lesson_block_output_progress(expect, output);
}

const struct lab_expect *tutor_lab_expect(const struct lesson_block *expect, struct lab_expect *buf)
{
    if (expect == NULL)
        return NULL;
    *buf = (struct lab_expect){expected_output_state, expect, tutor_wait_bound()};
    return buf;
}

/* lab_run, lab_start or lab_start_background as mode says; output teed. A
 * job that keeps running gets the name job_name (may be NULL). A program
 * that keeps running, followed by an [.expect] (expect, may be NULL),
 * becomes a job only once its output matches, cannot match any more, or
 * the bound passed (lab_start_expecting): a slow machine's late first line
 * is waited for, not compared before it came. */
static int run_teed(struct shell *sh, const char *command, int mode, const char *job_name,
                    const struct lesson_block *expect, char **output)
{
    int how = mode & ~TUTOR_RUN_TYPED;
    int quiet = !sh->interactive || sh->auto_mode || sh->presenting;
    int noted = (mode & TUTOR_RUN_TYPED) && how != TUTOR_RUN_BACKGROUND && !quiet;
    struct lab_expect wanted;
    if (how != TUTOR_RUN_MAY_STAY)
        expect = NULL;
    const char *note = noted ? still_running_note : expect != NULL && !quiet ? waiting_note : NULL;
    struct tee *t = tee_start_with_note(&sh->render, note, TUTOR_STILL_RUNNING_MS);
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
        rc = lab_start_expecting(sh->lab, command, tee_fd(t), tutor_lab_expect(expect, &wanted),
                                 &status, &job);
    *output = tee_finish(t, rc != 1);
    /* The bound ran out while the output could still become what the step
     * expects: say so, before the step calls it wrong. */
    int late = rc == 1 && expect != NULL && *output != NULL &&
               lesson_block_output_progress(expect, *output) == 0;
    int pid = rc == 1 && job_name != NULL ? tutor_name_job(sh, job_name, job) : -1;
    if (pid > 0) {
        char name[64];
        job_variable(job_name, name, sizeof name);
        render_textf(&sh->render, RENDER_NOTE,
                     "(it keeps running in the background as job %d, PID %d, which later "
                     "commands call $%s: `status` lists it, `cleanup` stops it)",
                     job, pid, name);
    } else if (rc == 1) {
        render_textf(&sh->render, RENDER_NOTE,
                     "(it keeps running in the background as job %d: `status` lists it, "
                     "`cleanup` stops it)",
                     job);
    }
    if (late)
        render_textf(&sh->render, RENDER_NOTE,
                     "(still waiting for the rest of what the lesson expects after %.0f s: a slow "
                     "machine? `again` runs the step again)",
                     tutor_wait_bound());
    if (rc == 1)
        return 0;
    return rc == 0 ? status : -1;
}

/* After a command that failed on EAGAIN or ENOSPC (its output, or the
 * errno left by starting it): the limit that was hit, and who can change it. */
static void note_limit(struct shell *sh, const char *output, int error)
{
    char note[1024];

    if (error != EAGAIN && error != ENOSPC && output == NULL)
        return;
    if (lab_limits_note(output, error == EAGAIN || error == ENOSPC ? error : 0, note,
                        sizeof note) == 0)
        render_text(&sh->render, RENDER_NOTE, note);
}

/* tutor_run_command, naming the job when job is not NULL; expect: the
 * [.expect] block that follows, or NULL (see run_teed). */
static int run_command(struct shell *sh, const char *command, int mode, const char *job,
                       const struct lesson_block *expect, char **output)
{
    char *out = NULL;

    char *shown = NULL;
    if ((mode & ~TUTOR_RUN_TYPED) == TUTOR_RUN_BACKGROUND &&
        asprintf(&shown, "%s &", command) == -1)
        shown = NULL;
    render_command(&sh->render, "#", shown != NULL ? shown : command);
    free(shown);
    if (sh->lab == NULL) {
        shell_error(sh, "the lab is not open: '%s' was not run", command);
        return -1;
    }
    int status = run_teed(sh, command, mode, job, expect, &out);
    if (status == 130 || shell_interrupted) {
        render_text(&sh->render, RENDER_BAD, "(stopped by Ctrl-C)");
        status = 130;
    } else if (status == -1) {
        shell_error(sh, "could not run '%s' in the lab", command);
        /* The runner's fork failing leaves no errno here: a limit with
         * little room left is the likely cause (none is named otherwise). */
        note_limit(sh, NULL, EAGAIN);
    } else if (out != NULL) {
        annotate(sh, out);
        /* A program may report a fork's EAGAIN and still exit 0. */
        if (status != 0 || lab_limits_error_in(out) == EAGAIN)
            note_limit(sh, out, 0);
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

int tutor_run_command(struct shell *sh, const char *command, int mode, char **output)
{
    return run_command(sh, command, mode, NULL, NULL, output);
}

static void show_exercise(struct shell *sh, const struct lesson_block *b)
{
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    struct progress_entry *e = progress_get(&sh->progress, l->id);

    render_textf(&sh->render, RENDER_HEADING, "Exercise: %s", b->text);
    char file[PATH_MAX];
    if (b->program != NULL && !sh->auto_mode && !sh->presenting) {
        /* The file named exists from now on, for an editor in another
         * terminal (`watch`); a first copy says so itself. */
        int existed = tutor_code_file(b, file, sizeof file) == 0 && access(file, F_OK) == 0;
        if (tutor_code_prepare(sh, b) == 0 && existed)
            render_textf(&sh->render, RENDER_NOTE, "Your file: %s", file);
        render_text(&sh->render, RENDER_NOTE,
                    "`edit` opens it, `build` compiles it, `check` builds it and runs it in the "
                    "lab (`watch`: on every save); `hint` helps, `reset-file` starts it afresh.");
        return;
    }
    /* "Done already" only while the check still passes (a cleanup may
     * have removed the answer since). */
    if (e != NULL && tutor_step(sh) < 64 && (e->checked & (1ul << tutor_step(sh))) &&
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
 * (tutor_pending). last_output holds the output of the last RUN. */
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
        status =
            run_command(sh, b->text, b->background, b->job,
                        next != NULL && next->type == LESSON_EXPECT ? next : NULL, last_output);
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
        if (tutor_ask_prediction(sh, b) == QUESTION_LEFT)
            return tutor_pending(sh) != NULL ? 3 : 2;
        return 0;
    case LESSON_EXERCISE:
        show_exercise(sh, b);
        return 0;
    case LESSON_QUIZ:
        if (tutor_ask_quiz(sh, b) == QUESTION_LEFT)
            return tutor_pending(sh) != NULL ? 3 : 2;
        return 0;
    }
    return 0;
}

/* Shows blocks [from, to) of the current step; returns 1 if one failed or
 * the learner stopped it. */
static int show_blocks(struct shell *sh, size_t from, size_t to)
{
    const struct lesson_step *step = &sh->lessons[tutor_lesson(sh)].steps[tutor_step(sh)];
    char *last_output = NULL;
    int failed = 0;

    shell_interrupted = 0;
    for (size_t i = from; i < to; i++) {
        const struct lesson_block *next = i + 1 < step->block_count ? &step->blocks[i + 1] : NULL;
        if (step->blocks[i].type != LESSON_EXPECT)
            fputc('\n', sh->render.out); /* blocks read as paragraphs */
        int rc = show_block(sh, &step->blocks[i], next, &last_output);
        if (rc == 3) {
            tutor_step_cut(sh);
            break; /* a command typed at a question: it says what happens next */
        }
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
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    const struct lesson_step *step = &l->steps[tutor_step(sh)];
    size_t exercise = exercise_index(step);

    record(sh);
    tutor_step_shown(sh);
    fputc('\n', sh->render.out);
    render_textf(&sh->render, RENDER_HEADING, "Lesson %d, step %d of %zu: %s", l->number,
                 tutor_step(sh) + 1, l->step_count, step->title != NULL ? step->title : "");
    char release[128];
    if (!tutor_step_runs_here(step, release, sizeof release)) {
        render_textf(&sh->render, RENDER_NOTE,
                     "This step needs Linux %s or later; this kernel is %s, so it is skipped "
                     "(pidns-tutor --doctor lists what this kernel has).%s",
                     step->kernel, release,
                     sh->interactive && !sh->auto_mode ? " Enter: next step." : "");
        return SHELL_OK;
    }
    int failed = show_blocks(sh, 0, exercise < step->block_count ? exercise + 1 : exercise);
    if (!failed && sh->interactive && !sh->auto_mode && !sh->presenting &&
        tutor_pending(sh) == NULL && tutor_current_exercise(sh) == NULL)
        render_text(&sh->render, RENDER_NOTE,
                    tutor_step(sh) + 1 < (int)l->step_count
                        ? "(Enter: next step.  again: run this step again.  help: commands)"
                        : "(Enter: finish the lesson.)");
    return failed ? SHELL_ERROR : SHELL_OK;
}

int tutor_show_debrief(struct shell *sh)
{
    const struct lesson_step *step = &sh->lessons[tutor_lesson(sh)].steps[tutor_step(sh)];
    size_t exercise = exercise_index(step);
    char release[128];
    if (exercise + 1 >= step->block_count || !tutor_step_runs_here(step, release, sizeof release))
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
