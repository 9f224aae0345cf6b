/* SPDX-License-Identifier: MIT */
/* lesson.c: lesson files and directories into the lesson model (lesson.h).
 *
 * This file holds the document header (title and attributes), the entry
 * points, freeing, and loading a directory of NN-name.adoc files; the body of
 * a lesson is read by lesson_blocks.c on top of the line reader of
 * lesson_parse.c. Pure: no terminal, no lab.
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"
#include "lesson/lesson_parse.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits text into lines in place (a trailing '\r' is dropped). */
static int lesson_split_lines(char *text, char ***lines, size_t *count)
{
    size_t cap = 1, len = strlen(text);
    for (const char *c = memchr(text, '\n', len); c != NULL;
         c = memchr(c + 1, '\n', len - (size_t)(c + 1 - text)))
        cap++;
    *lines = malloc(cap * sizeof(**lines));
    *count = 0;
    if (!*lines)
        return -1;
    for (char *s = text, *end = text + len; s < end;) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        s[n] = '\0';
        if (n && s[n - 1] == '\r')
            s[n - 1] = '\0';
        (*lines)[(*count)++] = s;
        s += n + 1;
    }
    return 0;
}

/* ":name: value" header attributes, the only ones a lesson may set. */
static int lesson_header_attribute(struct lp *p, struct lesson *out, const char *line)
{
    const char *end = strchr(line + 1, ':');
    if (!end || end == line + 1)
        return lp_fail(p, p->pos, "malformed attribute line (write ':name: value')");
    size_t n = (size_t)(end - line - 1);
    const char *value = end + 1;
    while (*value == ' ')
        value++;
    char **slot = NULL;
    if (n == 7 && !strncmp(line + 1, "summary", n))
        slot = &out->summary;
    else if (n == 6 && !strncmp(line + 1, "kernel", n))
        slot = &out->kernel;
    else if (!(n == 7 && !strncmp(line + 1, "minutes", n)))
        return lp_fail(p, p->pos, "unknown attribute ':%.*s:' (known: summary, kernel, minutes)",
                       (int)n, line + 1);
    if (!*value)
        return lp_fail(p, p->pos, "attribute ':%.*s:' has no value", (int)n, line + 1);
    if (!slot) {
        char *rest;
        long minutes = strtol(value, &rest, 10);
        if (out->minutes || *rest || minutes < 1 || minutes > 600)
            return lp_fail(p, p->pos,
                           out->minutes ? "':minutes:' given twice"
                                        : "':minutes:' must be a whole number of "
                                          "minutes from 1 to 600");
        out->minutes = (int)minutes;
        return 0;
    }
    if (*slot)
        return lp_fail(p, p->pos, "':%.*s:' given twice", (int)n, line + 1);
    if (slot == &out->kernel && strspn(value, "0123456789.") != strlen(value))
        return lp_fail(p, p->pos, "':kernel:' is a version such as 3.8");
    *slot = strdup(value);
    return *slot ? 0 : lp_oom(p);
}

/* "= Title" (after optional comments), then ":name: value" lines. */
static int lesson_parse_header(struct lp *p, struct lesson *out)
{
    while (p->pos < p->limit && !strncmp(lp_line(p, p->pos), "//", 2) &&
           strcmp(lp_line(p, p->pos), "////") != 0)
        p->pos++;
    if (p->pos >= p->limit || strncmp(lp_line(p, p->pos), "= ", 2) != 0 ||
        lp_is_blank(lp_line(p, p->pos) + 2))
        return lp_fail(p, p->pos < p->limit ? p->pos : 0,
                       "a lesson starts with its title: '= Title'");
    size_t title_line = p->pos;
    out->title = strdup(lp_line(p, p->pos) + 2);
    if (!out->title)
        return lp_oom(p);
    for (p->pos++; p->pos < p->limit; p->pos++) {
        const char *line = lp_line(p, p->pos);
        if (!strncmp(line, "//", 2) && strcmp(line, "////") != 0)
            continue;
        if (line[0] != ':')
            break;
        if (lesson_header_attribute(p, out, line) == -1)
            return -1;
    }
    if (!out->summary)
        return lp_fail(p, title_line,
                       "the header has no ':summary:' (one line for the lesson list)");
    if (!out->minutes)
        return lp_fail(p, title_line,
                       "the header has no ':minutes:' (the expected time to finish)");
    return 0;
}

/* The id is the file name without directory and .adoc; the number its
 * leading digits (0 if none). */
static int lesson_set_identity(struct lesson *out, const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".adoc"))
        n -= 5;
    out->id = strndup(base, n);
    out->path = strdup(name);
    out->number = isdigit((unsigned char)*base) ? atoi(base) : 0;
    return out->id && out->path ? 0 : -1;
}

/* The header ends at the first blank line at the latest: the text up to and
 * including it is all lesson_parse_header reads, with the same messages. */
static size_t lesson_header_length(const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) + 1 : len, i = at;
        while (i < end && isspace((unsigned char)text[i]))
            i++;
        if (i == end)
            return end;
        at = end;
    }
    return len;
}

/* The lesson in text (len bytes): its header, and with body its steps. */
static int lesson_parse_text(const char *text, size_t len, const char *name, const char *base_dir,
                             int body, struct lesson *out, char *err, size_t errlen)
{
    struct lp p = {
        .name = name, .base_dir = base_dir ? base_dir : ".", .err = err, .errlen = errlen};
    memset(out, 0, sizeof(*out));
    if (errlen)
        err[0] = '\0';
    char *copy = strndup(text ? text : "", len);
    int rc = -1;
    if (!copy || lesson_split_lines(copy, &p.lines, &p.count) == -1 ||
        lesson_set_identity(out, name) == -1) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    p.limit = p.count;
    if (lesson_parse_header(&p, out) == 0 && (!body || lp_parse_body(&p, out) == 0))
        rc = 0;
    out->body_read = body;
out:
    free(p.lines);
    free(copy);
    if (rc == -1)
        lesson_free(out);
    return rc;
}

int lesson_parse_string(const char *text, const char *name, const char *base_dir,
                        struct lesson *out, char *err, size_t errlen)
{
    return lesson_parse_text(text, text ? strlen(text) : 0, name, base_dir, 1, out, err, errlen);
}

/* The file at path, read whole (so that an unreadable file, or one too big
 * or with a NUL byte, is an error whatever is parsed), parsed whole or, with
 * body 0, its header only. */
static int lesson_parse_path(const char *path, int body, struct lesson *out, char *err,
                             size_t errlen)
{
    char *text, why[512];
    memset(out, 0, sizeof(*out));
    if (lesson_read_text_file(path, &text, why, sizeof(why)) == -1) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    size_t len = strlen(text);
    int rc = -1;
    if (!dir) {
        snprintf(err, errlen, "%s: out of memory", path);
    } else {
        if (slash)
            *slash = '\0';
        rc = lesson_parse_text(text, body ? len : lesson_header_length(text, len), path,
                               slash ? (*dir ? dir : "/") : ".", body, out, err, errlen);
    }
    free(dir);
    free(text);
    return rc;
}

int lesson_parse_file(const char *path, struct lesson *out, char *err, size_t errlen)
{
    return lesson_parse_path(path, 1, out, err, errlen);
}

int lesson_read_body(struct lesson *lesson, char *err, size_t errlen)
{
    struct lesson whole;
    if (lesson->body_read)
        return 0;
    if (lesson_parse_path(lesson->path, 1, &whole, err, errlen) == -1)
        return -1;
    /* The header read at start stays (the list showed it); the steps move. */
    lesson->steps = whole.steps;
    lesson->step_count = whole.step_count;
    lesson->body_read = 1;
    whole.steps = NULL;
    whole.step_count = 0;
    lesson_free(&whole);
    return 0;
}

static void lesson_free_block(struct lesson_block *b)
{
    free(b->text);
    free(b->source_path);
    free(b->source_tag);
    free(b->answer);
    free(b->job);
    free(b->check);
    free(b->solution);
    free(b->program);
    free(b->program_path);
    for (size_t i = 0; i < b->wrong_program_count; i++)
        free(b->wrong_programs[i]);
    free(b->wrong_programs);
    for (size_t i = 0; i < b->hint_count; i++) {
        free(b->hints[i].when);
        free(b->hints[i].text);
    }
    free(b->hints);
    for (size_t i = 0; i < b->wrong_count; i++) {
        free(b->wrongs[i].title);
        free(b->wrongs[i].commands);
    }
    free(b->wrongs);
    for (size_t i = 0; i < b->choice_count; i++) {
        free(b->choices[i].text);
        free(b->choices[i].explanation);
    }
    free(b->choices);
}

void lesson_free(struct lesson *lesson)
{
    if (!lesson)
        return;
    for (size_t s = 0; s < lesson->step_count; s++) {
        struct lesson_step *step = &lesson->steps[s];
        for (size_t b = 0; b < step->block_count; b++)
            lesson_free_block(&step->blocks[b]);
        free(step->blocks);
        free(step->title);
        free(step->kernel);
    }
    free(lesson->steps);
    free(lesson->path);
    free(lesson->id);
    free(lesson->title);
    free(lesson->summary);
    free(lesson->kernel);
    memset(lesson, 0, sizeof(*lesson));
}

void lesson_free_all(struct lesson *lessons, size_t count)
{
    for (size_t i = 0; lessons && i < count; i++)
        lesson_free(&lessons[i]);
    free(lessons);
}

/* NN-name.adoc: digits, a dash, then the name. Other files are not lessons
 * (an index for the handbook, say), and are left alone. */
static int lesson_is_lesson_file(const struct dirent *e)
{
    const char *s = e->d_name;
    size_t digits = strspn(s, "0123456789"), n = strlen(s);
    return digits > 0 && s[digits] == '-' && n > digits + 6 && !strcmp(s + n - 5, ".adoc");
}

static int lesson_compare_numbers(const struct lesson *a, const struct lesson *b)
{
    return a->number != b->number ? (a->number > b->number) - (a->number < b->number)
                                  : strcmp(a->id, b->id);
}

static int lesson_compare(const void *a, const void *b)
{
    return lesson_compare_numbers(a, b);
}

static int lesson_load(const char *dir, int body, struct lesson **lessons, size_t *count, char *err,
                       size_t errlen)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, lesson_is_lesson_file, alphasort);
    *lessons = NULL;
    *count = 0;
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot read the lessons directory: %m", dir);
        return -1;
    }
    int rc = 0;
    struct lesson *all = calloc((size_t)n + 1, sizeof(*all));
    size_t loaded = 0;
    if (!all) {
        snprintf(err, errlen, "%s: out of memory", dir);
        rc = -1;
    }
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (rc == 0 &&
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) >= (int)sizeof(path)) {
            snprintf(err, errlen, "%s: path too long", dir);
            rc = -1;
        }
        if (rc == 0 && lesson_parse_path(path, body, &all[loaded], err, errlen) == -1)
            rc = -1;
        if (rc == 0)
            loaded++;
        free(names[i]);
    }
    free(names);
    if (rc == 0 && loaded == 0) {
        snprintf(err, errlen, "%s: no lessons (NN-name.adoc files) found", dir);
        rc = -1;
    }
    if (rc == 0)
        qsort(all, loaded, sizeof(*all), lesson_compare);
    for (size_t i = 1; rc == 0 && i < loaded; i++)
        if (all[i].number == all[i - 1].number) {
            snprintf(err, errlen, "%s: two lessons have the number %d (%s, %s)", dir, all[i].number,
                     all[i - 1].id, all[i].id);
            rc = -1;
        }
    if (rc == -1) {
        lesson_free_all(all, loaded);
        return -1;
    }
    *lessons = all;
    *count = loaded;
    return 0;
}

int lesson_load_dir(const char *dir, struct lesson **lessons, size_t *count, char *err,
                    size_t errlen)
{
    return lesson_load(dir, 1, lessons, count, err, errlen);
}

int lesson_load_headers(const char *dir, struct lesson **lessons, size_t *count, char *err,
                        size_t errlen)
{
    return lesson_load(dir, 0, lessons, count, err, errlen);
}
