/* SPDX-License-Identifier: MIT */
/* doctor.c: --doctor, the pre-flight report. See doctor.h. Every check is
 * one row in a table: what it looks at, and the fix when it fails.
 */
#include "lab/doctor.h"
#include "lab/lab.h"
#include "lab/lab_cgroup.h"
#include "lab/lab_diagnose.h"
#include "lab/lab_limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int doctor_kernel_at_least(const char *release, int major, int minor)
{
    int ma = 0, mi = 0;
    if (sscanf(release, "%d.%d", &ma, &mi) != 2)
        return 0;
    return ma > major || (ma == major && mi >= minor);
}

int doctor_kernel_has(const char *version, char *release, size_t len)
{
    struct utsname u;
    int major, minor;

    if (uname(&u) == -1)
        snprintf(u.release, sizeof u.release, "unknown");
    snprintf(release, len, "%s", u.release);
    if (version == NULL || sscanf(version, "%d.%d", &major, &minor) != 2)
        return 1;
    return doctor_kernel_at_least(u.release, major, minor);
}

static void row(FILE *out, int ok, const char *what, const char *fix)
{
    fprintf(out, "%-5s %s\n", ok ? "ok" : "NO", what);
    if (!ok && fix != NULL)
        fprintf(out, "      fix: %s\n", fix);
}

static void check_kernel(FILE *out, int *fatal)
{
    struct utsname u;
    char line[sizeof u.release + sizeof u.machine + sizeof "kernel  on "];
    static const struct {
        int major, minor;
        const char *feature;
    } features[] = {
        {3, 8, "PID namespaces with user namespaces (3.8)"},
        {4, 1, "NSpid in /proc/PID/status: a PID at every level (4.1)"},
        {4, 9, "NS_GET_PARENT: the namespace tree (4.9)"},
        {4, 12, "/proc/PID/ns/pid_for_children (4.12)"},
        {5, 3, "pidfd_open(): pidfds for running processes (5.3)"},
        {5, 5, "clone3() with set_tid: choosing PIDs (5.5)"},
        {5, 8, "setns() on a pidfd: several namespaces at once (5.8)"},
        {6, 11, "PIDFD_GET_PID_NAMESPACE, NS_GET_PID_IN_PIDNS: translation on request (6.11)"},
        {6, 13, "PIDFD_GET_INFO: a pidfd's PIDs and namespaces (6.13)"},
        {6, 14, "pid_max per PID namespace (6.14)"},
    };

    uname(&u);
    snprintf(line, sizeof line, "kernel %s on %s", u.release, u.machine);
    row(out, 1, line, NULL);
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++) {
        int ok = doctor_kernel_at_least(u.release, features[i].major, features[i].minor);
        row(out, ok, features[i].feature, "a newer kernel (the lessons that need it say so)");
        if (!ok && i == 0)
            *fatal = 1;
    }
}

static void check_privileges(FILE *out, const struct lab_facts *facts)
{
    char line[320];
    snprintf(line, sizeof line, "running as uid %u%s%s", (unsigned)getuid(),
             facts->cap_sys_admin ? ", with CAP_SYS_ADMIN" : ", without CAP_SYS_ADMIN",
             getenv("SUDO_UID") != NULL ? " (through sudo)" : "");
    row(out, 1, line, NULL);
}

static void check_user_namespaces(FILE *out, const struct lab_facts *facts)
{
    char line[320], problem[400], fix[400];
    struct lab_limits l = facts->limits;

    l.max_pid_namespaces = LAB_LIMITS_UNKNOWN;
    if (facts->max_user_namespaces >= 0)
        snprintf(line, sizeof line, "user.max_user_namespaces = %ld", facts->max_user_namespaces);
    else
        snprintf(line, sizeof line, "user.max_user_namespaces = (unreadable)");
    int ok =
        facts->max_user_namespaces < 0 || facts->max_user_namespaces >= LAB_LIMITS_NEED_NAMESPACES;
    row(out, ok, line,
        ok || lab_limits_explain(&l, ENOSPC, problem, sizeof problem, fix, sizeof fix) == -1 ? NULL
                                                                                             : fix);
    if (facts->unprivileged_userns_clone >= 0) {
        snprintf(line, sizeof line, "kernel.unprivileged_userns_clone = %d",
                 facts->unprivileged_userns_clone);
        row(out, facts->unprivileged_userns_clone != 0, line,
            "sudo sysctl -w kernel.unprivileged_userns_clone=1");
    }
    if (facts->apparmor_restrict >= 0) {
        snprintf(line, sizeof line, "kernel.apparmor_restrict_unprivileged_userns = %d",
                 facts->apparmor_restrict);
        row(out, facts->apparmor_restrict == 0 || facts->root, line,
            "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or run with sudo)");
    } else {
        row(out, 1, "no AppArmor restriction on user namespaces", NULL);
    }
}

static const char *doctor_value(long v, char *buf, size_t len)
{
    if (v == LAB_LIMITS_UNLIMITED)
        return "unlimited";
    if (v == LAB_LIMITS_UNKNOWN)
        return "unknown";
    snprintf(buf, len, "%ld", v);
    return buf;
}

/* The limits a lesson's fork, clone or unshare can hit, each with the
 * administrator's setting that raises it (sudo would only bypass them). */
static void check_limits(FILE *out, const struct lab_facts *facts)
{
    struct lab_limits l = facts->limits;
    char line[600], a[32], b[32], problem[400], fix[400];
    long in_use;

    in_use = l.user_tasks > 0 ? l.user_tasks : 0;
    snprintf(line, sizeof line, "processes of your account: %ld, ulimit -u (RLIMIT_NPROC) %s%s",
             in_use, doctor_value(l.nproc, a, sizeof a), l.root ? " (root: not enforced)" : "");
    int ok = l.root || l.nproc < 0 || l.nproc - in_use >= LAB_LIMITS_NEED_TASKS;
    struct lab_limits only = l;
    only.pids_max = only.pid_max = only.threads_max = LAB_LIMITS_UNLIMITED;
    row(out, ok, line,
        ok || lab_limits_explain(&only, EAGAIN, problem, sizeof problem, fix, sizeof fix) == -1
            ? NULL
            : fix);
    if (l.pids_max >= 0) {
        snprintf(line, sizeof line, "pids.max of your cgroup %s: %ld, %ld in use", l.pids_cgroup,
                 l.pids_max, l.pids_current);
        only = l;
        only.nproc = only.pid_max = only.threads_max = LAB_LIMITS_UNLIMITED;
        ok = l.pids_max - l.pids_current >= LAB_LIMITS_NEED_TASKS;
        row(out, ok, line,
            ok || lab_limits_explain(&only, EAGAIN, problem, sizeof problem, fix, sizeof fix) == -1
                ? NULL
                : fix);
    } else {
        row(out, 1, "no pids.max on your cgroup", NULL);
    }
    snprintf(line, sizeof line,
             "tasks on the machine: %ld; kernel.pid_max %s, kernel.threads-max %s", l.tasks,
             doctor_value(l.pid_max, a, sizeof a), doctor_value(l.threads_max, b, sizeof b));
    only = l;
    only.nproc = only.pids_max = LAB_LIMITS_UNLIMITED;
    ok = (l.pid_max < 0 || l.tasks < 0 || l.pid_max - l.tasks >= LAB_LIMITS_NEED_TASKS) &&
         (l.threads_max < 0 || l.tasks < 0 || l.threads_max - l.tasks >= LAB_LIMITS_NEED_TASKS);
    ok = ok || lab_limits_explain(&only, EAGAIN, problem, sizeof problem, fix, sizeof fix) == -1;
    row(out, ok, line, ok ? NULL : fix);
    snprintf(line, sizeof line, "user.max_pid_namespaces = %s (a lesson needs up to %d)",
             doctor_value(l.max_pid_namespaces, a, sizeof a), LAB_LIMITS_NEED_NAMESPACES);
    ok = l.max_pid_namespaces < 0 || l.max_pid_namespaces >= LAB_LIMITS_NEED_NAMESPACES;
    only = l;
    only.max_user_namespaces = LAB_LIMITS_UNKNOWN;
    row(out, ok, line,
        ok || lab_limits_explain(&only, ENOSPC, problem, sizeof problem, fix, sizeof fix) == -1
            ? NULL
            : fix);
}

static void check_environment(FILE *out, const struct lab_facts *facts, int *fatal)
{
    char buf[256];
    struct utsname u;
    const char *container = lab_container_name();

    if (container != NULL) {
        snprintf(buf, sizeof buf, "inside a container (%s): it must allow unshare and mount",
                 container);
        row(out, 1, buf, NULL);
    } else {
        row(out, 1, "not inside a container that says so", NULL);
    }
    if (uname(&u) == 0 &&
        (strstr(u.release, "microsoft") != NULL || strstr(u.release, "Microsoft") != NULL ||
         strstr(u.release, "WSL") != NULL))
        row(out, strstr(u.release, "WSL2") != NULL, "running under WSL",
            "use WSL 2 (wsl --set-version DISTRO 2): WSL 1 has no namespaces");
    row(out, facts->proc_mounted, "procfs mounted at /proc", "sudo mount -t proc proc /proc");
    if (!facts->proc_mounted)
        *fatal = 1;
}

int doctor_run(FILE *out, const struct lab_config *config)
{
    struct lab_diagnosis d;
    struct lab_facts facts; /* read once: every row and the diagnosis use them */
    int fatal = 0;

    lab_gather_facts(config, &facts);
    fprintf(out, "pidns-tutor --doctor: what this machine offers the lessons\n\n");
    check_kernel(out, &fatal);
    check_privileges(out, &facts);
    check_user_namespaces(out, &facts);
    check_limits(out, &facts);
    lab_cgroup_doctor(out);
    check_environment(out, &facts, &fatal);
    lab_diagnose_facts(&facts, &d);
    fprintf(out, "\n");
    if (d.route == LAB_ROUTE_NONE) {
        row(out, 0, d.problem, d.fix);
        fatal = 1;
    } else {
        row(out, 1,
            d.route == LAB_ROUTE_ROOT
                ? "route: as root, a private mount namespace for the lab"
                : "route: as an ordinary user, through a user namespace (you are root "
                  "only inside the lab)",
            NULL);
    }
    fprintf(out, "\n%s\n",
            fatal ? "The lessons cannot run here: apply the fixes above."
                  : "The lessons can run here: `pidns-tutor` starts them.");
    return fatal;
}
