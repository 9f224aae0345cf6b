/* SPDX-License-Identifier: MIT */
/* lesson_program.c: the [.program] of a coding exercise, checked at parse
 * time: the learner's file exists, and beside it the reference solution.c
 * and at least one wrong-*.c, so that a lesson that loads is one whose
 * exercise `--auto` can verify (the file as given fails, each wrong program
 * fails, the solution passes).
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"
#include "lesson/lesson_parse.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Letters, digits and extra: names that need no quoting in a shell line. */
static int plain_name(const char *s, size_t n, const char *extra)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && strchr(extra, s[i]) == NULL)
            return 0;
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The wrong-*.c files of dir, sorted, into b->wrong_programs. */
static int find_wrong(struct lp *p, size_t at, const char *dir, struct lesson_block *b)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return lp_fail(p, at, "[.program]: cannot read the folder %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 9 || strncmp(e->d_name, "wrong-", 6) != 0 || strcmp(e->d_name + n - 2, ".c") != 0)
            continue;
        char **bigger =
            realloc(b->wrong_programs, (b->wrong_program_count + 1) * sizeof *b->wrong_programs);
        if (bigger == NULL || (bigger[b->wrong_program_count] = strdup(e->d_name)) == NULL) {
            b->wrong_programs = bigger != NULL ? bigger : b->wrong_programs;
            closedir(d);
            return lp_oom(p);
        }
        b->wrong_programs = bigger;
        b->wrong_program_count++;
    }
    closedir(d);
    if (b->wrong_program_count == 0)
        return lp_fail(p, at,
                       "[.program]: no wrong-*.c beside %s: add at least one plausible mistake "
                       "the check must refuse",
                       b->program);
    qsort(b->wrong_programs, b->wrong_program_count, sizeof *b->wrong_programs, by_name);
    return 0;
}

int lp_program_resolve(struct lp *p, size_t at, struct lesson_block *b)
{
    const char *line = b->program;
    if (strchr(line, '\n') != NULL || strchr(line, ' ') != NULL)
        return lp_fail(p, at, "a [.program] listing holds one path: the learner's .c file");
    const char *slash = strrchr(line, '/');
    const char *file = slash != NULL ? slash + 1 : line;
    size_t flen = strlen(file);
    const char *dir_start = slash != NULL ? slash - 1 : NULL;
    while (dir_start != NULL && dir_start > line && dir_start[-1] != '/')
        dir_start--;
    if (slash == NULL || flen < 3 || strcmp(file + flen - 2, ".c") != 0 ||
        !plain_name(file, flen - 2, "_") ||
        !plain_name(dir_start, (size_t)(slash - dir_start), "-_") ||
        strcmp(file, "solution.c") == 0)
        return lp_fail(
            p, at,
            "[.program] names the learner's file in a folder of its own, "
            "such as ../exercises/01-name/name.c (letters, digits, '_'; not solution.c)");
    if (asprintf(&b->program_path, "%s/%s", p->base_dir, line) == -1) {
        b->program_path = NULL;
        return lp_oom(p);
    }
    if (access(b->program_path, R_OK) == -1)
        return lp_fail(p, at, "[.program]: cannot read %s", b->program_path);
    char *dir = strndup(b->program_path, strlen(b->program_path) - flen - 1), *solution = NULL;
    if (dir == NULL || asprintf(&solution, "%s/solution.c", dir) == -1) {
        free(dir);
        return lp_oom(p);
    }
    int rc = access(solution, R_OK) == 0
                 ? find_wrong(p, at, dir, b)
                 : lp_fail(p, at,
                           "[.program]: no %s (the reference solution, shown once the "
                           "check passes)",
                           solution);
    free(solution);
    free(dir);
    return rc;
}
