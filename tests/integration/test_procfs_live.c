/* test_procfs_live.c: the procfs readers against the real kernel.
 *
 * In a sandbox child (private mount namespace, tl_in_sandbox), the test
 * builds a chain of nested PID namespaces with clone(CLONE_NEWPID): level 1
 * is the init of a new namespace and mounts its procfs at /proc1 (inside the
 * sandbox), and clones level 2 into another new namespace, and so on. Every
 * level reports over a datagram socket (the kernel attaches its PID, as the
 * test's namespace sees it, to each message) and then waits on a pipe. The
 * test then compares what procfs reads (NSpid, the namespace tree, the ns
 * links) with what it created. Closing the pipe ends every level; killing
 * level 1 (an init) ends them all if anything went wrong. Nothing outlives
 * the sandbox child: the test checks that no process is left in any
 * namespace it made and that the host's mounts and / are unchanged.
 */
#include "testlib.h"
#include "procfs.h"
#include "sandbox.h"

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

#define DEPTH 4 /* nested namespaces below the test's own */
#define STACK_SIZE (256 * 1024)

/* What a level tells the test, plus its PID in the test's namespace. */
struct report {
    int level;
    pid_t own_pid;   /* getpid(): 1, each level is its namespace's init */
    pid_t child_pid; /* what clone() returned for the next level, 0 at the end */
    int error;       /* errno of a failed mount or clone, else 0 */
};

/* Shared with the test process (MAP_SHARED): filled in by the sandbox child. */
struct chain {
    pid_t host_pid[DEPTH + 1]; /* [m]: level m's PID in the test's namespace */
    struct report report[DEPTH + 1];
    unsigned long long inode[DEPTH + 1]; /* [m]: level m's own namespace */
    int hold_w;                          /* closing it ends every level */
    int report_r;
};

struct level_arg {
    int level, hold_r, hold_w, report_w, report_r;
};

static pid_t clone_level(struct level_arg *arg);

/* One level: the init of its own PID namespace. */
static int level_main(void *p)
{
    struct level_arg a = *(struct level_arg *)p;
    struct report r = {.level = a.level};
    char c;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(a.hold_w); /* else the pipe never reaches EOF */
    close(a.report_r);
    if (a.level == 1 && mount("proc", "/proc1", "proc", 0, NULL) == -1)
        r.error = errno;
    if (r.error == 0 && a.level < DEPTH) {
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
static int receive_report(int fd, struct chain *c)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    struct report r;
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
    if (cm == NULL || cm->cmsg_type != SCM_CREDENTIALS || r.level < 1 || r.level > DEPTH) {
        fprintf(stderr, "a report without credentials\n");
        return -1;
    }
    struct ucred cred;
    memcpy(&cred, CMSG_DATA(cm), sizeof cred);
    c->host_pid[r.level] = cred.pid;
    c->report[r.level] = r;
    return r.error == 0 ? 0 : (fprintf(stderr, "level %d: %s\n", r.level, strerror(r.error)), -1);
}

static unsigned long long ns_inode_of(pid_t pid)
{
    char link[64], type[16];
    unsigned long long inode = 0;
    if (procfs_read_ns_link("/proc", pid, "pid", link, sizeof link) == 0)
        procfs_parse_ns_link(link, type, sizeof type, &inode);
    return inode;
}

/* Builds the chain; on failure whatever started is stopped again. */
static int chain_start(struct chain *c)
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
    for (int i = 0; i < DEPTH; i++)
        if (receive_report(c->report_r, c) == -1)
            return -1;
    if (c->host_pid[1] != pid) {
        fprintf(stderr, "level 1 reported PID %d, clone() said %d\n", (int)c->host_pid[1],
                (int)pid);
        return -1;
    }
    for (int m = 1; m <= DEPTH; m++) {
        c->inode[m] = ns_inode_of(c->host_pid[m]);
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
static void chain_stop(struct chain *c)
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

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Runs check(c) on a freshly built chain in the sandbox child. */
struct live_case {
    int (*check)(struct chain *c);
    struct chain *shared;
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
static int leftover_processes(const struct chain *c)
{
    int left = 0;
    for (int m = 1; m <= DEPTH; m++)
        if (c->host_pid[m] > 0 && c->inode[m] != 0 && ns_inode_of(c->host_pid[m]) == c->inode[m])
            left++;
    return left;
}

/* The unprivileged route, as the lab takes it for an ordinary user: become
 * nobody, then enter the sandbox (it adds a user namespace), then run. */
static int in_sandbox_as_nobody(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char err[512];
        if (setgroups(0, NULL) == -1 || setgid(65534) == -1 || setuid(65534) == -1)
            _exit(90);
        prctl(PR_SET_DUMPABLE, 1); /* as an exec would: /proc/self stays ours */
        if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
            fprintf(stderr, "sandbox_enter as nobody: %s\n", err);
            _exit(91);
        }
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    int status = -1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return status;
}

static void run_live_as(int (*check)(struct chain *c), int as_nobody)
{
    struct tl_host_snapshot before, after;
    struct chain *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    struct live_case lc = {check, shared};
    tl_host_snapshot(&before);
    int status = as_nobody ? in_sandbox_as_nobody(run_case, &lc) : tl_in_sandbox(run_case, &lc);
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

static void run_live(int (*check)(struct chain *c))
{
    run_live_as(check, 0);
}

/* NSpid from the test's /proc: [PID here, m, m-1, ..., 1] for level m, since
 * each namespace numbers its processes from 1 in the order they were made
 * (as in the article's /proc4/5 ... /proc0/1); from /proc1: [m, ..., 1]. */
static int check_nspid(struct chain *c)
{
    for (int m = 1; m <= DEPTH; m++) {
        struct procfs_status st;
        CHECK(c->report[m].own_pid == 1, "level %d is PID %d to itself", m,
              (int)c->report[m].own_pid);
        CHECK(c->report[m].child_pid == (m < DEPTH ? 2 : 0), "level %d", m);
        CHECK(procfs_read_status("/proc", c->host_pid[m], &st) == 0, "%s", strerror(errno));
        CHECK(st.pid == c->host_pid[m], "level %d", m);
        CHECK(st.ppid == (m == 1 ? getpid() : c->host_pid[m - 1]), "level %d", m);
        CHECK(st.state == 'S', "level %d state %c", m, st.state);
        CHECK(st.nspid_count == m + 1, "level %d has %d PIDs", m, st.nspid_count);
        CHECK(st.nspid[0] == c->host_pid[m], "level %d", m);
        for (int i = 1; i <= m; i++)
            CHECK(st.nspid[i] == m - i + 1, "level %d NSpid[%d] = %d", m, i, (int)st.nspid[i]);
        CHECK(procfs_read_status("/proc1", m, &st) == 0, "%s", strerror(errno));
        CHECK(st.pid == m && st.ppid == m - 1, "level %d in /proc1: pid %d ppid %d", m, (int)st.pid,
              (int)st.ppid);
        CHECK(st.nspid_count == m, "level %d in /proc1 has %d PIDs", m, st.nspid_count);
        CHECK(st.nspid[m - 1] == 1, "level %d", m);
    }
    return 0;
}

static void test_nspid_of_nested_processes_matches_what_was_created(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_nspid);
}

/* The tree from /proc1 (level 1's namespace is its root): one namespace a
 * level, one process each, PIDs 1..DEPTH, parents linked, inodes those of
 * the processes' ns/pid links; and the exact `tree` and `ps` text. */
static int check_tree_from_proc1(struct chain *c, const struct procfs_tree *t)
{
    CHECK(t->count == DEPTH, "%zu namespaces", t->count);
    const struct procfs_pidns *ns = t->root, *parent = NULL;
    for (int m = 1; m <= DEPTH; m++) {
        CHECK(ns != NULL && t->all[m - 1] == ns, "level %d", m);
        CHECK(ns->level == m - 1 && ns->parent == parent, "level %d", m);
        CHECK(ns->inode == c->inode[m], "level %d: %llu, ns link says %llu", m, ns->inode,
              c->inode[m]);
        CHECK(ns->member_count == 1 && ns->members[0].pid == m, "level %d: %zu members", m,
              ns->member_count);
        CHECK(ns->child_count == (m < DEPTH ? 1u : 0u), "level %d", m);
        parent = ns;
        ns = m < DEPTH ? ns->children[0] : NULL;
    }
    return 0;
}

/* What procfs_format_tree and _ps must print for the chain, built here from
 * the chain's own numbers. */
static void expected_formats(const struct chain *c, const char *name, char **tree, char **ps)
{
    size_t tsize, psize;
    FILE *t = open_memstream(tree, &tsize), *p = open_memstream(ps, &psize);
    char link[40], nspid[64];
    fprintf(p, "    PID    PPID S LEVEL PIDNS              NSPID          NAME\n");
    for (int m = 1; m <= DEPTH; m++) {
        int len = 0;
        for (int i = m; i >= 1; i--)
            len += snprintf(nspid + len, sizeof nspid - (size_t)len, "%s%d", i == m ? "" : " ", i);
        snprintf(link, sizeof link, "pid:[%llu]", c->inode[m]);
        fprintf(p, "%7d %7d S %5d %-18s %-14s %s\n", m, m - 1, m - 1, link, nspid, name);
        /* level m's namespace hangs last under level m-1's, indented 4 a level */
        if (m > 1)
            fprintf(t, "%*s`-- ", 4 * (m - 2), "");
        fprintf(t, "%s level %d, 1 process\n", link, m - 1);
        fprintf(t, "%*s%s1 %s", 4 * (m - 1), "", m < DEPTH ? "|-- " : "`-- ", name);
        if (m > 1)
            fprintf(t, " (NSpid: %s)", nspid);
        fputc('\n', t);
    }
    fclose(t);
    fclose(p);
}

static int check_tree(struct chain *c)
{
    struct procfs_tree t, host;
    struct procfs_status st;
    CHECK(procfs_read_tree("/proc1", &t) == 0, "read_tree /proc1: %s", strerror(errno));
    int rc = check_tree_from_proc1(c, &t);
    CHECK(procfs_read_status("/proc1", 1, &st) == 0, "%s", strerror(errno));
    char *want_tree, *want_ps, *tree = procfs_format_tree(&t), *ps = procfs_format_ps(&t);
    expected_formats(c, st.name, &want_tree, &want_ps);
    if (rc == 0 && (strcmp(tree, want_tree) != 0 || strcmp(ps, want_ps) != 0)) {
        fprintf(stderr, "tree:\n%s\nwanted:\n%s\nps:\n%s\nwanted:\n%s\n", tree, want_tree, ps,
                want_ps);
        rc = 1;
    }
    free(tree), free(want_tree), free(ps), free(want_ps);
    procfs_tree_free(&t);
    CHECK(rc == 0, "the tree from /proc1");
    /* The whole of /proc: the chain hangs below the test's own namespace. */
    CHECK(procfs_read_tree("/proc", &host) == 0, "read_tree /proc: %s", strerror(errno));
    CHECK(host.root->inode == ns_inode_of(getpid()), "root of /proc is not our namespace");
    for (int m = 1; m <= DEPTH && rc == 0; m++) {
        const struct procfs_pidns *ns;
        if (procfs_tree_find_process(&host, c->host_pid[m], &ns) == NULL || ns->level != m ||
            ns->inode != c->inode[m] ||
            ns->parent->inode != (m == 1 ? host.root->inode : c->inode[m - 1]))
            rc = 1, fprintf(stderr, "level %d misplaced in the tree of /proc\n", m);
    }
    procfs_tree_free(&host);
    return rc;
}

static void test_tree_of_nested_namespaces_has_the_created_shape(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_tree);
}

static const char *link_named(const struct procfs_ns_entry *e, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0 && e[i].error == 0)
            return e[i].link;
    return "";
}

/* The deepest process's ns links, as `ns PID` shows them: pid is the tree's
 * namespace for it; mnt and user are the test's (clone made only a PID
 * namespace); pid_for_children is its own pid namespace (no unshare). */
static int check_ns_links(struct chain *c)
{
    struct procfs_tree t;
    struct procfs_ns_entry mine[32], deep[32];
    size_t n_mine, n_deep;
    char want[64];
    const struct procfs_pidns *ns;
    CHECK(procfs_read_tree("/proc1", &t) == 0, "%s", strerror(errno));
    const struct procfs_process *p = procfs_tree_find_process(&t, DEPTH, &ns);
    unsigned long long tree_inode = p != NULL ? ns->inode : 0;
    procfs_tree_free(&t);
    CHECK(tree_inode != 0, "PID %d not in the tree of /proc1", DEPTH);
    CHECK(tree_inode == c->inode[DEPTH], "tree %llu, /proc link %llu", tree_inode, c->inode[DEPTH]);
    CHECK(procfs_read_ns_links("/proc1", DEPTH, deep, 32, &n_deep) == 0, "%s", strerror(errno));
    CHECK(procfs_read_ns_links("/proc", getpid(), mine, 32, &n_mine) == 0, "%s", strerror(errno));
    snprintf(want, sizeof want, "pid:[%llu]", tree_inode);
    CHECK(strcmp(link_named(deep, n_deep, "pid"), want) == 0, "pid link %s, tree says %s",
          link_named(deep, n_deep, "pid"), want);
    CHECK(strcmp(link_named(deep, n_deep, "pid_for_children"), want) == 0, "pid_for_children");
    CHECK(strcmp(link_named(deep, n_deep, "mnt"), link_named(mine, n_mine, "mnt")) == 0, "mnt");
    CHECK(strcmp(link_named(deep, n_deep, "user"), link_named(mine, n_mine, "user")) == 0, "user");
    CHECK(strcmp(link_named(deep, n_deep, "pid"), link_named(mine, n_mine, "pid")) != 0,
          "pid same");
    char *text = procfs_format_ns_links(deep, n_deep);
    char line[96];
    snprintf(line, sizeof line, "\npid                %s\n", want);
    int found = text != NULL && strstr(text, line) != NULL;
    free(text);
    CHECK(found, "no line \"%s\" in the `ns` text", line + 1);
    return 0;
}

static void test_ns_link_of_nested_process_matches_tree_inode(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_ns_links);
}

/* Runs fn in a grandchild that lives in level k's PID namespace (setns
 * applies to the children of the caller only, hence two forks). The
 * grandchild writes fn's result to *result through a pipe. Returns the pid of
 * the middle process (to kill and reap), or -1. */
struct probe_result {
    int rc, error;
    size_t count;
    unsigned long long root_inode, deepest_inode;
    int deepest_level;
    pid_t pid_in_ns; /* the grandchild's PID as level k's namespace sees it */
};

static pid_t spawn_in_level(const struct chain *c, int k, void (*fn)(struct probe_result *),
                            int result_fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)c->host_pid[k]);
    fflush(NULL);
    pid_t middle = fork();
    if (middle != 0)
        return middle;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 || setns(fd, CLONE_NEWPID) == -1)
        _exit(2);
    pid_t inner = fork();
    if (inner == 0) {
        struct probe_result r = {0};
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        r.pid_in_ns = getpid();
        fn(&r);
        _exit(write(result_fd, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 3);
    }
    int status = 0;
    if (inner == -1 || waitpid(inner, &status, 0) != inner)
        _exit(4);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
}

static void probe_read_tree(struct probe_result *r)
{
    struct procfs_tree t;
    r->rc = procfs_read_tree("/proc1", &t);
    r->error = errno;
    if (r->rc == 0) {
        const struct procfs_pidns *deepest = t.all[t.count - 1];
        r->count = t.count;
        r->root_inode = t.root->inode;
        r->deepest_inode = deepest->inode;
        r->deepest_level = deepest->level;
    }
    procfs_tree_free(&t);
}

static int probe_from_level(const struct chain *c, int k, struct probe_result *r)
{
    int fds[2], status;
    if (pipe2(fds, O_CLOEXEC) == -1)
        return -1;
    pid_t middle = spawn_in_level(c, k, probe_read_tree, fds[1]);
    close(fds[1]);
    ssize_t n = middle == -1 ? -1 : read(fds[0], r, sizeof *r);
    close(fds[0]);
    if (middle != -1)
        waitpid(middle, &status, 0);
    return n == (ssize_t)sizeof *r ? 0 : -1;
}

/* A caller one level below the proc root: NS_GET_PARENT stops with EPERM at
 * the caller's namespace; NSpid says the root is right above; whole tree. */
static int check_read_tree_one_level_below(struct chain *c)
{
    struct probe_result r;
    CHECK(probe_from_level(c, 2, &r) == 0, "the probe in level 2 did not report");
    CHECK(r.rc == 0, "read_tree from level 2: %s", strerror(r.error));
    CHECK(r.count == DEPTH && r.root_inode == c->inode[1], "%zu namespaces", r.count);
    CHECK(r.deepest_inode == c->inode[DEPTH] && r.deepest_level == DEPTH - 1, "deepest %llu",
          r.deepest_inode);
    return 0;
}

/* Two levels below: level 3's parent (level 2's namespace) is out of the
 * caller's sight, so the chain cannot be known: EPERM. */
static int check_read_tree_two_levels_below(struct chain *c)
{
    struct probe_result r;
    CHECK(probe_from_level(c, 3, &r) == 0, "the probe in level 3 did not report");
    CHECK(r.rc == -1 && r.error == EPERM, "rc %d: %s", r.rc, strerror(r.error));
    return 0;
}

static void test_read_tree_one_level_below_the_proc_root_fills_in_the_root(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_read_tree_one_level_below);
}

static void test_read_tree_two_levels_below_the_proc_root_fails_with_eperm(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_read_tree_two_levels_below);
}

/* In level 1's namespace: forks and reaps short-lived children until killed,
 * after leaving one child unreaped (a zombie) whose PID it reports first. */
static int churn_fd = -1;
static void churn(struct probe_result *r)
{
    pid_t zombie = fork();
    if (zombie == 0)
        _exit(0);
    r->pid_in_ns = zombie;
    if (write(churn_fd, r, sizeof *r) != (ssize_t)sizeof *r)
        _exit(6);
    for (;;) {
        pid_t child = fork();
        if (child == 0)
            _exit(0);
        if (child > 0)
            waitpid(child, NULL, 0);
    }
}

/* Reads the tree of /proc1 many times while processes come and go in it:
 * every read succeeds and has the chain; the zombie is in it, state Z. */
static int check_vanishing_processes_and_zombie(struct chain *c)
{
    int fds[2], rc = 0, saw_churn = 0;
    struct probe_result r;
    CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe");
    churn_fd = fds[1];
    pid_t middle = spawn_in_level(c, 1, churn, fds[1]);
    close(fds[1]);
    int got = middle != -1 && read(fds[0], &r, sizeof r) == (ssize_t)sizeof r;
    close(fds[0]);
    struct procfs_status st;
    for (int tries = 0; got && tries < 200; tries++) { /* the zombie is one once it exited */
        if (procfs_read_status("/proc1", r.pid_in_ns, &st) == 0 && st.state == 'Z')
            break;
        usleep(5000);
    }
    for (int i = 0; got && rc == 0 && i < 300; i++) {
        struct procfs_tree t;
        const struct procfs_pidns *ns;
        if (procfs_read_tree("/proc1", &t) == -1) {
            fprintf(stderr, "read %d of /proc1 failed: %s\n", i, strerror(errno));
            rc = 1;
            break;
        }
        const struct procfs_process *z = procfs_tree_find_process(&t, r.pid_in_ns, &ns);
        if (t.count != DEPTH || z == NULL || z->status.state != 'Z' || ns != t.root)
            rc = 1, fprintf(stderr, "read %d: %zu namespaces, zombie %s\n", i, t.count,
                            z == NULL ? "missing" : "misread");
        saw_churn |= t.root->member_count > 2; /* level 1, the zombie, a churning child */
        procfs_tree_free(&t);
    }
    if (middle > 0) {
        kill(middle, SIGKILL); /* its child dies with it (PR_SET_PDEATHSIG) */
        waitpid(middle, NULL, 0);
    }
    CHECK(got, "the churning process did not start");
    CHECK(rc == 0, "a read of the tree failed while processes came and went");
    CHECK(saw_churn, "no short-lived process was ever seen: the race was not exercised");
    return 0;
}

static void test_read_tree_skips_processes_that_vanish(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_vanishing_processes_and_zombie);
}

/* util-linux lsns, which walks the same kernel data its own way, agrees with
 * the tree of /proc on the chain: each namespace has one process (lsns's
 * NPROCS), the level's PID, and the parent namespace (PNS, NS_GET_PARENT). */
static int check_against_lsns(struct chain *c)
{
    char *out = NULL;
    struct procfs_tree t;
    if (tl_sh("lsns -t pid -n -r -o NS,NPROCS,PID,PNS", &out) != 0) {
        fprintf(stderr,
                "lsns -t pid -o ...,PNS did not run (util-linux 2.38 or later needed): "
                "%s\n",
                out != NULL ? out : "");
        free(out);
        return 77;
    }
    CHECK(procfs_read_tree("/proc", &t) == 0, "%s", strerror(errno));
    int rc = 0;
    for (int m = 1; m <= DEPTH && rc == 0; m++) {
        const struct procfs_pidns *ns = procfs_tree_find_ns(&t, c->inode[m]);
        char want[128];
        snprintf(want, sizeof want, "\n%llu 1 %d %llu\n", c->inode[m], (int)c->host_pid[m],
                 ns != NULL ? ns->parent->inode : 0ULL);
        int in_lsns = strstr(out, want + 1) == out || strstr(out, want) != NULL;
        if (ns == NULL || ns->member_count != 1 || !in_lsns)
            rc = 1, fprintf(stderr, "level %d: lsns has no line \"%.*s\"\n%s", m,
                            (int)strlen(want) - 2, want + 1, out);
    }
    procfs_tree_free(&t);
    free(out);
    return rc;
}

static void test_tree_agrees_with_lsns(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    run_live(check_against_lsns);
}

/* An ordinary user (nobody, in the sandbox's user namespace) reads the
 * same: host processes it may not inspect are left out, its own are all
 * there with the right NSpid, tree and ns links. */
static int check_all_as_nobody(struct chain *c)
{
    if (check_nspid(c) != 0 || check_tree(c) != 0)
        return 1;
    return check_ns_links(c);
}

static void test_nspid_tree_and_links_as_an_ordinary_user(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    run_live_as(check_all_as_nobody, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nspid_of_nested_processes_matches_what_was_created),
        cmocka_unit_test(test_tree_of_nested_namespaces_has_the_created_shape),
        cmocka_unit_test(test_ns_link_of_nested_process_matches_tree_inode),
        cmocka_unit_test(test_read_tree_one_level_below_the_proc_root_fills_in_the_root),
        cmocka_unit_test(test_read_tree_two_levels_below_the_proc_root_fails_with_eperm),
        cmocka_unit_test(test_read_tree_skips_processes_that_vanish),
        cmocka_unit_test(test_tree_agrees_with_lsns),
        cmocka_unit_test(test_nspid_tree_and_links_as_an_ordinary_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
