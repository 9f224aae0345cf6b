/* SPDX-License-Identifier: MIT-0 */
/* pidns_max_depth.c: PID namespaces nest at most 32 levels deep; find the
 * limit by nesting until the kernel refuses.
 *
 * Every PID namespace has a level: the root (initial) namespace is level 0,
 * a namespace created inside it level 1, and so on. Since Linux 3.7 the
 * kernel refuses to create a namespace deeper than level 32
 * (MAX_PID_NS_LEVEL): clone(CLONE_NEWPID) or unshare(CLONE_NEWPID) then fail,
 * with EINVAL on Linux 3.7 to 4.8 and with ENOSPC since 4.9 (which also
 * brought the user.max_pid_namespaces sysctl, whose limit gives ENOSPC too).
 * The count starts at the root, not at the caller: a process already 5
 * levels down (in a container, say) can create only 27 more. A process has
 * one PID per level from its namespace up to the root, so the deepest
 * possible process has 33 PIDs, and the NSpid line of its /proc/PID/status
 * lists as many as the procfs mounted at /proc can see.
 *
 * Each level is the init of a new namespace, made with clone(CLONE_NEWPID);
 * it clones the next, until clone() fails. The deepest process reports how
 * many levels were made and why the next failed; then every level exits in
 * turn and nothing is left.
 *
 * Build: cc -o pidns_max_depth pidns_max_depth.c
 * Run:   sudo ./pidns_max_depth [-v]      (or: unshare -r ./pidns_max_depth)
 * Prints, e.g. (in the root namespace):
 *   this process: NSpid: 4242
 *   created 32 nested PID namespace(s) below this process
 *   clone(CLONE_NEWPID) for the next level failed: ENOSPC (No space left on device)
 *   the deepest process: NSpid: 4243 32 31 ... 2 1 (33 PIDs)
 *   why: ... 32 levels fitted below this process, so it was at level 32 - 32 = 0.
 * Errors are one line, "pidns_max_depth: what failed: why" (err(3)), and exit
 * status 1. Exit status 0 when done.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PID_NS_LEVEL 32 /* include/linux/pid_namespace.h */
#define STACK_SIZE (64 * 1024)

/* One stack per level: a level runs on stacks[level] of its copy of our
 * memory and gives the next level the next one (clone() writes the child's
 * first frame on the new stack while the caller still runs on its own). */
static char stacks[MAX_PID_NS_LEVEL + 2][STACK_SIZE]; /* levels 1..33 */
static int verbose;
static int reportPipe[2];         /* deepest level -> program */
static volatile pid_t firstLevel; /* for onTerminate() */

/* What the deepest process sends up. */
struct report {
    int levels;      /* namespaces created below the program */
    int cloneErrno;  /* why the next one failed */
    char nspid[512]; /* its "NSpid:" line */
};

/* The number of PIDs on an "NSpid:" line. */
static int countPids(const char *line)
{
    int count = 0;
    for (const char *p = line; *p != '\0'; p++)
        if (*p >= '0' && *p <= '9' && (p == line || p[-1] == ' '))
            count++;
    return count;
}

/* Reads the "NSpid:" line of /proc/self/status, tabs made spaces. */
static void readNspid(char *line, size_t len)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        err(EXIT_FAILURE, "fopen /proc/self/status");
    line[0] = '\0';
    while (fgets(line, (int)len, f) != NULL && strncmp(line, "NSpid:", 6) != 0)
        ;
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; *p != '\0'; p++)
        if (*p == '\t')
            *p = ' ';
}

static int levelMain(void *arg);

/* Creates the init of namespace number `level` below the program. */
static pid_t cloneLevel(int level)
{
    fflush(stdout);
    return clone(levelMain, stacks[level] + STACK_SIZE, CLONE_NEWPID | SIGCHLD,
                 (void *)(long)level);
}

/* One level: the init of namespace number `level` below the program. */
static int levelMain(void *arg)
{
    int level = (int)(long)arg;
    if (level == 1) {
        signal(SIGINT, SIG_DFL); /* the program's handler is not ours */
        signal(SIGTERM, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
            err(EXIT_FAILURE, "sigprocmask");
        close(reportPipe[0]);
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the level above */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    if (verbose)
        printf("level %2d: getpid() = %ld in its own new namespace\n", level, (long)getpid());
    // tag::nest[]
    pid_t child = cloneLevel(level + 1);
    if (child == -1) {
        struct report report = {.levels = level, .cloneErrno = errno};
        readNspid(report.nspid, sizeof report.nspid);
        if (write(reportPipe[1], &report, sizeof report) != sizeof report)
            err(EXIT_FAILURE, "write report");
        return 0;
    }
    // end::nest[]
    int status;
    if (waitpid(child, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}

/* Ctrl-C or SIGTERM: the level-1 init would ignore them; SIGKILL from here
 * ends it, and with it every namespace below. */
static void onTerminate(int sig)
{
    if (firstLevel > 0)
        kill(firstLevel, SIGKILL);
    while (wait(NULL) > 0)
        ;
    _exit(128 + sig);
}

static void explain(const struct report *r, const char *ownNspid)
{
    int e = r->cloneErrno;
    printf("this process: %s\n", ownNspid);
    printf("created %d nested PID namespace(s) below this process\n", r->levels);
    printf("clone(CLONE_NEWPID) for the next level failed: %s (%s)\n",
           e == ENOSPC   ? "ENOSPC"
           : e == EINVAL ? "EINVAL"
                         : "unexpected error",
           strerror(e));
    printf("the deepest process: %s (%d PIDs)\n", r->nspid, countPids(r->nspid + 6));
    if (e != ENOSPC && e != EINVAL)
        return;
    printf("why: the root namespace is level 0 and the kernel refuses any level above %d\n"
           "(MAX_PID_NS_LEVEL). %d levels fitted below this process, so it was at level\n"
           "%d - %d = %d. NSpid lists one PID per namespace from the one of the procfs at\n"
           "/proc down to the process's own.\n",
           MAX_PID_NS_LEVEL, r->levels, MAX_PID_NS_LEVEL, r->levels, MAX_PID_NS_LEVEL - r->levels);
    if (e == EINVAL) /* the kernel's answer before ENOSPC existed for this */
        printf("(Linux 3.7 to 4.8 refuse the 33rd level with EINVAL; 4.9 and later with "
               "ENOSPC.)\n");
}

static void parseArgs(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: %s [-v]\n"
                   "Nests PID namespaces until the kernel refuses, then reports how deep\n"
                   "it got and why. -v prints a line per level.\n"
                   "Needs CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
                   argv[0], argv[0]);
            exit(EXIT_SUCCESS);
        } else {
            errx(EXIT_FAILURE, "unknown argument '%s' (try --help)", argv[i]);
        }
    }
}

int main(int argc, char **argv)
{
    parseArgs(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    char ownNspid[512];
    readNspid(ownNspid, sizeof ownNspid);
    struct sigaction sa = {.sa_handler = onTerminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        err(EXIT_FAILURE, "sigaction");
    if (pipe2(reportPipe, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* No Ctrl-C between clone() and remembering the child's PID. */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    pid_t child = cloneLevel(1);
    struct report report = {.levels = 0, .cloneErrno = errno};
    if (child == -1 && errno == EPERM)
        err(EXIT_FAILURE,
            "clone(CLONE_NEWPID) (needs CAP_SYS_ADMIN: run as root, or "
            "unshare -r %s)",
            argv[0]);
    firstLevel = child;
    if (sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    close(reportPipe[1]);
    int status = 0;
    if (child == -1) { /* already at the deepest level: nothing was made */
        snprintf(report.nspid, sizeof report.nspid, "%s", ownNspid);
    } else {
        ssize_t n = read(reportPipe[0], &report, sizeof report);
        if (waitpid(child, &status, 0) == -1)
            err(EXIT_FAILURE, "waitpid");
        if (n != sizeof report)
            errx(EXIT_FAILURE, "the nested levels ended without a report");
    }
    explain(&report, ownNspid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
