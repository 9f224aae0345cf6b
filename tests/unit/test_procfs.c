/* SPDX-License-Identifier: MIT */
/* test_procfs.c: the /proc parsers on fixture files (tests/fixtures/proc/),
 * the readers on a fixture proc root, the pure construction of the PID
 * namespace tree on synthetic chains, and the exact text of `tree`, `ps` and
 * `ns PID`. No privilege needed: nothing here touches the real kernel. */
#include "testlib.h"
#include "procfs/procfs.h"
#include "render/render_procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *fixture(const char *name)
{
    static char path[PATH_MAX];
    const char *src = getenv("PIDNS_TUTOR_SRC");
    snprintf(path, sizeof path, "%s/tests/fixtures/proc/%s", src != NULL ? src : ".", name);
    return path;
}

/* The whole fixture file; fails the test when it is missing. */
static char *load(const char *name)
{
    FILE *f = fopen(fixture(name), "r");
    if (f == NULL)
        fail_msg("fixture %s: %s", fixture(name), strerror(errno));
    char *text = calloc(1, 1 << 16);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void parse_fixture(const char *name, struct procfs_status *st)
{
    char *text = load(name);
    int rc = procfs_parse_status(text, st);
    free(text);
    if (rc != 0)
        fail_msg("%s did not parse", name);
}

static void assert_nspid(const struct procfs_status *st, const pid_t *want, int count)
{
    assert_int_equal(st->nspid_count, count);
    for (int i = 0; i < count; i++)
        assert_int_equal(st->nspid[i], want[i]);
}

static void test_status_of_root_namespace_process_has_one_pid(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/root-init", &st);
    assert_string_equal(st.name, "systemd");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.pid, 1);
    assert_int_equal(st.ppid, 0);
    assert_nspid(&st, (pid_t[]){1}, 1);
}

static void test_status_nested_5_deep_lists_a_pid_per_level(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/nested-5", &st);
    assert_int_equal(st.pid, 27660);
    assert_int_equal(st.ppid, 27659);
    assert_nspid(&st, (pid_t[]){27660, 5, 4, 3, 2, 1}, 6);
    parse_fixture("status/nested-init", &st);
    assert_nspid(&st, (pid_t[]){27656, 1}, 2);
}

static void test_status_32_levels_below_root_is_the_maximum(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/nested-32", &st);
    assert_int_equal(st.nspid_count, PROCFS_MAX_LEVELS);
    assert_int_equal(st.nspid[0], 9000);
    assert_int_equal(st.nspid[1], 32);
    assert_int_equal(st.nspid[PROCFS_MAX_LEVELS - 1], 1);
}

static void test_status_kernel_threads(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/kthread", &st);
    assert_string_equal(st.name, "kthreadd");
    assert_int_equal(st.pid, 2);
    assert_int_equal(st.ppid, 0);
    parse_fixture("status/kworker", &st);
    assert_string_equal(st.name, "kworker/0:0H-events_highpri");
    assert_int_equal(st.state, 'I');
    assert_int_equal(st.ppid, 2);
}

static void test_status_zombie_and_traced_states(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/zombie", &st);
    assert_int_equal(st.state, 'Z');
    assert_nspid(&st, (pid_t[]){27670, 3}, 2);
    parse_fixture("status/traced", &st);
    assert_int_equal(st.state, 't');
    parse_fixture("status/state-garbage", &st);
    assert_int_equal(st.state, '?');
}

static void test_status_without_nspid_falls_back_to_pid(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/no-nspid", &st);
    assert_int_equal(st.pid, 27656);
    assert_nspid(&st, (pid_t[]){27656}, 1);
}

static void test_status_names_kept_escaped_and_cut(void **state)
{
    (void)state;
    struct procfs_status st;
    parse_fixture("status/name-with-space", &st);
    assert_string_equal(st.name, "my prog\\nx");
    parse_fixture("status/name-long", &st);
    assert_int_equal(strlen(st.name), sizeof st.name - 1);
    assert_memory_equal(st.name, "rcu_exp_par_gp_kthread_worker/0_", 32);
    /* 62 bytes and a two-byte character: cut before the character, not in it. */
    parse_fixture("status/name-utf8-cut", &st);
    assert_int_equal(strlen(st.name), 62);
}

static void test_status_malformed_files_are_rejected(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "empty",         "no-pid",         "no-ppid",        "no-name",
        "empty-name",    "pid-not-number", "pid-zero",       "pid-trailing-junk",
        "pid-overflow",  "ppid-negative",  "nspid-mismatch", "nspid-empty",
        "nspid-garbage", "nspid-zero",     "nspid-too-many", "binary",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[64];
        struct procfs_status st;
        snprintf(name, sizeof name, "status-bad/%s", bad[i]);
        char *text = load(name);
        if (procfs_parse_status(text, &st) != -1)
            fail_msg("%s was accepted", name);
        free(text);
    }
}

static void test_read_status_from_a_proc_root(void **state)
{
    (void)state;
    struct procfs_status st;
    assert_int_equal(procfs_read_status(fixture("root"), 42, &st), 0);
    assert_string_equal(st.name, "multi_pidns");
    assert_nspid(&st, (pid_t[]){42, 1}, 2);
    errno = 0;
    assert_int_equal(procfs_read_status(fixture("root"), 5, &st), -1);
    assert_int_equal(errno, ENOENT);
    int dirfd = open(fixture("root/300"), O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(procfs_read_status_at(dirfd, &st), 0);
    close(dirfd);
    assert_int_equal(st.pid, 300);
    dirfd = open(fixture("root/sys"), O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(procfs_read_status_at(dirfd, &st), -1);
    close(dirfd);
}

/* Each line of ns-links-good: LINK TYPE INODE. */
static void test_ns_links_parse(void **state)
{
    (void)state;
    char *text = load("ns-links-good");
    int lines = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"), lines++) {
        char link[64], want_type[32], type[32];
        unsigned long long want_inode, inode;
        assert_int_equal(sscanf(line, "%63s %31s %llu", link, want_type, &want_inode), 3);
        if (procfs_parse_ns_link(link, type, sizeof type, &inode) != 0)
            fail_msg("%s did not parse", link);
        assert_string_equal(type, want_type);
        assert_true(inode == want_inode);
    }
    free(text);
    assert_int_equal(lines, 6);
}

static void test_ns_links_malformed_are_rejected(void **state)
{
    (void)state;
    char *text = load("ns-links-bad");
    char type[32];
    unsigned long long inode;
    int lines = 0;
    for (char *line = text, *nl; *line != '\0'; line = nl + 1, lines++) {
        nl = strchr(line, '\n');
        *nl = '\0';
        if (procfs_parse_ns_link(line, type, sizeof type, &inode) != -1)
            fail_msg("\"%s\" was accepted", line);
    }
    free(text);
    assert_int_equal(lines, 16);
    /* A type that does not fit the caller's buffer is an error, not cut. */
    assert_int_equal(procfs_parse_ns_link("pid:[1]", type, 3, &inode), -1);
    assert_int_equal(procfs_parse_ns_link("pid:[1]", type, 4, &inode), 0);
}

static void test_read_ns_link_as_readlink_shows_it(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(procfs_read_ns_link(fixture("root"), 42, "pid", buf, sizeof buf), 0);
    assert_string_equal(buf, "pid:[4026532412]");
    errno = 0;
    assert_int_equal(procfs_read_ns_link(fixture("root"), 42, "pid", buf, 16), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    errno = 0;
    assert_int_equal(procfs_read_ns_link(fixture("root"), 42, "net", buf, sizeof buf), -1);
    assert_int_equal(errno, ENOENT);
}

static void test_ns_links_of_a_process_sorted_and_formatted(void **state)
{
    (void)state;
    struct procfs_ns_entry entries[16];
    size_t count;
    assert_int_equal(procfs_read_ns_links(fixture("root"), 42, entries, 16, &count), 0);
    assert_int_equal(count, 4);
    entries[0].error = ENOENT; /* as a zombie's mnt link reads */
    char *text = render_format_ns_links(entries, count);
    assert_string_equal(text, "mnt                (unavailable: No such file or directory)\n"
                              "pid                pid:[4026532412]\n"
                              "pid_for_children   pid:[4026532413]\n"
                              "user               user:[4026531837]\n");
    free(text);
    errno = 0;
    assert_int_equal(procfs_read_ns_links(fixture("root"), 7, entries, 16, &count), -1);
    assert_int_equal(errno, ENOENT);
}

/* The fixture root also holds self, sys, 01, 1x, -5, 4294967296 and
 * 99999999999999999999: none is a PID, and none is an error. */
static void test_list_pids_only_numbers_sorted(void **state)
{
    (void)state;
    pid_t *pids;
    size_t count;
    assert_int_equal(procfs_list_pids(fixture("root"), &pids, &count), 0);
    assert_int_equal(count, 4);
    assert_int_equal(pids[0], 1);
    assert_int_equal(pids[1], 7);
    assert_int_equal(pids[2], 42);
    assert_int_equal(pids[3], 300);
    free(pids);
    errno = 0;
    assert_int_equal(procfs_list_pids(fixture("no-such-root"), &pids, &count), -1);
    assert_int_equal(errno, ENOENT);
}

struct walk_seen {
    pid_t pids[16];
    char names[16][16];
    size_t count;
    size_t stop_after; /* 0: never */
};

static int note_pid(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct walk_seen *seen = arg;
    struct stat st;
    /* proc_fd is the walked directory: the entry is there by its name */
    assert_int_equal(fstatat(proc_fd, name, &st, 0), 0);
    assert_true(seen->count < 16);
    seen->pids[seen->count] = pid;
    snprintf(seen->names[seen->count], sizeof seen->names[0], "%s", name);
    seen->count++;
    return seen->stop_after != 0 && seen->count == seen->stop_after ? 7 : 0;
}

static void test_walk_pids_visits_each_pid_entry_once(void **state)
{
    (void)state;
    struct walk_seen seen = {.count = 0};
    assert_int_equal(procfs_walk_pids(AT_FDCWD, fixture("root"), note_pid, &seen), 0);
    /* 01, 1x, -5, self and the numbers above INT_MAX are no PIDs */
    assert_int_equal(seen.count, 4);
    int found = 0;
    for (size_t i = 0; i < seen.count; i++) {
        char expect[16];
        snprintf(expect, sizeof expect, "%d", (int)seen.pids[i]);
        assert_string_equal(seen.names[i], expect);
        found |= seen.pids[i] == 1 ? 1 : seen.pids[i] == 7 ? 2 : seen.pids[i] == 42 ? 4 : 8;
    }
    assert_int_equal(found, 15);
}

static void test_walk_pids_stops_when_the_visitor_says(void **state)
{
    (void)state;
    struct walk_seen seen = {.stop_after = 2};
    assert_int_equal(procfs_walk_pids(AT_FDCWD, fixture("root"), note_pid, &seen), 7);
    assert_int_equal(seen.count, 2);
    /* relative to an open directory, as the lab walks its own procfs */
    int fd = open(fixture("root"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(fd != -1);
    seen = (struct walk_seen){.count = 0};
    assert_int_equal(procfs_walk_pids(fd, ".", note_pid, &seen), 0);
    assert_int_equal(seen.count, 4);
    close(fd);
    errno = 0;
    assert_int_equal(procfs_walk_pids(AT_FDCWD, fixture("no-such-root"), note_pid, &seen), -1);
    assert_int_equal(errno, ENOENT);
}

struct mount_want {
    unsigned id, parent;
    const char *point, *fstype, *source;
};

static void test_mountinfo_lines_unescaped(void **state)
{
    (void)state;
    static const struct mount_want want[] = {
        {21, 26, "/proc", "proc", "proc"},
        {26, 1, "/", "ext4", "/dev/vda1"},
        {300, 26, "/proc2", "proc", "proc"},
        {301, 26, "/mnt/my disk", "ext4", "/dev/sdb1"},
        {302, 26, "/tmp/tab\there\\back", "tmpfs", "my source"},
        {303, 26, "/bind", "ext4", "/dev/vda1"},
        {304, 26, "/proc0", "proc", "proc"},
        {4294967295u, 0, "/max", "tmpfs", "none"},
    };
    char *text = load("mountinfo-good");
    size_t i = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"), i++) {
        struct procfs_mount m;
        assert_true(i < sizeof want / sizeof want[0]);
        assert_int_equal(procfs_parse_mountinfo_line(line, &m), 0);
        assert_int_equal(m.mount_id, want[i].id);
        assert_int_equal(m.parent_id, want[i].parent);
        assert_string_equal(m.mount_point, want[i].point);
        assert_string_equal(m.fstype, want[i].fstype);
        assert_string_equal(m.source, want[i].source);
    }
    assert_int_equal(i, sizeof want / sizeof want[0]);
    free(text);
}

static void test_mountinfo_malformed_lines_rejected(void **state)
{
    (void)state;
    char *text = load("mountinfo-bad");
    int lines = 0;
    for (char *line = text, *nl; *line != '\0'; line = nl + 1, lines++) {
        nl = strchr(line, '\n');
        *nl = '\0';
        char copy[256];
        struct procfs_mount m;
        snprintf(copy, sizeof copy, "%s", line);
        if (procfs_parse_mountinfo_line(copy, &m) != -1)
            fail_msg("\"%s\" was accepted", line);
    }
    assert_int_equal(lines, 10);
    free(text);
}

static void test_parse_mounts_of_a_text_read_elsewhere(void **state)
{
    (void)state;
    struct procfs_mount_table table;
    /* the table owns the text: no free here */
    assert_int_equal(procfs_parse_mounts(load("mountinfo-good"), &table), 0);
    assert_int_equal(table.count, 8);
    assert_string_equal(table.mounts[3].mount_point, "/mnt/my disk");
    procfs_mounts_free(&table);
    /* a malformed table keeps no line; a failed read is a failure */
    assert_int_equal(procfs_parse_mounts(load("mountinfo-bad"), &table), 0);
    assert_int_equal(table.count, 0);
    procfs_mounts_free(&table);
    assert_int_equal(procfs_parse_mounts(NULL, &table), -1);
}

static void test_read_mounts_of_a_process(void **state)
{
    (void)state;
    struct procfs_mount_table table;
    assert_int_equal(procfs_read_mounts(fixture("root"), 1, &table), 0);
    assert_int_equal(table.count, 8);
    assert_string_equal(table.mounts[3].mount_point, "/mnt/my disk");
    assert_string_equal(table.mounts[6].mount_point, "/proc0");
    procfs_mounts_free(&table);
    assert_null(table.mounts);
    errno = 0; /* self is 42 in the fixture, which has no mountinfo */
    assert_int_equal(procfs_read_mounts(fixture("root"), 0, &table), -1);
    assert_int_equal(errno, ENOENT);
}

/* A synthetic status: pid as the root sees it, NSpid from the arguments. */
static struct procfs_status make_status(const char *name, char state, pid_t ppid, int count, ...)
{
    struct procfs_status st;
    va_list ap;
    memset(&st, 0, sizeof st);
    snprintf(st.name, sizeof st.name, "%s", name);
    st.state = state;
    st.ppid = ppid;
    st.nspid_count = count;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        st.nspid[i] = va_arg(ap, pid_t);
    va_end(ap);
    st.pid = st.nspid[0];
    return st;
}

#define CHAIN(...)                                                                                 \
    (const unsigned long long[]){__VA_ARGS__},                                                     \
        sizeof((const unsigned long long[]){__VA_ARGS__}) / sizeof(unsigned long long)

/* The article's multi_pidns 5: one process per level, 5 levels below the root. */
static void build_five_deep(struct procfs_tree *t)
{
    procfs_tree_init(t, 100);
    struct procfs_status s0 = make_status("bash", 'S', 1, 1, 500);
    struct procfs_status s1 = make_status("multi_pidns", 'S', 500, 2, 501, 1);
    struct procfs_status s2 = make_status("multi_pidns", 'S', 501, 3, 502, 2, 1);
    struct procfs_status s3 = make_status("multi_pidns", 'S', 502, 4, 503, 3, 2, 1);
    struct procfs_status s4 = make_status("multi_pidns", 'S', 503, 5, 504, 4, 3, 2, 1);
    struct procfs_status s5 = make_status("sleep", 'S', 504, 6, 505, 5, 4, 3, 2, 1);
    /* Deepest first: the chain creates the namespaces above it. */
    assert_int_equal(procfs_tree_add(t, &s5, CHAIN(105, 104, 103, 102, 101, 100)), 0);
    assert_int_equal(procfs_tree_add(t, &s0, CHAIN(100)), 0);
    assert_int_equal(procfs_tree_add(t, &s1, CHAIN(101, 100)), 0);
    assert_int_equal(procfs_tree_add(t, &s3, CHAIN(103, 102, 101, 100)), 0);
    assert_int_equal(procfs_tree_add(t, &s2, CHAIN(102, 101, 100)), 0);
    assert_int_equal(procfs_tree_add(t, &s4, CHAIN(104, 103, 102, 101, 100)), 0);
}

static void test_tree_of_a_five_deep_chain(void **state)
{
    (void)state;
    struct procfs_tree t;
    build_five_deep(&t);
    assert_int_equal(t.count, 6);
    const struct procfs_pidns *ns = t.root;
    assert_null(ns->parent);
    for (int level = 0; level <= 5; level++) {
        assert_int_equal(ns->level, level);
        assert_true(ns->inode == 100ULL + (unsigned)level);
        assert_ptr_equal(t.all[0], t.root);
        assert_int_equal(ns->member_count, 1);
        assert_int_equal(ns->members[0].pid, 500 + level);
        /* Its own PID, the last of NSpid: 1 (an init) below the root. */
        assert_int_equal(ns->members[0].status.nspid[level], level == 0 ? 500 : 1);
        assert_int_equal(ns->child_count, level < 5 ? 1 : 0);
        if (level < 5) {
            assert_ptr_equal(ns->children[0]->parent, ns);
            ns = ns->children[0];
        }
    }
    const struct procfs_pidns *where;
    const struct procfs_process *p = procfs_tree_find_process(&t, 503, &where);
    assert_non_null(p);
    assert_string_equal(p->status.name, "multi_pidns");
    assert_int_equal(where->level, 3);
    assert_ptr_equal(procfs_tree_find_ns(&t, 103), where);
    assert_null(procfs_tree_find_ns(&t, 999));
    assert_null(procfs_tree_find_process(&t, 4242, NULL));
    procfs_tree_free(&t);
    assert_int_equal(t.count, 0);
}

static void test_tree_siblings_and_sorted_members(void **state)
{
    (void)state;
    struct procfs_tree t;
    procfs_tree_init(&t, 1);
    struct procfs_status a = make_status("a", 'S', 1, 2, 30, 2);
    struct procfs_status b = make_status("b", 'S', 1, 2, 20, 1);
    struct procfs_status c = make_status("c", 'S', 1, 2, 40, 1);
    assert_int_equal(procfs_tree_add(&t, &a, CHAIN(2, 1)), 0);
    assert_int_equal(procfs_tree_add(&t, &b, CHAIN(2, 1)), 0);
    assert_int_equal(procfs_tree_add(&t, &c, CHAIN(3, 1)), 0);
    assert_int_equal(t.root->child_count, 2);
    assert_int_equal(t.root->member_count, 0);
    const struct procfs_pidns *two = procfs_tree_find_ns(&t, 2);
    assert_int_equal(two->member_count, 2);
    assert_int_equal(two->members[0].pid, 20); /* sorted, not in order of adding */
    assert_int_equal(two->members[1].pid, 30);
    assert_int_equal(procfs_tree_find_ns(&t, 3)->level, 1);
    procfs_tree_free(&t);
}

static int named_multi(const struct procfs_process *p, void *context)
{
    (void)context;
    return strcmp(p->status.name, "multi_pidns") == 0;
}

static void test_tree_remove_leaves_processes_out_and_keeps_namespaces(void **state)
{
    (void)state;
    struct procfs_tree t;
    build_five_deep(&t);
    assert_int_equal(procfs_tree_remove(&t, named_multi, NULL), 4);
    assert_int_equal(t.count, 6);
    assert_int_equal(t.root->member_count, 1);
    assert_null(procfs_tree_find_process(&t, 503, NULL));
    assert_non_null(procfs_tree_find_process(&t, 505, NULL));
    char *text = render_format_ps(&t);
    assert_null(strstr(text, "multi_pidns"));
    assert_non_null(strstr(text, "bash"));
    free(text);
    procfs_tree_free(&t);
}

static void test_tree_rejects_contradictions_and_stays_unchanged(void **state)
{
    (void)state;
    struct procfs_tree t;
    procfs_tree_init(&t, 1);
    struct procfs_status a = make_status("a", 'S', 1, 3, 10, 2, 1);
    struct procfs_status b = make_status("b", 'S', 1, 3, 11, 2, 1);
    struct procfs_status c = make_status("c", 'S', 1, 2, 12, 1);
    assert_int_equal(procfs_tree_add(&t, &a, CHAIN(3, 2, 1)), 0);
    assert_int_equal(t.count, 3);
    struct {
        const struct procfs_status *st;
        const unsigned long long *chain;
        size_t len;
        const char *why;
    } bad[] = {
        {&b, CHAIN(4, 2, 9), "chain does not end at the root"},
        {&b, CHAIN(5, 3, 1), "namespace 3 under a second parent"},
        {&b, CHAIN(5, 6, 1), "fine up to 6, then 5..."},
        {&b, CHAIN(2, 2, 1), "an inode twice in a chain"},
        {&c, CHAIN(7, 8, 1), "NSpid count 2, chain of 3"},
        {&a, CHAIN(4, 2, 1), "PID 10 added twice"},
        {&b, (const unsigned long long[]){1}, 0, "empty chain"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (i == 2)
            continue; /* the valid one, checked below */
        errno = 0;
        if (procfs_tree_add(&t, bad[i].st, bad[i].chain, bad[i].len) != -1)
            fail_msg("accepted: %s", bad[i].why);
        assert_int_equal(errno, EINVAL);
        assert_int_equal(t.count, 3);
    }
    assert_int_equal(procfs_tree_add(&t, bad[2].st, bad[2].chain, bad[2].len), 0);
    assert_int_equal(t.count, 5);
    procfs_tree_free(&t);
}

static void test_tree_accepts_33_levels_and_old_kernels(void **state)
{
    (void)state;
    struct procfs_tree t;
    unsigned long long chain[PROCFS_MAX_LEVELS + 1];
    for (int i = 0; i <= PROCFS_MAX_LEVELS; i++)
        chain[i] = 1000 - (unsigned)i + PROCFS_MAX_LEVELS;
    procfs_tree_init(&t, chain[PROCFS_MAX_LEVELS]);
    struct procfs_status deep = make_status("deep", 'S', 1, 1, 77);
    /* 34 namespaces are more than the kernel can nest. */
    assert_int_equal(procfs_tree_add(&t, &deep, chain, PROCFS_MAX_LEVELS + 1), -1);
    procfs_tree_free(&t);
    procfs_tree_init(&t, chain[PROCFS_MAX_LEVELS - 1]);
    /* NSpid count 1 (a kernel without NSpid) with a long chain is accepted. */
    assert_int_equal(procfs_tree_add(&t, &deep, chain, PROCFS_MAX_LEVELS), 0);
    assert_int_equal(t.count, PROCFS_MAX_LEVELS);
    assert_int_equal(t.all[t.count - 1]->level, PROCFS_MAX_LEVELS - 1);
    char *text = render_format_tree(&t);
    assert_non_null(strstr(text, "level 32, 1 process\n"));
    free(text);
    procfs_tree_free(&t);
}

static void test_format_tree_text(void **state)
{
    (void)state;
    struct procfs_tree t;
    procfs_tree_init(&t, 4026531836ULL);
    struct procfs_status top = make_status("pidns_init_slee", 'T', 27090, 1, 27655);
    struct procfs_status init = make_status("sleep", 'S', 27655, 2, 27656, 1);
    struct procfs_status zombie = make_status("true", 'Z', 27656, 3, 27658, 2, 1);
    struct procfs_status other = make_status("sh", 'S', 27090, 2, 27700, 1);
    assert_int_equal(
        procfs_tree_add(&t, &zombie, CHAIN(4026532413ULL, 4026532412ULL, 4026531836ULL)), 0);
    assert_int_equal(procfs_tree_add(&t, &init, CHAIN(4026532412ULL, 4026531836ULL)), 0);
    assert_int_equal(procfs_tree_add(&t, &top, CHAIN(4026531836ULL)), 0);
    assert_int_equal(procfs_tree_add(&t, &other, CHAIN(4026532500ULL, 4026531836ULL)), 0);
    char *text = render_format_tree(&t);
    assert_string_equal(text, "pid:[4026531836] level 0, 1 process\n"
                              "|-- 27655 pidns_init_slee\n"
                              "|-- pid:[4026532412] level 1, 1 process\n"
                              "|   |-- 1 sleep (NSpid: 27656 1)\n"
                              "|   `-- pid:[4026532413] level 2, 1 process\n"
                              "|       `-- 1 true (NSpid: 27658 2 1) <defunct>\n"
                              "`-- pid:[4026532500] level 1, 1 process\n"
                              "    `-- 1 sh (NSpid: 27700 1)\n");
    free(text);
    text = render_format_ps(&t);
    assert_string_equal(
        text, "    PID    PPID S LEVEL PIDNS              NSPID          NAME\n"
              "  27655   27090 T     0 pid:[4026531836]   27655          pidns_init_slee\n"
              "  27656   27655 S     1 pid:[4026532412]   27656 1        sleep\n"
              "  27658   27656 Z     2 pid:[4026532413]   27658 2 1      true\n"
              "  27700   27090 S     1 pid:[4026532500]   27700 1        sh\n");
    free(text);
    /* As the shell shows the lab: its level as the kernel counts, named once. */
    t.base_level = 1;
    t.root_name = "the lab's namespace";
    text = render_format_tree(&t);
    assert_non_null(strstr(text, "pid:[4026531836] level 1 (the lab's namespace), 1 process\n"));
    assert_non_null(strstr(text, "|   `-- pid:[4026532413] level 3, 1 process\n"));
    assert_non_null(strstr(text, "`-- pid:[4026532500] level 2, 1 process\n"));
    free(text);
    text = render_format_ps(&t);
    assert_non_null(
        strstr(text, "  27658   27656 Z     3 pid:[4026532413]   27658 2 1      true\n"));
    free(text);
    procfs_tree_free(&t);
}

static void test_format_of_an_empty_tree(void **state)
{
    (void)state;
    struct procfs_tree t;
    procfs_tree_init(&t, 0);
    char *text = render_format_tree(&t);
    assert_string_equal(text, "pid:[0] level 0, 0 processes\n");
    free(text);
    text = render_format_ps(&t);
    assert_string_equal(text, "    PID    PPID S LEVEL PIDNS              NSPID          NAME\n");
    free(text);
    procfs_tree_free(&t);
    assert_null(render_format_tree(&t)); /* a freed tree has no root */
}

/* Busy descendants: the children of the ancestor and theirs, whatever the
 * order of the entries (a reused PID makes a parent come after its child);
 * processes of another tree and the ancestor itself do not count. */
static void test_busy_descendants_follow_ppid_in_any_order(void **state)
{
    (void)state;
    struct procfs_status p[] = {
        {.pid = 3, .ppid = 9, .state = 'R'},  /* grandchild, parent listed later */
        {.pid = 7, .ppid = 1, .state = 'R'},  /* another tree */
        {.pid = 9, .ppid = 5, .state = 'S'},  /* child of the ancestor 5 */
        {.pid = 5, .ppid = 1, .state = 'R'},  /* the ancestor itself */
        {.pid = 11, .ppid = 9, .state = 'D'}, /* grandchild in D */
        {.pid = 12, .ppid = 9, .state = 'T'}, /* stopped: asleep enough */
    };
    assert_int_equal(procfs_busy_descendants(p, 6, 5), 2);
    p[0].state = 'S';
    p[4].state = 'Z';
    assert_int_equal(procfs_busy_descendants(p, 6, 5), 0);
    assert_int_equal(procfs_busy_descendants(p, 6, 42), 0);
    assert_int_equal(procfs_busy_descendants(p, 0, 5), 0);
}

/* The tutor's own process and the system (procfs_system.c), read from a
 * made-up proc root: capabilities, id maps, sysctls, task counts; and what
 * each says when its file is missing or holds no number. */
/* signal-blocked: a real status of a process that blocks SIGUSR1 and was
 * sent it; signal-pending: the same with nothing blocked (a signal sent, and
 * the process not yet run to take it). */
static void test_undelivered_signals_pending_and_not_blocked(void **state)
{
    (void)state;
    struct procfs_status p[3];
    parse_fixture("status/signal-blocked", &p[0]);
    assert_true(p[0].sig_pending == 0x200 && p[0].sig_blocked == 0x200);
    parse_fixture("status/signal-pending", &p[1]);
    assert_true(p[1].sig_pending == 0x200 && p[1].sig_blocked == 0);
    parse_fixture("status/root-init", &p[2]);
    assert_true(p[2].sig_pending == 0);
    assert_int_equal(procfs_undelivered(p, 3), 1);
    assert_int_equal(procfs_undelivered(p, 1), 0); /* blocked: it waits for the process */
    p[1].state = 'T';                              /* stopped: it waits for SIGCONT */
    assert_int_equal(procfs_undelivered(p, 3), 0);
    p[1].state = 'R';
    assert_int_equal(procfs_undelivered(p, 3), 1);
    assert_int_equal(procfs_undelivered(p, 0), 0);
}

static void test_self_and_system_facts_from_a_proc_root(void **state)
{
    (void)state;
    char root[PATH_MAX];
    unsigned long long caps = 1;
    long all = 0, mine = 0;
    snprintf(root, sizeof root, "%s/test_procfs.system.%ld", tl_tmpdir(), (long)getpid());
    assert_int_equal(
        tl_shf(NULL,
               "r=%s && mkdir -p $r/self/ns $r/sys/user $r/sys/kernel $r/10 $r/11 $r/12 && "
               "printf 'Name:\\tx\\nCapEff:\\t0000000000200000\\n' > $r/self/status && "
               ": > $r/self/ns/pid && printf '0 1000 1\\n5 2000 10\\n' > $r/self/uid_map && "
               "echo 42 > $r/sys/user/max_user_namespaces && echo max > $r/sys/kernel/pid_max && "
               "echo abc > $r/sys/kernel/bad && "
               "printf 'Uid:\\t7\\t7\\t7\\t7\\nThreads:\\t3\\n' > $r/10/status && "
               "printf 'Uid:\\t8\\t8\\t8\\t8\\nThreads:\\t2\\n' > $r/11/status",
               root),
        0);
    assert_int_equal(procfs_self_caps(root, &caps), 0);
    assert_int_equal(caps, 1ull << 21); /* CAP_SYS_ADMIN alone */
    assert_true(procfs_self_has_ns(root, "pid"));
    assert_false(procfs_self_has_ns(root, "user"));
    assert_int_equal(procfs_self_id_mapped(root, "uid_map", 0), 1);
    assert_int_equal(procfs_self_id_mapped(root, "uid_map", 14), 1);
    assert_int_equal(procfs_self_id_mapped(root, "uid_map", 15), 0);
    assert_int_equal(procfs_self_id_mapped(root, "uid_map", 1), 0);
    assert_int_equal(procfs_self_id_mapped(root, "gid_map", 0), -1); /* no map */
    assert_int_equal(procfs_read_sysctl(root, "user/max_user_namespaces", -1, -2), 42);
    assert_int_equal(procfs_read_sysctl(root, "kernel/pid_max", -1, -2), -2);
    assert_int_equal(procfs_read_sysctl(root, "kernel/bad", -1, -2), -1);
    assert_int_equal(procfs_read_sysctl(root, "kernel/absent", -1, -2), -1);
    /* 12 has no status (gone meanwhile): left out; "self" is no PID */
    assert_int_equal(procfs_count_tasks(root, 7, &all, &mine), 0);
    assert_int_equal(all, 5);
    assert_int_equal(mine, 3);
    assert_false(procfs_is_procfs(root));
    assert_true(procfs_is_procfs("/proc"));
    tl_shf(NULL, "rm -rf %s", root);
    assert_int_equal(procfs_self_caps(root, &caps), -1);
    assert_int_equal(caps, 0);
    assert_int_equal(procfs_count_tasks(root, 7, &all, &mine), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undelivered_signals_pending_and_not_blocked),
        cmocka_unit_test(test_status_of_root_namespace_process_has_one_pid),
        cmocka_unit_test(test_status_nested_5_deep_lists_a_pid_per_level),
        cmocka_unit_test(test_status_32_levels_below_root_is_the_maximum),
        cmocka_unit_test(test_status_kernel_threads),
        cmocka_unit_test(test_status_zombie_and_traced_states),
        cmocka_unit_test(test_status_without_nspid_falls_back_to_pid),
        cmocka_unit_test(test_status_names_kept_escaped_and_cut),
        cmocka_unit_test(test_status_malformed_files_are_rejected),
        cmocka_unit_test(test_read_status_from_a_proc_root),
        cmocka_unit_test(test_ns_links_parse),
        cmocka_unit_test(test_ns_links_malformed_are_rejected),
        cmocka_unit_test(test_read_ns_link_as_readlink_shows_it),
        cmocka_unit_test(test_ns_links_of_a_process_sorted_and_formatted),
        cmocka_unit_test(test_list_pids_only_numbers_sorted),
        cmocka_unit_test(test_mountinfo_lines_unescaped),
        cmocka_unit_test(test_mountinfo_malformed_lines_rejected),
        cmocka_unit_test(test_read_mounts_of_a_process),
        cmocka_unit_test(test_tree_of_a_five_deep_chain),
        cmocka_unit_test(test_tree_siblings_and_sorted_members),
        cmocka_unit_test(test_tree_remove_leaves_processes_out_and_keeps_namespaces),
        cmocka_unit_test(test_tree_rejects_contradictions_and_stays_unchanged),
        cmocka_unit_test(test_tree_accepts_33_levels_and_old_kernels),
        cmocka_unit_test(test_format_tree_text),
        cmocka_unit_test(test_format_of_an_empty_tree),
        cmocka_unit_test(test_walk_pids_visits_each_pid_entry_once),
        cmocka_unit_test(test_walk_pids_stops_when_the_visitor_says),
        cmocka_unit_test(test_parse_mounts_of_a_text_read_elsewhere),
        cmocka_unit_test(test_busy_descendants_follow_ppid_in_any_order),
        cmocka_unit_test(test_self_and_system_facts_from_a_proc_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
