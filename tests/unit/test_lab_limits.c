/* SPDX-License-Identifier: MIT */
/* test_lab_limits.c: which limit a failed fork, clone or unshare hit
 * (lab_limits_explain, pure), the words in a program's output that show one
 * (lab_limits_error_in), and whether a cgroup v2 is delegated to the learner
 * (lab_cgroup_delegated), read from fixture directories made here: this
 * machine runs cgroup v1 and cannot delegate one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/lab_cgroup.h"
#include "lab/lab_limits.h"

static struct lab_limits roomy(void)
{
    struct lab_limits l = {
        .uid = 1000,
        .in_init_userns = 1,
        .user = "ann",
        .nproc = 63000,
        .nproc_hard = 63000,
        .user_tasks = 10,
        .pids_max = LAB_LIMITS_UNLIMITED,
        .pids_current = LAB_LIMITS_UNKNOWN,
        .max_pid_namespaces = 63000,
        .max_user_namespaces = 63000,
        .pid_max = 4194304,
        .threads_max = 126000,
        .tasks = 300,
    };
    return l;
}

static void says(const struct lab_limits *l, int error, const char *problem, const char *fix)
{
    char p[400], f[400];
    if (problem == NULL) {
        assert_int_equal(lab_limits_explain(l, error, p, sizeof p, f, sizeof f), -1);
        return;
    }
    assert_int_equal(lab_limits_explain(l, error, p, sizeof p, f, sizeof f), 0);
    if (strstr(p, problem) == NULL)
        fail_msg("problem '%s' does not say '%s'", p, problem);
    if (strstr(f, fix) == NULL)
        fail_msg("fix '%s' does not say '%s'", f, fix);
    if (strstr(f, "sudo") != NULL)
        fail_msg("fix '%s' says sudo", f);
}

static void test_nproc(void **state)
{
    (void)state;
    struct lab_limits l = roomy();
    l.nproc = 20;
    says(&l, EAGAIN, "may run 20 processes at once (ulimit -u, RLIMIT_NPROC; 10 run now)",
         "raise it yourself up to the hard limit: `ulimit -u 512`");
    l.nproc_hard = 20;
    says(&l, EAGAIN, "RLIMIT_NPROC", "`ann - nproc 512` in /etc/security/limits.conf");
    l.user[0] = '\0';
    says(&l, EAGAIN, "RLIMIT_NPROC", "`1000:1000 - nproc 512`");
    l.root = 1; /* root's tasks are not counted against it, and the rest has room */
    says(&l, EAGAIN, NULL, NULL);
    l.threads_max = 400;
    says(&l, EAGAIN, "the machine runs 300 tasks and allows 400 (kernel.threads-max)",
         "`sysctl -w kernel.threads-max=800`");
}

static void test_pids_max_and_machine(void **state)
{
    (void)state;
    struct lab_limits l = roomy();
    l.pids_max = 100;
    l.pids_current = 95;
    snprintf(l.pids_cgroup, sizeof l.pids_cgroup, "/sys/fs/cgroup/user.slice/user-1000.slice");
    says(&l, EAGAIN,
         "your cgroup /sys/fs/cgroup/user.slice/user-1000.slice may hold 100 tasks "
         "at once (pids.max; 95 now)",
         "`systemctl set-property user-1000.slice TasksMax=");
    /* The lab's own bound, with room again (the runner stopped the fork
     * loop before the question): named when pids.events counted a refusal,
     * not otherwise (lessons 17 and 21's "Cannot fork" is ENOMEM). */
    l = roomy();
    l.pids_max = 512;
    l.pids_current = 5;
    snprintf(l.pids_cgroup, sizeof l.pids_cgroup, "/sys/fs/cgroup/a.slice/" LAB_CGROUP_PREFIX "77");
    says(&l, EAGAIN, NULL, NULL);
    l.pids_hits = 3;
    says(&l, EAGAIN,
         "this lab may hold 512 tasks at once (pids.max 512 of its own cgroup "
         "/sys/fs/cgroup/a.slice/" LAB_CGROUP_PREFIX "77, the bound per lab; 5 now)",
         "start pidns-tutor with PIDNS_TUTOR_LAB_PIDS_MAX=768");
    l.nproc = 40; /* counted by the kernel: pids.max, though RLIMIT_NPROC is tighter now */
    says(&l, EAGAIN, "this lab may hold 512 tasks", "PIDNS_TUTOR_LAB_PIDS_MAX");
    l.pids_hits = 0;
    says(&l, EAGAIN, "may run 40 processes at once", "nproc");
    snprintf(l.pids_cgroup, sizeof l.pids_cgroup, "/sys/fs/cgroup/a.slice/term.scope");
    l.pids_hits = 1;
    says(&l, EAGAIN, "your cgroup /sys/fs/cgroup/a.slice/term.scope may hold 512 tasks",
         "TasksMax=");
    l = roomy();
    l.pid_max = 320;
    says(&l, EAGAIN, "the machine runs 300 tasks and allows 320 (kernel.pid_max)",
         "`sysctl -w kernel.pid_max=640`");
}

static void test_namespaces(void **state)
{
    (void)state;
    struct lab_limits l = roomy();
    says(&l, ENOSPC, NULL, NULL); /* control: nothing low, nothing blamed */
    says(&l, EAGAIN, NULL, NULL); /* control: room in every limit, none is blamed */
    says(&l, EINVAL, NULL, NULL);
    l.max_user_namespaces = 3;
    says(&l, ENOSPC, "user namespaces are limited to 3 here (user.max_user_namespaces)",
         "`sysctl -w user.max_user_namespaces=15000`");
    l.max_pid_namespaces = 0;
    l.in_init_userns = 0;
    says(&l, ENOSPC, "PID namespaces are limited to 0 here (user.max_pid_namespaces)",
         "`echo 15000 >/proc/sys/user/max_pid_namespaces`");
}

static void test_error_in_output(void **state)
{
    (void)state;
    assert_int_equal(lab_limits_error_in("sh: 0: Cannot fork\n"), EAGAIN);
    assert_int_equal(lab_limits_error_in("bash: fork: retry: Resource temporarily unavailable"),
                     EAGAIN);
    assert_int_equal(lab_limits_error_in("unshare: unshare failed: No space left on device"),
                     ENOSPC);
    assert_int_equal(lab_limits_error_in("clone: No space left on device"), ENOSPC);
    /* controls: a full disk is not a limit on namespaces, nor is a plain error */
    assert_int_equal(lab_limits_error_in("cp: write error: No space left on device"), 0);
    assert_int_equal(lab_limits_error_in("ls: cannot access 'x': No such file or directory"), 0);
    assert_int_equal(lab_limits_error_in(NULL), 0);
}

static char fixture[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", fixture, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void dir(const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", fixture, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

static void test_cgroup_own_path(void **state)
{
    (void)state;
    char p[128];
    assert_int_equal(
        lab_cgroup_own_path("0::/user.slice/user-1000.slice/session-3.scope\n", p, sizeof p), 0);
    assert_string_equal(p, "/user.slice/user-1000.slice/session-3.scope");
    assert_int_equal(lab_cgroup_own_path("4:memory:/x\n0::/a/b\n", p, sizeof p), 0);
    assert_string_equal(p, "/a/b");
    assert_int_equal(lab_cgroup_own_path("8:pids:/\n1:cpu:/\n", p, sizeof p), -1);
}

/* A delegated parent (systemd's user@UID.service/app.slice): the pids
 * controller enabled below it, owned by the learner. Then each way it is not
 * delegated: no v2, the root cgroup, no pids, someone else's. */
static void test_cgroup_delegation(void **state)
{
    (void)state;
    char parent[256], why[256];
    uid_t me = getuid() == 0 ? 4242 : getuid();
    snprintf(fixture, sizeof fixture, "/tmp/pidns-cgroup-test.%ld", (long)getpid());
    assert_int_equal(mkdir(fixture, 0755), 0);
    dir("app.slice");
    dir("app.slice/term.scope");
    put("cgroup.controllers", "cpu memory pids\n");
    put("app.slice/cgroup.subtree_control", "memory pids\n");
    put("app.slice/cgroup.procs", "");
    int rc = lab_cgroup_delegated(fixture, "/app.slice/term.scope", 0, parent, sizeof parent, why,
                                  sizeof why);
    assert_int_equal(rc, 0);
    char want[256];
    snprintf(want, sizeof want, "%s/app.slice", fixture);
    assert_string_equal(parent, want);
    /* someone else's: the files are ours (the test's uid), the learner is `me` */
    if (getuid() == 0) {
        assert_int_equal(lab_cgroup_delegated(fixture, "/app.slice/term.scope", me, parent,
                                              sizeof parent, why, sizeof why),
                         -1);
        assert_non_null(strstr(why, "is not delegated to you (owner uid 0)"));
    }
    assert_int_equal(
        lab_cgroup_delegated(fixture, "/term.scope", 0, parent, sizeof parent, why, sizeof why),
        -1);
    assert_non_null(strstr(why, "root cgroup"));
    put("app.slice/cgroup.subtree_control", "memory\n");
    assert_int_equal(lab_cgroup_delegated(fixture, "/app.slice/term.scope", 0, parent,
                                          sizeof parent, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "does not delegate the pids controller"));
    put("app.slice/cgroup.subtree_control", "pidsx\n"); /* a word, not a prefix */
    assert_int_equal(lab_cgroup_delegated(fixture, "/app.slice/term.scope", 0, parent,
                                          sizeof parent, why, sizeof why),
                     -1);
    char path[256];
    snprintf(path, sizeof path, "%s/cgroup.controllers", fixture);
    unlink(path);
    assert_int_equal(lab_cgroup_delegated(fixture, "/app.slice/term.scope", 0, parent,
                                          sizeof parent, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "no cgroup v2"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fixture);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nproc),           cmocka_unit_test(test_pids_max_and_machine),
        cmocka_unit_test(test_namespaces),      cmocka_unit_test(test_error_in_output),
        cmocka_unit_test(test_cgroup_own_path), cmocka_unit_test(test_cgroup_delegation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
