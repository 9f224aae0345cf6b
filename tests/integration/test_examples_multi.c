/* SPDX-License-Identifier: MIT */
/* test_examples_multi.c: multi_pidns on the real kernel.
 *
 * In a sandbox (examples_support.h), as root and as nobody: the article's
 * /procK listings and the one process with five PIDs; a run to completion
 * deeper than 9 levels; COMMAND's exit status; ENOSPC when we are deeper
 * than /proc shows; SIGTERM, SIGINT, SIGHUP ending every namespace; bad N. After
 * each: no /procK mount, no /procK directory, no process in the namespaces.
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

/* Nothing of a run is left: no /procK mount or directory in our root. */
static bool nothing_left(char **why)
{
    char *mounts = tl_procn_mounts(), *dirs = NULL;
    tl_sh("ls -d /proc[0-9]* 2>/dev/null", &dirs);
    bool clean = mounts != NULL && mounts[0] == '\0' && dirs != NULL && dirs[0] == '\0';
    if (asprintf(why, "mounts: [%s] directories: [%s]", mounts ? mounts : "?", dirs ? dirs : "?") ==
        -1)
        *why = NULL;
    free(mounts);
    free(dirs);
    return clean;
}

/* The article's `multi_pidns 5` session, then the stop signal *arg. */
static int multi_five_observations(void *arg)
{
    int stop_signal = *(int *)arg, failed = 0;
    char *out = NULL, *why = NULL, path[64], value[256], expect[512], ns[5][64];
    struct ex_run r = {.pid = 0};

    EXPECT(ex_start(&r, (char *[]){"/ex/multi_pidns", "5", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "Final child sleeping\n", 5000), "output so far:\n%s", r.out);
    EXPECT(strcmp(r.out, "Mounting procfs at /proc4\nMounting procfs at /proc3\n"
                         "Mounting procfs at /proc2\nMounting procfs at /proc1\n"
                         "Mounting procfs at /proc0\nFinal child sleeping\n") == 0,
           "got:\n%s", r.out);
    EXPECT(ex_wait_for_name("/proc0/1/status", "sleep"), "the last child never ran sleep");
    /* Each level down sees one process fewer: PIDs 1..k+1 in /procK. */
    for (int k = 4; k >= 0; k--) {
        int len = 0;
        for (int pid = 1; pid <= k + 1; pid++)
            len += snprintf(expect + len, sizeof expect - (size_t)len, "/proc%d/%d\n", k, pid);
        free(out);
        tl_shf(&out, "ls -d /proc%d/[1-9]*", k);
        EXPECT(out != NULL && strcmp(out, expect) == 0, "/proc%d lists:\n%s", k, out);
    }
    free(out);
    tl_sh("grep -H 'Name:.*sleep' /proc?/[1-9]*/status", &out);
    EXPECT(out != NULL && strcmp(out, "/proc0/1/status:Name:\tsleep\n"
                                      "/proc1/2/status:Name:\tsleep\n"
                                      "/proc2/3/status:Name:\tsleep\n"
                                      "/proc3/4/status:Name:\tsleep\n"
                                      "/proc4/5/status:Name:\tsleep\n") == 0,
           "grep:\n%s", out);
    EXPECT(ex_status_field("/proc4/5/status", "NSpid", value, sizeof value) &&
               strcmp(value, "5\t4\t3\t2\t1") == 0,
           "NSpid seen from /proc4: %s", value);
    /* Five different namespaces, one init in each, none of them ours. */
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "/proc%d", k);
        ex_pidns_of(path, 1, ns[k], sizeof ns[k]);
        EXPECT(strncmp(ns[k], "pid:[", 5) == 0, "%s/1/ns/pid: '%s'", path, ns[k]);
        for (int j = 0; j < k; j++)
            EXPECT(strcmp(ns[j], ns[k]) != 0, "/proc%d and /proc%d share %s", j, k, ns[k]);
        EXPECT(ex_count_in_pidns(ns[k]) == 1, "%d processes in %s", ex_count_in_pidns(ns[k]),
               ns[k]);
    }
    ex_pidns_of("/proc", r.pid, value, sizeof value);
    EXPECT(strcmp(value, ns[4]) != 0, "the top process is in the topmost new namespace");

    EXPECT(kill(r.pid, stop_signal) == 0, "kill: %s", strerror(errno));
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + stop_signal, "exit status %d, output:\n%s", status, r.out);
    EXPECT(nothing_left(&why), "left behind: %s", why);
    EXPECT(ex_no_process_left(), "a process of the example outlived it");
out:
    ex_abandon(&r);
    free(out);
    free(why);
    return failed;
}

static void test_multi_five_levels_then_sigterm_leaves_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int sig = SIGTERM;
    ex_run_test(multi_five_observations, &sig, false);
}

static void test_multi_five_levels_then_sigint_leaves_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int sig = SIGINT;
    ex_run_test(multi_five_observations, &sig, false);
}

static void test_multi_five_levels_then_sighup_leaves_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int sig = SIGHUP;
    ex_run_test(multi_five_observations, &sig, false);
}

static void test_multi_five_levels_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    int sig = SIGINT;
    ex_run_test(multi_five_observations, &sig, true);
}

/* Past 9 levels the names stay right (/proc10, /proc11), the run ends with
 * COMMAND, status 0, every line through the pipe, nothing left. */
static int multi_twelve_true(void *arg)
{
    (void)arg;
    int failed = 0, len = 0;
    char *why = NULL, expect[1024];
    struct ex_run r = {.pid = 0};

    for (int k = 11; k >= 0; k--)
        len +=
            snprintf(expect + len, sizeof expect - (size_t)len, "Mounting procfs at /proc%d\n", k);
    snprintf(expect + len, sizeof expect - (size_t)len, "Final child running true\n");
    EXPECT(ex_start(&r, (char *[]){"/ex/multi_pidns", "12", "true", NULL}) == 0, "fork");
    int status = ex_finish(&r, 10000);
    EXPECT(status == 0, "exit status %d, output:\n%s", status, r.out);
    EXPECT(strcmp(r.out, expect) == 0, "got:\n%s", r.out);
    EXPECT(nothing_left(&why), "left behind: %s", why);
    EXPECT(ex_no_process_left(), "a process of the example outlived it");
out:
    ex_abandon(&r);
    free(why);
    return failed;
}

static void test_multi_twelve_levels_names_and_exits_zero(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(multi_twelve_true, NULL, false);
}

/* COMMAND's exit status comes back up through every level; a missing command
 * is 127; a /procK directory that was there before stays. */
static int multi_command_status(void *arg)
{
    (void)arg;
    int failed = 0;
    char *why = NULL;
    struct ex_run r = {.pid = 0};

    EXPECT(ex_start(&r, (char *[]){"/ex/multi_pidns", "3", "sh", "-c", "exit 7", NULL}) == 0,
           "fork");
    int status = ex_finish(&r, 5000);
    EXPECT(status == 7, "exit status %d, output:\n%s", status, r.out);
    EXPECT(nothing_left(&why), "left behind: %s", why);

    EXPECT(mkdir("/proc1", 0555) == 0, "mkdir /proc1: %s", strerror(errno));
    EXPECT(ex_start(&r, (char *[]){"/ex/multi_pidns", "2", "/no-such-dir/cmd", NULL}) == 0, "fork");
    status = ex_finish(&r, 5000);
    EXPECT(status == 127, "exit status %d, output:\n%s", status, r.out);
    EXPECT(strstr(r.out, "multi_pidns: execvp /no-such-dir/cmd: No such file or directory\n"),
           "got:\n%s", r.out);
    EXPECT(access("/proc1", F_OK) == 0 && access("/proc0", F_OK) == -1,
           "/proc1 should stay, /proc0 go");
    EXPECT(rmdir("/proc1") == 0, "rmdir /proc1: %s", strerror(errno));
    free(why);
    why = NULL;
    EXPECT(nothing_left(&why), "left behind: %s", why);
out:
    ex_abandon(&r);
    free(why);
    return failed;
}

static void test_multi_passes_command_exit_status_up(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(multi_command_status, NULL, false);
}

/* Inside `unshare --pid --mount-proc`, /proc shows one level fewer than we
 * really are: N=32 passes the check, clone() fails with ENOSPC at the last
 * level, and everything made so far is removed. The last level is /proc0
 * from the initial namespace, /procK when the suite itself runs K levels
 * down (a container, make check-fresh), which nothing inside can see: the
 * kernel refuses NS_GET_PARENT beyond our own namespace. */
static int multi_enospc(void *arg)
{
    (void)arg;
    int failed = 0;
    char *out = NULL, *why = NULL;
    const char *failure = "multi_pidns: clone(CLONE_NEWPID) for /proc",
               *reason = ": No space left on device\n";

    int rc = tl_sh("unshare --pid --fork --mount-proc /ex/multi_pidns 32 true", &out);
    EXPECT(rc == 1, "exit status %d, output:\n%s", rc, out);
    EXPECT(strstr(out, "Mounting procfs at /proc31\n") != NULL, "got:\n%s", out);
    const char *hit = strstr(out, failure);
    if (hit != NULL)
        hit += strlen(failure) + strspn(hit + strlen(failure), "0123456789");
    EXPECT(hit != NULL && strncmp(hit, reason, strlen(reason)) == 0, "got:\n%s", out);
    EXPECT(nothing_left(&why), "left behind: %s", why);
out:
    free(out);
    free(why);
    return failed;
}

static void test_multi_deeper_than_proc_shows_fails_cleanly(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(multi_enospc, NULL, false);
}

static void test_multi_bad_arguments_leave_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/multi_pidns", "missing N"},
        {"/ex/multi_pidns abc", "N must be a whole number, got 'abc'"},
        {"/ex/multi_pidns ''", "N must be a whole number, got ''"},
        {"/ex/multi_pidns 5x", "N must be a whole number, got '5x'"},
        {"/ex/multi_pidns -3", "N must be at least 1, got -3"},
        {"/ex/multi_pidns 0", "N must be at least 1, got 0"},
        {"/ex/multi_pidns --bogus", "N must be a whole number, got '--bogus'"},
        {"/ex/multi_pidns 99999999999999999999", "N=99999999999999999999 is too deep"},
        {"/ex/multi_pidns 33", "N can be at most 32"},
        /* one level down, as /proc shows: NSpid has two PIDs */
        {"unshare --pid --fork /ex/multi_pidns 32",
         "we are already 1 down, so N can be at most 31"},
        {"touch /proc2 && /ex/multi_pidns 3; rc=$?; rm /proc2; exit $rc",
         "/proc2 exists and is not a directory"},
        {"mount -o remount,ro / && /ex/multi_pidns 3; rc=$?; mount -o remount,rw /; exit $rc",
         "mkdir /proc0: Read-only file system"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_five_levels_then_sigterm_leaves_nothing),
        cmocka_unit_test(test_multi_five_levels_then_sigint_leaves_nothing),
        cmocka_unit_test(test_multi_five_levels_then_sighup_leaves_nothing),
        cmocka_unit_test(test_multi_five_levels_as_nobody),
        cmocka_unit_test(test_multi_twelve_levels_names_and_exits_zero),
        cmocka_unit_test(test_multi_passes_command_exit_status_up),
        cmocka_unit_test(test_multi_deeper_than_proc_shows_fails_cleanly),
        cmocka_unit_test(test_multi_bad_arguments_leave_nothing),
    };
    return cmocka_run_group_tests(tests, ex_load, ex_unload);
}
