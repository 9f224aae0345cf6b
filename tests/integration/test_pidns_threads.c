/* SPDX-License-Identifier: MIT */
/* test_pidns_threads.c: threads and PID namespaces, observed on the real
 * kernel from here (lesson 20, examples/pidns_threads.c):
 *
 *   1. clone(CLONE_NEWPID | CLONE_THREAD) is EINVAL, even without privilege
 *      (the check comes before the namespace is made);
 *   2. after unshare(CLONE_NEWPID), pthread_create() and a raw CLONE_THREAD
 *      are EINVAL, the next fork() is PID 1, and a thread of that init has
 *      NStgid "INIT 1" and NSpid "TID 2" in its /proc/PID/task/TID/status;
 *   3. after setns() to a PID namespace, pthread_create() is EINVAL and the
 *      child forked then is a member (not 1) of that namespace;
 *   4. a multithreaded process may unshare(CLONE_NEWPID) (Linux 3.12 on);
 *   5. an init's clone(CLONE_PARENT) is EINVAL, PID 2's works, and
 *      CLONE_NEWPID | CLONE_PARENT works (Linux 3.13 on);
 *   6. the example: with --stay, its init's second thread shows NStgid/NSpid
 *      as in 2 (read here, not from what it printed), its lines match them,
 *      and SIGTERM ends it all; as root and as nobody; bad arguments.
 *
 * Kernel cases run in a forked runner (tl_run_as_root, testlib.h) that, when
 * not root, first becomes root of a user namespace of its own; every process
 * a case starts dies before the case returns.
 */

#include "examples_run.h"
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char clone_stack[64 * 1024];

static int never_runs(void *arg)
{
    (void)arg;
    return 0;
}

static void *pause_forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* The init of a namespace that setns() joins: it waits to be killed. */
static int holds(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return 0;
}

static void *returns(void *arg)
{
    return arg;
}

/* clone(flags) with a function and a stack, as glibc's wrapper wants. */
static pid_t clone_flags(int flags)
{
    return clone(never_runs, clone_stack + sizeof clone_stack, flags, NULL);
}

static int reap(pid_t pid)
{
    int status;
    TL_CHECK(waitpid(pid, &status, __WALL) == pid, "waitpid %ld", (long)pid);
    return status;
}

/* One field of /proc/PID/task/TID/status, tabs kept, into value. */
static void task_field(long pid, long tid, const char *field, char *value, size_t size)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/status", pid, tid);
    TL_CHECK(ex_status_field(path, field, value, size), "no %s in %s", field, path);
}

/* The TID (here) of the one thread of process pid that is not its leader. */
static long other_thread(long pid)
{
    char path[64];
    struct dirent *d;
    long tid = 0, tasks = 0;

    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    for (int tries = 0; tries < 200 && tasks != 2; tries++) { /* the thread may be starting */
        DIR *dir = opendir(path);
        TL_CHECK(dir != NULL, "opendir %s", path);
        tasks = 0;
        while ((d = readdir(dir)) != NULL)
            if (d->d_name[0] != '.' && ++tasks && atol(d->d_name) != pid)
                tid = atol(d->d_name);
        closedir(dir);
        if (tasks != 2)
            usleep(10000);
    }
    TL_CHECK(tasks == 2 && tid > 0, "process %ld has %ld tasks", pid, tasks);
    return tid;
}

/* 1 */
static int thread_with_newpid(void)
{
    TL_CHECK(clone_flags(CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_FS) == -1 &&
                 errno == EINVAL,
             "clone(CLONE_NEWPID | CLONE_THREAD) did not fail with EINVAL");
    return 0;
}

static void test_clone_thread_with_newpid_is_einval(void **state)
{
    (void)state;
    tl_run_as_root(thread_with_newpid);
}

static void test_clone_thread_with_newpid_is_einval_before_the_privilege_check(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t child = fork();
    assert_true(child != -1);
    if (child == 0) {
        if (geteuid() == 0) /* else we are an ordinary user already */
            tl_become_nobody();
        TL_CHECK(unshare(CLONE_NEWPID) == -1 && errno == EPERM,
                 "nobody may unshare(CLONE_NEWPID)?");
        _exit(thread_with_newpid());
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* 2 */
static int unshare_then_threads(void)
{
    pthread_t t;
    int go[2];
    char byte;

    TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID)");
    TL_CHECK(pthread_create(&t, NULL, returns, NULL) == EINVAL, "pthread_create after unshare()");
    TL_CHECK(clone_flags(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM) == -1 && errno == EINVAL,
             "raw CLONE_THREAD after unshare()");
    TL_CHECK(pipe(go) == 0, "pipe");
    pid_t init = fork();
    TL_CHECK(init != -1, "fork after the failed thread");
    if (init == 0) {
        TL_CHECK(getpid() == 1, "the first child is PID %ld, not 1", (long)getpid());
        TL_CHECK(pthread_create(&t, NULL, pause_forever, NULL) == 0, "the init's pthread_create");
        TL_CHECK(write(go[1], "t", 1) == 1, "write");
        for (;;)
            pause();
    }
    close(go[1]);
    TL_CHECK(read(go[0], &byte, 1) == 1, "the init did not make its thread");
    long tid = other_thread(init);
    char value[128], expect[128];
    task_field(init, tid, "NStgid", value, sizeof value);
    snprintf(expect, sizeof expect, "%ld\t1", (long)init);
    TL_CHECK(strcmp(value, expect) == 0, "the thread's NStgid is '%s', not '%s'", value, expect);
    task_field(init, tid, "NSpid", value, sizeof value);
    snprintf(expect, sizeof expect, "%ld\t2", tid);
    TL_CHECK(strcmp(value, expect) == 0, "the thread's NSpid is '%s', not '%s'", value, expect);
    task_field(init, tid, "Tgid", value, sizeof value);
    TL_CHECK(atol(value) == init, "the thread's Tgid is %s", value);
    TL_CHECK(kill(init, SIGKILL) == 0, "kill the init");
    reap(init);
    return 0;
}

static void test_unshare_newpid_refuses_threads_and_the_fork_is_init(void **state)
{
    (void)state;
    tl_run_as_root(unshare_then_threads);
}

/* 3 */
static int setns_then_threads(void)
{
    pthread_t t;
    char path[64], value[128];

    pid_t holder = clone(holds, clone_stack + sizeof clone_stack, CLONE_NEWPID | SIGCHLD, NULL);
    TL_CHECK(holder > 0, "clone(CLONE_NEWPID) a holder");
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)holder);
    int fd = open(path, O_RDONLY);
    TL_CHECK(fd != -1, "open %s", path);
    TL_CHECK(setns(fd, CLONE_NEWPID) == 0, "setns %s", path);
    close(fd);
    TL_CHECK(pthread_create(&t, NULL, returns, NULL) == EINVAL, "pthread_create after setns()");
    int go[2];
    TL_CHECK(pipe(go) == 0, "pipe");
    pid_t member = fork();
    TL_CHECK(member != -1, "fork after setns()");
    if (member == 0) {
        char byte;
        close(go[1]);
        TL_CHECK(read(go[0], &byte, 1) == 0, "read");
        _exit(0);
    }
    close(go[0]);
    snprintf(path, sizeof path, "/proc/%ld/status", (long)member);
    TL_CHECK(ex_status_field(path, "NSpid", value, sizeof value), "no NSpid in %s", path);
    char *inner = strrchr(value, '\t');
    TL_CHECK(inner != NULL && atol(inner + 1) > 1, "the member's NSpid is '%s'", value);
    close(go[1]);
    reap(member);
    TL_CHECK(kill(holder, SIGKILL) == 0, "kill the holder");
    reap(holder);
    return 0;
}

static void test_setns_to_a_pid_namespace_refuses_threads(void **state)
{
    (void)state;
    tl_run_as_root(setns_then_threads);
}

/* 4 */
static int multithreaded_unshare(void)
{
    pthread_t t;
    TL_CHECK(pthread_create(&t, NULL, pause_forever, NULL) == 0, "pthread_create");
    TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID) with two threads");
    return 0; /* _exit() ends the thread too */
}

static void test_a_multithreaded_process_may_unshare_newpid(void **state)
{
    (void)state;
    tl_run_as_root(multithreaded_unshare);
}

/* 5 */
static int clone_parent_cases(void)
{
    int status;
    pid_t mid = fork(); /* its CLONE_PARENT child is ours */
    TL_CHECK(mid != -1, "fork");
    if (mid == 0)
        _exit(clone_flags(CLONE_NEWPID | CLONE_PARENT | SIGCHLD) > 0 ? 0 : 1);
    status = reap(mid);
    TL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clone(CLONE_NEWPID | CLONE_PARENT)");
    TL_CHECK(wait(NULL) > 0, "the CLONE_PARENT child of the runner's child is not the runner's");

    TL_CHECK(unshare(CLONE_NEWPID) == 0, "unshare(CLONE_NEWPID)");
    pid_t init = fork();
    TL_CHECK(init != -1, "fork the init");
    if (init == 0) {
        TL_CHECK(clone_flags(CLONE_PARENT | SIGCHLD) == -1 && errno == EINVAL,
                 "the init's clone(CLONE_PARENT)");
        pid_t two = fork();
        TL_CHECK(two != -1, "fork PID 2");
        if (two == 0) {
            TL_CHECK(clone_flags(CLONE_PARENT | SIGCHLD) > 0, "PID 2's clone(CLONE_PARENT)");
            _exit(0);
        }
        /* PID 2 and its sibling, both ours */
        TL_CHECK(WIFEXITED(reap(two)), "PID 2");
        TL_CHECK(wait(NULL) > 0, "the sibling PID 2 made with CLONE_PARENT is not our child");
        _exit(0);
    }
    status = reap(init);
    TL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the init's status %#x", status);

    return 0;
}

static void test_an_init_may_not_clone_parent_but_pid_2_may(void **state)
{
    (void)state;
    tl_run_as_root(clone_parent_cases);
}

/* 6: the example, read from here. */
static int example_stay(void *arg)
{
    int failed = 0;
    struct ex_run r = {.pid = 0};
    char value[128], expect[128], line[256], ns_init[64], ns_thread[64], path[96];
    long init = 0, tid = 0;

    (void)arg;
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_threads", "--stay", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "stay until Ctrl-C\n", 5000), "output so far:\n%s", r.out);
    char *at = strstr(r.out, "fork(): the child is PID ");
    EXPECT(at != NULL && sscanf(at, "fork(): the child is PID %ld", &init) == 1, "got:\n%s", r.out);
    snprintf(path, sizeof path, "/proc/%ld/status", init);
    EXPECT(ex_status_field(path, "PPid", value, sizeof value) && atol(value) == r.pid,
           "the init's parent is %s, not the example", value);
    /* its tasks: the init and one thread */
    DIR *dir;
    struct dirent *d;
    int tasks = 0;
    snprintf(path, sizeof path, "/proc/%ld/task", init);
    EXPECT((dir = opendir(path)) != NULL, "opendir %s", path);
    while ((d = readdir(dir)) != NULL)
        if (d->d_name[0] != '.' && ++tasks && atol(d->d_name) != init)
            tid = atol(d->d_name);
    closedir(dir);
    EXPECT(tasks == 2 && tid > 0, "the init has %d tasks", tasks);
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/status", init, tid);
    EXPECT(ex_status_field(path, "NStgid", value, sizeof value), "no NStgid");
    snprintf(expect, sizeof expect, "%ld\t1", init);
    EXPECT(strcmp(value, expect) == 0, "NStgid '%s', not '%s'", value, expect);
    snprintf(line, sizeof line, "[thread] NStgid:\t%s\n", value);
    EXPECT(strstr(r.out, line) != NULL, "it did not print '%s':\n%s", line, r.out);
    EXPECT(ex_status_field(path, "NSpid", value, sizeof value), "no NSpid");
    snprintf(expect, sizeof expect, "%ld\t2", tid);
    EXPECT(strcmp(value, expect) == 0, "NSpid '%s', not '%s'", value, expect);
    snprintf(line, sizeof line, "[thread] NSpid:\t%s\n", value);
    EXPECT(strstr(r.out, line) != NULL, "it did not print '%s':\n%s", line, r.out);
    /* the thread is in its process's namespace, a new one */
    snprintf(path, sizeof path, "/proc/%ld/task", init);
    ex_pidns_of(path, tid, ns_thread, sizeof ns_thread);
    ex_pidns_of("/proc", init, ns_init, sizeof ns_init);
    ex_pidns_of("/proc", r.pid, value, sizeof value);
    EXPECT(ns_init[0] != '\0' && strcmp(ns_thread, ns_init) == 0 && strcmp(ns_init, value) != 0,
           "namespaces: thread %s, init %s, example %s", ns_thread, ns_init, value);
    EXPECT(strstr(r.out, "pthread_create() after unshare(): EINVAL (Invalid argument)\n") &&
               strstr(r.out, "clone(CLONE_NEWPID | CLONE_THREAD): EINVAL (Invalid argument)\n") &&
               strstr(r.out, "[init  ] clone(CLONE_PARENT): EINVAL (Invalid argument)\n"),
           "got:\n%s", r.out);

    EXPECT(kill(r.pid, SIGTERM) == 0, "kill: %s", strerror(errno));
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + SIGTERM, "exit status %d, output:\n%s", status, r.out);
    EXPECT(kill(init, 0) == -1 && errno == ESRCH, "the init outlived the example");
    EXPECT(ex_no_process_left(), "a process of the example outlived it");
out:
    ex_abandon(&r);
    return failed;
}

static void test_example_thread_of_the_init_has_nstgid_1_and_nspid_2(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(example_stay, NULL, false);
}

static void test_example_thread_of_the_init_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    ex_run_test(example_stay, NULL, true);
}

static void test_example_bad_arguments_leave_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/pidns_threads x", "unknown argument 'x'"},
        {"/ex/pidns_threads --stay x", "--stay takes nothing after it, not 'x'"},
        {"/ex/pidns_threads --setns", "--setns wants one PID after it"},
        {"/ex/pidns_threads --setns 12x", "--setns wants a PID, not '12x'"},
        {"/ex/pidns_threads --setns 999999999", "open /proc/999999999/ns/pid"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clone_thread_with_newpid_is_einval),
        cmocka_unit_test(test_clone_thread_with_newpid_is_einval_before_the_privilege_check),
        cmocka_unit_test(test_unshare_newpid_refuses_threads_and_the_fork_is_init),
        cmocka_unit_test(test_setns_to_a_pid_namespace_refuses_threads),
        cmocka_unit_test(test_a_multithreaded_process_may_unshare_newpid),
        cmocka_unit_test(test_an_init_may_not_clone_parent_but_pid_2_may),
        cmocka_unit_test(test_example_thread_of_the_init_has_nstgid_1_and_nspid_2),
        cmocka_unit_test(test_example_thread_of_the_init_as_nobody),
        cmocka_unit_test(test_example_bad_arguments_leave_nothing),
    };
    return cmocka_run_group_tests(tests, ex_load, ex_unload);
}
