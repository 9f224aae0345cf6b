/* SPDX-License-Identifier: MIT */
/* test_examples.c: pidns_init_sleep and pidns_proc_mount on the real kernel.
 *
 * Each test runs the example in a sandbox (examples_support.h) and checks
 * what the article observes on the kernel's state, reading every line
 * through a pipe; then that stopping it leaves no mount, no directory and no
 * process of its namespace; and that bad arguments get one line of error and
 * leave nothing. multi_pidns is in test_examples_multi.c.
 */
#include "examples_run.h"

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

#include <sys/mount.h>

/* Does text have a line that, with its blanks trimmed and each run of them
 * folded to one space, is line? ps sizes its PID columns from
 * kernel.pid_max (5 wide at the default 32768, 7 at 4194304), so a fixed
 * width holds on one machine only. */
static int has_line_blanks_folded(const char *text, const char *line)
{
    char folded[512];
    while (*text != '\0') {
        size_t n = 0;
        const char *p = text + strspn(text, " \t");
        for (; *p != '\0' && *p != '\n'; p++) {
            int blank = *p == ' ' || *p == '\t';
            if (n + 1 < sizeof folded && !(blank && (n == 0 || folded[n - 1] == ' ')))
                folded[n++] = blank ? ' ' : *p;
        }
        while (n > 0 && folded[n - 1] == ' ')
            n--;
        folded[n] = '\0';
        if (strcmp(folded, line) == 0)
            return 1;
        text = *p == '\n' ? p + 1 : p;
    }
    return 0;
}

/* The article's pidns_init_sleep session: PIDs on both sides, /proc2, the
 * differing pid:[...] links; then the stop signal *arg ends it all. */
static int init_sleep_observations(void *arg)
{
    int stop_signal = *(int *)arg, failed = 0;
    char *out = NULL, value[256], parent_ns[64], child_ns[64], expect[512];
    struct ex_run r = {.pid = 0};
    long child = 0;

    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_init_sleep", "/proc2", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "Mounting procfs at /proc2\n", 5000), "output so far:\n%s", r.out);
    EXPECT(sscanf(r.out, "PID returned by clone(): %ld\n", &child) == 1, "got:\n%s", r.out);
    EXPECT(child > 1, "the child's PID in our namespace is %ld", child);
    snprintf(expect, sizeof expect,
             "PID returned by clone(): %ld\nchildFunc(): PID  = 1\nchildFunc(): PPID = 0\n"
             "Mounting procfs at /proc2\n",
             child);
    EXPECT(strcmp(r.out, expect) == 0, "got:\n%s", r.out);

    EXPECT(ex_wait_for_name("/proc2/1/status", "sleep"), "the child never ran sleep");
    EXPECT(tl_sh("ls -d /proc2/[1-9]*", &out) == 0 && strcmp(out, "/proc2/1\n") == 0, "ls: %s",
           out);
    EXPECT(ex_status_field("/proc2/1/status", "Name", value, sizeof value) &&
               strcmp(value, "sleep") == 0,
           "Name: %s", value);
    EXPECT(ex_status_field("/proc2/1/status", "Pid", value, sizeof value) &&
               strcmp(value, "1") == 0,
           "Pid: %s", value);
    EXPECT(ex_status_field("/proc2/1/status", "PPid", value, sizeof value) &&
               strcmp(value, "0") == 0,
           "PPid: %s", value);
    /* Two PIDs, one per namespace, on the NSpid line seen from outside. */
    snprintf(expect, sizeof expect, "/proc/%ld/status", child);
    EXPECT(ex_status_field(expect, "NSpid", value, sizeof value), "no NSpid in %s", expect);
    size_t vlen = strlen(value);
    EXPECT(vlen > 2 && strcmp(value + vlen - 2, "\t1") == 0, "NSpid: %s", value);

    ex_pidns_of("/proc", r.pid, parent_ns, sizeof parent_ns);
    ex_pidns_of("/proc", child, child_ns, sizeof child_ns);
    EXPECT(strncmp(parent_ns, "pid:[", 5) == 0 && strncmp(child_ns, "pid:[", 5) == 0,
           "links '%s' '%s'", parent_ns, child_ns);
    EXPECT(strcmp(parent_ns, child_ns) != 0, "both in %s", child_ns);
    EXPECT(ex_count_in_pidns(child_ns) == 1, "processes in the new namespace: %d",
           ex_count_in_pidns(child_ns));

    EXPECT(kill(r.pid, stop_signal) == 0, "kill: %s", strerror(errno));
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + stop_signal, "exit status %d, output:\n%s", status, r.out);
    free(out);
    out = tl_procn_mounts();
    EXPECT(out != NULL && out[0] == '\0', "mounts left: %s", out);
    EXPECT(access("/proc2", F_OK) == -1 && errno == ENOENT, "/proc2 is still there");
    EXPECT(ex_no_process_left(), "a process of the example outlived it");
out:
    ex_abandon(&r);
    free(out);
    return failed;
}

static void test_init_sleep_shows_article_observations_then_sigterm_cleans_up(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int sig = SIGTERM;
    ex_run_test(init_sleep_observations, &sig, false);
}

static void test_init_sleep_sigint_cleans_up(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int sig = SIGINT;
    ex_run_test(init_sleep_observations, &sig, false);
}

static void test_init_sleep_observations_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    int sig = SIGTERM;
    ex_run_test(init_sleep_observations, &sig, true);
}

/* The child killed from outside: the parent notices, unmounts, and keeps a
 * mount point directory that existed before; all four lines came through. */
static int init_sleep_child_killed(void *arg)
{
    (void)arg;
    int failed = 0;
    long child = 0;
    char *mounts = NULL;
    struct ex_run r = {.pid = 0};

    EXPECT(mkdir("/proc2", 0555) == 0, "mkdir /proc2: %s", strerror(errno));
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_init_sleep", "/proc2", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "Mounting procfs at /proc2\n", 5000), "output:\n%s", r.out);
    EXPECT(sscanf(r.out, "PID returned by clone(): %ld\n", &child) == 1 && child > 1, "%s", r.out);
    EXPECT(kill((pid_t)child, SIGKILL) == 0, "kill -9 %ld: %s", child, strerror(errno));
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + SIGKILL, "exit status %d", status);
    EXPECT(strstr(r.out, "childFunc(): PID  = 1\nchildFunc(): PPID = 0\n") != NULL, "%s", r.out);
    mounts = tl_procn_mounts();
    EXPECT(mounts != NULL && mounts[0] == '\0', "mounts left: %s", mounts);
    EXPECT(access("/proc2", F_OK) == 0, "the existing /proc2 was removed");
    EXPECT(ex_no_process_left(), "a process of the example outlived it");
out:
    ex_abandon(&r);
    free(mounts);
    return failed;
}

static void test_init_sleep_child_killed_unmounts_and_keeps_existing_dir(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(init_sleep_child_killed, NULL, false);
}

/* Without MOUNT_POINT: the PIDs, no mount; SIGHUP ends it too. */
static int init_sleep_without_mount_point(void *arg)
{
    (void)arg;
    int failed = 0;
    char *before = NULL, *after = NULL;
    struct ex_run r = {.pid = 0};

    tl_sh("cat /proc/self/mountinfo", &before);
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_init_sleep", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "PPID = 0\n", 5000), "output:\n%s", r.out);
    EXPECT(kill(r.pid, SIGHUP) == 0, "kill");
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + SIGHUP, "exit status %d", status);
    EXPECT(strstr(r.out, "Mounting") == NULL, "%s", r.out);
    tl_sh("cat /proc/self/mountinfo", &after);
    EXPECT(before != NULL && after != NULL && strcmp(before, after) == 0, "mounts changed");
out:
    ex_abandon(&r);
    free(before);
    free(after);
    return failed;
}

static void test_init_sleep_without_mount_point_mounts_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(init_sleep_without_mount_point, NULL, false);
}

static void test_init_sleep_bad_arguments_leave_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/pidns_init_sleep /proc2 /proc3", "too many arguments"},
        {"/ex/pidns_init_sleep --bogus", "unknown option"},
        {"/ex/pidns_init_sleep /no-such-dir/proc2",
         "mkdir /no-such-dir/proc2: No such file or directory"},
        {"mkdir -p /ro && mount -t tmpfs -o ro none /ro && /ex/pidns_init_sleep /ro/proc2; "
         "rc=$?; umount /ro; rmdir /ro; exit $rc",
         "mkdir /ro/proc2: Read-only file system"},
        {"/ex/pidns_init_sleep /etc/hostname", "not a directory"},
        {"/ex/pidns_init_sleep /proc", "refusing to mount over /proc"},
        {"/ex/pidns_init_sleep /proc/self/..", "refusing to mount over /proc"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, false);
}

static void test_init_sleep_unwritable_dir_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/pidns_init_sleep /usr/proc2", "mkdir /usr/proc2: Permission denied"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, true);
}

static void test_usage_goes_to_stdout_and_exits_0(void **state)
{
    (void)state;
    const char *names[] = {"pidns_init_sleep", "multi_pidns", "pidns_proc_mount"};
    for (size_t i = 0; i < 3; i++) {
        char *out = NULL;
        int rc = tl_shf(&out, "%s --help 2>/dev/null", tl_example(names[i]));
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "Usage: "));
        free(out);
    }
}

/* Default mode: the command is PID 1 in a /proc of its own, and our /proc
 * and mount table are untouched, even when our mounts are shared. */
static int proc_mount_default(void *arg)
{
    (void)arg;
    int failed = 0;
    char *before = NULL, *after = NULL, self[32], expect[32];
    struct ex_run r = {.pid = 0};

    /* As systemd does on most hosts: then a mount namespace made by clone()
     * starts as a peer of ours, and only the example's MS_PRIVATE keeps its
     * /proc from coming back to us. */
    EXPECT(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL) == 0, "make-rshared: %s",
           strerror(errno));
    tl_sh("cat /proc/self/mountinfo", &before);
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_proc_mount", "sh", "-c",
                                   "echo self=$$; grep -E '^(Pid|PPid|NSpid):' /proc/1/status",
                                   NULL}) == 0,
           "fork");
    int status = ex_finish(&r, 5000);
    EXPECT(status == 0, "exit status %d, output:\n%s", status, r.out);
    EXPECT(strstr(r.out, "self=1\nPid:\t1\nPPid:\t0\nNSpid:\t1\n") != NULL, "got:\n%s", r.out);
    tl_sh("cat /proc/self/mountinfo", &after);
    EXPECT(before != NULL && after != NULL && strcmp(before, after) == 0, "our mounts changed");
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    self[n < 0 ? 0 : n] = '\0';
    snprintf(expect, sizeof expect, "%ld", (long)getpid());
    EXPECT(strcmp(self, expect) == 0, "our /proc/self is %s, not %s", self, expect);

    /* The default command: ps as PID 1 with PPID 0. */
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_proc_mount", NULL}) == 0, "fork");
    status = ex_finish(&r, 5000);
    EXPECT(status == 0, "exit status %d, output:\n%s", status, r.out);
    EXPECT(has_line_blanks_folded(r.out, "1 0 ps -e -o pid,ppid,cmd"), "got:\n%s", r.out);
out:
    ex_abandon(&r);
    free(before);
    free(after);
    return failed;
}

static void test_proc_mount_child_sees_itself_as_pid1_ours_unchanged(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(proc_mount_default, NULL, false);
}

static void test_proc_mount_works_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(proc_mount_default, NULL, true);
}

/* --chroot: the procfs appears at DIR/proc in OUR mount namespace while the
 * command runs, and is gone after SIGTERM. */
static int proc_mount_chroot(void *arg)
{
    (void)arg;
    int failed = 0;
    char *before = NULL, *after = NULL, value[64];
    struct ex_run r = {.pid = 0};

    EXPECT(mkdir("/jail", 0755) == 0 && mount("/", "/jail", NULL, MS_BIND | MS_REC, NULL) == 0,
           "preparing /jail: %s", strerror(errno));
    tl_sh("cat /proc/self/mountinfo", &before);
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_proc_mount", "--chroot", "/jail", "sleep", "600",
                                   NULL}) == 0,
           "fork");
    EXPECT(ex_read_until(&r, "Mounted procfs at /jail/proc", 5000), "output:\n%s", r.out);
    /* Wait for the exec of sleep, then look through the chroot's /proc. */
    EXPECT(ex_wait_for_name("/jail/proc/1/status", "sleep"), "/jail/proc/1 never ran sleep");
    EXPECT(ex_status_field("/jail/proc/1/status", "NSpid", value, sizeof value) &&
               strcmp(value, "1") == 0,
           "NSpid in /jail/proc: %s", value);
    EXPECT(kill(r.pid, SIGTERM) == 0, "kill");
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + SIGTERM, "exit status %d", status);
    tl_sh("cat /proc/self/mountinfo", &after);
    EXPECT(before != NULL && after != NULL && strcmp(before, after) == 0,
           "mounts before:\n%s\nafter:\n%s", before, after);
out:
    ex_abandon(&r);
    free(before);
    free(after);
    return failed;
}

static void test_proc_mount_chroot_unmounts_on_sigterm(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(proc_mount_chroot, NULL, false);
}

static void test_proc_mount_chroot_works_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(proc_mount_chroot, NULL, true);
}

static void test_proc_mount_bad_arguments_leave_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/pidns_proc_mount --chroot /", "refusing to mount over the real /proc"},
        {"/ex/pidns_proc_mount --chroot /no-such-dir", "No such file or directory"},
        {"/ex/pidns_proc_mount --chroot", "--chroot needs a directory"},
        {"/ex/pidns_proc_mount --bogus", "unknown option"},
        {"mkdir /shared && mount --bind /shared /shared && mount --make-shared /shared && "
         "/ex/pidns_proc_mount --chroot /shared; rc=$?; umount /shared; rmdir /shared; exit $rc",
         "is on a shared mount"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_sleep_shows_article_observations_then_sigterm_cleans_up),
        cmocka_unit_test(test_init_sleep_sigint_cleans_up),
        cmocka_unit_test(test_init_sleep_observations_as_nobody),
        cmocka_unit_test(test_init_sleep_child_killed_unmounts_and_keeps_existing_dir),
        cmocka_unit_test(test_init_sleep_without_mount_point_mounts_nothing),
        cmocka_unit_test(test_init_sleep_bad_arguments_leave_nothing),
        cmocka_unit_test(test_init_sleep_unwritable_dir_as_nobody),
        cmocka_unit_test(test_usage_goes_to_stdout_and_exits_0),
        cmocka_unit_test(test_proc_mount_child_sees_itself_as_pid1_ours_unchanged),
        cmocka_unit_test(test_proc_mount_works_as_nobody),
        cmocka_unit_test(test_proc_mount_chroot_unmounts_on_sigterm),
        cmocka_unit_test(test_proc_mount_chroot_works_as_nobody),
        cmocka_unit_test(test_proc_mount_bad_arguments_leave_nothing),
    };
    return cmocka_run_group_tests(tests, ex_load, ex_unload);
}
