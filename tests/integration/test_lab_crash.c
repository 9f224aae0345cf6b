/* SPDX-License-Identifier: MIT */
/* test_lab_crash.c: the lab is crash-proof and private. When the process
 * holding it dies in any way (SIGKILL included) with nested namespaces
 * running, nothing it started survives and its mount namespaces are gone
 * within a second; two labs at once never see each other's /procK. */
#include "lab_holder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

/* The holder: a lab with two jobs, one of them two namespaces deep, each
 * with its /procN mounted; tells the test its keeper, then waits to die. */
static int hold_nested_lab(void *arg)
{
    int fd = *(int *)arg, failed = 0, status, job;
    char cmd[512];
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the "crash" case must not write a core file */
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    lt_nested_command(cmd, sizeof cmd, 2, 100);
    EXPECT(lab_start(lab, cmd, 2, &status, &job) == 1, "a nested namespace");
    EXPECT(lab_start(lab,
                     "unshare -p -f sh -c 'mkdir -p /proc3 && mount -t proc proc /proc3 && "
                     "unshare -p -f sh -c \"mkdir -p /proc4 && mount -t proc proc /proc4 && "
                     "exec sleep 100\"'",
                     2, &status, &job) == 1,
           "two levels deeper");
    lt_tell(fd, "%d\n", (int)lab_keeper_pid(lab));
    for (;;)
        pause();
out:
    lt_tell(fd, "failed\n");
    return failed;
}

/* Is the PID namespace of pid the one of the keeper, or below it? */
static int in_lab_namespace(const char *pid, const struct stat *lab_ns)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/ns/pid", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    for (int depth = 0; fd != -1 && depth < 40; depth++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_ino == lab_ns->st_ino && st.st_dev == lab_ns->st_dev) {
            close(fd);
            return 1;
        }
        int parent = ioctl(fd, NS_GET_PARENT);
        close(fd);
        fd = parent;
    }
    if (fd != -1)
        close(fd);
    return 0;
}

/* Processes in the lab's PID namespaces or in its mount namespaces. */
static int lab_remnants(const struct stat *lab_ns, const ino_t *mnt_ns, size_t mnt_count)
{
    DIR *dir = opendir("/proc");
    struct dirent *e;
    int count = 0;
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        char path[300];
        struct stat st;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        int hit = in_lab_namespace(e->d_name, lab_ns);
        snprintf(path, sizeof path, "/proc/%s/ns/mnt", e->d_name);
        for (size_t i = 0; !hit && i < mnt_count; i++)
            hit = stat(path, &st) == 0 && st.st_ino == mnt_ns[i];
        count += hit;
    }
    if (dir != NULL)
        closedir(dir);
    return count;
}

static void holder_dies_by(int sig)
{
    struct tl_host_snapshot before;
    int pipefd[2];
    char line[64], path[64];
    struct stat lab_ns, st;
    ino_t mnt_ns[2];

    tl_host_snapshot(&before);
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t holder = fork();
    assert_int_not_equal(holder, -1);
    if (holder == 0)
        _exit(hold_nested_lab(&pipefd[1]));
    close(pipefd[1]);
    int got = lt_read_line(pipefd[0], line, sizeof line, 20);
    close(pipefd[0]);
    int keeper = got == 0 ? atoi(line) : 0;
    snprintf(path, sizeof path, "/proc/%d/ns/pid", keeper);
    int ok = keeper > 0 && stat(path, &lab_ns) == 0;
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", keeper); /* the keeper's mount namespace */
    ok = ok && stat(path, &st) == 0;
    mnt_ns[0] = st.st_ino;
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)holder); /* the sandbox's */
    ok = ok && stat(path, &st) == 0;
    mnt_ns[1] = st.st_ino;
    /* keeper, 2 runners, 2 unshare, 2 inits (sh), 1 more unshare + sleep... */
    int alive = ok ? lab_remnants(&lab_ns, mnt_ns, 2) : 0;
    kill(holder, sig);
    double t0 = tl_now(), elapsed;
    int left, status = 0;
    pid_t pid;
    for (;;) {
        /* Reap as init would: the holder's children (keeper, runners) are
         * re-parented to us, the tests' subreaper, when it dies. */
        int ws;
        while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
            if (pid == holder) {
                status = ws;
                holder = -holder;
            }
        left = lab_remnants(&lab_ns, mnt_ns, 2);
        if (left == 0 || tl_now() - t0 > 20)
            break;
        usleep(1000);
    }
    elapsed = tl_now() - t0;
    if (holder > 0)
        waitpid(holder, &status, 0);
    print_message("signal %d: %d lab processes before, %d after %.0f ms\n", sig, alive, left,
                  elapsed * 1000);
    assert_true(ok);
    assert_true(alive >= 8);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    assert_int_equal(left, 0); /* how fast is a figure, not a verdict: a loaded machine is slow */
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

static void test_kill9_of_the_holder_leaves_no_process_and_no_mount(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    holder_dies_by(SIGKILL);
}

static void test_sigterm_sighup_and_a_crash_leave_nothing_either(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    holder_dies_by(SIGTERM);
    holder_dies_by(SIGHUP);
    holder_dies_by(SIGABRT);
}

struct two_labs {
    int ready_fd, go_fd;
    int seconds; /* the nested init's sleep: tells the labs apart */
    int extra;   /* a second /procN this lab makes, 0 for none */
};

static int one_of_two_labs(void *arg)
{
    struct two_labs *t = arg;
    int failed = 0, status, job, code;
    char cmd[256], want[64], go;
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    lt_nested_command(cmd, sizeof cmd, 2, t->seconds);
    EXPECT(lab_start(lab, cmd, 2, &status, &job) == 1, "a nested namespace at /proc2");
    if (t->extra) {
        snprintf(cmd, sizeof cmd, "mkdir /proc%d", t->extra);
        EXPECT(lab_run(lab, cmd, 1, 2) == 0, "another /procN");
    }
    lt_tell(t->ready_fd, "ready\n");
    EXPECT(read(t->go_fd, &go, 1) == 1, "both labs are up");
    snprintf(want, sizeof want, "sleep %d\n", t->seconds);
    const char *seen =
        lt_capture(lab, "tr '\\0' ' ' < /proc2/1/cmdline | sed 's/ $//'; echo", &code);
    EXPECT(strcmp(seen, want) == 0, "its own /proc2: %s", seen);
    snprintf(want, sizeof want, "/proc2\n");
    if (t->extra)
        snprintf(want, sizeof want, "/proc2\n/proc%d\n", t->extra);
    seen = lt_capture(lab, "ls -d /proc[0-9]*", NULL);
    EXPECT(strcmp(seen, want) == 0, "only its own /procN: %s", seen);
    seen = lt_capture(lab, "ps -e -o args=", NULL);
    snprintf(want, sizeof want, "sleep %d", t->seconds == 1001 ? 1002 : 1001);
    EXPECT(strstr(seen, want) == NULL, "not the other lab's processes:\n%s", seen);
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

static void test_two_labs_at_once_each_see_only_their_own_proc2(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    int ready[2], go[2], status_a, status_b;
    char line[32];
    tl_host_snapshot(&before);
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    struct two_labs a = {ready[1], go[0], 1001, 7}, b = {ready[1], go[0], 1002, 0};
    fflush(NULL);
    pid_t pa = fork();
    if (pa == 0)
        _exit(lt_run_holder(one_of_two_labs, &a, 0, 30) == 0 ? 0 : 1);
    pid_t pb = fork();
    if (pb == 0) /* the second lab belongs to an ordinary user */
        _exit(lt_run_holder(one_of_two_labs, &b, 1, 30) == 0 ? 0 : 1);
    int up = lt_read_line(ready[0], line, sizeof line, 20) == 0 &&
             lt_read_line(ready[0], line, sizeof line, 20) == 0;
    assert_int_equal(write(go[1], "gg", 2), 2);
    waitpid(pa, &status_a, 0);
    waitpid(pb, &status_b, 0);
    assert_true(up);
    lt_assert_holder_passed(status_a);
    lt_assert_holder_passed(status_b);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill9_of_the_holder_leaves_no_process_and_no_mount),
        cmocka_unit_test(test_sigterm_sighup_and_a_crash_leave_nothing_either),
        cmocka_unit_test(test_two_labs_at_once_each_see_only_their_own_proc2),
    };
    return cmocka_run_group_tests(tests, lt_setup, lt_teardown);
}
