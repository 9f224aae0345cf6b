/* SPDX-License-Identifier: MIT */
/* tutor_cursor.c: the step cursor and its fields. See tutor_cursor.h. */
#include "tutor/tutor_cursor.h"
#include "lesson/lesson.h"

#include <stdlib.h>
#include <string.h>

struct tutor_cursor {
    int lesson;            /* index in sh->lessons */
    int step;              /* index of the current step in it */
    int finished;          /* the lesson's last step was passed */
    int cut;               /* the step was left at its question (a command typed there) */
    int hints_given;       /* `hint` asked again: the next applicable hint */
    int checks_failed;     /* `check` said "Not yet" this many times in this step */
    unsigned shown;        /* counts tutor_show_step calls */
    char *pending_line;    /* malloc'd; NULL when none */
    char last_failed[512]; /* the failing condition the last hint was chosen by */
};

int tutor_lesson(const struct shell *sh)
{
    return sh->cursor != NULL ? sh->cursor->lesson : -1;
}

int tutor_step(const struct shell *sh)
{
    return sh->cursor != NULL ? sh->cursor->step : 0;
}

int tutor_finished(const struct shell *sh)
{
    return sh->cursor != NULL && sh->cursor->finished;
}

/* The cursor, made (in no lesson) when there is none; NULL, said, when out
 * of memory. */
static struct tutor_cursor *cursor(struct shell *sh)
{
    if (sh->cursor == NULL) {
        sh->cursor = calloc(1, sizeof *sh->cursor);
        if (sh->cursor == NULL)
            shell_error(sh, "out of memory");
        else
            sh->cursor->lesson = -1;
    }
    return sh->cursor;
}

int tutor_new_step(struct shell *sh, int step)
{
    struct tutor_cursor *c = sh->cursor;
    if (c == NULL)
        return 0;
    int cut = c->cut;
    c->step = step;
    c->finished = 0;
    c->cut = 0;
    c->hints_given = 0;
    c->checks_failed = 0;
    c->last_failed[0] = '\0';
    return cut;
}

int tutor_read_lesson(struct shell *sh, int index)
{
    char err[1024];
    if (lesson_read_body(&sh->lessons[index], err, sizeof err) == 0)
        return 0;
    shell_error(sh, "%s", err);
    return -1;
}

int tutor_enter(struct shell *sh, int index, int step)
{
    /* Its steps are read (a lesson read lazily, whoever enters it). */
    if (cursor(sh) == NULL || tutor_read_lesson(sh, index) == -1)
        return -1;
    sh->cursor->lesson = index;
    tutor_new_step(sh, step);
    return 0;
}

void tutor_leave(struct shell *sh)
{
    if (sh->cursor != NULL)
        free(sh->cursor->pending_line);
    free(sh->cursor);
    sh->cursor = NULL;
}

void tutor_finish(struct shell *sh)
{
    if (sh->cursor != NULL)
        sh->cursor->finished = 1;
}

size_t tutor_hint_pick(struct shell *sh, const char *failed, size_t n)
{
    struct tutor_cursor *c = cursor(sh);
    if (c == NULL)
        return 0;
    if (failed == NULL)
        failed = "";
    if (strcmp(c->last_failed, failed) != 0) /* another condition fails now */
        c->hints_given = 0;
    snprintf(c->last_failed, sizeof c->last_failed, "%s", failed);
    return n > 0 ? (size_t)c->hints_given++ % n : 0;
}

void tutor_hints_restart(struct shell *sh)
{
    if (sh->cursor != NULL)
        sh->cursor->hints_given = 0;
}

int tutor_check_failed(struct shell *sh)
{
    return sh->cursor != NULL ? ++sh->cursor->checks_failed : 1;
}

const char *tutor_pending(const struct shell *sh)
{
    return sh->cursor != NULL ? sh->cursor->pending_line : NULL;
}

char *tutor_take_pending(struct shell *sh)
{
    char *line = sh->cursor != NULL ? sh->cursor->pending_line : NULL;
    if (line != NULL)
        sh->cursor->pending_line = NULL;
    return line;
}

void tutor_set_pending(struct shell *sh, const char *line)
{
    if (cursor(sh) == NULL)
        return;
    free(sh->cursor->pending_line);
    sh->cursor->pending_line = strdup(line);
}

struct tutor_place tutor_place(const struct shell *sh)
{
    struct tutor_place p = {tutor_lesson(sh), tutor_step(sh), 0};
    if (sh->cursor != NULL)
        p.shown = sh->cursor->shown;
    return p;
}

int tutor_stayed(const struct shell *sh, struct tutor_place place)
{
    struct tutor_place now = tutor_place(sh);
    return place.lesson >= 0 && now.lesson == place.lesson && now.step == place.step &&
           now.shown == place.shown && !tutor_finished(sh);
}

void tutor_step_shown(struct shell *sh)
{
    if (sh->cursor != NULL) {
        sh->cursor->shown++;
        sh->cursor->cut = 0;
    }
}

void tutor_step_cut(struct shell *sh)
{
    if (sh->cursor != NULL)
        sh->cursor->cut = 1;
}
