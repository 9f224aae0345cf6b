/* pidns_ancestry.c: walk the tree of PID namespaces upwards with
 * ioctl(NS_GET_PARENT), from a nested namespace to the caller's own.
 *
 * PID namespaces form a tree: each one has a parent, up to the first (root)
 * namespace. Given a file descriptor on a namespace (open("/proc/PID/ns/pid")),
 * ioctl(fd, NS_GET_PARENT) returns a new descriptor on its parent. The walk
 * is limited to what the caller may see: the kernel refuses with EPERM to go
 * above the caller's own PID namespace. So a process in the root namespace
 * can walk up to the root and no further, and a process inside a container
 * cannot learn anything about the namespaces above its own.
 *
 * The program creates LEVELS nested namespaces (unshare(CLONE_NEWPID), then
 * fork, at each level); every level records its namespace's inode (the
 * number in "pid:[...]"). The deepest process reports its PID as seen here,
 * and this program, from its own namespace, walks up from there, matching
 * each step to the level that created it. Each step also shows
 * NS_GET_NSTYPE (Linux 4.11) and the owner of the user namespace that owns
 * the PID namespace (NS_GET_USERNS, then NS_GET_OWNER_UID; Linux 4.11).
 * Finally the deepest process tries NS_GET_PARENT on its own namespace.
 *
 * Build: cc -o pidns_ancestry pidns_ancestry.c
 * Run:   sudo ./pidns_ancestry 3          (or: unshare -r ./pidns_ancestry 3)
 * Prints, e.g.:
 *   pid:[4026532412]  level 3, the deepest (CLONE_NEWPID, owner uid 0)
 *   ...
 *   pid:[4026531836]  level 0, this process's own namespace (...)
 *   ioctl(NS_GET_PARENT) -> EPERM: nothing above our own namespace is visible
 * Exit status: 0 done, 1 a call failed, 2 bad usage, 77 skipped (needs
 * CAP_SYS_ADMIN, or Linux 4.9 for NS_GET_PARENT).
 */
#define _GNU_SOURCE
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

#define EXIT_SKIPPED 77
#define MAX_LEVELS 32 /* the kernel's limit of nesting below the root */

static const char *prog = "pidns_ancestry";
static int in_child; /* set after fork: leave with _exit() */
static volatile pid_t first_level; /* for on_terminate() */

/* What the deepest process sends up to this program. */
struct report {
    pid_t pid_here;       /* its PID in our namespace */
    int own_parent_errno; /* NS_GET_PARENT on its own namespace */
    ino_t inode[MAX_LEVELS + 1];
};
static struct report report; /* each level fills its own inode[] slot */
static int report_pipe[2];   /* deepest level -> program: the report */
static int done_pipe[2];     /* program -> deepest level: EOF when done */

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

static ino_t fd_inode(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == -1)
        die("fstat namespace");
    return st.st_ino;
}

static ino_t own_pidns_inode(void)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == -1)
        die("stat /proc/self/ns/pid");
    return st.st_ino;
}

/* The first number of "NSpid:" in /proc/self/status: our PID as the
 * namespace of the procfs at /proc (normally the program's) sees it. */
static pid_t pid_in_proc_namespace(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        die("fopen /proc/self/status");
    char line[512];
    long pid = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "NSpid: %ld", &pid) == 1)
            break;
    fclose(f);
    return (pid_t)pid;
}

/* --- the nested levels ------------------------------------------------ */

/* The deepest level: probe its own namespace's parent, report, then stay
 * alive (so its namespace can be opened) until the program closes done. */
__attribute__((noreturn)) static void deepest_main(void)
{
    int fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        die("open /proc/self/ns/pid");
    int parent = ioctl(fd, NS_GET_PARENT);
    report.own_parent_errno = parent == -1 ? errno : 0;
    if (parent >= 0)
        close(parent);
    close(fd);
    report.pid_here = pid_in_proc_namespace();
    if (write(report_pipe[1], &report, sizeof report) != sizeof report)
        die("write report");
    char byte;
    if (read(done_pipe[0], &byte, 1) == -1) /* EOF: the walk is over */
        die("read");
    _exit(0);
}

/* Runs as the init of level `level`: records its namespace, then either
 * creates the next level below or, at the bottom, reports. */
__attribute__((noreturn)) static void level_main(int level, int levels)
{
    in_child = 1;
    if (level == 1) { /* the ends that are the program's, or EOF never comes */
        close(report_pipe[0]);
        close(done_pipe[1]);
    }
    signal(SIGINT, SIG_DFL); /* the program's handler is not ours */
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the level above */
        die("prctl(PR_SET_PDEATHSIG)");
    report.inode[level] = own_pidns_inode();
    if (level == levels)
        deepest_main();
    if (unshare(CLONE_NEWPID) == -1) {
        fprintf(stderr, "%s: unshare(CLONE_NEWPID) at level %d: %s\n", prog, level,
                strerror(errno));
        _exit(EXIT_FAILURE);
    }
    pid_t child = fork();
    if (child == -1)
        die("fork");
    if (child == 0)
        level_main(level + 1, levels);
    int status;
    if (waitpid(child, &status, 0) == -1)
        die("waitpid");
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
}

/* --- the walk, in this program's own namespace ------------------------ */

/* "CLONE_NEWPID, owner uid 0", or what could not be learned. */
static void describe_namespace(int fd, char *buf, size_t len)
{
    int type = ioctl(fd, NS_GET_NSTYPE);
    const char *type_name = type == CLONE_NEWPID ? "CLONE_NEWPID" : "type unknown";
    int userns = ioctl(fd, NS_GET_USERNS);
    uid_t owner;
    if (userns >= 0 && ioctl(userns, NS_GET_OWNER_UID, &owner) == 0)
        snprintf(buf, len, "%s, owner uid %ld", type_name, (long)owner);
    else
        snprintf(buf, len, "%s, owner not visible: %s", type_name, strerror(errno));
    if (userns >= 0)
        close(userns);
}

static void walk_up(int levels)
{
    char path[64], info[128];
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)report.pid_here);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        die(path);
    printf("walking up from the deepest namespace with ioctl(NS_GET_PARENT):\n");
    for (;;) {
        ino_t inode = fd_inode(fd);
        int level = -1;
        for (int i = 0; i <= levels; i++)
            if (report.inode[i] == inode)
                level = i;
        describe_namespace(fd, info, sizeof info);
        printf("  pid:[%lu]  level %d%s (%s)\n", (unsigned long)inode, level,
               level == levels ? ", the deepest"
               : level == 0    ? ", this process's own namespace"
                               : "",
               info);
        // tag::walk[]
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent == -1 && errno == ENOTTY) {
            printf("%s: skipped: NS_GET_PARENT needs Linux 4.9\n", prog);
            exit(EXIT_SKIPPED);
        }
        if (parent == -1) {
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
           report.own_parent_errno == EPERM ? "EPERM: a process cannot look above its own"
           : report.own_parent_errno == 0   ? "succeeded"
                                            : strerror(report.own_parent_errno));
}

/* Ctrl-C or SIGTERM: the level-1 init would ignore them; SIGKILL from here
 * ends it, and with it every namespace below. */
static void on_terminate(int sig)
{
    if (first_level > 0)
        kill(first_level, SIGKILL);
    while (wait(NULL) > 0)
        ;
    _exit(128 + sig);
}

static int parse_levels(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [LEVELS]\n"
               "Creates LEVELS nested PID namespaces (default 3, at most %d) and walks\n"
               "from the deepest one up to this process's own with ioctl(NS_GET_PARENT).\n"
               "Needs CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
               prog, MAX_LEVELS, prog);
        exit(EXIT_SUCCESS);
    }
    if (argc > 2) {
        fprintf(stderr, "%s: too many arguments (try --help)\n", prog);
        exit(2);
    }
    if (argc == 2 && argv[1][0] == '-' && (argv[1][1] < '0' || argv[1][1] > '9')) {
        fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, argv[1]);
        exit(2);
    }
    if (argc == 1)
        return 3;
    char *end;
    errno = 0;
    long levels = strtol(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || levels < 1 || levels > MAX_LEVELS) {
        fprintf(stderr, "%s: LEVELS must be a number from 1 to %d, not '%s'\n", prog,
                MAX_LEVELS, argv[1]);
        exit(2);
    }
    return (int)levels;
}

static pid_t start_levels(int levels)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* No Ctrl-C between fork() and remembering the child's PID. */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    report.inode[0] = own_pidns_inode();
    if (unshare(CLONE_NEWPID) == -1) {
        if (errno != EPERM)
            die("unshare(CLONE_NEWPID)");
        printf("%s: skipped: needs CAP_SYS_ADMIN to create a PID namespace "
               "(run as root, or: unshare -r)\n", prog);
        exit(EXIT_SKIPPED);
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == -1)
        die("fork");
    if (child == 0)
        level_main(1, levels);
    first_level = child;
    if (sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
        die("sigprocmask");
    return child;
}

int main(int argc, char **argv)
{
    int levels = parse_levels(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    struct sigaction sa = {.sa_handler = on_terminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        die("sigaction");
    if (pipe2(report_pipe, O_CLOEXEC) == -1 || pipe2(done_pipe, O_CLOEXEC) == -1)
        die("pipe2");
    pid_t child = start_levels(levels);
    close(report_pipe[1]);
    close(done_pipe[0]);
    ssize_t n = read(report_pipe[0], &report, sizeof report);
    if (n == sizeof report) {
        printf("created %d nested PID namespace(s); the deepest process is PID 1 there, "
               "PID %ld here\n", levels, (long)report.pid_here);
        walk_up(levels);
    }
    close(done_pipe[1]); /* lets the deepest process end, and the chain with it */
    int status;
    if (waitpid(child, &status, 0) == -1)
        die("waitpid");
    if (n != sizeof report)
        fprintf(stderr, "%s: the nested levels ended without a report\n", prog);
    return WIFEXITED(status) && n == sizeof report ? WEXITSTATUS(status) : EXIT_FAILURE;
}
