/* pidns_max_depth.c: PID namespaces nest at most 32 levels deep; find the
 * limit by nesting until the kernel refuses.
 *
 * Every PID namespace has a level: the root (initial) namespace is level 0,
 * a namespace created inside it level 1, and so on. The kernel refuses to
 * create a namespace deeper than level 32 (MAX_PID_NS_LEVEL, since Linux 3.7):
 * clone(CLONE_NEWPID) or unshare(CLONE_NEWPID) then fail with ENOSPC. The
 * count starts at the root, not at the caller: a process already 5 levels
 * down (in a container, say) can create only 27 more. A process has one PID
 * per level from its namespace up to the root, so the deepest possible
 * process has 33 PIDs, and the NSpid line of its /proc/PID/status lists as
 * many as the procfs mounted at /proc can see.
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
 * Exit status: 0 done, 1 a call failed, 2 bad usage, 77 skipped (needs
 * CAP_SYS_ADMIN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (256 * 1024)
#define EXIT_SKIPPED 77
#define MAX_PID_NS_LEVEL 32 /* include/linux/pid_namespace.h */

static const char *prog = "pidns_max_depth";
static int in_child; /* set after clone: leave with _exit() */
static int verbose;
static int report_pipe[2]; /* deepest level -> program */
static volatile pid_t first_level; /* for on_terminate() */

/* What the deepest process sends up. */
struct report {
    int levels;      /* namespaces created below the program */
    int clone_errno; /* why the next one failed */
    char nspid[512]; /* its "NSpid:" line */
};

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

/* The number of PIDs on an "NSpid:" line: one per namespace from the one of
 * the procfs at /proc down to the process's own. */
static int count_pids(const char *line)
{
    int count = 0;
    for (const char *p = line; *p != '\0'; p++)
        if (*p >= '0' && *p <= '9' && (p == line || p[-1] == ' ' || p[-1] == '\t'))
            count++;
    return count;
}

/* Reads the "NSpid:" line of /proc/self/status, tabs made spaces. */
static void read_nspid(char *line, size_t len)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        die("fopen /proc/self/status");
    line[0] = '\0';
    while (fgets(line, (int)len, f) != NULL)
        if (strncmp(line, "NSpid:", 6) == 0)
            break;
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; *p != '\0'; p++)
        if (*p == '\t')
            *p = ' ';
}

/* Creates a process in a new PID namespace running fn; -1 with errno. The
 * stack is the child's copy: ours is freed at once. */
static pid_t clone_new_namespace(int (*fn)(void *), void *arg)
{
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        die("mmap stack");
    fflush(NULL);
    pid_t pid = clone(fn, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, arg);
    int saved_errno = errno;
    munmap(stack, STACK_SIZE);
    errno = saved_errno;
    return pid;
}

/* One level: the init of namespace number `level` below the program. */
static int level_main(void *arg)
{
    int level = (int)(long)arg;
    in_child = 1;
    if (level == 1) {
        signal(SIGINT, SIG_DFL); /* the program's handler is not ours */
        signal(SIGTERM, SIG_DFL);
        close(report_pipe[0]);
    }
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the level above */
        die("prctl(PR_SET_PDEATHSIG)");
    if (verbose)
        printf("level %2d: getpid() = %ld in its own new namespace\n", level, (long)getpid());
    // tag::nest[]
    pid_t child = clone_new_namespace(level_main, (void *)(long)(level + 1));
    if (child == -1) {
        struct report report = {.levels = level, .clone_errno = errno};
        read_nspid(report.nspid, sizeof report.nspid);
        if (write(report_pipe[1], &report, sizeof report) != sizeof report)
            die("write report");
        return 0;
    }
    // end::nest[]
    int status;
    if (waitpid(child, &status, 0) == -1)
        die("waitpid");
    fflush(NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}

/* --- the program -------------------------------------------------------- */

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

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: %s [-v]\n"
                   "Nests PID namespaces until the kernel refuses, then reports how deep\n"
                   "it got and why. -v prints a line per level.\n"
                   "Needs CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
                   prog, prog);
            exit(EXIT_SUCCESS);
        } else {
            fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", prog, argv[i]);
            exit(2);
        }
    }
}

static void explain(const struct report *report, const char *own_nspid)
{
    int start = MAX_PID_NS_LEVEL - report->levels;
    printf("this process: %s\n", own_nspid);
    printf("created %d nested PID namespace(s) below this process\n", report->levels);
    printf("clone(CLONE_NEWPID) for the next level failed: %s (%s)\n",
           report->clone_errno == ENOSPC ? "ENOSPC" : "unexpected error",
           strerror(report->clone_errno));
    printf("the deepest process: %s (%d PIDs)\n", report->nspid, count_pids(report->nspid + 6));
    if (report->clone_errno != ENOSPC)
        return;
    printf("why: the root namespace is level 0 and the kernel refuses any level above %d\n"
           "(MAX_PID_NS_LEVEL). %d levels fitted below this process, so it was at level\n"
           "%d - %d = %d. NSpid lists one PID per namespace from the one of the procfs at\n"
           "/proc down to the process's own.\n",
           MAX_PID_NS_LEVEL, report->levels, MAX_PID_NS_LEVEL, report->levels, start);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    char own_nspid[512];
    read_nspid(own_nspid, sizeof own_nspid);
    struct sigaction sa = {.sa_handler = on_terminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        die("sigaction");
    if (pipe2(report_pipe, O_CLOEXEC) == -1)
        die("pipe2");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* No Ctrl-C between clone() and remembering the child's PID. */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    pid_t child = clone_new_namespace(level_main, (void *)1L);
    struct report report = {.levels = 0, .clone_errno = errno};
    if (child == -1 && errno == EPERM) {
        printf("%s: skipped: needs CAP_SYS_ADMIN to create a PID namespace "
               "(run as root, or: unshare -r)\n", prog);
        exit(EXIT_SKIPPED);
    }
    first_level = child;
    if (sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
        die("sigprocmask");
    close(report_pipe[1]);
    int status = 0;
    if (child == -1) { /* already at the deepest level: nothing was made */
        snprintf(report.nspid, sizeof report.nspid, "%s", own_nspid);
    } else {
        ssize_t n = read(report_pipe[0], &report, sizeof report);
        if (waitpid(child, &status, 0) == -1)
            die("waitpid");
        if (n != sizeof report) {
            fprintf(stderr, "%s: the nested levels ended without a report\n", prog);
            return EXIT_FAILURE;
        }
    }
    explain(&report, own_nspid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
