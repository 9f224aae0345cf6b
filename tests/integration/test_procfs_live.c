/* SPDX-License-Identifier: MIT */
/* test_procfs_live.c: the procfs readers against the real kernel.
 *
 * Each test builds a chain of nested PID namespaces with clone(CLONE_NEWPID)
 * in a sandbox child (tests/lib/pidns_chain.h: level 1 mounts its procfs at
 * /proc1, every level reports its PIDs) and compares what procfs reads
 * (NSpid, the namespace tree and its text, the ns links, lsns) with what it
 * created; also what NS_GET_PARENT's EPERM means for a caller below the proc
 * root, processes vanishing mid-read, and the unprivileged route. Nothing
 * outlives a test: pidns_chain_run checks that no level is left and that the
 * host's /procN mounts and / are unchanged.
 */
#include "testlib.h"
#include "pidns_chain.h"
#include "procfs/procfs.h"
#include "render/render_procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEPTH PIDNS_CHAIN_DEPTH

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* NSpid from the test's /proc: [PID here, m, m-1, ..., 1] for level m, since
 * each namespace numbers its processes from 1 in the order they were made
 * (as in the article's /proc4/5 ... /proc0/1); from /proc1: [m, ..., 1]. */
static int check_nspid(struct pidns_chain *c)
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
    pidns_chain_run(check_nspid, 0);
}

/* The tree from /proc1 (level 1's namespace is its root): one namespace a
 * level, one process each, PIDs 1..DEPTH, parents linked, inodes those of
 * the processes' ns/pid links; and the exact `tree` and `ps` text. */
static int check_tree_from_proc1(struct pidns_chain *c, const struct procfs_tree *t)
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

/* What render_format_tree and _ps must print for the chain, built here from
 * the chain's own numbers. */
static void expected_formats(const struct pidns_chain *c, const char *name, char **tree, char **ps)
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

static int check_tree(struct pidns_chain *c)
{
    struct procfs_tree t, host;
    struct procfs_status st;
    CHECK(procfs_read_tree("/proc1", &t) == 0, "read_tree /proc1: %s", strerror(errno));
    int rc = check_tree_from_proc1(c, &t);
    CHECK(procfs_read_status("/proc1", 1, &st) == 0, "%s", strerror(errno));
    char *want_tree, *want_ps, *tree = render_format_tree(&t), *ps = render_format_ps(&t);
    expected_formats(c, st.name, &want_tree, &want_ps);
    if (rc == 0 && (strcmp(tree, want_tree) != 0 || strcmp(ps, want_ps) != 0)) {
        fprintf(stderr, "tree:\n%s\nwanted:\n%s\nps:\n%s\nwanted:\n%s\n", tree, want_tree, ps,
                want_ps);
        rc = 1;
    }
    free(tree);
    free(want_tree);
    free(ps);
    free(want_ps);
    procfs_tree_free(&t);
    CHECK(rc == 0, "the tree from /proc1");
    /* The whole of /proc: the chain hangs below the test's own namespace. */
    CHECK(procfs_read_tree("/proc", &host) == 0, "read_tree /proc: %s", strerror(errno));
    if (host.root->inode != pidns_chain_ns_inode(getpid())) {
        fprintf(stderr, "the root of /proc's tree is not our namespace\n");
        rc = 1;
    }
    for (int m = 1; m <= DEPTH && rc == 0; m++) {
        const struct procfs_pidns *ns;
        if (procfs_tree_find_process(&host, c->host_pid[m], &ns) == NULL || ns->level != m ||
            ns->inode != c->inode[m] ||
            ns->parent->inode != (m == 1 ? host.root->inode : c->inode[m - 1])) {
            fprintf(stderr, "level %d misplaced in the tree of /proc\n", m);
            rc = 1;
        }
    }
    procfs_tree_free(&host);
    return rc;
}

static void test_tree_of_nested_namespaces_has_the_created_shape(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    pidns_chain_run(check_tree, 0);
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
static int check_ns_links(struct pidns_chain *c)
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
    char *text = render_format_ns_links(deep, n_deep);
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
    pidns_chain_run(check_ns_links, 0);
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
    unsigned long long ancestry[PROCFS_MAX_LEVELS];
    size_t ancestry_len;
};

static pid_t spawn_in_level(const struct pidns_chain *c, int k, void (*fn)(struct probe_result *),
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

static int probe_from_level(const struct pidns_chain *c, int k, struct probe_result *r,
                            void (*fn)(struct probe_result *))
{
    int fds[2], status;
    if (pipe2(fds, O_CLOEXEC) == -1)
        return -1;
    pid_t middle = spawn_in_level(c, k, fn, fds[1]);
    close(fds[1]);
    ssize_t n = middle == -1 ? -1 : read(fds[0], r, sizeof *r);
    close(fds[0]);
    if (middle != -1)
        waitpid(middle, &status, 0);
    return n == (ssize_t)sizeof *r ? 0 : -1;
}

/* A caller one level below the proc root: NS_GET_PARENT stops with EPERM at
 * the caller's namespace; NSpid says the root is right above; whole tree. */
static int check_read_tree_one_level_below(struct pidns_chain *c)
{
    struct probe_result r;
    CHECK(probe_from_level(c, 2, &r, probe_read_tree) == 0, "the probe in level 2 did not report");
    CHECK(r.rc == 0, "read_tree from level 2: %s", strerror(r.error));
    CHECK(r.count == DEPTH && r.root_inode == c->inode[1], "%zu namespaces", r.count);
    CHECK(r.deepest_inode == c->inode[DEPTH] && r.deepest_level == DEPTH - 1, "deepest %llu",
          r.deepest_inode);
    return 0;
}

/* Two levels below: level 3's parent (level 2's namespace) is out of the
 * caller's sight, so the chain cannot be known: EPERM. */
static int check_read_tree_two_levels_below(struct pidns_chain *c)
{
    struct probe_result r;
    CHECK(probe_from_level(c, 3, &r, probe_read_tree) == 0, "the probe in level 3 did not report");
    CHECK(r.rc == -1 && r.error == EPERM, "rc %d: %s", r.rc, strerror(r.error));
    return 0;
}

static void test_read_tree_one_level_below_the_proc_root_fills_in_the_root(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    pidns_chain_run(check_read_tree_one_level_below, 0);
}

static void test_read_tree_two_levels_below_the_proc_root_fails_with_eperm(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    pidns_chain_run(check_read_tree_two_levels_below, 0);
}

/* The deepest level's ancestry, read by a process in level 2's namespace. */
static void probe_ancestry(struct probe_result *r)
{
    r->rc = procfs_read_pidns_ancestry("/proc1", DEPTH, r->ancestry, PROCFS_MAX_LEVELS,
                                       &r->ancestry_len);
    r->error = errno;
}

/* Walking up with NS_GET_PARENT from the deepest namespace reaches the
 * caller's own and stops there: from the test's namespace all levels and
 * ours; from inside level 2, levels DEPTH..2 only. Too small a buffer is
 * ENOSPC. */
static int check_ancestry(struct pidns_chain *c)
{
    unsigned long long chain[PROCFS_MAX_LEVELS];
    size_t len;
    struct probe_result r;
    CHECK(procfs_read_pidns_ancestry("/proc", c->host_pid[DEPTH], chain, PROCFS_MAX_LEVELS, &len) ==
              0,
          "%s", strerror(errno));
    CHECK(len == DEPTH + 1, "%zu namespaces above and including level %d", len, DEPTH);
    for (int i = 0; i < DEPTH; i++)
        CHECK(chain[i] == c->inode[DEPTH - i], "chain[%d]", i);
    CHECK(chain[DEPTH] == pidns_chain_ns_inode(getpid()), "the top is not our namespace");
    errno = 0;
    CHECK(procfs_read_pidns_ancestry("/proc", c->host_pid[DEPTH], chain, 2, &len) == -1 &&
              errno == ENOSPC,
          "a buffer of 2 for 5 namespaces");
    CHECK(probe_from_level(c, 2, &r, probe_ancestry) == 0, "the probe in level 2 did not report");
    CHECK(r.rc == 0, "%s", strerror(r.error));
    CHECK(r.ancestry_len == DEPTH - 1, "from level 2: %zu namespaces", r.ancestry_len);
    CHECK(r.ancestry[0] == c->inode[DEPTH] && r.ancestry[DEPTH - 2] == c->inode[2], "from level 2");
    return 0;
}

static void test_ancestry_walks_up_to_the_callers_namespace(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    pidns_chain_run(check_ancestry, 0);
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
static int check_vanishing_processes_and_zombie(struct pidns_chain *c)
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
        if (t.count != DEPTH || z == NULL || z->status.state != 'Z' || ns != t.root) {
            fprintf(stderr, "read %d: %zu namespaces, zombie %s\n", i, t.count,
                    z == NULL ? "missing" : "misread");
            rc = 1;
        }
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
    pidns_chain_run(check_vanishing_processes_and_zombie, 0);
}

/* util-linux lsns, which walks the same kernel data its own way, agrees with
 * the tree of /proc on the chain: each namespace has one process (lsns's
 * NPROCS), the level's PID, and the parent namespace (PNS, NS_GET_PARENT). */
static int check_against_lsns(struct pidns_chain *c)
{
    char *out = NULL;
    struct procfs_tree t;
    if (tl_sh("lsns -t pid -n -r -o NS,NPROCS,PID,PNS", &out) != 0) {
        fprintf(stderr,
                "SKIP: lsns -t pid -o ...,PNS did not run (util-linux 2.38 or later needed): "
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
        if (ns == NULL || ns->member_count != 1 || !in_lsns) {
            fprintf(stderr, "level %d: lsns has no line \"%.*s\"\n%s", m, (int)strlen(want) - 2,
                    want + 1, out);
            rc = 1;
        }
    }
    procfs_tree_free(&t);
    free(out);
    return rc;
}

static void test_tree_agrees_with_lsns(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    pidns_chain_run(check_against_lsns, 0);
}

/* An ordinary user (nobody, in the sandbox's user namespace) reads the
 * same: host processes it may not inspect are left out, its own are all
 * there with the right NSpid, tree and ns links. */
static int check_all_as_nobody(struct pidns_chain *c)
{
    if (check_nspid(c) != 0 || check_tree(c) != 0)
        return 1;
    return check_ns_links(c);
}

static void test_nspid_tree_and_links_as_an_ordinary_user(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    pidns_chain_run(check_all_as_nobody, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nspid_of_nested_processes_matches_what_was_created),
        cmocka_unit_test(test_tree_of_nested_namespaces_has_the_created_shape),
        cmocka_unit_test(test_ns_link_of_nested_process_matches_tree_inode),
        cmocka_unit_test(test_read_tree_one_level_below_the_proc_root_fills_in_the_root),
        cmocka_unit_test(test_read_tree_two_levels_below_the_proc_root_fails_with_eperm),
        cmocka_unit_test(test_ancestry_walks_up_to_the_callers_namespace),
        cmocka_unit_test(test_read_tree_skips_processes_that_vanish),
        cmocka_unit_test(test_tree_agrees_with_lsns),
        cmocka_unit_test(test_nspid_tree_and_links_as_an_ordinary_user),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
