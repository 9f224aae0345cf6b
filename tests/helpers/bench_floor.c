/* SPDX-License-Identifier: MIT */
/* bench_floor: the floor that `make bench` holds multi_pidns against.
 *
 * The least work that does the job of `multi_pidns N COMMAND`: a chain of N
 * children, each the init of a new PID namespace nested in the previous one,
 * each making /proc{level} and mounting a procfs there (the topmost at
 * /proc{N-1}, the innermost at /proc0); the innermost execs COMMAND, or just
 * exits when there is none. On the way out each level waits for its child,
 * then unmounts and removes the child's /proc{level} (the child may have
 * become COMMAND, which knows nothing of it).
 *
 * Nothing else: no stdio, no signal handling, no checks of what was there
 * before, no depth probing. The children share our memory (CLONE_VM), each on
 * its own slice of one stack area, so no level copies page tables. It is a
 * measuring stick, not an example to copy: a SIGKILL or Ctrl-C leaves mounts
 * behind, which is why it only ever runs inside the sandbox:
 *
 *   build/tests/helpers/in_sandbox build/tests/helpers/bench_floor 31 true
 *
 * With --copy-memory each level gets a copy of its parent's memory instead
 * (no CLONE_VM), as in multi_pidns and in any program that calls libc freely
 * in its children: the difference between the two is the price of separate
 * address spaces, which the benchmark reports on its own.
 *
 * Exits with the innermost command's status (128+N for signal N).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NESTING 32
#define LEVEL_STACK (64 * 1024)

static char **command;             /* NULL: the innermost level exits at once */
static int shareMemory = CLONE_VM; /* 0 with --copy-memory */
static char *stackArea;            /* MAX_NESTING slices of LEVEL_STACK bytes */

/* A failure in a clone child: one line, then _exit (shared memory, shared
 * stdio: nothing may be flushed twice). */
static _Noreturn void childFail(const char *what, int level)
{
    char line[128];
    int len =
        snprintf(line, sizeof line, "bench_floor: %s /proc%d: %s\n", what, level, strerror(errno));

    if (write(STDERR_FILENO, line, (size_t)len) < 0) {
        /* stderr is gone: the exit status is all that is left to tell */
    }
    _exit(126);
}

static int level(void *arg);

/* Starts the init of the next namespace down, on its own slice of the stack. */
static pid_t cloneLevel(long k)
{
    char *top = stackArea + (size_t)(k + 1) * LEVEL_STACK;

    return clone(level, top, CLONE_NEWPID | shareMemory | SIGCHLD, (void *)k);
}

static int exitStatusOf(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Unmounts and removes /proc{k} once the init that mounted it is gone. */
static int tearDown(long k, int status)
{
    char path[32];

    snprintf(path, sizeof path, "/proc%ld", k);
    if (umount2(path, 0) == -1)
        childFail("umount", (int)k);
    if (rmdir(path) == -1)
        childFail("rmdir", (int)k);
    return exitStatusOf(status);
}

/* One level: mount our namespace's procfs, then become the command (the
 * innermost), or run the next level and undo its mount when it has ended. */
static int level(void *arg)
{
    long k = (long)arg;
    char path[32];
    int status;

    snprintf(path, sizeof path, "/proc%ld", k);
    if (mkdir(path, 0555) == -1 && errno != EEXIST)
        childFail("mkdir", (int)k);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        childFail("mount", (int)k);
    if (k == 0) {
        if (command == NULL)
            return 0;
        execvp(command[0], command); /* a new memory: the shared one stays ours */
        childFail("exec in", 0);
    }
    pid_t child = cloneLevel(k - 1);
    if (child == -1 || waitpid(child, &status, __WALL) == -1)
        childFail("clone below", (int)k);
    return tearDown(k - 1, status);
}

int main(int argc, char *argv[])
{
    char *end;
    int status, first = 1;

    if (argc > 1 && strcmp(argv[1], "--copy-memory") == 0) {
        shareMemory = 0;
        first = 2;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: bench_floor [--copy-memory] N [COMMAND [ARG...]]\n");
        return 2;
    }
    errno = 0;
    long n = strtol(argv[first], &end, 10);
    if (*end != '\0' || end == argv[first] || errno != 0 || n < 1 || n > MAX_NESTING) {
        fprintf(stderr, "bench_floor: N must be 1..%d, got '%s'\n", MAX_NESTING, argv[first]);
        return 2;
    }
    command = argc > first + 1 ? argv + first + 1 : NULL;
    stackArea = mmap(NULL, (size_t)MAX_NESTING * LEVEL_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stackArea == MAP_FAILED) {
        perror("bench_floor: mmap");
        return 1;
    }
    pid_t top = cloneLevel(n - 1);
    if (top == -1) {
        perror("bench_floor: clone(CLONE_NEWPID)");
        return 1;
    }
    if (waitpid(top, &status, __WALL) == -1) {
        perror("bench_floor: waitpid");
        return 1;
    }
    return tearDown(n - 1, status);
}
