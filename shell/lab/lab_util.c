/* SPDX-License-Identifier: MIT */
/* lab_util.c: the small helpers every part of the lab uses (the error
 * message, fresh signals for a child, the lab's /proc, finding and reaping
 * the shell's children in the lab). A leaf: it calls no other lab file.
 */
#include "lab/lab_internal.h"
#include "procfs/procfs.h"
#include "util/io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int lab_set_error(struct lab *lab, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(lab->error, sizeof lab->error, fmt, ap);
    va_end(ap);
    errno = saved;
    return -1;
}

/* Default dispositions and an empty mask: what a freshly exec'd command
 * expects, whatever the shell had set (ignored SIGINT, blocked SIGCHLD). */
void lab_reset_signals(void)
{
    sigset_t none;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

void lab_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The status of process `name` of the proc root open at proc_fd. */
int lab_read_status(int proc_fd, const char *name, struct procfs_status *st)
{
    int dirfd = openat(proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1)
        return -1;
    int rc = procfs_read_status_at(dirfd, st); /* with the program's full name */
    close(dirfd);
    return rc;
}

/* Is process `name` (of the host's /proc, open at proc_fd) in the PID
 * namespace whose inode is ns_ino? */
int lab_in_pid_namespace(int proc_fd, const char *name, ino_t ns_ino)
{
    char path[NAME_MAX + sizeof "/ns/pid"];
    struct stat st;
    snprintf(path, sizeof path, "%s/ns/pid", name);
    return fstatat(proc_fd, path, &st, 0) == 0 && st.st_ino == ns_ino;
}

static pid_t last_nspid(const struct procfs_status *st)
{
    return st->nspid[st->nspid_count - 1];
}

struct host_pid_search {
    pid_t parent, lab_pid, found;
};

static int match_host_pid(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct host_pid_search *s = arg;
    struct procfs_status st;
    if (lab_read_status(proc_fd, name, &st) == 0 && st.ppid == s->parent &&
        last_nspid(&st) == s->lab_pid)
        s->found = pid;
    return s->found != 0;
}

pid_t lab_host_pid_of(pid_t parent, pid_t lab_pid)
{
    struct host_pid_search s = {parent, lab_pid, 0};
    procfs_walk_pids(AT_FDCWD, "/proc", match_host_pid, &s);
    return s.found;
}

static int reap_if_dead_child(int proc_fd, pid_t pid, const char *name, void *arg)
{
    const ino_t *lab_ns = arg;
    struct procfs_status st;
    if (lab_in_pid_namespace(proc_fd, name, *lab_ns) && lab_read_status(proc_fd, name, &st) == 0 &&
        st.ppid == getpid() && st.state == 'Z')
        waitpid(pid, NULL, WNOHANG);
    return 0;
}

/* Reaps our children that died in the lab (say, a pager or an output relay
 * the shell forked): the keeper's exit waits until every process of its
 * namespace is reaped, and those have no one else to reap them. */
void lab_reap_dead_children(const struct lab *lab)
{
    struct stat lab_ns;
    if (fstat(lab->lab_pidns_fd, &lab_ns) == 0)
        procfs_walk_pids(AT_FDCWD, "/proc", reap_if_dead_child, &lab_ns.st_ino);
}

static int other_than_keeper(int proc_fd, pid_t pid, const char *name, void *arg)
{
    const struct lab_spared *spared = arg;
    (void)proc_fd;
    (void)name;
    return pid != 1 && !lab_is_spared(spared, pid);
}

int lab_runs_keeper_alone(const struct lab *lab, const struct lab_spared *spared)
{
    return procfs_walk_pids(lab->lab_proc_fd, ".", other_than_keeper, (void *)spared) == 0;
}

int lab_is_spared(const struct lab_spared *spared, pid_t lab_pid)
{
    for (size_t i = 0; spared != NULL && i < spared->count; i++)
        if (spared->lab_pid[i] == lab_pid)
            return 1;
    return 0;
}

long lab_read_number(const char *path, long missing, long unlimited)
{
    char buf[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return missing;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return missing;
    buf[n] = '\0';
    if (strncmp(buf, "max", 3) == 0)
        return unlimited;
    if (buf[0] != '-' && !isdigit((unsigned char)buf[0]))
        return missing;
    return strtol(buf, NULL, 10);
}
