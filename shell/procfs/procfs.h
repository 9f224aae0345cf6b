/* SPDX-License-Identifier: MIT */
/* procfs.h: reading what the kernel says about processes and namespaces.
 *
 * The parsers (procfs_parse_*) are pure and unit-tested on fixture files; the
 * readers take a proc_root ("/proc", or the lab's procfs as lab_path() gives
 * it) so the shell can look at any namespace's view.
 */
#ifndef PIDNS_TUTOR_PROCFS_H
#define PIDNS_TUTOR_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

#define PROCFS_MAX_LEVELS 33 /* the kernel's 32 nested levels plus the root */

struct procfs_status {
    char name[64];
    char state; /* R, S, T, Z ... ('?' when State is missing or unreadable) */
    pid_t pid;  /* as the proc root's namespace sees it */
    pid_t ppid; /* 0 when the parent is outside that namespace */
    int nspid_count;
    pid_t nspid[PROCFS_MAX_LEVELS]; /* NSpid: proc root's namespace first, own last */
    unsigned long long sig_pending; /* SigPnd | ShdPnd: signals sent, not yet taken */
    unsigned long long sig_blocked; /* SigBlk */
};

/* Parses the text of /proc/PID/status. Returns 0, or -1 when Name, Pid or
 * PPid is missing or malformed. NSpid is optional (kernels before 4.1): then
 * nspid_count is 1 and nspid[0] = pid. A malformed NSpid (not numbers, more
 * than PROCFS_MAX_LEVELS, first entry not Pid) is an error too. The name is
 * kept as the kernel escapes it ("\n" for a newline), cut to 63 bytes. */
int procfs_parse_status(const char *text, struct procfs_status *out);
int procfs_read_status(const char *proc_root, pid_t pid, struct procfs_status *out);
/* The same on an open PROC_ROOT/PID directory: everything read through one
 * directory fd belongs to one process, even if its PID is reused meanwhile.
 * A name the kernel cut to 15 bytes is completed from the program's argv[0]
 * ("pidns_init_slee" -> "pidns_init_sleep").
 * errno: ENOENT or ESRCH when the process is gone, EINVAL when malformed. */
int procfs_read_status_at(int pid_dirfd, struct procfs_status *out);

/* Parses a namespace link such as "pid:[4026532412]". Returns 0 or -1. */
int procfs_parse_ns_link(const char *link, char *type, size_t typelen, unsigned long long *inode);
/* readlink PROC_ROOT/PID/ns/NAME into buf. Returns 0 or -1 (errno set). */
int procfs_read_ns_link(const char *proc_root, pid_t pid, const char *name, char *buf, size_t len);

/* The one walk over the processes of a proc root: calls visit for each PID
 * entry of proc_root (opened relative to dirfd: AT_FDCWD and "/proc", or the
 * lab's procfs fd and "."), in directory order, with an fd of that directory
 * (for paths relative to it, built from name) and the entry's name, until
 * visit returns non-zero. Returns what visit returned, 0 after the last
 * entry, or -1 with errno when the directory cannot be read. */
typedef int (*procfs_pid_visitor)(int proc_fd, pid_t pid, const char *name, void *arg);
int procfs_walk_pids(int dirfd, const char *proc_root, procfs_pid_visitor visit, void *arg);

/* How many of procs (count of them, one proc root's view) descend from
 * ancestor (through PPid) and run or wait for the CPU (R) or sleep
 * uninterruptibly (D). Pure: procfs_busy.c. */
size_t procfs_busy_descendants(const struct procfs_status *procs, size_t count, pid_t ancestor);
/* The same, read from proc_root: 1 when some descendant of ancestor is
 * busy, 0 when all are asleep, stopped or gone, -1 when proc_root cannot be
 * read. */
int procfs_descendants_busy(const char *proc_root, pid_t ancestor);
/* How many of procs have a signal sent to them that the kernel has not yet
 * delivered: pending and not blocked, in a process that will take it when it
 * next runs (not a stopped one, whose signals wait for SIGCONT, nor a
 * zombie). kill() returns before the target acts: a SIGSTOP shows as state
 * T only once the target has run. Pure: procfs_busy.c. */
size_t procfs_undelivered(const struct procfs_status *procs, size_t count);
/* procfs_undelivered() for every process of proc_root: the count, or -1
 * when proc_root cannot be read. */
int procfs_signals_undelivered(const char *proc_root);

/* The numeric entries of proc_root, sorted ascending. Caller frees *pids. */
int procfs_list_pids(const char *proc_root, pid_t **pids, size_t *count);

struct procfs_mount {
    unsigned mount_id, parent_id;
    char *mount_point; /* unescaped (\040 -> space) */
    char *fstype;
    char *source;
};
/* Parses one line of /proc/PID/mountinfo in place (pointers into line). */
int procfs_parse_mountinfo_line(char *line, struct procfs_mount *out);

/* All of PROC_ROOT/PID/mountinfo (PROC_ROOT/self/mountinfo when pid <= 0);
 * lines that do not parse are left out. Free with procfs_mounts_free. */
struct procfs_mount_table {
    char *text; /* the file, split into lines the mounts point into */
    struct procfs_mount *mounts;
    size_t count;
};
int procfs_read_mounts(const char *proc_root, pid_t pid, struct procfs_mount_table *table);
/* The same from a mountinfo text already read (malloc'd; the table owns it,
 * and frees it on failure too). Returns 0, or -1 when text is NULL or memory
 * runs out. */
int procfs_parse_mounts(char *text, struct procfs_mount_table *table);
void procfs_mounts_free(struct procfs_mount_table *table);

/* The namespace links of a process (PROC_ROOT/PID/ns/ *), sorted by name as
 * ls shows them. A link the kernel lists but cannot resolve (a zombie's mnt,
 * say) has link "" and error set to the errno of readlink. */
struct procfs_ns_entry {
    char name[32]; /* "pid", "pid_for_children", "mnt", ... */
    char link[64]; /* "pid:[4026532412]" */
    int error;
};
/* Returns 0 with *count entries (at most max), or -1 with errno (ENOENT: no
 * such process in this proc root). */
int procfs_read_ns_links(const char *proc_root, pid_t pid, struct procfs_ns_entry *entries,
                         size_t max, size_t *count);

/* The hierarchy of PID namespaces as the proc root's namespace sees it. */
struct procfs_process {
    pid_t pid; /* in the proc root's namespace */
    struct procfs_status status;
};
struct procfs_pidns {
    unsigned long long inode;
    int level; /* 0 = the proc root's own namespace */
    struct procfs_pidns *parent;
    struct procfs_pidns **children;
    size_t child_count;
    struct procfs_process *members; /* processes whose own namespace this is */
    size_t member_count;
};
struct procfs_tree {
    struct procfs_pidns *root;
    struct procfs_pidns **all; /* every namespace, root first */
    size_t count;
    /* The root's level as the kernel counts (the namespace the tutor started
     * in taken as 0): the lab's is 1. 0 unless the caller sets it; shown
     * levels are base_level + level. */
    int base_level;
    const char *root_name; /* shown after the root's level ("the lab's namespace"); may be NULL */
};

/* Pure construction, for tests and for the reader below: add one process,
 * given the inodes of its namespace chain: ns_chain[0] its own namespace,
 * ns_chain[1] that one's parent, ..., ns_chain[chain_len - 1] the proc root's
 * namespace (the tree's root). Returns 0, or -1 if the chain does not end at
 * the root or contradicts what was added before. */
void procfs_tree_init(struct procfs_tree *tree, unsigned long long root_inode);
int procfs_tree_add(struct procfs_tree *tree, const struct procfs_status *status,
                    const unsigned long long *ns_chain, size_t chain_len);
/* Reads every process of proc_root and builds the tree (NS_GET_PARENT for
 * the ancestry). Returns 0 or -1. Processes that exit while it reads, and
 * those the caller may not inspect (EACCES: an ordinary user looking at other
 * users' processes, or a non-dumpable one), are left out: races are normal.
 * The walk up each chain stops at the proc root's own namespace.
 * NS_GET_PARENT answers EPERM above the caller's own PID namespace; when only
 * the proc root's namespace is above that point it is filled in (NSpid says
 * so), otherwise the read fails with errno EPERM (the proc root is two or
 * more levels above the caller). ENOTTY: a kernel before 4.9 (no
 * NS_GET_PARENT). On failure the tree is empty (freeing it is harmless). */
int procfs_read_tree(const char *proc_root, struct procfs_tree *tree);
void procfs_tree_free(struct procfs_tree *tree);
/* Leaves out of the tree every process for which drop() says 1 (its
 * namespace stays, with fewer members). Returns how many were left out. */
size_t procfs_tree_remove(struct procfs_tree *tree,
                          int (*drop)(const struct procfs_process *process, void *context),
                          void *context);
/* A drop() for procfs_tree_remove: a process that entered the root namespace
 * from outside it (setns: its parent is not in this procfs, so PPid reads 0)
 * and is not the namespace's init; the shell's own plumbing in a lab (a
 * lab-runner for each command line, a relay for its output). context unused. */
int procfs_entered_from_outside(const struct procfs_process *process, void *context);

/* The ancestry of a process's PID namespace as the caller may see it:
 * chain[0] its own (PROC_ROOT/PID/ns/pid), then each parent by
 * NS_GET_PARENT, up to the caller's own PID namespace, above which the
 * kernel answers EPERM. Returns 0 with *len inodes, or -1 with errno (ENOENT
 * or ESRCH: no such process; ENOSPC: more than max; ENOTTY: kernel before
 * 4.9). For a process outside the caller's subtree, chain is just its own. */
int procfs_read_pidns_ancestry(const char *proc_root, pid_t pid, unsigned long long *chain,
                               size_t max, size_t *len);

/* Look-ups in a tree: NULL when absent. */
const struct procfs_pidns *procfs_tree_find_ns(const struct procfs_tree *tree,
                                               unsigned long long inode);
const struct procfs_process *procfs_tree_find_process(const struct procfs_tree *tree, pid_t pid,
                                                      const struct procfs_pidns **ns);

/* The tutor's own process and the system, as PROC_ROOT ("/proc") shows
 * them (procfs_system.c): for the lab's diagnosis and --doctor. */
/* Whether path is a mounted procfs. */
int procfs_is_procfs(const char *path);
/* Whether PROC_ROOT/self/ns/NAME exists: the kernel has that namespace. */
int procfs_self_has_ns(const char *proc_root, const char *name);
/* The effective capabilities (CapEff of PROC_ROOT/self/status) as a bit
 * mask (bit CAP_SYS_ADMIN, 21, ...). Returns 0, or -1 (and 0 in *effective)
 * when unreadable. */
int procfs_self_caps(const char *proc_root, unsigned long long *effective);
/* Whether id lies in a range of PROC_ROOT/self/MAP ("uid_map", "gid_map"):
 * 1 or 0, -1 when the map cannot be read. */
int procfs_self_id_mapped(const char *proc_root, const char *map, unsigned long id);
/* The number in PROC_ROOT/sys/NAME ("user/max_user_namespaces"): unlimited
 * for "max", missing when the file is absent or holds no number. */
long procfs_read_sysctl(const char *proc_root, const char *name, long missing, long unlimited);
/* The tasks (threads) of every process of proc_root into *all, and of those
 * whose real uid is uid into *mine. Returns 0, or -1 when proc_root cannot
 * be read. */
int procfs_count_tasks(const char *proc_root, long uid, long *all, long *mine);

#endif
