/* SPDX-License-Identifier: MIT */
/* test_lab.c: the lab as root: the article's paths, jobs, live output and
 * exit statuses, cleanup in the middle of a run, the verdict on the host.
 * (Crashes and concurrency: test_lab_crash.c; nobody, nsenter and the
 * diagnosis: test_lab_user.c; Ctrl-C: test_lab_signals.c.) */
#include "lab_holder.h"
#include "lab/lab_internal.h"
#include "lab/sandbox.h"
#include "procfs/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/mount.h>

static int article_paths(void *arg)
{
    (void)arg;
    int failed = 0, status = -1, job = 0, code;
    struct lab *lab = lt_open(0);
    const struct lab_job *jobs;
    char cmd[256], *text = NULL;
    EXPECT(lab != NULL, "a lab");
    EXPECT(lab_start(lab, "pidns_init_sleep /proc2", 1, &status, &job) == 1, "a job");
    EXPECT(strcmp(lt_capture(lab, "ls -d /proc2/[1-9]*", NULL), "/proc2/1\n") == 0, "only 1");
    const char *st = lt_capture(lab, "cat /proc2/1/status", NULL);
    EXPECT(strstr(st, "Name:\tsleep\n") && strstr(st, "\nPid:\t1\n") && strstr(st, "\nPPid:\t0\n"),
           "the namespace's init is sleep, PID 1, parent 0:\n%s", st);
    st = lt_capture(lab, "grep -H 'Name:.*sleep' /proc?/[1-9]*/status", &code);
    EXPECT(code == 0 && strcmp(st, "/proc2/1/status:Name:\tsleep\n") == 0, "grep: %s", st);
    /* The job is the example itself, with its PID in both namespaces. */
    EXPECT(lab_jobs(lab, &jobs) == 1 && jobs[0].running && jobs[0].lab_pid > 1, "one job");
    snprintf(cmd, sizeof cmd, "ps -C sleep -C pidns_init_sleep -o pid=,ppid=,comm=");
    st = lt_capture(lab, cmd, NULL);
    /* comm is cut at 15 characters */
    snprintf(cmd, sizeof cmd, "%d 2 pidns_init_slee\n%d %d sleep\n", (int)jobs[0].lab_pid,
             (int)jobs[0].lab_pid + 1, (int)jobs[0].lab_pid);
    char *squeezed = strdup(st), *w = squeezed;
    for (const char *r = st; *r; r++) /* collapse ps's column padding */
        if (!(*r == ' ' && (w == squeezed || w[-1] == ' ' || w[-1] == '\n')))
            *w++ = *r;
    *w = '\0';
    EXPECT(strstr(squeezed, cmd) != NULL, "ps in the lab shows the job and its child:\n%s", st);
    free(squeezed);
    snprintf(cmd, sizeof cmd, "/proc/%d/status", (int)jobs[0].pid);
    text = io_read_file(AT_FDCWD, cmd, 1 << 16);
    snprintf(cmd, sizeof cmd, "\t%d\n", (int)jobs[0].lab_pid);
    EXPECT(text != NULL && strstr(text, "Name:\tpidns_init_slee") && strstr(text, cmd),
           "the shell-side PID %d is the example, NSpid ending in its lab PID", (int)jobs[0].pid);
    /* /proc in the lab is the lab's namespace, the examples' parent. */
    EXPECT(strcmp(lt_capture(lab, "cat /proc/1/comm", NULL), "lab-init\n") == 0,
           "PID 1 is the keeper");
    free(text);
    text = io_read_file(AT_FDCWD, lab_path(lab, "/proc2/1/status"), 1 << 16);
    EXPECT(text != NULL && strstr(text, "Name:\tsleep"), "lab_path() reaches the lab's /proc2");
out:
    free(text);
    return failed;
}

static void test_article_paths_work_in_the_lab(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    LT_REQUIRE_EXAMPLE("pidns_init_sleep");
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    lt_assert_holder_passed(lt_run_holder(article_paths, NULL, 0, 30));
    assert_int_equal(access("/proc2", F_OK), -1);
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

static int examples_first(void *arg)
{
    (void)arg;
    int failed = 0;
    char want[PATH_MAX + 32];
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    snprintf(want, sizeof want, "%s:", lt_examples);
    const char *path = lt_capture(lab, "echo $PATH", NULL);
    EXPECT(strncmp(path, want, strlen(want)) == 0, "PATH starts with the examples: %s", path);
    snprintf(want, sizeof want, "%s/pidns_init_sleep\n", lt_examples);
    const char *found = lt_capture(lab, "command -v pidns_init_sleep", NULL);
    EXPECT(strcmp(found, want) == 0, "the bundled example is found first: %s", found);
out:
    return failed;
}

static void test_examples_dir_comes_first_on_path(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    LT_REQUIRE_EXAMPLE("pidns_init_sleep");
    lt_assert_holder_passed(lt_run_holder(examples_first, NULL, 0, 30));
}

static int statuses_and_output(void *arg)
{
    (void)arg;
    int failed = 0, status = -1, job = 0, out_pipe[2], err_pipe[2];
    char buf[256];
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    EXPECT(pipe(out_pipe) == 0 && pipe(err_pipe) == 0, "pipes");
    EXPECT(lab_run(lab, "echo to-out; echo to-err >&2; exit 7", out_pipe[1], err_pipe[1]) == 7,
           "lab_run returns the exit status");
    ssize_t n = read(out_pipe[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    EXPECT(strcmp(buf, "to-out\n") == 0, "stdout: %s", buf);
    n = read(err_pipe[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    EXPECT(strcmp(buf, "to-err\n") == 0, "stderr: %s", buf);
    EXPECT(lab_run(lab, "kill -TERM $$", 1, 2) == 128 + SIGTERM, "128+N for a signal");
    /* A command that ends is not a job, and lab_start() returns when it
     * ends, not after the settle time (quiet for 0.3 s): against lab_run()
     * of the same command, which returns when it ends, the best of three
     * each (not a fixed number of seconds: a loaded machine slows both). */
    double best_start = 1e9, best_run = 1e9;
    for (int i = 0; i < 3; i++) {
        double t0 = tl_now();
        EXPECT(lab_start(lab, "echo quick; exit 3", out_pipe[1], &status, &job) == 0 && status == 3,
               "a command that ends is not a job (status %d)", status);
        double t1 = tl_now();
        EXPECT(lab_run(lab, "echo quick; exit 3", out_pipe[1], 2) == 3, "lab_run, the same");
        double t2 = tl_now();
        best_start = t1 - t0 < best_start ? t1 - t0 : best_start;
        best_run = t2 - t1 < best_run ? t2 - t1 : best_run;
    }
    EXPECT(best_start < best_run + 0.2,
           "lab_start() returns as soon as it ends: %.3f s against lab_run()'s %.3f s", best_start,
           best_run);
    n = read(out_pipe[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    EXPECT(strncmp(buf, "quick\nquick\n", 12) == 0, "its output came through: %s", buf);
    /* A job's output keeps coming after lab_start() returned. */
    EXPECT(lab_start(lab, "sleep 0.5; echo later; sleep 100", out_pipe[1], &status, &job) == 1,
           "a job");
    EXPECT(lt_read_line(out_pipe[0], buf, sizeof buf, 20) == 0 && strcmp(buf, "later") == 0,
           "live output of a background job: %s", buf);
    /* A finished job stays listed, not running, until cleanup: wait for it
     * to end (the event, at most 20 s), then look. */
    EXPECT(lab_start(lab, "sleep 0.6", out_pipe[1], &status, &job) == 1, "a second job");
    const struct lab_job *jobs;
    int listed = 0;
    for (double end = tl_now() + 20; tl_now() < end; usleep(20000))
        if ((listed = lab_jobs(lab, &jobs)) != 2 || !jobs[1].running)
            break;
    EXPECT(listed == 2 && jobs[0].running && !jobs[1].running && jobs[1].id == 2,
           "jobs listed with their state (%d listed)", listed);
    EXPECT(lab_cleanup(lab, NULL) >= 1, "cleanup");
    EXPECT(lab_jobs(lab, &jobs) == 0, "no job after cleanup");
out:
    return failed;
}

static void test_run_and_start_report_status_and_live_output(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    lt_assert_holder_passed(lt_run_holder(statuses_and_output, NULL, 0, 30));
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static int cleanup_mid_run(void *arg)
{
    (void)arg;
    int failed = 0, status, job;
    char cmd[256], mountinfo[64], *report_text = NULL, *mounts_before = NULL, *mounts_after = NULL;
    size_t report_len = 0;
    FILE *report = open_memstream(&report_text, &report_len);
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL && report != NULL, "a lab");
    snprintf(mountinfo, sizeof mountinfo, "/proc/%d/mountinfo", (int)lab_keeper_pid(lab));
    mounts_before = io_read_file(AT_FDCWD, mountinfo, 1 << 20);
    char *root_before = strdup(lt_capture(lab, "ls -a /", NULL));
    for (int round = 0; round < 2; round++) {
        lt_nested_command(cmd, sizeof cmd, 2, 100);
        EXPECT(lab_start(lab, cmd, 1, &status, &job) == 1, "job 1");
        lt_nested_command(cmd, sizeof cmd, 3, 100);
        EXPECT(lab_start(lab, cmd, 1, &status, &job) == 1, "job 2");
        EXPECT(lab_run(lab, "mkdir -p /lab-scratch/sub && mount -t tmpfs none /mnt", 1, 2) == 0,
               "a directory and a mount of another kind");
        /* A learner's slip: a nested namespace's procfs on the lab's /proc. */
        EXPECT(lab_start(lab,
                         "unshare -p -f sh -c 'mount -t proc proc /proc && echo over && "
                         "exec sleep 100'",
                         1, &status, &job) == 1,
               "job 3");
        EXPECT(strcmp(lt_capture(lab, "cat /proc/1/cmdline", NULL), "sleep") == 0,
               "the lab's /proc now shows the nested namespace");
        /* The shell's own helper (a pager, an output relay) is not the lab's. */
        pid_t relay = fork();
        if (relay == 0) {
            pause();
            _exit(0);
        }
        struct procfs_status relay_status = {.nspid_count = 1};
        EXPECT(procfs_read_status("/proc", relay, &relay_status) == 0, "a relay");
        /* A report of this round's own: a memstream rewound keeps the
         * longer text of the round before past the new end (glibc). */
        fclose(report);
        free(report_text);
        report_text = NULL;
        report = open_memstream(&report_text, &report_len);
        EXPECT(report != NULL, "a report for round %d", round + 1);
        int removed = lab_cleanup(lab, report);
        int relay_alive = waitpid(relay, NULL, WNOHANG) == 0;
        kill(relay, SIGKILL);
        waitpid(relay, NULL, 0);
        EXPECT(relay_alive, "cleanup leaves the shell's own children alone");
        fflush(report);
        EXPECT(removed >= 3 + 3 + 4 + 3, "each thing removed is counted: %d\n%s", removed,
               report_text);
        const char *want[] = {"stopped job [1] unshare",
                              "stopped job [2] unshare",
                              "stopped job [3] unshare",
                              "unmounted /proc (proc)",
                              "stopped process",
                              "unmounted /proc2 (proc)",
                              "unmounted /proc3 (proc)",
                              "unmounted /mnt (tmpfs)",
                              "removed directory /proc2",
                              "removed directory /proc3",
                              "removed directory /lab-scratch"};
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            EXPECT(strstr(report_text, want[i]) != NULL, "report says %s:\n%s", want[i],
                   report_text);
        EXPECT(count_lines(report_text) == removed, "one line per thing:\n%s", report_text);
        /* As fresh as at open: only the keeper, its mounts, its root. */
        EXPECT(lt_count_pids(lab_path(lab, "/proc"),
                             relay_status.nspid[relay_status.nspid_count - 1]) == 1,
               "only the keeper is left");
        free(mounts_after);
        mounts_after = io_read_file(AT_FDCWD, mountinfo, 1 << 20);
        EXPECT(mounts_before && mounts_after && strcmp(mounts_before, mounts_after) == 0,
               "the keeper's mounts are those of the start:\n%s", mounts_after);
        EXPECT(strcmp(lt_capture(lab, "ls -a /", NULL), root_before) == 0, "same / as at start");
        const struct lab_job *jobs;
        EXPECT(lab_jobs(lab, &jobs) == 0, "no jobs");
    }
out:
    if (report != NULL)
        fclose(report);
    free(report_text);
    free(mounts_before);
    free(mounts_after);
    return failed;
}

static void test_cleanup_mid_run_leaves_the_lab_fresh(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    lt_assert_holder_passed(lt_run_holder(cleanup_mid_run, NULL, 0, 30));
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

/* A mount alone changes neither the lab's processes nor its /: the
 * cleanup must see it by the mount table (listmount() ids where the kernel
 * has them) and take it off. */
static int cleanup_mount_alone(void *arg)
{
    (void)arg;
    int failed = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL && report != NULL, "a lab");
    EXPECT(lab_run(lab, "mount -t tmpfs none /mnt", 1, 2) == 0, "a mount on a directory there");
    int removed = lab_cleanup(lab, report);
    fflush(report);
    EXPECT(removed == 1 && strstr(text, "unmounted /mnt (tmpfs)\n") != NULL,
           "the mount taken off, and nothing else: %d\n%s", removed, text);
    rewind(report);
    EXPECT(lab_cleanup(lab, report) == 0, "then the lab is fresh");
    EXPECT(lab_close(lab, report) == 0, "unchanged");
    lab = NULL;
out:
    if (lab != NULL)
        lab_close(lab, NULL);
    if (report != NULL)
        fclose(report);
    free(text);
    return failed;
}

static void test_cleanup_takes_off_a_mount_alone(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    lt_assert_holder_passed(lt_run_holder(cleanup_mount_alone, NULL, 0, 30));
}

static int close_unchanged(void *arg)
{
    (void)arg;
    int failed = 0, status, job;
    char cmd[256], *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    struct lab *lab = lt_open(0);
    EXPECT(lab != NULL && report != NULL, "a lab");
    lt_nested_command(cmd, sizeof cmd, 2, 100);
    EXPECT(lab_start(lab, cmd, 1, &status, &job) == 1, "a job");
    /* The detector behind the verdict sees the lab while it lives. */
    EXPECT(lab_find_survivors(lab, NULL) >= 3, "keeper, runner, job, nested init");
    /* A child of the shell that the shell never reaps (a pager, an output
     * relay) must not hold up the end of the lab's init. */
    pid_t pager = fork();
    if (pager == 0) {
        pause();
        _exit(0);
    }
    EXPECT(lab_close(lab, report) == 0, "unchanged");
    fflush(report);
    /* Held up, the close would wait out its 3 s bound and say so. */
    EXPECT(strstr(text, "did not end") == NULL, "the lab's init ended at once:\n%s", text);
    EXPECT(strstr(text, "no process, mount or /procN left by the lab\n") != NULL,
           "the verdict:\n%s", text);
out:
    if (report != NULL)
        fclose(report);
    free(text);
    return failed;
}

static void test_close_says_host_unchanged(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    lt_assert_holder_passed(lt_run_holder(close_unchanged, NULL, 0, 30));
}

/* The "host" here is a private sandbox of the holder, so that the test can
 * change it without touching the real host: a sibling process, outside the
 * lab, mounts a tmpfs and makes a directory there while the lab is open (as
 * another program on the machine would). That is not the lab's doing: told
 * neutrally, and the verdict stays "no process, mount or /procN left". Negative control: a
 * process left in the lab's mount namespace (a real leftover) fails it. */
static int close_changed(void *arg)
{
    int leave_one = arg != NULL;
    int failed = 0, go[2], done[2];
    char err[256], byte, *text = NULL, path[64];
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    struct lab *lab = NULL;
    pid_t leftover = -1;
    EXPECT(report && sandbox_enter(0, NULL, err, sizeof err) == 0 && pipe(go) == 0 &&
               pipe(done) == 0,
           "a private host: %s", err);
    pid_t sibling = fork();
    if (sibling == 0) {
        if (read(go[0], &byte, 1) == 1 && mount("none", "/mnt", "tmpfs", 0, NULL) == 0 &&
            mkdir("/verdict-test-dir", 0755) == 0)
            (void)!write(done[1], "d", 1);
        _exit(0);
    }
    /* Forked before the lab opens, so that it is outside the lab's PID
     * namespace and the end of that namespace does not take it along. */
    int keeper[2];
    EXPECT(pipe(keeper) == 0, "a pipe");
    if (leave_one && (leftover = fork()) == 0) {
        pid_t pid;
        if (read(keeper[0], &pid, sizeof pid) != (ssize_t)sizeof pid)
            _exit(1);
        snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
        int fd = open(path, O_RDONLY);
        if (fd == -1 || setns(fd, CLONE_NEWNS) == -1)
            _exit(1);
        (void)!write(done[1], "s", 1);
        pause();
        _exit(0);
    }
    lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    if (leave_one) {
        pid_t pid = lab_keeper_pid(lab);
        EXPECT(write(keeper[1], &pid, sizeof pid) == (ssize_t)sizeof pid &&
                   read(done[0], &byte, 1) == 1,
               "a process joined the lab's mount namespace");
    }
    EXPECT(write(go[1], "g", 1) == 1 && read(done[0], &byte, 1) == 1, "the host changed");
    int closed = lab_close(lab, report);
    fflush(report);
    EXPECT(closed == leave_one, "closed: %d:\n%s", leave_one, text);
    lab = NULL;
    fflush(report);
    EXPECT(strstr(text, "not by the lab: new in the mount table: /mnt (tmpfs none)") != NULL &&
               strstr(text, "not by the lab: new in /: verdict-test-dir") != NULL &&
               strstr(text, "host changed") == NULL,
           "each difference named, neutrally:\n%s", text);
    if (leave_one)
        EXPECT(strstr(text, "survived the lab") != NULL &&
                   strstr(text, "no process, mount or /procN left") == NULL,
               "the leftover fails the verdict:\n%s", text);
    else
        EXPECT(strstr(text, "no process, mount or /procN left by the lab\n") != NULL,
               "the verdict:\n%s", text);
out:
    if (leftover > 0) {
        kill(leftover, SIGKILL);
        waitpid(leftover, NULL, 0);
    }
    if (report != NULL)
        fclose(report);
    free(text);
    return failed;
}

static void test_close_names_each_difference_on_the_host(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    lt_assert_holder_passed(lt_run_holder(close_changed, NULL, 0, 30));
    lt_assert_holder_passed(lt_run_holder(close_changed, "leave one", 0, 30));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_article_paths_work_in_the_lab),
        cmocka_unit_test(test_examples_dir_comes_first_on_path),
        cmocka_unit_test(test_run_and_start_report_status_and_live_output),
        cmocka_unit_test(test_cleanup_mid_run_leaves_the_lab_fresh),
        cmocka_unit_test(test_cleanup_takes_off_a_mount_alone),
        cmocka_unit_test(test_close_says_host_unchanged),
        cmocka_unit_test(test_close_names_each_difference_on_the_host),
    };
    return cmocka_run_group_tests(tests, lt_setup, lt_teardown);
}
