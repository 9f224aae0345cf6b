/* SPDX-License-Identifier: MIT */
/* procfs_busy.c: are a process's descendants all asleep? The lab asks it
 * before it calls a background command settled (lab_runner.c): a program
 * that printed its last line may still be on its way to exec() (multi_pidns'
 * last child prints, then becomes `sleep`), and a loaded machine can take
 * longer than any fixed quiet time to get it there. A process that runs or
 * waits for the CPU is R, one in uninterruptible sleep D; one blocked in a
 * system call (a sleep, a wait, a read) is S, a stopped one T or t.
 * And have the signals sent in the lab arrived? A check that looks for a
 * stopped process right after `kill -STOP` must wait for the target to run
 * and stop (procfs_signals_undelivered).
 */
#include "procfs/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int is_busy(char state)
{
    return state == 'R' || state == 'D';
}

size_t procfs_busy_descendants(const struct procfs_status *procs, size_t count, pid_t ancestor)
{
    char *mine = calloc(count ? count : 1, 1);
    size_t busy = 0;
    int grew = 1;

    if (mine == NULL)
        return 1; /* cannot tell: say busy, the caller waits to its bound */
    /* Mark the children of ancestor, then theirs, until nothing is added:
     * parents may come after their children in PID order (a reused PID). */
    while (grew) {
        grew = 0;
        for (size_t i = 0; i < count; i++) {
            if (mine[i])
                continue;
            int parent_mine = procs[i].ppid == ancestor;
            for (size_t j = 0; j < count && !parent_mine; j++)
                parent_mine = mine[j] && procs[j].pid == procs[i].ppid;
            if (parent_mine) {
                mine[i] = 1;
                grew = 1;
                busy += is_busy(procs[i].state);
            }
        }
    }
    free(mine);
    return busy;
}

struct busy_walk {
    struct procfs_status *procs;
    size_t count, size;
};

static int collect(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct busy_walk *w = arg;
    (void)pid;
    if (w->count == w->size) {
        size_t size = w->size ? 2 * w->size : 64;
        struct procfs_status *more = realloc(w->procs, size * sizeof *more);
        if (more == NULL)
            return -1;
        w->procs = more;
        w->size = size;
    }
    int dirfd = openat(proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1)
        return 0; /* gone meanwhile */
    if (procfs_read_status_at(dirfd, &w->procs[w->count]) == 0)
        w->count++;
    close(dirfd);
    return 0;
}

size_t procfs_undelivered(const struct procfs_status *procs, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        char st = procs[i].state;
        if (st != 'T' && st != 't' && st != 'Z' && st != 'X' &&
            (procs[i].sig_pending & ~procs[i].sig_blocked) != 0)
            n++;
    }
    return n;
}

int procfs_signals_undelivered(const char *proc_root)
{
    struct busy_walk w = {NULL, 0, 0};
    int rc = procfs_walk_pids(AT_FDCWD, proc_root, collect, &w);
    int n = rc == 0 ? (int)procfs_undelivered(w.procs, w.count) : -1;
    free(w.procs);
    return n;
}

int procfs_descendants_busy(const char *proc_root, pid_t ancestor)
{
    struct busy_walk w = {NULL, 0, 0};
    int rc = procfs_walk_pids(AT_FDCWD, proc_root, collect, &w);
    int busy = rc == 0 ? procfs_busy_descendants(w.procs, w.count, ancestor) > 0 : -1;
    free(w.procs);
    return busy;
}
