/* tutor_auto.c: --auto LESSON|all, the unattended run of lessons for
 * classroom projectors and CI: every step, every check, every quiz.
 * Each exercise's check runs twice: before the solution, when it must
 * fail, and after it, when it must pass.
 */
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "render/tee.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long --auto gives a worked solution to bring about what its check
 * looks for. */
#define AUTO_CHECK_WAIT_MS 5000

/* The exercise of the current step: its check on the state before the
 * work, which must fail (a check that passes already proves nothing about
 * the learner's work), then its solution, then its check again. */
int tutor_run_solution(struct shell *sh, const struct lesson_block *exercise)
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
    if (exercise->solution != NULL) {
        render_text(&sh->render, RENDER_NOTE, "(running the worked solution)");
        int status = tutor_run_command(sh, exercise->solution, 1, NULL);
        if (status != 0) {
            render_textf(&sh->render, RENDER_BAD, "the solution failed: exit status %d", status);
            return 1;
        }
    }
    int passed = tutor_check(sh, exercise);
    /* A solution left running may still be building what the check looks
     * at (31 nested namespaces take a while on a slow or sanitized build):
     * look again for a few seconds before calling it failed. */
    for (int waited = 0; passed == 0 && exercise->solution != NULL && waited < AUTO_CHECK_WAIT_MS &&
                         !shell_interrupted;
         waited += 100) {
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        passed = tutor_check(sh, exercise);
    }
    render_text(&sh->render, passed == 1 ? RENDER_GOOD : RENDER_BAD,
                passed == 1 ? "check: passed" : "check: FAILED");
    return passed == 1 ? 0 : 1;
}

/* One lesson, start to end; the lab is cleaned up after it. Returns the
 * number of failed steps. */
static int auto_lesson(struct shell *sh, int index)
{
    const struct lesson *l = &sh->lessons[index];
    int failed = 0;

    for (size_t s = 0; s < l->step_count && !shell_interrupted; s++) {
        tutor_enter(sh, index, (int)s);
        int bad = tutor_show_step(sh) != SHELL_OK;
        const struct lesson_block *exercise = tutor_current_exercise(sh);
        if (!bad && exercise != NULL)
            bad = tutor_run_solution(sh, exercise) || tutor_show_debrief(sh) != SHELL_OK;
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
        int failed = auto_lesson(sh, (int)i);
        render_textf(&sh->render, failed ? RENDER_BAD : RENDER_GOOD, "lesson %d (%s): %s",
                     sh->lessons[i].number, sh->lessons[i].id, failed ? "FAILED" : "passed");
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
