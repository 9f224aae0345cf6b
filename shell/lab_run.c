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
#include "lab_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define RUNNER_GRACE_SECONDS 0.2 /* after Ctrl-C, before SIGKILL */

/* What a runner tells the shell on its status pipe. */
struct runner_message {
    char kind; /* 'P' command started (value: its PID in the lab), 'S' settled,
                  'E' the runner could not start it (value: errno) */
    int value;
};

struct runner_state {
    pid_t command;
    int command_status, command_done;
    int interrupted; /* the signal that interrupted, 0 if none */
    int kill_now;
    int settled;
    int pump_fd; /* read end of the command's output, -1 when closed */
    double start, last_output, deadline;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void send_message(int fd, char kind, int value)
{
    struct runner_message m = {kind, value};
    if (write(fd, &m, sizeof m) == -1) {
        /* the shell stopped listening (a settled job): nothing to tell */
    }
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the reader is gone: keep draining, drop the output */
        buf += n, len -= (size_t)n;
    }
}

/* The command itself: /bin/sh -c LINE with fresh signals and only fds 0-2. */
static void command_main(const struct lab *lab, const struct lab_runner_spec *spec, int pump_w)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    lab_reset_signals();
    int in = spec->use_tty ? fcntl(0, F_DUPFD_CLOEXEC, 10) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = fcntl(pump_w >= 0 ? pump_w : spec->out_fd, F_DUPFD_CLOEXEC, 10);
    int err = fcntl(pump_w >= 0 ? pump_w : spec->err_fd, F_DUPFD_CLOEXEC, 10);
    if (in == -1 || out == -1 || err == -1 || dup2(in, 0) == -1 || dup2(out, 1) == -1 ||
        dup2(err, 2) == -1)
        _exit(127);
    lab_close_fds_from(3);
    putenv(lab->path_env);
    if (spec->c_locale)
        setenv("LC_ALL", "C", 1);
    execl("/bin/sh", "sh", "-c", spec->command_line, (char *)NULL);
    dprintf(2, "lab: /bin/sh: %s\n", strerror(errno));
    _exit(127);
}

/* SIGKILLs every child of the runner (its subreaper role makes every
 * descendant outside nested namespaces one, sooner or later). */
static int kill_children(int proc_fd, pid_t self)
{
    int dirfd = openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dirfd != -1 ? fdopendir(dirfd) : NULL;
    struct dirent *e;
    int killed = 0;

    if (dir == NULL)
        return dirfd != -1 ? (close(dirfd), 0) : 0;
    while ((e = readdir(dir)) != NULL) {
        char path[300], buf[512];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "%s/stat", e->d_name);
        int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd != -1 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd != -1)
            close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        char *paren = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
        char state;
        int ppid;
        if (paren != NULL && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && ppid == self &&
            kill(atoi(e->d_name), SIGKILL) == 0)
            killed++;
    }
    closedir(dir);
    return killed;
}

static void note_child_exit(struct runner_state *st, pid_t pid, int status)
{
    if (pid == st->command && !st->command_done) {
        st->command_done = 1;
        st->command_status = status;
    }
}

/* Kills and reaps everything below the runner, until it has no child left. */
static void kill_everything(int proc_fd, struct runner_state *st)
{
    pid_t self = getpid();
    for (;;) {
        int status;
        kill_children(proc_fd, self);
        pid_t pid = waitpid(-1, &status, 0);
        if (pid == -1 && errno == EINTR)
            continue;
        if (pid == -1)
            return; /* ECHILD: nothing left */
        note_child_exit(st, pid, status);
    }
}

static void handle_signal(struct runner_state *st, int sig)
{
    int status;
    pid_t pid;

    switch (sig) {
    case SIGCHLD:
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            note_child_exit(st, pid, status);
        break;
    case SIGINT:
    case SIGQUIT:
        if (!st->interrupted) {
            st->interrupted = sig;
            st->deadline = now() + RUNNER_GRACE_SECONDS;
        }
        break;
    case SIGTERM:
    case SIGHUP:
        if (!st->interrupted)
            st->interrupted = sig;
        st->kill_now = 1;
        break;
    default: /* SIGTSTP, SIGTTIN, SIGTTOU: a lab command is never left stopped */
        kill(-getpgrp(), SIGCONT);
        break;
    }
}

static void pump_output(struct runner_state *st, int to_fd)
{
    char buf[8192];
    ssize_t n = read(st->pump_fd, buf, sizeof buf);
    if (n > 0) {
        write_all(to_fd, buf, (size_t)n);
        st->last_output = now();
    } else if (n == 0 || errno != EINTR) {
        close(st->pump_fd);
        st->pump_fd = -1;
    }
}

static int poll_timeout_ms(const struct lab *lab, const struct runner_state *st, int pumping)
{
    double until = -1;
    if (st->interrupted && !st->kill_now)
        until = st->deadline;
    if (pumping && !st->settled && !st->command_done) {
        double settle = st->last_output + lab->settle_seconds;
        double cap = st->start + (lab->settle_seconds * 10 > 2 ? lab->settle_seconds * 10 : 2);
        double t = settle < cap ? settle : cap;
        if (until < 0 || t < until)
            until = t;
    }
    if (until < 0)
        return -1;
    double left = until - now();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* The runner's main loop: until the command ends, Ctrl-C's grace runs out,
 * or the shell says stop. Returns the runner's exit code. */
static int runner_loop(const struct lab *lab, const struct lab_runner_spec *spec,
                       struct runner_state *st, int sfd, int status_fd)
{
    int pumping = spec->pump_to_fd >= 0;
    for (;;) {
        struct pollfd fds[2] = {{sfd, POLLIN, 0}, {st->pump_fd, POLLIN, 0}};
        int n = poll(fds, 2, poll_timeout_ms(lab, st, pumping));
        if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP)))
            pump_output(st, spec->pump_to_fd);
        struct signalfd_siginfo si;
        if (n > 0 && (fds[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            handle_signal(st, (int)si.ssi_signo);
        double t = now();
        if (pumping && !st->settled && !st->command_done &&
            poll_timeout_ms(lab, st, pumping) == 0 && !(st->interrupted && t >= st->deadline)) {
            st->settled = 1;
            send_message(status_fd, 'S', 0);
        }
        if (st->command_done || st->kill_now || (st->interrupted && t >= st->deadline))
            break;
    }
    if (st->interrupted)
        return 128 + st->interrupted;
    if (WIFEXITED(st->command_status))
        return WEXITSTATUS(st->command_status);
    return 128 + WTERMSIG(st->command_status);
}

static void runner_fail(int status_fd, int error)
{
    send_message(status_fd, 'E', error);
    _exit(127);
}

static void runner_main(const struct lab *lab, const struct lab_runner_spec *spec, int status_fd,
                        int go_fd)
{
    struct runner_state st = {.pump_fd = -1};
    sigset_t mask;
    int pump[2] = {-1, -1};
    char go;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 0) /* the shell, outside the lab namespace, shows as 0 */
        _exit(127);
    prctl(PR_SET_NAME, "lab-runner");
    setpgid(0, 0);
    sigemptyset(&mask);
    int handled[] = {SIGCHLD, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++)
        sigaddset(&mask, handled[i]);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    /* The shell says go once our group owns the terminal (if it has one). */
    if (read(go_fd, &go, 1) != 1)
        _exit(127);
    close(go_fd);
    if (sfd == -1 || setns(lab->keeper_mnt_fd, CLONE_NEWNS) == -1)
        runner_fail(status_fd, errno);
    if (chdir(lab->cwd) == -1 && chdir("/") == -1)
        runner_fail(status_fd, errno);
    int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the lab's procfs */
    if (proc_fd == -1 || prctl(PR_SET_CHILD_SUBREAPER, 1) == -1 ||
        (spec->pump_to_fd >= 0 && pipe2(pump, O_CLOEXEC) == -1))
        runner_fail(status_fd, errno);
    st.start = st.last_output = now();
    st.pump_fd = pump[0];
    st.command = fork();
    if (st.command == -1)
        runner_fail(status_fd, errno);
    if (st.command == 0)
        command_main(lab, spec, pump[1]);
    if (pump[1] != -1)
        close(pump[1]);
    send_message(status_fd, 'P', st.command);
    int code = runner_loop(lab, spec, &st, sfd, status_fd);
    kill_everything(proc_fd, &st);
    while (st.pump_fd != -1) /* every writer is dead: this ends */
        pump_output(&st, spec->pump_to_fd);
    _exit(code);
}

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

static int spawn_runner(struct lab *lab, const struct lab_runner_spec *spec, struct runner_handle *h)
{
    int status[2], go[2];

    if (lab->keeper <= 0)
        return lab_set_error(lab, "the lab is closed");
    if (pipe2(status, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    if (pipe2(go, O_CLOEXEC) == -1) {
        close(status[0]), close(status[1]);
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {0, 1, 2, status[1], go[0], lab->keeper_mnt_fd, spec->out_fd, spec->err_fd,
                      spec->pump_to_fd};
        lab_close_fds_except(keep, sizeof keep / sizeof keep[0]);
        runner_main(lab, spec, status[1], go[0]);
    }
    int saved = errno;
    close(status[1]), close(go[0]);
    if (pid == -1) {
        close(status[0]), close(go[1]);
        errno = saved;
        if (errno == ENOMEM && kill(lab->keeper, 0) == -1)
            return lab_set_error(lab, "the lab has ended (its init was killed): open a new one");
        return lab_set_error(lab, "starting a command in the lab (fork): %s", strerror(errno));
    }
    setpgid(pid, pid); /* both sides do it: no race on who runs first */
    *h = (struct runner_handle){pid, status[0], 0, 0};
    if (spec->use_tty)
        tcsetpgrp(0, pid);
    if (write(go[1], "g", 1) != 1) {
        /* the runner died already: its status says why */
    }
    close(go[1]);
    return 0;
}

static void read_message(struct runner_handle *h, int *settled)
{
    struct runner_message m;
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
        *buf = bigger, *cap = want;
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

/* Waits until the runner ends (returns 0, exit code in *code) or, when
 * stop_at_settle, until it says the command settled (returns 1). Output to
 * capture is collected; a SIGINT to the shell is forwarded to the command. */
static int wait_runner(struct lab *lab, struct runner_handle *h, const struct sigint_guard *g,
                       struct capture *cap, int stop_at_settle, int *code)
{
    int settled = 0;
    while (h->status_fd != -1 || cap->fd != -1) {
        struct pollfd fds[2] = {{h->status_fd, POLLIN, 0}, {cap->fd, POLLIN, 0}};
        if (ppoll(fds, 2, NULL, &g->wait_mask) == -1) {
            if (errno != EINTR)
                return lab_set_error(lab, "poll: %s", strerror(errno));
            if (got_sigint) {
                got_sigint = 0;
                kill(-h->pid, SIGINT);
            }
            continue;
        }
        if (fds[0].revents != 0)
            read_message(h, &settled);
        if (settled && stop_at_settle)
            return 1;
        if (fds[1].revents != 0) {
            char buf[8192];
            ssize_t n = read(cap->fd, buf, sizeof buf);
            if (n > 0 && append(&cap->text, &cap->len, &cap->cap, buf, (size_t)n) == -1)
                return lab_set_error(lab, "out of memory");
            if (n == 0 || (n == -1 && errno != EINTR))
                close(cap->fd), cap->fd = -1;
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
    struct lab_runner_spec spec = {command_line, 0, out_fd, err_fd, -1, 0};
    struct sigint_guard guard;
    struct runner_handle h;
    struct capture none = {.fd = -1};
    struct termios modes;
    int code = -1;

    /* Only a shell in the terminal's foreground may hand the terminal on. */
    spec.use_tty = isatty(0) && tcgetpgrp(0) == getpgrp() && tcgetattr(0, &modes) == 0;
    guard_begin(&guard);
    if (spawn_runner(lab, &spec, &h) == 0) {
        if (wait_runner(lab, &h, &guard, &none, 0, &code) == -1)
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
    struct lab_runner_spec spec = {command_line, 0, pipefd[1], pipefd[1], -1, 1};
    guard_begin(&guard);
    int started = spawn_runner(lab, &spec, &h) == 0;
    close(pipefd[1]);
    cap.fd = pipefd[0];
    if (started) {
        if (wait_runner(lab, &h, &guard, &cap, 0, &code) == -1)
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
        lab->jobs = bigger, lab->job_capacity = want;
    }
    struct lab_job_slot *slot = &lab->jobs[lab->job_count];
    slot->command = strdup(command_line);
    if (slot->command == NULL)
        return -1;
    slot->runner = h->pid;
    slot->job = (struct lab_job){lab->next_job_id++, lab_host_pid_of(h->pid, h->command_lab_pid),
                                 h->command_lab_pid, slot->command, 1};
    lab->job_count++;
    return slot->job.id;
}

int lab_start(struct lab *lab, const char *command_line, int out_fd, int *status, int *job_id)
{
    struct lab_runner_spec spec = {command_line, 0, out_fd, out_fd, out_fd, 0};
    struct sigint_guard guard;
    struct runner_handle h;
    struct capture none = {.fd = -1};
    int code = -1, rc = -1;

    guard_begin(&guard);
    if (spawn_runner(lab, &spec, &h) == 0) {
        rc = wait_runner(lab, &h, &guard, &none, 1, &code);
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

int lab_job_reap(struct lab *lab, struct lab_job_slot *slot, int block)
{
    (void)lab;
    if (!slot->job.running)
        return 0;
    pid_t pid;
    while ((pid = waitpid(slot->runner, NULL, block ? 0 : WNOHANG)) == -1 && errno == EINTR)
        ;
    if (pid == slot->runner || (pid == -1 && errno == ECHILD)) {
        slot->job.running = 0;
        return 1;
    }
    return 0;
}
