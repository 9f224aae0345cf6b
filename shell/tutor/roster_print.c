/* SPDX-License-Identifier: MIT */
/* roster_print.c: the roster's rows printed, as a table for a person or as
 * CSV for a spreadsheet (--roster --csv). The text in a row comes from other
 * people's files (roster.c reads them): its control characters are printed
 * as '?', so that no file can drive the terminal. See roster.h.
 */
#include "tutor/roster.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const state_names[] = {
    [ROSTER_OK] = "ok",
    [ROSTER_NONE] = "not started",
    [ROSTER_DAMAGED] = "damaged",
    [ROSTER_SYMLINK] = "symlink, not followed",
    [ROSTER_NOT_REGULAR] = "not a regular file",
    [ROSTER_TOO_LARGE] = "too large",
    [ROSTER_UNREADABLE] = "unreadable",
};

/* Other people's text, made safe for a terminal: controls become '?'. */
static void put_safe(FILE *out, const char *s)
{
    for (; *s != '\0'; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static void put_csv(FILE *out, const char *s, const char *sep)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        put_safe(out, s);
    } else {
        fputc('"', out);
        for (; *s != '\0'; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
        }
        fputc('"', out);
    }
    fputs(sep, out);
}

static size_t lesson_steps(const struct roster_lessons *lessons, const char *id)
{
    for (size_t i = 0; lessons != NULL && i < lessons->count; i++)
        if (strcmp(lessons->ids[i], id) == 0)
            return lessons->steps[i];
    return 0;
}

/* The columns of a row as text: done, where now, when. */
static void row_cells(const struct roster_row *row, const struct roster_lessons *lessons,
                      char *done, size_t done_len, char *now, size_t now_len, char *when,
                      size_t when_len, int utc)
{
    size_t total = lessons != NULL ? lessons->count : 0,
           steps = lesson_steps(lessons, row->current);
    struct tm tm;

    if (total > 0)
        snprintf(done, done_len, "%zu/%zu", row->done, total);
    else
        snprintf(done, done_len, "%zu", row->done);
    if (row->current[0] == '\0')
        snprintf(now, now_len, "%s", total > 0 && row->done >= total ? "finished" : "-");
    else if (row->current_finished == 2)
        snprintf(now, now_len, "%s, done", row->current);
    else if (row->current_finished == 1)
        snprintf(now, now_len, "%s, finished, %d skipped", row->current, row->current_skipped);
    else if (steps > 0)
        snprintf(now, now_len, "%s, step %d of %zu", row->current, row->step + 1, steps);
    else
        snprintf(now, now_len, "%s, step %d", row->current, row->step + 1);
    if (row->last_active == 0 ||
        (utc ? gmtime_r(&row->last_active, &tm) : localtime_r(&row->last_active, &tm)) == NULL)
        snprintf(when, when_len, "%s", utc ? "" : "-");
    else
        strftime(when, when_len, utc ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M", &tm);
}

/* The state of the current lesson, for CSV: "", "in progress", "finished"
 * (with an exercise skipped) or "done". */
static const char *current_state(const struct roster_row *r)
{
    static const char *const names[] = {"in progress", "finished", "done"};
    return r->current[0] == '\0' ? "" : names[r->current_finished];
}

/* The columns after the first eight are newer: a reader of the old eight
 * finds them where they were. */
static void print_csv(FILE *out, const struct roster_row *rows, size_t count,
                      const struct roster_lessons *lessons)
{
    fputs("account,done,total,lesson,step,last_active,state,detail,steps,lesson_state,skipped,"
          "skipped_at\n",
          out);
    for (size_t i = 0; i < count; i++) {
        const struct roster_row *r = &rows[i];
        char done[32], now[256], when[64], step[16], steps[16];
        row_cells(r, lessons, done, sizeof done, now, sizeof now, when, sizeof when, 1);
        size_t n = lesson_steps(lessons, r->current);
        snprintf(done, sizeof done, "%zu", r->done);
        snprintf(step, sizeof step, "%d", r->step + 1);
        snprintf(steps, sizeof steps, "%zu", n);
        put_csv(out, r->account, ",");
        put_csv(out, done, ",");
        fprintf(out, "%zu,", lessons != NULL ? lessons->count : 0);
        put_csv(out, r->current, ",");
        put_csv(out, r->current[0] != '\0' && r->current_finished == 0 ? step : "", ",");
        put_csv(out, when, ",");
        put_csv(out, state_names[r->state], ",");
        put_csv(out, r->state != ROSTER_NONE ? r->detail : "", ",");
        put_csv(out, r->current[0] != '\0' && n > 0 ? steps : "", ",");
        put_csv(out, current_state(r), ",");
        fprintf(out, "%zu,", r->skipped);
        put_csv(out, r->skipped_at, "\n");
    }
}

/* The SKIPPED column: "-", or how many and where ("2 (01-x step 5,
 * 02-y step 4)"), from skipped_at's "ID:STEP" words. */
static void skipped_cell(const struct roster_row *r, char *buf, size_t len)
{
    char words[sizeof r->skipped_at], *save = NULL;
    size_t at;

    if (r->skipped == 0) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(words, sizeof words, "%s", r->skipped_at);
    at = (size_t)snprintf(buf, len, "%zu (", r->skipped);
    for (char *w = strtok_r(words, " ", &save); w != NULL && at < len;
         w = strtok_r(NULL, " ", &save)) {
        char *colon = strrchr(w, ':');
        if (colon != NULL)
            *colon = '\0';
        at += (size_t)snprintf(buf + at, len - at, "%s%s step %s", buf[at - 1] == '(' ? "" : ", ",
                               w, colon != NULL ? colon + 1 : "?");
    }
    if (at + 1 < len)
        snprintf(buf + at, len - at, ")");
}

void roster_print(FILE *out, const struct roster_row *rows, size_t count,
                  const struct roster_lessons *lessons, int csv)
{
    int w_account = 7, w_done = 4, w_now = 3, w_skip = 7;
    char done[32], now[256], when[64], skip[600];

    if (csv) {
        print_csv(out, rows, count, lessons);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        row_cells(&rows[i], lessons, done, sizeof done, now, sizeof now, when, sizeof when, 0);
        skipped_cell(&rows[i], skip, sizeof skip);
        int a = (int)strlen(rows[i].account), d = (int)strlen(done), n = (int)strlen(now);
        int k = (int)strlen(skip);
        w_account = a > w_account ? a : w_account;
        w_done = d > w_done ? d : w_done;
        w_now = n > w_now ? n : w_now;
        w_skip = k > w_skip ? k : w_skip;
    }
    fprintf(out, "%-*s  %-*s  %-*s  %-*s  %-16s  %s\n", w_account, "ACCOUNT", w_done, "DONE",
            w_skip, "SKIPPED", w_now, "NOW", "LAST ACTIVE", "NOTE");
    for (size_t i = 0; i < count; i++) {
        const struct roster_row *r = &rows[i];
        row_cells(r, lessons, done, sizeof done, now, sizeof now, when, sizeof when, 0);
        skipped_cell(r, skip, sizeof skip);
        put_safe(out, r->account);
        fprintf(out, "%*s  %-*s  ", w_account - (int)strlen(r->account), "", w_done, done);
        put_safe(out, skip);
        fprintf(out, "%*s  ", w_skip - (int)strlen(skip), "");
        put_safe(out, now);
        fprintf(out, "%*s  %-16s  ", w_now - (int)strlen(now), "", when);
        if (r->state != ROSTER_OK) {
            fputs(state_names[r->state], out);
            if (r->detail[0] != '\0' && r->state != ROSTER_NONE) {
                fputs(": ", out);
                put_safe(out, r->detail);
            }
        }
        fputs("\n", out);
    }
    if (count == 0)
        fputs("(no progress found)\n", out);
}
