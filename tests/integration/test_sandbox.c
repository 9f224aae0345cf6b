/* SPDX-License-Identifier: MIT */
/* test_sandbox.c: the sandbox gives a private root whose /procN directories
 * and mounts the host never sees, as root and as an ordinary user. */
#include "testlib.h"
#include "lab/sandbox.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

static int make_proc2_and_look(void *arg)
{
    (void)arg;
    struct stat st;
    if (mkdir("/proc2", 0555) == -1) {
        perror("mkdir /proc2");
        return 1;
    }
    if (mount("proc", "/proc2", "proc", 0, NULL) == -1) {
        perror("mount proc /proc2");
        return 2;
    }
    /* The host's top-level entries are still reachable through bind mounts. */
    if (stat("/usr/bin/env", &st) == -1 || stat("/proc/self/status", &st) == -1) {
        perror("stat through the bind mounts");
        return 3;
    }
    return 0;
}

static void test_proc2_in_sandbox_is_invisible_to_host(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    int status = tl_in_sandbox(make_proc2_and_look, NULL, false);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(access("/proc2", F_OK), -1);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

static void test_sandbox_works_for_an_ordinary_user(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    fflush(NULL);
    pid_t pid = fork();
    assert_int_not_equal(pid, -1);
    if (pid == 0) {
        char err[512];
        struct sandbox_info info;
        tl_become_nobody();
        if (sandbox_enter(0, &info, err, sizeof err) == -1) {
            fprintf(stderr, "sandbox_enter as nobody: %s\n", err);
            _exit(91);
        }
        if (!info.used_user_namespace || info.outer_uid != TL_NOBODY)
            _exit(92);
        /* Unprivileged, procfs can be mounted only for a PID namespace our
         * user namespace owns: make one, as the lab does. */
        if (unshare(CLONE_NEWPID) == -1)
            _exit(93);
        pid_t child = fork();
        if (child == 0)
            _exit(make_proc2_and_look(NULL));
        int child_status;
        if (child == -1 || waitpid(child, &child_status, 0) != child)
            _exit(94);
        _exit(WIFEXITED(child_status) ? WEXITSTATUS(child_status) : 95);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

/* In a sandbox (by the route flags ask) and a mount namespace of its own, as
 * the lab's init does: sandbox_protect_host() with or without
 * mount_setattr(). Returns an exit status naming the first thing wrong. */
static int protect_and_probe(int enter_flags, int protect_flags, const char *kept,
                             const char *hidden)
{
    char err[512];
    const char *keep[] = {kept, NULL};
    struct statvfs sv;
    if (sandbox_enter(enter_flags, NULL, err, sizeof err) == -1 || unshare(CLONE_NEWNS) == -1)
        return 80;
    if (sandbox_protect_host(protect_flags, keep, err, sizeof err) == -1) {
        fprintf(stderr, "sandbox_protect_host: %s\n", err);
        return 81;
    }
    /* Negative control first: the lab's own places take writes. */
    int fd = open("/tmp/scratch", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1 || mkdir("/proc3", 0555) == -1)
        return 82;
    close(fd);
    /* The host's files: refused, recursively (a submount too). */
    errno = 0;
    if (open("/etc/pidns-tutor-protect-test", O_WRONLY | O_CREAT | O_CLOEXEC, 0644) != -1 ||
        errno != EROFS)
        return 83;
    if (statvfs("/usr", &sv) == -1 || !(sv.f_flag & ST_RDONLY))
        return 84;
    if (statvfs("/sys/fs/cgroup", &sv) == 0 && !(sv.f_flag & ST_RDONLY))
        return 85;
    /* The host's /tmp is hidden, but the kept directory is back, read-only. */
    if (access(kept, F_OK) == -1 || access(hidden, F_OK) == 0)
        return 86;
    char inside[512];
    snprintf(inside, sizeof inside, "%s/new", kept);
    errno = 0;
    if (open(inside, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) != -1 || errno != EROFS)
        return 87;
    return 0;
}

static void test_protect_host_makes_the_host_read_only(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    char kept[] = "/tmp/pidns-tutor-kept.XXXXXX";
    char hidden[] = "/tmp/pidns-tutor-hidden.XXXXXX";
    assert_non_null(mkdtemp(kept));
    assert_non_null(mkdtemp(hidden));
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    for (int route = 0; route < 2; route++)
        for (int fallback = 0; fallback < 2; fallback++) {
            fflush(NULL);
            pid_t pid = fork();
            assert_int_not_equal(pid, -1);
            if (pid == 0)
                _exit(protect_and_probe(route ? SANDBOX_FORCE_USER_NAMESPACE : 0,
                                        fallback ? SANDBOX_PROTECT_NO_SETATTR : 0, kept, hidden));
            int status;
            assert_int_equal(waitpid(pid, &status, 0), pid);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("%s route, %s: status %d", route ? "user-namespace" : "root",
                         fallback ? "one remount per mount" : "mount_setattr",
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    assert_int_equal(access("/etc/pidns-tutor-protect-test", F_OK), -1);
    rmdir(kept);
    rmdir(hidden);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

static void test_host_mountinfo_fd_still_reads_host_table(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    fflush(NULL);
    pid_t pid = fork();
    assert_int_not_equal(pid, -1);
    if (pid == 0) {
        char err[512], buf[65536];
        struct sandbox_info info;
        if (sandbox_enter(SANDBOX_KEEP_HOST_MOUNTINFO, &info, err, sizeof err) == -1)
            _exit(91);
        if (mkdir("/proc2", 0555) == -1 || mount("proc", "/proc2", "proc", 0, NULL) == -1)
            _exit(92);
        ssize_t n = pread(info.host_mountinfo_fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            _exit(93);
        buf[n] = '\0';
        /* The host's table does not have our mount; ours does. */
        _exit(strstr(buf, " /proc2 ") != NULL ? 94 : 0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* In the sandbox: a box (a sleeping init of a new PID namespace), a
 * process joined into it whose parent leaves at once (the orphan goes to
 * the test, a child subreaper, outside the box), then the box's init
 * killed: its exit waits until the orphan is reaped, by the test. */
static int orphan_in_a_dying_box(void *arg)
{
    (void)arg;
    int ready[2];
    char path[64], c;
    if (pipe(ready) == -1)
        return 1;
    pid_t box = fork();
    if (box == 0) { /* unshare(CLONE_NEWPID) then fork: the box's init */
        if (unshare(CLONE_NEWPID) == -1)
            _exit(2);
        pid_t init = fork();
        if (init == 0) {
            close(ready[0]);
            if (write(ready[1], "r", 1) != 1)
                _exit(3);
            pause();
            _exit(0);
        }
        waitpid(init, NULL, 0); /* the box's init ends when it is killed */
        _exit(0);
    }
    close(ready[1]);
    if (box == -1 || read(ready[0], &c, 1) != 1)
        return 4;
    /* The box's init is the child of `box`. */
    pid_t init = 0;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)box, (int)box);
    FILE *f = fopen(path, "r");
    if (f == NULL || fscanf(f, "%d", &init) != 1 || init <= 0)
        return 5;
    fclose(f);
    pid_t joiner = fork();
    if (joiner == 0) { /* setns into the box, fork the orphan, leave */
        snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)init);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd == -1 || setns(fd, CLONE_NEWPID) == -1)
            _exit(6);
        pid_t orphan = fork();
        if (orphan == 0) {
            pause();
            _exit(0);
        }
        _exit(orphan == -1 ? 7 : 0);
    }
    int status;
    if (waitpid(joiner, &status, 0) != joiner || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 8;
    kill(init, SIGKILL);
    waitpid(box, NULL, 0); /* returns once the box's init is gone */
    return 0;
}

/* A test that is a child subreaper (tl_run_sandboxed) inherits a case's
 * orphans; one in a namespace whose init was killed must be reaped while
 * the test waits for the case, or the init never ends and the case never
 * returns (test_pidns_pidfd hung this way for 40 minutes). The alarm turns
 * a deadlock into a failure. */
static void test_a_subreaper_reaps_an_orphan_that_holds_a_dying_namespace(void **state)
{
    (void)state;
    alarm(30);
    tl_run_sandboxed(orphan_in_a_dying_box, false);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc2_in_sandbox_is_invisible_to_host),
        cmocka_unit_test(test_sandbox_works_for_an_ordinary_user),
        cmocka_unit_test(test_host_mountinfo_fd_still_reads_host_table),
        cmocka_unit_test(test_protect_host_makes_the_host_read_only),
        cmocka_unit_test(test_a_subreaper_reaps_an_orphan_that_holds_a_dying_namespace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
