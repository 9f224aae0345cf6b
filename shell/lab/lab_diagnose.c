/* SPDX-License-Identifier: MIT */
/* lab_diagnose.c: which way a lab can open on this system, or what is missing
 * and the one command that fixes it (see lab_diagnose.h).
 *
 * Facts come from /proc; the verdict comes from actually trying: a probe
 * child goes through the lab's steps (sandbox, PID namespace, the lab's
 * procfs, then a nested namespace's procfs at /procN as an example would).
 * The sysctls only explain a failure, they never decide one.
 */
#include "lab/lab_diagnose.h"
#include "lab/lab_internal.h"
#include "lab/sandbox.h"
#include "procfs/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* CAP_SYS_ADMIN's bit in a capability mask (linux/capability.h). */
#define CAP_SYS_ADMIN_BIT 21

const char *lab_container_name(void)
{
    const char *name = getenv("container"); /* systemd-nspawn, LXC, podman... */
    if (access("/.dockerenv", F_OK) == 0)
        return "docker";
    if (access("/run/.containerenv", F_OK) == 0)
        return "podman";
    return name != NULL && name[0] != '\0' ? name : NULL;
}

/* Whether id has a mapping in map of our user namespace: the kernel refuses
 * a new user namespace to a process whose ids are unmapped (e.g. after a
 * plain `unshare -U`), whatever the sysctls say. No map to read: assume the
 * usual. */
static int id_mapped(const char *map, unsigned long id)
{
    return procfs_self_id_mapped("/proc", map, id) != 0;
}

void lab_gather_facts(const struct lab_config *config, struct lab_facts *f)
{
    unsigned long long caps;
    memset(f, 0, sizeof *f);
    f->root = geteuid() == 0;
    f->forced_user_namespace = config != NULL && config->force_user_namespace;
    f->proc_mounted = procfs_is_procfs("/proc");
    f->kernel_pid_ns = procfs_self_has_ns("/proc", "pid");
    f->kernel_user_ns = procfs_self_has_ns("/proc", "user");
    procfs_self_caps("/proc", &caps);
    f->cap_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
    f->max_user_namespaces = procfs_read_sysctl("/proc", "user/max_user_namespaces", -1, -1);
    f->unprivileged_userns_clone =
        (int)procfs_read_sysctl("/proc", "kernel/unprivileged_userns_clone", -1, -1);
    f->apparmor_restrict =
        (int)procfs_read_sysctl("/proc", "kernel/apparmor_restrict_unprivileged_userns", -1, -1);
    f->container = lab_container_name() != NULL;
    f->unmapped_id = !id_mapped("uid_map", geteuid()) || !id_mapped("gid_map", getegid());
    lab_limits_gather(&f->limits);
}

static void probe_report(int fd, enum lab_probe_step step, int error)
{
    int msg[2] = {(int)step, error};
    if (write(fd, msg, sizeof msg) != (ssize_t)sizeof msg)
        _exit(2);
    _exit(step == LAB_PROBE_OK ? 0 : 1);
}

static int wait_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) == -1)
        if (errno != EINTR)
            return -1;
    return status;
}

/* In the lab's PID namespace: the keeper's steps, then an example's. */
static void probe_inside(int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (unshare(CLONE_NEWNS) == -1)
        probe_report(fd, LAB_PROBE_LAB_PROC, errno);
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        probe_report(fd, LAB_PROBE_LAB_PROC, errno);
    if (unshare(CLONE_NEWPID) == -1)
        probe_report(fd, LAB_PROBE_PID_NS, errno);
    pid_t pid = fork();
    if (pid == -1)
        probe_report(fd, LAB_PROBE_PID_NS, errno);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (mkdir("/proc2", 0555) == -1 || mount("proc", "/proc2", "proc", 0, NULL) == -1)
            probe_report(fd, LAB_PROBE_NESTED_PROC, errno);
        probe_report(fd, LAB_PROBE_OK, 0);
    }
    wait_child(pid);
    _exit(0);
}

static void probe_main(int fd, int user_namespace)
{
    static const enum lab_probe_step from_sandbox[] = {
        [SANDBOX_STEP_NONE] = LAB_PROBE_ROOT,         [SANDBOX_STEP_OPEN_HOST] = LAB_PROBE_ROOT,
        [SANDBOX_STEP_USER_NS] = LAB_PROBE_USER_NS,   [SANDBOX_STEP_ID_MAP] = LAB_PROBE_ID_MAP,
        [SANDBOX_STEP_MOUNT_NS] = LAB_PROBE_MOUNT_NS, [SANDBOX_STEP_BUILD_ROOT] = LAB_PROBE_ROOT,
    };
    struct sandbox_info info = {.failed_step = SANDBOX_STEP_NONE};
    char err[256];

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (sandbox_enter(user_namespace ? SANDBOX_FORCE_USER_NAMESPACE : 0, &info, err, sizeof err) ==
        -1)
        probe_report(fd, from_sandbox[info.failed_step], errno);
    if (unshare(CLONE_NEWPID) == -1)
        probe_report(fd, LAB_PROBE_PID_NS, errno);
    pid_t pid = fork();
    if (pid == -1)
        probe_report(fd, LAB_PROBE_PID_NS, errno);
    if (pid == 0)
        probe_inside(fd);
    wait_child(pid);
    _exit(0);
}

void lab_probe_route(int user_namespace, struct lab_probe *out)
{
    int pipefd[2], msg[2] = {LAB_PROBE_CRASHED, 0};

    out->tried = 1;
    out->step = LAB_PROBE_CRASHED;
    out->error = 0;
    if (pipe2(pipefd, O_CLOEXEC) == -1) {
        out->error = errno;
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        probe_main(pipefd[1], user_namespace);
    }
    close(pipefd[1]);
    if (pid != -1) {
        if (read(pipefd[0], msg, sizeof msg) == (ssize_t)sizeof msg) {
            out->step = (enum lab_probe_step)msg[0];
            out->error = msg[1];
        }
        wait_child(pid);
    } else {
        out->error = errno;
    }
    close(pipefd[0]);
}

void lab_diagnose_facts(struct lab_facts *facts, struct lab_diagnosis *out)
{
    if (facts->proc_mounted && facts->kernel_pid_ns) {
        if (facts->root && !facts->forced_user_namespace) {
            lab_probe_route(0, &facts->root_probe);
            /* root without CAP_SYS_ADMIN (a container) may still have user namespaces */
            if (facts->root_probe.step == LAB_PROBE_MOUNT_NS)
                lab_probe_route(1, &facts->user_probe);
        } else {
            lab_probe_route(1, &facts->user_probe);
        }
    }
    lab_explain(facts, out);
}

void lab_diagnose(const struct lab_config *config, struct lab_diagnosis *out)
{
    struct lab_facts facts;
    lab_gather_facts(config, &facts);
    lab_diagnose_facts(&facts, out);
}
