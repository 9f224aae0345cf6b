/* SPDX-License-Identifier: MIT */
/* tutor_lab.c: a lesson owns its lab.
 *
 * A learner does not play a lesson straight as --auto does: they jump to
 * another lesson with programs still running, quit and resume at step K the
 * next day, run a step again. Each time the step must meet the lab it was
 * written for. So starting or resuming a lesson, `again` and `back` first
 * stop and unmount whatever is in the lab (one line says what), then replay
 * quietly what the steps before the current one did: their commands, those
 * that stay running included, and the worked solutions of their exercises
 * (one line says so, and what runs again).
 */
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Cleans the lab up; one line "(stopped 2 programs left by lesson 1,
 * unmounted /proc2)" when something was there. */
static int own_lab(struct shell *sh, const char *whose)
{
    char *summary;
    int rc = tutor_cleanup_summary(sh, 0, &summary);

    if (summary != NULL) {
        /* whose goes with the programs: after "stopped N programs" */
        size_t head =
            strncmp(summary, "stopped ", 8) == 0 ? strcspn(summary, ",") : strlen(summary);
        render_textf(&sh->render, RENDER_NOTE, "(%.*s %s%s)", (int)head, summary, whose,
                     summary + head);
    }
    free(summary);
    return rc;
}

/* Runs a command of an earlier step with its output thrown away; a job
 * that keeps running gets its name, once its output is what the [.expect]
 * that follows shows (expect, may be NULL), as when the step is shown.
 * Returns its exit status (0 when it keeps running), 130 after Ctrl-C, -1
 * when it could not run. */
static int replay_command(struct shell *sh, const char *command, int background, const char *job,
                          const struct lesson_block *expect, int devnull)
{
    /* Not lab_capture(): a command that leaves a process holding its
     * output (lesson 16's orphan inside a container) would make the replay
     * wait for that process to end. */
    if (!background)
        return lab_run(sh->lab, command, devnull, devnull);
    int status = -1, id = 0;
    struct lab_expect wanted;
    int rc = lab_start_expecting(sh->lab, command, devnull, tutor_lab_expect(expect, &wanted),
                                 &status, &id);
    if (rc == 1 && job != NULL)
        tutor_name_job(sh, job, id);
    return rc == 1 ? 0 : rc == 0 ? status : -1;
}

/* An earlier exercise, as if done: its worked solution, then, while what
 * it left running still builds what its check looks at, a wait for it. */
static int replay_exercise(struct shell *sh, const struct lesson_block *b, int devnull)
{
    const struct lab_job *jobs;
    size_t before = lab_jobs(sh->lab, &jobs);
    int status = replay_command(sh, b->solution, 1, NULL, NULL, devnull);
    if (status == 0)
        tutor_await_check(sh, b, before);
    return status;
}

/* Does a job from index from on still run? */
static int job_runs_from(struct shell *sh, size_t from)
{
    const struct lab_job *jobs;
    size_t n = lab_jobs(sh->lab, &jobs);
    for (size_t i = from; i < n; i++)
        if (jobs[i].running)
            return 1;
    return 0;
}

int tutor_await_check(struct shell *sh, const struct lesson_block *exercise, size_t jobs_before)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double bound = tutor_wait_bound();
    int ran = job_runs_from(sh, jobs_before), running = ran;
    int passed = tutor_check(sh, exercise);
    while (passed == 0 && !shell_interrupted && (running = job_runs_from(sh, jobs_before))) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 >= bound)
            break;
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        passed = tutor_check(sh, exercise);
    }
    /* The solution's jobs ended while the check last looked (on a slow
     * machine, a check takes a while): what they did at the end, such as a
     * job's exit in $TUTOR_JOBS, only one more look sees. */
    if (passed == 0 && ran && !running && !shell_interrupted)
        passed = tutor_check(sh, exercise);
    return passed;
}

/* Replays blocks [0, upto) of one step, those that act on the lab.
 * Returns the first command that failed (NULL when none), *stopped set
 * after Ctrl-C. */
static const char *replay_step(struct shell *sh, const struct lesson_step *step, size_t upto,
                               int devnull, int *stopped)
{
    const char *failed = NULL;

    for (size_t i = 0; i < upto && i < step->block_count && !*stopped; i++) {
        const struct lesson_block *b = &step->blocks[i];
        const struct lesson_block *next = i + 1 < step->block_count ? &step->blocks[i + 1] : NULL;
        int status = 0;
        if (b->type == LESSON_RUN)
            status =
                replay_command(sh, b->text, b->background, b->job,
                               next != NULL && next->type == LESSON_EXPECT ? next : NULL, devnull);
        else if (b->type == LESSON_EXERCISE && b->solution != NULL)
            status = replay_exercise(sh, b, devnull);
        else
            continue;
        *stopped = status == 130 || shell_interrupted;
        /* As when the step is shown: a status other than 0 is a failure
         * unless an [.expect] describes the output. */
        int expected = b->type == LESSON_RUN && next != NULL && next->type == LESSON_EXPECT;
        if (failed == NULL && !*stopped && (status == -1 || (status != 0 && !expected)))
            failed = b->type == LESSON_RUN ? b->text : b->solution;
    }
    return failed;
}

/* Replays steps [0, upto) of the current lesson, then blocks [0, blocks)
 * of step upto, with their output thrown away. Returns the first command
 * that failed (NULL when none), *stopped set after Ctrl-C or when
 * /dev/null could not be opened. */
static const char *replay_quietly(struct shell *sh, int upto, size_t blocks, int *stopped)
{
    const struct lesson *l = &sh->lessons[tutor_lesson(sh)];
    const char *failed = NULL;
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

    *stopped = devnull == -1;
    fflush(sh->render.out);
    shell_interrupted = 0;
    for (int s = 0; s <= upto && s < (int)l->step_count && !*stopped; s++) {
        char release[128];
        if (!tutor_step_runs_here(&l->steps[s], release, sizeof release))
            continue; /* skipped when shown too */
        const char *f = replay_step(sh, &l->steps[s], s < upto ? l->steps[s].block_count : blocks,
                                    devnull, stopped);
        if (failed == NULL)
            failed = f;
    }
    if (devnull != -1)
        close(devnull);
    return failed;
}

/* "multi_pidns 5 is running again", "a and b are running again": the jobs
 * that run now, written to f. */
static void put_running(FILE *f, struct shell *sh)
{
    const struct lab_job *jobs;
    size_t n = lab_jobs(sh->lab, &jobs), running = 0, shown = 0;

    for (size_t i = 0; i < n; i++)
        running += jobs[i].running != 0;
    if (running == 0)
        return;
    fputs(": ", f);
    for (size_t i = 0; i < n; i++) {
        if (!jobs[i].running)
            continue;
        shown++;
        if (shown > 1)
            fputs(shown == running ? " and " : ", ", f);
        fprintf(f, "%.*s", (int)strcspn(jobs[i].command, "\n"), jobs[i].command);
    }
    fprintf(f, " %s running again", running == 1 ? "is" : "are");
}

/* Replays steps [0, upto) of the current lesson; one line says so. */
static int replay(struct shell *sh, int upto)
{
    int stopped = 0;
    const char *failed = replay_quietly(sh, upto, 0, &stopped);

    if (stopped) {
        render_text(&sh->render, RENDER_BAD,
                    "(replaying the earlier steps was stopped by Ctrl-C: `again` replays them)");
        return 1;
    }
    char *line = NULL;
    size_t size;
    FILE *f = open_memstream(&line, &size);
    if (f != NULL) {
        fprintf(f, upto == 1 ? "(replayed step 1 quietly" : "(replayed steps 1-%d quietly", upto);
        put_running(f, sh);
        if (failed != NULL)
            fprintf(f, "; but `%.*s` failed, so this step may differ from the lesson",
                    (int)strcspn(failed, "\n"), failed);
        fputc(')', f);
        if (fclose(f) == 0)
            render_text(&sh->render, failed != NULL ? RENDER_BAD : RENDER_NOTE, line);
    }
    free(line);
    return failed != NULL;
}

int tutor_rebuild_lab(struct shell *sh, const char *whose)
{
    if (sh->lab == NULL || tutor_lesson(sh) < 0)
        return 0;
    own_lab(sh, whose);
    return tutor_step(sh) > 0 ? replay(sh, tutor_step(sh)) : 0;
}

/* The index of the exercise in a step, or its block count. */
static size_t exercise_at(const struct lesson_step *step)
{
    size_t i = 0;
    while (i < step->block_count && step->blocks[i].type != LESSON_EXERCISE)
        i++;
    return i;
}

int tutor_rebuild_exercise_start(struct shell *sh, const char **failed)
{
    char *summary = NULL;

    *failed = NULL;
    if (sh->lab == NULL || tutor_lesson(sh) < 0)
        return -1;
    if (tutor_cleanup_summary(sh, 0, &summary) == -1) {
        free(summary);
        return -1;
    }
    free(summary);
    const struct lesson_step *step = &sh->lessons[tutor_lesson(sh)].steps[tutor_step(sh)];
    int stopped = 0;
    *failed = replay_quietly(sh, tutor_step(sh), exercise_at(step), &stopped);
    return stopped ? -1 : *failed != NULL;
}

int tutor_run_quietly(struct shell *sh, const char *commands, int *stays)
{
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    const struct lab_job *jobs;

    *stays = 0;
    if (devnull == -1 || sh->lab == NULL) {
        if (devnull != -1)
            close(devnull);
        return -1;
    }
    fflush(sh->render.out);
    shell_interrupted = 0;
    size_t before = lab_jobs(sh->lab, &jobs);
    int status = replay_command(sh, commands, 1, NULL, NULL, devnull);
    close(devnull);
    *stays = lab_jobs(sh->lab, &jobs) > before;
    return status == 130 || shell_interrupted ? 130 : status;
}
