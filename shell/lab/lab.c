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
#include "lab/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int lab_set_error(struct lab *lab, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(lab->error, sizeof lab->error, fmt, ap);
    va_end(ap);
    errno = saved;
    return -1;
}

const char *lab_error(const struct lab *lab)
{
    return lab->error;
}

/* Closes every fd from `first` up: children of the shell must not keep the
 * shell's files (the terminal, history, pipes of other jobs) open. */
void lab_close_fds_from(int first)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0)
        return;
#endif
    int keep[3] = {0, 1, 2};
    lab_close_fds_except(keep, first < 3 ? (size_t)first : 3);
}

/* Closes every fd but those listed (-1 entries are ignored): a runner must
 * not hold, say, a pipe a test or the shell waits to see closed. */
void lab_close_fds_except(const int *keep, size_t count)
{
    DIR *dir = opendir("/proc/self/fd");
    int fds[1024];
    size_t n = 0;

    if (dir == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < sizeof fds / sizeof fds[0]) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int fd = atoi(e->d_name), kept = fd == dirfd(dir);
        for (size_t i = 0; i < count && !kept; i++)
            kept = keep[i] == fd;
        if (!kept)
            fds[n++] = fd;
    }
    closedir(dir);
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
}

/* Default dispositions and an empty mask: what a freshly exec'd command
 * expects, whatever the shell had set (ignored SIGINT, blocked SIGCHLD). */
void lab_reset_signals(void)
{
    sigset_t none;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

char *lab_read_fd(int fd, size_t max)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (len + 1 >= cap) {
            char *bigger = cap * 2 <= max + 1 ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

char *lab_read_file(int dirfd, const char *path, size_t max)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return NULL;
    char *text = lab_read_fd(fd, max);
    close(fd);
    return text;
}

/* Parses "PPid:" and the last "NSpid:" field of a status text. */
int lab_parse_ppid_nspid(const char *status, pid_t *ppid, pid_t *last_nspid)
{
    const char *p = strstr(status, "\nPPid:");
    *ppid = p != NULL ? (pid_t)strtol(p + 6, NULL, 10) : -1;
    *last_nspid = -1;
    p = strstr(status, "\nNSpid:");
    if (p == NULL)
        return -1;
    char *end;
    p += 7;
    for (;;) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        *last_nspid = (pid_t)v;
        p = end;
    }
    return *ppid >= 0 && *last_nspid > 0 ? 0 : -1;
}

pid_t lab_host_pid_of(pid_t parent, pid_t lab_pid)
{
    DIR *dir = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;

    if (dir == NULL)
        return 0;
    while (found == 0 && (e = readdir(dir)) != NULL) {
        char path[300];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        char *text = lab_read_file(AT_FDCWD, path, 1 << 16);
        if (text == NULL)
            continue;
        pid_t ppid, nspid;
        lab_parse_ppid_nspid(text, &ppid, &nspid);
        if (ppid == parent && nspid == lab_pid)
            found = (pid_t)atoi(e->d_name);
        free(text);
    }
    closedir(dir);
    return found;
}

/* Steps the keeper reports when it cannot start. */
enum keeper_step { KEEPER_OK, KEEPER_PARENT_GONE, KEEPER_MOUNT_NS, KEEPER_MOUNT_PROC };
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

/* PID 1 of the lab. It ignores every signal it has no handler for (the kernel
 * protects a namespace's init), so blocking them all costs nothing and lets
 * it wait for SIGCHLD with sigwaitinfo(). */
static void keeper_main(int ready_fd)
{
    sigset_t all;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 0) /* the shell, outside the namespace, shows as 0 */
        keeper_report(ready_fd, KEEPER_PARENT_GONE, 0), _exit(1);
    prctl(PR_SET_NAME, "lab-init");
    setpgid(0, 0); /* out of the shell's group: the terminal's signals are not ours */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    int null = open("/dev/null", O_RDWR);
    if (null != -1) {
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
    }
    if (dup2(ready_fd, 3) == -1)
        _exit(1);
    ready_fd = 3;
    lab_close_fds_from(4);
    if (unshare(CLONE_NEWNS) == -1)
        keeper_report(ready_fd, KEEPER_MOUNT_NS, errno), _exit(1);
    /* This procfs shows the mounter's namespace: the lab's. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        keeper_report(ready_fd, KEEPER_MOUNT_PROC, errno), _exit(1);
    keeper_report(ready_fd, KEEPER_OK, 0);
    close(ready_fd);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        sigwaitinfo(&chld, NULL);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}

static int start_keeper(struct lab *lab)
{
    int pipefd[2];
    struct keeper_report r = {KEEPER_OK, 0};

    if (pipe2(pipefd, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    fflush(NULL);
    lab->keeper = fork();
    if (lab->keeper == -1) {
        close(pipefd[0]), close(pipefd[1]);
        return lab_set_error(lab, "starting the lab's init (fork): %s", strerror(errno));
    }
    if (lab->keeper == 0) {
        close(pipefd[0]);
        keeper_main(pipefd[1]);
    }
    close(pipefd[1]);
    ssize_t n;
    while ((n = read(pipefd[0], &r, sizeof r)) == -1 && errno == EINTR)
        ;
    close(pipefd[0]);
    if (n == (ssize_t)sizeof r && r.step == KEEPER_OK)
        return 0;
    kill(lab->keeper, SIGKILL);
    waitpid(lab->keeper, NULL, 0);
    lab->keeper = 0;
    const char *what = r.step == KEEPER_MOUNT_NS     ? "unshare(CLONE_NEWNS)"
                       : r.step == KEEPER_MOUNT_PROC ? "mounting the lab's procfs at /proc"
                                                     : "starting the lab's init";
    return lab_set_error(lab, "%s: %s", what, r.error ? strerror(r.error) : "it ended early");
}

/* Mount ids of the keeper's namespace: what lab_cleanup() leaves mounted. */
static int read_baseline_mounts(struct lab *lab)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)lab->keeper);
    char *text = lab_read_file(AT_FDCWD, path, 1 << 22);
    if (text == NULL)
        return lab_set_error(lab, "reading %s: %s", path, strerror(errno));
    size_t cap = 64;
    lab->baseline_mounts = malloc(cap * sizeof *lab->baseline_mounts);
    for (char *line = text; lab->baseline_mounts != NULL && *line != '\0';) {
        char *nl = strchrnul(line, '\n');
        if (lab->baseline_mount_count == cap) {
            unsigned *bigger = realloc(lab->baseline_mounts, 2 * cap * sizeof *bigger);
            if (bigger == NULL)
                break;
            lab->baseline_mounts = bigger, cap *= 2;
        }
        lab->baseline_mounts[lab->baseline_mount_count++] = (unsigned)strtoul(line, NULL, 10);
        line = *nl != '\0' ? nl + 1 : nl;
    }
    free(text);
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
    int n = examples != NULL ? asprintf(&lab->path_env, "PATH=%s:%s", examples, path)
                             : asprintf(&lab->path_env, "PATH=%s", path);
    if (n == -1 || (lab->cwd = strdup(getcwd(cwd, sizeof cwd) ? cwd : "/")) == NULL)
        return lab_set_error(lab, "out of memory");
    lab->settle_seconds = config != NULL && config->settle_seconds > 0 ? config->settle_seconds : 0.3;
    lab->next_job_id = 1;
    return 0;
}

static void lab_free(struct lab *lab)
{
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
    free(lab->baseline_root);
    free(lab->cwd);
    free(lab->path_env);
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

    int rc = sandbox_enter(flags | (force ? SANDBOX_FORCE_USER_NAMESPACE : 0), &info, err,
                           sizeof err);
    if (rc == -1 && !force && geteuid() == 0 && info.failed_step == SANDBOX_STEP_MOUNT_NS)
        rc = sandbox_enter(flags | SANDBOX_FORCE_USER_NAMESPACE, &info, err, sizeof err);
    if (rc == 0) {
        lab->route = info.used_user_namespace ? LAB_ROUTE_USER_NAMESPACE : LAB_ROUTE_ROOT;
        lab->host_mountinfo_fd = info.host_mountinfo_fd;
        lab->host_root_fd = info.host_root_fd;
        return 0;
    }
    if (namespace_inode("/proc/self/ns/mnt") == mnt_before && info.failed_step < SANDBOX_STEP_ID_MAP) {
        struct lab_diagnosis d;
        lab_diagnose(config, &d);
        if (d.problem[0] != '\0')
            return lab_set_error(lab, "%s (fix: %s)", d.problem, d.fix);
    }
    return lab_set_error(lab, "%s", err);
}

struct lab *lab_open(const struct lab_config *config, char *err, size_t errlen)
{
    struct lab *lab = calloc(1, sizeof *lab);
    if (lab == NULL) {
        snprintf(err, errlen, "cannot open the lab: out of memory");
        return NULL;
    }
    lab->keeper_mnt_fd = lab->lab_pidns_fd = lab->host_mountinfo_fd = lab->host_root_fd = -1;
    lab->own_pidns_fd = lab->lab_proc_fd = -1;
    if (prepare_environment(lab, config) == -1 || enter_sandbox(lab, config) == -1)
        goto failed;
    lab->host_mounts_at_open = lab_host_mount_table(lab->host_mountinfo_fd);
    lab->host_root_at_open = lab_dir_listing(lab->host_root_fd);
    if (lab->host_mounts_at_open == NULL || lab->host_root_at_open == NULL) {
        lab_set_error(lab, "reading the host's mount table and /: %s", strerror(errno));
        goto failed;
    }
    lab->own_pidns_fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (unshare(CLONE_NEWPID) == -1) {
        lab_set_error(lab, "unshare(CLONE_NEWPID): %s%s", strerror(errno),
                      errno == EINVAL ? " (a process can open only one lab)" : "");
        goto failed;
    }
    if (start_keeper(lab) == -1 || open_keeper_namespaces(lab) == -1)
        goto failed;
    return lab;

failed:
    snprintf(err, errlen, "cannot open the lab: %s", lab->error);
    if (lab->keeper > 0) {
        kill(lab->keeper, SIGKILL);
        waitpid(lab->keeper, NULL, 0);
    }
    lab_free(lab);
    return NULL;
}

/* Reaps our children that died in the lab (say, a pager or an output relay
 * the shell forked): the keeper's exit waits until every process of its
 * namespace is reaped, and those have no one else to reap them. */
void lab_reap_dead_children(const struct lab *lab)
{
    struct stat lab_ns;
    DIR *dir = opendir("/proc");
    struct dirent *e;
    if (dir == NULL || fstat(lab->lab_pidns_fd, &lab_ns) == -1) {
        if (dir != NULL)
            closedir(dir);
        return;
    }
    while ((e = readdir(dir)) != NULL) {
        char path[300];
        struct stat st;
        pid_t ppid, nspid;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/ns/pid", e->d_name);
        if (stat(path, &st) == -1 || st.st_ino != lab_ns.st_ino)
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        char *text = lab_read_file(AT_FDCWD, path, 1 << 16);
        if (text == NULL)
            continue;
        lab_parse_ppid_nspid(text, &ppid, &nspid);
        if (ppid == getpid() && strstr(text, "\nState:\tZ") != NULL)
            waitpid((pid_t)atoi(e->d_name), NULL, WNOHANG);
        free(text);
    }
    closedir(dir);
}

DIR *lab_open_proc_dir(const struct lab *lab)
{
    int fd = openat(lab->lab_proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd != -1 ? fdopendir(fd) : NULL;
    if (dir == NULL && fd != -1)
        close(fd);
    return dir;
}

/* Ends the keeper, and with it the lab's namespace. Its exit completes once
 * every process of the namespace is reaped: wait on a pidfd (when the kernel
 * has them) so that the usual case costs no sleep. */
static void end_keeper(struct lab *lab, FILE *report)
{
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, lab->keeper, 0);
#else
    int pidfd = -1;
#endif
    kill(lab->keeper, SIGKILL);
    for (int waited = 0;; waited++) {
        if (pidfd != -1) {
            struct pollfd p = {pidfd, POLLIN, 0};
            poll(&p, 1, 1);
        }
        pid_t pid = waitpid(lab->keeper, NULL, WNOHANG);
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

int lab_close(struct lab *lab, FILE *report)
{
    int rc = 0;

    if (lab->keeper > 0) {
        if (lab_cleanup(lab, report) == -1)
            rc = -1;
        /* The keeper's exit waits until every process of its namespace is
         * reaped, runners included: lab_cleanup() reaped them. */
        end_keeper(lab, report);
        /* Children would go to the dead lab namespace and fork() would fail:
         * root may return to its own namespace (a user namespace may not). */
        if (lab->own_pidns_fd != -1 && setns(lab->own_pidns_fd, CLONE_NEWPID) == -1) {
            /* the user-namespace route: see lab.h */
        }
    }
    close(lab->keeper_mnt_fd);
    lab->keeper_mnt_fd = -1;
    close(lab->lab_proc_fd);
    lab->lab_proc_fd = -1;
    int differences = lab_find_survivors(lab, report) + lab_host_differences(lab, report);
    if (differences == 0 && report != NULL)
        fprintf(report, "host unchanged\n");
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

enum lab_route lab_route(const struct lab *lab)
{
    return lab->route;
}

size_t lab_jobs(struct lab *lab, const struct lab_job **jobs)
{
    free(lab->job_view);
    lab->job_view = calloc(lab->job_count + 1, sizeof *lab->job_view);
    if (lab->job_view == NULL) {
        *jobs = NULL;
        return 0;
    }
    for (size_t i = 0; i < lab->job_count; i++) {
        lab_job_reap(lab, &lab->jobs[i], 0);
        lab->job_view[i] = lab->jobs[i].job;
    }
    *jobs = lab->job_view;
    return lab->job_count;
}
