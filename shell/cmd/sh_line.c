/* SPDX-License-Identifier: MIT */
/* sh_line.c: cutting a shell command line at the `&` that end its commands.
 * See sh_line.h.
 *
 * A small scanner of the POSIX shell grammar, enough to know where each
 * command of a line ends: words (with their quotes, backslashes, $(...),
 * ${...} and `...`), operators, and the reserved words that open and close
 * compound commands where a command starts. What it cannot place it leaves
 * to /bin/sh: the line then stays whole.
 */
#include "cmd/sh_line.h"

#include <stdlib.h>
#include <string.h>

#define SH_LINE_DEPTH_MAX 64 /* brackets and compound commands, nested */

enum closer { CLOSE_PAREN, CLOSE_BRACE, CLOSE_FI, CLOSE_DONE };

struct scan {
    enum closer stack[SH_LINE_DEPTH_MAX];
    size_t depth;
    int nesting; /* $(...) and ${...} being read, one inside the other */
    int cmdpos;  /* the next word starts a command (may be a reserved word) */
    int broken;  /* an unclosed quote or bracket, a stray closer: /bin/sh decides */
    int nested_background;
    int manages_jobs; /* uses $!, or wait, jobs, fg, bg */
    /* the top level's separators, for the caller (NULL inside $(...)) */
    struct sh_line *line;
    const char *part_start;
    int top_background; /* a top-level `&` was seen */
};

static const char *scan_commands(struct scan *s, const char *p, int in_substitution);

static int is_delimiter(char c)
{
    return c == '\0' || strchr(" \t\n;&|()<>", c) != NULL;
}

/* One plain character; $! is noted. */
static const char *skip_plain(struct scan *s, const char *p)
{
    if (p[0] == '$' && p[1] == '!')
        s->manages_jobs = 1;
    return p + 1;
}

static const char *skip_backquoted(struct scan *s, const char *p)
{
    for (; *p != '\0' && *p != '`'; p++)
        if (*p == '\\' && p[1] != '\0')
            p++;
    if (*p == '\0') {
        s->broken = 1;
        return p;
    }
    return p + 1;
}

/* $(...) (p after the "$("): its commands are read as a line of their own. */
static const char *skip_substitution(struct scan *s, const char *p)
{
    struct scan inner = {.cmdpos = 1, .nesting = s->nesting + 1};
    if (inner.nesting > SH_LINE_DEPTH_MAX) {
        s->broken = 1;
        return p + strlen(p);
    }
    p = scan_commands(&inner, p, 1);
    s->broken |= inner.broken;
    s->nested_background |= inner.nested_background;
    s->manages_jobs |= inner.manages_jobs;
    return p;
}

static const char *skip_double_quoted(struct scan *s, const char *p);

/* ${...} (p after the "${"). */
static const char *skip_parameter(struct scan *s, const char *p)
{
    if (++s->nesting > SH_LINE_DEPTH_MAX) {
        s->broken = 1;
        return p + strlen(p);
    }
    while (*p != '\0' && *p != '}' && !s->broken) {
        if (*p == '\\' && p[1] != '\0')
            p += 2;
        else if (*p == '\'')
            p = strchr(p + 1, '\'') != NULL ? strchr(p + 1, '\'') + 1 : p + strlen(p);
        else if (*p == '"')
            p = skip_double_quoted(s, p + 1);
        else if (*p == '`')
            p = skip_backquoted(s, p + 1);
        else if (p[0] == '$' && p[1] == '(')
            p = skip_substitution(s, p + 2);
        else if (p[0] == '$' && p[1] == '{')
            p = skip_parameter(s, p + 2);
        else
            p++;
    }
    s->nesting--;
    if (*p != '}') {
        s->broken = 1;
        return p;
    }
    return p + 1;
}

/* "..." (p after the opening quote). */
static const char *skip_double_quoted(struct scan *s, const char *p)
{
    while (*p != '\0' && *p != '"' && !s->broken) {
        if (*p == '\\' && p[1] != '\0')
            p += 2;
        else if (*p == '`')
            p = skip_backquoted(s, p + 1);
        else if (p[0] == '$' && p[1] == '(')
            p = skip_substitution(s, p + 2);
        else if (p[0] == '$' && p[1] == '{')
            p = skip_parameter(s, p + 2);
        else
            p = skip_plain(s, p);
    }
    if (*p != '"') {
        s->broken = 1;
        return p;
    }
    return p + 1;
}

/* One word, with its quoted and substituted pieces; returns its end. */
static const char *skip_word(struct scan *s, const char *p)
{
    while (!is_delimiter(*p) && !s->broken) {
        if (*p == '\\')
            p += p[1] != '\0' ? 2 : 1;
        else if (*p == '\'') {
            const char *close = strchr(p + 1, '\'');
            if (close == NULL)
                s->broken = 1;
            p = close != NULL ? close + 1 : p + strlen(p);
        } else if (*p == '"')
            p = skip_double_quoted(s, p + 1);
        else if (*p == '`')
            p = skip_backquoted(s, p + 1);
        else if (p[0] == '$' && p[1] == '(')
            p = skip_substitution(s, p + 2);
        else if (p[0] == '$' && p[1] == '{')
            p = skip_parameter(s, p + 2);
        else
            p = skip_plain(s, p);
    }
    return p;
}

static void push(struct scan *s, enum closer c)
{
    if (s->depth == SH_LINE_DEPTH_MAX)
        s->broken = 1;
    else
        s->stack[s->depth++] = c;
}

static void pop(struct scan *s, enum closer c)
{
    if (s->depth == 0 || s->stack[s->depth - 1] != c)
        s->broken = 1;
    else
        s->depth--;
}

static int word_is(const char *start, const char *end, const char *word)
{
    return (size_t)(end - start) == strlen(word) && strncmp(start, word, strlen(word)) == 0;
}

/* A case command's body, up to its esac (p after the word "case"): its
 * patterns' ")" close no bracket, so it is read word by word. */
static const char *skip_case(struct scan *s, const char *p)
{
    int open = 1;
    while (*p != '\0' && !s->broken) {
        if (!is_delimiter(*p)) {
            const char *end = skip_word(s, p);
            open += word_is(p, end, "case") - word_is(p, end, "esac");
            p = end;
            if (open == 0)
                return p;
            continue;
        }
        if (p[0] == '&' && p[1] != '&' && p[-1] != '>' && p[-1] != '<')
            s->nested_background = 1;
        p += p[0] == '&' && p[1] == '&' ? 2 : 1;
    }
    s->broken = 1;
    return p;
}

/* A reserved word where a command starts: opens or closes a compound. */
static const char *reserved_word(struct scan *s, const char *start, const char *end)
{
    static const struct {
        const char *word;
        enum { NONE, OPENS, CLOSES } does;
        enum closer closer;
        int then_cmdpos; /* a command starts after it */
    } words[] = {
        {.word = "if", .does = OPENS, .closer = CLOSE_FI, .then_cmdpos = 1},
        {.word = "while", .does = OPENS, .closer = CLOSE_DONE, .then_cmdpos = 1},
        {.word = "until", .does = OPENS, .closer = CLOSE_DONE, .then_cmdpos = 1},
        {.word = "for", .does = OPENS, .closer = CLOSE_DONE, .then_cmdpos = 0},
        {.word = "{", .does = OPENS, .closer = CLOSE_BRACE, .then_cmdpos = 1},
        {.word = "fi", .does = CLOSES, .closer = CLOSE_FI},
        {.word = "done", .does = CLOSES, .closer = CLOSE_DONE},
        {.word = "}", .does = CLOSES, .closer = CLOSE_BRACE},
        {.word = "then", .then_cmdpos = 1},
        {.word = "do", .then_cmdpos = 1},
        {.word = "else", .then_cmdpos = 1},
        {.word = "elif", .then_cmdpos = 1},
        {.word = "!", .then_cmdpos = 1},
    };
    if (word_is(start, end, "case")) {
        s->cmdpos = 0;
        return skip_case(s, end);
    }
    s->manages_jobs |= word_is(start, end, "wait") || word_is(start, end, "jobs") ||
                       word_is(start, end, "fg") || word_is(start, end, "bg");
    s->cmdpos = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (!word_is(start, end, words[i].word))
            continue;
        if (words[i].does == OPENS)
            push(s, words[i].closer);
        else if (words[i].does == CLOSES)
            pop(s, words[i].closer);
        s->cmdpos = words[i].then_cmdpos;
        break;
    }
    return end;
}

static int add_part(struct sh_line *l, const char *start, const char *end, int background)
{
    while (start < end && strchr(" \t\n", *start) != NULL)
        start++;
    while (end > start && strchr(" \t\n", end[-1]) != NULL)
        end--;
    struct sh_line_part *more = realloc(l->parts, (l->count + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    l->parts = more;
    l->parts[l->count].text = strndup(start, (size_t)(end - start));
    if (l->parts[l->count].text == NULL)
        return -1;
    l->parts[l->count++].background = background;
    return 0;
}

/* A `;`, `&` or newline ending a command at p. */
static void separator(struct scan *s, const char *p)
{
    int background = *p == '&';
    if (s->depth > 0 || s->line == NULL) {
        s->nested_background |= background;
        return;
    }
    const char *q = s->part_start;
    while (q < p && strchr(" \t\n", *q) != NULL)
        q++;
    if (q == p && *p != '\n') {
        s->broken = 1; /* "; a", "a & ;": sh's syntax error */
        return;
    }
    s->top_background |= background;
    if (q < p && add_part(s->line, s->part_start, p, background) == -1)
        s->broken = -1;
    s->part_start = p + 1;
}

/* A redirection operator at p ("2>&1" comes here at ">"); returns its end. */
static const char *redirection(const char *p)
{
    if (p[0] == '<')
        return p + 1 + (p[1] == '<' ? 1 + (p[2] == '-') : (p[1] == '&' || p[1] == '>'));
    return p + 1 + (p[1] == '>' || p[1] == '&' || p[1] == '|');
}

/* Reads commands until the end of p, or, in a substitution, its closing
 * ")" (returns the position after it). */
static const char *scan_commands(struct scan *s, const char *p, int in_substitution)
{
    int redirect_target = 0;
    while (*p != '\0' && !s->broken) {
        if (*p == ' ' || *p == '\t') {
            p++;
        } else if (*p == ';' && p[1] == ';') {
            s->broken = 1; /* ";;" outside a case */
        } else if (*p == ';' || *p == '\n' || (*p == '&' && p[1] != '&')) {
            separator(s, p++);
            s->cmdpos = 1;
        } else if (*p == '&' || *p == '|') {
            p += p[1] == p[0] ? 2 : 1; /* && || | */
            s->cmdpos = 1;
        } else if (*p == '(') {
            push(s, CLOSE_PAREN);
            p++;
            s->cmdpos = 1;
        } else if (*p == ')') {
            if (in_substitution && s->depth == 0)
                return p + 1;
            pop(s, CLOSE_PAREN);
            p++;
            s->cmdpos = 0;
        } else if (*p == '<' || *p == '>') {
            p = redirection(p);
            redirect_target = 1;
        } else if (*p == '#') {
            p += strcspn(p, "\n"); /* a comment */
        } else {
            const char *end = skip_word(s, p);
            if (redirect_target)
                redirect_target = 0;
            else if (s->cmdpos)
                end = reserved_word(s, p, end);
            p = end;
        }
    }
    if (in_substitution || s->depth > 0)
        s->broken = s->broken ? s->broken : 1;
    return p;
}

void sh_line_free(struct sh_line *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->parts[i].text);
    free(l->parts);
    l->parts = NULL;
    l->count = 0;
}

int sh_line_split(const char *line, struct sh_line *out)
{
    struct scan s = {.cmdpos = 1, .part_start = line};

    *out = (struct sh_line){0};
    s.line = out;
    const char *end = scan_commands(&s, line, 0);
    if (s.broken == 0 && s.top_background && s.part_start < end) {
        const char *q = s.part_start;
        while (*q != '\0' && strchr(" \t\n", *q) != NULL)
            q++;
        if (*q != '\0' && add_part(out, s.part_start, end, 0) == -1)
            s.broken = -1;
    }
    if (s.broken == -1) {
        sh_line_free(out);
        return -1;
    }
    int nested = s.nested_background && !s.broken && !s.manages_jobs;
    if (s.broken || !s.top_background || s.manages_jobs) {
        sh_line_free(out);
        if (add_part(out, line, line + strlen(line), 0) == -1)
            return -1;
        free(out->parts[0].text); /* the line as given, not trimmed */
        out->parts[0].text = strdup(line);
        if (out->parts[0].text == NULL) {
            sh_line_free(out);
            return -1;
        }
    }
    out->nested_background = nested;
    return 0;
}
