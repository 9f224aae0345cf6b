/* SPDX-License-Identifier: MIT */
/* test_lab_signals.c: Ctrl-C during lab_run() stops the command and every
 * namespace it made (their inits ignore SIGINT), lab_run() returns 130, and
 * the shell survives: with no terminal (SIGINT to the shell, or to its
 * process group) and on a real terminal (^C typed into a pty). Ctrl-Z never
 * leaves a lab command stopped. A job put in the background (`sh CMD &`) is
 * out of Ctrl-C's reach even while it settles. */
#include "lab_holder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pty.h>
#include <termios.h>

struct interrupted {
    int tell_fd;
};

/* An init that ignores SIGINT, below a parent that ignores it too (util-linux
 * unshare does while it waits for its child). */
#define STUBBORN                                                                                   \
    "echo ready; unshare -p -f sh -c 'mkdir -p /proc2 && mount -t proc proc /proc2 && "            \
    "exec sleep 100'"

static int interrupted_run(void *arg)
{
    struct interrupted *t = arg;
    int failed = 0, null = open("/dev/null", O_RDONLY);
    struct lab *lab = NULL;
    EXPECT(null != -1 && dup2(null, 0) == 0, "no terminal");
    EXPECT(setpgid(0, 0) == 0, "a process group of our own, like a shell");
    lab = lt_open_settle(0, 2.0); /* settles at 20 s: long after any Ctrl-C below */
    EXPECT(lab != NULL, "a lab");
    for (int round = 0; round < 2; round++) {
        double t0 = tl_now();
        int rc = lab_run(lab, STUBBORN, t->tell_fd, 2);
        double took = tl_now() - t0;
        EXPECT(rc == 130, "lab_run returns 130, not %d", rc);
        EXPECT(lt_count_pids(lab_path(lab, "/proc"), 0) == 1, "only the keeper is left");
        fprintf(stderr, "interrupted run %d returned after %.0f ms\n", round, took * 1000);
    }
    /* Before it settles, a chatty lab_start() is interrupted the same way. */
    int status = -1, job = 0;
    double t0 = tl_now();
    int rc = lab_start(
        lab, "echo ready; exec unshare -p -f sh -c 'while :; do echo tick; sleep 0.05; done'",
        t->tell_fd, &status, &job);
    EXPECT(rc == 0 && status == 130, "lab_start: %d, status %d", rc, status);
    EXPECT(tl_now() - t0 < 10, "before it would have settled (%.0f ms)", (tl_now() - t0) * 1000);
    EXPECT(lt_count_pids(lab_path(lab, "/proc"), 0) == 1, "only the keeper is left");
    EXPECT(lab_run(lab, "true", 1, 2) == 0, "the shell lives on and runs commands");
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

static void test_sigint_to_the_shell_stops_the_command_and_its_namespaces(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    int pipefd[2];
    char line[64];
    tl_host_snapshot(&before);
    assert_int_equal(pipe(pipefd), 0);
    struct interrupted t = {pipefd[1]};
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        close(pipefd[0]);
        _exit(interrupted_run(&t));
    }
    close(pipefd[1]);
    /* Once to the shell's PID, once to its process group (a terminal's ^C
     * when the shell did not hand the terminal on). */
    int got1 = lt_read_line(pipefd[0], line, sizeof line, 20);
    usleep(100000);
    kill(holder, SIGINT);
    int got2 = lt_read_line(pipefd[0], line, sizeof line, 20);
    usleep(100000);
    kill(-holder, SIGINT);
    int got3 = lt_read_line(pipefd[0], line, sizeof line, 20);
    usleep(200000);
    kill(holder, SIGINT);
    int status = 0;
    waitpid(holder, &status, 0);
    close(pipefd[0]);
    assert_int_equal(got1, 0);
    assert_int_equal(got2, 0);
    assert_int_equal(got3, 0);
    lt_assert_holder_passed(status);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

/* `sh CMD &`: a SIGINT to the shell while a background job settles ends
 * the wait, and the job goes on. */
static int background_run(void *arg)
{
    struct interrupted *t = arg;
    int failed = 0, status = -1, job = 0, null = open("/dev/null", O_RDONLY);
    const struct lab_job *jobs = NULL;
    struct lab *lab = NULL;
    EXPECT(null != -1 && dup2(null, 0) == 0, "no terminal");
    EXPECT(setpgid(0, 0) == 0, "a process group of our own, like a shell");
    lab = lt_open_settle(0, 2.0); /* settles at 20 s: long after the Ctrl-C below */
    EXPECT(lab != NULL, "a lab");
    double t0 = tl_now();
    /* Chatty: it would settle only at the cap (20 s here). */
    int rc = lab_start_background(lab, "echo ready; while :; do echo tick; sleep 0.05; done",
                                  t->tell_fd, &status, &job);
    EXPECT(rc == 1 && job == 1, "a job at once: %d, status %d", rc, status);
    EXPECT(tl_now() - t0 < 10, "before it would have settled (%.0f ms)", (tl_now() - t0) * 1000);
    usleep(300000);
    EXPECT(lab_jobs(lab, &jobs) == 1 && jobs[0].running, "the job runs on");
    EXPECT(lt_count_pids(lab_path(lab, "/proc"), 0) > 2, "its processes too");
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

static void test_sigint_while_a_background_job_settles_does_not_reach_it(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int pipefd[2];
    char line[64];
    assert_int_equal(pipe(pipefd), 0);
    struct interrupted t = {pipefd[1]};
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        close(pipefd[0]);
        _exit(background_run(&t));
    }
    close(pipefd[1]);
    int got = lt_read_line(pipefd[0], line, sizeof line, 20);
    kill(holder, SIGINT);
    int status = 0;
    waitpid(holder, &status, 0);
    close(pipefd[0]);
    assert_int_equal(got, 0);
    lt_assert_holder_passed(status);
}

/* On the pty: the lab hands the terminal to the command, ^C reaches it and
 * not us, and we take the terminal back. */
static int on_a_terminal(void)
{
    struct lab *lab = lt_open(0);
    if (lab == NULL)
        return 1;
    int rc = lab_run(lab, STUBBORN, 1, 2);
    int back = tcgetpgrp(0) == getpgrp();
    int left = lt_count_pids(lab_path(lab, "/proc"), 0);
    printf("\nrc=%d terminal-back=%d processes-left=%d\n", rc, back, left);
    fflush(stdout);
    rc = lab_run(lab, "echo now-ctrl-z; sleep 0.3; echo after-ctrl-z", 1, 2);
    printf("\nctrl-z rc=%d\n", rc);
    fflush(stdout);
    return lab_close(lab, NULL);
}

/* Reads the pty until `want` shows up (or 10 s); keeps all output in buf. */
static int read_until(int master, char *buf, size_t len, size_t *used, const char *want)
{
    double end = tl_now() + 10;
    while (strstr(buf, want) == NULL) {
        struct pollfd p = {master, POLLIN, 0};
        if (tl_now() > end || poll(&p, 1, 100) < 0)
            return -1;
        if (!(p.revents & POLLIN))
            continue;
        ssize_t n = read(master, buf + *used, len - *used - 1);
        if (n <= 0)
            return -1;
        *used += (size_t)n;
        buf[*used] = '\0';
    }
    return 0;
}

static void test_ctrl_c_on_a_terminal_stops_the_command_not_the_shell(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    char buf[8192] = "";
    size_t used = 0;
    int master;
    tl_host_snapshot(&before);
    fflush(NULL);
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    assert_int_not_equal(pid, -1);
    if (pid == 0)
        _exit(on_a_terminal());
    int ok = read_until(master, buf, sizeof buf, &used, "ready") == 0;
    usleep(100000);
    ok = ok && write(master, "\003", 1) == 1; /* ^C */
    ok = ok && read_until(master, buf, sizeof buf, &used, "processes-left=") == 0;
    ok = ok && read_until(master, buf, sizeof buf, &used, "now-ctrl-z\r\n") == 0;
    usleep(50000);
    ok = ok && write(master, "\032", 1) == 1; /* ^Z */
    ok = ok && read_until(master, buf, sizeof buf, &used, "ctrl-z rc=") == 0;
    read_until(master, buf, sizeof buf, &used, "\n\n"); /* the rest, until EOF */
    int status;
    waitpid(pid, &status, 0);
    close(master);
    print_message("%s\n", buf);
    assert_true(ok);
    assert_non_null(strstr(buf, "rc=130 terminal-back=1 processes-left=1"));
    assert_non_null(strstr(buf, "after-ctrl-z"));
    assert_non_null(strstr(buf, "ctrl-z rc=0"));
    lt_assert_holder_passed(status);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint_to_the_shell_stops_the_command_and_its_namespaces),
        cmocka_unit_test(test_ctrl_c_on_a_terminal_stops_the_command_not_the_shell),
        cmocka_unit_test(test_sigint_while_a_background_job_settles_does_not_reach_it),
    };
    return cmocka_run_group_tests(tests, lt_setup, lt_teardown);
}
