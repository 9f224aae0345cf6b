/* SPDX-License-Identifier: MIT */
/* test_pidns_semantics.c: five rules of PID namespaces, observed on the real
 * kernel with the system calls themselves (no example program, no verdict
 * printed by somebody else):
 *
 *   1. a new namespace's init has session and process group 0 (their leaders
 *      are outside), and 1 after setsid();
 *   2. kill(-1, sig) from an init reaches every other process of its
 *      namespace and of the namespaces below, none above; alone, ESRCH;
 *   3. kill(getpid(), SIGKILL) from an init is dropped (from PID 2 it kills);
 *   4. si_pid names the sender as the receiver's namespace does: 1 for the
 *      init itself, 2 for PID 2 (kill, sigqueue and SIGCHLD alike), 0 from the
 *      parent namespace, the real PID for a sender below (SIGCHLD: a process
 *      below cannot name one above, and pidfd_send_signal() upwards is EINVAL);
 *   5. pid_for_children of a process that called unshare(CLONE_NEWPID) and has
 *      no child yet: ENOENT up to Linux 6.18; on a kernel that opens it,
 *      setns() to it and fork() give the namespace its PID 1.
 *
 * Each case runs in a forked "runner" (tl_run_as_root, testlib.h) that, when
 * we are not root, first enters a user namespace of its own (the route an
 * ordinary user takes), so the file passes as root and as nobody. Every
 * process a case starts dies before the case returns. Cases that would signal with kill(-1) first
 * check that they really are PID 1 of a new namespace: kill(-1) from anywhere else would reach the
 * host's processes.
 */

#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* The runner's way into a new namespace: unshare(), then the first child is
 * its PID 1 and runs fn() there. Returns the init's PID here (the runner
 * stays in its namespace). */
static pid_t start_init(int (*fn)(void))
{
    TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID)");
    fflush(NULL);
    pid_t init = fork();
    TL_CHECK(init != -1, "fork the init");
    if (init == 0) {
        TL_CHECK(getpid() == 1, "the first child is PID 1, not %ld", (long)getpid());
        _exit(fn());
    }
    return init;
}

/* Waits for pid and returns its wait status. */
static int reap(pid_t pid)
{
    int status;
    TL_CHECK(waitpid(pid, &status, 0) == pid, "waitpid %ld", (long)pid);
    return status;
}

static int init_exits_cleanly(pid_t init)
{
    int status = reap(init);
    TL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the init's status %#x", status);
    return 0;
}

/* 1. Sessions and process groups. */
static int sessions_in_init(void)
{
    TL_CHECK(getsid(0) == 0, "getsid(0) in a new init: %ld", (long)getsid(0));
    TL_CHECK(getpgid(0) == 0, "getpgid(0) in a new init: %ld", (long)getpgid(0));
    TL_CHECK(getpgrp() == 0, "getpgrp() in a new init: %ld", (long)getpgrp());
    TL_CHECK(setsid() == 1, "setsid() returns the new session's ID");
    TL_CHECK(getsid(0) == 1 && getpgid(0) == 1, "after setsid(): sid %ld, pgid %ld",
             (long)getsid(0), (long)getpgid(0));
    return 0;
}

static int sessions(void)
{
    /* Negative control: the runner makes a session of its own, so here,
     * outside the new namespace, both are real numbers (whatever session
     * the suite was started in: under a container's exec its leader may
     * sit outside our namespace, and getsid() is 0 there too). */
    TL_CHECK(setsid() == getpid(), "setsid() in the runner");
    TL_CHECK(getsid(0) == getpid() && getpgid(0) == getpid(), "the runner's own session and group");
    return init_exits_cleanly(start_init(sessions_in_init));
}

static void test_init_session_and_group_are_0_then_1_after_setsid(void **state)
{
    (void)state;
    tl_run_as_root(sessions);
}

/* 2. kill(-1) from an init. */
static int ready_pipe[2];

static void ready_then_pause(void)
{
    TL_CHECK(write(ready_pipe[1], "r", 1) == 1, "tell ready");
    for (;;)
        pause();
}

static int broadcast_in_init(void)
{
    pid_t nested;
    char byte;
    int status, reaped = 0, killed = 0;

    TL_CHECK(getpid() == 1, "kill(-1) only as PID 1 of a new namespace");
    for (int i = 0; i < 2; i++) {
        fflush(NULL);
        pid_t member = fork();
        TL_CHECK(member != -1, "fork a member");
        if (member == 0)
            ready_then_pause();
    }
    /* A member that makes a namespace below ours, with an init of its own. */
    fflush(NULL);
    pid_t middle = fork();
    TL_CHECK(middle != -1, "fork");
    if (middle == 0) {
        TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare for a nested namespace");
        nested = fork();
        TL_CHECK(nested != -1, "fork the nested init");
        if (nested == 0)
            ready_then_pause();
        ready_then_pause();
    }
    for (int i = 0; i < 4; i++)
        TL_CHECK(read(ready_pipe[0], &byte, 1) == 1, "a member is ready");

    /* SIGKILL: the nested init drops every other signal from above. */
    TL_CHECK(kill(-1, SIGKILL) == 0, "kill(-1, SIGKILL) from the init");
    /* Four processes: two members, the middle one, and the nested init, which
     * the middle one's death made our child. */
    while (reaped < 4) {
        pid_t pid = waitpid(-1, &status, 0);
        TL_CHECK(pid > 1, "wait for the members (%d so far)", reaped);
        reaped++;
        killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    }
    TL_CHECK(killed == 4, "killed by SIGKILL: %d of 4", killed);
    TL_CHECK(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD, "no child left");
    /* Alone in its namespace now. */
    errno = 0;
    TL_CHECK(kill(-1, SIGTERM) == -1 && errno == ESRCH, "kill(-1) alone: ESRCH expected");
    return 0;
}

static int broadcast(void)
{
    TL_CHECK(pipe(ready_pipe) == 0, "pipe");
    /* A witness in the runner's namespace, above the init. */
    fflush(NULL);
    pid_t witness = fork();
    TL_CHECK(witness != -1, "fork the witness");
    if (witness == 0)
        for (;;)
            pause();
    pid_t init = start_init(broadcast_in_init);
    int rc = init_exits_cleanly(init);
    TL_CHECK(waitpid(witness, NULL, WNOHANG) == 0 && kill(witness, 0) == 0,
             "the witness above the init is alive");
    /* Negative control: a signal that reaches the witness does end it. */
    TL_CHECK(kill(witness, SIGKILL) == 0, "kill the witness");
    int status = reap(witness);
    TL_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the witness died by SIGKILL");
    return rc;
}

static void test_kill_minus_1_from_init_stays_in_its_namespace_and_below(void **state)
{
    (void)state;
    tl_run_as_root(broadcast);
}

/* 3. The init's own SIGKILL. */
static int self_kill_in_init(void)
{
    TL_CHECK(kill(getpid(), SIGKILL) == 0, "kill(getpid(), SIGKILL) is accepted");
    TL_CHECK(kill(1, SIGKILL) == 0, "kill(1, SIGKILL) is accepted");
    /* Had either been delivered, we would not be here. Negative control: the
     * same call from PID 2 kills PID 2. */
    fflush(NULL);
    pid_t member = fork();
    TL_CHECK(member != -1, "fork");
    if (member == 0) {
        TL_CHECK(getpid() == 2, "the member is PID 2");
        kill(getpid(), SIGKILL);
        _exit(3);
    }
    int status = reap(member);
    TL_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "PID 2 killed itself: %#x",
             status);
    return 0;
}

static int self_kill(void)
{
    return init_exits_cleanly(start_init(self_kill_in_init));
}

static void test_init_cannot_sigkill_itself(void **state)
{
    (void)state;
    tl_run_as_root(self_kill);
}

/* 4. si_pid. */
static int runner_pidfd = -1, chan[2]; /* socketpair: chan[0] the runner's, chan[1] the init's */

static int wait_signal(int sig, siginfo_t *si)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    return sigwaitinfo(&set, si);
}

static int si_pid_in_init(void)
{
    siginfo_t si;
    char byte;

    /* The init signals itself, by number and as PID 1. */
    TL_CHECK(kill(getpid(), SIGUSR1) == 0 && wait_signal(SIGUSR1, &si) == SIGUSR1, "self");
    TL_CHECK(si.si_pid == 1 && si.si_code == SI_USER, "own kill(): si_pid %d", si.si_pid);
    /* PID 2 sends with sigqueue(), then exits: SIGCHLD names it too. */
    fflush(NULL);
    pid_t member = fork();
    TL_CHECK(member != -1, "fork PID 2");
    if (member == 0) {
        TL_CHECK(getpid() == 2, "the member is PID 2");
        TL_CHECK(sigqueue(1, SIGUSR1, (union sigval){.sival_int = 7}) == 0, "sigqueue");
        _exit(0);
    }
    TL_CHECK(wait_signal(SIGUSR1, &si) == SIGUSR1, "from PID 2");
    TL_CHECK(si.si_pid == 2 && si.si_code == SI_QUEUE && si.si_value.sival_int == 7,
             "sigqueue() from PID 2: si_pid %d, code %d", si.si_pid, si.si_code);
    TL_CHECK(wait_signal(SIGCHLD, &si) == SIGCHLD && si.si_pid == 2, "SIGCHLD of PID 2: si_pid %d",
             si.si_pid);
    reap(member);
    /* From the parent namespace: no number here. */
    TL_CHECK(write(chan[1], "s", 1) == 1, "ask the runner");
    TL_CHECK(wait_signal(SIGUSR1, &si) == SIGUSR1, "from the runner");
    TL_CHECK(si.si_pid == 0, "kill() from the parent namespace: si_pid %d", si.si_pid);
    /* Upwards there is no way to send one: even a pidfd of the runner,
     * opened before the namespace was made, is refused. */
    errno = 0;
    TL_CHECK(syscall(SYS_pidfd_send_signal, runner_pidfd, SIGUSR2, NULL, 0) == -1 &&
                 errno == EINVAL,
             "pidfd_send_signal to a process above: EINVAL expected");
    TL_CHECK(write(chan[1], "u", 1) == 1, "tell the runner");
    TL_CHECK(read(chan[1], &byte, 1) == 1, "the runner's answer");
    return 0;
}

static int signal_senders(void)
{
    sigset_t set;
    siginfo_t si;
    char byte;

    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGCHLD);
    /* Blocked signals are queued even for an init without handlers. */
    TL_CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0, "block");
    runner_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    TL_CHECK(runner_pidfd != -1, "pidfd_open (Linux 5.3)");
    TL_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, chan) == 0, "socketpair");
    pid_t init = start_init(si_pid_in_init);
    close(chan[1]); /* so that a read sees the init's death */
    TL_CHECK(read(chan[0], &byte, 1) == 1, "the init is waiting");
    TL_CHECK(kill(init, SIGUSR1) == 0, "kill the init with SIGUSR1");
    TL_CHECK(read(chan[0], &byte, 1) == 1, "the init tried upwards");
    TL_CHECK(sigpending(&set) == 0 && !sigismember(&set, SIGUSR2), "nothing came from below");
    /* Negative control: the same pidfd works from here, in our namespace. */
    TL_CHECK(syscall(SYS_pidfd_send_signal, runner_pidfd, SIGUSR2, NULL, 0) == 0,
             "pidfd_send_signal to ourselves");
    TL_CHECK(wait_signal(SIGUSR2, &si) == SIGUSR2 && si.si_pid == getpid(), "own signal");
    TL_CHECK(write(chan[0], "d", 1) == 1, "tell the init");
    /* From below: the init's SIGCHLD carries its number here. */
    TL_CHECK(wait_signal(SIGCHLD, &si) == SIGCHLD && si.si_pid == init,
             "SIGCHLD of the init: si_pid %d", si.si_pid);
    return init_exits_cleanly(init);
}

static void test_si_pid_names_the_sender_as_the_receiver_sees_it(void **state)
{
    (void)state;
    tl_run_as_root(signal_senders);
}

/* 5. Becoming init by setns(). Linux up to 6.18 refuses to open the link of a
 * namespace that has no init yet; later kernels (the selftest
 * pid_namespace/pidns_init_via_setns) open it, and the first process forked
 * into it is its PID 1. */
static int kernel_at_most(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    TL_CHECK(uname(&u) == 0 && sscanf(u.release, "%d.%d", &ma, &mi) == 2, "uname");
    return ma < major || (ma == major && mi <= minor);
}

static int setns_init(void)
{
    char path[64], byte;
    int ready[2], go[2], status;

    TL_CHECK(pipe(ready) == 0 && pipe(go) == 0, "pipes");
    fflush(NULL);
    pid_t holder = fork();
    TL_CHECK(holder != -1, "fork");
    if (holder == 0) {
        /* Makes the namespace, then waits; forks once told to. */
        TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID)");
        TL_CHECK(write(ready[1], "u", 1) == 1, "ready");
        TL_CHECK(read(go[0], &byte, 1) == 1, "go");
        if (byte == 'f') {
            fflush(NULL);
            pid_t child = fork();
            TL_CHECK(child != -1, "fork into the namespace");
            if (child == 0) {
                TL_CHECK(write(ready[1], "c", 1) == 1, "ready");
                for (;;)
                    pause();
            }
            TL_CHECK(read(go[0], &byte, 1) == 1, "go");
            kill(child, SIGKILL);
            reap(child);
        }
        _exit(0);
    }
    TL_CHECK(read(ready[0], &byte, 1) == 1, "the holder unshared");
    snprintf(path, sizeof path, "/proc/%ld/ns/pid_for_children", (long)holder);
    errno = 0;
    int fd = open(path, O_RDONLY);
    if (fd == -1) {
        TL_CHECK(errno == ENOENT, "open %s before any init", path);
        print_message("pid_for_children before an init: ENOENT (this kernel)\n");
        /* Negative control: once the holder has a child, the same path opens. */
        TL_CHECK(write(go[1], "f", 1) == 1 && read(ready[0], &byte, 1) == 1, "the holder forked");
        fd = open(path, O_RDONLY);
        TL_CHECK(fd != -1, "open %s after the init exists", path);
        close(fd);
        TL_CHECK(write(go[1], "e", 1) == 1, "end");
    } else {
        TL_CHECK(!kernel_at_most(6, 18), "Linux 6.18 and older refuse %s before an init", path);
        print_message("pid_for_children before an init: opened (this kernel)\n");
        TL_CHECK(setns(fd, CLONE_NEWPID) == 0, "setns(pid_for_children)");
        close(fd);
        fflush(NULL);
        pid_t child = fork();
        TL_CHECK(child != -1, "fork after setns()");
        if (child == 0)
            _exit(getpid() == 1 && getppid() == 0 ? 0 : 1);
        status = reap(child);
        TL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child was not PID 1");
        TL_CHECK(write(go[1], "e", 1) == 1, "end");
    }
    status = reap(holder);
    TL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the holder's status %#x", status);
    return 0;
}

static void test_setns_to_pid_for_children_without_init(void **state)
{
    (void)state;
    tl_run_as_root(setns_init);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_session_and_group_are_0_then_1_after_setsid),
        cmocka_unit_test(test_kill_minus_1_from_init_stays_in_its_namespace_and_below),
        cmocka_unit_test(test_init_cannot_sigkill_itself),
        cmocka_unit_test(test_si_pid_names_the_sender_as_the_receiver_sees_it),
        cmocka_unit_test(test_setns_to_pid_for_children_without_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
