/* SPDX-License-Identifier: MIT-0 */
/* pidns_ancestry.c: walk the tree of PID namespaces upwards with
 * ioctl(NS_GET_PARENT), from a nested namespace to the caller's own.
 *
 * PID namespaces form a tree whose root is the initial namespace (the
 * kernel's level 0; each child is one level deeper). Given a file descriptor
 * on a namespace (open("/proc/PID/ns/pid")), ioctl(fd, NS_GET_PARENT) (Linux
 * 4.9) returns a new descriptor on its parent. The walk is limited to what
 * the caller may see: the kernel refuses with EPERM to go above the caller's
 * own PID namespace. So a process inside a container cannot learn anything
 * about the namespaces above its own, or how deep it is.
 *
 * The program creates LEVELS nested namespaces (unshare(CLONE_NEWPID), then
 * fork, at each depth); each records its namespace's inode (the number in
 * "pid:[...]"). The deepest process reports its PID as seen here, and this
 * program walks up from there, naming each step by its depth below this
 * process. Each step also shows NS_GET_NSTYPE (Linux 4.11) and the creator of
 * the user namespace owning it (NS_GET_USERNS, 4.9, then NS_GET_OWNER_UID,
 * 4.11, which works only on a user namespace). Finally the deepest process
 * tries NS_GET_PARENT on its own namespace.
 *
 * Build: cc -o pidns_ancestry pidns_ancestry.c
 * Run:   sudo ./pidns_ancestry 3          (or: unshare -r ./pidns_ancestry 3)
 * Prints, e.g.:
 *   pid:[4026532412]  depth 3, the deepest (CLONE_NEWPID, owner uid 0)
 *   ...
 *   pid:[4026531836]  depth 0, this process's own namespace (...)
 *   ioctl(NS_GET_PARENT) -> EPERM: nothing above our own namespace is visible ...
 * Exit status 0, or 1 with one line "pidns_ancestry: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LEVELS 32 /* the kernel's limit of nesting below the initial namespace */

/* What the deepest process sends up to this program. */
static struct report {
    pid_t pidHere;               /* its PID in our namespace */
    int ownParentErrno;          /* NS_GET_PARENT on its own namespace */
    ino_t inode[MAX_LEVELS + 1]; /* each depth fills its own slot */
} report;
static int reportPipe[2]; /* deepest -> program: the report */
static int donePipe[2];   /* program -> deepest: EOF when the walk is done */

static ino_t ownPidnsInode(void)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == -1)
        err(EXIT_FAILURE, "stat /proc/self/ns/pid");
    return st.st_ino;
}

/* The deepest process: probe its own namespace's parent, report, then stay
 * alive (so that its namespace can be opened) until the walk is done. */
__attribute__((noreturn)) static void deepestMain(void)
{
    char line[512], byte;
    long pid = -1;
    int fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);

    if (fd == -1)
        err(EXIT_FAILURE, "open /proc/self/ns/pid");
    int parent = ioctl(fd, NS_GET_PARENT);
    report.ownParentErrno = parent == -1 ? errno : 0;
    /* Our PID as the namespace of the procfs at /proc (the program's) sees it:
     * the first number of NSpid. */
    FILE *f = fopen("/proc/self/status", "re");
    while (f != NULL && fgets(line, sizeof line, f) != NULL &&
           sscanf(line, "NSpid: %ld", &pid) != 1)
        ;
    if (f != NULL)
        fclose(f);
    report.pidHere = (pid_t)pid;
    if (write(reportPipe[1], &report, sizeof report) != sizeof report)
        err(EXIT_FAILURE, "write report");
    if (read(donePipe[0], &byte, 1) == -1) /* EOF: the walk is over */
        err(EXIT_FAILURE, "read");
    _exit(0);
}

/* Runs as the init of the namespace at `depth` below the program: records
 * its namespace, then creates the next one below or, at the bottom, reports. */
__attribute__((noreturn)) static void levelMain(int depth, int levels)
{
    if (depth == 1) { /* the program's ends, or EOF never comes */
        close(reportPipe[0]);
        close(donePipe[1]);
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the level above, Ctrl-C too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    report.inode[depth] = ownPidnsInode();
    if (depth == levels)
        deepestMain();
    if (unshare(CLONE_NEWPID) == -1)
        err(EXIT_FAILURE, "unshare(CLONE_NEWPID) at depth %d", depth);
    pid_t child = fork();
    if (child == -1)
        err(EXIT_FAILURE, "fork");
    if (child == 0)
        levelMain(depth + 1, levels);
    int status;
    if (waitpid(child, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
}

/* "CLONE_NEWPID, owner uid 0", or what could not be learned. */
static void describeNamespace(int fd, char *buf, size_t len)
{
    int type = ioctl(fd, NS_GET_NSTYPE);
    const char *typeName = type == CLONE_NEWPID ? "CLONE_NEWPID" : "type unknown";
    int userns = ioctl(fd, NS_GET_USERNS);
    uid_t owner;
    if (userns >= 0 && ioctl(userns, NS_GET_OWNER_UID, &owner) == 0)
        snprintf(buf, len, "%s, owner uid %ld", typeName, (long)owner);
    else
        snprintf(buf, len, "%s, owner not visible: %s", typeName, strerror(errno));
    if (userns >= 0)
        close(userns);
}

static void walkUp(int levels)
{
    char path[64], info[128];
    struct stat st;

    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)report.pidHere);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        err(EXIT_FAILURE, "open %s", path);
    printf("walking up from the deepest namespace with ioctl(NS_GET_PARENT):\n");
    for (;;) {
        int depth = -1;
        if (fstat(fd, &st) == -1)
            err(EXIT_FAILURE, "fstat namespace");
        for (int i = 0; i <= levels; i++)
            if (report.inode[i] == st.st_ino)
                depth = i;
        describeNamespace(fd, info, sizeof info);
        printf("  pid:[%lu]  depth %d%s (%s)\n", (unsigned long)st.st_ino, depth,
               depth == levels ? ", the deepest"
               : depth == 0    ? ", this process's own namespace"
                               : "",
               info);
        // tag::walk[]
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent == -1) { /* ENOTTY before Linux 4.9 */
            printf("  ioctl(NS_GET_PARENT) -> %s: nothing above our own namespace is visible "
                   "to us (whether or not it exists)\n",
                   errno == EPERM ? "EPERM" : strerror(errno));
            break;
        }
        close(fd);
        fd = parent;
        // end::walk[]
    }
    close(fd);
    printf("inside the deepest namespace, NS_GET_PARENT on its own namespace -> %s\n",
           report.ownParentErrno == EPERM ? "EPERM: a process cannot look above its own"
           : report.ownParentErrno == 0   ? "succeeded"
                                          : strerror(report.ownParentErrno));
}

static int parseLevels(int argc, char **argv)
{
    char *end;

    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [LEVELS]\nCreate LEVELS nested PID namespaces (default 3, at most "
               "%d) and walk\nfrom the deepest up to this process's own with "
               "ioctl(NS_GET_PARENT).\n",
               argv[0], MAX_LEVELS);
        exit(EXIT_SUCCESS);
    }
    if (argc > 2)
        errx(EXIT_FAILURE, "too many arguments (try --help)");
    if (argc == 2 && argv[1][0] == '-' && (argv[1][1] < '0' || argv[1][1] > '9'))
        errx(EXIT_FAILURE, "unknown option '%s' (try --help)", argv[1]);
    if (argc == 1)
        return 3;
    errno = 0;
    long levels = strtol(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || levels < 1 || levels > MAX_LEVELS)
        errx(EXIT_FAILURE, "LEVELS must be a number from 1 to %d, not '%s'", MAX_LEVELS, argv[1]);
    return (int)levels;
}

int main(int argc, char **argv)
{
    int levels = parseLevels(argc, argv), status;

    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    if (pipe2(reportPipe, O_CLOEXEC) == -1 || pipe2(donePipe, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    report.inode[0] = ownPidnsInode();
    if (unshare(CLONE_NEWPID) == -1) /* EPERM: needs root, or unshare -r */
        err(EXIT_FAILURE, "unshare(CLONE_NEWPID)");
    pid_t child = fork(); /* the init of the namespace at depth 1 */
    if (child == -1)
        err(EXIT_FAILURE, "fork");
    if (child == 0)
        levelMain(1, levels);
    close(reportPipe[1]);
    close(donePipe[0]);
    ssize_t n = read(reportPipe[0], &report, sizeof report);
    if (n == sizeof report) {
        printf("created %d nested PID namespace(s); the deepest process is PID 1 there, "
               "PID %ld here\n",
               levels, (long)report.pidHere);
        walkUp(levels);
    }
    close(donePipe[1]); /* lets the deepest process end, and the chain with it */
    if (waitpid(child, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    if (n != sizeof report)
        errx(EXIT_FAILURE, "the nested levels ended without a report");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
