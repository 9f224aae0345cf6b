/* SPDX-License-Identifier: MIT */
/* lab_holder.c: the lab's holder process and what the test_lab*.c programs
 * share. See lab_holder.h. */
#include "lab_holder.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char lt_examples[256]; /* scratch copy of build/examples, readable by all */

/* cmocka group setup: copies the built examples where nobody can run them. */
int lt_setup(void **state)
{
    (void)state;
    char src[PATH_MAX];
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
        return -1;
    snprintf(lt_examples, sizeof lt_examples, "%s/pidns-tutor-lab-test.XXXXXX", tl_tmpdir());
    if (mkdtemp(lt_examples) == NULL || chmod(lt_examples, 0755) == -1)
        return -1;
    snprintf(src, sizeof src, "%s", tl_example(""));
    return tl_shf(NULL, "cp %s* %s/ 2>/dev/null; chmod -R a+rX %s", src, lt_examples,
                  lt_examples) == -1
               ? -1
               : 0;
}

int lt_teardown(void **state)
{
    (void)state;
    return tl_shf(NULL, "rm -rf '%s'", lt_examples) == 0 ? 0 : -1;
}

int lt_have_example(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", lt_examples, name);
    return access(path, X_OK) == 0;
}

/* Opens a lab in the holder; NULL with the reason printed. */
struct lab *lt_open(int force_user_namespace)
{
    return lt_open_settle(force_user_namespace, 0.3);
}

struct lab *lt_open_settle(int force_user_namespace, double settle_seconds)
{
    char err[512];
    struct lab_config config = {lt_examples, force_user_namespace, settle_seconds, NULL, NULL};
    if (chdir("/") == -1)
        return NULL;
    struct lab *lab = lab_open(&config, err, sizeof err);
    if (lab == NULL)
        fprintf(stderr, "lab_open: %s\n", err);
    return lab;
}

/* Forks a holder running fn(arg), as nobody if asked; returns its wait
 * status, killing it after timeout seconds. */
int lt_run_holder(int (*fn)(void *), void *arg, int as_nobody, double timeout)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == -1)
        return -1;
    if (pid == 0) {
        if (as_nobody)
            tl_become_nobody();
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    int status;
    double end = tl_now() + timeout;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (tl_now() > end) {
            fprintf(stderr, "holder timed out after %.0f s: killed\n", timeout);
            kill(pid, SIGKILL);
        }
        usleep(5000);
    }
    return status;
}

void lt_assert_holder_passed(int status)
{
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Runs a command line in the lab and returns its output (static copy freed
 * at the next call), or "" on error. */
const char *lt_capture(struct lab *lab, const char *command, int *code)
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
int lt_count_pids(const char *proc, pid_t except)
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
void lt_nested_command(char *buf, size_t len, int n, int sleep_seconds)
{
    snprintf(buf, len,
             "unshare -p -f sh -c 'mkdir -p /proc%d && mount -t proc proc /proc%d && "
             "echo ready%d && exec sleep %d'",
             n, n, n, sleep_seconds);
}

void lt_tell(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lt_tell(int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdprintf(fd, fmt, ap);
    va_end(ap);
}

/* Reads one line from fd within timeout seconds into buf. Returns 0 or -1. */
int lt_read_line(int fd, char *buf, size_t len, double timeout)
{
    size_t used = 0;
    double end = tl_now() + timeout;
    while (used + 1 < len) {
        struct pollfd p = {fd, POLLIN, 0};
        int left = (int)((end - tl_now()) * 1000);
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
