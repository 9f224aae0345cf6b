/* SPDX-License-Identifier: MIT-0 */
/* pidns_pidfd.c: a pidfd for the init of a new PID namespace, and what the
 * kernel tells through it.
 *
 * A pidfd is a file descriptor that names one process, not a number that may
 * be reused. The parent gets one from clone(CLONE_NEWPID | CLONE_PIDFD) (Linux
 * 5.2), prints the Pid and NSpid lines of its /proc/self/fdinfo entry (NSpid:
 * 5.5), what PIDFD_GET_PID_NAMESPACE (6.11) and PIDFD_GET_INFO (6.13) say, and
 * ends the init with pidfd_send_signal() (5.1). Inside, the init's pidfd_open()
 * (5.3) of the parent's PID fails (ESRCH), and an inherited pidfd of the parent
 * cannot signal upwards (EINVAL). --join: one setns() (5.8) on a pidfd enters
 * several namespaces of PID at once.
 *
 * Build: cc -o pidns_pidfd pidns_pidfd.c
 * Run:   sudo ./pidns_pidfd [--hold]    (root, or root of a user namespace)
 *        sudo ./pidns_pidfd --join PID pid,mnt COMMAND [ARG...]
 * --hold waits for SIGTERM or Ctrl-C before it ends the init; those signals,
 * SIGHUP and SIGQUIT end the init or COMMAND. Exit status 0 (--join:
 * COMMAND's), or 1 with one line "pidns_pidfd: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* SYS_pidfd_open, SYS_pidfd_send_signal and CLONE_PIDFD come with glibc 2.36;
 * the 6.11 and 6.13 ioctls do not (and <linux/pidfd.h> clashes with <fcntl.h>). */
#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)
struct pidfdInfo { /* the first version (64 bytes) of struct pidfd_info */
    unsigned long long mask, cgroupid;
    unsigned int pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid, spare;
};
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfdInfo)

static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static char stack[256 * 1024]; /* the init's */
static int childPidfd = -1;    /* stays -1 in the init's copy */
static pid_t childPid = -1;
static pid_t parentPid;      /* our PID in our namespace */
static int parentPidfd = -1; /* a pidfd for us, inherited by the init */
static int chan[2];          /* socketpair: chan[0] the parent's end, chan[1] the init's */

static int pidfdOpen(pid_t pid)
{
    return syscall(SYS_pidfd_open, pid, 0);
}
static int pidfdSignal(int fd, int sig)
{
    return syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
}

/* Ends the child, through its pidfd where there is one. */
static void stopHandler(int sig)
{
    if (childPidfd >= 0 ? pidfdSignal(childPidfd, SIGKILL) == 0
                        : childPid > 0 && kill(childPid, SIGKILL) == 0) /* --join: fork() */
        waitpid(childPid, NULL, 0);
    _exit(128 + sig);
}

/* Prints the Pid: and NSpid: lines of /proc/self/fdinfo/FD, tabs as blanks. */
static void showFdinfo(int fd)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        err(EXIT_FAILURE, "fopen %s", path);
    while (fgets(line, sizeof line, f) != NULL) {
        for (char *c = line; *c != '\0'; c++)
            *c = *c == '\t' ? ' ' : *c;
        if (strncmp(line, "Pid:", 4) == 0 || strncmp(line, "NSpid:", 6) == 0)
            printf("fdinfo of the pidfd: %s", line);
    }
    fclose(f);
}

/* Prints what the two ioctls of a pidfd say, or which kernel they need. */
static void showIoctls(int pidfd, pid_t pid)
{
    char path[64];
    struct stat viaPidfd, viaProc;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)pid);
    // tag::ns[]
    int nsFd = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
    if (nsFd == -1 && errno == ENOTTY)
        printf("PIDFD_GET_PID_NAMESPACE: needs Linux 6.11\n");
    else if (nsFd == -1 || fstat(nsFd, &viaPidfd) == -1 || stat(path, &viaProc) == -1)
        err(EXIT_FAILURE, "PIDFD_GET_PID_NAMESPACE or stat");
    else
        printf("PIDFD_GET_PID_NAMESPACE: pid:[%lu], %s inode of %s\n",
               (unsigned long)viaPidfd.st_ino,
               viaPidfd.st_ino == viaProc.st_ino ? "the" : "NOT the", path);
    // end::ns[]
    if (nsFd >= 0)
        close(nsFd);
    // tag::info[]
    struct pidfdInfo info = {.mask = 1}; /* PIDFD_INFO_PID: always returned */
    if (ioctl(pidfd, PIDFD_GET_INFO_V0, &info) == 0)
        printf("PIDFD_GET_INFO: pid %lu, tgid %lu\n", (unsigned long)info.pid,
               (unsigned long)info.tgid);
    else if (errno == ENOTTY)
        printf("PIDFD_GET_INFO: needs Linux 6.13\n");
    else
        err(EXIT_FAILURE, "ioctl(PIDFD_GET_INFO)");
    // end::info[]
}

/* The init, PID 1 of the new namespace. */
static int initMain(void *unused __attribute__((unused)))
{
    char byte;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* our parent gone: we go too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    close(chan[0]);
    if (read(chan[1], &byte, 1) != 1)
        _exit(EXIT_FAILURE);
    // tag::inside[]
    int fd = pidfdOpen(parentPid);
    printf("[init  ] pidfd_open(%ld), the parent's PID: %s\n", (long)parentPid,
           fd == -1 ? strerrorname_np(errno) : "a pidfd, of another process");
    int ret = pidfdSignal(parentPidfd, 0);
    printf("[init  ] pidfd_send_signal(0) through the parent's pidfd: %s\n",
           ret == -1 ? strerrorname_np(errno) : "allowed");
    // end::inside[]
    if (fflush(stdout) == EOF || write(chan[1], "d", 1) != 1) /* the parent's turn */
        _exit(EXIT_FAILURE);
    for (;;)
        pause(); /* until the parent's SIGKILL */
}

/* --join PID NS[,NS...] COMMAND...: one setns() through a pidfd, then fork. */
static int joinAndRun(const char *pidArg, char *names, char *command[])
{
    static const char *kinds[] = {"pid", "mnt", "uts", "ipc", "net"};
    static const int kindFlags[] = {CLONE_NEWPID, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC,
                                    CLONE_NEWNET};
    char *end;
    int flags = 0, status;
    long pid = strtol(pidArg, &end, 10);
    if (*pidArg == '\0' || *end != '\0' || pid <= 0)
        errx(EXIT_FAILURE, "not a PID: '%s' (try 'pidns_pidfd --help')", pidArg);
    for (char *name = strtok(names, ","); name != NULL; name = strtok(NULL, ",")) {
        size_t i = 0;
        while (i < 5 && strcmp(kinds[i], name) != 0)
            i++;
        if (i == 5)
            errx(EXIT_FAILURE, "unknown namespace '%s': pid, mnt, uts, ipc or net", name);
        flags |= kindFlags[i];
    }
    if (flags == 0)
        errx(EXIT_FAILURE, "no namespace named (try 'pidns_pidfd --help')");
    // tag::join[]
    int pidfd = pidfdOpen((pid_t)pid);
    if (pidfd == -1)
        err(EXIT_FAILURE, errno == ENOSYS ? "pidfd_open (needs Linux 5.3)" : "pidfd_open");
    if (setns(pidfd, flags) == -1) /* all of them, or none */
        err(EXIT_FAILURE, errno == EINVAL ? "setns on a pidfd (needs Linux 5.8)" : "setns");
    close(pidfd);
    childPid = fork(); /* the new PID namespace is for children only */
    // end::join[]
    if (childPid == 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) == 0)
        execvp(command[0], command);
    if (childPid == 0)
        err(127, "cannot run %s", command[0]);
    if (childPid == -1 || waitpid(childPid, &status, 0) == -1)
        err(EXIT_FAILURE, "fork or waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int showPidfd(int hold)
{
    sigset_t stops;
    char byte;
    int status;
    sigemptyset(&stops);
    for (size_t i = 0; hold && i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        sigaddset(&stops, stopSignals[i]); /* --hold: taken by sigwaitinfo() below */
    if (sigprocmask(SIG_BLOCK, &stops, NULL) == -1 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan) == -1)
        err(EXIT_FAILURE, "sigprocmask or socketpair");
    parentPid = getpid();
    parentPidfd = pidfdOpen(parentPid); /* the init inherits it */
    if (parentPidfd == -1)
        err(EXIT_FAILURE, errno == ENOSYS ? "pidfd_open (needs Linux 5.3)" : "pidfd_open");
    // tag::clone[]
    childPid = clone(initMain, stack + sizeof stack, CLONE_NEWPID | CLONE_PIDFD | SIGCHLD, NULL,
                     &childPidfd); /* the kernel writes the pidfd into childPidfd */
    // end::clone[]
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID | CLONE_PIDFD)");
    if (childPidfd == -1) /* older kernels ignore the flag */
        errx(EXIT_FAILURE, "clone() gave no pidfd: CLONE_PIDFD needs Linux 5.2");
    close(parentPidfd);
    close(chan[1]); /* from now on a read sees the init's death */
    printf("clone(CLONE_NEWPID | CLONE_PIDFD): PID %ld, pidfd %d\n", (long)childPid, childPidfd);
    showFdinfo(childPidfd);
    showIoctls(childPidfd, childPid);
    if (fflush(stdout) == EOF || write(chan[0], "g", 1) != 1 || read(chan[0], &byte, 1) != 1)
        errx(EXIT_FAILURE, "the init ended early");
    if (hold) {
        printf("holding pidfd %d until SIGTERM or Ctrl-C\n", childPidfd);
        while (sigwaitinfo(&stops, NULL) == -1) /* EINTR: wait again */
            ;
    }
    // tag::kill[]
    if (pidfdSignal(childPidfd, SIGKILL) == -1)
        err(EXIT_FAILURE,
            errno == ENOSYS ? "pidfd_send_signal (needs Linux 5.1)" : "pidfd_send_signal");
    // end::kill[]
    if (waitpid(childPid, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    childPid = -1;
    printf("pidfd_send_signal(SIGKILL) through pidfd %d: the init was %skilled by SIGKILL\n",
           childPidfd, WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "" : "not ");
    return EXIT_SUCCESS;
}

int main(int argc, char *argv[])
{
    struct sigaction sa = {.sa_handler = stopHandler};
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        if (sigaction(stopSignals[i], &sa, NULL) == -1)
            err(EXIT_FAILURE, "sigaction");
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [--hold]  |  %s --join PID NS[,NS...] COMMAND [ARG...]\n"
               "Make a new PID namespace's init with a pidfd, show what the pidfd tells, end\n"
               "the init with pidfd_send_signal() (--hold: at SIGTERM or Ctrl-C). --join: run\n"
               "COMMAND in PID's namespaces NS (pid mnt uts ipc net), entered by one setns().\n",
               argv[0], argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1 && strcmp(argv[1], "--join") == 0) {
        if (argc < 5)
            errx(EXIT_FAILURE, "--join needs PID, NS and COMMAND (try 'pidns_pidfd --help')");
        return joinAndRun(argv[2], argv[3], argv + 4);
    }
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "--hold") != 0))
        errx(EXIT_FAILURE, "unexpected argument '%s' (try 'pidns_pidfd --help')",
             argv[strcmp(argv[1], "--hold") == 0 ? 2 : 1]);
    return showPidfd(argc == 2);
}
