/* SPDX-License-Identifier: MIT */
/* test_beyond.c: the "beyond the article" examples on the real kernel.
 *
 * Each case runs a shell script in a sandboxed child (private mount
 * namespace, scratch tmpfs root; see testlib.h) with the built examples first
 * on PATH, captures everything it prints through a pipe, and checks that the
 * expected lines arrive, in order. Where a verdict can be cross-checked
 * against the kernel independently (a link, an NSpid line, a PPid, a mount
 * count), the script does that and prints a CHECK-... line only when the
 * kernel agrees. Every case also asserts that the host is left as it was.
 * Cases marked as_nobody run the script as uid 65534 (setpriv), the route
 * an ordinary user takes: unshare -r for a user namespace, or a skip.
 */
#include "stage.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EXPECT 16

struct beyond_case {
    const char *name;
    int needs_root; /* 0: bad-usage cases, which need no privilege */
    int as_nobody;  /* run the script as uid 65534 */
    const char *script;
    const char *expect[MAX_EXPECT]; /* in this order, blanks squeezed */
    const char *absent[4];          /* must not appear */
};

static char examples_dir[4096];

/* Folds runs of blanks to one space, so that column padding does not matter. */
static void squeeze_blanks(char *text)
{
    char *out = text;
    for (char *in = text; *in != '\0'; in++) {
        int blank = *in == ' ' || *in == '\t';
        if (blank && out > text && out[-1] == ' ')
            continue;
        *out++ = blank ? ' ' : *in;
    }
    *out = '\0';
}

/* Reports what is wrong with the output; returns the number of problems. */
static int check_output(const struct beyond_case *c, char *out)
{
    int problems = 0;
    const char *from = out;
    squeeze_blanks(out);
    for (int i = 0; i < MAX_EXPECT && c->expect[i] != NULL; i++) {
        const char *hit = strstr(from, c->expect[i]);
        if (hit == NULL) {
            fprintf(stderr, "%s: missing (or out of order): \"%s\"\n", c->name, c->expect[i]);
            problems++;
            continue;
        }
        from = hit + strlen(c->expect[i]);
    }
    for (int i = 0; i < 4 && c->absent[i] != NULL; i++)
        if (strstr(out, c->absent[i]) != NULL) {
            fprintf(stderr, "%s: unexpected: \"%s\"\n", c->name, c->absent[i]);
            problems++;
        }
    return problems;
}

/* In the sandboxed child: run the script, check what it printed. */
static int run_script(void *arg)
{
    const struct beyond_case *c = arg;
    char *path, *out = NULL;
    if (asprintf(&path, "%s:%s", examples_dir, getenv("PATH")) == -1)
        return 90;
    setenv("PATH", path, 1);
    free(path);
    setenv("BEYOND_SCRIPT", c->script, 1);
    int rc = tl_sh(c->as_nobody ? "exec setpriv --reuid=65534 --regid=65534 --clear-groups "
                                  "sh -c 'eval \"$BEYOND_SCRIPT\"'"
                                : "eval \"$BEYOND_SCRIPT\"",
                   &out);
    if (out == NULL)
        return 91;
    char *copy = strdup(out);
    int problems = copy == NULL ? 1 : check_output(c, copy);
    if (problems > 0 || rc != 0)
        fprintf(stderr, "%s: script exit %d; its output:\n%s---\n", c->name, rc, out);
    free(copy);
    free(out);
    return problems > 0 ? 1 : 0;
}

static void run_case(void **state)
{
    const struct beyond_case *c = *state;
    if (c->needs_root || c->as_nobody)
        TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    int status = tl_in_sandbox(run_script, (void *)c, false);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

/* --- the cases ------------------------------------------------------------ */

/* Most cases list no absent[] lines: let them leave it out. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct beyond_case cases[] = {
    /* pidns_init_signals */
    {"init_ignores_unhandled_signals_and_dies_with_its_namespace",
     1,
     0,
     "pidns_init_signals | cat; echo status=$?",
     {"PID 1 inside; member is PID 2 inside",
      "[inside] kill(1, SIGTERM) from PID 2, init has no handler -> ignored",
      "[inside] kill(1, SIGINT) from PID 2, init has no handler -> ignored",
      "[inside] kill(1, SIGKILL) from PID 2, init has no handler -> ignored",
      "[inside] kill(1, SIGSTOP) from PID 2, init has no handler -> ignored",
      "[inside] kill(1, SIGUSR1) from PID 2, init has a handler -> delivered: handler ran, "
      "sender PID 2",
      "[parent] kill(init, SIGTERM) from here, init has no handler -> ignored",
      "[parent] kill(init, SIGUSR1) from here, init has a handler -> delivered: handler ran, "
      "sender PID 0",
      "[parent] kill(init, SIGSTOP) from here -> delivered: init stopped",
      "[parent] kill(init, SIGKILL) from here -> delivered: init killed by SIGKILL",
      "[after ] member (PID 2 inside) when init died -> killed by SIGKILL",
      "[after ] fork() into the dead namespace, by the joiner -> failed with ENOMEM", "status=0"}},
    /* The kernel itself, without our program: SIGTERM from the parent
     * namespace does not end an init that has no handler (sleep). */
    {"kernel_confirms_parent_sigterm_is_ignored_by_init",
     1,
     0,
     "unshare -pf sleep 30 & u=$!; sleep 0.3; i=$(pgrep -P $u); kill -TERM $i; sleep 0.3;"
     "kill -0 $i && echo CHECK-INIT-STILL-RUNS; kill -KILL $i; wait $u;"
     "kill -0 $i 2>/dev/null || echo CHECK-SIGKILL-ENDED-IT",
     {"CHECK-INIT-STILL-RUNS", "CHECK-SIGKILL-ENDED-IT"}},
    {"init_signals_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_init_signals",
     {"[inside] kill(1, SIGKILL) from PID 2, init has no handler -> ignored",
      "[parent] kill(init, SIGKILL) from here -> delivered: init killed by SIGKILL",
      "-> failed with ENOMEM"}},
    {"init_signals_as_nobody_without_privilege_fails_saying_why",
     1,
     1,
     "pidns_init_signals; echo status=$?",
     {"pidns_init_signals: clone(CLONE_NEWPID): Operation not permitted", "status=1"},
     {"[inside]"}},
    {"init_signals_rejects_arguments",
     0,
     0,
     "pidns_init_signals extra; echo status=$?",
     {"pidns_init_signals: unexpected argument 'extra'", "status=1"},
     {"init is PID"}},

    /* pidns_siginfo; the kernel's side is asserted in test_pidns_semantics.c. */
    {"siginfo_reports_each_sender_as_the_receiver_sees_it",
     1,
     0,
     "pidns_siginfo; echo status=$?",
     {"clone() returned ", ": the init's PID in the parent's namespace",
      "[init ] kill(getpid(), SIGUSR1), the init to itself: si_pid = 1",
      "[init ] sigqueue(1, SIGUSR1) from PID 2: si_pid = 2",
      "[init ] SIGCHLD, PID 2 exited: si_pid = 2",
      "[init ] kill(init, SIGUSR1) from the parent namespace: si_pid = 0",
      "[parent] SIGCHLD, the init exited: si_pid = ", ", the PID clone() returned", "status=0"},
     {"not the PID", "4242"}},
    {"siginfo_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_siginfo; echo status=$?",
     {"si_pid = 1", "si_pid = 2", "si_pid = 0", ", the PID clone() returned", "status=0"}},
    {"siginfo_as_nobody_without_privilege_fails_in_one_line",
     1,
     1,
     "pidns_siginfo; echo status=$?",
     {"pidns_siginfo: clone(CLONE_NEWPID): Operation not permitted", "status=1"},
     {"[init"}},
    {"siginfo_forge_shows_what_the_sender_wrote",
     1,
     0,
     "pidns_siginfo --forge; echo status=$?",
     {"[init ] rt_sigqueueinfo(1, SIGUSR1) from PID 2, claiming 4242: si_pid = 4242",
      "[init ] SIGCHLD, PID 2 exited: si_pid = 2",
      "[init ] kill(init, SIGUSR1) from the parent namespace: si_pid = 0", "status=0"},
     {"sigqueue(1, SIGUSR1)", "not the PID"}},
    {"siginfo_forge_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_siginfo --forge; echo status=$?",
     {"claiming 4242: si_pid = 4242", "status=0"}},
    {"siginfo_rejects_arguments",
     0,
     0,
     "pidns_siginfo extra; echo status=$?",
     {"pidns_siginfo: takes only --forge, not 'extra'", "status=1"},
     {"clone()"}},
    {"siginfo_rejects_a_second_argument",
     0,
     0,
     "pidns_siginfo --forge extra; echo status=$?",
     {"pidns_siginfo: takes only --forge, not 'extra'", "status=1"},
     {"clone()"}},

    /* pidns_mini_init */
    {"mini_init_reaps_orphans_and_returns_command_status",
     1,
     0,
     "pidns_mini_init sh -c 'o=$( (sleep 0.1 & echo $!) ); sleep 0.4;"
     " if kill -0 $o 2>/dev/null; then echo ORPHAN-ZOMBIE; else echo ORPHAN-GONE; fi;"
     " echo command-pid=$$; exit 3'; echo status=$?",
     {"running sh as PID 2", "reaped PID", "an orphan: exited with status 0", "ORPHAN-GONE",
      "command-pid=2", "PID 2 (sh) exited with status 3", "status=3"},
     {"ORPHAN-ZOMBIE"}},
    {"mini_init_without_reaping_leaves_zombies",
     1,
     0,
     "pidns_mini_init --no-reap sh -c 'o=$( (sleep 0.1 & echo $!) ); sleep 0.4;"
     " if kill -0 $o 2>/dev/null; then echo ORPHAN-ZOMBIE; else echo ORPHAN-GONE; fi'",
     {"ORPHAN-ZOMBIE", "1 orphan(s) stayed zombies until now"},
     {"ORPHAN-GONE", "reaped PID"}},
    {"mini_init_passes_sigterm_to_its_command",
     1,
     0,
     "pidns_mini_init sh -c 'trap \"echo TERM-REACHED-COMMAND; exit 5\" TERM;"
     " while :; do sleep 0.05; done' & p=$!; sleep 0.5; kill -TERM $p; wait $p;"
     " echo status=$?",
     {"passing SIGTERM on to PID 2", "TERM-REACHED-COMMAND", "status=5"}},
    {"mini_init_second_sigterm_kills_the_namespace",
     1,
     0,
     "pidns_mini_init sh -c 'trap \"\" TERM; sleep 30' & p=$!; sleep 0.5; kill -TERM $p;"
     " sleep 0.3; kill -TERM $p; wait $p; echo status=$?",
     {"passing SIGTERM on to PID 2", "second SIGTERM: killing the whole namespace", "status=137"}},
    {"mini_init_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_mini_init sh -c 'echo command-pid=$$'; echo status=$?",
     {"command-pid=2", "status=0"}},
    {"mini_init_bad_usage",
     0,
     0,
     "pidns_mini_init; echo status=$?; pidns_mini_init --bogus x; echo status=$?;"
     "pidns_mini_init -q no-such-command-here; echo status=$?",
     {"no COMMAND given", "status=125", "unknown option '--bogus' (try 'pidns_mini_init --help')",
      "status=125", "cannot run no-such-command-here", "status=127"}},

    /* pidns_orphan */
    {"orphan_goes_to_namespace_init_then_to_subreaper",
     1,
     0,
     "out=$(pidns_orphan); echo \"$out\"; echo status=$?;"
     "init=$(echo \"$out\" | sed -n 's/.*PID 1 inside, PID \\([0-9]*\\) here.*/\\1/p');"
     "echo \"$out\" | grep -q \"view: PPid: $init\" && echo CHECK-PPID-IS-THE-NAMESPACE-INIT",
     {"[no subreaper] orphan PID 3: parent PID 2 died; new parent PID 1",
      "-> re-parented to this namespace's init",
      "PID 1 reaped PID 2 (its child) and PID 3 (the adopted orphan)",
      "PID 4 made itself a child subreaper",
      "[subreaper] orphan PID 6: parent PID 5 died; new parent PID 4",
      "-> re-parented to the subreaper, not to init",
      "PID 4 reaped PID 5 (its child) and PID 6 (the adopted orphan)", "status=0",
      "CHECK-PPID-IS-THE-NAMESPACE-INIT"}},
    {"orphan_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_orphan",
     {"new parent PID 1", "new parent PID 4"}},
    {"orphan_rejects_arguments",
     0,
     0,
     "pidns_orphan 3; echo status=$?",
     {"unexpected argument '3'", "status=1"}},

    /* pidns_unshare */
    {"unshare_moves_only_future_children",
     1,
     0,
     "out=$(pidns_unshare); echo \"$out\";"
     "new=$(echo \"$out\" | sed -n 's/^first child: .*ns\\/pid = \\(pid:.*\\)$/\\1/p');"
     "echo \"$out\" | grep -qF \"= $new (changed)\" &&"
     " echo CHECK-FIRST-CHILD-IS-IN-PID-FOR-CHILDREN;"
     "[ \"$(readlink /proc/self/ns/pid)\" != \"$new\" ] && echo CHECK-CALLER-DID-NOT-MOVE",
     {"before unshare(CLONE_NEWPID):", "after unshare(CLONE_NEWPID):", "/proc/self/ns/pid = pid:[",
      "(unchanged)", "/proc/self/ns/pid_for_children = (unreadable: ENOENT, no init yet)",
      "first child: getpid() = 1, getppid() = 0", "(changed)",
      "second child: getpid() = 2, getppid() = 0",
      "second unshare(CLONE_NEWPID): failed with EINVAL",
      "fork() after the first child (PID 1) ended: failed with ENOMEM",
      "CHECK-FIRST-CHILD-IS-IN-PID-FOR-CHILDREN", "CHECK-CALLER-DID-NOT-MOVE"}},
    {"unshare_launch_mounts_procfs_of_the_new_namespace",
     1,
     0,
     "before=$(grep -c . /proc/self/mountinfo);"
     "pidns_unshare --launch sh -c 'echo pid=$$; echo /proc/[0-9]*'; echo status=$?;"
     "pidns_unshare --launch sh -c 'exit 4'; echo status=$?;"
     "[ \"$before\" = \"$(grep -c . /proc/self/mountinfo)\" ] && echo CHECK-NO-MOUNT-LEAKED",
     {"pid=1", "/proc/1", "status=0", "status=4", "CHECK-NO-MOUNT-LEAKED"},
     {"/proc/2"}},
    {"unshare_launch_sigterm_ends_namespace_or_reaches_handler",
     1,
     0,
     "pidns_unshare --launch sleep 30 & p=$!; sleep 0.3; kill -TERM $p; wait $p;"
     " echo status=$?;"
     "pidns_unshare --launch sh -c 'trap \"echo TERM-REACHED; exit 9\" TERM;"
     " while :; do sleep 0.05; done' & p=$!; sleep 0.3; kill -TERM $p; wait $p;"
     " echo status=$?",
     {"status=137", "TERM-REACHED", "status=9"}},
    {"unshare_launch_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_unshare --launch sh -c 'echo pid=$$; echo /proc/[0-9]*'",
     {"pid=1", "/proc/1"},
     {"/proc/2"}},
    {"unshare_as_nobody_without_privilege_fails_saying_why",
     1,
     1,
     "pidns_unshare; echo status=$?",
     {"pidns_unshare: unshare(CLONE_NEWPID): Operation not permitted", "status=1"}},
    {"unshare_bad_usage",
     0,
     0,
     "pidns_unshare extra; echo status=$?; pidns_unshare --launch; echo status=$?;"
     "pidns_unshare --bogus; echo status=$?",
     {"unexpected argument 'extra'", "status=1", "--launch needs a COMMAND", "status=1",
      "unknown option '--bogus' (try 'pidns_unshare --help')", "status=1"}},

    /* pidns_setns */
    {"setns_child_lands_in_the_target_namespace",
     1,
     0,
     "pidns_unshare --launch sleep 30 & u=$!; sleep 0.3; t=$(pgrep -P $u);"
     "out=$(pidns_setns $t); echo \"$out\"; echo status=$?;"
     "echo \"$out\" | grep -qF \"pid_for_children = $(readlink /proc/$t/ns/pid) \" &&"
     " echo CHECK-PID-FOR-CHILDREN-IS-THE-TARGETS;"
     "pidns_setns --mount $t sh -c 'ls -d /proc/[0-9]*'; echo status=$?;"
     "kill -TERM $u; wait $u",
     {"this process did not move", "child: getpid() = 2, getppid() = 0", "status=0",
      "CHECK-PID-FOR-CHILDREN-IS-THE-TARGETS", "/proc/1", "status=0"}},
    {"setns_refuses_a_namespace_above_its_own",
     1,
     0,
     "unshare -pf pidns_setns $$; echo status=$?",
     {"setns(CLONE_NEWPID): Invalid argument", "is not ours or below ours", "status=1"}},
    {"setns_bad_usage",
     0,
     0,
     "pidns_setns; echo status=$?; pidns_setns abc; echo status=$?;"
     "pidns_setns 2147483647; echo status=$?",
     {"no PID given", "status=1", "'abc' is not a PID", "status=1", "no process 2147483647 here",
      "status=1"}},

    /* pidns_ancestry */
    {"ancestry_walks_up_to_our_namespace_then_eperm",
     1,
     0,
     "me=$(readlink /proc/self/ns/pid); out=$(pidns_ancestry 4); echo \"$out\";"
     "echo \"$out\" | grep -qF \"$me  depth 0\" && echo CHECK-DEPTH-0-IS-OURS;"
     "[ $(echo \"$out\" | grep -o 'pid:\\[[0-9]*\\]' | sort -u | wc -l) = 5 ] &&"
     " echo CHECK-FIVE-DISTINCT-NAMESPACES",
     {"created 4 nested PID namespace(s)", "depth 4, the deepest (CLONE_NEWPID", "depth 3 (",
      "depth 2 (", "depth 1 (", "depth 0, this process's own namespace",
      "ioctl(NS_GET_PARENT) -> EPERM", "NS_GET_PARENT on its own namespace -> EPERM",
      "CHECK-DEPTH-0-IS-OURS", "CHECK-FIVE-DISTINCT-NAMESPACES"}},
    {"ancestry_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_ancestry 2",
     {"depth 2, the deepest", "depth 1 (", "depth 0,", "-> EPERM"}},
    {"ancestry_bad_usage",
     0,
     0,
     "pidns_ancestry 0; echo status=$?; pidns_ancestry 33; echo status=$?;"
     "pidns_ancestry abc; echo status=$?; pidns_ancestry 1 2; echo status=$?",
     {"LEVELS must be a number from 1 to 32, not '0'", "status=1", "not '33'", "status=1",
      "not 'abc'", "status=1", "too many arguments", "status=1"}},

    /* pidns_max_depth: the level reached depends on where the test runs
     * (a CI container is already nested), so check it relative to itself. */
    {"max_depth_stops_with_enospc_one_level_fewer_when_nested",
     1,
     0,
     "pidns_max_depth; echo status=$?;"
     "a=$(pidns_max_depth | sed -n 's/^created \\([0-9]*\\) nested.*/\\1/p');"
     "b=$(unshare -pf pidns_max_depth | sed -n 's/^created \\([0-9]*\\) nested.*/\\1/p');"
     "[ $((a - 1)) -eq \"$b\" ] && echo CHECK-ONE-LEVEL-FEWER-WHEN-NESTED;"
     "[ \"$a\" -ge 1 ] && [ \"$a\" -le 32 ] && echo CHECK-AT-MOST-32",
     {"this process: NSpid:", "nested PID namespace(s) below this process",
      "failed: ENOSPC (No space left on device)", "the deepest process: NSpid:",
      "(MAX_PID_NS_LEVEL)", "status=0", "CHECK-ONE-LEVEL-FEWER-WHEN-NESTED", "CHECK-AT-MOST-32"}},
    {"max_depth_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_max_depth",
     {"failed: ENOSPC"}},
    {"max_depth_bad_usage",
     0,
     0,
     "pidns_max_depth 5; echo status=$?",
     {"unknown argument '5'", "status=1"}},

    /* pidns_set_tid */
    {"set_tid_chooses_pids_in_both_namespaces",
     1,
     0,
     "out=$(pidns_set_tid); echo \"$out\";"
     "outer=$(echo \"$out\" | sed -n 's/.*set_tid = {42, \\([0-9]*\\)}.*/\\1/p' | head -n1);"
     "echo \"$out\" | grep -q \"NSpid: $outer 42\" && echo CHECK-NSPID-HAS-BOTH-CHOSEN-PIDS",
     {"[init] getpid() = 1; ns_last_pid = 1", "[42] getpid() = 42; NSpid:",
      "(a chosen PID does not move the counter)", "again while 42 lives -> EEXIST",
      "wrote 99 to ns_last_pid; fork() -> PID 100", "CHECK-NSPID-HAS-BOTH-CHOSEN-PIDS"}},
    {"set_tid_as_nobody_chooses_only_inside",
     1,
     1,
     "unshare -r pidns_set_tid 7",
     {"-> EPERM: choosing a PID in the parent namespace needs privilege", "[7] getpid() = 7",
      "fork() -> PID 100"}},
    {"set_tid_bad_usage",
     0,
     0,
     "pidns_set_tid 1; echo status=$?; pidns_set_tid abc; echo status=$?;"
     "pidns_set_tid 99999999; echo status=$?",
     {"INNER_PID must be a number from 2 to", "not '1'", "status=1", "not 'abc'", "status=1",
      "not '99999999'", "status=1"}},

    /* pidns_nsid: inode numbers come back, IDs (Linux 6.18) do not; a handle
     * opens its own namespace, and nothing once that one is gone. Before 6.18
     * the script checks the program's "needs Linux 6.18" instead. */
    {"nsid_inode_comes_back_the_id_does_not",
     1,
     0,
     "out=$(pidns_nsid --reuse --ids); echo \"$out\";"
     "i1=$(echo \"$out\" | sed -n 's/^made and left: pid:\\[\\([0-9]*\\)\\].*/\\1/p' | tail -n 1);"
     "i2=$(echo \"$out\" | sed -n 's/^the newcomer: pid:\\[\\([0-9]*\\)\\].*/\\1/p');"
     "[ -n \"$i1\" ] && [ \"$i1\" = \"$i2\" ] && echo CHECK-SAME-INODE-TWICE;"
     "d1=$(echo \"$out\" | sed -n 's/^made and left: .*, id \\([0-9]*\\)$/\\1/p' | tail -n 1);"
     "d2=$(echo \"$out\" | sed -n 's/^the newcomer: .*, id \\([0-9]*\\)$/\\1/p');"
     "if echo \"$out\" | grep -q 'id unknown (NS_GET_ID needs Linux 6.18)'; then"
     " echo CHECK-IDS-DIFFER-OR-OLD-KERNEL;"
     " elif [ -n \"$d1\" ] && [ -n \"$d2\" ] && [ \"$d1\" != \"$d2\" ]; then"
     " echo CHECK-IDS-DIFFER-OR-OLD-KERNEL; fi;"
     "s=$(stat -L -c %i /proc/self/ns/pid);"
     "pidns_nsid | grep -q \"^/proc/self/ns/pid: pid:\\[$s\\], \" && echo CHECK-INODE-AS-STAT-SAYS",
     {"made and left: pid:[", "made again until that inode came back:", "the newcomer: pid:[",
      "CHECK-SAME-INODE-TWICE", "CHECK-IDS-DIFFER-OR-OLD-KERNEL", "CHECK-INODE-AS-STAT-SAYS"}},
    {"nsid_handle_opens_its_namespace_then_nothing",
     1,
     0,
     "h=$(mktemp);"
     "if ! pidns_nsid --save $h /proc/self/ns/pid 2>&1 | grep -q 'saved to'; then"
     " pidns_nsid --save $h /proc/self/ns/pid 2>&1 | grep -q 'need Linux 6.18' &&"
     " echo CHECK-OPENS-INSIDE CHECK-ESTALE-IN-NEWCOMER;"
     "else in=$(unshare -pf sh -c \"pidns_nsid --save $h /proc/self/ns/pid >/dev/null &&"
     " readlink /proc/self/ns/pid && pidns_nsid --open $h\"); echo \"$in\";"
     " n=$(echo \"$in\" | head -n 1);"
     " echo \"$in\" | grep -qxF \"open_by_handle_at: $n, id $(pidns_nsid --open $h |"
     " sed -n 's/.*: id \\([0-9]*\\), type.*/\\1/p' | head -n 1)\" && echo CHECK-OPENS-INSIDE;"
     " out=$(pidns_nsid --reuse --open $h); echo \"$out\";"
     " echo \"$out\" | grep -qxF \"the newcomer: $n\" &&"
     " echo \"$out\" | grep -q '^open_by_handle_at: ESTALE' && echo CHECK-ESTALE-IN-NEWCOMER; fi;"
     "rm -f $h",
     {"CHECK-OPENS-INSIDE", "CHECK-ESTALE-IN-NEWCOMER"},
     {"open_by_handle_at: pid:[0"}},
    /* The handle names the namespace the program runs in, so that its
     * number stays taken: the round ends, and says so. Its own /proc: the
     * program holds newcomers by /proc/PID. */
    {"nsid_reuse_says_when_the_number_stays_taken",
     1,
     0,
     "h=$(mktemp);"
     "if pidns_nsid --save $h /proc/self/ns/pid 2>&1 | grep -q 'need Linux 6.18'; then"
     " echo CHECK-TAKEN-SAID CHECK-STATUS-1;"
     "else out=$(unshare -pf --mount-proc sh -c \"pidns_nsid --save $h /proc/self/ns/pid "
     ">/dev/null &&"
     " pidns_nsid --reuse --open $h; echo status=\\$?\"); echo \"$out\";"
     " echo \"$out\" | grep -q '^pid:\\[[0-9]*\\] did not come back in 2000 tries' &&"
     " echo \"$out\" | grep -qF \"(or its own namespace lives still: 'pidns_nsid --open $h' "
     "tells)\" &&"
     " echo CHECK-TAKEN-SAID; echo \"$out\" | grep -qx status=1 && echo CHECK-STATUS-1; fi;"
     "rm -f $h",
     {"CHECK-TAKEN-SAID", "CHECK-STATUS-1"},
     {"the newcomer"}},
    {"nsid_as_nobody_in_a_user_namespace",
     1,
     1,
     "unshare -r pidns_nsid --reuse",
     {"made and left: pid:[", "made again until that inode came back:", "the newcomer: pid:["}},
    {"nsid_bad_usage",
     0,
     0,
     "pidns_nsid --bogus; echo status=$?; pidns_nsid --save x; echo status=$?;"
     "pidns_nsid --open /etc/hostname; echo status=$?; pidns_nsid --reuse x; echo status=$?;"
     "pidns_nsid --list extra; echo status=$?",
     {"unknown option '--bogus'", "status=1", "--save takes HANDLE and FILE", "status=1",
      "not a namespace file handle", "status=1", "--reuse takes --ids or --open HANDLE", "status=1",
      "--list takes no argument", "status=1"}},
};
#pragma GCC diagnostic pop

int main(void)
{
    /* Copies nobody can run wherever the checkout is (stage.h), by
     * absolute path: the sandbox changes the root. */
    const char *staged = tl_stage_examples();
    if (staged == NULL)
        return 1;
    snprintf(examples_dir, sizeof examples_dir, "%s", staged);
    size_t n = sizeof cases / sizeof cases[0];
    struct CMUnitTest tests[sizeof cases / sizeof cases[0]];
    for (size_t i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){cases[i].name, run_case, NULL, NULL, (void *)&cases[i]};
    int failed = _cmocka_run_group_tests("test_beyond", tests, n, NULL, NULL);
    tl_unstage();
    return failed;
}
