/* SPDX-License-Identifier: MIT */
/* test_probes.c: the visibility probes (examples/pidns_probe.c and
 * examples/pidns_kill_probe.c) report what the kernel really shows, in and
 * out of new PID namespaces, as root and as nobody in a user namespace; their
 * output survives a pipe; bad arguments fail cleanly; nothing is left behind.
 *
 * Every privileged run happens in a forked child that has entered the sandbox
 * (tests/lib/testlib.h); the child sends the command's output back through a
 * pipe so that the assertions run here, in the test process.
 */
#include "stage.h"
#include "testlib.h"
#include "lab/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

enum probes_who { PROBES_ROOT, PROBES_NOBODY };
static enum probes_who probes_as_root = PROBES_ROOT, probes_as_nobody = PROBES_NOBODY;

/* The examples, staged where nobody can run them (stage.h). */
static const char *probes_examples;

#define PROBES_SANDBOX_FAILED 77 /* the child's status when it could not get in */

/* In a forked child: become nobody if asked, enter the sandbox, run cmd with
 * tl_sh(), and write its exit status then its output to fd. */
static void probes_child(const char *cmd, enum probes_who who, int fd)
{
    char err[512], *out = NULL;

    if (who == PROBES_NOBODY && geteuid() == 0) /* else: already ordinary */
        tl_become_nobody();
    if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
        fprintf(stderr, "sandbox_enter: %s\n", err);
        _exit(PROBES_SANDBOX_FAILED);
    }
    /* A process left holding the output pipe would make tl_sh() wait
     * forever: fail the run instead, after a time no probe comes near. */
    alarm(30);
    int rc = tl_sh(cmd, &out);
    size_t len = out != NULL ? strlen(out) : 0;
    if (write(fd, &rc, sizeof rc) != sizeof rc || write(fd, out, len) != (ssize_t)len)
        _exit(1);
    _exit(0);
}

/* Runs cmd (sh -c, stdout and stderr together) in a sandboxed child as who.
 * Returns its exit status and its output in *out (free it); skips the test
 * when the sandbox cannot be entered for lack of a privilege. */
static int probes_run(const char *cmd, enum probes_who who, char **out)
{
    int fds[2], rc = -1, status;
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    ssize_t n;

    assert_non_null(buf);
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_int_not_equal(pid, -1);
    if (pid == 0) {
        close(fds[0]);
        probes_child(cmd, who, fds[1]);
    }
    close(fds[1]);
    if (read(fds[0], &rc, sizeof rc) != sizeof rc)
        rc = -1;
    while ((n = read(fds[0], buf + len, cap - len - 1)) > 0)
        if ((len += n) == cap - 1)
            assert_non_null(buf = realloc(buf, cap *= 2));
    buf[len] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROBES_SANDBOX_FAILED) {
        free(buf);
        print_message("SKIP: kernel: cannot enter the sandbox as %s (user namespaces disabled?)\n",
                      who == PROBES_NOBODY ? "nobody" : "root");
        skip();
    }
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    *out = buf;
    return rc;
}

/* Nothing of ours is left: no /procN mount or new entry in the host's root
 * (the testlib snapshot), and no process. The test program is a child
 * subreaper (see main), so every orphan of a run becomes our child: while we
 * have a child, something is left. (Counting processes of other namespaces
 * would also see other users' containers on a shared machine.) */
static void probes_assert_nothing_left(struct tl_host_snapshot *before)
{
    struct tl_host_snapshot after;
    pid_t pid = 0;

    tl_host_snapshot(&after);
    int same_mounts =
        after.mounts != NULL && before->mounts != NULL && strcmp(after.mounts, before->mounts) == 0;
    int same_root = after.root_list != NULL && before->root_list != NULL &&
                    strcmp(after.root_list, before->root_list) == 0;
    tl_host_snapshot_free(&after);
    tl_host_snapshot_free(before);
    assert_true(same_mounts);
    assert_true(same_root);
    /* A killed namespace takes a moment to be torn down: allow up to 2 s. */
    for (int tries = 0; tries < 200; tries++) {
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (pid == -1)
            break;
        usleep(10000);
    }
    if (pid != -1)
        tl_shf(NULL, "ps -o pid,pidns,cmd --ppid %ld >&2", (long)getpid());
    assert_int_equal(pid, -1);
    assert_int_equal(errno, ECHILD);
}

/* The variant's user. The "nobody" variants run as the ordinary user we are
 * when we are not root; the "root" ones need root. */
static enum probes_who probes_who(void **state)
{
    enum probes_who who = *(enum probes_who *)*state;
    if (who == PROBES_ROOT && geteuid() != 0) {
        print_message("SKIP: the root variant needs root (run make check as root)\n");
        skip();
    }
    return who;
}

/* How many "  level N: PID" lines the NSpid part has; *last gets the last PID. */
static int probes_nspid_levels(const char *out, long *last)
{
    int count = 0;
    char key[32];
    for (;;) {
        snprintf(key, sizeof key, "  level %d: PID ", count);
        long pid = tl_number_after(out, key);
        if (pid < 0)
            return count;
        *last = pid;
        count++;
    }
}

/* The NSpid depth of the test process itself: the probes' are relative to it. */
static int probes_own_levels(void)
{
    char *out = NULL;
    assert_int_equal(tl_sh("grep NSpid: /proc/$$/status | wc -w", &out), 0);
    int words = atoi(out);
    free(out);
    assert_true(words >= 2);
    return words - 1;
}

static const char *probes_probe(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/pidns_probe", probes_examples);
    return path;
}

static const char *probes_kill_probe(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/pidns_kill_probe", probes_examples);
    return path;
}

static void test_probe_run_directly_sees_its_parent_and_own_levels(void **state)
{
    enum probes_who who = probes_who(state);
    struct tl_host_snapshot before;
    char *out;
    long last = -1;

    tl_host_snapshot(&before);
    assert_int_equal(probes_run(probes_probe(), who, &out), 0);
    assert_true(tl_number_after(out, "getppid() = ") > 0);
    assert_non_null(strstr(out, "the parent is visible from here"));
    /* Relative to /proc: as many levels as the test itself has (one on a host). */
    assert_int_equal(probes_nspid_levels(out, &last), probes_own_levels());
    assert_int_equal(last, tl_number_after(out, "getpid()  = "));
    assert_non_null(strstr(out, "-> EPERM"));
    free(out);
    probes_assert_nothing_left(&before);
}

/* "pid:[INODE]" as printed after key, or 0. */
static unsigned long probes_inode_after(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    return p == NULL ? 0 : strtoul(p + strlen(key) + strlen("pid:["), NULL, 10);
}

static void test_probe_as_init_of_a_child_namespace(void **state)
{
    enum probes_who who = probes_who(state);
    struct tl_host_snapshot before;
    char *out, cmd[4300];
    long last = -1;

    tl_host_snapshot(&before);
    snprintf(cmd, sizeof cmd, "unshare -pf %s", probes_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    assert_int_equal(tl_number_after(out, "getpid()  = "), 1);
    assert_int_equal(tl_number_after(out, "getppid() = "), 0);
    assert_non_null(strstr(out, "ancestor namespace that this"));
    assert_int_equal(probes_nspid_levels(out, &last), probes_own_levels() + 1);
    assert_int_equal(last, 1);
    /* The walk starts at our own namespace and stops there with EPERM. */
    unsigned long own = probes_inode_after(out, "/proc/self/ns/pid              -> ");
    assert_true(own != 0);
    char line[256];
    snprintf(line, sizeof line,
             "  pid:[%lu]  this process's namespace\n  ioctl(NS_GET_PARENT) "
             "-> EPERM: the parent is outside",
             own);
    assert_non_null(strstr(out, line));
    free(out);
    probes_assert_nothing_left(&before);
}

static void test_probe_three_levels_down_sees_three_more_levels(void **state)
{
    enum probes_who who = probes_who(state);
    char *out, cmd[4300];
    long last = -1;

    snprintf(cmd, sizeof cmd, "unshare -pf unshare -pf unshare -pf %s", probes_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    assert_int_equal(probes_nspid_levels(out, &last), probes_own_levels() + 3);
    assert_int_equal(last, 1);
    assert_non_null(strstr(out, "-> EPERM: the parent is outside"));
    free(out);
}

/* util-linux "unshare -p" without -f execs the probe directly: the probe is
 * still in the old namespace, only its children would go to the new one, and
 * the kernel shows that namespace once its init exists (pidns_unshare's
 * tests follow it further). */
static void test_probe_after_unshare_without_fork_shows_no_children_link_yet(void **state)
{
    enum probes_who who = probes_who(state);
    struct tl_host_snapshot before;
    char *out, cmd[4300];

    tl_host_snapshot(&before);
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 unshare -p %s", probes_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    assert_true(tl_number_after(out, "getppid() = ") > 0);
    unsigned long own = probes_inode_after(out, "/proc/self/ns/pid              -> ");
    assert_true(own != 0);
    assert_non_null(strstr(out, "/proc/self/ns/pid_for_children: no target yet"));
    /* The walk starts at our own namespace, then EPERM. */
    char walk[256];
    snprintf(walk, sizeof walk,
             "  pid:[%lu]  this process's namespace\n  ioctl(NS_GET_PARENT) -> EPERM", own);
    assert_non_null(strstr(out, walk));
    free(out);
    probes_assert_nothing_left(&before);
}

static void test_probe_parents_marks_the_namespace_boundary(void **state)
{
    enum probes_who who = probes_who(state);
    char *out, cmd[4300];

    snprintf(cmd, sizeof cmd, "unshare -pf %s", tl_example("pidns_parents"));
    assert_int_equal(probes_run(cmd, who, &out), 0);
    const char *first = strstr(out, "<- this process");
    const char *boundary = strstr(out, "-------- namespace boundary");
    assert_non_null(first);
    assert_non_null(boundary);
    assert_true(first < boundary);
    assert_non_null(strstr(boundary, " unshare ")); /* the parent, outside */
    free(out);
}

/* Checks every probe line of pidns_kill_probe: nothing UNEXPECTED, the key
 * verdicts present, and as many probe lines as the summary counts. */
static void probes_check_kill_output(const char *out)
{
    char line[128];
    long parent = tl_number_after(out, "outside: this process is PID ");
    long child = tl_number_after(out, "outside: clone(CLONE_NEWPID) -> ");
    int lines = 0;

    assert_true(parent > 0 && child > 0);
    assert_null(strstr(out, "UNEXPECTED"));
    assert_non_null(strstr(out, "inside : getpid() -> 1 "));
    assert_non_null(strstr(out, "inside : getppid() -> 0 "));
    assert_non_null(strstr(out, "inside : kill(1, 0) -> success"));
    assert_non_null(strstr(out, "inside : kill(2, 0) -> success"));
    snprintf(line, sizeof line, "inside : kill(%ld, 0) -> %s", parent,
             parent <= 2 ? "success (PID" : "ESRCH (not visible");
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(out, "-> ESRCH (not visible")); /* at least one outside PID */
    assert_non_null(strstr(out, "inside : kill(1, SIGTERM) -> success, and PID 1 is still"));
    snprintf(line, sizeof line, "outside: kill(%ld, 0) -> success (visible", child);
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(out, "inside : sigwaitinfo() -> SIGUSR1 from PID 0 "));
    assert_non_null(strstr(out, "-> killed by SIGKILL"));
    assert_non_null(strstr(out, "-> EOF, it is gone"));
    for (const char *p = out; (p = strstr(p, "\n")) != NULL; p++)
        if (strncmp(p + 1, "inside : ", 9) == 0 || strncmp(p + 1, "outside: ", 9) == 0)
            lines++;
    /* Probe lines, plus three that only inform: witness, clone, fork. */
    assert_int_equal(tl_number_after(out, "summary: "), lines - 4);
    assert_non_null(strstr(out, " probes, all as the kernel documents\n"));
}

static void test_kill_probe_verdicts_hold(void **state)
{
    enum probes_who who = probes_who(state);
    struct tl_host_snapshot before;
    char *out;

    tl_host_snapshot(&before);
    assert_int_equal(probes_run(probes_kill_probe(), who, &out), 0);
    probes_check_kill_output(out);
    free(out);
    probes_assert_nothing_left(&before);
}

/* Run as PID 1 of a namespace, the parent's own PID (1) and the witness's
 * (2) also name processes inside the child's namespace: the probe says so
 * instead of reporting a visibility it did not test. */
static void test_kill_probe_guards_pids_that_exist_on_both_sides(void **state)
{
    enum probes_who who = probes_who(state);
    char *out, cmd[4300];

    snprintf(cmd, sizeof cmd, "unshare -pf %s", probes_kill_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    probes_check_kill_output(out);
    assert_non_null(strstr(out, "outside: this process is PID 1\n"));
    assert_non_null(strstr(out, "inside : kill(1, 0) -> success (PID 1 is the parent in the "
                                "parent namespace, but here the same number names this process"));
    free(out);
}

/* The position lesson 7 uses: at the bottom of multi_pidns (another
 * example, from the examples branch); skipped when it is not built. */
static void test_probes_at_the_bottom_of_multi_pidns(void **state)
{
    enum probes_who who = probes_who(state);
    struct tl_host_snapshot before;
    char multi[4200], *out, cmd[20000];
    long last = -1;

    snprintf(multi, sizeof multi, "%s/multi_pidns", probes_examples);
    if (access(multi, X_OK) == -1) {
        print_message("SKIP: %s is not built (it comes with the examples)\n", multi);
        skip();
    }
    tl_host_snapshot(&before);
    snprintf(cmd, sizeof cmd, "%s 3 %s && %s 3 %s", multi, probes_probe(), multi,
             probes_kill_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    assert_int_equal(tl_number_after(out, "getpid()  = "), 1);
    assert_int_equal(tl_number_after(out, "getppid() = "), 0);
    assert_int_equal(probes_nspid_levels(out, &last), probes_own_levels() + 3);
    assert_int_equal(last, 1);
    assert_non_null(strstr(out, "-> EPERM: the parent is outside"));
    /* The /procK that multi_pidns mounted are matched to their levels. */
    char line[128];
    snprintf(line, sizeof line,
             "  level %d: PID 1         in this process's own namespace; "
             "also the PID in the procfs at /proc0\n",
             probes_own_levels() + 2);
    assert_non_null(strstr(out, line));
    snprintf(line, sizeof line, "  level %d: PID 3         also the PID in the procfs at /proc2\n",
             probes_own_levels());
    assert_non_null(strstr(out, line));
    probes_check_kill_output(strstr(out, "pidns_kill_probe: who can"));
    free(out);
    probes_assert_nothing_left(&before);
}

static void test_bad_arguments_get_usage_and_fail(void **state)
{
    (void)state;
    const char *programs[] = {probes_probe(), probes_kill_probe()};
    struct tl_host_snapshot before;
    char *out;

    tl_host_snapshot(&before);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tl_shf(&out, "%s --no-such-option", programs[i]), 1);
        assert_non_null(strstr(out, "unknown option '--no-such-option' (try '"));
        free(out);
        assert_int_equal(tl_shf(&out, "%s extra", programs[i]), 1);
        assert_non_null(strstr(out, ": unexpected argument 'extra' (try '"));
        free(out);
        assert_int_equal(tl_shf(&out, "%s --help", programs[i]), 0);
        assert_non_null(strstr(out, "Usage: "));
        free(out);
    }
    probes_assert_nothing_left(&before);
}

/* The children's lines are written by processes that are killed or end with
 * _exit(): through a pipe and into a file, every line must arrive, in order. */
static void test_output_through_a_pipe_arrives_whole(void **state)
{
    enum probes_who who = probes_who(state);
    char *out, cmd[13000];

    snprintf(cmd, sizeof cmd,
             "f=$(mktemp) && %s > \"$f\"; %s | cat | cat; "
             "ASAN_OPTIONS=detect_leaks=0 unshare -p %s | cat; cat \"$f\"; rm -f \"$f\"",
             probes_kill_probe(), probes_kill_probe(), probes_probe());
    assert_int_equal(probes_run(cmd, who, &out), 0);
    /* Twice the whole kill probe, each ending with its summary. */
    const char *first = strstr(out, "\nsummary: 14 probes, all as the kernel documents\n");
    assert_non_null(first);
    assert_non_null(strstr(first + 1, "\nsummary: 14 probes, all as the kernel documents\n"));
    const char *inside = strstr(out, "inside : sigwaitinfo()");
    assert_true(inside != NULL && inside < first);
    /* The probe after unshare without fork ends with its ancestry. */
    assert_non_null(strstr(out, "this process's namespace\n  ioctl(NS_GET_PARENT) -> EPERM"));
    free(out);
}

/* The running --wait probe and its pipes, for the teardown to end them when
 * an assertion failed half-way. */
static pid_t probes_waiting = -1;
static int probes_waiting_fds[2] = {-1, -1};

static int probes_teardown_waiting(void **state)
{
    (void)state;
    if (probes_waiting > 0) {
        kill(-probes_waiting, SIGKILL);
        waitpid(probes_waiting, NULL, 0);
        probes_waiting = -1;
    }
    for (int i = 0; i < 2; i++)
        if (probes_waiting_fds[i] != -1) {
            close(probes_waiting_fds[i]);
            probes_waiting_fds[i] = -1;
        }
    while (waitpid(-1, NULL, WNOHANG) > 0) /* orphans we collected */
        ;
    return 0;
}

/* Starts pidns_kill_probe --wait in its own process group, stdin and stdout
 * on pipes, and reads until it waits for Enter. Returns its PID. */
static pid_t probes_start_waiting_kill_probe(int *in_fd, int *out_fd)
{
    int in[2], out[2];
    assert_int_equal(pipe2(in, O_CLOEXEC), 0);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_int_not_equal(pid, -1);
    if (pid == 0) {
        setpgid(0, 0);
        if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1)
            _exit(126);
        execl(probes_kill_probe(), "pidns_kill_probe", "--wait", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* also here, so that it is done before we signal */
    close(in[0]);
    close(out[1]);
    probes_waiting = pid;
    *in_fd = probes_waiting_fds[0] = in[1];
    *out_fd = probes_waiting_fds[1] = out[0];
    return pid;
}

/* Reads from fd until text arrives; fails (rather than hangs) after 10 s
 * without output, e.g. when a line is stuck in the program's buffer. */
static void probes_read_until(int fd, const char *text, char *buf, size_t size)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    size_t len = 0;
    ssize_t n = 1;
    buf[0] = '\0';
    while (strstr(buf, text) == NULL && len < size - 1 && n > 0) {
        if (poll(&p, 1, 10000) != 1) {
            print_message("no output for 10 s; so far:\n%s\n", buf);
            break;
        }
        n = read(fd, buf + len, size - 1 - len);
        len += n > 0 ? n : 0;
        buf[len] = '\0';
    }
    assert_non_null(strstr(buf, text));
}

/* Ctrl-C (SIGINT to the process group) or SIGTERM to the probe alone: the
 * init of the child namespace ignores both, so the probe must kill it. As a
 * child subreaper we inherit every orphan, so waitpid() can prove that all
 * its processes are gone, not merely out of sight. */
static void probes_interrupt(int sig, int to_group)
{
    struct tl_host_snapshot before;
    char buf[8192];
    int in_fd, out_fd, status, reaped = 0;

    TL_REQUIRE_ROOT();
    tl_host_snapshot(&before);
    pid_t pid = probes_start_waiting_kill_probe(&in_fd, &out_fd);
    probes_read_until(out_fd, "then press Enter", buf, sizeof buf);
    assert_int_equal(kill(to_group ? -pid : pid, sig), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    probes_waiting = -1;
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);
    /* The witness and the init, orphaned, came to us. The init's own child
     * died with the namespace and was reaped by the init. */
    while (waitpid(-1, &status, 0) > 0)
        reaped++;
    assert_int_equal(errno, ECHILD);
    assert_int_equal(reaped, 2);
    probes_assert_nothing_left(&before);
}

static void test_kill_probe_sigterm_ends_the_whole_namespace(void **state)
{
    (void)state;
    probes_interrupt(SIGTERM, 0);
}

static void test_kill_probe_ctrl_c_ends_the_whole_namespace(void **state)
{
    (void)state;
    probes_interrupt(SIGINT, 1);
}

static void test_kill_probe_enter_ends_the_namespace(void **state)
{
    (void)state;
    char buf[16384];
    int in_fd, out_fd, status;

    TL_REQUIRE_ROOT();
    pid_t pid = probes_start_waiting_kill_probe(&in_fd, &out_fd);
    probes_read_until(out_fd, "then press Enter", buf, sizeof buf);
    assert_int_equal(write(in_fd, "\n", 1), 1);
    size_t len = strlen(buf);
    probes_read_until(out_fd, "summary: ", buf + len, sizeof buf - len);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    probes_waiting = -1;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

#define PROBES_AS(test, who)                                                                       \
    {                                                                                              \
#test " (as " #who ")", test, NULL, NULL, &probes_as_##who                                 \
    }
#define PROBES_BOTH(test) PROBES_AS(test, root), PROBES_AS(test, nobody)

#define PROBES_WAITING(test) cmocka_unit_test_teardown(test, probes_teardown_waiting)

int main(void)
{
    const struct CMUnitTest tests[] = {
        PROBES_BOTH(test_probe_run_directly_sees_its_parent_and_own_levels),
        PROBES_BOTH(test_probe_as_init_of_a_child_namespace),
        PROBES_AS(test_probe_three_levels_down_sees_three_more_levels, root),
        PROBES_BOTH(test_probe_after_unshare_without_fork_shows_no_children_link_yet),
        PROBES_BOTH(test_probes_at_the_bottom_of_multi_pidns),
        PROBES_AS(test_probe_parents_marks_the_namespace_boundary, root),
        PROBES_BOTH(test_kill_probe_verdicts_hold),
        PROBES_AS(test_kill_probe_guards_pids_that_exist_on_both_sides, root),
        cmocka_unit_test(test_bad_arguments_get_usage_and_fail),
        PROBES_AS(test_output_through_a_pipe_arrives_whole, root),
        PROBES_WAITING(test_kill_probe_sigterm_ends_the_whole_namespace),
        PROBES_WAITING(test_kill_probe_ctrl_c_ends_the_whole_namespace),
        PROBES_WAITING(test_kill_probe_enter_ends_the_namespace),
    };
    /* Orphans of every run come to us, so that we can prove none is left. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
        perror("test_probes: prctl(PR_SET_CHILD_SUBREAPER)");
        return 1;
    }
    if ((probes_examples = tl_stage_examples()) == NULL)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tl_unstage();
    return failed;
}
