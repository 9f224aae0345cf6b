/* SPDX-License-Identifier: MIT */
/* tutor_cleanup.c: `cleanup`, and the cleanup at the end of a lesson and
 * on leaving, said in one line. lab_cleanup() reports each process
 * stopped, mount undone and directory removed; here that report becomes
 * "Cleaned up: stopped 2 programs, unmounted /proc0-/proc4." (cleanup -v:
 * the report itself first). See tutor.h.
 */
#include "tutor/tutor.h"
#include "lab/lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Writes the paths of lines "PREFIX PATH ..." to out, comma-separated; the
 * /procN among them sorted and each once, a run of consecutive ones as
 * "/procA-/procB".
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
    if (numbers != NULL) { /* sorted, each once: two mounts stacked on /proc2 are one path */
        qsort(numbers, shown, sizeof *numbers, compare_ints);
        size_t kept = 0;
        for (size_t i = 0; i < shown; i++)
            if (kept == 0 || numbers[i] != numbers[kept - 1])
                numbers[kept++] = numbers[i];
        shown = kept;
    }
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

int tutor_cleanup_summary(struct shell *sh, int verbose, char **summary_out)
{
    char *report = NULL, *summary = NULL;
    size_t size, n = 0, ssize;
    FILE *out = open_memstream(&report, &size);

    *summary_out = NULL;
    fflush(sh->render.out);
    int rc = lab_cleanup(sh->lab, out != NULL ? out : sh->render.out);
    tutor_forget_jobs(sh); /* their jobs are gone */
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
    if (summary != NULL && summary[0] == '\0') {
        free(summary);
        summary = NULL;
    }
    *summary_out = summary;
    free(lines);
    free(report);
    return rc;
}

int tutor_cleanup(struct shell *sh, int verbose)
{
    char *summary;
    int rc = tutor_cleanup_summary(sh, verbose, &summary);

    if (summary != NULL)
        render_textf(&sh->render, RENDER_NOTE, "Cleaned up: %s%s.", summary,
                     verbose ? "" : " (`cleanup -v` lists each)");
    free(summary);
    return rc;
}
