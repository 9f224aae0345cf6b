/* SPDX-License-Identifier: MIT */
/* lesson_match.c: compares what a command printed with what a lesson expects,
 * and a learner's prediction with the lesson's answer.
 *
 * Outputs vary from run to run (PIDs, inode numbers, column widths), so a
 * pattern line may hold {N} (a number) and {*} (any text within the line), a
 * line "..." stands for any number of lines, and blanks are normalized. The
 * matchers are dynamic programs, not backtracking, so that no pattern can make
 * them slow (the lesson parser is fuzzed, and patterns come from files).
 */
#include "lesson/lesson.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A text split into normalized lines: blanks trimmed at both ends, runs of
 * blanks folded to one space, trailing empty lines dropped. */
struct match_lines {
    char **line;
    size_t count;
    char *storage;
};

static int match_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Normalizes in place a line of length n starting at s; returns new length. */
static size_t match_fold_blanks(char *s, size_t n)
{
    size_t out = 0;
    int pending_space = 0;
    for (size_t i = 0; i < n; i++) {
        if (match_is_blank(s[i])) {
            pending_space = out > 0;
            continue;
        }
        if (pending_space)
            s[out++] = ' ';
        pending_space = 0;
        s[out++] = s[i];
    }
    s[out] = '\0';
    return out;
}

static int match_split(const char *text, struct match_lines *ml)
{
    size_t n = strlen(text);
    size_t cap = 1;
    for (size_t i = 0; i < n; i++)
        cap += text[i] == '\n';
    ml->storage = malloc(n + 1);
    ml->line = malloc(cap * sizeof(*ml->line));
    ml->count = 0;
    if (!ml->storage || !ml->line) {
        free(ml->storage);
        free(ml->line);
        return -1;
    }
    memcpy(ml->storage, text, n + 1);
    char *s = ml->storage;
    for (;;) {
        char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        match_fold_blanks(s, len);
        ml->line[ml->count++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
    while (ml->count > 0 && ml->line[ml->count - 1][0] == '\0')
        ml->count--;
    return 0;
}

static void match_free(struct match_lines *ml)
{
    free(ml->storage);
    free(ml->line);
}

enum match_token { MATCH_LITERAL, MATCH_NUMBER, MATCH_ANY };

/* The token at pattern position *i (advanced past it); *c is the literal. */
static enum match_token match_next_token(const char *p, size_t *i, char *c)
{
    if (strncmp(p + *i, "{N}", 3) == 0) {
        *i += 3;
        return MATCH_NUMBER;
    }
    if (strncmp(p + *i, "{*}", 3) == 0) {
        *i += 3;
        return MATCH_ANY;
    }
    *c = p[(*i)++];
    return MATCH_LITERAL;
}

/* One normalized pattern line against one normalized output line.
 * reach[j] = the pattern read so far can consume exactly s[0..j). */
static int match_line(const char *p, const char *s)
{
    if (strchr(p, '{') == NULL) /* no {N} or {*}: most lines; no allocation */
        return strcmp(p, s) == 0;
    size_t n = strlen(s);
    unsigned char *reach = calloc(n + 1, 1);
    unsigned char *next = calloc(n + 1, 1);
    int ok = 0;
    if (!reach || !next)
        goto out;
    reach[0] = 1;
    size_t i = 0;
    while (p[i]) {
        char c = 0;
        enum match_token t = match_next_token(p, &i, &c);
        memset(next, 0, n + 1);
        for (size_t j = 0; j <= n; j++) {
            if (!reach[j])
                continue;
            if (t == MATCH_LITERAL) {
                if (j < n && s[j] == c)
                    next[j + 1] = 1;
            } else if (t == MATCH_ANY) {
                for (size_t k = j; k <= n && !next[k]; k++)
                    next[k] = 1;
            } else {
                /* Stop where an earlier j already marked the rest of this
                 * run of digits: each {N} costs O(n), not O(n^2). */
                for (size_t k = j; k < n && isdigit((unsigned char)s[k]) && !next[k + 1]; k++)
                    next[k + 1] = 1;
            }
        }
        unsigned char *swap = reach;
        reach = next;
        next = swap;
    }
    ok = reach[n];
out:
    free(reach);
    free(next);
    return ok;
}

static int match_is_ellipsis(const char *line)
{
    return strcmp(line, "...") == 0;
}

/* Ordered match of all lines; ok[j] = pattern so far consumes out[0..j).
 * With prefix, a match of all output lines by the first lines of the
 * pattern is enough: more output may still complete it. */
static int match_ordered(const struct match_lines *pat, const struct match_lines *out, int prefix)
{
    size_t n = out->count;
    unsigned char *reach = calloc(n + 1, 1);
    unsigned char *next = calloc(n + 1, 1);
    int ok = 0;
    if (!reach || !next)
        goto done;
    reach[0] = 1;
    for (size_t i = 0; i < pat->count && !(prefix && reach[n]); i++) {
        const char *p = pat->line[i];
        memset(next, 0, n + 1);
        for (size_t j = 0; j <= n; j++) {
            if (!reach[j])
                continue;
            if (match_is_ellipsis(p)) {
                for (size_t k = j; k <= n; k++)
                    next[k] = 1;
                break;
            }
            if (j < n && match_line(p, out->line[j]))
                next[j + 1] = 1;
        }
        unsigned char *swap = reach;
        reach = next;
        next = swap;
    }
    ok = reach[n];
done:
    free(reach);
    free(next);
    return ok;
}

int lesson_output_matches(const char *pattern, const char *output)
{
    struct match_lines pat, out;
    if (!pattern || !output || match_split(pattern, &pat) == -1)
        return 0;
    if (match_split(output, &out) == -1) {
        match_free(&pat);
        return 0;
    }
    int ok = match_ordered(&pat, &out, 0);
    match_free(&pat);
    match_free(&out);
    return ok;
}

/* Kuhn's augmenting path: can pattern line i take an output line? A free
 * line that matches is taken first, without a search: otherwise lines that
 * match many others (a {*}) chain one recursion per line already taken. */
static int match_augment(size_t i, const struct match_lines *pat, const struct match_lines *out,
                         long *owner, unsigned char *seen)
{
    for (size_t j = 0; j < out->count; j++)
        if (owner[j] < 0 && !seen[j] && match_line(pat->line[i], out->line[j])) {
            seen[j] = 1;
            owner[j] = (long)i;
            return 1;
        }
    for (size_t j = 0; j < out->count; j++) {
        if (seen[j] || !match_line(pat->line[i], out->line[j]))
            continue;
        seen[j] = 1;
        if (owner[j] < 0 || match_augment((size_t)owner[j], pat, out, owner, seen)) {
            owner[j] = (long)i;
            return 1;
        }
    }
    return 0;
}

static int match_unordered(const struct match_lines *pat, const struct match_lines *out)
{
    long *owner = malloc((out->count + 1) * sizeof(*owner));
    unsigned char *seen = malloc(out->count + 1);
    size_t wanted = 0, matched = 0;
    int extra_allowed = 0, ok = 0;
    if (!owner || !seen)
        goto done;
    for (size_t j = 0; j < out->count; j++)
        owner[j] = -1;
    for (size_t i = 0; i < pat->count; i++) {
        if (match_is_ellipsis(pat->line[i])) {
            extra_allowed = 1;
            continue;
        }
        wanted++;
        memset(seen, 0, out->count + 1);
        if (!match_augment(i, pat, out, owner, seen))
            goto done;
        matched++;
    }
    ok = matched == wanted && (extra_allowed || matched == out->count);
done:
    free(owner);
    free(seen);
    return ok;
}

int lesson_block_output_matches(const struct lesson_block *expect, const char *output)
{
    if (!expect || !expect->unordered)
        return lesson_output_matches(expect ? expect->text : NULL, output);
    struct match_lines pat, out;
    if (!expect->text || !output || match_split(expect->text, &pat) == -1)
        return 0;
    if (match_split(output, &out) == -1) {
        match_free(&pat);
        return 0;
    }
    int ok = match_unordered(&pat, &out);
    match_free(&pat);
    match_free(&out);
    return ok;
}

/* Could more lines make the output match an unordered pattern? Not when
 * it has more lines than the pattern wants, or a line no pattern line
 * takes (a cheap test that errs on the side of "could"). */
static int match_unordered_may(const struct match_lines *pat, const struct match_lines *out)
{
    size_t wanted = 0;
    for (size_t i = 0; i < pat->count; i++) {
        if (match_is_ellipsis(pat->line[i]))
            return 1;
        wanted++;
    }
    if (out->count > wanted)
        return 0;
    for (size_t j = 0; j < out->count; j++) {
        size_t i = 0;
        while (i < pat->count && !match_line(pat->line[i], out->line[j]))
            i++;
        if (i == pat->count)
            return 0;
    }
    return 1;
}

int lesson_block_output_progress(const struct lesson_block *expect, const char *output)
{
    if (!expect || !expect->text || !output)
        return -1;
    if (lesson_block_output_matches(expect, output))
        return 1;
    /* Only whole lines count: the last one may not be all there yet. */
    const char *end = strrchr(output, '\n');
    char *whole = strndup(output, end != NULL ? (size_t)(end - output) + 1 : 0);
    struct match_lines pat, out;
    if (whole == NULL || match_split(expect->text, &pat) == -1) {
        free(whole);
        return -1;
    }
    int may = -1;
    if (match_split(whole, &out) == 0) {
        may = (expect->unordered ? match_unordered_may(&pat, &out) : match_ordered(&pat, &out, 1))
                  ? 0
                  : -1;
        match_free(&out);
    }
    match_free(&pat);
    free(whole);
    return may;
}

/* Lower case, trimmed, blanks folded: a malloc'd copy. */
static char *match_normalize_answer(const char *s)
{
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        copy[i] = (char)tolower((unsigned char)s[i]);
    for (size_t i = 0; i < n; i++)
        if (copy[i] == '\n')
            copy[i] = ' ';
    match_fold_blanks(copy, n);
    return copy;
}

int lesson_answer_matches(const char *expected, const char *given)
{
    if (!expected || !given)
        return 0;
    char *a = match_normalize_answer(expected);
    char *b = match_normalize_answer(given);
    int ok = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return ok;
}

/* How a normalized answer meets a choice's text: 2 the whole text, 1 a
 * prefix of it, 3 inside it from the start of a word (as "its pid" is in
 * "1, its PID"), 0 none of these. The text is normalized here, backticks
 * dropped (a learner types `rmdir` as rmdir). */
static int match_choice_text(const char *text, const char *answer)
{
    char *t = match_normalize_answer(text);
    int how = 0;
    if (t != NULL) {
        size_t out = 0;
        for (size_t i = 0; t[i] != '\0'; i++)
            if (t[i] != '`')
                t[out++] = t[i];
        t[out] = '\0';
        size_t n = strlen(answer);
        how = strncmp(t, answer, n) != 0 ? 0 : t[n] == '\0' ? 2 : 1;
        for (const char *at = t; how == 0 && (at = strstr(at + 1, answer)) != NULL;)
            if (!isalnum((unsigned char)at[-1]))
                how = 3;
    }
    free(t);
    return how;
}

int lesson_quiz_choice(const struct lesson_block *quiz, const char *given)
{
    char *answer = given != NULL ? match_normalize_answer(given) : NULL;
    int found = 0, prefixes = 0, whole = 0;

    if (answer == NULL || answer[0] == '\0') {
        free(answer);
        return 0;
    }
    char *end;
    long n = strtol(answer, &end, 10);
    if (*end == '\0' && n >= 1 && (size_t)n <= quiz->choice_count) {
        free(answer);
        return (int)n;
    }
    int inside = 0; /* choices holding the answer further in: it may mean one of them */
    for (size_t i = 0; i < quiz->choice_count && whole == 0; i++) {
        int how = match_choice_text(quiz->choices[i].text, answer);
        if (how == 2)
            whole = (int)i + 1;
        else if (how == 1 && prefixes++ == 0)
            found = (int)i + 1;
        inside += how == 3;
    }
    /* A prefix picks a choice when no other choice holds the answer too;
     * words found inside one choice only pick it when they are several (so
     * that a command typed at the question, "help", never picks one). */
    int words = strchr(answer, ' ') != NULL;
    if (whole == 0 && prefixes == 0 && inside == 1 && words)
        for (size_t i = 0; i < quiz->choice_count && found == 0; i++)
            if (match_choice_text(quiz->choices[i].text, answer) == 3)
                found = (int)i + 1;
    free(answer);
    return whole > 0 ? whole : prefixes > 1 || (prefixes == 1 && inside > 0) ? -1 : found;
}
