/* SPDX-License-Identifier: MIT */
/* lab_limits.c: reading the limits on tasks and namespaces (see lab_limits.h).
 * Only read when something failed, or for --doctor: a walk of /proc costs a
 * few milliseconds.
 */
#include "lab/lab_limits.h"
#include "lab/lab_cgroup.h"
#include "lab/lab_internal.h"
#include "procfs/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROC_USER_INIT_INO 0xEFFFFFFDUL

/* A number from a small file; "max" is unlimited. */
static long limits_read(const char *path)
{
    return lab_read_number(path, LAB_LIMITS_UNKNOWN, LAB_LIMITS_UNLIMITED);
}

/* The tasks (threads) of every process, and those whose real uid is uid. */
static void limits_count_tasks(long uid, long *all, long *mine)
{
    if (procfs_count_tasks("/proc", uid, all, mine) == -1)
        *all = *mine = LAB_LIMITS_UNKNOWN;
}

/* The forks refused by a pids.max since the last look: the "max" count of
 * pids.events in our own cgroup (where the forking processes are; the kernel
 * counts there whichever limit on the path refused). The lab's own cgroup
 * starts at 0; in another, the first look only takes the count so far. */
static void limits_pids_hits(struct lab_limits *l, const char *base, const char *rel)
{
    static char seen_path[600];
    static long seen;
    char path[600], line[128];
    long count = -1;

    if (base == NULL)
        return;
    snprintf(path, sizeof path, "%s%s/pids.events", base, strcmp(rel, "/") == 0 ? "" : rel);
    FILE *f = fopen(path, "re");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "max %ld", &count) == 1)
            break;
    if (f != NULL)
        fclose(f);
    if (count < 0)
        return;
    if (strcmp(path, seen_path) != 0) {
        snprintf(seen_path, sizeof seen_path, "%s", path);
        seen = strstr(path, "/" LAB_CGROUP_PREFIX) != NULL ? 0 : count;
    }
    l->pids_hits = count > seen ? count - seen : 0;
    seen = count;
}

/* The pids cgroup of this process (v2 "0::PATH", else v1 "N:pids:PATH"),
 * and the tightest pids.max from it up to the root. */
static void limits_pids(struct lab_limits *l)
{
    char line[512], dir[256], rel[200] = "";
    const char *base = NULL;
    FILE *f = fopen("/proc/self/cgroup", "re");

    l->pids_max = LAB_LIMITS_UNLIMITED;
    l->pids_current = LAB_LIMITS_UNKNOWN;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0::", 3) == 0 && base == NULL &&
            access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
            snprintf(rel, sizeof rel, "%.199s", line + 3);
            base = "/sys/fs/cgroup";
        } else if (strstr(line, ":pids:") != NULL) {
            snprintf(rel, sizeof rel, "%.199s", strstr(line, ":pids:") + 6);
            base = "/sys/fs/cgroup/pids";
        }
    }
    if (f != NULL)
        fclose(f);
    limits_pids_hits(l, base, rel);
    for (int more = base != NULL; more;) {
        snprintf(dir, sizeof dir, "%.40s%.199s", base, strcmp(rel, "/") == 0 ? "" : rel);
        char file[600];
        snprintf(file, sizeof file, "%s/pids.max", dir);
        long max = limits_read(file);
        snprintf(file, sizeof file, "%s/pids.current", dir);
        long current = limits_read(file);
        if (max >= 0 && (l->pids_max < 0 || max - current < l->pids_max - l->pids_current)) {
            l->pids_max = max;
            l->pids_current = current < 0 ? 0 : current;
            snprintf(l->pids_cgroup, sizeof l->pids_cgroup, "%s", dir);
        }
        char *slash = strrchr(rel, '/');
        more = slash != NULL && strcmp(rel, "/") != 0;
        if (more)
            slash == rel ? (void)strcpy(rel, "/") : (void)(*slash = '\0');
    }
}

static long limits_outer_uid_now(void);
static long limits_host_uid = -1;

/* Our uid as the machine knows it (the lab runs as root of a user namespace
 * mapped to the learner): for the account's name and its user slice. */
void lab_limits_remember_uid(void)
{
    if (limits_host_uid == -1)
        limits_host_uid = limits_outer_uid_now();
}

static long limits_outer_uid_now(void)
{
    unsigned long inside, outside, count, uid = getuid();
    FILE *f = fopen("/proc/self/uid_map", "re");
    long outer = (long)uid;

    while (f != NULL && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
        if (uid >= inside && uid - inside < count)
            outer = (long)(outside + (uid - inside));
    if (f != NULL)
        fclose(f);
    return outer;
}

void lab_limits_gather(struct lab_limits *l)
{
    struct rlimit rl;
    struct stat st;
    struct passwd *pw;

    memset(l, 0, sizeof *l);
    l->uid = limits_host_uid != -1 ? limits_host_uid : limits_outer_uid_now();
    l->root = geteuid() == 0 && stat("/proc/self/ns/user", &st) == 0 &&
              (unsigned long)st.st_ino == PROC_USER_INIT_INO;
    l->in_init_userns =
        stat("/proc/self/ns/user", &st) != 0 || (unsigned long)st.st_ino == PROC_USER_INIT_INO;
    pw = getpwuid((uid_t)l->uid);
    snprintf(l->user, sizeof l->user, "%s", pw != NULL ? pw->pw_name : "");
    l->nproc = l->nproc_hard = LAB_LIMITS_UNLIMITED;
    if (getrlimit(RLIMIT_NPROC, &rl) == 0) {
        l->nproc = rl.rlim_cur == RLIM_INFINITY ? LAB_LIMITS_UNLIMITED : (long)rl.rlim_cur;
        l->nproc_hard = rl.rlim_max == RLIM_INFINITY ? LAB_LIMITS_UNLIMITED : (long)rl.rlim_max;
    }
    limits_count_tasks((long)getuid(), &l->tasks, &l->user_tasks);
    limits_pids(l);
    l->max_pid_namespaces = limits_read("/proc/sys/user/max_pid_namespaces");
    l->max_user_namespaces = limits_read("/proc/sys/user/max_user_namespaces");
    l->pid_max = limits_read("/proc/sys/kernel/pid_max");
    l->threads_max = limits_read("/proc/sys/kernel/threads-max");
}

int lab_limits_error_in(const char *text)
{
    if (text == NULL)
        return 0;
    if (strstr(text, "Cannot fork") != NULL ||
        strstr(text, "Resource temporarily unavailable") != NULL ||
        strstr(text, "fork: retry") != NULL)
        return EAGAIN;
    if (strstr(text, "No space left on device") != NULL &&
        (strstr(text, "unshare") != NULL || strstr(text, "clone") != NULL ||
         strstr(text, "namespace") != NULL || strstr(text, "setns") != NULL))
        return ENOSPC;
    return 0;
}

int lab_limits_note(const char *text, int error, char *buf, size_t len)
{
    struct lab_limits l;
    char problem[400], fix[400];

    if (error == 0)
        error = lab_limits_error_in(text);
    if (error != EAGAIN && error != ENOSPC)
        return -1;
    lab_limits_gather(&l);
    if (lab_limits_explain(&l, error, problem, sizeof problem, fix, sizeof fix) == -1)
        return -1;
    fix[0] = (char)toupper((unsigned char)fix[0]);
    snprintf(buf, len, "(a limit was hit: %s. %s)", problem, fix);
    return 0;
}
