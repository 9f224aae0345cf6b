/* SPDX-License-Identifier: MIT */
/* tutor_steps.c: the verbs that move the step cursor through a lesson and
 * show where it lands: next, back, again. See tutor_cursor.h. */
#include "tutor/tutor_cursor.h"
#include "tutor/tutor.h"

#include <stdio.h>

int tutor_next(struct shell *sh)
{
    int step = tutor_step(sh) + 1;
    /* The step before was left at its question: its later commands never
     * ran (not after Ctrl-C: replaying would run the slow command again). */
    if (tutor_new_step(sh, step)) {
        char whose[64];
        snprintf(whose, sizeof whose, "to set up step %d", step + 1);
        tutor_rebuild_lab(sh, whose);
    }
    return tutor_show_step(sh);
}

int tutor_back(struct shell *sh)
{
    int step = tutor_step(sh);
    if (!tutor_finished(sh) && step == 0) {
        shell_error(sh, "this is the first step of the lesson");
        return SHELL_ERROR;
    }
    if (!tutor_finished(sh))
        step--; /* a finished lesson goes back to its last step */
    tutor_new_step(sh, step);
    char whose[64];
    snprintf(whose, sizeof whose, "to go back to step %d", step + 1);
    tutor_rebuild_lab(sh, whose); /* the lab of that step, not of a later one */
    return tutor_show_step(sh);
}

int tutor_again(struct shell *sh)
{
    if (tutor_finished(sh)) {
        shell_error(sh, "the lesson is finished: `back` shows its last step");
        return SHELL_ERROR;
    }
    tutor_new_step(sh, tutor_step(sh));
    /* What the step started stops first: one copy runs, not two. */
    tutor_rebuild_lab(sh, "to run the step again");
    return tutor_show_step(sh);
}
