/* SPDX-License-Identifier: MIT */
/* lab_host.c: the host as lab_open() found it, and the verdict at
 * lab_close(): is no process left in the lab's namespaces? That is what the
 * lab could leave behind. Its mounts live in its own mount namespace and its
 * view of the host's files is read-only (sandbox_protect_host()), so the
 * host's mount table and / cannot change through it: a difference there was
 * made elsewhere on the machine meanwhile, and is told as such, neutrally,
 * without failing the verdict. The snapshot is read through fds opened before
 * the sandbox was entered (sandbox.h), so it is the host's own.
 */
#include "lab/lab_internal.h"
#include "procfs/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LAB_MOUNTINFO_MAX (1 << 22)
/* Linux 6.11's numbers, for headers older than the kernel (Debian 12). */
#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)
#endif
#ifndef SYS_listmount
#define SYS_listmount 458
#endif

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the lines of text in place (text keeps its newlines). */
static char *sorted_lines(char **lines, size_t n)
{
    size_t total = 1;
    qsort(lines, n, sizeof *lines, cmp_strings);
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *out = malloc(total), *p = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", lines[i]);
    *p = '\0';
    return out;
}

char *lab_dir_listing(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd != -1 ? fdopendir(fd) : NULL;
    char **names = NULL, *out = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;

    if (dir == NULL) {
        if (fd != -1)
            close(fd);
        return NULL;
    }
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            char **bigger = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (bigger == NULL)
                goto done;
            names = bigger;
        }
        if ((names[n] = strdup(e->d_name)) == NULL)
            goto done;
        n++;
    }
    out = sorted_lines(names, n);
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(dir);
    return out;
}

/* One line per mount, "MOUNT_POINT (FSTYPE SOURCE)", sorted: what the
 * verdict compares (mount ids change with every remount, so they are left
 * out). */
char *lab_host_mount_table(int mountinfo_fd)
{
    struct procfs_mount_table table;
    if (lseek(mountinfo_fd, 0, SEEK_SET) == -1 ||
        procfs_parse_mounts(io_read_fd(mountinfo_fd, LAB_MOUNTINFO_MAX), &table) == -1)
        return NULL;
    char **lines = calloc(table.count + 1, sizeof *lines), *out = NULL;
    size_t n = 0;
    for (; lines != NULL && n < table.count; n++) {
        const struct procfs_mount *m = &table.mounts[n];
        if (asprintf(&lines[n], "%s (%s %s)", m->mount_point, m->fstype, m->source) == -1)
            break;
    }
    if (lines != NULL && n == table.count)
        out = sorted_lines(lines, n);
    for (size_t i = 0; lines != NULL && i < n; i++)
        free(lines[i]);
    free(lines);
    procfs_mounts_free(&table);
    return out;
}

/* --- the verdict ------------------------------------------------------ */

/* listmount(2)'s request (struct mnt_id_req of <linux/mount.h>, its second
 * version: the namespace to list by id). */
struct lab_listmount_request {
    uint32_t size, spare;
    uint64_t mnt_id, param, mnt_ns_id;
};

/* Does the mount namespace with this id still exist? 1 yes, 0 no (the
 * kernel has freed it: no process is in it, nothing holds it), -1 the
 * kernel cannot say. An id, unlike an inode number, is never reused. */
static int mount_namespace_exists(uint64_t id)
{
    struct lab_listmount_request req = {sizeof req, 0, UINT64_MAX /* its root */, 0, id};
    uint64_t first;
    if (syscall(SYS_listmount, &req, &first, 1, 0) >= 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

#ifndef SYS_statmount
#define SYS_statmount 457
#endif
#define LAB_STATMOUNT_MNT_BASIC 0x2u

/* The head of struct statmount of <linux/mount.h> (Linux 6.8), up to the
 * ids; the kernel fills no more than the size it is given. */
struct lab_statmount {
    uint32_t size, mnt_opts;
    uint64_t mask;
    uint32_t sb_dev_major, sb_dev_minor;
    uint64_t sb_magic;
    uint32_t sb_flags, fs_type;
    uint64_t mnt_id, mnt_parent_id;
    uint32_t mnt_id_old, mnt_parent_id_old;
};

ssize_t lab_list_mounts(unsigned long long ns_id, uint64_t **ids)
{
    size_t cap = 64;
    *ids = NULL;
    for (;;) {
        uint64_t *bigger = realloc(*ids, cap * sizeof **ids);
        if (bigger == NULL)
            break;
        *ids = bigger;
        struct lab_listmount_request req = {sizeof req, 0, UINT64_MAX, 0, ns_id};
        long n = syscall(SYS_listmount, &req, *ids, cap, 0);
        if (n == -1)
            break;
        if ((size_t)n < cap) {
            qsort(*ids, (size_t)n, sizeof **ids, cmp_u64);
            return n;
        }
        cap *= 4; /* maybe more than fit: ask again with room to spare */
    }
    free(*ids);
    *ids = NULL;
    return -1;
}

int lab_mount_old_id(unsigned long long ns_id, uint64_t mount_id, unsigned *old_id)
{
    struct lab_listmount_request req = {sizeof req, 0, mount_id, LAB_STATMOUNT_MNT_BASIC, ns_id};
    struct lab_statmount sm = {0};
    if (syscall(SYS_statmount, &req, &sm, sizeof sm, 0) == -1)
        return -1;
    *old_id = sm.mnt_id_old;
    return 0;
}

unsigned long long lab_mount_namespace_id(int fd)
{
    uint64_t id = 0;
    /* Asked while the namespace surely exists: a kernel (or a lack of
     * privilege over it) that answers "no" here could not be believed at
     * close. */
    if (ioctl(fd, NS_GET_MNTNS_ID, &id) == -1 || mount_namespace_exists(id) != 1)
        return 0;
    return id;
}

/* Is the mount namespace at path (relative to proc_fd) the lab's, by its
 * id? For a process whose namespace has the lab's inode number once the
 * lab let its namespace go: the number may be someone else's by now. */
static int is_lab_mount_namespace(int proc_fd, const char *path, uint64_t lab_id)
{
    uint64_t id = 0;
    int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return 0;
    int same = ioctl(fd, NS_GET_MNTNS_ID, &id) == 0 && id == lab_id;
    close(fd);
    return same;
}

static int same_namespace(int fd, const struct stat *target)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_ino == target->st_ino && st.st_dev == target->st_dev;
}

/* Is the PID namespace open on fd the lab's, or below it? */
static int below_lab(int fd, const struct stat *lab_ns)
{
    int depth = 0;
    while (fd != -1 && depth++ < 40) {
        if (same_namespace(fd, lab_ns)) {
            close(fd);
            return 1;
        }
        int parent = ioctl(fd, NS_GET_PARENT);
        close(fd);
        fd = parent;
    }
    if (fd != -1)
        close(fd);
    return 0;
}

struct survivor_search {
    const struct lab *lab;
    struct stat lab_ns, own;
    FILE *report;
    int count;
    int check_pid; /* 0 once the keeper is reaped: see lab_find_survivors() */
};

/* Is process `name` still in the lab's mount namespace, or (check_pid) in
 * its PID namespace or one below it? Every process of the host is looked
 * at: paths relative to the open /proc, built without printf, keep that
 * cheap. */
static int note_survivor(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct survivor_search *s = arg;
    char path[NAME_MAX + sizeof "/ns/mnt"];
    struct stat st;
    size_t len = strlen(name);
    (void)pid;
    memcpy(path, name, len);
    memcpy(path + len, "/ns/mnt", sizeof "/ns/mnt");
    int in_mnt = fstatat(proc_fd, path, &st, 0) == 0 && st.st_ino == s->lab->keeper_mnt_ino &&
                 (s->lab->keeper_mnt_fd != -1 ||
                  is_lab_mount_namespace(proc_fd, path, s->lab->keeper_mnt_id));
    memcpy(path + len, "/ns/pid", sizeof "/ns/pid");
    int in_pid = 0;
    if (s->check_pid && fstatat(proc_fd, path, &st, 0) == 0 && st.st_ino != s->own.st_ino)
        in_pid = below_lab(openat(proc_fd, path, O_RDONLY | O_CLOEXEC), &s->lab_ns);
    if (!in_mnt && !in_pid)
        return 0;
    s->count++;
    if (s->report != NULL) {
        memcpy(path + len, "/comm", sizeof "/comm");
        char *comm = io_read_file(proc_fd, path, 256);
        if (comm != NULL)
            comm[strcspn(comm, "\n")] = '\0';
        fprintf(s->report, "process %s (%s) survived the lab: it is in the lab's %s namespace\n",
                name, comm ? comm : "?", in_pid ? "PID" : "mount");
        free(comm);
    }
    return 0;
}

static int survivors_once(const struct lab *lab, FILE *report)
{
    struct survivor_search s = {.lab = lab, .report = report, .check_pid = !lab->pidns_emptied};
    if (fstat(lab->lab_pidns_fd, &s.lab_ns) == -1 || stat("/proc/self/ns/pid", &s.own) == -1)
        return 0;
    procfs_walk_pids(AT_FDCWD, "/proc", note_survivor, &s);
    return s.count;
}

int lab_find_survivors(struct lab *lab, FILE *report)
{
    /* Once the keeper is reaped its PID namespace is empty, nested ones
     * included: the kernel kills every process of a namespace whose init
     * exits, and the init's exit completes only when they are all reaped
     * (zap_pid_ns_processes() in kernel/pid_namespace.c). Only the mount
     * namespace, which a process of the host can join with setns(), is
     * left to look at: one stat per process instead of two, and no walk up
     * the PID namespaces of the host's containers (docs/performance.adoc).
     * Killed processes take a moment to exit: give them up to a second.
     * The names are looked up (and reported) only for those still there.
     *
     * Where the kernel numbers namespaces by id (lab_mount_namespace_id()),
     * the walk is skipped when it cannot find anything: the lab lets go of
     * its mount namespace, and if the kernel then no longer knows that id,
     * no process is in it. Otherwise the walk tells the lab's namespace by
     * its id, as the inode number is free for the next namespace anyone
     * makes. Without ids, the namespace is held open until the walk is over
     * (lab_close()), so that its inode number stays the lab's. */
    if (lab->pidns_emptied && lab->keeper_mnt_id != 0) {
        close(lab->keeper_mnt_fd);
        lab->keeper_mnt_fd = -1;
        if (mount_namespace_exists(lab->keeper_mnt_id) == 0)
            return 0;
    }
    int count = survivors_once(lab, NULL);
    for (int waited = 0; waited < 1000 && count > 0; waited += 10) {
        lab_sleep_ms(10);
        count = survivors_once(lab, NULL);
    }
    return count > 0 ? survivors_once(lab, report) : 0;
}

/* Writes the lines only in a ("-") or only in b ("+"); both sorted. */
static int diff_sorted(char *a, char *b, const char *what, FILE *report)
{
    int count = 0;
    char *sa, *sb;
    char *la = a ? strtok_r(a, "\n", &sa) : NULL, *lb = b ? strtok_r(b, "\n", &sb) : NULL;
    while (la != NULL || lb != NULL) {
        int c = la == NULL ? 1 : lb == NULL ? -1 : strcmp(la, lb);
        if (c != 0 && report != NULL)
            fprintf(report,
                    "(changed meanwhile elsewhere on this machine, not by the lab: %s %s: %s)\n",
                    c < 0 ? "gone from" : "new in", what, c < 0 ? la : lb);
        count += c != 0;
        if (c <= 0)
            la = strtok_r(NULL, "\n", &sa);
        if (c >= 0)
            lb = strtok_r(NULL, "\n", &sb);
    }
    return count;
}

int lab_host_read(const struct lab *lab, char **mounts, char **root)
{
    int error = 0;
    *mounts = lab_host_mount_table(lab->host_mountinfo_fd);
    if (*mounts == NULL)
        error = errno;
    *root = lab_dir_listing(lab->host_root_fd);
    if (*root == NULL && error == 0)
        error = errno;
    return error;
}

/* Tells what changed on the host outside the lab; returns how many, which
 * do not count against the lab. Returns -1 when the host could not be read. */
int lab_host_differences(struct lab *lab, char *mounts, char *root, int read_error, FILE *report)
{
    int count = 0;

    if (mounts == NULL || root == NULL) {
        if (report != NULL)
            fprintf(report, "host not checked: reading its mount table and /: %s\n",
                    strerror(read_error));
        count = -1;
    } else {
        count += diff_sorted(lab->host_mounts_at_open, mounts, "the mount table", report);
        count += diff_sorted(lab->host_root_at_open, root, "/", report);
    }
    free(mounts);
    free(root);
    return count;
}
