/* SPDX-License-Identifier: MIT */
/* test_lab_user.c: the lab as an ordinary user (nobody, through a user
 * namespace) gives the article's results as root does; an outside terminal
 * enters it with the printed nsenter line; lab_diagnose() names the route,
 * or, when user namespaces are refused, the problem and its fix. */
#include "lab_holder.h"
#include "lab/lab_diagnose.h"
#include "lab/lab_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <sched.h>
#include <sys/syscall.h>

/* The article's first session, through the lab; output to fd. */
static int article_session(void *arg)
{
    int fd = *(int *)arg, failed = 0, status, job;
    enum lab_route want = geteuid() == 0 ? LAB_ROUTE_ROOT : LAB_ROUTE_USER_NAMESPACE;
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    EXPECT(lab_route(lab) == want, "the route: %d", lab_route(lab));
    EXPECT(lab_start(lab, "pidns_init_sleep /proc2", 2, &status, &job) == 1, "a job");
    const char *text = lt_capture(lab,
                                  "ls -d /proc2/[1-9]*; grep -E '^(Name|PP*id)' /proc2/1/status; "
                                  "grep -H 'Name:.*sleep' /proc?/[1-9]*/status; "
                                  "ps -C sleep -C pidns_init_sleep -o stat=,args=; id -u",
                                  NULL);
    lt_tell(fd, "%s", text);
    EXPECT(strstr(text, "/proc2/1\nName:\tsleep\nPid:\t1\nPPid:\t0\n") != NULL,
           "the namespace's init seen at /proc2:\n%s", text);
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

static char *session_output(int as_nobody)
{
    int pipefd[2];
    if (pipe(pipefd) == -1)
        return NULL;
    int status = lt_run_holder(article_session, &pipefd[1], as_nobody, 30);
    close(pipefd[1]);
    char *text = io_read_fd(pipefd[0], 1 << 16);
    close(pipefd[0]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_unprivileged_lab_runs_pidns_init_sleep_at_proc2(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    LT_REQUIRE_EXAMPLE("pidns_init_sleep");
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    char *text = session_output(1);
    assert_non_null(text);
    free(text);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

static void test_root_and_nobody_see_the_same_results(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    LT_REQUIRE_EXAMPLE("pidns_init_sleep");
    char *as_root = session_output(0), *as_nobody = session_output(1);
    assert_non_null(as_root);
    assert_non_null(as_nobody);
    /* Both are root in the lab (nobody through the user namespace's map). */
    assert_string_equal(as_root, as_nobody);
    free(as_root);
    free(as_nobody);
}

struct outside {
    int tell_fd, done_fd;
};

/* Holds a lab with /proc2 mounted until the test has entered it. */
static int hold_for_nsenter(void *arg)
{
    struct outside *o = arg;
    int failed = 0, status, job;
    char cmd[256], done;
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    lt_nested_command(cmd, sizeof cmd, 2, 100);
    EXPECT(lab_start(lab, cmd, 2, &status, &job) == 1, "a nested namespace");
    lt_tell(o->tell_fd, "%s\n", lab_nsenter_command(lab));
    EXPECT(read(o->done_fd, &done, 1) >= 0, "the test is done");
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

/* Runs sh -c command as root or nobody; returns its output (malloc'd). */
static char *run_outside(const char *command, int as_nobody)
{
    int pipefd[2];
    if (pipe(pipefd) == -1)
        return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (as_nobody)
            tl_become_nobody();
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    char *text = io_read_fd(pipefd[0], 1 << 16);
    close(pipefd[0]);
    waitpid(pid, NULL, 0);
    return text;
}

static void nsenter_from_outside(int as_nobody)
{
    int tell[2], done[2];
    char line[256], cmd[512];
    assert_int_equal(pipe(tell), 0);
    assert_int_equal(pipe(done), 0);
    struct outside o = {tell[1], done[0]};
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        close(done[1]); /* or the holder would never see the test is done */
        close(tell[0]);
        _exit(lt_run_holder(hold_for_nsenter, &o, as_nobody, 30) == 0 ? 0 : 1);
    }
    close(tell[1]);
    close(done[0]);
    int got = lt_read_line(tell[0], line, sizeof line, 20);
    snprintf(cmd, sizeof cmd, "%s sh -c 'ls -d /proc2/[1-9]*; cat /proc/1/comm; id -u'", line);
    char *text = got == 0 ? run_outside(cmd, as_nobody) : NULL;
    /* While the lab runs with /proc2 mounted, the host has neither. */
    int host_clean = access("/proc2", F_OK) == -1 &&
                     tl_sh("grep -qE ' /proc[0-9]+ ' /proc/self/mountinfo", NULL) == 1;
    close(done[1]);
    int status;
    waitpid(holder, &status, 0);
    print_message("%s: %s\n", as_nobody ? "nobody" : "root", line);
    assert_int_equal(got, 0);
    assert_non_null(text);
    assert_string_equal(text, "/proc2/1\nlab-init\n0\n");
    free(text);
    assert_true(host_clean);
    lt_assert_holder_passed(status);
}

static void test_nsenter_line_enters_the_lab_from_outside_as_root(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    nsenter_from_outside(0);
}

static void test_nsenter_line_enters_the_lab_from_outside_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    nsenter_from_outside(1);
}

static int diagnose_route(void *arg)
{
    int force = *(int *)arg, failed = 0;
    struct lab_config config = {lt_examples, force, 0, NULL, NULL};
    struct lab_diagnosis d;
    lab_diagnose(&config, &d);
    enum lab_route want = geteuid() == 0 && !force ? LAB_ROUTE_ROOT : LAB_ROUTE_USER_NAMESPACE;
    EXPECT(d.route == want && d.problem[0] == '\0', "route %d, problem '%s'", d.route, d.problem);
out:
    return failed;
}

static void test_diagnose_names_the_route_for_root_and_for_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int no = 0, yes = 1;
    lt_assert_holder_passed(lt_run_holder(diagnose_route, &no, 0, 30));
    lt_assert_holder_passed(lt_run_holder(diagnose_route, &yes, 0, 30));
    lt_assert_holder_passed(lt_run_holder(diagnose_route, &no, 1, 30));
}

/* As nobody in a user namespace where user.max_user_namespaces is 0: the
 * lab cannot open, says why and who can fix it (the namespace's owner, not
 * sudo), and changes nothing. */
static int refused_user_namespaces(void *arg)
{
    (void)arg;
    int failed = 0;
    char err[512], mnt_before[64] = "", mnt_after[64] = "";
    struct lab_diagnosis d;
    lab_diagnose(NULL, &d);
    EXPECT(d.route == LAB_ROUTE_NONE && strstr(d.problem, "user.max_user_namespaces is 0"),
           "problem: %s", d.problem);
    /* set inside a user namespace: sudo on the host would not raise it there */
    EXPECT(strstr(d.fix, "`echo 15000 >/proc/sys/user/max_user_namespaces`") != NULL &&
               strstr(d.fix, "sudo") == NULL,
           "fix: %s", d.fix);
    EXPECT(readlink("/proc/self/ns/mnt", mnt_before, sizeof mnt_before - 1) > 0, "ns");
    struct lab *lab = lab_open(NULL, err, sizeof err);
    EXPECT(lab == NULL, "no lab");
    EXPECT(strstr(err, d.problem) && strstr(err, d.fix), "lab_open says it: %s", err);
    EXPECT(readlink("/proc/self/ns/mnt", mnt_after, sizeof mnt_after - 1) > 0 &&
               strcmp(mnt_before, mnt_after) == 0,
           "still in the same mount namespace");
    fprintf(stderr, "lab_open: %s\n", err);
out:
    return failed;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd != -1 ? write(fd, text, strlen(text)) : -1;
    if (fd != -1)
        close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void test_refused_user_namespaces_give_the_problem_and_its_fix(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int go[2], ready[2];
    char byte, path[64];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    fflush(NULL);
    pid_t ns_owner = fork();
    if (ns_owner == 0) {
        /* Our own user namespace: its limit is ours to set, the host's stays. */
        if (unshare(CLONE_NEWUSER) == -1 || write(ready[1], "r", 1) != 1 ||
            read(go[0], &byte, 1) != 1)
            _exit(80);
        if (write_text("/proc/sys/user/max_user_namespaces", "0") == -1)
            _exit(81);
        int status = lt_run_holder(refused_user_namespaces, NULL, 1, 30);
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 82);
    }
    assert_int_equal(read(ready[0], &byte, 1), 1);
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)ns_owner);
    int mapped = write_text(path, "0 0 65536\n") == 0;
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)ns_owner);
    mapped = mapped && write_text(path, "0 0 65536\n") == 0;
    assert_int_equal(write(go[1], "g", 1), 1);
    int status;
    waitpid(ns_owner, &status, 0);
    assert_true(mapped);
    lt_assert_holder_passed(status);
    /* the host's own limit never changed */
    assert_int_equal(tl_sh("test \"$(cat /proc/sys/user/max_user_namespaces)\" != 0", NULL), 0);
}

/* Root without CAP_SYS_ADMIN, as in a container: the lab cannot make a mount
 * namespace directly, and takes the user-namespace route instead. */
static int root_without_cap_sys_admin(void *arg)
{
    (void)arg;
    int failed = 0;
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2];
    struct lab_diagnosis d;
    struct lab *lab = NULL;
    EXPECT(syscall(SYS_capget, &header, caps) == 0, "capget");
    for (int i = 0; i < 2; i++) /* CAP_SYS_ADMIN is bit 21 of the first word */
        caps[i].effective &= i == 0 ? ~(1u << CAP_SYS_ADMIN) : ~0u,
            caps[i].permitted &= i == 0 ? ~(1u << CAP_SYS_ADMIN) : ~0u, caps[i].inheritable = 0;
    EXPECT(prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN) == 0 && syscall(SYS_capset, &header, caps) == 0,
           "dropping CAP_SYS_ADMIN");
    lab_diagnose(NULL, &d);
    EXPECT(d.route == LAB_ROUTE_USER_NAMESPACE, "the diagnosis: %d %s", d.route, d.problem);
    lab = lt_open(0);
    EXPECT(lab != NULL && lab_route(lab) == LAB_ROUTE_USER_NAMESPACE, "the user-namespace route");
    EXPECT(strcmp(lt_capture(lab, "cat /proc/1/comm", NULL), "lab-init\n") == 0, "a working lab");
    EXPECT(lab_close(lab, NULL) == 0, "no process, mount or /procN left");
out:
    return failed;
}

static void test_root_without_cap_sys_admin_takes_the_user_namespace_route(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    lt_assert_holder_passed(lt_run_holder(root_without_cap_sys_admin, NULL, 0, 30));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unprivileged_lab_runs_pidns_init_sleep_at_proc2),
        cmocka_unit_test(test_root_and_nobody_see_the_same_results),
        cmocka_unit_test(test_nsenter_line_enters_the_lab_from_outside_as_root),
        cmocka_unit_test(test_nsenter_line_enters_the_lab_from_outside_as_nobody),
        cmocka_unit_test(test_diagnose_names_the_route_for_root_and_for_nobody),
        cmocka_unit_test(test_refused_user_namespaces_give_the_problem_and_its_fix),
        cmocka_unit_test(test_root_without_cap_sys_admin_takes_the_user_namespace_route),
    };
    return cmocka_run_group_tests(tests, lt_setup, lt_teardown);
}
