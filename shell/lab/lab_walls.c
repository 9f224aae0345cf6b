/* SPDX-License-Identifier: MIT */
/* lab_walls.c: walls the learner cannot take down from inside the lab.
 *
 * On the user-namespace route the learner is root in the sandbox's user
 * namespace (A), which owns the mounts the lab is built of: a command could
 * unmount the scratch tmpfs on /tmp and remount the host's /tmp read-write
 * under it. The kernel locks every mount of a mount namespace that is copied
 * into one owned by another user namespace (fs/namespace.c: copy_mnt_ns()
 * calls lock_mnt_tree(): MNT_LOCKED, and MNT_LOCK_READONLY on what is
 * read-only then): the copy's root may not unmount them (EINVAL) nor make
 * them writable again (EPERM). So, as bubblewrap does, the view is built by
 * the sandbox's root and the learner gets a locked copy of it:
 *
 *   1. the builder, a child of the shell still in A, unshares a mount
 *      namespace (V, owned by A) and builds the read-only view in it;
 *   2. the shell unshares a further user namespace (B, its root mapped to A's
 *      root: the same user) and only then the lab's PID namespace, so that B
 *      owns it: the learner's commands, root in B, may mount a procfs for it
 *      and write its ns_last_pid;
 *   3. the keeper (the lab's PID 1) is started and waits;
 *   4. the builder joins the lab's PID namespace for one child, which mounts
 *      the lab's procfs on /proc in V (a procfs of the lab mounted from
 *      inside B could be unmounted, showing the host's procfs and, through
 *      /proc/PID/root, the host's files); then it joins B and unshares a
 *      mount namespace: the locked copy (L);
 *   5. the keeper joins L; every command joins the keeper's.
 *
 * The root route does not nest (docs/design.adoc, security model): root can
 * undo any wall from outside the lab, and nesting would map only uid 0 (other
 * users' files shown as nobody) and make the lab's PID namespace owned by a
 * user namespace other than the initial one. */
#include "lab/lab_internal.h"
#include "lab/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct walls_report {
    int ok;
    char why[LAB_ERROR_MAX - 64];
};

__attribute__((noreturn)) static void builder_fail(int fd, const char *what)
{
    struct walls_report r = {0, ""};
    snprintf(r.why, sizeof r.why, "%s%s%s", what, errno ? ": " : "", errno ? strerror(errno) : "");
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(1);
    _exit(1);
}

static void builder_ok(int fd)
{
    struct walls_report r = {1, ""};
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(1);
}

static int open_ns(pid_t pid, const char *ns)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Step 4, in the builder: the lab's procfs in V, then L. */
static void builder_lock(int status_fd, pid_t keeper, pid_t shell)
{
    /* Both opened first: /proc is about to become the lab's. */
    int userns = open_ns(shell, "user");
    int pidns = open_ns(keeper, "pid");
    if (userns == -1 || pidns == -1 || setns(pidns, CLONE_NEWPID) == -1)
        builder_fail(status_fd, "joining the lab's PID namespace");
    close(pidns);
    pid_t child = fork();
    if (child == -1)
        builder_fail(status_fd, "fork");
    if (child == 0) /* in the lab's PID namespace: its procfs */
        _exit(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0 ? 0
                                                                                          : errno);
    int status = 0;
    pid_t got;
    while ((got = waitpid(child, &status, 0)) == -1 && errno == EINTR)
        ;
    errno = got == -1 ? errno : WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
    if (errno != 0)
        builder_fail(status_fd, "mounting the lab's procfs at /proc");
    if (setns(userns, CLONE_NEWUSER) == -1)
        builder_fail(status_fd, "joining the lab's user namespace");
    close(userns);
    if (unshare(CLONE_NEWNS) == -1)
        builder_fail(status_fd, "copying the lab's view into a locked mount namespace");
    builder_ok(status_fd);
}

/* The builder's life: steps 1 and 4, then it holds L until the keeper is in. */
__attribute__((noreturn)) static void builder_main(const struct lab *lab, int cmd_fd, int status_fd)
{
    const char *keep[] = {lab->examples_dir, lab->cwd, NULL};
    char why[LAB_ERROR_MAX - 128];
    pid_t shell = getppid();

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != shell)
        _exit(1);
    errno = 0;
    if (unshare(CLONE_NEWNS) == -1)
        builder_fail(status_fd, "unshare(CLONE_NEWNS) for the lab's view");
    if (sandbox_protect_host(0, keep, why, sizeof why) == -1)
        builder_fail(status_fd, why);
    builder_ok(status_fd);
    pid_t keeper;
    if (read(cmd_fd, &keeper, sizeof keeper) != (ssize_t)sizeof keeper)
        _exit(0);
    errno = 0;
    builder_lock(status_fd, keeper, shell);
    char c;
    while (read(cmd_fd, &c, 1) > 0) /* until the shell closes: the keeper is in L */
        ;
    _exit(0);
}

static int read_report(struct lab *lab, const char *step)
{
    struct walls_report r;
    ssize_t n;
    while ((n = read(lab->walls_status_fd, &r, sizeof r)) == -1 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof r && r.ok)
        return 0;
    if (n != (ssize_t)sizeof r)
        return lab_set_error(lab, "%s: the lab's view builder ended early", step);
    r.why[sizeof r.why - 1] = '\0';
    return lab_set_error(lab, "%s", r.why);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Step 2: B, our root the sandbox's root. setgroups is denied already in A. */
static int nest_user_namespace(struct lab *lab)
{
    if (unshare(CLONE_NEWUSER) == -1)
        return lab_set_error(lab, "unshare(CLONE_NEWUSER) for the lab's walls: %s",
                             strerror(errno));
    if ((write_file("/proc/self/setgroups", "deny") == -1 && errno != ENOENT) ||
        write_file("/proc/self/uid_map", "0 0 1\n") == -1 ||
        write_file("/proc/self/gid_map", "0 0 1\n") == -1)
        return lab_set_error(lab, "mapping root in the lab's user namespace: %s", strerror(errno));
    return 0;
}

int lab_walls_start(struct lab *lab)
{
    int cmd[2], status[2];
    /* cmd is a socket: a builder already gone means EPIPE, not SIGPIPE. */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cmd) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    if (pipe2(status, O_CLOEXEC) == -1) {
        close(cmd[0]);
        close(cmd[1]);
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    lab->walls_builder = fork();
    if (lab->walls_builder == 0) {
        close(cmd[1]);
        close(status[0]);
        builder_main(lab, cmd[0], status[1]);
    }
    close(cmd[0]);
    close(status[1]);
    lab->walls_cmd_fd = cmd[1];
    lab->walls_status_fd = status[0];
    if (lab->walls_builder == -1) {
        lab->walls_builder = 0;
        return lab_set_error(lab, "starting the lab's view builder (fork): %s", strerror(errno));
    }
    if (read_report(lab, "building the lab's read-only view") == -1)
        return -1;
    return nest_user_namespace(lab);
}

int lab_walls_lock(struct lab *lab, pid_t keeper)
{
    if (send(lab->walls_cmd_fd, &keeper, sizeof keeper, MSG_NOSIGNAL) != (ssize_t)sizeof keeper)
        return lab_set_error(lab, "the lab's view builder ended early");
    return read_report(lab, "locking the lab's view");
}

int lab_walls_keeper_join(pid_t builder, int go_fd)
{
    char c;
    ssize_t n;
    while ((n = read(go_fd, &c, 1)) == -1 && errno == EINTR)
        ;
    if (n != 1) {
        errno = ECANCELED;
        return -1;
    }
    int fd = open_ns(builder, "mnt");
    if (fd == -1 || setns(fd, CLONE_NEWNS) == -1)
        return -1;
    close(fd);
    return chdir("/");
}

void lab_walls_end(struct lab *lab)
{
    if (lab->walls_cmd_fd != -1)
        close(lab->walls_cmd_fd);
    if (lab->walls_status_fd != -1)
        close(lab->walls_status_fd);
    lab->walls_cmd_fd = lab->walls_status_fd = -1;
    if (lab->walls_builder > 0) {
        kill(lab->walls_builder, SIGKILL);
        while (waitpid(lab->walls_builder, NULL, 0) == -1 && errno == EINTR)
            ;
    }
    lab->walls_builder = 0;
}
