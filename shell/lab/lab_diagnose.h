/* SPDX-License-Identifier: MIT */
/* lab_diagnose.h: why a lab cannot open, and the one command that fixes it.
 *
 * lab_diagnose() (lab.h) gathers facts about this system, probes the routes
 * in throw-away children, and hands both to lab_explain(), a pure function
 * that the unit tests feed with made-up facts (AppArmor's restriction, a
 * container without CAP_SYS_ADMIN...) that this machine cannot show.
 */
#ifndef PIDNS_TUTOR_LAB_DIAGNOSE_H
#define PIDNS_TUTOR_LAB_DIAGNOSE_H

#include "lab/lab.h"
#include "lab/lab_limits.h"

/* How far a probe of a route got: the first step that failed. */
enum lab_probe_step {
    LAB_PROBE_OK,
    LAB_PROBE_USER_NS,     /* unshare(CLONE_NEWUSER) */
    LAB_PROBE_ID_MAP,      /* writing uid_map/gid_map */
    LAB_PROBE_MOUNT_NS,    /* unshare(CLONE_NEWNS) as root */
    LAB_PROBE_ROOT,        /* building the private root */
    LAB_PROBE_PID_NS,      /* unshare(CLONE_NEWPID) */
    LAB_PROBE_LAB_PROC,    /* mounting the lab's procfs */
    LAB_PROBE_NESTED_PROC, /* an example's procfs at /procN for a nested namespace */
    LAB_PROBE_CRASHED,     /* the probe ended without saying */
};

struct lab_probe {
    int tried;
    enum lab_probe_step step;
    int error; /* errno of the failed step */
};

struct lab_facts {
    int root;                      /* effective uid 0 */
    int forced_user_namespace;     /* lab_config.force_user_namespace */
    int proc_mounted;              /* /proc is a procfs */
    int kernel_pid_ns;             /* /proc/self/ns/pid exists */
    int kernel_user_ns;            /* /proc/self/ns/user exists */
    int cap_sys_admin;             /* in the effective set */
    long max_user_namespaces;      /* user.max_user_namespaces, -1 if unknown */
    int unprivileged_userns_clone; /* kernel.unprivileged_userns_clone, -1 if absent */
    int apparmor_restrict;         /* kernel.apparmor_restrict_unprivileged_userns, -1 if absent */
    int container;                 /* /.dockerenv, /run/.containerenv or $container */
    int unmapped_id;               /* our uid or gid has no mapping in our user namespace */
    struct lab_probe root_probe;   /* the root route (tried when root and not forced) */
    struct lab_probe user_probe;   /* the user-namespace route */
    struct lab_limits limits;      /* what a probe failing with EAGAIN or ENOSPC may have hit */
};

void lab_gather_facts(const struct lab_config *config, struct lab_facts *facts);
/* lab_diagnose() on facts already gathered: probes the routes they allow
 * (filling in the probes), then explains. */
void lab_diagnose_facts(struct lab_facts *facts, struct lab_diagnosis *out);
/* The container this runs in as it says so ("docker", "podman", or
 * $container), NULL when none does. */
const char *lab_container_name(void);
/* Tries a route in a throw-away child, as far as an example's /proc2 mount. */
void lab_probe_route(int user_namespace, struct lab_probe *out);
/* Pure: the route, or the problem and its fix. */
void lab_explain(const struct lab_facts *facts, struct lab_diagnosis *out);
const char *lab_probe_step_name(enum lab_probe_step step);

#endif
