/* SPDX-License-Identifier: MIT */
/* commands.h: the one table of shell commands. Dispatch, `help`,
 * `help COMMAND`, tab completion and the commands page of the docs all read
 * it, so they can never disagree.
 */
#ifndef PIDNS_TUTOR_COMMANDS_H
#define PIDNS_TUTOR_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "tutor/shell.h"

/* Longest line the shell accepts; longer ones are refused politely. */
#define COMMAND_LINE_MAX 4096
#define COMMAND_ARGS_MAX 64

typedef int (*command_handler)(struct shell *sh, int argc, char **argv);
/* Candidates for argument number argi (1 = first) that start with text:
 * a NULL-terminated malloc'd list, or NULL to complete file paths. */
typedef char **(*command_completer)(struct shell *sh, const char *text, int argi);

/* Checks a command's arguments before its needs are (so that `ns abc` is a
 * usage error with or without a lab): SHELL_OK, SHELL_USAGE, or SHELL_ERROR
 * after saying why. */
typedef int (*command_check)(struct shell *sh, int argc, char **argv);

enum command_flags {
    COMMAND_RAW = 1 << 0,          /* argv[1] is the rest of the line, unsplit (sh) */
    COMMAND_NEEDS_LAB = 1 << 1,    /* refused, saying so, when no lab is open */
    COMMAND_NEEDS_LESSON = 1 << 2, /* refused, saying so, before a lesson is started */
    COMMAND_LOOKS = 1 << 3,        /* changes neither the lab nor the step: typed at a
                                      question, it runs and the question is asked again */
};

struct command {
    const char *name;
    const char *synopsis; /* "lesson N|NAME" */
    const char *summary;  /* one line for `help` */
    const char *help;     /* a paragraph for `help COMMAND` */
    command_handler handler;
    command_check check_args; /* NULL: the counts below are all there is to check */
    command_completer completer;
    int min_args, max_args; /* argument counts (argc - 1) accepted */
    int flags;
};

/* The table, and its length. */
extern const struct command command_table[];
extern const size_t command_count;

/* The command named name (exactly, or a unique prefix of at least two
 * letters), or NULL. */
const struct command *command_find(const char *name);
/* The real command closest to a mistyped name (edit distance), or NULL
 * when none is close. */
const struct command *command_closest(const char *name);
/* Says that name is not a command, with what was likely meant: line, the
 * whole line typed (NULL when only a name is known), gets `run LINE` for an
 * example or `sh LINE` for a program of the lab's PATH typed alone; anything
 * else the closest command. Returns SHELL_ERROR. */
int command_unknown(const struct shell *sh, const char *name, const char *line);

/* Refuses what is not a command line a person types: longer than
 * COMMAND_LINE_MAX, a NUL byte, control characters, invalid UTF-8.
 * Returns NULL if acceptable, else a static description of the problem. */
const char *command_line_problem(const char *line, size_t len);

/* Splits a line into words like a POSIX shell would for simple words:
 * blanks separate, '...' and "..." quote, backslash escapes. Words point
 * into buf (a modified copy of line). Returns argc, or -1 with a static
 * message in *error (unterminated quote, too many words). */
int command_split(const char *line, char *buf, size_t buflen, char **argv, int max,
                  const char **error);

/* Runs one line: empty -> `next` (in a lesson), else dispatch. Prints the
 * error lines itself. Returns SHELL_OK, SHELL_ERROR or SHELL_EXIT. */
int command_execute(struct shell *sh, const char *line, size_t len);

/* What a line typed at a question is: SHELL_LINE_ANSWER unless its first
 * word is the whole name of a command (no prefix: "he" may be a guess) with
 * an argument count the command takes; then SHELL_LINE_LOOKS for a command
 * flagged COMMAND_LOOKS, else SHELL_LINE_MOVES. Whether the line is also a
 * plausible answer is the question's business. */
enum shell_line command_question_line(const char *line);

/* Prints "usage: SYNOPSIS" for a command (bad arguments). Returns SHELL_ERROR. */
int command_usage(const struct shell *sh, const struct command *cmd);

/* Tab completion: the candidates for the word being typed, given the line
 * before it (words already typed). NULL-terminated malloc'd list, or NULL
 * when file paths should be completed. */
char **command_complete(struct shell *sh, const char *line_before, const char *text);

/* Writes the commands page of the docs (AsciiDoc) from the table. */
void command_write_adoc(FILE *out);

#endif
