/* SPDX-License-Identifier: MIT */
/* lab_runner.c: the runner, the process between the shell and each command
 * (see lab_run.c for why it exists and lab_internal.h for where it sits).
 *
 * It joins the keeper's mount namespace, becomes a child subreaper, starts
 * `/bin/sh -c COMMAND`, and then waits: for the command to end, for Ctrl-C
 * (SIGINT: a grace period, then SIGKILL to all it started), for the shell's
 * SIGTERM (kill at once), and, for lab_start(), for the output to go quiet
 * ("settled"), which it tells the shell on its status pipe while it keeps
 * copying the output. For lab_start_expecting() it keeps what the command
 * prints and does not settle before the output is what the caller expects
 * (an event: a piece of output), or cannot be any more, or the bound has
 * passed. It ends only when nothing it started is left.
 */
#include "lab/lab_internal.h"
#include "procfs/procfs.h"

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
#include <time.h>
#include <unistd.h>

#define RUNNER_GRACE_SECONDS 0.2   /* after Ctrl-C, before SIGKILL */
#define RUNNER_EXPECT_BOUND 30.0   /* lab_start_expecting()'s default bound (s) */
#define RUNNER_SEEN_MAX (1u << 20) /* output kept for the judge; beyond, it is NEVER */
/* Once a command would settle, its processes must be asleep too (none
 * running or waiting for the CPU): looked at every RUNNER_BUSY_POLL s, for
 * at most RUNNER_BUSY_BOUND s (a program that computes for ever settles
 * then, as before, only later). */
#define RUNNER_BUSY_POLL 0.02
#define RUNNER_BUSY_BOUND 10.0

struct runner_state {
    pid_t command;
    int command_status, command_done;
    int interrupted; /* the signal that interrupted, 0 if none */
    int kill_now;
    int settled;
    int pump_fd; /* read end of the command's output, -1 when closed */
    double start, last_output, deadline;
    /* lab_start_expecting(): the output so far, and the judge's verdict on
     * it (NOT_YET until it says READY or NEVER), and when it said so. */
    const struct lab_expect *expect;
    char *seen;
    size_t seen_len;
    enum lab_output_state verdict;
    double decided_at;
    double busy_until; /* set when it would settle but a process still runs */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void send_message(int fd, char kind, int value)
{
    struct lab_runner_message m = {kind, value};
    io_write_all(fd, &m, sizeof m); /* fails when the shell stopped listening (a settled job) */
}

/* Is the first word of a simple command line (no operators, redirections,
 * quotes or substitutions) a program on the lab's PATH? Then "exec LINE"
 * behaves the same, and the program, not a waiting sh (dash does not exec
 * the last command itself), is the job: its PID is the example's PID, and
 * ps shows the program's parent as the article does. */
static int is_simple_program(const struct lab *lab, const char *line)
{
    char word[PATH_MAX];
    if (line[strcspn(line, ";&|<>(){}`'\"\\\n!*?[#~")] != '\0')
        return 0;
    const char *p = line;
    for (;;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (len == 0 || len >= sizeof word)
            return 0;
        memcpy(word, p, len);
        word[len] = '\0';
        p += len;
        if (strchr(word, '=') == NULL || word[0] == '=')
            break; /* past the VAR=value assignments */
    }
    if (strchr(word, '$') != NULL)
        return 0;
    return lab_on_path(lab, word);
}

int lab_on_path(const struct lab *lab, const char *word)
{
    if (word[0] == '\0')
        return 0;
    if (strchr(word, '/') != NULL)
        return access(word, X_OK) == 0;
    const char *dirs = lab->path_env + strlen("PATH=");
    while (*dirs != '\0') {
        size_t len = strcspn(dirs, ":");
        char candidate[2 * PATH_MAX + 2];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? dirs : ".", word);
        if (access(candidate, X_OK) == 0)
            return 1;
        dirs += len + (dirs[len] == ':');
    }
    return 0;
}

/* The command itself: /bin/sh -c LINE with fresh signals and only fds 0-2. */
static void command_main(const struct lab *lab, const struct lab_runner_spec *spec, int pump_w)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    lab_reset_signals();
    int in =
        spec->use_tty ? fcntl(0, F_DUPFD_CLOEXEC, 10) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = fcntl(pump_w >= 0 ? pump_w : spec->out_fd, F_DUPFD_CLOEXEC, 10);
    int err = fcntl(pump_w >= 0 ? pump_w : spec->err_fd, F_DUPFD_CLOEXEC, 10);
    if (in == -1 || out == -1 || err == -1 || dup2(in, 0) == -1 || dup2(out, 1) == -1 ||
        dup2(err, 2) == -1)
        _exit(127);
    io_close_fds_from(3);
    putenv(lab->path_env);
    if (spec->c_locale)
        setenv("LC_ALL", "C", 1);
    char *line = NULL;
    if (is_simple_program(lab, spec->command_line) &&
        asprintf(&line, "exec %s", spec->command_line) == -1)
        line = NULL;
    execl("/bin/sh", "sh", "-c", line != NULL ? line : spec->command_line, (char *)NULL);
    dprintf(2, "lab: /bin/sh: %s\n", strerror(errno));
    _exit(127);
}

static int kill_if_child(int proc_fd, pid_t pid, const char *name, void *arg)
{
    int *killed = arg;
    struct procfs_status st;
    if (lab_read_status(proc_fd, name, &st) == 0 && st.ppid == getpid() && kill(pid, SIGKILL) == 0)
        (*killed)++;
    return 0;
}

/* SIGKILLs every child of the runner (its subreaper role makes every
 * descendant outside nested namespaces one, sooner or later). */
static int kill_children(int proc_fd)
{
    int killed = 0;
    procfs_walk_pids(proc_fd, ".", kill_if_child, &killed);
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
    for (;;) {
        int status;
        kill_children(proc_fd);
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

/* Keeps a piece of output for the judge and asks it again, while it has
 * not decided and the command has not settled. The first time (n 0, at the
 * start) it judges no output at all: what expects nothing (an empty
 * [.expect]) is there at once, and the command settles as with lab_start(). */
static void judge_output(struct runner_state *st, const char *buf, size_t n)
{
    if (st->expect == NULL || st->verdict != LAB_OUTPUT_NOT_YET || st->settled)
        return;
    char *more =
        st->seen_len + n <= RUNNER_SEEN_MAX ? realloc(st->seen, st->seen_len + n + 1) : NULL;
    if (more == NULL) {
        st->verdict = LAB_OUTPUT_NEVER; /* too much to judge, or no memory */
    } else {
        memcpy(more + st->seen_len, buf, n);
        st->seen = more;
        st->seen_len += n;
        st->seen[st->seen_len] = '\0';
        st->verdict = st->expect->judge(st->seen, st->expect->arg);
    }
    if (st->verdict != LAB_OUTPUT_NOT_YET) {
        st->decided_at = now();
        free(st->seen);
        st->seen = NULL;
    }
}

static void pump_output(struct runner_state *st, int to_fd)
{
    char buf[8192];
    ssize_t n = read(st->pump_fd, buf, sizeof buf);
    if (n > 0) {
        /* a reader gone: keep draining, drop the output */
        io_write_all(to_fd, buf, (size_t)n);
        st->last_output = now();
        judge_output(st, buf, (size_t)n);
    } else if (n == 0 || errno != EINTR) {
        close(st->pump_fd);
        st->pump_fd = -1;
    }
}

/* When a command still running settles: once its output has been quiet
 * for the settle time, or at the cap (a chatty one); while the judge waits
 * for the expected output, only at the bound. */
static double settle_time(const struct lab *lab, const struct runner_state *st)
{
    if (st->expect != NULL && st->verdict == LAB_OUTPUT_NOT_YET)
        return st->start +
               (st->expect->bound_seconds > 0 ? st->expect->bound_seconds : RUNNER_EXPECT_BOUND);
    double quiet = st->last_output + lab->settle_seconds;
    double cap = st->start + (lab->settle_seconds * 10 > 2 ? lab->settle_seconds * 10 : 2);
    if (st->expect != NULL && st->decided_at > cap)
        cap = st->decided_at; /* came late and chatty: settle now */
    return quiet < cap ? quiet : cap;
}

static int poll_timeout_ms(const struct lab *lab, const struct runner_state *st, int pumping)
{
    double until = -1;
    if (st->interrupted && !st->kill_now)
        until = st->deadline;
    if (pumping && !st->settled && !st->command_done) {
        double t = settle_time(lab, st);
        if (st->busy_until > 0 && now() >= t)
            t = now() + RUNNER_BUSY_POLL; /* waiting for its processes to sleep */
        if (until < 0 || t < until)
            until = t;
    }
    if (until < 0)
        return -1;
    double left = until - now();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* At the moment a command would settle: are all the processes it started
 * asleep, blocked or stopped (none running on its way to exec, say)? Asked
 * again every RUNNER_BUSY_POLL s until they are or RUNNER_BUSY_BOUND s
 * have passed since the first time. The lab's /proc is the runner's. */
static int all_asleep(struct runner_state *st, double t)
{
    if (st->busy_until == 0) {
        /* PIDNS_TUTOR_BUSY_WAIT: another bound in seconds, for the tests
         * (0: settle without looking, as the lab did before). */
        const char *bound = getenv("PIDNS_TUTOR_BUSY_WAIT");
        st->busy_until = t + (bound != NULL && *bound != '\0' ? atof(bound) : RUNNER_BUSY_BOUND);
    }
    if (t >= st->busy_until || procfs_descendants_busy("/proc", getpid()) != 1)
        return 1;
    return 0;
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
        if (pumping && !st->settled && !st->command_done && t >= settle_time(lab, st) &&
            !(st->interrupted && t >= st->deadline) && all_asleep(st, t)) {
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

void lab_runner_main(const struct lab *lab, const struct lab_runner_spec *spec, int status_fd,
                     int go_fd)
{
    struct runner_state st = {.pump_fd = -1, .expect = spec->expect};
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
    int proc_fd = lab->lab_proc_fd; /* the lab's procfs, whatever is mounted on /proc now */
    if (proc_fd == -1 || prctl(PR_SET_CHILD_SUBREAPER, 1) == -1 ||
        (spec->pump_to_fd >= 0 && pipe2(pump, O_CLOEXEC) == -1))
        runner_fail(status_fd, errno);
    st.start = st.last_output = now();
    st.pump_fd = pump[0];
    judge_output(&st, "", 0);
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
