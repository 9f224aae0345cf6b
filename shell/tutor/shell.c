/* SPDX-License-Identifier: MIT */
/* shell.c: what every part of the guided shell shares: the one error
 * function, where lessons and examples are found, the SIGINT flag.
 */
#include "tutor/shell.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PIDNS_TUTOR_DATADIR
#define PIDNS_TUTOR_DATADIR "/usr/local/share/pidns-tutor"
#endif
#ifndef PIDNS_TUTOR_LIBEXECDIR
#define PIDNS_TUTOR_LIBEXECDIR "/usr/local/libexec/pidns-tutor"
#endif

volatile sig_atomic_t shell_interrupted;

static void message(const struct shell *sh, const char *kind, const char *fmt, va_list ap)
{
    const char *program = sh != NULL && sh->program != NULL ? sh->program : "pidns-tutor";
    int colour = sh != NULL && sh->colour_err;

    fflush(stdout);
    fprintf(stderr, "%s%s: %s", colour ? "\033[31m" : "", program, kind);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", colour ? "\033[0m" : "");
}

void shell_error(const struct shell *sh, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(sh, "", fmt, ap);
    va_end(ap);
}

void shell_warn(const struct shell *sh, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(sh, "warning: ", fmt, ap);
    va_end(ap);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The source tree of a build: the nearest ancestor of the binary's
 * directory that holds shell/main.c next to a Makefile
 * (build/, or build/asan/ for a sanitizer build). */
static int find_source_tree(const char *bindir, char *out, size_t len)
{
    char dir[PATH_MAX], probe[PATH_MAX + 32];

    snprintf(dir, sizeof dir, "%s", bindir);
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return -1;
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/Makefile", dir);
        if (access(probe, F_OK) != 0)
            continue;
        snprintf(probe, sizeof probe, "%s/shell/main.c", dir);
        if (access(probe, F_OK) == 0) {
            snprintf(out, len, "%s", dir);
            return 0;
        }
    }
    return -1;
}

int shell_confirm(struct shell *sh, const char *command, const char *question)
{
    if (!sh->interactive || sh->ask == NULL) {
        shell_error(sh, "%s: needs a confirmation; in a script type `%s -y`", command, command);
        return -1;
    }
    char *answer = sh->ask(sh, question);
    int yes = answer != NULL && (strcmp(answer, "y") == 0 || strcmp(answer, "yes") == 0);
    free(answer);
    return yes;
}

void shell_find_dirs(struct shell_dirs *dirs, const char *exe, const char *lessons_dir)
{
    char bindir[PATH_MAX], src[PATH_MAX];
    char *slash;

    snprintf(bindir, sizeof bindir, "%s", exe != NULL ? exe : "");
    slash = strrchr(bindir, '/');
    if (slash != NULL)
        *slash = '\0';
    /* A path too long to hold is no build tree: the installed paths then. */
    int in_tree = slash != NULL &&
                  snprintf(dirs->examples, sizeof dirs->examples, "%s/examples", bindir) <
                      (int)sizeof dirs->examples &&
                  is_dir(dirs->examples) && find_source_tree(bindir, src, sizeof src) == 0 &&
                  snprintf(dirs->lessons, sizeof dirs->lessons, "%s/lessons", src) <
                      (int)sizeof dirs->lessons &&
                  snprintf(dirs->example_src, sizeof dirs->example_src, "%s/examples", src) <
                      (int)sizeof dirs->example_src;
    if (!in_tree) {
        snprintf(dirs->examples, sizeof dirs->examples, "%s", PIDNS_TUTOR_LIBEXECDIR);
        snprintf(dirs->lessons, sizeof dirs->lessons, "%s/lessons", PIDNS_TUTOR_DATADIR);
        snprintf(dirs->example_src, sizeof dirs->example_src, "%s/examples", PIDNS_TUTOR_DATADIR);
    }
    if (lessons_dir != NULL)
        snprintf(dirs->lessons, sizeof dirs->lessons, "%s", lessons_dir);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **shell_example_names(const struct shell *sh)
{
    size_t n = 0, cap = 16;
    char **list = calloc(cap + 1, sizeof *list);
    DIR *d = opendir(sh->dirs.examples);
    struct dirent *e;

    while (list != NULL && d != NULL && (e = readdir(d)) != NULL) {
        char path[PATH_MAX];
        if (e->d_name[0] == '.' ||
            snprintf(path, sizeof path, "%s/%s", sh->dirs.examples, e->d_name) >= (int)sizeof path)
            continue;
        if (access(path, X_OK) != 0 || is_dir(path))
            continue;
        if (n == cap) {
            char **more = realloc(list, (cap * 2 + 1) * sizeof *list);
            if (more == NULL)
                break;
            list = more;
            cap *= 2;
        }
        list[n] = strdup(e->d_name);
        if (list[n] != NULL)
            list[++n] = NULL;
    }
    if (d != NULL)
        closedir(d);
    if (list == NULL)
        return calloc(1, sizeof(char *));
    list[n] = NULL;
    qsort(list, n, sizeof *list, compare_strings);
    return list;
}

void shell_free_list(char **list)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

static void on_sigint(int sig)
{
    (void)sig;
    shell_interrupted = 1;
}

void shell_install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: a blocked read returns */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
}
