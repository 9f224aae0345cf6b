/* SPDX-License-Identifier: MIT */
/* render_wrap.c: the width of text on a terminal (UTF-8, wide and
 * zero-width characters) and word wrapping to a width, with the indentation
 * of each line kept for its continuation lines. Pure; unit-tested in
 * tests/unit/test_render.c.
 */
#include "render/render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes one UTF-8 character at s (at most n bytes): its code point, or
 * -1 for a byte that does not start a valid sequence. *len gets its length. */
static int32_t utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
    static const unsigned char lead_min[] = {0, 0, 0xc2, 0xe0, 0xf0};
    static const int32_t lowest[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t need = s[0] < 0x80 ? 1 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
    *len = 1;
    if (need == 1)
        return s[0];
    if (need == 0 || s[0] < lead_min[need] || n < need)
        return -1;
    int32_t cp = s[0] & (0x7f >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < lowest[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *len = need;
    return cp;
}

/* Columns a code point takes: 0 for combining marks and zero-width
 * characters, 2 for East Asian wide ones and emoji, else 1. A small table
 * rather than wcwidth(), so the result does not depend on the locale. */
static int codepoint_width(int32_t cp)
{
    static const int32_t zero[][2] = {
        {0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200f},
        {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},
    };
    static const int32_t wide[][2] = {
        {0x1100, 0x115f},   {0x2e80, 0x303e},   {0x3041, 0x33ff}, {0x3400, 0x4dbf},
        {0x4e00, 0x9fff},   {0xa000, 0xa4cf},   {0xac00, 0xd7a3}, {0xf900, 0xfaff},
        {0xfe30, 0xfe4f},   {0xff00, 0xff60},   {0xffe0, 0xffe6}, {0x1f300, 0x1f64f},
        {0x1f900, 0x1f9ff}, {0x20000, 0x3fffd},
    };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        if (cp >= zero[i][0] && cp <= zero[i][1])
            return 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (cp >= wide[i][0] && cp <= wide[i][1])
            return 2;
    return 1;
}

int render_display_width(const char *s, size_t n)
{
    int width = 0;
    for (size_t i = 0, len; i < n; i += len) {
        int32_t cp = utf8_decode((const unsigned char *)s + i, n - i, &len);
        width += cp < 0 ? 1 : codepoint_width(cp); /* a stray byte shows as one cell */
    }
    return width;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Leading blanks of a line as columns (tabs to the next multiple of 8). */
static int leading_columns(const char *line, size_t n, size_t *skipped)
{
    int col = 0;
    size_t i = 0;
    for (; i < n && is_blank(line[i]); i++)
        col = line[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    *skipped = i;
    return col;
}

/* Wraps one line (no newline inside) to out. Its own leading blanks are kept
 * as a hanging indent for every piece of it. A line of blanks prints empty. */
static void wrap_line(FILE *out, const char *line, size_t n, int width, int indent)
{
    size_t i;
    int margin = indent + leading_columns(line, n, &i);
    int avail = width - margin > 0 ? width - margin : 1;
    int col = 0;
    while (i < n) {
        size_t start = i;
        while (i < n && !is_blank(line[i]))
            i++;
        int w = render_display_width(line + start, i - start);
        if (col > 0 && col + 1 + w > avail) {
            fputc('\n', out);
            col = 0;
        }
        if (col == 0) {
            fprintf(out, "%*s", margin, "");
        } else {
            fputc(' ', out);
            col++;
        }
        fwrite(line + start, 1, i - start, out);
        col += w;
        while (i < n && is_blank(line[i]))
            i++;
    }
}

char *render_wrap(const char *text, int width, int indent)
{
    char *result = NULL;
    size_t size;
    FILE *out = open_memstream(&result, &size);
    if (out == NULL)
        return NULL;
    if (width < 1)
        width = 1;
    if (indent < 0)
        indent = 0;
    for (const char *line = text;;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
        wrap_line(out, line, n, width, indent);
        if (nl == NULL)
            break;
        fputc('\n', out);
        line = nl + 1;
    }
    if (fclose(out) != 0) {
        free(result);
        return NULL;
    }
    return result;
}
