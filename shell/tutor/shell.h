/* SPDX-License-Identifier: MIT */
/* shell.h: the state one session of the guided shell shares between its
 * modules (command handlers, the step runner, the line editor), and the one
 * function every shell message goes through.
 */
#ifndef PIDNS_TUTOR_SHELL_H
#define PIDNS_TUTOR_SHELL_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "tutor/progress.h"
#include "render/render.h"

struct lab;
struct lesson;
struct tutor_cursor;

/* What a command handler returns. SHELL_USAGE: the arguments are wrong;
 * dispatch prints the command's usage and makes it SHELL_ERROR. */
enum shell_result { SHELL_OK = 0, SHELL_ERROR = 1, SHELL_EXIT = 2, SHELL_USAGE = 3 };

/* What a line typed at a question (predict, quiz) is: an answer, or a
 * command of the shell that only looks (help, ps: it runs, then the question
 * is asked again), or any other command (the step stops, then it runs as if
 * typed at the prompt). */
enum shell_line { SHELL_LINE_ANSWER, SHELL_LINE_LOOKS, SHELL_LINE_MOVES };

/* Where the shell finds what it needs (see shell_find_dirs). */
struct shell_dirs {
    char lessons[PATH_MAX];     /* lessons/NN-name.adoc */
    char examples[PATH_MAX];    /* built example programs */
    char example_src[PATH_MAX]; /* examples/NAME.c, for `source` */
};

struct shell {
    const char *program;  /* "pidns-tutor", the prefix of error messages */
    struct render render; /* stdout */
    int colour_err;       /* colour on stderr */
    int interactive;      /* stdin (and stdout) are a terminal */
    int auto_mode;        /* --auto: predictions and quizzes answer themselves */
    int presenting;       /* --present: the room guesses, Enter moves on, nothing saved */
    struct shell_dirs dirs;
    struct lab *lab; /* NULL when no lab is open (unit tests, --help) */
    struct lesson *lessons;
    size_t lesson_count;
    struct tutor_cursor *cursor; /* where the learner is (tutor_cursor.h; NULL: no lesson) */
    int erofs_noted;             /* the note on the read-only host was given */
    struct progress progress;
    char history_path[PATH_MAX]; /* the line editor's history ("" for none) */
    char start_dir[PATH_MAX];    /* where relative paths point ("" if unknown) */
    /* Reads a line the learner types in answer to a question (predict,
     * quiz, confirmation); NULL at end of input. Set by the prompt
     * loop (session_run). */
    char *(*ask)(struct shell *sh, const char *prompt);
    /* Set by session_run too, since the command table sits above the tutor: what
     * a line typed at a question is as a command (NULL: always an answer),
     * and running a line as at the prompt (returns a shell_result). */
    enum shell_line (*question_line)(const char *line);
    int (*run_line)(struct shell *sh, const char *line);
};

/* "pidns-tutor: what failed: why" on stderr, one line. */
void shell_error(const struct shell *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A warning: the same shape, "pidns-tutor: warning: ...". */
void shell_warn(const struct shell *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Asks question (ending in "[y/N] ") before command does something that
 * cannot be undone: 1 for y or yes, 0 for anything else. Without a terminal
 * to ask on, says "COMMAND: needs a confirmation; in a script type
 * `COMMAND -y`" and returns -1. */
int shell_confirm(struct shell *sh, const char *command, const char *question);

/* Sets dirs from the running binary's place (/proc/self/exe): next to a
 * build (build/pidns-tutor, build/examples, SRC/lessons, SRC/examples), or
 * as installed (PIDNS_TUTOR_DATADIR, PIDNS_TUTOR_LIBEXECDIR). lessons_dir,
 * when not NULL, replaces the lessons directory (--lessons DIR). */
void shell_find_dirs(struct shell_dirs *dirs, const char *exe, const char *lessons_dir);

/* The names of the built examples (sorted, NULL-terminated, malloc'd; free
 * with shell_free_list). Never NULL. */
char **shell_example_names(const struct shell *sh);
void shell_free_list(char **list);

/* Set by the SIGINT handler while no command of the lab runs: the step
 * runner stops at the next block. */
extern volatile sig_atomic_t shell_interrupted;
void shell_install_signals(void);

#endif
