/* SPDX-License-Identifier: MIT-0 */
/* multi_pidns.c: one process, many PIDs, in N nested PID namespaces.
 *
 * A chain of N children, each PID 1 of a new PID namespace inside the one
 * before, each mounting a procfs for its namespace: the topmost at
 * /proc{N-1}, down to the innermost at /proc0. A procfs lists the processes
 * of its namespace and of those nested in it, so /proc{N-1} lists N
 * processes and /proc0 one. The innermost runs `sleep 600` (or COMMAND), with
 * a different PID at every level: 1 in /proc0 up to N in /proc{N-1}.
 *
 * Build:  cc -o multi_pidns multi_pidns.c
 * Run:    sudo ./multi_pidns 5      (root, or root of a user namespace)
 *         ./multi_pidns 3 ps -e -o pid,cmd      (a command at the bottom)
 * Prints "Mounting procfs at /proc4" ... "/proc0", "Final child sleeping",
 * and waits. Then try: grep -H 'Name:.*sleep' /proc?/[1-9]/status
 *
 * Ends with COMMAND's exit status (128+N if signal N ended it); on SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT it kills the topmost child, which ends every
 * namespace below, and exits 128+N. It unmounts every /procK and removes the
 * directories it made. Errors: one line "multi_pidns: what: why", status 1.
 *
 * The kernel nests at most 32 PID namespaces below the root (since Linux
 * 3.7); one more fails with EINVAL before Linux 4.9, with ENOSPC since.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NESTING 32 /* the kernel's MAX_PID_NS_LEVEL */
#define STACK_SIZE (64 * 1024)

/* A stack per level: a level runs on its own while clone() prepares the next's. */
static char stacks[MAX_NESTING][STACK_SIZE];
static int levels, prepared;  /* N; how many /procK makeMountPoints() recorded */
static char **command;        /* NULL: sleep */
static sigset_t originalMask; /* restored before exec */
static pid_t topChild = -1;
static bool createdDir[MAX_NESTING];
static dev_t deviceBefore[MAX_NESTING]; /* a /procK whose device changed has our procfs on top */
static bool inChain, cleanUpFailed;     /* inChain: set in every child of the chain */

static const int watchedSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static int childFunc(void *arg);

/* Creates the child that mounts /proc<level>, in a new PID namespace. */
static pid_t cloneLevel(int level)
{
    fflush(stdout);
    return clone(childFunc, stacks[level] + STACK_SIZE, CLONE_NEWPID | SIGCHLD,
                 (void *)(long)level);
}

/* The innermost child: the namespace's init runs sleep or COMMAND. */
static void runFinal(void)
{
    char *sleepCommand[] = {"sleep", "600", NULL};
    char **argv = command != NULL ? command : sleepCommand;

    if (command == NULL)
        printf("Final child sleeping\n");
    else
        printf("Final child running %s\n", argv[0]);
    if (sigprocmask(SIG_SETMASK, &originalMask, NULL) == -1) /* a mask survives exec */
        err(EXIT_FAILURE, "sigprocmask");
    execvp(argv[0], argv);
    err(errno == ENOENT ? 127 : 126, "execvp %s", argv[0]);
}

/* Runs in each child: PID 1 of the namespace whose procfs goes at /proc<level>. */
static int childFunc(void *arg)
{
    int level = (int)(long)arg;
    char path[32];

    inChain = true;
    /* The topmost child dies with the top process; every namespace below
     * dies with it, since killing an init ends its namespace. */
    if (level == levels - 1 && prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    // tag::nest[]
    snprintf(path, sizeof path, "/proc%d", level);
    /* We mount, so this procfs shows OUR namespace (and those nested in it). */
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        err(EXIT_FAILURE, "mount procfs at %s", path);
    printf("Mounting procfs at %s\n", path);
    if (level == 0)
        runFinal();

    pid_t child = cloneLevel(level - 1);
    // end::nest[]
    if (child == -1) /* ENOSPC (EINVAL before 4.9): 32 levels, or user.max_pid_namespaces */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID) for /proc%d", level - 1);
    /* Pass the status up. When we exit, the kernel kills whatever is left in
     * our namespace. Returning is a raw exit: nothing waits in stdio. */
    int status;
    while (waitpid(child, &status, 0) == -1)
        if (errno != EINTR)
            err(EXIT_FAILURE, "waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* How deep we are, as far as /proc shows: NSpid lists our PID in each
 * namespace from /proc's down to ours. */
static int visibleDepth(void)
{
    char line[1024];
    int depth = 0;
    FILE *status = fopen("/proc/self/status", "re");

    if (status == NULL)
        return 0; /* no /proc: clone() will have to tell us */
    while (fgets(line, sizeof line, status) != NULL && strncmp(line, "NSpid:", 6) != 0)
        ;
    for (char *word = strtok(line + 6, " \t\n"); word != NULL; word = strtok(NULL, " \t\n"))
        depth++;
    fclose(status);
    return depth > 0 ? depth - 1 : 0; /* the first PID is the one /proc's namespace sees */
}

/* N, checked fully: strtol() alone accepts "5x" and "" and clamps. */
static int parseLevels(const char *text)
{
    int room = MAX_NESTING - visibleDepth();
    char *end;

    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end != '\0')
        errx(EXIT_FAILURE, "N must be a whole number, got '%s' (try 'multi_pidns --help')", text);
    if (n < 1)
        errx(EXIT_FAILURE, "N must be at least 1, got %s", text);
    if (errno == ERANGE || n > room)
        errx(EXIT_FAILURE,
             "N=%s is too deep: the kernel nests at most %d PID namespaces and we "
             "are already %d down, so N can be at most %d",
             text, MAX_NESTING, MAX_NESTING - room, room);
    return (int)n;
}

/* Undoes what the chain left in our mount namespace (at exit, too, but not
 * in a child of the chain, which inherits the atexit() handler). The
 * namespaces go first: a mounted procfs outlives the processes it lists. */
static void cleanUp(void)
{
    struct stat sb;

    if (inChain)
        return;
    if (topChild > 0) {
        kill(topChild, SIGKILL);
        waitpid(topChild, NULL, 0);
        topChild = -1;
    }
    for (int k = 0; k < prepared; k++) {
        char path[32];
        snprintf(path, sizeof path, "/proc%d", k);
        if (stat(path, &sb) == 0 && sb.st_dev != deviceBefore[k] && umount2(path, 0) == -1) {
            warn("umount %s", path);
            cleanUpFailed = true;
        }
        if (createdDir[k] && rmdir(path) == -1 && errno != ENOENT) {
            warn("rmdir %s", path);
            cleanUpFailed = true;
        }
    }
    prepared = 0; /* done: an exit after this undoes nothing twice */
}

/* Makes /proc0 .. /proc{N-1} (or keeps the directories already there). */
static void makeMountPoints(void)
{
    struct stat sb;

    for (int k = 0; k < levels; k++) {
        char path[32];
        snprintf(path, sizeof path, "/proc%d", k);
        if (mkdir(path, 0555) == 0)
            createdDir[k] = true;
        else if (errno != EEXIST)
            err(EXIT_FAILURE, "mkdir %s", path);
        if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode))
            errx(EXIT_FAILURE, "%s exists and is not a directory", path);
        deviceBefore[k] = sb.st_dev;
        prepared = k + 1;
    }
}

/* Waits for the topmost child. The stop signals, blocked since before clone(),
 * are taken here. An init ignores signals it has no handler for; SIGKILL
 * (in cleanUp()) from an ancestor namespace always works. */
static int waitForTopChild(const sigset_t *watched)
{
    int status;

    for (;;) {
        int sig = sigwaitinfo(watched, NULL); /* -1 only if interrupted: wait again */
        if (sig == SIGCHLD && waitpid(topChild, &status, WNOHANG) == topChild)
            break;
        if (sig > 0 && sig != SIGCHLD) {
            cleanUp();
            return 128 + sig;
        }
    }
    topChild = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char *argv[])
{
    sigset_t watched;

    setvbuf(stdout, NULL, _IOLBF, 0); /* no line waits in a buffer an exec discards */
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s N [COMMAND [ARG...]]\nN nested PID namespaces, a procfs for each "
               "at /proc{N-1} .. /proc0; sleep (or COMMAND) in the innermost.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc < 2)
        errx(EXIT_FAILURE, "missing N, the number of nested PID namespaces "
                           "(try 'multi_pidns --help')");
    levels = parseLevels(argv[1]);
    command = argc > 2 ? argv + 2 : NULL;

    sigemptyset(&watched);
    for (size_t i = 0; i < sizeof watchedSignals / sizeof watchedSignals[0]; i++)
        sigaddset(&watched, watchedSignals[i]);
    if (sigprocmask(SIG_BLOCK, &watched, &originalMask) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    atexit(cleanUp); /* a failure from here on removes what we made */
    makeMountPoints();
    topChild = cloneLevel(levels - 1);
    if (topChild == -1) /* EPERM: needs root, or root in a user namespace (unshare -Ur) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");

    int status = waitForTopChild(&watched);
    cleanUp();
    return cleanUpFailed && status == 0 ? EXIT_FAILURE : status;
}
