/* SPDX-License-Identifier: MIT */
/* tee.c: live, highlighted, captured output of the commands run in the lab.
 * See tee.h.
 */
#include "render/tee.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEE_CAPTURE_MAX (1u << 20)
#define TEE_LINE_MAX 8192
#define TEE_RELAYS_MAX 64

struct tee {
    pid_t pid;
    int data_w;    /* the command writes here */
    int control_w; /* the shell asks for the copy: one byte, or closing it */
    int capture_r; /* the relay sends the copy back */
};

/* The relay's own state (in the relay process only). */
struct relay {
    const struct render *render;
    char *capture;
    size_t capture_len;
    char line[TEE_LINE_MAX + 1];
    size_t line_len;
    int at_line_start; /* what was shown last ended a line (or nothing was) */
    const char *note;  /* to show once when due; NULL when none is left */
    int mark_later;    /* PIDNS_TUTOR_MARK_JOBS: lines after the shell stopped
                          waiting start with TEE_LATER_MARK */
    int later;         /* the shell has stopped waiting (a job goes on) */
    int note_due;
    struct timespec note_at;
};

static pid_t relays[TEE_RELAYS_MAX]; /* started, not yet reaped */

/* Shows one piece of a line (a whole line, or what there is when output
 * pauses mid-line) highlighted, after mark ("" for none). Mark and line go
 * in one write(): the shell writes to the same file, and between two writes
 * its own line could come ("[job] # command" then the job's line unmarked). */
static void show(const struct render *r, const char *mark, const char *text, size_t len)
{
    char *copy = strndup(text, len);
    char *lit = copy != NULL ? render_highlight(r, copy) : NULL;
    const char *body = lit != NULL ? lit : text;
    size_t mark_len = strlen(mark), body_len = lit != NULL ? strlen(lit) : len;
    char *whole = malloc(mark_len + body_len);

    if (whole != NULL) {
        memcpy(whole, mark, mark_len);
        memcpy(whole + mark_len, body, body_len);
        io_write_all(STDOUT_FILENO, whole, mark_len + body_len);
    } else {
        io_write_all(STDOUT_FILENO, mark, mark_len);
        io_write_all(STDOUT_FILENO, body, body_len);
    }
    free(whole);
    free(lit);
    free(copy);
}

/* The note, styled as the shell's notes, on a line of its own. */
static void show_note(struct relay *t)
{
    char *text = NULL;
    size_t len = 0;
    struct render copy = *t->render;

    copy.out = open_memstream(&text, &len);
    if (copy.out != NULL) {
        render_text(&copy, RENDER_NOTE, t->note);
        fclose(copy.out);
        io_write_all(STDOUT_FILENO, text, len);
    }
    free(text);
    t->note = NULL;
    t->note_due = 0;
}

static void show_line(struct relay *t, size_t len)
{
    show(t->render, t->later && t->mark_later && t->at_line_start ? TEE_LATER_MARK : "", t->line,
         len);
    t->at_line_start = t->line[len - 1] == '\n';
    if (t->note_due && t->at_line_start)
        show_note(t);
}

static void take(struct relay *t, const char *data, size_t len)
{
    size_t keep = t->capture_len + len > TEE_CAPTURE_MAX ? TEE_CAPTURE_MAX - t->capture_len : len;
    char *more = realloc(t->capture, t->capture_len + keep + 1);
    if (more != NULL) {
        t->capture = more;
        memcpy(t->capture + t->capture_len, data, keep);
        t->capture_len += keep;
        t->capture[t->capture_len] = '\0';
    }
    for (size_t i = 0; i < len; i++) {
        t->line[t->line_len++] = data[i];
        if (data[i] == '\n' || t->line_len == TEE_LINE_MAX) {
            show_line(t, t->line_len);
            t->line_len = 0;
        }
    }
}

static void flush_partial(struct relay *t)
{
    if (t->line_len > 0)
        show_line(t, t->line_len);
    t->line_len = 0;
}

/* How long poll may sleep: a partial line is shown after 50 ms of quiet; a
 * note waits for its time. */
static int poll_timeout_ms(const struct relay *t)
{
    int ms = t->line_len > 0 ? 50 : -1;
    if (t->note != NULL && !t->note_due) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = (t->note_at.tv_sec - now.tv_sec) * 1000L +
                    (t->note_at.tv_nsec - now.tv_nsec) / 1000000L + 1;
        left = left < 0 ? 0 : left;
        if (ms == -1 || left < ms)
            ms = (int)left;
    }
    return ms;
}

/* The note's time has come: now if no line is half shown, else after it. */
static void note_time(struct relay *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (t->note == NULL || t->note_due || now.tv_sec < t->note_at.tv_sec ||
        (now.tv_sec == t->note_at.tv_sec && now.tv_nsec < t->note_at.tv_nsec))
        return;
    t->note_due = 1;
    if (t->line_len == 0 && t->at_line_start)
        show_note(t);
}

/* Reads what data has now; returns 0 at end of file. */
static int drain(struct relay *t, int data)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(data, buf, sizeof buf);
        if (n > 0) {
            take(t, buf, (size_t)n);
            continue;
        }
        if (n == -1 && errno == EINTR)
            continue;
        return n == 0 ? 0 : 1; /* EAGAIN: the writer is still there */
    }
}

/* The relay: copy until end of file; when asked, send the copy back. A note
 * is shown only while the shell waits for the command (before it asks). */
static void relay_main(const struct render *r, int data, int control, int capture, const char *note,
                       int note_after_ms)
{
    struct relay t = {.render = r,
                      .at_line_start = 1,
                      .note = note,
                      .mark_later = getenv("PIDNS_TUTOR_MARK_JOBS") != NULL};
    int open_data = 1;

    clock_gettime(CLOCK_MONOTONIC, &t.note_at);
    t.note_at.tv_sec += note_after_ms / 1000;
    t.note_at.tv_nsec += (note_after_ms % 1000) * 1000000L;
    if (t.note_at.tv_nsec >= 1000000000L) {
        t.note_at.tv_sec++;
        t.note_at.tv_nsec -= 1000000000L;
    }
    fcntl(data, F_SETFL, O_NONBLOCK);
    while (open_data || control != -1) {
        struct pollfd fds[2] = {{open_data ? data : -1, POLLIN, 0}, {control, POLLIN, 0}};
        int ready = poll(fds, 2, poll_timeout_ms(&t));
        if (ready == 0 && t.line_len > 0)
            flush_partial(&t);
        if (open_data && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            open_data = drain(&t, data);
        if (!open_data || (control != -1 && fds[1].revents != 0))
            t.note = NULL; /* the command has ended, or the shell stopped waiting */
        note_time(&t);
        if (control != -1 && fds[1].revents != 0) {
            if (open_data)
                open_data = drain(&t, data);
            flush_partial(&t);
            io_write_all(capture, t.capture != NULL ? t.capture : "", t.capture_len);
            close(capture);
            close(control);
            control = -1;
            t.later = 1;
        }
    }
    flush_partial(&t);
    _exit(0);
}

/* A free slot for a relay, or -1: every relay must be known, to be reaped. */
static int free_slot(void)
{
    tee_reap(0);
    for (int i = 0; i < TEE_RELAYS_MAX; i++)
        if (relays[i] == 0)
            return i;
    return -1;
}

struct tee *tee_start(const struct render *r)
{
    return tee_start_with_note(r, NULL, 0);
}

struct tee *tee_start_with_note(const struct render *r, const char *note, int after_ms)
{
    int data[2], control[2], capture[2];
    int slot = free_slot();
    struct tee *t = slot >= 0 ? calloc(1, sizeof *t) : NULL;

    if (t == NULL)
        return NULL;
    if (pipe2(data, O_CLOEXEC) == -1) {
        free(t);
        return NULL;
    }
    if (pipe2(control, O_CLOEXEC) == -1) {
        close(data[0]);
        close(data[1]);
        free(t);
        return NULL;
    }
    if (pipe2(capture, O_CLOEXEC) == -1) {
        close(data[0]);
        close(data[1]);
        close(control[0]);
        close(control[1]);
        free(t);
        return NULL;
    }
    fflush(NULL);
    t->pid = fork();
    if (t->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_NAME, "tutor-output");
        signal(SIGINT, SIG_IGN); /* Ctrl-C is for the command, not for its output */
        signal(SIGPIPE, SIG_DFL);
        int keep[] = {0, 1, 2, data[0], control[0], capture[1]};
        io_close_fds_except(keep, sizeof keep / sizeof keep[0]);
        free(t); /* the shell's handle: the relay has its own state */
        relay_main(r, data[0], control[0], capture[1], note, after_ms);
    }
    close(data[0]);
    close(control[0]);
    close(capture[1]);
    t->data_w = data[1];
    t->control_w = control[1];
    t->capture_r = capture[0];
    if (t->pid == -1) {
        close(t->data_w);
        close(t->control_w);
        close(t->capture_r);
        free(t);
        return NULL;
    }
    relays[slot] = t->pid;
    return t;
}

int tee_fd(const struct tee *t)
{
    return t->data_w;
}

/* Waits up to ms for one relay to end, and forgets it. The relay is
 * usually a few microseconds from its exit when this is called: the pauses
 * start at 50 us and double up to 5 ms (a fixed 5 ms pause cost every
 * guided step about that much). */
static void reap_one(pid_t pid, int ms)
{
    long pause_us = 50, waited_us = 0;
    for (;;) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r == -1 && errno != EINTR)) {
            for (size_t i = 0; i < TEE_RELAYS_MAX; i++)
                if (relays[i] == pid)
                    relays[i] = 0;
            return;
        }
        if (waited_us > ms * 1000L)
            return;
        nanosleep(&(struct timespec){0, pause_us * 1000}, NULL);
        waited_us += pause_us;
        pause_us = pause_us < 5000 ? pause_us * 2 : 5000;
    }
}

char *tee_finish(struct tee *t, int ended)
{
    char *text = NULL, buf[8192];
    size_t len = 0;
    ssize_t n;

    close(t->data_w);
    io_write_all(t->control_w, "c", 1);
    close(t->control_w);
    while ((n = read(t->capture_r, buf, sizeof buf)) != 0) {
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1)
            break;
        char *more = realloc(text, len + (size_t)n + 1);
        if (more == NULL)
            break;
        text = more;
        memcpy(text + len, buf, (size_t)n);
        len += (size_t)n;
    }
    close(t->capture_r);
    if (ended)
        reap_one(t->pid, 200);
    free(t);
    if (text == NULL)
        return strdup("");
    text[len] = '\0';
    return text;
}

int tee_reap(int wait_ms)
{
    struct timespec pause = {0, 20 * 1000000L};
    for (int waited = 0;; waited += 20) {
        int left = 0;
        for (size_t i = 0; i < TEE_RELAYS_MAX; i++) {
            if (relays[i] == 0)
                continue;
            pid_t r = waitpid(relays[i], NULL, WNOHANG);
            if (r == relays[i] || (r == -1 && errno == ECHILD))
                relays[i] = 0;
            else
                left++;
        }
        if (left == 0 || waited >= wait_ms)
            return left;
        nanosleep(&pause, NULL);
    }
}

void tee_stop_all(void)
{
    for (size_t i = 0; i < TEE_RELAYS_MAX; i++) {
        if (relays[i] == 0)
            continue;
        kill(relays[i], SIGKILL);
        while (waitpid(relays[i], NULL, 0) == -1 && errno == EINTR)
            ;
        relays[i] = 0;
    }
}
