/* SPDX-License-Identifier: MIT */
/* procfs_tree.c: the hierarchy of PID namespaces as one proc root shows it.
 *
 * Construction is pure (procfs_tree_init/add, unit-tested on synthetic
 * chains). procfs_read_tree feeds it from the kernel: for each process, its
 * status (NSpid) and the chain of namespaces from its own up to the proc
 * root's, found with ioctl(NS_GET_PARENT) on PROC_ROOT/PID/ns/pid.
 */
#include "procfs/procfs.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

void procfs_tree_init(struct procfs_tree *tree, unsigned long long root_inode)
{
    memset(tree, 0, sizeof *tree);
    struct procfs_pidns *root = calloc(1, sizeof *root);
    struct procfs_pidns **all = malloc(sizeof *all);
    if (root == NULL || all == NULL) { /* procfs_tree_add then fails with ENOMEM */
        free(root);
        free(all);
        return;
    }
    root->inode = root_inode;
    all[0] = root;
    tree->root = root;
    tree->all = all;
    tree->count = 1;
}

const struct procfs_pidns *procfs_tree_find_ns(const struct procfs_tree *tree,
                                               unsigned long long inode)
{
    for (size_t i = 0; i < tree->count; i++)
        if (tree->all[i]->inode == inode)
            return tree->all[i];
    return NULL;
}

const struct procfs_process *procfs_tree_find_process(const struct procfs_tree *tree, pid_t pid,
                                                      const struct procfs_pidns **ns)
{
    for (size_t i = 0; i < tree->count; i++) {
        const struct procfs_pidns *node = tree->all[i];
        for (size_t j = 0; j < node->member_count; j++) {
            if (node->members[j].pid == pid) {
                if (ns != NULL)
                    *ns = node;
                return &node->members[j];
            }
        }
    }
    return NULL;
}

static struct procfs_pidns *find_child(const struct procfs_pidns *node, unsigned long long inode)
{
    for (size_t i = 0; i < node->child_count; i++)
        if (node->children[i]->inode == inode)
            return node->children[i];
    return NULL;
}

/* Checks a chain against the tree without changing it: it must end at the
 * root, not repeat an inode, and not put a known namespace under a second
 * parent. Returns the index of the first namespace still to be created (-1
 * when all exist) through *first_new, and the deepest existing node. */
static int check_chain(const struct procfs_tree *tree, const unsigned long long *chain, size_t len,
                       struct procfs_pidns **deepest, long *first_new)
{
    if (len == 0 || len > PROCFS_MAX_LEVELS || chain[len - 1] != tree->root->inode)
        return -1;
    for (size_t i = 0; i < len; i++)
        for (size_t j = i + 1; j < len; j++)
            if (chain[i] == chain[j])
                return -1;
    struct procfs_pidns *node = tree->root;
    long i = (long)len - 2;
    for (struct procfs_pidns *child; i >= 0 && (child = find_child(node, chain[i])) != NULL; i--)
        node = child;
    for (long k = i; k >= 0; k--)
        if (procfs_tree_find_ns(tree, chain[k]) != NULL)
            return -1; /* known, but under another parent */
    *deepest = node;
    *first_new = i;
    return 0;
}

static struct procfs_pidns *new_child(struct procfs_tree *tree, struct procfs_pidns *parent,
                                      unsigned long long inode)
{
    struct procfs_pidns *child = calloc(1, sizeof *child);
    struct procfs_pidns **children =
        realloc(parent->children, (parent->child_count + 1) * sizeof *children);
    if (children != NULL)
        parent->children = children;
    struct procfs_pidns **all = realloc(tree->all, (tree->count + 1) * sizeof *all);
    if (all != NULL)
        tree->all = all;
    if (child == NULL || children == NULL || all == NULL) {
        free(child);
        return NULL;
    }
    child->inode = inode;
    child->level = parent->level + 1;
    child->parent = parent;
    parent->children[parent->child_count++] = child;
    tree->all[tree->count++] = child;
    return child;
}

/* Members are kept sorted by PID, so every listing is in a stable order. */
static int add_member(struct procfs_pidns *node, const struct procfs_status *status)
{
    struct procfs_process *members =
        realloc(node->members, (node->member_count + 1) * sizeof *members);
    if (members == NULL)
        return -1;
    node->members = members;
    size_t at = node->member_count;
    while (at > 0 && members[at - 1].pid > status->pid)
        at--;
    memmove(&members[at + 1], &members[at], (node->member_count - at) * sizeof *members);
    members[at].pid = status->pid;
    members[at].status = *status;
    node->member_count++;
    return 0;
}

int procfs_tree_add(struct procfs_tree *tree, const struct procfs_status *status,
                    const unsigned long long *ns_chain, size_t chain_len)
{
    struct procfs_pidns *node;
    long first_new;
    if (tree->root == NULL) {
        errno = ENOMEM;
        return -1;
    }
    /* Without NSpid (before 4.1) the count is 1 whatever the depth. */
    if (check_chain(tree, ns_chain, chain_len, &node, &first_new) == -1 ||
        (status->nspid_count != 1 && (size_t)status->nspid_count != chain_len) ||
        procfs_tree_find_process(tree, status->pid, NULL) != NULL) {
        errno = EINVAL;
        return -1;
    }
    for (long i = first_new; i >= 0; i--) {
        node = new_child(tree, node, ns_chain[i]);
        if (node == NULL) {
            errno = ENOMEM;
            return -1;
        }
    }
    if (add_member(node, status) == -1) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int procfs_entered_from_outside(const struct procfs_process *process, void *context)
{
    (void)context;
    return process->status.ppid == 0 && process->pid != 1 && process->status.nspid_count == 1;
}

size_t procfs_tree_remove(struct procfs_tree *tree,
                          int (*drop)(const struct procfs_process *process, void *context),
                          void *context)
{
    size_t removed = 0;
    for (size_t i = 0; i < tree->count; i++) {
        struct procfs_pidns *ns = tree->all[i];
        size_t kept = 0;
        for (size_t j = 0; j < ns->member_count; j++) {
            if (drop(&ns->members[j], context))
                removed++;
            else
                ns->members[kept++] = ns->members[j];
        }
        ns->member_count = kept;
    }
    return removed;
}

void procfs_tree_free(struct procfs_tree *tree)
{
    for (size_t i = 0; i < tree->count; i++) {
        free(tree->all[i]->children);
        free(tree->all[i]->members);
        free(tree->all[i]);
    }
    free(tree->all);
    memset(tree, 0, sizeof *tree);
}

static int fd_inode(int fd, unsigned long long *inode)
{
    struct stat st;
    if (fstat(fd, &st) == -1)
        return -1;
    *inode = (unsigned long long)st.st_ino; /* an nsfs inode is the number in pid:[N] */
    return 0;
}

/* Fills chain[] from the namespace open on ns_fd upwards, until the root
 * inode (when known, else until NSpid's count of levels). Takes ns_fd. */
static int walk_up(int ns_fd, const struct procfs_status *status, unsigned long long root_inode,
                   unsigned long long *chain, size_t *len)
{
    size_t want = (size_t)status->nspid_count, n = 0;
    int rc = fd_inode(ns_fd, &chain[n++]);
    while (rc == 0 && chain[n - 1] != root_inode && (root_inode != 0 || n < want)) {
        int parent = n < PROCFS_MAX_LEVELS ? ioctl(ns_fd, NS_GET_PARENT) : -1;
        if (parent == -1 && n >= PROCFS_MAX_LEVELS)
            errno = EINVAL;
        if (parent == -1 && errno == EPERM && root_inode != 0 && want == n + 1) {
            chain[n++] = root_inode; /* the caller's top: the root is just above */
            break;
        }
        if (parent == -1) {
            rc = -1;
            break;
        }
        close(ns_fd);
        ns_fd = parent;
        rc = fd_inode(ns_fd, &chain[n++]);
    }
    int saved = errno;
    close(ns_fd);
    errno = saved;
    *len = n;
    return rc;
}

/* One process: its status and namespace chain, both through one directory
 * fd. Returns 0, 1 when it is to be left out (gone, or not ours to see), -1. */
static int read_one(const char *proc_root, pid_t pid, unsigned long long root_inode,
                    struct procfs_status *status, unsigned long long *chain, size_t *len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%d", proc_root, (int)pid);
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int ns_fd = -1, rc = -1;
    if (dirfd != -1 && procfs_read_status_at(dirfd, status) == 0 &&
        (ns_fd = openat(dirfd, "ns/pid", O_RDONLY | O_CLOEXEC)) != -1)
        rc = walk_up(ns_fd, status, root_inode, chain, len);
    else if (errno == ENOENT || errno == ESRCH || errno == EACCES || errno == EPERM)
        rc = 1;
    int saved = errno;
    if (dirfd != -1)
        close(dirfd);
    errno = saved;
    return rc;
}

/* The proc root's own namespace: the top of the first chain that can be
 * walked completely (normally PID 1's, whose NSpid has one entry). 0 when no
 * process can be read (an empty proc root). */
static int find_root_inode(const char *proc_root, const pid_t *pids, size_t count,
                           unsigned long long *root_inode)
{
    struct procfs_status status;
    unsigned long long chain[PROCFS_MAX_LEVELS];
    size_t len;
    *root_inode = 0;
    for (size_t i = 0; i < count; i++) {
        int rc = read_one(proc_root, pids[i], 0, &status, chain, &len);
        if (rc == 0) {
            *root_inode = chain[len - 1];
            return 0;
        }
        if (rc == -1 && errno != EPERM)
            return -1;
    }
    return 0;
}

int procfs_read_tree(const char *proc_root, struct procfs_tree *tree)
{
    pid_t *pids;
    size_t count;
    unsigned long long root_inode, chain[PROCFS_MAX_LEVELS];
    memset(tree, 0, sizeof *tree);
    if (procfs_list_pids(proc_root, &pids, &count) == -1)
        return -1;
    int rc = find_root_inode(proc_root, pids, count, &root_inode);
    if (rc == 0) {
        procfs_tree_init(tree, root_inode);
        rc = tree->root == NULL ? -1 : 0;
        if (rc == -1)
            errno = ENOMEM;
    }
    for (size_t i = 0; rc == 0 && i < count; i++) {
        struct procfs_status status;
        size_t len;
        int one = read_one(proc_root, pids[i], root_inode, &status, chain, &len);
        if (one == 0)
            rc = procfs_tree_add(tree, &status, chain, len);
        else if (one == -1)
            rc = -1;
    }
    int saved = errno;
    free(pids);
    if (rc == -1) {
        procfs_tree_free(tree);
        errno = saved;
    }
    return rc;
}

int procfs_read_pidns_ancestry(const char *proc_root, pid_t pid, unsigned long long *chain,
                               size_t max, size_t *len)
{
    char path[PATH_MAX];
    *len = 0;
    if (snprintf(path, sizeof path, "%s/%d/ns/pid", proc_root, (int)pid) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
    while (fd != -1 && rc == 0) {
        if (*len == max) {
            errno = ENOSPC;
            rc = -1;
        } else if ((rc = fd_inode(fd, &chain[*len])) == 0) {
            ++*len;
            int parent = ioctl(fd, NS_GET_PARENT);
            if (parent == -1 && errno == EPERM)
                break; /* the caller's top: its own namespace, or beyond its sight */
            rc = parent == -1 ? -1 : 0;
            close(fd);
            fd = parent;
        }
    }
    int saved = errno;
    if (fd != -1)
        close(fd);
    errno = saved;
    return fd == -1 && *len == 0 ? -1 : rc;
}
