/* SPDX-License-Identifier: MIT-0 */
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
 * Exit status: the child's (COMMAND's, 128+N if signal N killed it); 126/127
 * COMMAND cannot run / not found; 1 bad usage or a call failed, with one
 * line "pidns_setns: what failed: why" (setns() needs CAP_SYS_ADMIN over the
 * target namespace, and Linux 3.8 for a PID namespace).
 */
#define _GNU_SOURCE
#include <err.h>
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

static int joinMount;
static pid_t target;
static char **command;

static const char *nsLink(const char *path, char *buf, size_t len)
{
    ssize_t n = readlink(path, buf, len - 1);
    if (n == -1 && errno == ENOENT && strstr(path, "pid_for_children") != NULL) {
        snprintf(buf, len, "(missing: needs Linux 4.12)");
        return buf;
    }
    if (n == -1)
        err(EXIT_FAILURE, "readlink %s", path);
    buf[n] = '\0';
    return buf;
}

/* Opens /proc/PID/ns/NAME, with a hint when the process does not exist. */
static int openTargetNs(const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/%s", (long)target, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 && errno == ENOENT)
        errx(EXIT_FAILURE, "no process %ld here (%s: %s); give the PID of a running process",
             (long)target, path, strerror(errno));
    if (fd == -1) /* EACCES: inspecting PID needs the same user, or CAP_SYS_PTRACE */
        err(EXIT_FAILURE, "open %s", path);
    return fd;
}

static void joinOrExplain(int fd, int type, const char *what)
{
    if (setns(fd, type) == 0)
        return;
    if (errno == EINVAL && type == CLONE_NEWPID)
        errx(EXIT_FAILURE,
             "%s: %s: PID %ld's namespace is not ours or below ours; a process "
             "can join only those",
             what, strerror(errno), (long)target);
    err(EXIT_FAILURE, "%s%s", what,
        errno == EPERM ? " (needs CAP_SYS_ADMIN over the target "
                         "namespace: run as root, or from the user namespace that owns it)"
                       : "");
}

/* In the child, the first process of ours inside the target namespace. */
static void childMain(int mntFd)
{
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    printf("child: getpid() = %ld, getppid() = %ld (%s)\n", (long)getpid(), (long)getppid(),
           getppid() == 0 ? "its parent is outside the namespace" : "its parent is visible");
    if (mntFd >= 0) /* after this, /proc may be the target's procfs */
        joinOrExplain(mntFd, CLONE_NEWNS, "setns(CLONE_NEWNS)");
    if (command == NULL)
        _exit(0);
    execvp(command[0], command);
    err(errno == ENOENT ? 127 : 126, "cannot run %s", command[0]);
}

/* Waits for the child; Ctrl-C or SIGTERM kill it. */
static int waitChild(pid_t child, const sigset_t *set)
{
    for (;;) {
        int status, sig = sigwaitinfo(set, NULL);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            err(EXIT_FAILURE, "sigwaitinfo");
        if (sig != SIGCHLD) {
            if (kill(child, SIGKILL) == -1 && errno != ESRCH)
                err(EXIT_FAILURE, "kill");
            continue;
        }
        pid_t pid = waitpid(child, &status, WNOHANG);
        if (pid == -1)
            err(EXIT_FAILURE, "waitpid");
        if (pid == child)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
}

static void parseArgs(int argc, char **argv)
{
    static const struct option options[] = {
        {"mount", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    char *end;

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+mh", options, NULL)) != -1) {
        if (opt == 'm') {
            joinMount = 1;
        } else if (opt == 'h') {
            printf("Usage: %s [--mount] PID [COMMAND [ARG...]]\n"
                   "Join the PID namespace of process PID with setns(), then fork: the child\n"
                   "is inside it, reports its PIDs, then runs COMMAND if one is given.\n"
                   "  -m, --mount  the child also joins PID's mount namespace (its /proc)\n",
                   argv[0]);
            exit(EXIT_SUCCESS);
        } else {
            errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_setns --help')", argv[optind - 1]);
        }
    }
    if (optind == argc)
        errx(EXIT_FAILURE, "no PID given: name the process whose namespace to join");
    errno = 0;
    long value = strtol(argv[optind], &end, 10);
    if (errno != 0 || end == argv[optind] || *end != '\0' || value < 1 || value > INT_MAX)
        errx(EXIT_FAILURE, "'%s' is not a PID: give a positive number", argv[optind]);
    target = (pid_t)value;
    if (optind + 1 < argc)
        command = argv + optind + 1;
}

int main(int argc, char **argv)
{
    parseArgs(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    char link[64], path[64];
    int pidFd = openTargetNs("pid");
    int mntFd = joinMount ? openTargetNs("mnt") : -1;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)target);
    printf("target PID %ld: ns/pid = %s\n", (long)target, nsLink(path, link, sizeof link));
    printf("this process: ns/pid = %s\n", nsLink("/proc/self/ns/pid", link, sizeof link));
    // tag::join[]
    joinOrExplain(pidFd, CLONE_NEWPID, "setns(CLONE_NEWPID)");
    close(pidFd);
    printf("after setns(): ns/pid = %s (this process did not move)\n",
           nsLink("/proc/self/ns/pid", link, sizeof link));
    printf("               ns/pid_for_children = %s (where children go)\n",
           nsLink("/proc/self/ns/pid_for_children", link, sizeof link));
    // end::join[]

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    pid_t child = fork();
    if (child == -1) /* ENOMEM: the namespace's init has died, it takes no new process */
        err(EXIT_FAILURE, "fork%s", errno == ENOMEM ? " (the namespace's init has died)" : "");
    if (child == 0)
        childMain(mntFd);
    if (mntFd >= 0)
        close(mntFd);
    return waitChild(child, &set);
}
