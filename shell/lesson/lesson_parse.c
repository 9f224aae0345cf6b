/* SPDX-License-Identifier: MIT */
/* lesson_parse.c: reads the AsciiDoc subset of docs/lesson-format.adoc into
 * the lesson model of lesson.h.
 *
 * The subset is small on purpose: a document header, `==` steps, paragraphs,
 * and delimited blocks whose role ([.run], [.expect], [.exercise]...) says
 * what the tutorial does with them, so asciidoctor renders the same file as
 * ordinary listings, literals and examples. Anything outside the subset is an
 * error naming the file and line: a lesson that silently lost a check or a
 * quiz answer would teach wrong without anyone noticing.
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"
#include "lesson/lesson_parse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lp_fail(struct lp *p, size_t index, const char *fmt, ...)
{
    if (p->failed)
        return -1; /* keep the first, most precise message */
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%zu: %s", p->name, index + 1, what);
    p->failed = 1;
    return -1;
}

int lp_oom(struct lp *p)
{
    return lp_fail(p, p->pos, "out of memory");
}

const char *lp_line(const struct lp *p, size_t index)
{
    return p->lines[index];
}

int lp_is_blank(const char *line)
{
    for (; *line; line++)
        if (!isspace((unsigned char)*line))
            return 0;
    return 1;
}

int lp_is_delimiter(const char *line)
{
    static const char *const delimiters[] = {"----", "....", "====", "****", "____",
                                             "|===", "--",   "++++", "////", "```"};
    for (size_t i = 0; i < sizeof(delimiters) / sizeof(*delimiters); i++)
        if (strcmp(line, delimiters[i]) == 0)
            return 1;
    return 0;
}

int lp_is_attribute_line(const char *line)
{
    size_t n = strlen(line);
    return n >= 2 && line[0] == '[' && line[n - 1] == ']';
}

/* Blank lines, `//` comments and `////` comment blocks: skipped wherever a
 * block may start. Returns 1 if it skipped something, -1 on error. */
int lp_skip_ignorable(struct lp *p)
{
    const char *line = lp_line(p, p->pos);
    if (strcmp(line, "////") == 0) {
        size_t open = p->pos;
        for (p->pos++; p->pos < p->limit; p->pos++)
            if (strcmp(lp_line(p, p->pos), "////") == 0) {
                p->pos++;
                return 1;
            }
        return lp_fail(p, open, "comment block '////' is never closed");
    }
    if (lp_is_blank(line) || (strncmp(line, "//", 2) == 0 && line[2] != '/')) {
        p->pos++;
        return 1;
    }
    return 0;
}

/* Appends text to a malloc'd string with a separator when both are non-empty. */
int lp_append(char **dst, const char *sep, const char *text)
{
    size_t old = *dst ? strlen(*dst) : 0;
    size_t add = (old ? strlen(sep) : 0) + strlen(text);
    char *bigger = realloc(*dst, old + add + 1);
    if (!bigger)
        return -1;
    if (old) {
        strcpy(bigger + old, sep);
        old += strlen(sep);
    }
    strcpy(bigger + old, text);
    *dst = bigger;
    return 0;
}

/* A list item or admonition starts on its own line; other lines of a
 * paragraph are joined with a space so that the renderer can re-wrap them. */
static const char *lp_paragraph_separator(const char *line)
{
    if (!strncmp(line, "* ", 2) || !strncmp(line, "- ", 2) || !strncmp(line, ". ", 2) ||
        !strncmp(line, "** ", 3) || !strncmp(line, "NOTE: ", 6) || !strncmp(line, "TIP: ", 5) ||
        !strncmp(line, "WARNING: ", 9) || !strncmp(line, "IMPORTANT: ", 11))
        return "\n";
    return " ";
}

/* Reads the paragraph starting at p->pos, up to a blank line or the limit.
 * stop_at_choice: in a quiz, a "* [" line ends the question. The text is
 * allocated once, at its whole length (a paragraph grown line by line was
 * most of the time spent reading the lessons at start). */
int lp_read_paragraph(struct lp *p, char **text, int stop_at_choice)
{
    size_t start = p->pos, total = 1;
    *text = NULL;
    for (size_t i = start; i < p->limit; i++) {
        const char *line = lp_line(p, i);
        if (lp_is_blank(line) || (stop_at_choice && !strncmp(line, "* [", 3)))
            break;
        total += strlen(line) + 1;
    }
    size_t len = 0;
    char *out = malloc(total);
    if (out == NULL)
        return lp_oom(p);
    out[0] = '\0';
    *text = out;
    for (; p->pos < p->limit; p->pos++) {
        const char *line = lp_line(p, p->pos);
        if (lp_is_blank(line) || (stop_at_choice && !strncmp(line, "* [", 3)))
            break;
        if (p->pos > start && (lp_is_delimiter(line) || lp_is_attribute_line(line)))
            return lp_fail(p, p->pos, "'%s' inside a paragraph: put a blank line before it", line);
        if (!strncmp(line, "include::", 9))
            return lp_fail(p, p->pos,
                           "include:: is only allowed as the one line of a [source] listing");
        if (line[0] == '=' && (line[1] == '=' || line[1] == ' '))
            return lp_fail(p, p->pos,
                           "a section title inside a paragraph: put a blank line before it");
        if (!strncmp(line, "//", 2))
            continue;
        size_t n = strlen(line);
        if (len > 0)
            out[len++] = lp_paragraph_separator(line)[0];
        memcpy(out + len, line, n + 1);
        len += n;
    }
    if (len == 0) {
        free(out);
        *text = NULL;
    }
    return 0;
}

/* Lines [from, to) joined with newlines into one allocation (NULL when
 * there are none): a block of code is copied once, not regrown per line. */
static int lp_join_lines(struct lp *p, size_t from, size_t to, char **text)
{
    size_t total = 0;
    *text = NULL;
    if (from >= to)
        return 0;
    for (size_t i = from; i < to; i++)
        total += strlen(lp_line(p, i)) + 1;
    char *out = malloc(total), *end = out;
    if (out == NULL)
        return lp_oom(p);
    for (size_t i = from; i < to; i++) {
        size_t n = strlen(lp_line(p, i));
        memcpy(end, lp_line(p, i), n);
        end += n;
        *end++ = '\n';
    }
    end[-1] = '\0';
    *text = out;
    return 0;
}

/* Reads a delimited block opening at p->pos with delim: its content lines
 * joined with newlines (NULL when empty); p->pos moves past the closing line. */
int lp_read_delimited(struct lp *p, const char *delim, const char *what, char **text,
                      size_t *content_start, size_t *content_end)
{
    *text = NULL;
    if (p->pos >= p->limit || strcmp(lp_line(p, p->pos), delim) != 0)
        return lp_fail(p, p->pos ? p->pos - 1 : 0, "%s must be followed by a '%s' line", what,
                       delim);
    size_t open = p->pos++;
    *content_start = p->pos;
    for (; p->pos < p->limit; p->pos++) {
        if (strcmp(lp_line(p, p->pos), delim) == 0) {
            *content_end = p->pos++;
            return lp_join_lines(p, *content_start, *content_end, text);
        }
    }
    return lp_fail(p, open, "%s opened here is never closed (expected a line '%s')", what, delim);
}

static int lp_is_name_char(char c)
{
    return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-' || c == '_';
}

/* Splits an attribute list at commas outside double quotes; unquotes values. */
static int lp_attr_item(struct lp *p, size_t at, const char **s, char *item, size_t itemlen)
{
    size_t n = 0;
    int quoted = 0;
    for (; **s && (quoted || **s != ','); (*s)++) {
        char c = **s;
        if (c == '"') {
            quoted = !quoted;
            continue;
        }
        if (quoted && c == '\\' && (*s)[1] == '"')
            c = *++*s;
        if (n + 1 >= itemlen)
            return lp_fail(p, at, "block attribute too long");
        item[n++] = c;
    }
    if (quoted)
        return lp_fail(p, at, "unterminated quote in block attributes");
    if (**s == ',')
        (*s)++;
    item[n] = '\0';
    return 0;
}

static int lp_parse_roles(struct lp *p, size_t at, const char *item, struct lp_attrs *a)
{
    const char *s = item;
    while (*s == '.') {
        size_t n = 0;
        for (s++; lp_is_name_char(s[n]); n++)
            ;
        if (n == 0 || n >= sizeof(a->roles[0]) || a->role_count == LP_MAX_ROLES)
            return lp_fail(p, at, "malformed role list '%s'", item);
        memcpy(a->roles[a->role_count], s, n);
        a->roles[a->role_count++][n] = '\0';
        s += n;
    }
    if (*s)
        return lp_fail(
            p, at, "malformed role list '%s' (write roles as [.name] or [.name.modifier])", item);
    return 0;
}

/* job=NAME: a name for the variable NAME_pid, so lowercase letters, digits
 * and '_', starting with a letter. */
static int lp_parse_job_name(struct lp *p, size_t at, const char *name, struct lp_attrs *a)
{
    size_t n = strlen(name);
    int ok = n > 0 && n < sizeof(a->job) - 4 && islower((unsigned char)name[0]);
    for (size_t i = 0; ok && i < n; i++)
        ok = islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '_';
    if (!ok)
        return lp_fail(p, at,
                       "job=%s: a job name is a lowercase letter, then up to %zu lowercase "
                       "letters, digits or '_' (it names the variable NAME_pid)",
                       name, sizeof(a->job) - 6);
    memcpy(a->job, name, n + 1);
    return 0;
}

/* Parses "[...]" at line index `at` into a. Supported: [source,LANG],
 * [.role(.modifier)*] and named when="..." or job=NAME after the roles. */
int lp_parse_attrs(struct lp *p, size_t at, struct lp_attrs *a)
{
    const char *line = lp_line(p, at);
    char inner[1024], item[1024];
    size_t n = strlen(line) - 2;
    memset(a, 0, sizeof(*a));
    if (n >= sizeof(inner))
        return lp_fail(p, at, "block attribute line too long");
    memcpy(inner, line + 1, n);
    inner[n] = '\0';
    const char *s = inner;
    if (lp_attr_item(p, at, &s, item, sizeof(item)) == -1)
        return -1;
    if (strcmp(item, "source") == 0) {
        a->is_source = 1;
        if (lp_attr_item(p, at, &s, item, sizeof(item)) == -1)
            return -1;
        if (!item[0] || *s || strlen(item) >= sizeof(a->lang))
            return lp_fail(p, at, "write a code listing as [source,LANG], e.g. [source,c]");
        strcpy(a->lang, item);
        return 0;
    }
    if (item[0] != '.')
        return lp_fail(p, at,
                       "unsupported block attributes '%s' (expected [source,LANG] or a role "
                       "such as [.run])",
                       line);
    if (lp_parse_roles(p, at, item, a) == -1)
        return -1;
    while (*s) {
        if (lp_attr_item(p, at, &s, item, sizeof(item)) == -1)
            return -1;
        if (strncmp(item, "job=", 4) == 0 && !a->job[0]) {
            if (lp_parse_job_name(p, at, item + 4, a) == -1)
                return -1;
            continue;
        }
        if (strncmp(item, "when=", 5) != 0 || a->when)
            return lp_fail(p, at,
                           "unsupported attribute '%s' (a hint takes when=\"...\", a "
                           "[.run.background] job=NAME)",
                           item);
        if (!item[5])
            return lp_fail(p, at, "empty when=\"\" condition");
        a->when = strdup(item + 5);
        if (!a->when)
            return lp_oom(p);
    }
    return 0;
}

/* Checks that the roles are exactly `role` plus allowed modifiers. */
int lp_check_modifiers(struct lp *p, size_t at, const struct lp_attrs *a, const char *allowed)
{
    for (size_t i = 1; i < a->role_count; i++) {
        if (!allowed)
            return lp_fail(p, at, "unknown modifier '.%s': [.%s] takes none", a->roles[i],
                           a->roles[0]);
        if (strcmp(a->roles[i], allowed) != 0)
            return lp_fail(p, at, "unknown modifier '.%s' on [.%s] (allowed: .%s)", a->roles[i],
                           a->roles[0], allowed);
    }
    if (a->when && strcmp(a->roles[0], "hint") != 0)
        return lp_fail(p, at, "only a [.hint] takes a when=\"...\" condition");
    if (a->job[0] && (strcmp(a->roles[0], "run") != 0 || a->role_count < 2))
        return lp_fail(p, at,
                       "only a [.run.background] takes job=NAME: it names a program left "
                       "running");
    return 0;
}

int lp_listing_once(struct lp *p, size_t at, const char *role, char **text)
{
    char what[64];
    size_t cs, ce;
    if (*text)
        return lp_fail(p, at, "a second [.%s] in the same exercise", role);
    snprintf(what, sizeof(what), "a [.%s] listing", role);
    if (lp_read_delimited(p, "----", what, text, &cs, &ce) == -1)
        return -1;
    if (!*text || lp_is_blank(*text))
        return lp_fail(p, at, "empty [.%s] listing", role);
    return 0;
}

/* "X.Y" with whole numbers: major and minor, or -1. */
static int lp_version(const char *v, int *major, int *minor)
{
    int used = 0;
    if (sscanf(v, "%3d.%3d%n", major, minor, &used) != 2 || v[used] != '\0' ||
        !isdigit((unsigned char)v[0]))
        return -1;
    return 0;
}

int lp_step_kernel(struct lp *p, const char *lesson_kernel, char **kernel)
{
    size_t at = p->pos;
    const char *line = lp_line(p, at);
    char v[32];
    int major, minor, lmajor = 0, lminor = 0;
    size_t n = strlen(line) - strlen("[kernel=]");
    if (n == 0 || n >= sizeof v)
        return lp_fail(p, at, "[kernel=X.Y] needs a version such as 6.11");
    memcpy(v, line + strlen("[kernel="), n);
    v[n] = '\0';
    if (lp_version(v, &major, &minor) == -1)
        return lp_fail(p, at, "[kernel=%s]: write the version as X.Y, such as 6.11", v);
    if (at + 1 >= p->limit || strncmp(lp_line(p, at + 1), "== ", 3) != 0)
        return lp_fail(p, at, "[kernel=%s] belongs on the line right before a step's '== Title'",
                       v);
    if (lesson_kernel && sscanf(lesson_kernel, "%d.%d", &lmajor, &lminor) == 2 &&
        (major < lmajor || (major == lmajor && minor <= lminor)))
        return lp_fail(p, at,
                       "[kernel=%s] asks no more than the lesson's ':kernel: %s' (drop it, or "
                       "raise it to what the step needs)",
                       v, lesson_kernel);
    free(*kernel);
    *kernel = strdup(v);
    p->pos++;
    return *kernel ? 0 : lp_oom(p);
}
