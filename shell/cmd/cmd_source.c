/* SPDX-License-Identifier: MIT */
/* cmd_source.c: `source EXAMPLE[:TAG]`, an example's code with line
 * numbers, through the learner's pager when it is longer than the screen.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "lesson/lesson.h"
#include "util/io.h"
#include "util/list.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* An example is a few hundred lines: more is not one. */
#define SOURCE_MAX (1 << 20)

static int screen_rows(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
        return ws.ws_row;
    return 24;
}

/* Lists code through $PAGER (default less -R) when on a terminal and
 * taller than it; otherwise prints it. A pager that is missing (a minimal
 * system has no less) or fails leaves the listing printed directly, as git
 * and man do: pclose() tells (the shell's 127 for a missing one). */
static void show_paged(struct shell *sh, const char *code, int first_line)
{
    int lines = 0;
    for (const char *s = code; *s != '\0'; s++)
        lines += *s == '\n';
    if (!sh->interactive || lines + 2 < screen_rows()) {
        render_code(&sh->render, code, first_line);
        return;
    }
    const char *pager = getenv("PAGER");
    if (pager == NULL || pager[0] == '\0')
        pager = "command -v less >/dev/null && exec less -R";
    fflush(sh->render.out);
    FILE *p = popen(pager, "we");
    if (p != NULL) {
        struct render paged = sh->render;
        paged.out = p;
        /* The pager may quit before reading everything: no SIGPIPE (ignored). */
        render_code(&paged, code, first_line);
        int status = pclose(p);
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            return;
    }
    render_code(&sh->render, code, first_line);
}

int cmd_source(struct shell *sh, int argc, char **argv)
{
    char name[256], path[PATH_MAX];
    int first_line;

    (void)argc;
    snprintf(name, sizeof name, "%s", argv[1]);
    char *tag = strchr(name, ':');
    if (tag != NULL)
        *tag++ = '\0';
    if (name[0] == '\0' || strchr(name, '/') != NULL || (tag != NULL && *tag == '\0'))
        return SHELL_USAGE;
    size_t len = strlen(name);
    if (len > 2 && strcmp(name + len - 2, ".c") == 0)
        name[len - 2] = '\0';
    char *text = NULL;
    if (snprintf(path, sizeof path, "%s/%s.c", sh->dirs.example_src, name) >= (int)sizeof path)
        errno = ENAMETOOLONG;
    else
        text = io_read_file(AT_FDCWD, path, SOURCE_MAX);
    if (text == NULL) {
        shell_error(sh, "no example '%s' (%s: %s); `source` + Tab lists them", name, path,
                    strerror(errno));
        return SHELL_ERROR;
    }
    char *code, why[256];
    int rc = lesson_include_text(text, path, tag, &code, &first_line, why, sizeof why);
    free(text);
    if (rc == -1 && tag == NULL) {
        shell_error(sh, "%s", why);
        return SHELL_ERROR;
    }
    if (rc == -1) {
        shell_error(sh, "%s.c has no part tagged '%s' (source %s + Tab lists the tags)", name, tag,
                    name);
        return SHELL_ERROR;
    }
    show_paged(sh, code, first_line > 0 ? first_line : 1);
    free(code);
    return SHELL_OK;
}

/* Example names, and after "NAME:" the tags of that example. */
char **complete_source(struct shell *sh, const char *text, int argi)
{
    const char *colon = strchr(text, ':');
    char path[PATH_MAX], *items[256];
    size_t n = 0;

    if (argi > 1)
        return calloc(1, sizeof(char *));
    if (colon == NULL) {
        char **names = shell_example_names(sh);
        while (names[n] != NULL)
            n++;
        char **list = list_filter((const char *const *)names, n, text);
        shell_free_list(names);
        return list;
    }
    char *code = NULL;
    if (snprintf(path, sizeof path, "%s/%.*s.c", sh->dirs.example_src, (int)(colon - text), text) <
        (int)sizeof path)
        code = io_read_file(AT_FDCWD, path, SOURCE_MAX);
    for (char *s = code, *t; s != NULL && (t = strstr(s, "tag::")) != NULL && n < 256; s = t + 5) {
        size_t len = strcspn(t + 5, "[\n");
        if (t[5 + len] == '[' &&
            asprintf(&items[n], "%.*s:%.*s", (int)(colon - text), text, (int)len, t + 5) != -1)
            n++;
    }
    free(code);
    char **list = list_filter((const char *const *)items, n, text);
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    return list;
}
