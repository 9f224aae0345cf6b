/* SPDX-License-Identifier: MIT */
/* pidns_chain.h: a chain of nested PID namespaces for live tests.
 *
 * In a sandbox child (private mount namespace; as nobody, also a user
 * namespace), a chain is built with clone(CLONE_NEWPID): level 1 is the init
 * of a new namespace and mounts its procfs at /proc1 (inside the sandbox),
 * then clones level 2 into another new namespace, and so on to
 * PIDNS_CHAIN_DEPTH. Every level reports over a datagram socket (the kernel
 * attaches its PID, as the test's namespace sees it, to each message) and
 * waits on a pipe. Each namespace numbers its processes from 1 in the order
 * they are made, so level m is PID m in level 1's namespace and PID 1 in its
 * own (the article's /proc4/5 ... /proc0/1).
 */
#ifndef PIDNS_TUTOR_PIDNS_CHAIN_H
#define PIDNS_TUTOR_PIDNS_CHAIN_H

#include <sys/types.h>

#define PIDNS_CHAIN_DEPTH 4 /* nested namespaces below the test's own */

/* What a level tells the test, plus its PID in the test's namespace. */
struct pidns_chain_report {
    int level;
    pid_t own_pid;   /* getpid(): 1, each level is its namespace's init */
    pid_t child_pid; /* what clone() returned for the next level, 0 at the end */
    int error;       /* errno of a failed mount or clone, else 0 */
};

/* Shared with the test process (MAP_SHARED): filled in by the sandbox child. */
struct pidns_chain {
    pid_t host_pid[PIDNS_CHAIN_DEPTH + 1]; /* [m]: level m's PID in the test's namespace */
    struct pidns_chain_report report[PIDNS_CHAIN_DEPTH + 1];
    unsigned long long inode[PIDNS_CHAIN_DEPTH + 1]; /* [m]: level m's own namespace */
    int hold_w;                                      /* closing it ends every level */
    int report_r;
};

/* Builds a chain in a sandbox child, runs check(chain) there, ends the
 * chain, then asserts (cmocka) that the child exited 0, that no level is
 * left, and that the host's /procN mounts and / are unchanged. check returns
 * 0 (pass), 77 (skip: it printed why) or anything else (fail: it printed
 * why). as_nobody: take the unprivileged route (needs root to become nobody). */
void pidns_chain_run(int (*check)(struct pidns_chain *c), int as_nobody);

/* The inode of PID's own PID namespace (/proc/PID/ns/pid), 0 if unreadable. */
unsigned long long pidns_chain_ns_inode(pid_t pid);

#endif
