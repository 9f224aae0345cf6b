/* SPDX-License-Identifier: MIT */
/* examples_run.c: running the example programs in a sandbox, for the
 * test_examples*.c programs. See examples_run.h. */
#include "examples_run.h"
#include "lab/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static const char *const ex_names[] = {"pidns_init_sleep", "multi_pidns",   "pidns_proc_mount",
                                       "pidns_translate",  "pidns_threads", "pidns_peer",
                                       "pidns_kept"};
#define EX_COUNT (sizeof ex_names / sizeof ex_names[0])
static char *ex_data[EX_COUNT];
static size_t ex_size[EX_COUNT];

/* cmocka group setup: reads the built examples while we can (as root). */
int ex_load(void **state)
{
    (void)state;
    for (size_t i = 0; i < EX_COUNT; i++) {
        char *text = NULL;
        int fd = open(tl_example(ex_names[i]), O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd == -1 || fstat(fd, &sb) == -1) {
            fprintf(stderr, "cannot read %s (run make first): %s\n", tl_example(ex_names[i]),
                    strerror(errno));
            return -1;
        }
        text = malloc((size_t)sb.st_size);
        if (text == NULL || read(fd, text, (size_t)sb.st_size) != sb.st_size) {
            close(fd);
            free(text);
            return -1;
        }
        close(fd);
        ex_data[i] = text;
        ex_size[i] = (size_t)sb.st_size;
    }
    return 0;
}

int ex_unload(void **state)
{
    (void)state;
    for (size_t i = 0; i < EX_COUNT; i++) {
        free(ex_data[i]);
        ex_data[i] = NULL;
    }
    return 0;
}

/* In the sandbox: writes the examples to /ex/NAME (the tmpfs root is ours). */
static int ex_install(void)
{
    if (mkdir("/ex", 0755) == -1)
        return -1;
    for (size_t i = 0; i < EX_COUNT; i++) {
        char path[64];
        snprintf(path, sizeof path, "/ex/%s", ex_names[i]);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd == -1)
            return -1;
        ssize_t n = write(fd, ex_data[i], ex_size[i]);
        close(fd);
        if (n != (ssize_t)ex_size[i])
            return -1;
    }
    return 0;
}

struct sandboxed {
    int (*fn)(void *);
    void *arg;
};

/* In the sandbox: become the subreaper of the examples' orphans, so that
 * ex_no_process_left() sees them, install the examples, run the check. */
static int install_and_run(void *arg)
{
    const struct sandboxed *s = arg;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
        return 93;
    if (ex_install() == -1) {
        perror("installing the examples in the sandbox");
        return 92;
    }
    return s->fn(s->arg);
}

/* Runs fn(arg) in a forked child inside a fresh sandbox, as nobody if asked.
 * Returns fn's result (0 = all checks passed), or 90+ if setting up failed. */
static int ex_in_sandbox(int (*fn)(void *), void *arg, bool as_nobody)
{
    struct sandboxed s = {fn, arg};
    int status = tl_in_sandbox(install_and_run, &s, as_nobody);
    if (status == -1)
        return 80;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Counts, kills and reaps every process that has us as its (sub)reaper:
 * once our own children are all waited for, anything left is something a
 * run left behind, in whatever PID namespace. Gives stragglers that are
 * already dying a second. We do not compare namespace links after a run:
 * the kernel reuses a dead namespace's inode number for the next new one. */
static int ex_reap_leftovers(void)
{
    int count = 0;
    pid_t pid = 0;
    for (int tries = 0; tries < 50; tries++) {
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
            count++;
        if (pid == -1 && errno == ECHILD)
            return count;
        usleep(20000);
    }
    /* Still there after a second: kill them. They are our children now, so
     * their /proc/PID/stat names us as their parent. */
    DIR *dir = opendir("/proc");
    struct dirent *e;
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        char path[300], stat[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "re") : NULL;
        if (f == NULL)
            continue;
        char *close_paren = fgets(stat, sizeof stat, f) ? strrchr(stat, ')') : NULL;
        long parent = 0;
        if (close_paren != NULL && sscanf(close_paren + 1, " %*c %ld", &parent) == 1 &&
            parent == (long)getpid())
            kill((pid_t)atol(e->d_name), SIGKILL);
        fclose(f);
    }
    if (dir != NULL)
        closedir(dir);
    while ((pid = waitpid(-1, NULL, 0)) > 0)
        count++;
    return count > 0 ? count : 1;
}

/* In the sandbox, after an example was waited for: no process of it is left. */
bool ex_no_process_left(void)
{
    return ex_reap_leftovers() == 0;
}

/* The cmocka side: the sandboxed function passed, no mount point or entry
 * of / changed on the host, and no process outlived the run. For that last
 * one we do not count processes in other PID namespaces (other programs on
 * the machine make them too): as a child subreaper we inherit anything the
 * run left behind, whatever namespace it is in. */
void ex_run_test(int (*fn)(void *), void *arg, bool as_nobody)
{
    struct tl_host_snapshot before, after;

    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    tl_host_snapshot(&before);
    int rc = ex_in_sandbox(fn, arg, as_nobody);
    int leftovers = ex_reap_leftovers();
    tl_host_snapshot(&after);
    bool same_mounts =
        before.mounts != NULL && after.mounts != NULL && strcmp(before.mounts, after.mounts) == 0;
    bool same_root = before.root_list != NULL && after.root_list != NULL &&
                     strcmp(before.root_list, after.root_list) == 0;
    tl_host_snapshot_free(&before);
    tl_host_snapshot_free(&after);
    if (rc != 0)
        print_message("sandboxed checks failed (status %d), see above\n", rc);
    assert_int_equal(rc, 0);
    assert_int_equal(leftovers, 0);
    assert_true(same_mounts);
    assert_true(same_root);
}

int ex_start(struct ex_run *r, char *const argv[])
{
    int fds[2];
    memset(r, 0, sizeof *r);
    if (pipe2(fds, O_CLOEXEC) == -1)
        return -1;
    fflush(NULL);
    r->pid = fork();
    if (r->pid == -1)
        return -1;
    if (r->pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    r->fd = fds[0];
    return 0;
}

/* Reads until 'text' has arrived (NULL: until end of output) or the timeout
 * passes. True if it arrived. */
bool ex_read_until(struct ex_run *r, const char *text, int timeout_ms)
{
    double deadline = tl_now() + timeout_ms / 1000.0;
    for (;;) {
        r->out[r->len] = '\0';
        if (text != NULL && strstr(r->out, text) != NULL)
            return true;
        if (r->eof)
            return text == NULL;
        int left = (int)((deadline - tl_now()) * 1000);
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return false;
        ssize_t n = read(r->fd, r->out + r->len, sizeof r->out - 1 - r->len);
        if (n <= 0)
            r->eof = true;
        else
            r->len += (size_t)n;
    }
}

/* Collects the rest of the output and the exit status (128+N for signal N);
 * -1 if it does not end within the timeout (it is then killed). */
int ex_finish(struct ex_run *r, int timeout_ms)
{
    int status;
    bool ended = ex_read_until(r, NULL, timeout_ms);
    if (!ended)
        kill(r->pid, SIGKILL);
    while (waitpid(r->pid, &status, 0) == -1)
        if (errno != EINTR)
            return -1;
    close(r->fd);
    r->pid = 0;
    if (!ended)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* For the `out:` path of a failed check: no process of ours lives on. */
void ex_abandon(struct ex_run *r)
{
    if (r->pid > 0) {
        kill(r->pid, SIGKILL);
        waitpid(r->pid, NULL, 0);
        close(r->fd);
        r->pid = 0;
    }
}

/* The pid:[...] link of a process, "" if it cannot be read. */
void ex_pidns_of(const char *proc_dir, long pid, char *link, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%ld/ns/pid", proc_dir, pid);
    ssize_t n = readlink(path, link, size - 1);
    link[n < 0 ? 0 : n] = '\0';
}

/* Processes (in our /proc) whose PID namespace is 'link'. */
int ex_count_in_pidns(const char *link)
{
    DIR *dir = opendir("/proc");
    struct dirent *e;
    char other[64];
    int count = 0;
    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        ex_pidns_of("/proc", atol(e->d_name), other, sizeof other);
        if (strcmp(other, link) == 0)
            count++;
    }
    closedir(dir);
    return count;
}

/* One field of a status file ("Name", "Pid", "NSpid"...), tabs kept. */
bool ex_status_field(const char *path, const char *field, char *value, size_t size)
{
    char line[512];
    size_t len = strlen(field);
    FILE *f = fopen(path, "re");
    bool found = false;
    if (f == NULL)
        return false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            const char *text = line + len + 2; /* after "Field:\t" */
            size_t n = strcspn(text, "\n");
            n = n < size ? n : size - 1;
            memcpy(value, text, n);
            value[n] = '\0';
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Waits (up to 2 s) until the process whose status file is 'path' runs
 * 'name': an example prints its last line just before it execs. */
bool ex_wait_for_name(const char *path, const char *name)
{
    char value[256] = "";
    for (int tries = 0; tries < 100; tries++) {
        if (ex_status_field(path, "Name", value, sizeof value) && strcmp(value, name) == 0)
            return true;
        usleep(20000);
    }
    return false;
}

/* A bad command line: non-zero exit, one line naming the problem, and the
 * sandbox's mounts and root directory exactly as before. */
int bad_arguments(void *arg)
{
    const struct bad_case *cases = arg;
    int failed = 0;
    char *out = NULL, *mounts_before = NULL, *mounts_after = NULL, *root_before = NULL,
         *root_after = NULL;

    tl_sh("cat /proc/self/mountinfo", &mounts_before);
    tl_sh("ls -a /", &root_before);
    for (const struct bad_case *c = cases; c->command != NULL; c++) {
        free(out);
        int rc = tl_sh(c->command, &out);
        EXPECT(rc != 0, "'%s' exited 0", c->command);
        EXPECT(out != NULL && strchr(out, '\n') == out + strlen(out) - 1,
               "'%s' printed not exactly one line:\n%s", c->command, out);
        EXPECT(strstr(out, c->says) != NULL, "'%s' said: %s", c->command, out);
        free(mounts_after);
        free(root_after);
        tl_sh("cat /proc/self/mountinfo", &mounts_after);
        tl_sh("ls -a /", &root_after);
        EXPECT(strcmp(mounts_before, mounts_after) == 0, "'%s' left a mount", c->command);
        EXPECT(strcmp(root_before, root_after) == 0, "'%s' left something in /:\n%s", c->command,
               root_after);
    }
out:
    free(out);
    free(mounts_before);
    free(mounts_after);
    free(root_before);
    free(root_after);
    return failed;
}
