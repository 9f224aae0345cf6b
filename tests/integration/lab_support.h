/* lab_support.h: what the test_lab*.c programs share (static functions: each
 * test program includes it once).
 *
 * lab_open() changes the calling process for good (it enters the sandbox and
 * a new PID namespace), so every lab lives in a forked child, the "holder",
 * optionally running as the ordinary user nobody. cmocka's asserts cannot be
 * used there (a failure would jump back into a copy of the runner), so the
 * holder's checks are EXPECT()s that print what failed and return 1; the
 * cmocka test asserts that the holder returned 0.
 *
 * The examples are copied to a scratch directory that nobody can read (the
 * build directory may live under /root), removed at the end.
 */
#ifndef PIDNS_TUTOR_LAB_SUPPORT_H
#define PIDNS_TUTOR_LAB_SUPPORT_H

#include "testlib.h"
#include "lab/lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Each test program uses a different subset of these helpers. */
#pragma GCC diagnostic ignored "-Wunused-function"

/* In a function returning int with `int failed = 0;` and an `out:` label. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failed = 1;                                                                            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#define NOBODY 65534

static char lt_examples[256]; /* scratch copy of build/examples, readable by all */

static double lt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Processes below us (our children, theirs, ...): with the test process a
 * child subreaper, anything a test leaves running anywhere below, in any
 * namespace, ends up here, so this is an exact count of our leftovers even
 * when other sessions start and stop processes on the machine. */
static int lt_descendants(FILE *report)
{
    pid_t self = getpid();
    DIR *dir = opendir("/proc");
    struct dirent *e;
    int count = 0;
    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        pid_t pid = atoi(e->d_name), ancestor = pid;
        char path[64], buf[512], comm[64] = "?";
        for (int depth = 0; pid > 0 && ancestor > 1 && ancestor != self && depth < 64; depth++) {
            snprintf(path, sizeof path, "/proc/%d/stat", (int)ancestor);
            FILE *f = fopen(path, "re");
            char *paren = NULL;
            if (f == NULL || fgets(buf, sizeof buf, f) == NULL || (paren = strrchr(buf, ')')) == NULL) {
                if (f != NULL)
                    fclose(f);
                break;
            }
            fclose(f);
            if (ancestor == pid)
                sscanf(buf, "%*d (%63[^)]", comm);
            char state = paren[2];
            if (ancestor == pid && state == 'Z')
                break; /* a zombie holds nothing */
            ancestor = (pid_t)atoi(paren + 4);
        }
        if (pid > 0 && pid != self && ancestor == self) {
            count++;
            if (report != NULL)
                fprintf(report, "left behind: process %d (%s)\n", (int)pid, comm);
        }
    }
    closedir(dir);
    return count;
}

/* Like tl_assert_host_unchanged(), but the process check counts only what
 * this test left (lt_descendants) instead of every foreign-namespace process
 * on the machine, which other sessions change at will. */
static void lt_assert_host_unchanged(const struct tl_host_snapshot *before)
{
    struct tl_host_snapshot after;
    int left = 0;
    for (int tries = 0; tries < 100; tries++) {
        while (waitpid(-1, NULL, WNOHANG) > 0) /* orphans re-parented to us */
            ;
        if ((left = lt_descendants(NULL)) == 0)
            break;
        usleep(10000);
    }
    if (left != 0)
        lt_descendants(stderr);
    assert_int_equal(left, 0);
    tl_host_snapshot(&after);
    assert_non_null(after.mounts);
    assert_string_equal(after.mounts, before->mounts);
    assert_string_equal(after.root_list, before->root_list);
    tl_host_snapshot_free(&after);
}

/* cmocka group setup: copies the built examples where nobody can run them. */
static int lt_setup(void **state)
{
    (void)state;
    char src[PATH_MAX];
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
        return -1;
    snprintf(lt_examples, sizeof lt_examples, "/tmp/pidns-tutor-lab-test.XXXXXX");
    if (mkdtemp(lt_examples) == NULL || chmod(lt_examples, 0755) == -1)
        return -1;
    snprintf(src, sizeof src, "%s", tl_example(""));
    return tl_shf(NULL, "cp %s* %s/ 2>/dev/null; chmod -R a+rX %s", src, lt_examples, lt_examples) ==
                   -1
               ? -1
               : 0;
}

static int lt_teardown(void **state)
{
    (void)state;
    return tl_shf(NULL, "rm -rf '%s'", lt_examples) == 0 ? 0 : -1;
}

static int lt_have_example(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", lt_examples, name);
    return access(path, X_OK) == 0;
}

#define LT_REQUIRE_EXAMPLE(name)                                                                   \
    do {                                                                                           \
        if (!lt_have_example(name)) {                                                              \
            print_message("SKIP: %s needs the example %s (make examples)\n", __func__, name);      \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static void lt_become_nobody(void)
{
    if (setgroups(0, NULL) == -1 || setgid(NOBODY) == -1 || setuid(NOBODY) == -1)
        _exit(90);
    /* setuid() clears the dumpable flag, which makes /proc/self root's and
     * stops nsenter; a real login (an exec) sets it again. */
    prctl(PR_SET_DUMPABLE, 1);
}

/* Opens a lab in the holder; NULL with the reason printed. */
static struct lab *lt_open(int force_user_namespace)
{
    char err[512];
    struct lab_config config = {lt_examples, force_user_namespace, 0.3};
    if (chdir("/") == -1)
        return NULL;
    struct lab *lab = lab_open(&config, err, sizeof err);
    if (lab == NULL)
        fprintf(stderr, "lab_open: %s\n", err);
    return lab;
}

/* Forks a holder running fn(arg), as nobody if asked; returns its wait
 * status, killing it after timeout seconds. */
static int lt_run_holder(int (*fn)(void *), void *arg, int as_nobody, double timeout)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == -1)
        return -1;
    if (pid == 0) {
        if (as_nobody)
            lt_become_nobody();
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    int status;
    double end = lt_now() + timeout;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (lt_now() > end) {
            fprintf(stderr, "holder timed out after %.0f s: killed\n", timeout);
            kill(pid, SIGKILL);
        }
        usleep(5000);
    }
    return status;
}

static void lt_assert_holder_passed(int status)
{
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Runs a command line in the lab and returns its output (static copy freed
 * at the next call), or "" on error. */
static const char *lt_capture(struct lab *lab, const char *command, int *code)
{
    static char *last;
    free(last);
    last = NULL;
    int rc = lab_capture(lab, command, &last);
    if (code != NULL)
        *code = rc;
    if (rc == -1)
        fprintf(stderr, "lab_capture(%s): %s\n", command, lab_error(lab));
    return last != NULL ? last : "";
}

/* Numeric entries of a /proc as the shell sees it, excluding `except`. */
static int lt_count_pids(const char *proc, pid_t except)
{
    DIR *dir = opendir(proc);
    struct dirent *e;
    int count = 0;
    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && atoi(e->d_name) != except)
            count++;
    closedir(dir);
    return count;
}

/* A command that starts a PID namespace whose init mounts a procfs for it at
 * /procN and sleeps: a stand-in for the examples, from util-linux alone. */
static void lt_nested_command(char *buf, size_t len, int n, int sleep_seconds)
{
    snprintf(buf, len,
             "unshare -p -f sh -c 'mkdir -p /proc%d && mount -t proc proc /proc%d && "
             "echo ready%d && exec sleep %d'",
             n, n, n, sleep_seconds);
}

/* Writes to a pipe the holder uses to report to the test: one line. */
static void lt_tell(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lt_tell(int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdprintf(fd, fmt, ap);
    va_end(ap);
}

/* Reads one line from fd within timeout seconds into buf. Returns 0 or -1. */
static int lt_read_line(int fd, char *buf, size_t len, double timeout)
{
    size_t used = 0;
    double end = lt_now() + timeout;
    while (used + 1 < len) {
        struct pollfd p = {fd, POLLIN, 0};
        int left = (int)((end - lt_now()) * 1000);
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return -1;
        ssize_t n = read(fd, buf + used, 1);
        if (n <= 0)
            return -1;
        if (buf[used] == '\n')
            break;
        used++;
    }
    buf[used] = '\0';
    return 0;
}

#endif
