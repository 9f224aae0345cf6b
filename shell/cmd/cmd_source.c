/* cmd_source.c: `source EXAMPLE[:TAG]`, an example's code with line
 * numbers, through the learner's pager when it is longer than the screen.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether line is a tag marker ("// tag::NAME[]", "// end::NAME[]"); with
 * name not NULL, whether it marks that tag. */
static int is_marker(const char *line, size_t len, const char *kind, const char *name)
{
    char want[160];
    const char *mark = memmem(line, len, kind, strlen(kind));

    if (mark == NULL)
        return 0;
    if (name == NULL)
        return memmem(mark, len - (size_t)(mark - line), "[]", 2) != NULL;
    snprintf(want, sizeof want, "%s%s[]", kind, name);
    return memmem(line, len, want, strlen(want)) != NULL;
}

char *source_extract(const char *text, const char *tag, int *first_line)
{
    /* Every line kept ends in '\n', even a last line that had none: one
     * byte more than the text, then the NUL. */
    size_t cap = strlen(text) + 2, used = 0;
    char *out = malloc(cap);
    int inside = tag == NULL, found = tag == NULL, number = 0;

    *first_line = 0;
    for (const char *s = text; out != NULL && *s != '\0';) {
        size_t len = strcspn(s, "\n");
        number++;
        if (is_marker(s, len, "tag::", tag)) {
            inside = found = 1;
        } else if (is_marker(s, len, "end::", tag)) {
            if (tag != NULL)
                inside = 0;
        } else if (!is_marker(s, len, "tag::", NULL) && !is_marker(s, len, "end::", NULL) &&
                   inside) {
            if (*first_line == 0)
                *first_line = number;
            memcpy(out + used, s, len);
            used += len;
            out[used++] = '\n';
        }
        s += len + (s[len] == '\n');
    }
    if (out != NULL)
        out[used] = '\0';
    if (!found || (out != NULL && used == 0 && tag != NULL)) {
        free(out);
        return NULL;
    }
    return out;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t len = 0;

    if (f == NULL)
        return NULL;
    FILE *mem = open_memstream(&text, &len);
    char buf[4096];
    size_t n;
    while (mem != NULL && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, mem);
    if (mem != NULL)
        fclose(mem);
    fclose(f);
    return text;
}

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
    char name[256], path[4400];
    int first_line;

    (void)argc;
    snprintf(name, sizeof name, "%s", argv[1]);
    char *tag = strchr(name, ':');
    if (tag != NULL)
        *tag++ = '\0';
    if (name[0] == '\0' || strchr(name, '/') != NULL || (tag != NULL && *tag == '\0'))
        return command_usage_of(sh, "source");
    size_t len = strlen(name);
    if (len > 2 && strcmp(name + len - 2, ".c") == 0)
        name[len - 2] = '\0';
    snprintf(path, sizeof path, "%s/%s.c", sh->dirs.example_src, name);
    char *text = read_file(path);
    if (text == NULL) {
        shell_error(sh, "no example '%s' (%s: %s); `source` + Tab lists them", name, path,
                    strerror(errno));
        return SHELL_ERROR;
    }
    char *code = source_extract(text, tag, &first_line);
    free(text);
    if (code == NULL) {
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
    char path[4400], *items[256];
    size_t n = 0;

    if (argi > 1)
        return calloc(1, sizeof(char *));
    if (colon == NULL) {
        char **names = shell_example_names(sh);
        while (names[n] != NULL)
            n++;
        char **list = command_filter((const char *const *)names, n, text);
        shell_free_list(names);
        return list;
    }
    snprintf(path, sizeof path, "%s/%.*s.c", sh->dirs.example_src, (int)(colon - text), text);
    char *code = read_file(path);
    for (char *s = code, *t; s != NULL && (t = strstr(s, "tag::")) != NULL && n < 256; s = t + 5) {
        size_t len = strcspn(t + 5, "[\n");
        if (t[5 + len] == '[' &&
            asprintf(&items[n], "%.*s:%.*s", (int)(colon - text), text, (int)len, t + 5) != -1)
            n++;
    }
    free(code);
    char **list = command_filter((const char *const *)items, n, text);
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    return list;
}
