/* SPDX-License-Identifier: MIT */
/* lineedit.h: the thin line-editing layer. Interactive input goes through
 * GNU readline (history across sessions, tab completion, Ctrl-C cancels the
 * line); input that is not a terminal is read plainly, one line at a time,
 * through the same call, so scripts and learners take one path.
 */
#ifndef PIDNS_TUTOR_LINEEDIT_H
#define PIDNS_TUTOR_LINEEDIT_H

#include <stddef.h>

struct lineedit_config {
    int interactive;          /* 1: readline on the terminal; 0: plain lines from stdin */
    const char *history_path; /* NULL: no history file */
    size_t max_line;          /* longer lines are cut here and reported as max_line + 1 */
    void *context;            /* passed back to the callbacks */
    /* Completion candidates (see command_complete); NULL list = file paths. */
    char **(*complete)(void *context, const char *line_before, const char *text);
    /* Other fds to watch at the prompt (background output), and what to do
     * when one is readable. Either may be NULL. */
    size_t (*watch)(void *context, int *fds, size_t max);
    void (*ready)(void *context, int fd);
    /* Called on the history file after it is written (ownership under sudo). */
    void (*saved)(void *context, const char *path);
};

void lineedit_open(const struct lineedit_config *config);

/* Reads one line (without its newline) into a malloc'd buffer, its length
 * in *len (the line may hold NUL bytes in batch input). NULL at end of
 * input (Ctrl-D). history 1 (the command prompt): non-empty lines go to the
 * history, and Ctrl-C cancels the line and asks again. history 0 (a
 * question within a step): Ctrl-C returns NULL with shell_interrupted set,
 * so the step stops. */
char *lineedit_read(const char *prompt, size_t *len, int history);

/* Saves the history (trimmed to 1000 lines), restores the terminal. */
void lineedit_close(void);

#endif
