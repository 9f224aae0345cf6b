/* SPDX-License-Identifier: MIT */
/* lesson_include.c: the code a lesson shows comes from the example files.
 *
 * A lesson writes include::../examples/x.c[tag=clone]; the example marks the
 * region with comment lines holding tag::clone[] and end::clone[]. We resolve
 * it exactly as asciidoctor does (lines holding any tag directive are left
 * out), so the terminal and the HTML handbook show the same lines, and a
 * missing file or tag is an error at load time, not a gap in a lesson.
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"
#include "util/io.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lesson_read_text_file(const char *path, char **text, char *why, size_t whylen)
{
    struct stat st;
    *text = NULL;
    /* O_NONBLOCK: a FIFO must not hang the loading of lessons; it, like any
     * other file that is not regular, is then refused. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd == -1 || fstat(fd, &st) == -1) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        if (fd != -1)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    size_t n = 0;
    char *buf = io_read_fd_len(fd, LESSON_MAX_FILE_BYTES, &n);
    int saved = errno;
    close(fd);
    if (buf == NULL || memchr(buf, '\0', n)) {
        snprintf(why, whylen, "%s: %s", path,
                 buf != NULL       ? "contains a NUL byte, not a text file"
                 : saved == EFBIG  ? "larger than 1 MiB, not a text file?"
                 : saved == ENOMEM ? "out of memory"
                                   : "read error");
        free(buf);
        return -1;
    }
    *text = buf;
    return 0;
}

/* The two directives that delimit one tagged region, "tag::NAME[]" and
 * "end::NAME[]", built once per scan (not once per line of the file). */
struct include_needles {
    char open[160], close[160];
    size_t open_len, close_len;
};

static int include_needles_make(struct include_needles *n, const char *tag)
{
    int a = snprintf(n->open, sizeof(n->open), "tag::%s[]", tag);
    int b = snprintf(n->close, sizeof(n->close), "end::%s[]", tag);
    if (a < 0 || b < 0 || (size_t)a >= sizeof(n->open) || (size_t)b >= sizeof(n->close))
        return -1;
    n->open_len = (size_t)a;
    n->close_len = (size_t)b;
    return 0;
}

/* Does this line hold the directive (followed by the end of the line or a
 * blank, as asciidoctor requires)? */
static int include_line_has(const char *line, size_t len, const char *needle, size_t n)
{
    for (const char *p = line; p + n <= line + len; p++) {
        p = memmem(p, (size_t)(line + len - p), needle, n);
        if (!p)
            return 0;
        const char *after = p + n;
        if (after == line + len || *after == ' ' || *after == '\r' || *after == '\t')
            return 1;
    }
    return 0;
}

/* Every directive holds "::": most lines of code do not, and need no
 * further look (a lesson's start-up reads every included file). */
static int include_line_has_colons(const char *line, size_t len)
{
    for (const char *p = memchr(line, ':', len); p != NULL && p + 1 < line + len;
         p = memchr(p + 1, ':', (size_t)(line + len - p - 1)))
        if (p[1] == ':')
            return 1;
    return 0;
}

/* Any tag directive at all (nested regions' markers are dropped too). */
static int include_line_is_directive(const char *line, size_t len)
{
    const char *p = memmem(line, len, "tag::", 5);
    if (!p)
        p = memmem(line, len, "end::", 5);
    return p && memchr(p, '[', (size_t)(line + len - p)) &&
           memmem(p, (size_t)(line + len - p), "[]", 2);
}

struct include_scan {
    int open_line; /* 1-based line of tag::, 0 = not seen */
    int first_line;
    int closed;
    char *code;
    size_t len;
};

static int include_append(struct include_scan *s, const char *line, size_t len)
{
    char *bigger = realloc(s->code, s->len + len + 2);
    if (!bigger)
        return -1;
    s->code = bigger;
    memcpy(s->code + s->len, line, len);
    s->len += len;
    s->code[s->len++] = '\n';
    s->code[s->len] = '\0';
    return 0;
}

static int include_scan_text(const char *text, const char *tag, struct include_scan *s, char *why,
                             size_t whylen)
{
    struct include_needles n;
    int lineno = 0;
    if (tag == NULL) { /* the whole text is the region */
        s->open_line = 1;
        s->closed = 0;
        n.open_len = n.close_len = 0;
    } else if (include_needles_make(&n, tag) == -1) {
        snprintf(why, whylen, "tag name too long: '%.40s...'", tag);
        return -1;
    }
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        lineno++;
        int colons = include_line_has_colons(line, len);
        if (colons && tag != NULL && include_line_has(line, len, n.open, n.open_len)) {
            if (s->open_line) {
                snprintf(why, whylen, "tag '%s' opens twice (lines %d and %d)", tag, s->open_line,
                         lineno);
                return -1;
            }
            s->open_line = lineno;
        } else if (colons && tag != NULL && s->open_line && !s->closed &&
                   include_line_has(line, len, n.close, n.close_len)) {
            s->closed = 1;
        } else if (s->open_line && !s->closed &&
                   !(colons && include_line_is_directive(line, len))) {
            if (!s->first_line)
                s->first_line = lineno;
            if (include_append(s, line, len) == -1) {
                snprintf(why, whylen, "out of memory");
                return -1;
            }
        }
        line = nl ? nl + 1 : line + len;
    }
    return 0;
}

int lesson_include_text(const char *text, const char *name, const char *tag, char **code,
                        int *first_line, char *why, size_t whylen)
{
    struct include_scan s = {0};
    *code = NULL;
    int rc = include_scan_text(text, tag, &s, why, whylen);
    if (rc == 0 && tag != NULL && !s.open_line) {
        snprintf(why, whylen,
                 "tag '%s' not found in %s (mark the region with tag::%s[] and end::%s[])", tag,
                 name, tag, tag);
        rc = -1;
    } else if (rc == 0 && tag != NULL && !s.closed) {
        snprintf(why, whylen, "tag '%s' opened at %s:%d is never closed with end::%s[]", tag, name,
                 s.open_line, tag);
        rc = -1;
    } else if (rc == 0 && tag != NULL && !s.code) {
        snprintf(why, whylen, "tag '%s' in %s marks an empty region", tag, name);
        rc = -1;
    } else if (rc == 0 && !s.code && (s.code = strdup("")) == NULL) {
        snprintf(why, whylen, "out of memory");
        rc = -1;
    }
    if (rc == -1) {
        free(s.code);
        return -1;
    }
    *code = s.code;
    *first_line = s.first_line;
    return 0;
}

int lesson_include_region(const char *base_dir, const char *target, const char *tag, char **code,
                          int *first_line, char *why, size_t whylen)
{
    char path[PATH_MAX];
    char *text = NULL;
    *code = NULL;
    if (snprintf(path, sizeof(path), "%s/%s", base_dir, target) >= (int)sizeof(path)) {
        snprintf(why, whylen, "include path too long");
        return -1;
    }
    if (lesson_read_text_file(path, &text, why, whylen) == -1)
        return -1;
    int rc = lesson_include_text(text, target, tag, code, first_line, why, whylen);
    free(text);
    return rc;
}

char *lesson_display_path(const char *base_dir, const char *target)
{
    if (strncmp(target, "../", 3) == 0)
        return strdup(target + 3);
    const char *slash = strrchr(base_dir, '/');
    const char *dir = slash ? slash + 1 : base_dir;
    if (*dir == '\0' || strcmp(dir, ".") == 0)
        return strdup(target);
    char *out = malloc(strlen(dir) + strlen(target) + 2);
    if (out)
        sprintf(out, "%s/%s", dir, target);
    return out;
}
