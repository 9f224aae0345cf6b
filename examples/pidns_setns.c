/* pidns_setns.c: join the PID namespace of a running process, in the spirit
 * of util-linux `nsenter --target PID --pid [--mount] COMMAND`.
 *
 * setns() on a PID namespace file (/proc/PID/ns/pid) behaves like
 * unshare(CLONE_NEWPID): the caller stays where it is, and only its children
 * created afterwards land in the target namespace. So a tool that "enters" a
 * PID namespace has to fork: the child is the one inside. The kernel allows
 * joining one's own PID namespace or one below it, never one above or beside
 * it (EINVAL): a process may not escape to where it could see more.
 *
 * A PID namespace alone does not change what /proc shows; --mount also joins
 * the target's mount namespace (in the child, after the fork), so a procfs
 * the target mounted at /proc, and therefore ps, show its namespace.
 *
 * Build: cc -o pidns_setns pidns_setns.c
 * Run:   sudo ./pidns_setns PID              (report only)
 *        sudo ./pidns_setns --mount PID ps -e
 * Prints, e.g.:
 *   target PID 5123: ns/pid = pid:[4026532410]
 *   after setns(): /proc/self/ns/pid = pid:[4026531836] (unchanged),
 *                  pid_for_children = pid:[4026532410] (the target's)
 *   child: getpid() = 7, getppid() = 0 (its parent is outside the namespace)
 * Ctrl-C or SIGTERM kill the child (this program creates no namespace).
 * Exit status: the child's (COMMAND's, 128+N if signal N killed it); 1 a call
 * failed, 2 bad usage, 77 skipped (needs CAP_SYS_ADMIN, or Linux 3.8),
 * 126/127 COMMAND cannot run / not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_SKIPPED 77

static const char *prog = "pidns_setns";
static int in_child; /* set after fork: leave with _exit() */
static int join_mount;
static pid_t target;
static char **command;

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

static const char *ns_link(const char *path, char *buf, size_t len)
{
    ssize_t n = readlink(path, buf, len - 1);
    if (n == -1 && errno == ENOENT && strstr(path, "pid_for_children") != NULL) {
        snprintf(buf, len, "(missing: needs Linux 4.12)");
        return buf;
    }
    if (n == -1)
        die(path);
    buf[n] = '\0';
    return buf;
}

/* Opens /proc/PID/ns/NAME, with a hint when the process does not exist. */
static int open_target_ns(const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/%s", (long)target, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 && errno == ENOENT) {
        fprintf(stderr, "%s: no process %ld here (%s: %s); give the PID of a running process\n",
                prog, (long)target, path, strerror(errno));
        exit(EXIT_FAILURE);
    }
    if (fd == -1 && errno == EACCES) {
        printf("%s: skipped: opening %s needs the right to inspect PID %ld "
               "(the same user, or CAP_SYS_PTRACE)\n", prog, path, (long)target);
        exit(EXIT_SKIPPED);
    }
    if (fd == -1)
        die(path);
    return fd;
}

static void join_or_explain(int fd, int type, const char *what)
{
    if (setns(fd, type) == 0)
        return;
    if (errno == EPERM) {
        printf("%s: skipped: %s needs CAP_SYS_ADMIN over the target namespace "
               "(run as root, or from the user namespace that owns it)\n", prog, what);
        exit(EXIT_SKIPPED);
    }
    if (errno == EINVAL && type == CLONE_NEWPID) {
        fprintf(stderr, "%s: %s: %s: PID %ld's namespace is not ours or below ours; "
                "a process can join only those\n", prog, what, strerror(errno), (long)target);
        exit(EXIT_FAILURE);
    }
    die(what);
}

/* In the child, the first process of ours inside the target namespace. */
static void child_main(int mnt_fd)
{
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    printf("child: getpid() = %ld, getppid() = %ld (%s)\n", (long)getpid(), (long)getppid(),
           getppid() == 0 ? "its parent is outside the namespace" : "its parent is visible");
    if (mnt_fd >= 0) /* after this, /proc may be the target's procfs */
        join_or_explain(mnt_fd, CLONE_NEWNS, "setns(CLONE_NEWNS)");
    fflush(NULL);
    if (command == NULL)
        _exit(0);
    execvp(command[0], command);
    int err = errno;
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, command[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* Waits for the child; Ctrl-C or SIGTERM kill it. */
static int wait_child(pid_t child, const sigset_t *set)
{
    for (;;) {
        int status, sig = sigwaitinfo(set, NULL);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            die("sigwaitinfo");
        if (sig != SIGCHLD) {
            if (kill(child, SIGKILL) == -1 && errno != ESRCH)
                die("kill");
            continue;
        }
        pid_t pid = waitpid(child, &status, WNOHANG);
        if (pid == -1)
            die("waitpid");
        if (pid == child)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}

static void usage(FILE *out, int status)
{
    fprintf(out,
            "Usage: %s [--mount] PID [COMMAND [ARG...]]\n"
            "Joins the PID namespace of process PID with setns(), then forks: the child\n"
            "is inside it and reports its PIDs, then runs COMMAND if one is given.\n"
            "  -m, --mount  the child also joins PID's mount namespace (its /proc)\n"
            "  -h, --help   this text\n"
            "Needs CAP_SYS_ADMIN (like nsenter).\n",
            prog);
    exit(status);
}

static void parse_args(int argc, char **argv)
{
    static const struct option options[] = {
        {"mount", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "+mh", options, NULL)) != -1) {
        if (opt == 'm')
            join_mount = 1;
        else if (opt == 'h')
            usage(stdout, EXIT_SUCCESS);
        else {
            fprintf(stderr, "Try '%s --help'.\n", prog);
            exit(2);
        }
    }
    if (optind == argc) {
        fprintf(stderr, "%s: no PID given: name the process whose namespace to join\n", prog);
        exit(2);
    }
    char *end;
    errno = 0;
    long value = strtol(argv[optind], &end, 10);
    if (errno != 0 || end == argv[optind] || *end != '\0' || value < 1 || value > INT_MAX) {
        fprintf(stderr, "%s: '%s' is not a PID: give a positive number\n", prog, argv[optind]);
        exit(2);
    }
    target = (pid_t)value;
    if (optind + 1 < argc)
        command = argv + optind + 1;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    char link[64], path[64];
    int pid_fd = open_target_ns("pid");
    int mnt_fd = join_mount ? open_target_ns("mnt") : -1;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)target);
    printf("target PID %ld: ns/pid = %s\n", (long)target, ns_link(path, link, sizeof link));
    printf("this process: ns/pid = %s\n", ns_link("/proc/self/ns/pid", link, sizeof link));
    // tag::join[]
    join_or_explain(pid_fd, CLONE_NEWPID, "setns(CLONE_NEWPID)");
    close(pid_fd);
    printf("after setns(): ns/pid = %s (this process did not move)\n",
           ns_link("/proc/self/ns/pid", link, sizeof link));
    printf("               ns/pid_for_children = %s (where children go)\n",
           ns_link("/proc/self/ns/pid_for_children", link, sizeof link));
           // end::join[]

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    fflush(NULL);
    pid_t child = fork();
    if (child == -1 && errno == ENOMEM) {
        fprintf(stderr, "%s: fork: %s: the namespace's init has died, it takes no new process\n",
                prog, strerror(errno));
        exit(EXIT_FAILURE);
    }
    if (child == -1)
        die("fork");
    if (child == 0) {
        in_child = 1;
        child_main(mnt_fd);
    }
    if (mnt_fd >= 0)
        close(mnt_fd);
    return wait_child(child, &set);
}
