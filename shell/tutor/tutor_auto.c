/* tutor_auto.c: --auto LESSON|all, the unattended run of lessons for
 * classroom projectors and CI: every step, every check, every quiz.
 * Each exercise's check runs before the solution, when it must fail; after
 * each of its [.wrong] attempts, each run from the exercise's own starting
 * state, when it must fail too; and after the solution, when it must pass.
 */
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "render/tee.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A wrong attempt is checked once it has settled (ended, or become a job),
 * then, when it stays running, once more this much later: what it left
 * running had a moment to act, without polling for seconds on every
 * attempt. */
#define AUTO_WRONG_RECHECK_MS 300

/* The check on the state before the work must fail: a check that passes
 * already proves nothing about the learner's work. Returns 1 when it
 * passes (a failed lesson). */
static int check_passes_before(struct shell *sh, const struct lesson_block *exercise)
{
    if (exercise->program != NULL)
        return tutor_code_verify(sh, exercise);
    if (tutor_check(sh, exercise) == 1) {
        render_text(&sh->render, RENDER_BAD,
                    "check: FAILED: it passes before the exercise is done, so it cannot tell a "
                    "wrong attempt from the work");
        return 1;
    }
    render_text(&sh->render, RENDER_NOTE, "(the check fails before the work, as it should)");
    return 0;
}

/* Rebuilds the lab the exercise meets. Returns 1 when it could not. */
static int rebuild(struct shell *sh)
{
    const char *failed = NULL;
    int rc = tutor_rebuild_exercise_start(sh, &failed);

    if (rc == 0)
        return 0;
    if (failed != NULL)
        render_textf(&sh->render, RENDER_BAD,
                     "could not rebuild the lab of this exercise: `%.*s` failed",
                     (int)strcspn(failed, "\n"), failed);
    else
        render_text(&sh->render, RENDER_BAD, "could not rebuild the lab of this exercise");
    return 1;
}

/* Each [.wrong] attempt, from the exercise's own starting state: the check
 * must refuse it. The lab is rebuilt after each one, so the solution runs
 * where a learner starts too. Returns the number that failed. */
static int wrong_attempts(struct shell *sh, const struct lesson_block *exercise)
{
    int failed = 0;

    for (size_t i = 0; i < exercise->wrong_count && !shell_interrupted; i++) {
        const struct lesson_wrong *w = &exercise->wrongs[i];
        int stays = 0;
        int status = tutor_run_quietly(sh, w->commands, &stays);
        int passed = status == -1 || status == 130 ? -1 : tutor_check(sh, exercise);
        /* An attempt that ended took what it started with it (the lab ends
         * what a command leaves running): only one that stays can still
         * change the lab. */
        if (passed == 0 && stays) {
            nanosleep(&(struct timespec){AUTO_WRONG_RECHECK_MS / 1000,
                                         AUTO_WRONG_RECHECK_MS % 1000 * 1000 * 1000},
                      NULL);
            passed = tutor_check(sh, exercise);
        }
        if (passed == 0)
            render_textf(&sh->render, RENDER_NOTE,
                         "(wrong attempt '%s': the check refuses it, as it should)", w->title);
        else if (passed == 1)
            render_textf(&sh->render, RENDER_BAD,
                         "check: FAILED: the wrong attempt '%s' passes it (line %d)", w->title,
                         w->line);
        else
            render_textf(&sh->render, RENDER_BAD,
                         "the wrong attempt '%s' (line %d) could not run, or was stopped",
                         w->title, w->line);
        failed += passed != 0;
        if (rebuild(sh))
            return failed + 1;
    }
    return failed;
}

/* check_passes_before, then the solution and the check (see tutor.h). */
static int run_solution(struct shell *sh, const struct lesson_block *exercise, int check_first)
{
    if (check_first && check_passes_before(sh, exercise))
        return 1;
    const struct lab_job *jobs;
    size_t jobs_before = lab_jobs(sh->lab, &jobs);
    if (exercise->solution != NULL) {
        render_text(&sh->render, RENDER_NOTE, "(running the worked solution)");
        int status = tutor_run_command(sh, exercise->solution, 1, NULL);
        if (status != 0) {
            render_textf(&sh->render, RENDER_BAD, "the solution failed: exit status %d", status);
            return 1;
        }
    }
    /* A solution left running may still be building what the check looks
     * at (31 nested namespaces take a while on a slow, loaded or sanitized
     * build): look again while it runs, up to 30 s, before calling it
     * failed. */
    int passed = tutor_await_check(sh, exercise, jobs_before);
    render_text(&sh->render, passed == 1 ? RENDER_GOOD : RENDER_BAD,
                passed == 1 ? "check: passed" : "check: FAILED");
    return passed == 1 ? 0 : 1;
}

int tutor_run_solution(struct shell *sh, const struct lesson_block *exercise)
{
    return run_solution(sh, exercise, 1);
}

/* An exercise in --auto: the check fails before the work, refuses each
 * wrong attempt, and passes after the solution, each from the exercise's
 * starting state. */
static int auto_exercise(struct shell *sh, const struct lesson_block *exercise)
{
    if (check_passes_before(sh, exercise))
        return 1;
    if (wrong_attempts(sh, exercise) != 0)
        return 1;
    return run_solution(sh, exercise, exercise->wrong_count > 0);
}

/* One lesson, start to end; the lab is cleaned up after it. Returns the
 * number of failed steps. */
static int auto_lesson(struct shell *sh, int index, int *skipped)
{
    const struct lesson *l = &sh->lessons[index];
    int failed = 0;

    for (size_t s = 0; s < l->step_count && !shell_interrupted; s++) {
        char release[128];
        tutor_enter(sh, index, (int)s);
        int bad = tutor_show_step(sh) != SHELL_OK;
        if (!tutor_step_runs_here(&l->steps[s], release, sizeof release)) {
            render_textf(&sh->render, RENDER_NOTE,
                         "lesson %d, step %zu (%s): skipped, kernel: needs Linux %s, this is %s",
                         l->number, s + 1, l->steps[s].title, l->steps[s].kernel, release);
            (*skipped)++;
            continue;
        }
        const struct lesson_block *exercise = tutor_current_exercise(sh);
        if (!bad && exercise != NULL)
            bad = auto_exercise(sh, exercise) || tutor_show_debrief(sh) != SHELL_OK;
        if (bad) {
            render_textf(&sh->render, RENDER_BAD, "lesson %d, step %zu (%s): FAILED", l->number,
                         s + 1, l->steps[s].title);
            failed++;
        }
    }
    if (shell_interrupted)
        failed++;
    if (sh->lab != NULL)
        tutor_cleanup(sh, 0);
    tee_reap(200);
    return failed;
}

int tutor_auto(struct shell *sh, const char *which)
{
    int all = strcmp(which, "all") == 0;
    int index = all ? 0 : tutor_find_lesson(sh, which);
    int failed_lessons = 0;

    if (index < 0 || sh->lesson_count == 0) {
        shell_error(sh, "--auto: no lesson '%s' in %s (try --auto all)", which, sh->dirs.lessons);
        return 1;
    }
    sh->auto_mode = 1;
    size_t end = all ? sh->lesson_count : (size_t)index + 1;
    for (size_t i = (size_t)index; i < end && !shell_interrupted; i++) {
        int skipped = 0;
        int failed = auto_lesson(sh, (int)i, &skipped);
        render_textf(&sh->render, failed ? RENDER_BAD : RENDER_GOOD, "lesson %d (%s): %s%s",
                     sh->lessons[i].number, sh->lessons[i].id, failed ? "FAILED" : "passed",
                     !skipped         ? ""
                     : skipped == 1 ? " (1 step skipped: this kernel is too old for it)"
                                    : " (steps skipped: this kernel is too old for them)");
        failed_lessons += failed != 0;
    }
    sh->lesson_index = -1;
    if (shell_interrupted) {
        render_text(&sh->render, RENDER_BAD, "--auto: stopped by Ctrl-C");
        return 1;
    }
    render_textf(&sh->render, failed_lessons ? RENDER_BAD : RENDER_GOOD,
                 "--auto: %zu lesson(s) run, %d failed", end - (size_t)index, failed_lessons);
    return failed_lessons != 0;
}
