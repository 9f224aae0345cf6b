/* SPDX-License-Identifier: MIT */
/* lab_limits.h: the limits that make fork, clone and unshare fail with EAGAIN
 * or ENOSPC (RLIMIT_NPROC, a cgroup's pids.max, user.max_pid_namespaces,
 * user.max_user_namespaces, kernel.pid_max, kernel.threads-max), read from
 * /proc and /sys, and named in one sentence with who can change them.
 *
 * lab_limits_gather() reads; lab_limits_explain() is pure, so the unit tests
 * give it the limits of machines we do not have.
 */
#ifndef PIDNS_TUTOR_LAB_LIMITS_H
#define PIDNS_TUTOR_LAB_LIMITS_H

#include <stddef.h>

/* What a lesson needs at most: the lab's own processes and an example's
 * (a fork loop aside), and the namespaces of the deepest example (32 levels,
 * plus the lab's own). */
#define LAB_LIMITS_NEED_TASKS 64
#define LAB_LIMITS_NEED_NAMESPACES 40

#define LAB_LIMITS_UNLIMITED (-1L)
#define LAB_LIMITS_UNKNOWN (-2L)

struct lab_limits {
    long uid;                 /* real uid */
    int root;                 /* root of the machine: RLIMIT_NPROC does not apply */
    int in_init_userns;       /* not inside a user namespace someone else set limits in */
    char user[64];            /* account name, "" if unknown */
    long nproc;               /* RLIMIT_NPROC soft limit, UNLIMITED or a number */
    long nproc_hard;          /* its hard limit */
    long user_tasks;          /* tasks (threads) of this real uid, UNKNOWN if unread */
    long pids_max;            /* tightest pids.max of our cgroup and its parents */
    long pids_current;        /* pids.current of that cgroup */
    char pids_cgroup[256];    /* that cgroup's directory ("" if none has a limit) */
    long pids_hits;           /* forks a pids.max refused in our cgroup (pids.events
                               * "max") since the last gather: a limit hit even when
                               * the processes that hit it are gone */
    long max_pid_namespaces;  /* user.max_pid_namespaces here, UNKNOWN if unread */
    long max_user_namespaces; /* user.max_user_namespaces here */
    long pid_max;             /* kernel.pid_max */
    long threads_max;         /* kernel.threads-max */
    long tasks;               /* every task of the machine, UNKNOWN if unread */
};

void lab_limits_gather(struct lab_limits *out);
/* Called before the lab enters its user namespaces: the learner's uid as the
 * machine knows it, for the messages. */
void lab_limits_remember_uid(void);

/* Which limit most likely made an operation fail with error (EAGAIN or
 * ENOSPC): the sentence naming it, its value and what a lesson needs into
 * problem; who changes it, and how, into fix. 0, or -1 (nothing written) when
 * error is neither or no limit explains it. */
int lab_limits_explain(const struct lab_limits *l, int error, char *problem, size_t plen, char *fix,
                       size_t flen);

/* The errno that a program's output shows hitting a limit ("Cannot fork",
 * "Resource temporarily unavailable", "No space left on device" next to
 * unshare or clone), or 0. */
int lab_limits_error_in(const char *text);

/* One line for the learner after output that shows a limit was hit: "(a
 * limit was hit: PROBLEM. FIX)". 0, or -1 when nothing explains it. */
int lab_limits_note(const char *text, int error, char *buf, size_t len);

#endif
