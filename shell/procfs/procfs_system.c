/* SPDX-License-Identifier: MIT */
/* procfs_system.c: what /proc says about the tutor's own process and the
 * system it runs on, for the lab's diagnosis and --doctor: capabilities, id
 * maps, sysctls, namespace files, and the tasks on the machine. See
 * procfs.h.
 */
#include "procfs/procfs.h"
#include "util/io.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#define PROCFS_SUPER_MAGIC 0x9fa0 /* PROC_SUPER_MAGIC, linux/magic.h */

int procfs_is_procfs(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == PROCFS_SUPER_MAGIC;
}

int procfs_self_has_ns(const char *proc_root, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/self/ns/%s", proc_root, name);
    return access(path, F_OK) == 0;
}

int procfs_self_caps(const char *proc_root, unsigned long long *effective)
{
    char path[PATH_MAX], line[256];
    int found = 0;
    snprintf(path, sizeof path, "%s/self/status", proc_root);
    FILE *f = fopen(path, "re");
    *effective = 0;
    if (f == NULL)
        return -1;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = sscanf(line, "CapEff: %llx", effective) == 1;
    fclose(f);
    return found ? 0 : -1;
}

int procfs_self_id_mapped(const char *proc_root, const char *map, unsigned long id)
{
    char path[PATH_MAX];
    unsigned long inside, outside, count;
    int mapped = 0;
    snprintf(path, sizeof path, "%s/self/%s", proc_root, map);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    while (!mapped && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
        mapped = id >= inside && id - inside < count;
    fclose(f);
    return mapped;
}

long procfs_read_sysctl(const char *proc_root, const char *name, long missing, long unlimited)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/%s", proc_root, name);
    char *text = io_read_file(AT_FDCWD, path, 64);
    long value = missing;
    if (text != NULL && strncmp(text, "max", 3) == 0)
        value = unlimited;
    else if (text != NULL && (text[0] == '-' || isdigit((unsigned char)text[0])))
        value = strtol(text, NULL, 10);
    free(text);
    return value;
}

struct task_count {
    long uid, all, mine;
};

static int count_tasks(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct task_count *c = arg;
    char path[64], line[128];
    long threads = 1, ruid = -1;
    (void)pid;
    snprintf(path, sizeof path, "%.20s/status", name);
    int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
    FILE *f = fd != -1 ? fdopen(fd, "re") : NULL;
    if (f == NULL) { /* gone meanwhile */
        if (fd != -1)
            close(fd);
        return 0;
    }
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Uid: %ld", &ruid) != 1)
            sscanf(line, "Threads: %ld", &threads);
    fclose(f);
    c->all += threads;
    if (ruid == c->uid)
        c->mine += threads;
    return 0;
}

int procfs_count_tasks(const char *proc_root, long uid, long *all, long *mine)
{
    struct task_count c = {uid, 0, 0};
    if (procfs_walk_pids(AT_FDCWD, proc_root, count_tasks, &c) == -1)
        return -1;
    *all = c.all;
    *mine = c.mine;
    return 0;
}
