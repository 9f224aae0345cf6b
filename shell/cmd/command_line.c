/* SPDX-License-Identifier: MIT */
/* command_line.c: a typed line checked and split into words, before any
 * command is looked up: too long, binary input, quotes that do not close.
 * Pure; unit-tested in tests/unit/test_commands.c and fuzzed by
 * tests/fuzz/fuzz_command.c.
 */
#include "cmd/commands.h"

#include <string.h>

/* Length of the UTF-8 sequence starting at s, or 0 when it is not valid. */
static size_t utf8_length(const unsigned char *s, size_t left)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || n > left || s[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

const char *command_line_problem(const char *line, size_t len)
{
    const unsigned char *s = (const unsigned char *)line;

    if (len > COMMAND_LINE_MAX)
        return "the line is too long (more than 4096 bytes)";
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0')
            return "the line contains a NUL byte";
        if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return "the line contains control characters (binary input?)";
        if (s[i] >= 0x80) {
            size_t n = utf8_length(s + i, len - i);
            if (n == 0)
                return "the line is not valid text (invalid UTF-8: binary input?)";
            i += n - 1;
        }
    }
    return NULL;
}

int command_split(const char *line, char *buf, size_t buflen, char **argv, int max,
                  const char **error)
{
    int argc = 0;
    char *out = buf;
    const char *s = line;

    if (strlen(line) + 1 > buflen)
        return *error = "the line is too long", -1;
    for (;;) {
        s += strspn(s, " \t");
        if (*s == '\0')
            break;
        if (argc == max)
            return *error = "too many words", -1;
        argv[argc++] = out;
        while (*s != '\0' && *s != ' ' && *s != '\t') {
            char quote = *s;
            if (quote == '\'' || quote == '"') {
                for (s++; *s != quote; s++) {
                    if (*s == '\0')
                        return *error = "a quote is not closed", -1;
                    if (quote == '"' && *s == '\\' && strchr("\"\\$`", s[1]) && s[1] != '\0')
                        s++;
                    *out++ = *s;
                }
                s++;
            } else if (*s == '\\' && s[1] != '\0') {
                *out++ = s[1];
                s += 2;
            } else {
                *out++ = *s++;
            }
        }
        *out++ = '\0';
    }
    argv[argc] = NULL;
    return argc;
}
