/* SPDX-License-Identifier: MIT */
/* lab_run.c: running command lines in the lab (lab_run, lab_capture,
 * lab_start) through a runner process.
 *
 * Each command gets a runner: a child of the shell (so in the lab's PID
 * namespace) that joins the keeper's mount namespace, becomes a child
 * subreaper and starts `/bin/sh -c COMMAND`. Being a subreaper, it inherits
 * every orphan the command leaves, so when the command ends, or Ctrl-C stops
 * it, the runner can kill all that remains: the inits of nested PID
 * namespaces ignore SIGINT, but not SIGKILL from an ancestor namespace.
 *
 * The runner and the command form their own process group. On a terminal
 * that group is put in the foreground, so Ctrl-C reaches them and not the
 * shell; without a terminal the shell forwards a SIGINT it receives. The
 * runner gives the command a moment to handle SIGINT itself (our examples
 * stop their child inits and say so), then kills what is left.
 */
#include "lab/lab_internal.h"
#include "procfs/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* --- the shell's side ------------------------------------------------- */

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
    (void)sig;
    got_sigint = 1;
}

/* While a command runs, SIGINT to the shell is caught and forwarded, never
 * fatal; SIGTTOU is blocked so that the shell can take the terminal back. */
struct sigint_guard {
    struct sigaction old_action;
    sigset_t old_mask, wait_mask;
};

static void guard_begin(struct sigint_guard *g)
{
    struct sigaction sa = {.sa_handler = on_sigint};
    sigset_t block;

    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTTOU);
    sigprocmask(SIG_BLOCK, &block, &g->old_mask);
    g->wait_mask = g->old_mask;
    sigdelset(&g->wait_mask, SIGINT);
    sigaddset(&g->wait_mask, SIGTTOU);
    got_sigint = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g->old_action);
}

static void guard_end(struct sigint_guard *g)
{
    sigprocmask(SIG_SETMASK, &g->old_mask, NULL); /* a pending SIGINT lands in on_sigint */
    sigaction(SIGINT, &g->old_action, NULL);
}

struct runner_handle {
    pid_t pid;
    int status_fd;
    pid_t command_lab_pid;
    int error; /* from an 'E' message */
};

static int spawn_runner(struct lab *lab, const struct lab_runner_spec *spec,
                        struct runner_handle *h)
{
    int status[2], go[2];

    if (lab->keeper <= 0)
        return lab_set_error(lab, "the lab is closed");
    if (pipe2(status, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    if (pipe2(go, O_CLOEXEC) == -1) {
        close(status[0]);
        close(status[1]);
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {0,
                      1,
                      2,
                      status[1],
                      go[0],
                      lab->keeper_mnt_fd,
                      lab->lab_proc_fd,
                      spec->out_fd,
                      spec->err_fd,
                      spec->pump_to_fd};
        io_close_fds_except(keep, sizeof keep / sizeof keep[0]);
        lab_runner_main(lab, spec, status[1], go[0]);
    }
    int saved = errno;
    close(status[1]);
    close(go[0]);
    if (pid == -1) {
        close(status[0]);
        close(go[1]);
        errno = saved;
        if (errno == ENOMEM && kill(lab->keeper, 0) == -1)
            return lab_set_error(lab, "the lab has ended (its init was killed): open a new one");
        return lab_set_error(lab, "starting a command in the lab (fork): %s", strerror(errno));
    }
    setpgid(pid, pid); /* both sides do it: no race on who runs first */
    *h = (struct runner_handle){pid, status[0], 0, 0};
    if (spec->use_tty)
        tcsetpgrp(0, pid);
    io_write_all(go[1], "g", 1); /* fails if the runner died already: its status says why */
    close(go[1]);
    return 0;
}

static void read_message(struct runner_handle *h, int *settled)
{
    struct lab_runner_message m;
    ssize_t n = read(h->status_fd, &m, sizeof m);
    if (n == (ssize_t)sizeof m) {
        if (m.kind == 'P')
            h->command_lab_pid = m.value;
        else if (m.kind == 'S')
            *settled = 1;
        else if (m.kind == 'E')
            h->error = m.value;
    } else if (n == 0 || (n == -1 && errno != EINTR)) {
        close(h->status_fd);
        h->status_fd = -1;
    }
}

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = (*len + n + 1) * 2;
        char *bigger = realloc(*buf, want);
        if (bigger == NULL)
            return -1;
        *buf = bigger;
        *cap = want;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

struct capture {
    int fd; /* -1 when not capturing */
    char *text;
    size_t len, cap;
};

/* What wait_runner() waits for. */
enum wait_until {
    WAIT_END,               /* the runner's end; a SIGINT to the shell goes on to the command */
    WAIT_SETTLED,           /* the same, or the command settled (lab_start) */
    WAIT_SETTLED_OR_SIGINT, /* the same, but a SIGINT ends the wait and does not
                               reach the command (lab_start_background) */
};

/* Waits until the runner ends (returns 0, exit code in *code) or, as until
 * says, until the command settled (returns 1). Output to capture is
 * collected. */
static int wait_runner(struct lab *lab, struct runner_handle *h, const struct sigint_guard *g,
                       struct capture *cap, enum wait_until until, int *code)
{
    int settled = 0, stop = 0;
    while (h->status_fd != -1 || cap->fd != -1) {
        struct pollfd fds[2] = {{h->status_fd, POLLIN, 0}, {cap->fd, POLLIN, 0}};
        if (ppoll(fds, 2, NULL, &g->wait_mask) == -1) {
            if (errno != EINTR)
                return lab_set_error(lab, "poll: %s", strerror(errno));
            if (got_sigint && until == WAIT_SETTLED_OR_SIGINT)
                stop = 1;
            else if (got_sigint)
                kill(-h->pid, SIGINT);
            got_sigint = 0;
        } else if (fds[0].revents != 0) {
            read_message(h, &settled);
        }
        /* A job is known by its command's PID: the runner sends it first. */
        if ((settled && until != WAIT_END) || (stop && h->command_lab_pid != 0))
            return 1;
        if (fds[1].revents == 0)
            continue;
        char buf[8192];
        ssize_t n = read(cap->fd, buf, sizeof buf);
        if (n > 0 && append(&cap->text, &cap->len, &cap->cap, buf, (size_t)n) == -1)
            return lab_set_error(lab, "out of memory");
        if (n == 0 || (n == -1 && errno != EINTR)) {
            close(cap->fd);
            cap->fd = -1;
        }
    }
    int status;
    while (waitpid(h->pid, &status, 0) == -1)
        if (errno != EINTR)
            return lab_set_error(lab, "waitpid: %s", strerror(errno));
    if (h->error != 0)
        return lab_set_error(lab, "the lab could not start the command: %s", strerror(h->error));
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

int lab_run(struct lab *lab, const char *command_line, int out_fd, int err_fd)
{
    struct lab_runner_spec spec = {command_line, 0, out_fd, err_fd, -1, 0, NULL};
    struct sigint_guard guard;
    struct runner_handle h;
    struct capture none = {.fd = -1};
    struct termios modes;
    int code = -1;

    /* Only a shell in the terminal's foreground may hand the terminal on. */
    spec.use_tty = isatty(0) && tcgetpgrp(0) == getpgrp() && tcgetattr(0, &modes) == 0;
    guard_begin(&guard);
    if (spawn_runner(lab, &spec, &h) == 0) {
        if (wait_runner(lab, &h, &guard, &none, WAIT_END, &code) == -1)
            code = -1;
        if (h.status_fd != -1)
            close(h.status_fd);
    }
    if (spec.use_tty) {
        tcsetpgrp(0, getpgrp()); /* SIGTTOU is blocked by the guard */
        tcsetattr(0, TCSADRAIN, &modes);
    }
    guard_end(&guard);
    return code;
}

int lab_capture(struct lab *lab, const char *command_line, char **output)
{
    int pipefd[2];
    struct sigint_guard guard;
    struct runner_handle h;
    struct capture cap = {.fd = -1};
    int code = -1;

    *output = NULL;
    if (pipe2(pipefd, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    struct lab_runner_spec spec = {command_line, 0, pipefd[1], pipefd[1], -1, 1, NULL};
    guard_begin(&guard);
    int started = spawn_runner(lab, &spec, &h) == 0;
    close(pipefd[1]);
    cap.fd = pipefd[0];
    if (started) {
        if (wait_runner(lab, &h, &guard, &cap, WAIT_END, &code) == -1)
            code = -1;
        if (h.status_fd != -1)
            close(h.status_fd);
    }
    guard_end(&guard);
    if (cap.fd != -1)
        close(cap.fd);
    if (code != -1 && cap.text == NULL)
        cap.text = strdup("");
    if (code == -1 || cap.text == NULL) {
        free(cap.text);
        return -1;
    }
    *output = cap.text;
    return code;
}

static int add_job(struct lab *lab, const char *command_line, const struct runner_handle *h)
{
    if (lab->job_count == lab->job_capacity) {
        size_t want = lab->job_capacity ? 2 * lab->job_capacity : 8;
        struct lab_job_slot *bigger = realloc(lab->jobs, want * sizeof *bigger);
        if (bigger == NULL)
            return -1;
        lab->jobs = bigger;
        lab->job_capacity = want;
    }
    struct lab_job_slot *slot = &lab->jobs[lab->job_count];
    slot->command = strdup(command_line);
    if (slot->command == NULL)
        return -1;
    slot->runner = h->pid;
    slot->job = (struct lab_job){lab->next_job_id++,
                                 lab_host_pid_of(h->pid, h->command_lab_pid),
                                 h->command_lab_pid,
                                 slot->command,
                                 1,
                                 -1};
    lab->job_count++;
    return slot->job.id;
}

static int start_job(struct lab *lab, const char *command_line, int out_fd, enum wait_until until,
                     const struct lab_expect *expect, int *status, int *job_id)
{
    struct lab_runner_spec spec = {command_line, 0, out_fd, out_fd, out_fd, 0, expect};
    struct sigint_guard guard;
    struct runner_handle h;
    struct capture none = {.fd = -1};
    int code = -1, rc = -1;

    guard_begin(&guard);
    if (spawn_runner(lab, &spec, &h) == 0) {
        rc = wait_runner(lab, &h, &guard, &none, until, &code);
        if (h.status_fd != -1)
            close(h.status_fd);
    }
    guard_end(&guard);
    if (rc == 1) {
        int id = add_job(lab, command_line, &h);
        if (id == -1) {
            kill(-h.pid, SIGKILL);
            waitpid(h.pid, NULL, 0);
            return lab_set_error(lab, "out of memory");
        }
        *job_id = id;
    } else if (rc == 0) {
        *status = code;
    }
    return rc;
}

int lab_start(struct lab *lab, const char *command_line, int out_fd, int *status, int *job_id)
{
    return start_job(lab, command_line, out_fd, WAIT_SETTLED, NULL, status, job_id);
}

int lab_start_expecting(struct lab *lab, const char *command_line, int out_fd,
                        const struct lab_expect *expect, int *status, int *job_id)
{
    return start_job(lab, command_line, out_fd, WAIT_SETTLED, expect, status, job_id);
}

int lab_start_background(struct lab *lab, const char *command_line, int out_fd, int *status,
                         int *job_id)
{
    return start_job(lab, command_line, out_fd, WAIT_SETTLED_OR_SIGINT, NULL, status, job_id);
}

int lab_job_reap(struct lab *lab, struct lab_job_slot *slot, int block)
{
    (void)lab;
    if (!slot->job.running)
        return 0;
    pid_t pid;
    int status = 0;
    while ((pid = waitpid(slot->runner, &status, block ? 0 : WNOHANG)) == -1 && errno == EINTR)
        ;
    if (pid == slot->runner || (pid == -1 && errno == ECHILD)) {
        slot->job.running = 0;
        /* The runner exits with its command's status (128+N for a signal);
         * a runner killed itself reports that signal. */
        if (pid == slot->runner)
            slot->job.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return 1;
    }
    return 0;
}

/* Is the job's command itself gone (or a zombie its runner has not reaped
 * yet)? Then the runner is about to end and report how. */
static int command_gone(const struct lab_job_slot *slot)
{
    struct procfs_status st;
    return slot->job.pid <= 0 || procfs_read_status("/proc", slot->job.pid, &st) == -1 ||
           st.state == 'Z' || st.state == 'X';
}

/* A job whose command has just ended (a check right after a `kill`) is
 * still running until its runner has reaped it and ended, which a loaded
 * machine makes a moment: wait for that event, a runner's end, for at most
 * JOBS_SETTLE_MS in all, so that $TUTOR_JOBS says how it ended. */
#define JOBS_SETTLE_MS 500
static void reap_ended_jobs(struct lab *lab)
{
    for (int waited = 0;; waited += 5) {
        int pending = 0;
        for (size_t i = 0; i < lab->job_count; i++)
            if (!lab_job_reap(lab, &lab->jobs[i], 0) && lab->jobs[i].job.running &&
                command_gone(&lab->jobs[i]))
                pending = 1;
        if (!pending || waited >= JOBS_SETTLE_MS)
            return;
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    }
}

size_t lab_jobs(struct lab *lab, const struct lab_job **jobs)
{
    reap_ended_jobs(lab);
    free(lab->job_view);
    lab->job_view = calloc(lab->job_count + 1, sizeof *lab->job_view);
    if (lab->job_view == NULL) {
        *jobs = NULL;
        return 0;
    }
    for (size_t i = 0; i < lab->job_count; i++) {
        lab_job_reap(lab, &lab->jobs[i], 0);
        lab->job_view[i] = lab->jobs[i].job;
    }
    *jobs = lab->job_view;
    return lab->job_count;
}
