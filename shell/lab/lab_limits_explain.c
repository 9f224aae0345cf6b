/* SPDX-License-Identifier: MIT */
/* lab_limits_explain.c: which limit made fork, clone or unshare fail, in one
 * sentence, and who can change it. Pure (see lab_limits.h): the unit tests
 * give it the limits of machines we do not have.
 *
 * None of the fixes is `sudo pidns-tutor`: the limits are the
 * administrator's, and a learner's lab should live within them.
 */
#include "lab/lab_limits.h"
#include "lab/lab_cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum limits_which { LIMITS_NONE, LIMITS_NPROC, LIMITS_PIDS, LIMITS_PID_MAX, LIMITS_THREADS_MAX };

/* A value to suggest: what is in use, and room for a few lessons. */
static long limits_suggest(long in_use)
{
    long want = (in_use > 0 ? in_use : 0) + 4 * LAB_LIMITS_NEED_TASKS;
    return (want + 255) / 256 * 256;
}

/* The limit on tasks with the least room left; LIMITS_NONE when all are
 * unlimited or unknown. */
static enum limits_which limits_tightest(const struct lab_limits *l, long *room)
{
    enum limits_which which = LIMITS_NONE;
    long in_use = l->user_tasks > 0 ? l->user_tasks : 0, all = l->tasks > 0 ? l->tasks : 0;
    struct {
        enum limits_which which;
        long room;
        int applies;
    } c[] = {
        {LIMITS_NPROC, l->nproc - in_use, !l->root && l->nproc >= 0},
        {LIMITS_PIDS, l->pids_max - l->pids_current, l->pids_max >= 0},
        {LIMITS_PID_MAX, l->pid_max - all, l->pid_max >= 0 && l->tasks >= 0},
        {LIMITS_THREADS_MAX, l->threads_max - all, l->threads_max >= 0 && l->tasks >= 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i].applies && (which == LIMITS_NONE || c[i].room < *room)) {
            which = c[i].which;
            *room = c[i].room;
        }
    return which;
}

static int limits_tasks(const struct lab_limits *l, char *problem, size_t plen, char *fix,
                        size_t flen)
{
    long room = 0;
    char who[80];

    if (l->user[0] != '\0')
        snprintf(who, sizeof who, "%s", l->user);
    else /* pam_limits takes a uid range */
        snprintf(who, sizeof who, "%ld:%ld", l->uid, l->uid);

    enum limits_which which = limits_tightest(l, &room);
    /* The kernel counted a fork refused by a pids.max: that one, whatever
     * room it has now (the runner stops what a command left before this is
     * asked, so the loop that filled it is gone). */
    int hit = l->pids_hits > 0 && l->pids_max >= 0;
    if (hit)
        which = LIMITS_PIDS;
    int own = which == LIMITS_PIDS && strstr(l->pids_cgroup, "/" LAB_CGROUP_PREFIX) != NULL;
    /* Plenty of room left in every limit: none of them explains it now. */
    if (which != LIMITS_NONE && room > 4 * LAB_LIMITS_NEED_TASKS && !hit)
        which = LIMITS_NONE;
    switch (which) {
    case LIMITS_NPROC:
        snprintf(problem, plen,
                 "your account may run %ld processes at once (ulimit -u, RLIMIT_NPROC; %ld "
                 "run now), and a lesson needs about %d",
                 l->nproc, l->user_tasks, LAB_LIMITS_NEED_TASKS);
        if (l->nproc_hard < 0 || l->nproc_hard >= l->user_tasks + LAB_LIMITS_NEED_TASKS)
            snprintf(fix, flen,
                     "raise it yourself up to the hard limit: `ulimit -u %ld` before "
                     "pidns-tutor; or an administrator sets `%s - nproc %ld` in "
                     "/etc/security/limits.conf",
                     limits_suggest(l->user_tasks), who, limits_suggest(l->user_tasks));
        else
            snprintf(fix, flen,
                     "the administrator raises it: `%s - nproc %ld` in "
                     "/etc/security/limits.conf (the hard limit is %ld), then you log in again",
                     who, limits_suggest(l->user_tasks), l->nproc_hard);
        return 0;
    case LIMITS_PIDS:
        if (own) {
            snprintf(problem, plen,
                     "this lab may hold %ld tasks at once (pids.max %ld of its own cgroup %s, "
                     "the bound per lab; %ld now), and a lesson needs about %d",
                     l->pids_max, l->pids_max, l->pids_cgroup, l->pids_current,
                     LAB_LIMITS_NEED_TASKS);
            snprintf(fix, flen,
                     "the bound keeps a fork loop from taking the machine's PIDs from other "
                     "learners: `cleanup` stops what runs in the lab; for a larger bound, start "
                     "pidns-tutor with PIDNS_TUTOR_LAB_PIDS_MAX=%ld",
                     limits_suggest(l->pids_max));
            return 0;
        }
        snprintf(problem, plen,
                 "your cgroup %s may hold %ld tasks at once (pids.max; %ld now), and a lesson "
                 "needs about %d",
                 l->pids_cgroup, l->pids_max, l->pids_current, LAB_LIMITS_NEED_TASKS);
        snprintf(fix, flen,
                 "the administrator raises it: `systemctl set-property user-%ld.slice "
                 "TasksMax=%ld` (or writes pids.max of that cgroup)",
                 l->uid, limits_suggest(l->pids_current));
        return 0;
    case LIMITS_PID_MAX:
    case LIMITS_THREADS_MAX: {
        int pid = which == LIMITS_PID_MAX;
        long max = pid ? l->pid_max : l->threads_max;
        snprintf(problem, plen,
                 "the machine runs %ld tasks and allows %ld (%s); a lesson needs "
                 "about %d more",
                 l->tasks, max, pid ? "kernel.pid_max" : "kernel.threads-max",
                 LAB_LIMITS_NEED_TASKS);
        snprintf(fix, flen,
                 "the administrator raises it (`sysctl -w %s=%ld`) and bounds each "
                 "learner (pidns-tutor --doctor says how)",
                 pid ? "kernel.pid_max" : "kernel.threads-max", 2 * max);
        return 0;
    }
    case LIMITS_NONE:
        break;
    }
    return -1;
}

static int limits_namespaces(const struct lab_limits *l, char *problem, size_t plen, char *fix,
                             size_t flen)
{
    int pid = l->max_pid_namespaces >= 0 && l->max_pid_namespaces < LAB_LIMITS_NEED_NAMESPACES;
    long value = pid ? l->max_pid_namespaces : l->max_user_namespaces;
    const char *name = pid ? "max_pid_namespaces" : "max_user_namespaces";

    if (!pid &&
        (l->max_user_namespaces < 0 || l->max_user_namespaces >= LAB_LIMITS_NEED_NAMESPACES))
        return -1;
    snprintf(problem, plen,
             "%s namespaces are limited to %ld here (user.%s); a lesson needs "
             "up to %d",
             pid ? "PID" : "user", value, name, LAB_LIMITS_NEED_NAMESPACES);
    if (l->in_init_userns)
        snprintf(fix, flen,
                 "the administrator raises it: `sysctl -w user.%s=%d` (and in "
                 "/etc/sysctl.d/ to keep it)",
                 name, 15000);
    else
        snprintf(fix, flen,
                 "this runs in a user namespace whose owner lowered it: they raise it "
                 "there (`echo %d >/proc/sys/user/%s`), or start pidns-tutor outside it",
                 15000, name);
    return 0;
}

int lab_limits_explain(const struct lab_limits *l, int error, char *problem, size_t plen, char *fix,
                       size_t flen)
{
    if (error == EAGAIN)
        return limits_tasks(l, problem, plen, fix, flen);
    if (error == ENOSPC)
        return limits_namespaces(l, problem, plen, fix, flen);
    return -1;
}
