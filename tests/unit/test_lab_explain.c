/* SPDX-License-Identifier: MIT */
/* test_lab_explain.c: lab_explain() turns facts about a system into the
 * lab's route, or into the problem and the one command that fixes it, for
 * systems this machine cannot be: Ubuntu's AppArmor restriction, Debian's
 * old sysctl, a container without CAP_SYS_ADMIN, no procfs. Pure logic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lab/lab_diagnose.h"

/* An ordinary user on an ordinary kernel whose probe of the user-namespace
 * route failed at `step` with `error`. */
static struct lab_facts user_failed(enum lab_probe_step step, int error)
{
    struct lab_facts f = {
        .proc_mounted = 1,
        .kernel_pid_ns = 1,
        .kernel_user_ns = 1,
        .max_user_namespaces = 63000,
        .unprivileged_userns_clone = -1,
        .apparmor_restrict = -1,
        .user_probe = {1, step, error},
        .limits = {.uid = 1000,
                   .in_init_userns = 1,
                   .user = "ann",
                   .nproc = 63000,
                   .nproc_hard = 63000,
                   .user_tasks = 10,
                   .pids_max = LAB_LIMITS_UNLIMITED,
                   .max_pid_namespaces = 63000,
                   .max_user_namespaces = 63000,
                   .pid_max = 4194304,
                   .threads_max = 126000,
                   .tasks = 300},
    };
    return f;
}

static void expect(const struct lab_facts *f, enum lab_route route, const char *problem,
                   const char *fix)
{
    struct lab_diagnosis d;
    lab_explain(f, &d);
    assert_int_equal(d.route, route);
    if (problem == NULL) {
        assert_string_equal(d.problem, "");
        return;
    }
    if (strstr(d.problem, problem) == NULL)
        fail_msg("problem '%s' does not say '%s'", d.problem, problem);
    assert_string_equal(d.fix, fix);
}

static void test_working_routes_have_no_problem(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_OK, 0);
    expect(&f, LAB_ROUTE_USER_NAMESPACE, NULL, NULL);
    f.root = f.cap_sys_admin = 1;
    f.root_probe = (struct lab_probe){1, LAB_PROBE_OK, 0};
    expect(&f, LAB_ROUTE_ROOT, NULL, NULL);
}

static void test_disabled_user_namespaces_name_the_sysctl(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_USER_NS, ENOSPC);
    f.max_user_namespaces = 0;
    expect(&f, LAB_ROUTE_NONE, "user.max_user_namespaces is 0",
           "sudo sysctl -w user.max_user_namespaces=15000");
    f.max_user_namespaces = 10;
    expect(&f, LAB_ROUTE_NONE, "limit on user namespaces is reached",
           "sudo sysctl -w user.max_user_namespaces=20");
    f = user_failed(LAB_PROBE_USER_NS, EPERM);
    f.unprivileged_userns_clone = 0;
    expect(&f, LAB_ROUTE_NONE, "kernel.unprivileged_userns_clone is 0",
           "sudo sysctl -w kernel.unprivileged_userns_clone=1");
}

static void test_unmapped_id_is_not_blamed_on_the_container(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_USER_NS, EPERM);
    f.container = f.unmapped_id = 1;
    expect(&f, LAB_ROUTE_NONE, "your user id has no mapping",
           "start pidns-tutor outside that user namespace, or as root");
}

static void test_apparmor_restriction_names_its_sysctl(void **state)
{
    (void)state;
    /* Ubuntu 23.10+: the namespace is made, but without capabilities. */
    struct lab_facts f = user_failed(LAB_PROBE_ID_MAP, EPERM);
    f.apparmor_restrict = 1;
    expect(&f, LAB_ROUTE_NONE, "kernel.apparmor_restrict_unprivileged_userns is 1",
           "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
    f = user_failed(LAB_PROBE_LAB_PROC, EPERM);
    f.apparmor_restrict = 1;
    expect(&f, LAB_ROUTE_NONE, "AppArmor",
           "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
}

static void test_containers_get_the_options_they_lack(void **state)
{
    (void)state;
    /* root without CAP_SYS_ADMIN, user namespaces refused by seccomp */
    struct lab_facts f = user_failed(LAB_PROBE_USER_NS, EPERM);
    f.root = f.container = 1;
    f.root_probe = (struct lab_probe){1, LAB_PROBE_MOUNT_NS, EPERM};
    struct lab_diagnosis d;
    lab_explain(&f, &d);
    assert_int_equal(d.route, LAB_ROUTE_NONE);
    assert_non_null(strstr(d.problem, "no CAP_SYS_ADMIN (a container)"));
    assert_non_null(strstr(d.fix, "--cap-add SYS_ADMIN"));
    /* ... but if user namespaces work there, that is the route */
    f.user_probe = (struct lab_probe){1, LAB_PROBE_OK, 0};
    expect(&f, LAB_ROUTE_USER_NAMESPACE, NULL, NULL);
    /* masked /proc: an unprivileged procfs mount is refused */
    f = user_failed(LAB_PROBE_LAB_PROC, EPERM);
    f.container = 1;
    expect(&f, LAB_ROUTE_NONE, "the container masks them",
           "docker run --security-opt systempaths=unconfined ...");
}

static void test_missing_procfs_or_kernel_features(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_OK, 0);
    f.proc_mounted = 0;
    expect(&f, LAB_ROUTE_NONE, "/proc is not a mounted procfs", "sudo mount -t proc proc /proc");
    f = user_failed(LAB_PROBE_OK, 0);
    f.kernel_pid_ns = 0;
    expect(&f, LAB_ROUTE_NONE, "CONFIG_PID_NS",
           "boot a kernel built with CONFIG_PID_NS=y (every distribution kernel is)");
    f = user_failed(LAB_PROBE_USER_NS, EINVAL);
    f.kernel_user_ns = 0;
    expect(&f, LAB_ROUTE_NONE, "CONFIG_USER_NS", "sudo pidns-tutor");
}

static void test_other_failures_say_the_step_and_the_error(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_PID_NS, EINVAL);
    expect(&f, LAB_ROUTE_NONE, "creating a PID namespace failed: Invalid argument",
           "sudo pidns-tutor");
}

/* A step failing with ENOSPC or EAGAIN hit a limit: it is named, with the
 * administrator's setting, never sudo. Control: with every limit high the
 * same ENOSPC is not blamed on a limit (and gets no sudo either). */
static void test_limits_are_named_without_sudo(void **state)
{
    (void)state;
    struct lab_facts f = user_failed(LAB_PROBE_PID_NS, ENOSPC);
    expect(&f, LAB_ROUTE_NONE, "creating a PID namespace failed: No space left on device",
           "pidns-tutor --doctor lists the limits on processes and namespaces");
    f.limits.max_pid_namespaces = 0;
    expect(&f, LAB_ROUTE_NONE,
           "creating a PID namespace failed (No space left on device): PID namespaces are "
           "limited to 0 here (user.max_pid_namespaces); a lesson needs up to 40",
           "the administrator raises it: `sysctl -w user.max_pid_namespaces=15000` (and in "
           "/etc/sysctl.d/ to keep it)");
    f.limits.in_init_userns = 0;
    expect(&f, LAB_ROUTE_NONE, "user.max_pid_namespaces",
           "this runs in a user namespace whose owner lowered it: they raise it there "
           "(`echo 15000 >/proc/sys/user/max_pid_namespaces`), or start pidns-tutor outside it");
    f = user_failed(LAB_PROBE_CRASHED, EAGAIN);
    f.limits.nproc = f.limits.nproc_hard = 20;
    f.limits.user_tasks = 18;
    expect(&f, LAB_ROUTE_NONE,
           "starting a process failed (Resource temporarily unavailable): your account may run "
           "20 processes at once (ulimit -u, RLIMIT_NPROC; 18 run now)",
           "the administrator raises it: `ann - nproc 512` in /etc/security/limits.conf (the "
           "hard limit is 20), then you log in again");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_working_routes_have_no_problem),
        cmocka_unit_test(test_disabled_user_namespaces_name_the_sysctl),
        cmocka_unit_test(test_unmapped_id_is_not_blamed_on_the_container),
        cmocka_unit_test(test_apparmor_restriction_names_its_sysctl),
        cmocka_unit_test(test_containers_get_the_options_they_lack),
        cmocka_unit_test(test_missing_procfs_or_kernel_features),
        cmocka_unit_test(test_other_failures_say_the_step_and_the_error),
        cmocka_unit_test(test_limits_are_named_without_sudo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
