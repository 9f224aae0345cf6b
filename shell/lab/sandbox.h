/* SPDX-License-Identifier: MIT */
/* sandbox.h: a private root for the lab and the tests.
 *
 * sandbox_enter() moves the calling process into its own mount namespace
 * (and, when it is not root, its own user namespace mapping it to root) whose
 * root directory is a fresh tmpfs holding bind mounts of every top-level entry
 * of the host's root. Directories such as /proc2 created there exist only in
 * this namespace: the host never sees them, and they vanish with the last
 * process of the namespace.
 */
#ifndef PIDNS_TUTOR_SANDBOX_H
#define PIDNS_TUTOR_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

/* The step at which sandbox_enter() failed (for a diagnosis). */
enum sandbox_step {
    SANDBOX_STEP_NONE,       /* no failure */
    SANDBOX_STEP_OPEN_HOST,  /* opening the host's mountinfo or / */
    SANDBOX_STEP_USER_NS,    /* unshare(CLONE_NEWUSER|CLONE_NEWNS) */
    SANDBOX_STEP_ID_MAP,     /* writing uid_map / gid_map */
    SANDBOX_STEP_MOUNT_NS,   /* unshare(CLONE_NEWNS) as root */
    SANDBOX_STEP_BUILD_ROOT, /* the tmpfs root, bind mounts, pivot_root */
};

struct sandbox_info {
    int used_user_namespace; /* 1 when entered as an ordinary user */
    uid_t outer_uid;         /* the caller's uid and gid outside */
    gid_t outer_gid;
    int host_mountinfo_fd;         /* open on the host's /proc/self/mountinfo (-1 if not asked) */
    int host_root_fd;              /* open on the host's root directory (-1 if not asked) */
    enum sandbox_step failed_step; /* set on failure too, when info is not NULL */
};

enum sandbox_flags {
    SANDBOX_KEEP_HOST_MOUNTINFO = 1 << 0,  /* open host_mountinfo_fd before leaving */
    SANDBOX_FORCE_USER_NAMESPACE = 1 << 1, /* use a user namespace even as root */
    SANDBOX_KEEP_HOST_ROOT = 1 << 2,       /* open host_root_fd before leaving */
};

/* Enters the sandbox. The process must be single-threaded. Returns 0, or -1
 * with errno set and a one-line message in err ("what failed: why") and the
 * step in info->failed_step. Before SANDBOX_STEP_ID_MAP nothing has changed
 * yet. The fds in info are O_CLOEXEC and belong to the caller. */
int sandbox_enter(int flags, struct sandbox_info *info, char *err, size_t errlen);

/* Makes every mount of the calling process's mount namespace read-only but /
 * (the sandbox's own tmpfs), recursively, with mount_setattr(2) where the
 * kernel has it (5.12) and one bind remount per mount before; then mounts
 * a fresh tmpfs on /tmp, /var/tmp, /dev/shm and $HOME (those that are
 * directories) as scratch space that dies with the namespace. The paths in
 * keep (NULL-ended, NULL entries skipped) that a scratch tmpfs would hide
 * are bound back, read-only, at the same place. Call it in a
 * mount namespace of its own inside the sandbox. Returns 0, or -1 with errno
 * and a one-line message in err. */
enum sandbox_protect_flags {
    SANDBOX_PROTECT_NO_SETATTR = 1 << 0, /* remount one by one even when mount_setattr exists */
};
int sandbox_protect_host(int flags, const char *const *keep, char *err, size_t errlen);

#endif
