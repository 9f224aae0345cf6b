/* multi_pidns.c: one process, many PIDs, in N nested PID namespaces.
 *
 * What it shows
 *   PID namespaces nest. This program makes a chain of N children, each the
 *   first process (PID 1) of a new PID namespace inside the previous one.
 *   Each child mounts a procfs for its own namespace: the topmost at
 *   /proc{N-1}, the next at /proc{N-2}, ... the innermost at /proc0. A
 *   procfs lists the processes of its namespace and of every namespace
 *   nested in it, so /proc{N-1} lists N processes and /proc0 just one. The
 *   innermost child runs `sleep 600` (or COMMAND): it has a different PID
 *   at every level, 1 in /proc0 up to N in /proc{N-1}.
 *
 * Build:  cc -Wall -o multi_pidns multi_pidns.c
 * Run:    sudo ./multi_pidns 5        (root, or root of a user namespace, e.g.
 *                                      inside the pidns-tutor lab)
 *         ./multi_pidns 3 ps -e -o pid,cmd    (run a command at the bottom)
 * Prints:
 *   Mounting procfs at /proc4
 *   Mounting procfs at /proc3
 *   Mounting procfs at /proc2
 *   Mounting procfs at /proc1
 *   Mounting procfs at /proc0
 *   Final child sleeping
 * then waits. From another shell (same mount namespace) try
 *   ls -d /proc4/[1-9]*     -> /proc4/1 .. /proc4/5
 *   ls -d /proc0/[1-9]*     -> /proc0/1
 *   grep -H 'Name:.*sleep' /proc?/[1-9]/status     -> /proc0/1 ... /proc4/5
 *
 * How it ends
 *   When COMMAND (or sleep) ends, with its exit status (128+N if signal N
 *   ended it). On SIGINT (Ctrl-C), SIGTERM, SIGHUP or SIGQUIT we kill the
 *   topmost child with SIGKILL, which ends every namespace below it, and
 *   exit with 128+N. Either way every /procK we mounted is unmounted and
 *   every /procK directory we made is removed. Only SIGKILL to this program
 *   leaves mounts behind (the namespaces still die); then `umount /proc?`.
 *
 * N is checked first: a whole number, at least 1, and at most what the
 * kernel's limit of 32 nested PID namespaces leaves below us. We count our
 * own depth on the NSpid: line of /proc/self/status (one PID per level we
 * can see); if /proc belongs to a namespace below the root, we are deeper
 * than it shows, and clone() reports ENOSPC, which we also handle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NESTING 32 /* the kernel's limit (MAX_PID_NS_LEVEL) since Linux 3.7 */
#define STACK_SIZE (256 * 1024)

static const char *progName = "multi_pidns";

/* What the top process must undo; cleanUp() reads it on every way out. A
 * directory that appeared is ours; a /procK whose device changed has our
 * procfs on top. The children need not report anything. */
static int levels;
static pid_t topChild = -1;
static bool dirExisted[MAX_NESTING];
static dev_t deviceBefore[MAX_NESTING];
static bool checked; /* the arrays above are filled in */

static bool cleanUp(void);

enum failMode { WARN, EXIT_PARENT, EXIT_CHILD };

/* Every message goes through here: "multi_pidns: what: why", one line. A
 * clone child leaves with _exit(), never exit(): exit() would run the top
 * process's clean-up and flush stdio buffers a second time. */
static void failWith(enum failMode mode, int errnum, const char *fmt, ...)
{
    va_list ap;
    char what[512];

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (errnum != 0)
        fprintf(stderr, "%s: %s: %s\n", progName, what, strerror(errnum));
    else
        fprintf(stderr, "%s: %s\n", progName, what);
    if (mode == EXIT_CHILD)
        _exit(EXIT_FAILURE);
    if (mode == EXIT_PARENT) {
        cleanUp();
        exit(EXIT_FAILURE);
    }
}
#define errMsg(...) failWith(WARN, errno, __VA_ARGS__)
#define errExit(...) failWith(EXIT_PARENT, errno, __VA_ARGS__)
#define errExitChild(...) failWith(EXIT_CHILD, errno, __VA_ARGS__)
#define usageErr(...) failWith(EXIT_PARENT, 0, __VA_ARGS__)

static void usage(void)
{
    printf("Usage: %s N [COMMAND [ARG...]]\n"
           "Create N nested PID namespaces, mounting a procfs for each at /proc{N-1}\n"
           "(the topmost) down to /proc0 (the innermost), then run sleep (or COMMAND)\n"
           "in the innermost one. Ctrl-C ends everything and removes the mounts.\n"
           "Needs root, or root in a user namespace.\n",
           progName);
    exit(EXIT_SUCCESS);
}

/* How many PID namespaces deep we are, as far as /proc lets us see: the
 * NSpid: line lists our PID in each namespace from /proc's down to ours. */
static int visibleDepth(void)
{
    char line[1024];
    int depth = 0;
    FILE *status = fopen("/proc/self/status", "re");

    if (status == NULL)
        return 0; /* no /proc: clone()'s ENOSPC will have to tell us */
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        for (char *word = strtok(line + 6, " \t\n"); word != NULL; word = strtok(NULL, " \t\n"))
            depth++;
        depth--; /* the first PID is the namespace /proc belongs to */
        break;
    }
    fclose(status);
    return depth < 0 ? 0 : depth;
}

/* N, checked fully: strtol() alone accepts "5x", "" and silently clamps. */
static int parseLevels(const char *text)
{
    int room = MAX_NESTING - visibleDepth();
    char *end;

    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == ' ' || text[0] == '\t')
        usageErr("N must be a whole number, got '%s' (try '%s --help')", text, progName);
    if (n < 1)
        usageErr("N must be at least 1, got %s", text);
    if (errno == ERANGE || n > room)
        usageErr("N=%s is too deep: the kernel nests at most %d PID namespaces and we are "
                 "already %d down, so N can be at most %d",
                 text, MAX_NESTING, MAX_NESTING - room, room);
    return (int)n;
}

/* Refuses, before anything is created, a /procK we could not make; and
 * records what is there now, for cleanUp(). */
static void checkMountPoints(void)
{
    struct stat sb, root;

    if (stat("/", &root) == -1)
        errExit("stat /");
    for (int k = 0; k < levels; k++) {
        char path[32];
        snprintf(path, sizeof path, "/proc%d", k);
        if (stat(path, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                usageErr("%s exists and is not a directory", path);
            dirExisted[k] = true;
            deviceBefore[k] = sb.st_dev;
        } else if (errno != ENOENT) {
            errExit("stat %s", path);
        } else {
            if (faccessat(AT_FDCWD, "/", W_OK, AT_EACCESS) == -1)
                usageErr("cannot create %s: / is not writable (%s); run as root or in a "
                         "private mount namespace",
                         path, strerror(errno));
            deviceBefore[k] = root.st_dev;
        }
    }
    checked = true;
}

/* Undoes what the children left in our mount namespace. The namespaces must
 * be gone first: a mounted procfs outlives the processes it lists. */
static bool cleanUp(void)
{
    bool ok = true;
    struct stat sb;

    if (topChild > 0) {
        kill(topChild, SIGKILL);
        while (waitpid(topChild, NULL, 0) == -1 && errno == EINTR)
            ;
        topChild = -1;
    }
    for (int k = 0; checked && k < levels; k++) {
        char path[32];
        snprintf(path, sizeof path, "/proc%d", k);
        if (stat(path, &sb) == 0 && sb.st_dev != deviceBefore[k] && umount2(path, 0) == -1) {
            errMsg("umount %s", path);
            ok = false;
        }
        if (!dirExisted[k] && rmdir(path) == -1 && errno != ENOENT) {
            errMsg("rmdir %s", path);
            ok = false;
        }
    }
    checked = false;
    return ok;
}

/* What every level needs to know; set before the first clone(), then only
 * read, so the children (each with a copy of our memory) never write to it. */
static struct {
    char **command;        /* NULL: sleep */
    int goFd, goWriteFd;   /* the topmost child waits for one byte on goFd */
    sigset_t originalMask; /* restored before exec */
    char *stacks;          /* one STACK_SIZE slice per level, level 0 lowest */
} chain;

static int childFunc(void *arg);

/* Creates the child that mounts /proc<level>, in a new PID namespace. Each
 * child gets a copy of our memory (no CLONE_VM) and runs on its own slice of
 * the stack area, which main() mapped once for all levels. The level travels
 * in clone()'s argument itself, so no level writes to memory it copied from
 * its parent (each such write would cost a page copy). */
static pid_t cloneLevel(int level)
{
    char *stackTop = chain.stacks + (size_t)(level + 1) * STACK_SIZE;

    fflush(stdout);
    return clone(childFunc, stackTop, CLONE_NEWPID | SIGCHLD, (void *)(intptr_t)level);
}

/* The exit status a shell would report for a wait status. */
static int exitStatusOf(int waitStatus)
{
    return WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 128 + WTERMSIG(waitStatus);
}

/* The innermost child: the namespace's init runs sleep or COMMAND. */
static void runFinal(void)
{
    if (chain.command == NULL)
        printf("Final child sleeping\n");
    else
        printf("Final child running %s\n", chain.command[0]);
    /* The top process blocked some signals around clone(); a mask survives
     * exec, and COMMAND deserves the signals it expects. */
    if (sigprocmask(SIG_SETMASK, &chain.originalMask, NULL) == -1)
        errExitChild("sigprocmask");
    fflush(stdout); /* exec discards whatever stdio still holds */
    if (chain.command == NULL)
        execlp("sleep", "sleep", "600", (char *)NULL);
    else
        execvp(chain.command[0], chain.command);
    int saved = errno;
    failWith(WARN, saved, "execvp %s", chain.command == NULL ? "sleep" : chain.command[0]);
    _exit(saved == ENOENT ? 127 : 126);
}

/* Runs in each child: PID 1 of the namespace whose procfs goes at /proc<level>. */
static int childFunc(void *arg)
{
    int level = (int)(intptr_t)arg;
    char path[32], go;

    if (level == levels - 1) {
        /* The topmost child dies with the top process; every namespace
         * below dies with it, since killing an init ends its namespace. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
            errExitChild("prctl(PR_SET_PDEATHSIG)");
        close(chain.goWriteFd);
        if (read(chain.goFd, &go, 1) != 1) /* no byte: the parent died before prctl() */
            _exit(EXIT_FAILURE);
        close(chain.goFd);
    }
    // tag::nest[]
    snprintf(path, sizeof path, "/proc%d", level);
    if (mkdir(path, 0555) == -1 && errno != EEXIST)
        errExitChild("mkdir %s", path);
    /* We mount, so this procfs shows OUR namespace (and those nested in it). */
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        errExitChild("mount procfs at %s", path);
    printf("Mounting procfs at %s\n", path);
    if (level == 0)
        runFinal();

    pid_t child = cloneLevel(level - 1);
    // end::nest[]
    if (child == -1)
        errExitChild("clone(CLONE_NEWPID) for /proc%d%s", level - 1,
                     errno == ENOSPC ? " (the kernel's 32-level nesting limit, or "
                                       "user.max_pid_namespaces, was reached)"
                                     : "");
    /* Wait, and pass the status up. When we exit, the kernel kills whatever
     * is left in our namespace: nothing outlives its init. Returning from a
     * clone child's function ends it like _exit(): stdio is not flushed, but
     * stdout is line-buffered, so nothing is waiting there. */
    int status;
    while (waitpid(child, &status, 0) == -1)
        if (errno != EINTR)
            errExitChild("waitpid");
    return exitStatusOf(status);
}

/* Waits until the topmost child ends, taking SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT (blocked since before clone) with sigwaitinfo(): no handler can
 * race with clone(). Returns the exit status this program should report. */
static int waitForTopChild(const sigset_t *watched)
{
    int interruptedBy = 0, status = 0;

    for (;;) {
        int sig = sigwaitinfo(watched, NULL);
        if (sig == -1) {
            if (errno == EINTR)
                continue;
            errExit("sigwaitinfo");
        }
        if (sig != SIGCHLD) {
            /* An init ignores every signal it has no handler for, so
             * passing SIGINT on would do nothing. SIGKILL from an ancestor
             * namespace always works, and the kernel then kills every
             * process in that namespace and in all those nested in it. */
            interruptedBy = sig;
            if (kill(topChild, SIGKILL) == -1 && errno != ESRCH)
                errExit("kill %ld", (long)topChild);
            continue;
        }
        pid_t pid = waitpid(topChild, &status, WNOHANG);
        if (pid == -1)
            errExit("waitpid");
        if (pid == topChild)
            break;
    }
    topChild = -1;
    return interruptedBy != 0 ? 128 + interruptedBy : exitStatusOf(status);
}

int main(int argc, char *argv[])
{
    sigset_t watched;
    int goPipe[2];

    /* Line-buffered even into a pipe or a file, so no line waits in a buffer
     * that a clone child's _exit() or an exec would throw away. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int first = 1;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
        usage();
    if (argc > 1 && strcmp(argv[1], "--") == 0)
        first = 2;
    if (argc > first && argv[first][0] == '-' && (argv[first][1] < '0' || argv[first][1] > '9'))
        usageErr("unknown option '%s' (try '%s --help')", argv[first], progName);
    if (argc <= first)
        usageErr("missing N, the number of nested PID namespaces (try '%s --help')", progName);
    levels = parseLevels(argv[first]);
    if (argc > first + 1)
        chain.command = argv + first + 1;
    checkMountPoints();

    sigemptyset(&watched);
    sigaddset(&watched, SIGCHLD);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGHUP);
    sigaddset(&watched, SIGQUIT);
    if (sigprocmask(SIG_BLOCK, &watched, &chain.originalMask) == -1)
        errExit("sigprocmask");
    if (pipe2(goPipe, O_CLOEXEC) == -1)
        errExit("pipe2");
    chain.goFd = goPipe[0];
    chain.goWriteFd = goPipe[1];
    /* One stack area for all levels: only the pages a level touches cost
     * memory, and no level has stacks of its own to map or unmap. */
    chain.stacks = mmap(NULL, (size_t)levels * STACK_SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (chain.stacks == MAP_FAILED)
        errExit("mmap %d stacks", levels);

    topChild = cloneLevel(levels - 1);
    if (topChild == -1)
        errExit("clone(CLONE_NEWPID)%s", errno == EPERM ? " (needs root, or root in a user "
                                                          "namespace: try unshare -Ur)"
                                                        : "");
    close(goPipe[0]);
    if (write(goPipe[1], "g", 1) != 1)
        errExit("write to child");
    close(goPipe[1]);

    int status = waitForTopChild(&watched);
    if (!cleanUp() && status == 0)
        status = EXIT_FAILURE;
    return status;
}
