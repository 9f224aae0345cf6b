/* SPDX-License-Identifier: MIT */
/* tutor_present.c: --present LESSON, a lesson on a projector the way a
 * teacher talks through it. Each step waits for Enter; a prediction or a
 * quiz waits for the room's answer (type it, or Enter to reveal); an
 * exercise shows its task, waits, then runs its worked solution and check.
 * Text wraps to the terminal's width, read again at every step (a larger
 * font means fewer columns). Ctrl-C or Ctrl-D leaves; the session then
 * cleans the lab up and gives its verdict on the host, as after any session.
 * The presenter's own progress is left as it was.
 */
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "render/tee.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Waits for Enter. Returns 0 to go on, -1 to leave (Ctrl-C, Ctrl-D). */
static int present_pause(struct shell *sh, const char *what)
{
    char prompt[160];

    snprintf(prompt, sizeof prompt, "[Enter: %s   Ctrl-C: leave] ", what);
    fflush(sh->render.out);
    char *line = sh->ask(sh, prompt);
    int leave = line == NULL || shell_interrupted;
    free(line);
    return leave ? -1 : 0;
}

static void present_fit_width(struct shell *sh)
{
    struct winsize ws;

    if (ioctl(fileno(sh->render.out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        sh->render.width = ws.ws_col;
}

/* One step: its blocks (predictions and quizzes ask the room), then its
 * exercise, run by its worked solution once the room has seen the task.
 * Returns 0, or -1 when the presenter leaves. */
static int present_step(struct shell *sh, int index, int step)
{
    if (tutor_enter(sh, index, step) == -1)
        return -1;
    present_fit_width(sh);
    tutor_show_step(sh);
    if (shell_interrupted || tutor_pending(sh) != NULL) /* Ctrl-C, Ctrl-D at a question */
        return -1;
    const struct lesson_block *exercise = tutor_current_exercise(sh);
    if (exercise == NULL)
        return 0;
    if (present_pause(sh, "run the worked solution") == -1)
        return -1;
    tutor_run_solution(sh, exercise);
    if (shell_interrupted)
        return -1;
    tutor_show_debrief(sh);
    return shell_interrupted || tutor_pending(sh) != NULL ? -1 : 0;
}

int tutor_present(struct shell *sh, const char *which)
{
    int index = tutor_find_lesson(sh, which);

    if (index < 0) {
        shell_error(sh, "--present: no lesson '%s' in %s (pidns-tutor, then `lessons`, lists them)",
                    which, sh->dirs.lessons);
        return 1;
    }
    if (!sh->interactive || sh->ask == NULL) {
        shell_error(sh,
                    "--present needs a terminal: it waits for Enter at each step "
                    "(for a run without pauses: --auto %s)",
                    which);
        return 1;
    }
    const struct lesson *l = &sh->lessons[index];
    sh->presenting = 1;
    sh->progress.writable = 0; /* the presenter's own progress stays as it was */
    render_textf(&sh->render, RENDER_HEADING, "Lesson %d: %s", l->number, l->title);
    render_text(&sh->render, RENDER_NOTE,
                "(presenting: Enter moves on; at a question, type the room's answer or just "
                "press Enter; Ctrl-C leaves)");
    int left = 0;
    for (size_t s = 0; s < l->step_count && !left; s++)
        left = (s > 0 && present_pause(sh, "next step") == -1) ||
               present_step(sh, index, (int)s) == -1;
    if (!left) {
        render_textf(&sh->render, RENDER_GOOD, "End of lesson %d: %s.", l->number, l->title);
        present_pause(sh, "close the lab");
    } else {
        render_text(&sh->render, RENDER_NOTE, "(presentation stopped)");
    }
    shell_interrupted = 0; /* the lab's cleanup must not be cut short */
    tutor_leave(sh);
    if (sh->lab != NULL)
        lab_cleanup(sh->lab, sh->render.out);
    tee_reap(200);
    return 0;
}
