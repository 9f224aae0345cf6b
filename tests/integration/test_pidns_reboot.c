/* SPDX-License-Identifier: MIT */
/* test_pidns_reboot.c: how a PID namespace ends, on the real kernel (lesson
 * 21 and examples/pidns_reboot.c).
 *
 * The harness observes the kernel itself: the waitpid() status of an init
 * that called reboot() in a namespace the harness made (SIGHUP for a
 * restart, SIGINT for a halt or power-off, EINVAL for anything else); the
 * inode of a namespace held by an open fd and a bind mount after its init
 * died; setns() into it succeeding, pid_for_children naming it, and fork()
 * failing with ENOMEM; and the namespace freed at the last reference (a
 * user namespace capped at one PID namespace can make a new one again only
 * then). pidns_reboot's report must agree with what the harness saw. Each
 * runs in a sandbox (private mount namespace, tmpfs root), as root and as
 * nobody (in a user namespace, where nobody holds CAP_SYS_BOOT).
 *
 * SAFETY: reboot() is called only in a child of clone(CLONE_NEWPID) that
 * has checked it is PID 1 of a namespace other than the harness's.
 */
#include "stage.h"
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/reboot.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *staged; /* the examples, where nobody can run them */
static char child_stack[256 * 1024];
static ino_t harness_ns;

static ino_t ns_inode(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_ino : 0;
}

/* The init of the harness's own namespace: reboot(cmd) only as PID 1 of a
 * namespace that is not the harness's; exits 100+errno if the call returns. */
static int reboot_init(void *arg)
{
    unsigned int cmd = *(unsigned int *)arg;
    ino_t mine = ns_inode("/proc/self/ns/pid");
    if (getpid() != 1 || mine == 0 || mine == harness_ns)
        _exit(99); /* refuse: never in the namespace we came from */
    syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, cmd, "test");
    _exit(100 + errno);
}

/* Clones an init that calls reboot(cmd); returns its waitpid() status. */
static int status_after_reboot(unsigned int cmd)
{
    int status = -1;
    harness_ns = ns_inode("/proc/self/ns/pid");
    if (harness_ns == 0)
        return -1;
    pid_t init = clone(reboot_init, child_stack + sizeof child_stack, CLONE_NEWPID | SIGCHLD, &cmd);
    if (init == -1 || waitpid(init, &status, 0) != init)
        return -1;
    return status;
}

/* Runs pidns_reboot with argument name; its output and exit status. */
static int run_example(const char *name, char **out)
{
    return tl_shf(out, "%s/pidns_reboot %s", staged, name);
}

static const struct {
    const char *name;
    unsigned int cmd;
    int signal; /* 0: refused, the init exits */
    const char *report;
} reboot_cases[] = {
    {"restart", LINUX_REBOOT_CMD_RESTART, SIGHUP, "was killed by SIGHUP"},
    {"restart2", LINUX_REBOOT_CMD_RESTART2, SIGHUP, "was killed by SIGHUP"},
    {"halt", LINUX_REBOOT_CMD_HALT, SIGINT, "was killed by SIGINT"},
    {"power-off", LINUX_REBOOT_CMD_POWER_OFF, SIGINT, "was killed by SIGINT"},
    {"cad-on", LINUX_REBOOT_CMD_CAD_ON, 0, "exited with status 1"},
};

static int reboot_signals(void *arg)
{
    (void)arg;
    int failed = 0;
    char *out = NULL;
    for (size_t i = 0; i < sizeof reboot_cases / sizeof reboot_cases[0]; i++) {
        int status = status_after_reboot(reboot_cases[i].cmd);
        if (reboot_cases[i].signal != 0)
            EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == reboot_cases[i].signal,
                   "%s: wait status %#x", reboot_cases[i].name, status);
        else
            EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 100 + EINVAL,
                   "%s: wait status %#x (want exit %d, EINVAL)", reboot_cases[i].name, status,
                   100 + EINVAL);
        free(out);
        out = NULL;
        int rc = run_example(reboot_cases[i].name, &out);
        EXPECT(rc == (reboot_cases[i].signal != 0 ? 0 : 1), "%s: exit %d:\n%s",
               reboot_cases[i].name, rc, out);
        EXPECT(out != NULL && strstr(out, reboot_cases[i].report) != NULL &&
                   strstr(out, "[init  ] PID 1 of pid:[") != NULL,
               "%s: output:\n%s", reboot_cases[i].name, out);
    }
out:
    free(out);
    return failed;
}

static int waiting_init(void *arg)
{
    (void)arg;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;)
        pause();
    return 0;
}

/* A namespace held by an fd and a bind mount after its init died. */
static int kept_namespace(void *arg)
{
    (void)arg;
    int failed = 0, fd = -1, pipefd[2] = {-1, -1};
    char link[64] = "", path[64], kept_link[64] = "";
    pid_t init = -1, joiner = -1;

    /* The init: PID 1 of a new namespace, waiting to be killed. */
    init = clone(waiting_init, child_stack + sizeof child_stack, CLONE_NEWPID | SIGCHLD, NULL);
    EXPECT(init != -1, "clone(CLONE_NEWPID): %s", strerror(errno));
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)init);
    EXPECT(readlink(path, link, sizeof link - 1) > 0, "readlink %s: %s", path, strerror(errno));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    EXPECT(fd != -1, "open %s: %s", path, strerror(errno));
    EXPECT(close(open("/kept", O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) == 0, "create /kept");
    EXPECT(mount(path, "/kept", NULL, MS_BIND, NULL) == 0, "bind mount: %s", strerror(errno));
    EXPECT(kill(init, SIGKILL) == 0 && waitpid(init, NULL, 0) == init, "kill the init");
    init = -1;

    /* Same inode through the fd and the mount; the name readlink gave. */
    struct stat by_fd, by_mount;
    EXPECT(fstat(fd, &by_fd) == 0 && stat("/kept", &by_mount) == 0, "stat");
    snprintf(kept_link, sizeof kept_link, "pid:[%lu]", (unsigned long)by_fd.st_ino);
    EXPECT(strcmp(kept_link, link) == 0, "fd holds %s, the init had %s", kept_link, link);
    EXPECT(by_mount.st_ino == by_fd.st_ino, "mount %lu, fd %lu", (unsigned long)by_mount.st_ino,
           (unsigned long)by_fd.st_ino);

    /* setns() into it works, pid_for_children names it, fork() fails ENOMEM. */
    EXPECT(pipe(pipefd) == 0, "pipe");
    joiner = fork();
    EXPECT(joiner != -1, "fork: %s", strerror(errno));
    if (joiner == 0) {
        char seen[64] = "";
        int setns_errno = setns(fd, CLONE_NEWPID) == 0 ? 0 : errno;
        if (readlink("/proc/self/ns/pid_for_children", seen, sizeof seen - 1) < 0)
            strcpy(seen, "unreadable");
        pid_t p = fork();
        int fork_errno = p == -1 ? errno : 0;
        if (p == 0)
            _exit(0);
        if (p > 0) /* reaped here: a zombie of that namespace must not wait for us */
            waitpid(p, NULL, 0);
        dprintf(pipefd[1], "setns=%d for_children=%s fork=%d\n", setns_errno, seen, fork_errno);
        _exit(0);
    }
    close(pipefd[1]);
    pipefd[1] = -1;
    char report[256] = "", want[256];
    ssize_t n = read(pipefd[0], report, sizeof report - 1);
    EXPECT(n > 0 && waitpid(joiner, NULL, 0) == joiner, "the joiner's report");
    joiner = -1;
    snprintf(want, sizeof want, "setns=0 for_children=%s fork=%d\n", link, ENOMEM);
    EXPECT(strcmp(report, want) == 0, "got: %s want: %s", report, want);
    EXPECT(umount("/kept") == 0, "umount: %s", strerror(errno));
out:
    if (init > 0 && kill(init, SIGKILL) == 0)
        waitpid(init, NULL, 0);
    if (joiner > 0)
        waitpid(joiner, NULL, 0);
    if (fd != -1)
        close(fd);
    if (pipefd[0] != -1)
        close(pipefd[0]);
    if (pipefd[1] != -1)
        close(pipefd[1]);
    return failed;
}

/* The last reference: with max_pid_namespaces at 1 in a user namespace of
 * its own, a second PID namespace is refused (ENOSPC) while /kept holds the
 * first, with no process in it, and allowed again once /kept is unmounted. */
static int freed_at_last_reference(void *arg)
{
    (void)arg;
    int failed = 0;
    char *out = NULL;
    int rc = tl_sh(
        "unshare -Urm sh -c 'echo 1 > /proc/sys/user/max_pid_namespaces; touch /kept;"
        " unshare --pid --fork sh -c \"mount --bind /proc/self/ns/pid /kept\" || exit 3;"
        " test \"$(stat -c %F /kept)\" = \"regular empty file\" || exit 4;"
        " unshare --pid --fork true 2>&1 && exit 5; echo CHECK-REFUSED-WHILE-KEPT;"
        " umount /kept; i=0; until unshare --pid --fork true 2>/dev/null; do"
        " i=$((i+1)); test $i -lt 100 || exit 6; sleep 0.05; done; echo CHECK-FREED; rm /kept'",
        &out);
    EXPECT(rc == 0, "exit %d:\n%s", rc, out);
    EXPECT(strstr(out, "No space left on device\nCHECK-REFUSED-WHILE-KEPT\nCHECK-FREED\n") != NULL,
           "output:\n%s", out);
out:
    free(out);
    return failed;
}

static void test_reboot_in_a_namespace_kills_its_init_with_sighup_or_sigint(void **state)
{
    (void)state;
    tl_run_sandboxed(reboot_signals, false);
}

static void test_reboot_in_a_namespace_as_nobody_in_a_user_namespace(void **state)
{
    (void)state;
    tl_run_sandboxed(reboot_signals, true);
}

static void test_kept_namespace_takes_setns_but_no_fork(void **state)
{
    (void)state;
    tl_run_sandboxed(kept_namespace, false);
}

static void test_kept_namespace_as_nobody(void **state)
{
    (void)state;
    tl_run_sandboxed(kept_namespace, true);
}

static void test_namespace_freed_at_last_reference(void **state)
{
    (void)state;
    tl_run_sandboxed(freed_at_last_reference, false);
}

static void test_namespace_freed_at_last_reference_as_nobody(void **state)
{
    (void)state;
    tl_run_sandboxed(freed_at_last_reference, true);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tl_shf(&out, "%s/pidns_reboot", staged), 2);
    assert_non_null(strstr(out, "pidns_reboot: needs one CMD (try 'pidns_reboot --help')"));
    free(out);
    assert_int_equal(tl_shf(&out, "%s/pidns_reboot reboot-the-host", staged), 2);
    assert_non_null(strstr(out, "pidns_reboot: unknown CMD 'reboot-the-host'"));
    free(out);
    assert_int_equal(tl_shf(&out, "%s/pidns_reboot --help", staged), 0);
    assert_non_null(strstr(out, "Usage: "));
    free(out);
}

int main(void)
{
    staged = tl_stage_examples();
    if (staged == NULL)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reboot_in_a_namespace_kills_its_init_with_sighup_or_sigint),
        cmocka_unit_test(test_reboot_in_a_namespace_as_nobody_in_a_user_namespace),
        cmocka_unit_test(test_kept_namespace_takes_setns_but_no_fork),
        cmocka_unit_test(test_kept_namespace_as_nobody),
        cmocka_unit_test(test_namespace_freed_at_last_reference),
        cmocka_unit_test(test_namespace_freed_at_last_reference_as_nobody),
        cmocka_unit_test(test_bad_arguments),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tl_unstage();
    return rc;
}
