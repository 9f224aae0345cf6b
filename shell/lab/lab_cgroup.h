/* SPDX-License-Identifier: MIT */
/* lab_cgroup.h: a bound per lab. Where the learner's session has a delegated
 * cgroup v2 (systemd delegates user@UID.service and its slices to the user),
 * the lab puts itself in a child cgroup of its own with pids.max and
 * memory.max, so that a fork loop in one learner's lab cannot take every PID
 * of the machine from the others. Where none is delegated, --doctor says how
 * the administrator bounds learners instead (docs/instructor-guide.adoc).
 *
 * The bounds: PIDNS_TUTOR_LAB_PIDS_MAX (default 512 tasks) and
 * PIDNS_TUTOR_LAB_MEMORY_MAX (default 1G; any value memory.max takes);
 * "max" lifts one, PIDNS_TUTOR_LAB_CGROUP=0 turns the bound off. As root it
 * is off unless PIDNS_TUTOR_LAB_CGROUP=1 (root's session cgroups are
 * systemd's own, not delegated).
 */
#ifndef PIDNS_TUTOR_LAB_CGROUP_H
#define PIDNS_TUTOR_LAB_CGROUP_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define LAB_CGROUP_PIDS_MAX_DEFAULT "512"
#define LAB_CGROUP_MEMORY_MAX_DEFAULT "1G"
/* Our child cgroup's name: the prefix and the PID of the tutor. */
#define LAB_CGROUP_PREFIX "pidns-tutor-lab."

/* Our cgroup v2 path ("/user.slice/...") from the text of /proc/self/cgroup:
 * its "0::" line. -1 when there is none. */
int lab_cgroup_own_path(const char *proc_self_cgroup, char *path, size_t len);

/* Whether the lab may make a child cgroup next to ours: root is the unified
 * hierarchy's mount ("/sys/fs/cgroup"), own our cgroup's path. The parent
 * must be a cgroup v2 directory owned by uid (or uid 0), whose
 * cgroup.subtree_control enables pids. 0 with that parent's directory in
 * parent; -1 with the reason in why. Reads only files: the unit tests give it
 * a directory of fixture files. */
int lab_cgroup_delegated(const char *root, const char *own, uid_t uid, char *parent, size_t plen,
                         char *why, size_t wlen);

struct lab_cgroup {
    int active;        /* the lab is in its own cgroup */
    int parent_fd;     /* the parent's directory, to remove ours at the end */
    int home_procs_fd; /* cgroup.procs of the cgroup we came from */
    char name[64];     /* our child's name under the parent */
    char why[256];     /* when not active: why */
};

/* Puts this process in a child cgroup with the bounds above, when a cgroup
 * is delegated and the environment allows. Never fails the lab: a bound that
 * cannot be set is said in cg->why. */
void lab_cgroup_enter(struct lab_cgroup *cg);
/* Moves back and removes the child cgroup. */
void lab_cgroup_leave(struct lab_cgroup *cg);
/* --doctor's rows: the bound per lab, or how an administrator bounds learners. */
void lab_cgroup_doctor(FILE *out);

#endif
