/* SPDX-License-Identifier: MIT */
/* sandbox.c: a private root directory for the lab and the tests.
 *
 * The article mounts procfs at /proc2 in the host's own mount namespace. We
 * build the same paths in a namespace of our own instead:
 *
 *   1. unshare a mount namespace (with a user namespace first when not root)
 *      and make every mount in it private, so nothing propagates to the host;
 *   2. mount a tmpfs on /tmp (covering it only in our namespace) and
 *      pivot_root into it: the tmpfs becomes "/", the host's root "/oldroot";
 *   3. bind-mount every top-level entry of the old root into the new one,
 *      re-creating top-level symlinks (/bin -> usr/bin) as symlinks;
 *   4. detach the old root.
 *
 * The result looks like the host, but "/" itself is our tmpfs, so mkdir /proc2
 * and mounts on it are invisible outside and disappear with the namespace.
 * The same pattern is used by bubblewrap.
 */
#include "lab/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OLD_ROOT ".pidns-tutor-oldroot"

/* mount(2) ignores the type of a bind mount or a propagation change; "none"
 * instead of NULL only keeps valgrind from reporting a NULL pointer. */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    size_t used = strlen(err);
    if (saved != 0 && used < errlen)
        snprintf(err + used, errlen - used, ": %s", strerror(saved));
    errno = saved;
    return -1;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t len = (ssize_t)strlen(text);
    ssize_t n = write(fd, text, (size_t)len);
    int saved = errno;
    close(fd);
    errno = saved;
    return n == len ? 0 : -1;
}

/* Map our uid and gid to root inside the new user namespace, so that the lab
 * has the capabilities it needs to mount, and the prompt says '#' as in the
 * article. Only our own ids are mapped: no privilege is gained outside. */
static int map_to_root(uid_t uid, gid_t gid, char *err, size_t errlen)
{
    char map[64];

    if (write_file("/proc/self/setgroups", "deny") == -1 && errno != ENOENT)
        return fail(err, errlen, "writing /proc/self/setgroups");
    snprintf(map, sizeof map, "0 %lu 1\n", (unsigned long)uid);
    if (write_file("/proc/self/uid_map", map) == -1)
        return fail(err, errlen, "writing /proc/self/uid_map");
    snprintf(map, sizeof map, "0 %lu 1\n", (unsigned long)gid);
    if (write_file("/proc/self/gid_map", map) == -1)
        return fail(err, errlen, "writing /proc/self/gid_map");
    return 0;
}

/* Re-create one top-level entry of the old root in the new one. */
static int bind_entry(const char *name, char *err, size_t errlen)
{
    char from[PATH_MAX];
    struct stat st;

    snprintf(from, sizeof from, "/" OLD_ROOT "/%s", name);
    if (lstat(from, &st) == -1)
        return errno == ENOENT ? 0 : fail(err, errlen, "lstat %s", from);
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(from, target, sizeof target - 1);
        if (n == -1)
            return fail(err, errlen, "readlink %s", from);
        target[n] = '\0';
        if (symlink(target, name) == -1)
            return fail(err, errlen, "symlink /%s", name);
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(name, st.st_mode & 07777) == -1)
            return fail(err, errlen, "mkdir /%s", name);
    } else {
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd == -1)
            return fail(err, errlen, "creating /%s", name);
        close(fd);
    }
    if (mount(from, name, "none", MS_BIND | MS_REC, NULL) == -1)
        return fail(err, errlen, "bind-mounting /%s", name);
    return 0;
}

static int bind_host_entries(char *err, size_t errlen)
{
    DIR *dir = opendir("/" OLD_ROOT);
    struct dirent *entry;
    int rc = 0;

    if (dir == NULL)
        return fail(err, errlen, "opendir /" OLD_ROOT);
    while (rc == 0 && (errno = 0, entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
            strcmp(entry->d_name, OLD_ROOT) == 0)
            continue;
        rc = bind_entry(entry->d_name, err, errlen);
    }
    if (rc == 0 && errno != 0)
        rc = fail(err, errlen, "readdir /" OLD_ROOT);
    closedir(dir);
    return rc;
}

/* Bind and propagation mounts pass "none" as source and type: the kernel
 * ignores them, and valgrind flags NULL. */
static int build_root(char *err, size_t errlen)
{
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1)
        return fail(err, errlen, "making / private (mount MS_REC|MS_PRIVATE)");
    if (mount("pidns-tutor", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64m") == -1)
        return fail(err, errlen, "mounting the lab's tmpfs root");
    if (mkdir("/tmp/" OLD_ROOT, 0700) == -1)
        return fail(err, errlen, "mkdir /tmp/" OLD_ROOT);
    if (syscall(SYS_pivot_root, "/tmp", "/tmp/" OLD_ROOT) == -1)
        return fail(err, errlen, "pivot_root into the lab's tmpfs");
    if (chdir("/") == -1)
        return fail(err, errlen, "chdir /");
    if (bind_host_entries(err, errlen) == -1)
        return -1;
    if (umount2("/" OLD_ROOT, MNT_DETACH) == -1)
        return fail(err, errlen, "detaching the old root");
    if (rmdir("/" OLD_ROOT) == -1)
        return fail(err, errlen, "rmdir /" OLD_ROOT);
    return 0;
}

/* Fds on the host's mount table and /, opened before we leave: they stay
 * bound to the host, so the lab can compare the host at exit with the start. */
static int open_host_fds(int flags, struct sandbox_info *info, char *err, size_t errlen)
{
    if (flags & SANDBOX_KEEP_HOST_MOUNTINFO) {
        info->host_mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        if (info->host_mountinfo_fd == -1)
            return fail(err, errlen, "opening /proc/self/mountinfo");
    }
    if (flags & SANDBOX_KEEP_HOST_ROOT) {
        info->host_root_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (info->host_root_fd == -1)
            return fail(err, errlen, "opening the host's /");
    }
    return 0;
}

int sandbox_enter(int flags, struct sandbox_info *info, char *err, size_t errlen)
{
    struct sandbox_info local = {.host_mountinfo_fd = -1, .host_root_fd = -1};
    char cwd[PATH_MAX];
    int have_cwd = getcwd(cwd, sizeof cwd) != NULL;

    err[0] = '\0';
    local.outer_uid = getuid();
    local.outer_gid = getgid();
    local.used_user_namespace = geteuid() != 0 || (flags & SANDBOX_FORCE_USER_NAMESPACE);
    local.failed_step = SANDBOX_STEP_OPEN_HOST;
    if (open_host_fds(flags, &local, err, errlen) == -1)
        goto failed;
    errno = 0;
    if (local.used_user_namespace) {
        local.failed_step = SANDBOX_STEP_USER_NS;
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
            goto failed_unshare;
        local.failed_step = SANDBOX_STEP_ID_MAP;
        if (map_to_root(local.outer_uid, local.outer_gid, err, errlen) == -1)
            goto failed;
    } else {
        local.failed_step = SANDBOX_STEP_MOUNT_NS;
        if (unshare(CLONE_NEWNS) == -1)
            goto failed_unshare;
    }
    local.failed_step = SANDBOX_STEP_BUILD_ROOT;
    if (build_root(err, errlen) == -1)
        goto failed;
    /* Back to the directory we started in, now seen through the bind mounts. */
    if (have_cwd && chdir(cwd) == -1 && chdir("/") == -1)
        goto failed;
    local.failed_step = SANDBOX_STEP_NONE;
    if (info != NULL) {
        *info = local;
    } else {
        if (local.host_mountinfo_fd != -1)
            close(local.host_mountinfo_fd);
        if (local.host_root_fd != -1)
            close(local.host_root_fd);
    }
    return 0;

failed_unshare:
    fail(err, errlen,
         local.used_user_namespace ? "unshare(CLONE_NEWUSER|CLONE_NEWNS)" : "unshare(CLONE_NEWNS)");
failed:
    if (info != NULL)
        info->failed_step = local.failed_step;
    {
        int saved = errno;
        if (local.host_mountinfo_fd != -1)
            close(local.host_mountinfo_fd);
        if (local.host_root_fd != -1)
            close(local.host_root_fd);
        errno = saved;
    }
    return -1;
}

/* --- the read-only view of the host ------------------------------------ */

/* mount_setattr(2) came with Linux 5.12; <linux/mount.h> clashes with
 * <sys/mount.h> on older glibc, so the few names are spelled out here. */
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define LAB_MOUNT_ATTR_RDONLY 0x00000001
struct lab_mount_attr {
    unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

static int setattr_rdonly(const char *path, int recursive, int set)
{
#ifdef SYS_mount_setattr
    struct lab_mount_attr attr = {0};
    if (set)
        attr.attr_set = LAB_MOUNT_ATTR_RDONLY;
    else
        attr.attr_clr = LAB_MOUNT_ATTR_RDONLY;
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr,
                        sizeof attr);
#else
    (void)path, (void)recursive, (void)set;
    errno = ENOSYS;
    return -1;
#endif
}

/* A bind remount must repeat the flags a user namespace locked (nosuid,
 * nodev, noexec, atime), or the kernel refuses it with EPERM. */
static int remount_rdonly(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) == -1)
        return -1;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
    if (sv.f_flag & ST_NOSUID)
        flags |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV)
        flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC)
        flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME)
        flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME)
        flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME)
        flags |= MS_RELATIME;
    return mount("none", path, "none", flags, NULL);
}

/* Before 5.12: every mount but / from our own mountinfo, one at a time. A
 * mount point hidden under another mount cannot be reached by path; what
 * covers it is remounted instead, and the hidden one is out of reach too. */
static int remount_each_rdonly(char *err, size_t errlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    int rc = 0;

    if (f == NULL)
        return fail(err, errlen, "opening /proc/self/mountinfo");
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        char point[PATH_MAX], *out = point;
        /* Field 5 is the mount point, with space, tab, newline and \ octal-escaped. */
        const char *p = line;
        for (int field = 1; field < 5 && p != NULL; field++)
            if ((p = strchr(p, ' ')) != NULL)
                p++;
        if (p == NULL)
            continue;
        while (*p != '\0' && *p != ' ' && out < point + sizeof point - 1) {
            if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
                *out++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                p += 4;
            } else {
                *out++ = *p++;
            }
        }
        *out = '\0';
        if (strcmp(point, "/") == 0)
            continue;
        if (remount_rdonly(point) == -1 && errno != ENOENT && errno != EACCES)
            rc = fail(err, errlen, "remounting %s read-only", point);
    }
    fclose(f);
    return rc;
}

/* A tmpfs over a directory of the host that programs expect to write. */
static int scratch(const char *path, const char *mode, char *err, size_t errlen)
{
    struct stat st;
    char options[64];
    if (path == NULL || path[0] != '/' || strcmp(path, "/") == 0 || stat(path, &st) == -1 ||
        !S_ISDIR(st.st_mode))
        return 0;
    snprintf(options, sizeof options, "mode=%s,size=64m", mode);
    if (mount("pidns-tutor-scratch", path, "tmpfs", MS_NOSUID | MS_NODEV, options) == -1)
        return fail(err, errlen, "mounting a scratch tmpfs on %s", path);
    return 0;
}

static void mkdir_parents(const char *dir, int and_itself, mode_t mode)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *s = path + 1; *s != '\0'; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(path, 0755);
            *s = '/';
        }
    if (and_itself)
        mkdir(path, mode);
}

#define SANDBOX_KEEP_MAX 4

/* Binds back the kept directories that the scratch tmpfs hid, from fds
 * opened before. The copies keep their mounts' read-only flag. */
static int bind_back(const char *const *keep, const int *fds, char *err, size_t errlen)
{
    for (int i = 0; i < SANDBOX_KEEP_MAX && keep != NULL && keep[i] != NULL; i++) {
        char from[64];
        struct stat st;
        if (fds[i] == -1 || stat(keep[i], &st) == 0)
            continue;
        mkdir_parents(keep[i], 1, 0755);
        snprintf(from, sizeof from, "/proc/self/fd/%d", fds[i]);
        if (mount(from, keep[i], "none", MS_BIND | MS_REC, NULL) == -1)
            return fail(err, errlen, "keeping %s in sight", keep[i]);
    }
    return 0;
}

int sandbox_protect_host(int flags, const char *const *keep, char *err, size_t errlen)
{
    int fds[SANDBOX_KEEP_MAX] = {-1, -1, -1, -1};
    err[0] = '\0';
    for (int i = 0; i < SANDBOX_KEEP_MAX && keep != NULL && keep[i] != NULL; i++)
        fds[i] = keep[i][0] == '/' ? open(keep[i], O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    /* On any failure of mount_setattr (ENOSYS before 5.12), one by one. */
    int done = !(flags & SANDBOX_PROTECT_NO_SETATTR) && setattr_rdonly("/", 1, 1) == 0;
    int rc = 0;
    if (!done && remount_each_rdonly(err, errlen) == -1)
        rc = -1;
    /* The lab's own root, a tmpfs of ours, stays writable. */
    if (rc == 0 && done && setattr_rdonly("/", 0, 0) == -1)
        rc = fail(err, errlen, "keeping the lab's / writable");
    /* Not /run: /etc/resolv.conf often points into it, and nothing the
     * lessons run writes there. */
    const char *home = getenv("HOME");
    if (rc == 0 && (scratch("/tmp", "1777", err, errlen) == -1 ||
                    scratch("/var/tmp", "1777", err, errlen) == -1 ||
                    scratch("/dev/shm", "1777", err, errlen) == -1))
        rc = -1;
    /* A home under /tmp is gone with the host's /tmp: made again, empty. */
    if (rc == 0 && home != NULL && home[0] == '/' && access(home, F_OK) == -1)
        mkdir_parents(home, 1, 0700);
    if (rc == 0 &&
        (scratch(home, "0700", err, errlen) == -1 || bind_back(keep, fds, err, errlen) == -1))
        rc = -1;
    for (int i = 0; i < SANDBOX_KEEP_MAX; i++)
        if (fds[i] != -1)
            close(fds[i]);
    return rc;
}
