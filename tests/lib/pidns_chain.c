/* SPDX-License-Identifier: MIT */
/* pidns_chain.c: nested PID namespaces with known PIDs, for the live tests.
 * See pidns_chain.h. Nothing outlives a run: closing the pipe ends every
 * level, killing level 1 (an init) ends them all if anything went wrong, and
 * every level has PR_SET_PDEATHSIG(SIGKILL). */
#include "testlib.h"
#include "pidns_chain.h"
#include "procfs/procfs.h"
#include "lab/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (256 * 1024)

struct level_arg {
    int level, hold_r, hold_w, report_w, report_r;
};

static pid_t clone_level(struct level_arg *arg);

/* One level: the init of its own PID namespace. */
static int level_main(void *p)
{
    struct level_arg a = *(struct level_arg *)p;
    struct pidns_chain_report r = {.level = a.level};
    char c;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(a.hold_w); /* else the pipe never reaches EOF */
    close(a.report_r);
    if (a.level == 1 && mount("proc", "/proc1", "proc", 0, NULL) == -1)
        r.error = errno;
    if (r.error == 0 && a.level < PIDNS_CHAIN_DEPTH) {
        struct level_arg next = a;
        next.level++;
        r.child_pid = clone_level(&next);
        if (r.child_pid == -1)
            r.error = errno;
    }
    r.own_pid = getpid();
    send(a.report_w, &r, sizeof r, 0);
    while (read(a.hold_r, &c, 1) == -1 && errno == EINTR)
        ;
    if (r.child_pid > 0)
        waitpid(r.child_pid, NULL, 0);
    return 0;
}

static pid_t clone_level(struct level_arg *arg)
{
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    pid_t pid = clone(level_main, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, arg);
    int saved = errno;
    munmap(stack, STACK_SIZE); /* the child has its own copy */
    errno = saved;
    return pid;
}

/* Receives one report and, from the kernel, the sender's PID as we see it. */
static int receive_report(int fd, struct pidns_chain *c)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    struct pidns_chain_report r;
    struct iovec iov = {.iov_base = &r, .iov_len = sizeof r};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    if (poll(&pfd, 1, 10000) != 1 || recvmsg(fd, &msg, 0) != (ssize_t)sizeof r) {
        fprintf(stderr, "no report from a level within 10 s\n");
        return -1;
    }
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (cm == NULL || cm->cmsg_type != SCM_CREDENTIALS || r.level < 1 ||
        r.level > PIDNS_CHAIN_DEPTH) {
        fprintf(stderr, "a report without credentials\n");
        return -1;
    }
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(cm), sizeof cred);
    c->host_pid[r.level] = cred.pid;
    c->report[r.level] = r;
    return r.error == 0 ? 0 : (fprintf(stderr, "level %d: %s\n", r.level, strerror(r.error)), -1);
}

unsigned long long pidns_chain_ns_inode(pid_t pid)
{
    char link[64], type[16];
    unsigned long long inode = 0;
    if (procfs_read_ns_link("/proc", pid, "pid", link, sizeof link) == 0)
        procfs_parse_ns_link(link, type, sizeof type, &inode);
    return inode;
}

/* Builds the chain; on failure whatever started is stopped again. */
static int chain_start(struct pidns_chain *c)
{
    int hold[2], report[2], one = 1;
    memset(c->host_pid, 0, sizeof c->host_pid);
    if (mkdir("/proc1", 0555) == -1 || pipe2(hold, O_CLOEXEC) == -1 ||
        socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, report) == -1 ||
        setsockopt(report[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == -1) {
        perror("chain_start: set up");
        return -1;
    }
    struct level_arg first = {1, hold[0], hold[1], report[1], report[0]};
    /* The fds are close-on-exec, but clone() keeps them: each level has them. */
    pid_t pid = clone_level(&first);
    close(hold[0]);
    close(report[1]);
    c->hold_w = hold[1];
    c->report_r = report[0];
    if (pid == -1) {
        perror("clone(CLONE_NEWPID)");
        return -1;
    }
    for (int i = 0; i < PIDNS_CHAIN_DEPTH; i++)
        if (receive_report(c->report_r, c) == -1)
            return -1;
    if (c->host_pid[1] != pid) {
        fprintf(stderr, "level 1 reported PID %d, clone() said %d\n", (int)c->host_pid[1],
                (int)pid);
        return -1;
    }
    for (int m = 1; m <= PIDNS_CHAIN_DEPTH; m++) {
        c->inode[m] = pidns_chain_ns_inode(c->host_pid[m]);
        /* A level that has just reported may still be running on its way to
         * read(): wait until it sleeps there, so states (ps's S) are stable. */
        struct procfs_status st;
        for (int tries = 0; tries < 400; tries++) {
            if (procfs_read_status("/proc", c->host_pid[m], &st) == 0 && st.state == 'S')
                break;
            usleep(5000);
        }
    }
    return 0;
}

/* Ends every level: EOF on the pipe, then SIGKILL to level 1 (the init of
 * the outermost namespace made, so the kernel kills all below it). */
static void chain_stop(struct pidns_chain *c)
{
    close(c->hold_w);
    close(c->report_r);
    if (c->host_pid[1] > 0) {
        for (int tries = 0; tries < 100; tries++) {
            if (waitpid(c->host_pid[1], NULL, WNOHANG) != 0)
                return;
            usleep(10000);
        }
        kill(c->host_pid[1], SIGKILL);
        waitpid(c->host_pid[1], NULL, 0);
    }
}

/* Runs check(c) on a freshly built chain in the sandbox child. */
struct live_case {
    int (*check)(struct pidns_chain *c);
    struct pidns_chain *shared;
};

static int run_case(void *p)
{
    struct live_case *lc = p;
    int rc = chain_start(lc->shared);
    if (rc == 0)
        rc = lc->check(lc->shared);
    chain_stop(lc->shared);
    umount("/proc1");
    return rc == 0 || rc == 77 ? rc : 1; /* 77: skipped, the reason printed */
}

/* Levels of the chain still alive. When level 1, the init of the outermost
 * namespace made, has gone, the kernel has ended everything in that
 * namespace and below (probes and zombies included): none of them can be
 * left. A PID counts only with its namespace's inode, as other tests on the
 * machine reuse both PIDs and freed namespace inodes. */
static int leftover_processes(const struct pidns_chain *c)
{
    int left = 0;
    for (int m = 1; m <= PIDNS_CHAIN_DEPTH; m++)
        if (c->host_pid[m] > 0 && c->inode[m] != 0 &&
            pidns_chain_ns_inode(c->host_pid[m]) == c->inode[m])
            left++;
    return left;
}

void pidns_chain_run(int (*check)(struct pidns_chain *c), int as_nobody)
{
    struct tl_host_snapshot before, after;
    struct pidns_chain *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    struct live_case lc = {check, shared};
    tl_host_snapshot(&before);
    /* As nobody: the unprivileged route, as the lab takes it for an ordinary
     * user (the sandbox adds a user namespace). */
    int status = tl_in_sandbox(run_case, &lc, as_nobody);
    int left = 0;
    for (int tries = 0; tries < 100 && (left = leftover_processes(shared)) != 0; tries++)
        usleep(20000); /* killed processes take a moment to be reaped */
    tl_host_snapshot(&after);
    int mounts_same = strcmp(after.mounts, before.mounts) == 0;
    int root_same = strcmp(after.root_list, before.root_list) == 0;
    tl_host_snapshot_free(&before);
    tl_host_snapshot_free(&after);
    munmap(shared, sizeof *shared);
    assert_true(WIFEXITED(status));
    assert_int_equal(left, 0);
    assert_true(mounts_same);
    assert_true(root_same);
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}
