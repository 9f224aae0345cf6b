/* SPDX-License-Identifier: MIT */
/* lab_explain.c: turning the facts and probes of lab_diagnose() into a route,
 * or into one sentence saying what is missing and one command that fixes it.
 * Pure (no system calls), so that the unit tests can give it the facts of
 * systems we do not have: Ubuntu's AppArmor restriction, Debian's old sysctl,
 * containers without CAP_SYS_ADMIN.
 */
#include "lab/lab_diagnose.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What each step of a probe does, for the messages (lab_diagnose.c names the
 * step a probe stopped at; the words are chosen here, with the explanation). */
const char *lab_probe_step_name(enum lab_probe_step step)
{
    static const char *const names[] = {
        [LAB_PROBE_OK] = "nothing",
        [LAB_PROBE_USER_NS] = "creating a user namespace",
        [LAB_PROBE_ID_MAP] = "mapping your user id in the user namespace",
        [LAB_PROBE_MOUNT_NS] = "creating a mount namespace",
        [LAB_PROBE_ROOT] = "building the lab's private root",
        [LAB_PROBE_PID_NS] = "creating a PID namespace",
        [LAB_PROBE_LAB_PROC] = "mounting the lab's procfs",
        [LAB_PROBE_NESTED_PROC] = "mounting a procfs for a nested PID namespace",
        [LAB_PROBE_CRASHED] = "the probe (it ended without a word)",
    };
    return step <= LAB_PROBE_CRASHED ? names[step] : "?";
}

#define DOCKER_FIX                                                                                 \
    "docker run --cap-add SYS_ADMIN --security-opt seccomp=unconfined "                            \
    "--security-opt apparmor=unconfined ... (or podman with the same options)"

static int say(struct lab_diagnosis *out, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->problem, sizeof out->problem, fmt, ap);
    va_end(ap);
    snprintf(out->fix, sizeof out->fix, "%s", fix);
    out->route = LAB_ROUTE_NONE;
    return 0;
}

static int refused(int error)
{
    return error == EPERM || error == EACCES;
}

/* A step failed with EAGAIN or ENOSPC: a limit on tasks or namespaces, named
 * with who can change it (never sudo: the limits are the administrator's). */
static int explain_limit(const struct lab_facts *f, const struct lab_probe *p,
                         struct lab_diagnosis *out)
{
    char problem[400];

    if (p->error != EAGAIN && p->error != ENOSPC)
        return -1;
    if (lab_limits_explain(&f->limits, p->error, problem, sizeof problem, out->fix,
                           sizeof out->fix) == -1)
        return -1;
    snprintf(out->problem, sizeof out->problem, "%s failed (%s): %s",
             p->step == LAB_PROBE_CRASHED ? "starting a process" : lab_probe_step_name(p->step),
             strerror(p->error), problem);
    out->route = LAB_ROUTE_NONE;
    return 0;
}

/* The user-namespace route failed: why, most specific reason first. */
static int explain_user_route(const struct lab_facts *f, struct lab_diagnosis *out)
{
    const struct lab_probe *p = &f->user_probe;
    char fix[128];

    if (!f->kernel_user_ns)
        return say(out, "sudo pidns-tutor",
                   "this kernel has no user namespaces (CONFIG_USER_NS), so only root can "
                   "open the lab");
    if (p->step == LAB_PROBE_USER_NS && f->max_user_namespaces == 0)
        return say(out,
                   f->limits.in_init_userns
                       ? "sudo sysctl -w user.max_user_namespaces=15000"
                       : "this runs in a user namespace whose owner lowered it: they "
                         "raise it there (`echo 15000 >/proc/sys/user/max_user_namespaces`)"
                         ", or start pidns-tutor outside it",
                   "user namespaces are disabled: user.max_user_namespaces is 0");
    if (explain_limit(f, p, out) == 0)
        return 0;
    if (p->step == LAB_PROBE_USER_NS && p->error == ENOSPC) {
        snprintf(fix, sizeof fix, "sudo sysctl -w user.max_user_namespaces=%ld",
                 f->max_user_namespaces > 0 ? 2 * f->max_user_namespaces : 15000);
        return say(out, fix,
                   "the limit on user namespaces is reached (user.max_user_namespaces "
                   "is %ld)",
                   f->max_user_namespaces);
    }
    if (p->step == LAB_PROBE_USER_NS && f->unprivileged_userns_clone == 0)
        return say(out, "sudo sysctl -w kernel.unprivileged_userns_clone=1",
                   "unprivileged user namespaces are disabled: "
                   "kernel.unprivileged_userns_clone is 0");
    if (f->apparmor_restrict == 1 && p->step != LAB_PROBE_OK && refused(p->error))
        return say(out, "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
                   "AppArmor gives unprivileged user namespaces no capabilities "
                   "(kernel.apparmor_restrict_unprivileged_userns is 1): %s was refused",
                   lab_probe_step_name(p->step));
    if (p->step == LAB_PROBE_USER_NS && f->unmapped_id && refused(p->error))
        return say(out, "start pidns-tutor outside that user namespace, or as root",
                   "your user id has no mapping in the user namespace this runs in "
                   "(e.g. after a plain unshare -U), so the kernel refuses a new one");
    if (p->step == LAB_PROBE_USER_NS && f->container && refused(p->error))
        return say(out, DOCKER_FIX,
                   "the container refuses to create user namespaces (its seccomp profile)");
    if ((p->step == LAB_PROBE_LAB_PROC || p->step == LAB_PROBE_NESTED_PROC) && refused(p->error))
        return say(out,
                   f->container ? "docker run --security-opt systempaths=unconfined ..."
                                : "sudo pidns-tutor",
                   "mounting a procfs in a user namespace is refused: parts of /proc are hidden "
                   "under other mounts%s",
                   f->container ? " (the container masks them)" : "");
    if (p->error == EAGAIN || p->error == ENOSPC) /* a limit none of ours names: not sudo */
        return say(out, "pidns-tutor --doctor lists the limits on processes and namespaces",
                   "%s failed: %s", lab_probe_step_name(p->step), strerror(p->error));
    return say(out, f->root ? DOCKER_FIX : "sudo pidns-tutor", "%s failed: %s",
               lab_probe_step_name(p->step), strerror(p->error));
}

static int explain(const struct lab_facts *f, struct lab_diagnosis *out)
{
    if (!f->proc_mounted)
        return say(out, "sudo mount -t proc proc /proc",
                   "/proc is not a mounted procfs, and the lab reads every process there");
    if (!f->kernel_pid_ns)
        return say(out, "boot a kernel built with CONFIG_PID_NS=y (every distribution kernel is)",
                   "this kernel has no PID namespaces (CONFIG_PID_NS)");
    if (f->root_probe.tried && f->root_probe.step == LAB_PROBE_OK) {
        out->route = LAB_ROUTE_ROOT;
        return 0;
    }
    if (f->user_probe.tried && f->user_probe.step == LAB_PROBE_OK) {
        out->route = LAB_ROUTE_USER_NAMESPACE;
        return 0;
    }
    if (f->root_probe.tried && f->root_probe.step == LAB_PROBE_MOUNT_NS && !f->cap_sys_admin &&
        (!f->user_probe.tried || f->user_probe.step != LAB_PROBE_OK))
        return say(out, DOCKER_FIX,
                   "root here has no CAP_SYS_ADMIN (%s), and user namespaces are refused too",
                   f->container ? "a container" : "a restricted environment");
    if (f->root_probe.tried && f->root_probe.step != LAB_PROBE_MOUNT_NS) {
        const struct lab_probe *p = &f->root_probe;
        if (explain_limit(f, p, out) == 0)
            return 0;
        if ((p->step == LAB_PROBE_LAB_PROC || p->step == LAB_PROBE_NESTED_PROC) && f->container)
            return say(out, "docker run --security-opt systempaths=unconfined ...",
                       "mounting a procfs is refused: the container masks parts of /proc");
        return say(out, f->container ? DOCKER_FIX : "sudo pidns-tutor --doctor",
                   "%s failed as root: %s", lab_probe_step_name(p->step), strerror(p->error));
    }
    return explain_user_route(f, out);
}

void lab_explain(const struct lab_facts *f, struct lab_diagnosis *out)
{
    memset(out, 0, sizeof *out);
    explain(f, out);
}
