/* SPDX-License-Identifier: MIT */
/* lab.c: opening and closing the lab, its keeper (PID 1 of the lab), and the
 * small accessors. Running commands is in lab_run.c, cleaning up and the
 * verdict on the host in lab_sweep.c, the diagnosis in lab_diagnose.c.
 *
 * Why this shape (see lab.h): the shell itself enters the sandbox and then
 * unshare(CLONE_NEWPID), so every command is the shell's own child (exit
 * status, terminal, signals all work as in any shell) and yet lives in the
 * lab's PID namespace. The keeper holds the lab's mount namespace, whose /proc
 * is a procfs of the lab namespace; commands join it with setns(). The keeper
 * and every runner die with the shell (PR_SET_PDEATHSIG), and when the keeper
 * dies the kernel kills the whole lab namespace, nested ones included.
 */
#include "lab/lab_internal.h"
#include "lab/lab_diagnose.h"
#include "lab/lab_limits.h"
#include "lab/sandbox.h"
#include "procfs/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *lab_error(const struct lab *lab)
{
    return lab->error;
}

/* Steps the keeper reports when it cannot start. */
enum keeper_step {
    KEEPER_OK,
    KEEPER_PARENT_GONE,
    KEEPER_MOUNT_NS,
    KEEPER_PROTECT,
    KEEPER_MOUNT_PROC,
    KEEPER_WALLS
};
struct keeper_report {
    int step;
    int error;
};

static void keeper_report(int fd, int step, int error)
{
    struct keeper_report r = {step, error};
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(1);
}

/* Says which step failed, and ends the keeper. */
__attribute__((noreturn)) static void keeper_fail(int fd, int step, int error)
{
    keeper_report(fd, step, error);
    _exit(1);
}

__attribute__((noreturn)) static void keeper_serve(int ready_fd);

/* PID 1 of the lab. It ignores every signal it has no handler for (the kernel
 * protects a namespace's init), so blocking them all costs nothing and lets
 * it wait for SIGCHLD with sigwaitinfo(). */
static void keeper_main(const struct lab *lab, int ready_fd, int go_fd)
{
    sigset_t all;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 0) /* the shell, outside the namespace, shows as 0 */
        keeper_fail(ready_fd, KEEPER_PARENT_GONE, 0);
    prctl(PR_SET_NAME, "lab-init");
    setpgid(0, 0); /* out of the shell's group: the terminal's signals are not ours */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; null != -1 && fd <= 2; fd++)
        dup2(null, fd);
    if (dup2(ready_fd, 3) == -1 || dup2(go_fd, 4) == -1)
        _exit(1);
    ready_fd = 3;
    io_close_fds_from(5);
    /* With walls (lab_walls.c), the view and its procfs are built already:
     * the keeper joins their locked copy. */
    if (lab->walls_builder > 0) {
        if (lab_walls_keeper_join(lab->walls_builder, 4) == -1)
            keeper_fail(ready_fd, KEEPER_WALLS, errno);
        keeper_serve(ready_fd);
    }
    /* The examples and the directory commands start in stay in sight when
     * they lie under a scratch directory (a test's copy in /tmp). */
    const char *keep[] = {lab->examples_dir, lab->cwd, NULL};
    if (unshare(CLONE_NEWNS) == -1)
        keeper_fail(ready_fd, KEEPER_MOUNT_NS, errno);
    /* The host's files, read-only for everything the lab runs; scratch
     * tmpfs where programs expect to write. The shell itself stays in the
     * sandbox's namespace, where the learner's progress file is written. */
    char why[256];
    if (sandbox_protect_host(0, keep, why, sizeof why) == -1)
        keeper_fail(ready_fd, KEEPER_PROTECT, errno);
    /* This procfs shows the mounter's namespace: the lab's. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        keeper_fail(ready_fd, KEEPER_MOUNT_PROC, errno);
    keeper_serve(ready_fd);
}

/* Says it is ready, then reaps orphans for the life of the lab. */
__attribute__((noreturn)) static void keeper_serve(int ready_fd)
{
    keeper_report(ready_fd, KEEPER_OK, 0);
    close(ready_fd);
    close(4);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        sigwaitinfo(&chld, NULL);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}

/* The host as the lab finds it (lab_host.c), read through the fds the
 * sandbox kept: while the keeper builds the lab, as the lab cannot change it. */
static int snapshot_host(struct lab *lab)
{
    lab->host_mounts_at_open = lab_host_mount_table(lab->host_mountinfo_fd);
    lab->host_root_at_open = lab_dir_listing(lab->host_root_fd);
    if (lab->host_mounts_at_open == NULL || lab->host_root_at_open == NULL)
        return lab_set_error(lab, "reading the host's mount table and /: %s", strerror(errno));
    return 0;
}

/* Ends a keeper that never served (an error is set or to be set). */
static void keeper_abandon(struct lab *lab)
{
    kill(lab->keeper, SIGKILL);
    waitpid(lab->keeper, NULL, 0);
    lab->keeper = 0;
}

static int start_keeper(struct lab *lab, const struct lab_config *config)
{
    int pipefd[2], go[2];
    struct keeper_report r = {KEEPER_OK, 0};

    if (pipe2(pipefd, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    /* A socket, so that a keeper already gone means EPIPE, not SIGPIPE. */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) == -1) {
        close(pipefd[0]);
        close(pipefd[1]);
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    lab->keeper = fork();
    if (lab->keeper == -1) {
        close(pipefd[0]);
        close(pipefd[1]);
        close(go[0]);
        close(go[1]);
        return lab_set_error(lab, "starting the lab's init (fork): %s", strerror(errno));
    }
    if (lab->keeper == 0) {
        close(pipefd[0]);
        close(go[1]);
        keeper_main(lab, pipefd[1], go[0]);
    }
    close(pipefd[1]);
    close(go[0]);
    /* The keeper waits for the locked copy of the view (lab_walls.c). */
    int walls_rc = lab->walls_builder > 0 ? lab_walls_lock(lab, lab->keeper) : 0;
    if (walls_rc == 0 && lab->walls_builder > 0 && send(go[1], "g", 1, MSG_NOSIGNAL) != 1)
        walls_rc = lab_set_error(lab, "starting the lab's init: %s", strerror(errno));
    close(go[1]);
    if (walls_rc == -1) {
        keeper_abandon(lab);
        close(pipefd[0]);
        return -1;
    }
    /* The keeper unshares, protects the host and mounts /proc meanwhile. */
    int snapshot_rc = snapshot_host(lab);
    if (config != NULL && config->meanwhile != NULL)
        config->meanwhile(config->meanwhile_arg);
    ssize_t n;
    while ((n = read(pipefd[0], &r, sizeof r)) == -1 && errno == EINTR)
        ;
    close(pipefd[0]);
    if (n == (ssize_t)sizeof r && r.step == KEEPER_OK && snapshot_rc == 0)
        return 0;
    keeper_abandon(lab);
    if (n == (ssize_t)sizeof r && r.step == KEEPER_OK)
        return -1; /* the snapshot's error is set */
    const char *what = r.step == KEEPER_MOUNT_NS  ? "unshare(CLONE_NEWNS)"
                       : r.step == KEEPER_PROTECT ? "making the host's files read-only in the lab"
                       : r.step == KEEPER_MOUNT_PROC ? "mounting the lab's procfs at /proc"
                       : r.step == KEEPER_WALLS      ? "joining the lab's locked view"
                                                     : "starting the lab's init";
    return lab_set_error(lab, "%s: %s", what, r.error ? strerror(r.error) : "it ended early");
}

/* Mount ids of the keeper's namespace: what lab_cleanup() leaves mounted.
 * Where the kernel lists a namespace's mounts by its id, one listmount(2)
 * instead of the mountinfo text of every mount. */
static int read_baseline_mounts(struct lab *lab)
{
    struct procfs_mount_table table;
    ssize_t n =
        lab->keeper_mnt_id != 0 ? lab_list_mounts(lab->keeper_mnt_id, &lab->baseline_unique) : -1;
    if (n >= 0) {
        lab->baseline_mount_count = (size_t)n;
        return 0;
    }
    if (procfs_read_mounts("/proc", lab->keeper, &table) == -1)
        return lab_set_error(lab, "reading the lab's mount table: %s", strerror(errno));
    lab->baseline_mounts = calloc(table.count + 1, sizeof *lab->baseline_mounts);
    for (size_t i = 0; lab->baseline_mounts != NULL && i < table.count; i++)
        lab->baseline_mounts[i] = table.mounts[i].mount_id;
    lab->baseline_mount_count = lab->baseline_mounts != NULL ? table.count : 0;
    procfs_mounts_free(&table);
    return lab->baseline_mounts != NULL ? 0 : lab_set_error(lab, "out of memory");
}

static int open_keeper_namespaces(struct lab *lab)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)lab->keeper);
    lab->keeper_mnt_fd = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)lab->keeper);
    lab->lab_pidns_fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (lab->keeper_mnt_fd == -1 || lab->lab_pidns_fd == -1 || fstat(lab->keeper_mnt_fd, &st) == -1)
        return lab_set_error(lab, "opening the lab's namespaces: %s", strerror(errno));
    lab->keeper_mnt_ino = st.st_ino;
    lab->keeper_mnt_id = lab_mount_namespace_id(lab->keeper_mnt_fd);
    lab->lab_proc_fd = open(lab_path(lab, "/proc"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lab->lab_proc_fd == -1)
        return lab_set_error(lab, "opening the lab's /proc: %s", strerror(errno));
    if (read_baseline_mounts(lab) == -1)
        return -1;
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    lab->baseline_root = root != -1 ? lab_dir_listing(root) : NULL;
    if (root != -1)
        close(root);
    if (lab->baseline_root == NULL)
        return lab_set_error(lab, "listing the lab's /: %s", strerror(errno));
    snprintf(lab->nsenter, sizeof lab->nsenter, "nsenter -t %d%s -m -p", (int)lab->keeper,
             lab->route == LAB_ROUTE_USER_NAMESPACE ? " -U --preserve-credentials" : "");
    return 0;
}

static int prepare_environment(struct lab *lab, const struct lab_config *config)
{
    char resolved[PATH_MAX];
    const char *examples = config != NULL ? config->examples_dir : NULL;
    const char *path = getenv("PATH");
    char cwd[PATH_MAX];

    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
    if (examples != NULL && realpath(examples, resolved) != NULL)
        examples = resolved;
    if (examples != NULL && (lab->examples_dir = strdup(examples)) == NULL)
        return lab_set_error(lab, "out of memory");
    int n = examples != NULL ? asprintf(&lab->path_env, "PATH=%s:%s", examples, path)
                             : asprintf(&lab->path_env, "PATH=%s", path);
    if (n == -1 || (lab->cwd = strdup(getcwd(cwd, sizeof cwd) ? cwd : "/")) == NULL)
        return lab_set_error(lab, "out of memory");
    lab->settle_seconds =
        config != NULL && config->settle_seconds > 0 ? config->settle_seconds : 0.3;
    lab->next_job_id = 1;
    return 0;
}

static void lab_free(struct lab *lab)
{
    lab_walls_end(lab);
    lab_cgroup_leave(&lab->cgroup);
    if (lab->keeper_mnt_fd != -1)
        close(lab->keeper_mnt_fd);
    if (lab->lab_pidns_fd != -1)
        close(lab->lab_pidns_fd);
    if (lab->own_pidns_fd != -1)
        close(lab->own_pidns_fd);
    if (lab->lab_proc_fd != -1)
        close(lab->lab_proc_fd);
    if (lab->host_mountinfo_fd != -1)
        close(lab->host_mountinfo_fd);
    if (lab->host_root_fd != -1)
        close(lab->host_root_fd);
    for (size_t i = 0; i < lab->job_count; i++)
        free(lab->jobs[i].command);
    free(lab->jobs);
    free(lab->job_view);
    free(lab->host_mounts_at_open);
    free(lab->host_root_at_open);
    free(lab->baseline_mounts);
    free(lab->baseline_unique);
    free(lab->baseline_root);
    free(lab->cwd);
    free(lab->path_env);
    free(lab->examples_dir);
    free(lab);
}

static ino_t namespace_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* Enters the sandbox by the route the caller's privileges allow. As root
 * without CAP_SYS_ADMIN (a container), falls back to a user namespace. On
 * failure, explains with lab_diagnose() when nothing has changed yet. */
static int enter_sandbox(struct lab *lab, const struct lab_config *config)
{
    int force = config != NULL && config->force_user_namespace;
    int flags = SANDBOX_KEEP_HOST_MOUNTINFO | SANDBOX_KEEP_HOST_ROOT;
    struct sandbox_info info;
    char err[LAB_ERROR_MAX - 128];
    ino_t mnt_before = namespace_inode("/proc/self/ns/mnt");

    int rc =
        sandbox_enter(flags | (force ? SANDBOX_FORCE_USER_NAMESPACE : 0), &info, err, sizeof err);
    if (rc == -1 && !force && geteuid() == 0 && info.failed_step == SANDBOX_STEP_MOUNT_NS)
        rc = sandbox_enter(flags | SANDBOX_FORCE_USER_NAMESPACE, &info, err, sizeof err);
    if (rc == 0) {
        lab->route = info.used_user_namespace ? LAB_ROUTE_USER_NAMESPACE : LAB_ROUTE_ROOT;
        lab->host_mountinfo_fd = info.host_mountinfo_fd;
        lab->host_root_fd = info.host_root_fd;
        return 0;
    }
    if (namespace_inode("/proc/self/ns/mnt") == mnt_before &&
        info.failed_step < SANDBOX_STEP_ID_MAP) {
        struct lab_diagnosis d;
        lab_diagnose(config, &d);
        if (d.problem[0] != '\0')
            return lab_set_error(lab, "%s (fix: %s)", d.problem, d.fix);
    }
    return lab_set_error(lab, "%s", err);
}

/* A step of lab_open() failed with EAGAIN or ENOSPC (the errno left, or
 * its words in the error): adds the limit that was hit and who can change it,
 * unless the diagnosis said it already. */
static void lab_explain_limit(struct lab *lab, int error)
{
    struct lab_limits l;
    char problem[400], fix[400];

    if (strstr(lab->error, "(fix: ") != NULL)
        return;
    if (error != EAGAIN && error != ENOSPC)
        error = lab_limits_error_in(lab->error);
    if (strstr(lab->error, strerror(error)) == NULL)
        return;
    lab_limits_gather(&l);
    if (lab_limits_explain(&l, error, problem, sizeof problem, fix, sizeof fix) == 0) {
        char was[sizeof lab->error];
        snprintf(was, sizeof was, "%s", lab->error);
        lab_set_error(lab, "%s: %s (fix: %s)", was, problem, fix);
    }
}

struct lab *lab_open(const struct lab_config *config, char *err, size_t errlen)
{
    struct lab *lab = calloc(1, sizeof *lab);
    if (lab == NULL) {
        snprintf(err, errlen, "cannot open the lab: out of memory");
        return NULL;
    }
    lab_limits_remember_uid();
    lab->keeper_mnt_fd = lab->lab_pidns_fd = lab->host_mountinfo_fd = lab->host_root_fd = -1;
    lab->own_pidns_fd = lab->lab_proc_fd = -1;
    lab->walls_cmd_fd = lab->walls_status_fd = -1;
    lab_cgroup_enter(&lab->cgroup);
    if (prepare_environment(lab, config) == -1 || enter_sandbox(lab, config) == -1)
        goto failed;
    lab->own_pidns_fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    /* Walls the learner cannot take down (lab_walls.c): before the PID
     * namespace, which the further user namespace is to own. */
    if (lab->route == LAB_ROUTE_USER_NAMESPACE && lab_walls_start(lab) == -1)
        goto failed;
    if (unshare(CLONE_NEWPID) == -1) {
        lab_set_error(lab, "unshare(CLONE_NEWPID): %s%s", strerror(errno),
                      errno == EINVAL ? " (a process can open only one lab)" : "");
        goto failed;
    }
    if (start_keeper(lab, config) == -1 || open_keeper_namespaces(lab) == -1)
        goto failed;
    lab_walls_end(lab);
    return lab;

failed:
    lab_explain_limit(lab, errno);
    snprintf(err, errlen, "cannot open the lab: %s", lab->error);
    if (lab->keeper > 0) {
        kill(lab->keeper, SIGKILL);
        waitpid(lab->keeper, NULL, 0);
    }
    lab_free(lab);
    return NULL;
}

/* Ends the keeper, and with it the lab's namespace: sends it SIGKILL and
 * returns a pidfd on it (-1 when the kernel has none) for keeper_wait(). */
static int keeper_kill(struct lab *lab)
{
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, lab->keeper, 0);
#else
    int pidfd = -1;
#endif
    kill(lab->keeper, SIGKILL);
    return pidfd;
}

/* Its exit completes once every process of the namespace is reaped: wait
 * on the pidfd (when the kernel has them) so that the usual case costs no
 * sleep. */
static void keeper_wait(struct lab *lab, int pidfd, FILE *report)
{
    for (int waited = 0;; waited++) {
        if (pidfd != -1) {
            struct pollfd p = {pidfd, POLLIN, 0};
            poll(&p, 1, 1);
        }
        pid_t pid = waitpid(lab->keeper, NULL, WNOHANG);
        lab->pidns_emptied = pid == lab->keeper;
        if (pid == lab->keeper || (pid == -1 && errno != EINTR))
            break;
        if (waited == 3000) {
            if (report != NULL)
                fprintf(report, "warning: the lab's init %d did not end\n", (int)lab->keeper);
            break;
        }
        lab_reap_dead_children(lab);
        if (pidfd == -1)
            usleep(1000);
    }
    if (pidfd != -1)
        close(pidfd);
    lab->keeper = 0;
}

/* What was checked, and no more; on a terminal too narrow for it (the
 * shell wraps its own text), in two lines. */
static void say_verdict(FILE *report)
{
    static const char verdict[] = "no process, mount or /procN left by the lab";
    struct winsize ws;
    int fd = fileno(report);
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
        ws.ws_col < sizeof verdict - 1)
        fprintf(report, "no process, mount or /procN\nleft by the lab\n");
    else
        fprintf(report, "%s\n", verdict);
}

int lab_close(struct lab *lab, FILE *report)
{
    int rc = 0;
    char *host_mounts = NULL, *host_root = NULL;
    int host_error = -1; /* not read yet */

    if (lab->keeper > 0) {
        if (lab_cleanup(lab, report) == -1)
            rc = -1;
        /* The keeper's exit waits until every process of its namespace is
         * reaped, runners included: lab_cleanup() reaped them. While the
         * kernel takes its namespaces down (on another CPU, where there is
         * one), the host is read for the comparison below: the lab cannot
         * change it, so it makes no difference when. */
        int pidfd = keeper_kill(lab);
        host_error = lab_host_read(lab, &host_mounts, &host_root);
        keeper_wait(lab, pidfd, report);
        /* Children would go to the dead lab namespace and fork() would fail:
         * root may return to its own namespace (a user namespace may not). */
        if (lab->own_pidns_fd != -1)
            setns(lab->own_pidns_fd,
                  CLONE_NEWPID); /* fails on the user-namespace route: see lab.h */
    }
    close(lab->lab_proc_fd);
    lab->lab_proc_fd = -1;
    /* Only what the lab could leave counts; changes made elsewhere on the
     * machine are told but not held against it (lab_host.c). The lab's
     * mount namespace stays open until the search is over: a survivor is
     * told by its inode number, which the kernel hands to the next
     * namespace anyone makes once the last reference is gone (a process of
     * a classmate's container would then "survive the lab"). */
    int differences = lab_find_survivors(lab, report);
    if (lab->keeper_mnt_fd != -1)
        close(lab->keeper_mnt_fd);
    lab->keeper_mnt_fd = -1;
    if (host_error == -1)
        host_error = lab_host_read(lab, &host_mounts, &host_root);
    if (lab_host_differences(lab, host_mounts, host_root, host_error, report) == -1)
        differences++;
    if (differences == 0 && report != NULL)
        say_verdict(report);
    if (report != NULL)
        fflush(report);
    lab_free(lab);
    return rc == -1 ? -1 : differences > 0;
}

const char *lab_nsenter_command(const struct lab *lab)
{
    return lab->nsenter;
}

const char *lab_path(const struct lab *lab, const char *path_in_lab)
{
    struct lab *writable = (struct lab *)lab; /* the buffer is the only thing written */
    snprintf(writable->path_buf, sizeof writable->path_buf, "/proc/%d/root%s%s", (int)lab->keeper,
             path_in_lab[0] == '/' ? "" : "/", path_in_lab);
    return writable->path_buf;
}

pid_t lab_keeper_pid(const struct lab *lab)
{
    return lab->keeper;
}

int lab_level(const struct lab *lab)
{
    struct procfs_status st;
    /* The keeper is the lab's PID 1: one PID per level from ours down. */
    if (procfs_read_status("/proc", lab->keeper, &st) == -1 || st.nspid_count < 2)
        return 1;
    return st.nspid_count - 1;
}

enum lab_route lab_route(const struct lab *lab)
{
    return lab->route;
}

int lab_await_signals(struct lab *lab, double bound_seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (procfs_signals_undelivered(lab_path(lab, "/proc")) <= 0)
            return 0; /* none left, or the lab's /proc is unreadable: nothing to wait for */
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 >=
            bound_seconds)
            return 1;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}
