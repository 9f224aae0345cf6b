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

struct sandbox_info {
    int used_user_namespace; /* 1 when entered as an ordinary user */
    uid_t outer_uid;         /* the caller's uid and gid outside */
    gid_t outer_gid;
    int host_mountinfo_fd;   /* open on the host's /proc/self/mountinfo (-1 if not asked) */
};

enum sandbox_flags {
    SANDBOX_KEEP_HOST_MOUNTINFO = 1 << 0, /* open host_mountinfo_fd before leaving */
    SANDBOX_FORCE_USER_NAMESPACE = 1 << 1, /* use a user namespace even as root */
};

/* Enters the sandbox. The process must be single-threaded. Returns 0, or -1
 * with errno set and a one-line message in err ("what failed: why"). */
int sandbox_enter(int flags, struct sandbox_info *info, char *err, size_t errlen);

#endif
