/* SPDX-License-Identifier: MIT */
/* testlib.c: helpers shared by the integration tests. See testlib.h. */
#include "testlib.h"
#include "lab/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *tl_build_dir(void)
{
    const char *dir = getenv("PIDNS_TUTOR_BUILD");
    return dir != NULL && dir[0] != '\0' ? dir : "build";
}

const char *tl_tmpdir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir != NULL && dir[0] == '/' ? dir : "/tmp";
}

const char *tl_example(const char *name)
{
    static char path[2 * PATH_MAX + 64];
    char cwd[PATH_MAX];
    const char *build = tl_build_dir();

    if (build[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
        snprintf(path, sizeof path, "%s/examples/%s", build, name);
    else
        snprintf(path, sizeof path, "%s/%s/examples/%s", cwd, build, name);
    return path;
}

double tl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void tl_become_nobody(void)
{
    if (setgroups(0, NULL) == -1 || setgid(TL_NOBODY) == -1 || setuid(TL_NOBODY) == -1) {
        fprintf(stderr, "becoming nobody: %s\n", strerror(errno));
        _exit(90);
    }
    /* setuid() clears the dumpable flag, which makes /proc/self root's and
     * stops nsenter; a real login (an exec) sets it again. */
    prctl(PR_SET_DUMPABLE, 1);
}

int tl_in_sandbox(int (*fn)(void *arg), void *arg, bool as_nobody)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == -1) {
        fprintf(stderr, "tl_in_sandbox: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char err[512];
        if (as_nobody)
            tl_become_nobody();
        if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
            fprintf(stderr, "tl_in_sandbox%s: %s\n", as_nobody ? " as nobody" : "", err);
            _exit(91);
        }
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    /* A caller that is a child subreaper (tl_run_sandboxed) inherits the
     * orphans of the case, some in PID namespaces whose init, when killed,
     * waits until they are reaped: waiting for one PID only would deadlock
     * with it (a box's `sleep` joined by `pidns_pidfd --join`). So reap
     * every child that ends until ours does. */
    int status;
    for (;;) {
        pid_t ended = waitpid(-1, &status, 0);
        if (ended == pid)
            return status;
        if (ended == -1 && errno != EINTR)
            return -1;
    }
}

void tl_run_sandboxed(int (*fn)(void *arg), bool as_nobody)
{
    TL_REQUIRE_ROOT(); /* for the sandbox; as nobody it adds a user namespace */
    struct tl_host_snapshot before;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    tl_host_snapshot(&before);
    int status = tl_in_sandbox(fn, NULL, as_nobody);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

/* In the runner: writes text to path, or reports and leaves with status 1. */
static void runner_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        fprintf(stderr, "%s:%d: %s %s (errno %d: %s)\n", __FILE__, __LINE__,
                fd == -1 ? "open" : "write", path, errno, strerror(errno));
        _exit(1);
    }
    close(fd);
}

/* Not root: become root of a user namespace of our own, which may then make
 * PID namespaces. Returns 77 when the kernel refuses user namespaces. */
static int runner_become_root(void)
{
    char map[64];
    uid_t uid = geteuid();
    gid_t gid = getegid();

    if (uid == 0)
        return 0;
    if (unshare(CLONE_NEWUSER) == -1)
        return 77;
    runner_write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "0 %ld 1", (long)uid);
    runner_write_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "0 %ld 1", (long)gid);
    runner_write_file("/proc/self/gid_map", map);
    return 0;
}

void tl_run_as_root(int (*fn)(void))
{
    fflush(NULL);
    pid_t runner = fork();
    assert_true(runner != -1);
    if (runner == 0) {
        int rc = runner_become_root();
        _exit(rc != 0 ? rc : fn());
    }
    int status;
    assert_int_equal(waitpid(runner, &status, 0), runner);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        print_message("SKIP: user namespaces are refused here\n");
        skip();
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int tl_sh(const char *cmd, char **out)
{
    char *full;
    if (asprintf(&full, "export LC_ALL=C; exec 2>&1; %s", cmd) == -1)
        return -1;
    fflush(NULL);
    FILE *pipe = popen(full, "r");
    free(full);
    if (pipe == NULL)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf != NULL && (n = fread(buf + len, 1, cap - len - 1, pipe)) > 0) {
        len += n;
        if (cap - len < 1024) {
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int status = pclose(pipe);
    if (buf != NULL)
        buf[len] = '\0';
    if (out != NULL)
        *out = buf;
    else
        free(buf);
    if (status == -1)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tl_shf(char **out, const char *fmt, ...)
{
    va_list ap;
    char *cmd;
    va_start(ap, fmt);
    int n = vasprintf(&cmd, fmt, ap);
    va_end(ap);
    if (n == -1)
        return -1;
    int rc = tl_sh(cmd, out);
    free(cmd);
    return rc;
}

int tl_kernel_at_least(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return 1; /* unknown: let the test say what it finds */
    return ma > major || (ma == major && mi >= minor);
}

char *tl_procn_mounts(void)
{
    char *out = NULL;
    /* field 5 of mountinfo is the mount point */
    tl_sh("awk '$5 ~ /^\\/proc[0-9]+$/ {print $5}' /proc/self/mountinfo | sort", &out);
    return out;
}

/* The parent of a live process and its name; -1 for a zombie or a process
 * gone. */
static pid_t parent_of(pid_t pid, char *comm, size_t size)
{
    char path[64], buf[512], *paren;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    paren = fgets(buf, sizeof buf, f) != NULL ? strrchr(buf, ')') : NULL;
    fclose(f);
    if (paren == NULL || paren[2] == 'Z')
        return -1;
    if (comm != NULL) {
        char *open = strchr(buf, '(');
        size_t n = open != NULL ? (size_t)(paren - open - 1) : 0;
        n = n < size ? n : size - 1;
        memcpy(comm, open != NULL ? open + 1 : "", n);
        comm[n] = '\0';
    }
    return (pid_t)atoi(paren + 4);
}

int tl_descendants(FILE *report)
{
    pid_t self = getpid();
    DIR *dir = opendir("/proc");
    struct dirent *e;
    int count = 0;
    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        pid_t pid = atoi(e->d_name), ancestor = pid;
        char comm[64] = "?";
        if (pid <= 0 || pid == self)
            continue;
        for (int depth = 0; ancestor > 1 && ancestor != self && depth < 64; depth++)
            ancestor = parent_of(ancestor, ancestor == pid ? comm : NULL, sizeof comm);
        if (ancestor == self) {
            count++;
            if (report != NULL)
                fprintf(report, "left behind: process %d (%s)\n", (int)pid, comm);
        }
    }
    closedir(dir);
    return count;
}

void tl_host_snapshot(struct tl_host_snapshot *snap)
{
    snap->mounts = tl_procn_mounts();
    tl_sh("ls -a / | sort", &snap->root_list);
}

void tl_assert_host_unchanged(const struct tl_host_snapshot *before)
{
    struct tl_host_snapshot after;
    int left = 0;
    /* Processes killed by a namespace's end take a moment to be reaped;
     * orphans re-parented to us are reaped here. */
    for (int tries = 0; tries < 100; tries++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if ((left = tl_descendants(NULL)) == 0)
            break;
        usleep(10000);
    }
    if (left != 0)
        tl_descendants(stderr);
    assert_int_equal(left, 0);
    tl_host_snapshot(&after);
    assert_non_null(after.mounts);
    assert_string_equal(after.mounts, before->mounts);
    assert_string_equal(after.root_list, before->root_list);
    tl_host_snapshot_free(&after);
}

void tl_host_snapshot_free(struct tl_host_snapshot *snap)
{
    free(snap->mounts);
    free(snap->root_list);
    snap->mounts = snap->root_list = NULL;
}

long tl_number_after(const char *out, const char *key)
{
    const char *at = strstr(out, key);
    return at == NULL ? -1 : strtol(at + strlen(key), NULL, 10);
}
