/* SPDX-License-Identifier: MIT */
/* lineedit.c: readline for learners, plain lines for scripts. See
 * lineedit.h. Readline runs through its callback interface so the prompt
 * loop can also relay the output of background jobs and notice Ctrl-C
 * without readline's own signal handling.
 */
#include "session/lineedit.h"
#include "tutor/shell.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define HISTORY_KEEP 1000

static struct lineedit_config config;
static char *const *matches; /* the candidates of the completion under way */
static char *got_line;
static int got_done;
static int history_added;

/* Appends the newest line to the history file at once, so a session that
 * ends by a signal (the terminal closed) keeps its history too. */
static void save_line(void)
{
    if (config.history_path == NULL)
        return;
    int rc = access(config.history_path, F_OK) == 0 ? append_history(1, config.history_path)
                                                    : write_history(config.history_path);
    if (rc == 0 && history_added++ == 0 && config.saved != NULL)
        config.saved(config.context, config.history_path); /* owner, once */
}

static char *next_match(const char *text, int state)
{
    static size_t i;
    (void)text;
    if (state == 0)
        i = 0;
    return matches != NULL && matches[i] != NULL ? strdup(matches[i++]) : NULL;
}

static char **attempt_completion(const char *text, int start, int end)
{
    (void)end;
    char *before = strndup(rl_line_buffer, (size_t)start);
    char **list = before != NULL ? config.complete(config.context, before, text) : NULL;
    free(before);
    if (list == NULL)
        return NULL; /* readline completes file names */
    rl_attempted_completion_over = 1;
    matches = list;
    char **result = rl_completion_matches(text, next_match);
    matches = NULL;
    for (size_t i = 0; list[i] != NULL; i++)
        free(list[i]);
    free(list);
    return result;
}

void lineedit_open(const struct lineedit_config *c)
{
    config = *c;
    if (!config.interactive)
        return;
    rl_readline_name = "pidns-tutor";
    rl_catch_signals = 0; /* Ctrl-C is ours: shell_interrupted */
    rl_catch_sigwinch = 1;
    if (config.complete != NULL)
        rl_attempted_completion_function = attempt_completion;
    using_history();
    stifle_history(HISTORY_KEEP);
    if (config.history_path != NULL)
        read_history(config.history_path);
}

static void on_line(char *line)
{
    got_line = line;
    got_done = 1;
    rl_callback_handler_remove();
}

/* Relays background output without garbling the line being typed. */
static void relay(int fd)
{
    int point = rl_point;
    char *saved = rl_copy_text(0, rl_end);

    rl_save_prompt();
    rl_replace_line("", 0);
    rl_redisplay();
    fputs("\r", rl_outstream);
    fflush(rl_outstream);
    config.ready(config.context, fd);
    rl_restore_prompt();
    rl_replace_line(saved != NULL ? saved : "", 0);
    rl_point = point;
    rl_forced_update_display();
    free(saved);
}

static void cancel_line(void)
{
    shell_interrupted = 0;
    rl_replace_line("", 0);
    rl_point = rl_end = 0;
    fputs("^C\n", rl_outstream);
    rl_on_new_line();
    rl_redisplay();
}

static char *read_interactive(const char *prompt, int cancel_returns)
{
    got_line = NULL;
    got_done = 0;
    if (shell_interrupted && cancel_returns)
        return NULL; /* the step is being stopped: ask nothing more */
    shell_interrupted = 0;
    /* SIGINT is blocked except inside ppoll(), so a Ctrl-C arriving between
     * the check of the flag and the wait still ends the wait. */
    sigset_t block, wait_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &wait_mask);
    sigdelset(&wait_mask, SIGINT);
    rl_callback_handler_install(prompt, on_line);
    while (!got_done) {
        struct pollfd fds[17] = {{STDIN_FILENO, POLLIN, 0}};
        int watched[16];
        size_t n = config.watch != NULL ? config.watch(config.context, watched, 16) : 0;
        for (size_t i = 0; i < n; i++)
            fds[i + 1] = (struct pollfd){watched[i], POLLIN, 0};
        int ready = shell_interrupted ? -1 : ppoll(fds, n + 1, NULL, &wait_mask);
        if (ready == -1 && (errno == EINTR || shell_interrupted)) {
            if (shell_interrupted && cancel_returns) {
                rl_replace_line("", 0);
                fputs("^C\n", rl_outstream);
                break;
            }
            if (shell_interrupted)
                cancel_line();
            continue;
        }
        if (ready == -1)
            break;
        for (size_t i = 1; i <= n; i++)
            if (fds[i].revents != 0)
                relay(fds[i].fd);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
            rl_callback_read_char();
    }
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    if (!got_done) {
        rl_callback_handler_remove();
        return NULL;
    }
    return got_line;
}

/* Reads a line of at most max_line bytes; the rest of a longer one is
 * skipped, and its length reported as max_line + 1 (memory stays bounded). */
static char *read_plain(size_t *len)
{
    size_t cap = config.max_line + 2, used = 0;
    char *buf = malloc(cap);
    int c = EOF;

    if (buf == NULL)
        return NULL;
    while ((c = getchar()) != EOF && c != '\n') {
        if (used < cap - 1)
            buf[used] = (char)c;
        if (used < cap - 1)
            used++;
    }
    if (c == EOF && used == 0) {
        free(buf);
        return NULL;
    }
    if (used > 0 && buf[used - 1] == '\r' && used <= config.max_line)
        used--;
    buf[used] = '\0';
    *len = used;
    return buf;
}

char *lineedit_read(const char *prompt, size_t *len, int history)
{
    if (!config.interactive)
        return read_plain(len);
    char *line = read_interactive(prompt, !history);
    if (line == NULL)
        return NULL;
    *len = strlen(line);
    if (history && *len > 0 && *len <= config.max_line && line[0] != ' ') {
        HIST_ENTRY *last = history_get(history_base + history_length - 1);
        if (last == NULL || strcmp(last->line, line) != 0) {
            add_history(line);
            save_line();
        }
    }
    return line;
}

void lineedit_close(void)
{
    if (!config.interactive)
        return;
    rl_callback_handler_remove();
    if (config.history_path != NULL && history_added > 0)
        history_truncate_file(config.history_path, HISTORY_KEEP);
    clear_history();
    history_added = 0;
}
