/* SPDX-License-Identifier: MIT */
/* lab_cgroup.c: a bound per lab in a delegated cgroup v2 (see lab_cgroup.h). */
#include "lab/lab_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_CGROUP_ROOT "/sys/fs/cgroup"

int lab_cgroup_own_path(const char *text, char *path, size_t len)
{
    const char *line = text;
    while (line != NULL && *line != '\0') {
        if (strncmp(line, "0::", 3) == 0) {
            size_t n = strcspn(line + 3, "\n");
            if (n == 0 || n >= len)
                return -1;
            memcpy(path, line + 3, n);
            path[n] = '\0';
            return 0;
        }
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    return -1;
}

static int cgroup_read(const char *dir, const char *file, char *buf, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int cgroup_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

int lab_cgroup_delegated(const char *root, const char *own, uid_t uid, char *parent, size_t plen,
                         char *why, size_t wlen)
{
    char buf[256], procs[700];
    struct stat st;

    if (cgroup_read(root, "cgroup.controllers", buf, sizeof buf) == -1) {
        snprintf(why, wlen, "no cgroup v2 at %s (cgroup v1 or hybrid)", root);
        return -1;
    }
    const char *slash = strrchr(own, '/');
    if (own[0] != '/' || slash == NULL || slash == own) {
        snprintf(why, wlen, "this session runs in the root cgroup, which is not delegated");
        return -1;
    }
    snprintf(parent, plen, "%s%.*s", root, (int)(slash - own), own);
    if (cgroup_read(parent, "cgroup.subtree_control", buf, sizeof buf) == -1 ||
        !cgroup_has_word(buf, "pids")) {
        snprintf(why, wlen,
                 "%.150s does not delegate the pids controller (cgroup.subtree_control: "
                 "\"%.40s\")",
                 parent, buf);
        return -1;
    }
    snprintf(procs, sizeof procs, "%s/cgroup.procs", parent);
    if (stat(parent, &st) == -1 || (uid != 0 && st.st_uid != uid) || stat(procs, &st) == -1 ||
        (uid != 0 && st.st_uid != uid)) {
        snprintf(why, wlen, "%.150s is not delegated to you (owner uid %ld)", parent,
                 (long)st.st_uid);
        return -1;
    }
    return 0;
}

static int cgroup_write(int dir, const char *file, const char *value)
{
    int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t n = write(fd, value, strlen(value));
    int saved = errno;
    close(fd);
    errno = saved;
    return n == (ssize_t)strlen(value) ? 0 : -1;
}

static const char *cgroup_env(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : fallback;
}

static int cgroup_own(char *own, size_t len)
{
    char text[1024];
    int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd == -1 ? -1 : read(fd, text, sizeof text - 1);
    if (fd != -1)
        close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    return lab_cgroup_own_path(text, own, len);
}

/* Turned off, or root without asking: systemd's cgroups above a root shell
 * are not delegated, whatever their owner says. */
static int cgroup_refused(char *why, size_t len)
{
    const char *want = cgroup_env("PIDNS_TUTOR_LAB_CGROUP", "");
    if (strcmp(want, "0") == 0) {
        snprintf(why, len, "turned off (PIDNS_TUTOR_LAB_CGROUP=0)");
        return 1;
    }
    if (getuid() == 0 && strcmp(want, "1") != 0) {
        snprintf(why, len,
                 "running as root, the lab makes no cgroup of its own "
                 "(PIDNS_TUTOR_LAB_CGROUP=1 asks for one)");
        return 1;
    }
    return 0;
}

/* The children of the parent that a tutor made and could not remove (killed,
 * or its lab's last process still exiting): those whose tutor is gone, and
 * our own from a lab before this one. rmdir fails on a cgroup that still
 * holds a process, so one in use stays. */
static void cgroup_sweep(int parent_fd)
{
    int fd = dup(parent_fd);
    DIR *d = fd == -1 ? NULL : fdopendir(fd);
    struct dirent *e;
    size_t n = strlen(LAB_CGROUP_PREFIX);

    if (d == NULL) {
        if (fd != -1)
            close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char *end;
        if (strncmp(e->d_name, LAB_CGROUP_PREFIX, n) != 0)
            continue;
        long pid = strtol(e->d_name + n, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        if (pid == (long)getpid() || (kill((pid_t)pid, 0) == -1 && errno == ESRCH))
            unlinkat(parent_fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void lab_cgroup_enter(struct lab_cgroup *cg)
{
    char own[400], parent[500], home[900];

    memset(cg, 0, sizeof *cg);
    cg->parent_fd = cg->home_procs_fd = -1;
    if (cgroup_refused(cg->why, sizeof cg->why))
        return;
    if (cgroup_own(own, sizeof own) == -1) {
        snprintf(cg->why, sizeof cg->why, "no cgroup v2 line in /proc/self/cgroup");
        return;
    }
    if (lab_cgroup_delegated(LAB_CGROUP_ROOT, own, getuid(), parent, sizeof parent, cg->why,
                             sizeof cg->why) == -1)
        return;
    snprintf(home, sizeof home, "%s%s/cgroup.procs", LAB_CGROUP_ROOT, own);
    snprintf(cg->name, sizeof cg->name, "%s%ld", LAB_CGROUP_PREFIX, (long)getpid());
    cg->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cg->home_procs_fd = open(home, O_WRONLY | O_CLOEXEC);
    if (cg->parent_fd != -1)
        cgroup_sweep(cg->parent_fd);
    if (cg->parent_fd == -1 || cg->home_procs_fd == -1 ||
        mkdirat(cg->parent_fd, cg->name, 0755) == -1) {
        snprintf(cg->why, sizeof cg->why, "cannot make %.100s/%.60s: %s", parent, cg->name,
                 strerror(errno));
        lab_cgroup_leave(cg);
        return;
    }
    int dir = openat(cg->parent_fd, cg->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *pids = cgroup_env("PIDNS_TUTOR_LAB_PIDS_MAX", LAB_CGROUP_PIDS_MAX_DEFAULT);
    const char *memory = cgroup_env("PIDNS_TUTOR_LAB_MEMORY_MAX", LAB_CGROUP_MEMORY_MAX_DEFAULT);
    if (dir == -1 || cgroup_write(dir, "pids.max", pids) == -1 ||
        (faccessat(dir, "memory.max", F_OK, 0) == 0 &&
         cgroup_write(dir, "memory.max", memory) == -1) ||
        cgroup_write(dir, "cgroup.procs", "0") == -1) {
        snprintf(cg->why, sizeof cg->why,
                 "cannot bound %.60s (pids.max %.20s, memory.max %.20s): %s", cg->name, pids,
                 memory, strerror(errno));
        if (dir != -1)
            close(dir);
        unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR);
        cg->name[0] = '\0';
        lab_cgroup_leave(cg);
        return;
    }
    close(dir);
    cg->active = 1;
}

void lab_cgroup_leave(struct lab_cgroup *cg)
{
    if (cg->active && cg->home_procs_fd != -1 && write(cg->home_procs_fd, "0", 1) == 1)
        unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR);
    if (cg->parent_fd != -1)
        close(cg->parent_fd);
    if (cg->home_procs_fd != -1)
        close(cg->home_procs_fd);
    cg->parent_fd = cg->home_procs_fd = -1;
    cg->active = 0;
}

void lab_cgroup_doctor(FILE *out)
{
    char own[400] = "", parent[500], why[256] = "", line[900];

    if (!cgroup_refused(why, sizeof why) && cgroup_own(own, sizeof own) == 0 &&
        lab_cgroup_delegated(LAB_CGROUP_ROOT, own, getuid(), parent, sizeof parent, why,
                             sizeof why) == 0) {
        snprintf(line, sizeof line,
                 "a bound per lab: a cgroup under %.300s with pids.max %s and "
                 "memory.max %s",
                 parent, cgroup_env("PIDNS_TUTOR_LAB_PIDS_MAX", LAB_CGROUP_PIDS_MAX_DEFAULT),
                 cgroup_env("PIDNS_TUTOR_LAB_MEMORY_MAX", LAB_CGROUP_MEMORY_MAX_DEFAULT));
        fprintf(out, "%-5s %s\n", "ok", line);
        return;
    }
    if (own[0] == '\0' && why[0] == '\0')
        snprintf(why, sizeof why, "no cgroup v2 line in /proc/self/cgroup");
    fprintf(out, "%-5s no bound per lab: %s\n", "note", why);
    fprintf(out,
            "      for a class, the administrator bounds each learner: "
            "`systemctl set-property user-%ld.slice TasksMax=512` for one, `TasksMax=512` "
            "under [Slice] in /etc/systemd/system/user-.slice.d/50-pidns.conf for all "
            "(UserTasksMax=512 in logind.conf before systemd 240), or `@learners hard nproc "
            "512` in /etc/security/limits.conf\n",
            (long)getuid());
}
