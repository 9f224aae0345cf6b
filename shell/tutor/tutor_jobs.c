/* SPDX-License-Identifier: MIT */
/* tutor_jobs.c: the facts a check or a hint may need beyond the lab's
 * state now: how each job of the lab ended ($TUTOR_JOBS, see tutor.h),
 * written just before a check or a hint's condition runs.
 */
#include "tutor/tutor.h"
#include "lab/lab.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One job as a line of $TUTOR_JOBS: "ID PID STATE DETAIL COMMAND". */
static void put_job(FILE *f, const struct lab_job *j)
{
    int signal = !j->running && j->status > 128 && j->status < 128 + NSIG ? j->status - 128 : 0;
    const char *name = signal != 0 ? sigabbrev_np(signal) : NULL;

    fprintf(f, "%d %d ", j->id, (int)j->lab_pid);
    if (j->running)
        fputs("running -", f);
    else if (signal != 0 && name != NULL)
        fprintf(f, "killed SIG%s", name);
    else if (j->status >= 0)
        fprintf(f, "exited %d", j->status);
    else
        fputs("exited ?", f);
    fputc(' ', f);
    for (const char *c = j->command; *c != '\0'; c++)
        if (*c == '\n')
            fputs("; ", f);
        else
            fputc(*c, f);
    fputc('\n', f);
}

/* Writes the lab's jobs to TUTOR_JOBS_FILE in the lab, for checks and
 * hints to read (see tutor.h). */
static void write_jobs_file(struct shell *sh)
{
    const struct lab_job *jobs;
    size_t n = lab_jobs(sh->lab, &jobs);
    FILE *f = fopen(lab_path(sh->lab, TUTOR_JOBS_FILE), "we");

    setenv("TUTOR_JOBS", TUTOR_JOBS_FILE, 1);
    if (f == NULL)
        return; /* the check sees no file: a check that needs it fails */
    for (size_t i = 0; i < n; i++)
        put_job(f, &jobs[i]);
    fclose(f);
}

int tutor_capture_condition(struct shell *sh, const char *command, char **output)
{
    *output = NULL;
    if (sh->lab == NULL)
        return -1;
    write_jobs_file(sh);
    return lab_capture(sh->lab, command, output);
}
