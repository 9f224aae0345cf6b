/* SPDX-License-Identifier: MIT */
/* render.h: everything the shell prints goes through here.
 *
 * Wrapping to the terminal's width, colour only on a terminal (never with
 * NO_COLOR set or --no-color), highlighting of the values a learner should
 * notice (PIDs, pid:[...] links, /procK mount points). No cursor movement or
 * full-screen redraws: the session reads linearly in scrollback and screen
 * readers. Pure functions (render_wrap, render_highlight) are unit-tested.
 */
#ifndef PIDNS_TUTOR_RENDER_H
#define PIDNS_TUTOR_RENDER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct render {
    FILE *out;
    int width;  /* columns to wrap to */
    int colour; /* 1: emit ANSI colour */
};

enum render_style {
    RENDER_PLAIN,
    RENDER_HEADING, /* lesson and step titles */
    RENDER_COMMAND, /* a command as the learner would type it */
    RENDER_OUTPUT,  /* live output of a command */
    RENDER_NOTE,    /* annotations ("27656 is the child's PID in your namespace ...") */
    RENDER_GOOD,    /* a check passed */
    RENDER_BAD,     /* an error, a failed check */
    RENDER_VALUE,   /* a highlighted value */
};

/* Colour iff out is a terminal, NO_COLOR is unset or empty, and !no_colour.
 * Width from the terminal (TIOCGWINSZ), else $COLUMNS, else 80; at least 20. */
void render_init(struct render *r, FILE *out, int no_colour);

/* Word-wraps text to width columns, each line prefixed by indent spaces;
 * paragraphs (blank lines) and explicit newlines are kept; a word longer than
 * the width is put on its own line unbroken. Returns a malloc'd string. */
char *render_wrap(const char *text, int width, int indent);

/* Returns a malloc'd copy of line with PIDs in known contexts, pid:[N] links
 * and /procN paths wrapped in the escape codes of RENDER_VALUE when colour is
 * on (an unchanged copy when it is off). */
char *render_highlight(const struct render *r, const char *line);

/* Prints text wrapped and styled, followed by a newline. */
void render_text(const struct render *r, enum render_style style, const char *text);
/* printf-style render_text. */
void render_textf(const struct render *r, enum render_style style, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints a table: rows of columns (cells row by row, rows * columns of
 * them), the first line of it indent columns in. Every column but the last
 * is padded to its widest cell, two spaces apart; the last wraps in the
 * room left, its continuation lines under its first (a hanging indent).
 * With less than RENDER_TABLE_MIN columns left for it, each row is its other
 * cells on a line and the last one below them, wrapped, indent + 4 in. The
 * spaces of the table are its own: they survive wrapping and colour. */
#define RENDER_TABLE_MIN 24
void render_table(const struct render *r, enum render_style style, int indent,
                  const char *const *cells, size_t rows, size_t columns);

/* Prints "$ command" (or "# command" when root in the lab) styled as a command. */
void render_command(const struct render *r, const char *prompt, const char *command);
/* Prints a code listing with line numbers starting at first_line. */
void render_code(const struct render *r, const char *code, int first_line);

/* Columns the first n bytes of UTF-8 text take on a terminal (combining
 * marks 0, East Asian wide characters 2, a byte that is not UTF-8 1). */
int render_display_width(const char *s, size_t n);

/* Annotations relating values (malloc'd sentences, NULL if out of memory):
 * "27656 is the child's PID in your namespace; in its own it is 1." */
char *render_note_clone_pid(pid_t pid_in_parent, pid_t pid_in_child);
/* From a process's NSpid as the lab sees it (the lab's first), with the
 * lab's level as the kernel counts (base_level): "sleep has 3 PIDs, one in
 * each namespace from the lab's (level 1) down to its own (level 3): 6 in
 * the lab's, 2 at level 2 and 1 in its own." */
char *render_note_nspid(const char *name, const pid_t *nspid, int count, int base_level);

/* After a signal sent from inside the lab to its PID 1, which has no handler
 * for it (signame without "SIG": "STOP"): why nothing happened. */
char *render_note_init_signal(const char *signame);

#endif
