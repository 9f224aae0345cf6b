/* testlib.c: helpers shared by the integration tests. See testlib.h. */
#include "testlib.h"
#include "lab/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tl_build_dir(void)
{
    const char *dir = getenv("PIDNS_TUTOR_BUILD");
    return dir != NULL && dir[0] != '\0' ? dir : "build";
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

int tl_in_sandbox(int (*fn)(void *arg), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == -1) {
        fprintf(stderr, "tl_in_sandbox: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char err[512];
        if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
            fprintf(stderr, "tl_in_sandbox: %s\n", err);
            _exit(99);
        }
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    int status;
    while (waitpid(pid, &status, 0) == -1)
        if (errno != EINTR)
            return -1;
    return status;
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

static char *host_procn_mounts(void)
{
    char *out = NULL;
    /* field 5 of mountinfo is the mount point */
    tl_sh("awk '$5 ~ /^\\/proc[0-9]+$/ {print $5}' /proc/self/mountinfo | sort", &out);
    return out;
}

static int count_foreign_pidns(void)
{
    char self[64], link[64], path[300];
    ssize_t n = readlink("/proc/self/ns/pid", self, sizeof self - 1);
    if (n == -1)
        return -1;
    self[n] = '\0';
    DIR *dir = opendir("/proc");
    if (dir == NULL)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/ns/pid", e->d_name);
        n = readlink(path, link, sizeof link - 1);
        if (n == -1)
            continue;
        link[n] = '\0';
        if (strcmp(link, self) != 0)
            count++;
    }
    closedir(dir);
    return count;
}

void tl_host_snapshot(struct tl_host_snapshot *snap)
{
    snap->mounts = host_procn_mounts();
    tl_sh("ls -a / | sort", &snap->root_list);
    snap->foreign_pidns_processes = count_foreign_pidns();
}

void tl_assert_host_unchanged(const struct tl_host_snapshot *before)
{
    struct tl_host_snapshot after;
    /* Processes killed by a namespace's end take a moment to be reaped. */
    for (int tries = 0;; tries++) {
        tl_host_snapshot(&after);
        if (after.foreign_pidns_processes <= before->foreign_pidns_processes || tries == 50)
            break;
        tl_host_snapshot_free(&after);
        usleep(20000);
    }
    assert_non_null(after.mounts);
    assert_string_equal(after.mounts, before->mounts);
    assert_string_equal(after.root_list, before->root_list);
    /* More than before means something we started survived; fewer is some
     * other program on the machine ending, not ours to judge. */
    if (after.foreign_pidns_processes > before->foreign_pidns_processes)
        fail_msg("%d processes in other PID namespaces now, %d before: something survived",
                 after.foreign_pidns_processes, before->foreign_pidns_processes);
    tl_host_snapshot_free(&after);
}

void tl_host_snapshot_free(struct tl_host_snapshot *snap)
{
    free(snap->mounts);
    free(snap->root_list);
    snap->mounts = snap->root_list = NULL;
}
