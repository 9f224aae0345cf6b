/* SPDX-License-Identifier: MIT-0 */
/* pidns_translate.c: a PID crossing a PID namespace boundary, both ways: as
 * credentials, which the kernel translates, and as plain bytes, which it does not.
 *
 * The parent listens on a UNIX socket; its child, PID 1 of a new PID
 * namespace, connects. Each side sends one message: its own PID as data, and
 * the same PID as SCM_CREDENTIALS. The kernel hands the receiver the sender's
 * number in the *receiver's* namespace: the child's 1 arrives above as its
 * real number, the parent's arrives below as 0 (it has no number there). The
 * data arrives as written. SO_PEERCRED (who is at the other end) likewise.
 * --ioctl: both sides also ask the nsfs ioctls of Linux 6.11 on a
 * /proc/PID/ns/pid descriptor: NS_GET_PID_FROM_PIDNS (a PID numbered in fd's
 * namespace -> in ours), NS_GET_PID_IN_PIDNS (ours -> fd's), NS_GET_TGID_*
 * (the same for the thread-group leader). ESRCH: no number there.
 *
 * Build:  cc -o pidns_translate pidns_translate.c
 * Run:    sudo ./pidns_translate [--ioctl] [--wait]   (or under unshare -r)
 * Prints lines such as "[down] SO_PEERCRED: the child reads the parent as 0".
 * --wait keeps both running afterwards (to compare with /proc/PID/status).
 * Ctrl-C, SIGTERM, SIGHUP or SIGQUIT kill the child and end the program with
 * status 128+N. Exit status 0, or 1 with "pidns_translate: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NS_GET_PID_FROM_PIDNS /* headers older than Linux 6.11 (Debian 12's) */
#define NS_GET_PID_FROM_PIDNS _IOR(NSIO, 0x6, int)
#define NS_GET_PID_IN_PIDNS _IOR(NSIO, 0x8, int)
#define NS_GET_TGID_IN_PIDNS _IOR(NSIO, 0x9, int)
#endif

static char stack[256 * 1024];  /* the child's; it runs on its own copy */
static pid_t childPid = -1;     /* stays -1 in the child's copy */
static struct sockaddr_un addr; /* where the parent listens */
static socklen_t addrLen;
static int parentNsFd = -1; /* the parent's ns/pid, inherited by the child */
static int useIoctl;

/* Sends our PID twice in one message: as data and as SCM_CREDENTIALS. */
static void sendPid(int fd)
{
    _Alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct ucred))] = {0};
    struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
    struct iovec iov = {.iov_base = &cred.pid, .iov_len = sizeof cred.pid};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_CREDENTIALS; /* pid must be our own, as we number it */
    cmsg->cmsg_len = CMSG_LEN(sizeof cred);
    memcpy(CMSG_DATA(cmsg), &cred, sizeof cred);
    if (sendmsg(fd, &msg, 0) != (ssize_t)sizeof cred.pid)
        err(EXIT_FAILURE, "sendmsg");
}

// tag::receive[]
/* Receives the other side's message: *plain as written, *credPid translated. */
static void receivePid(int fd, pid_t *plain, pid_t *credPid)
{
    _Alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {.iov_base = plain, .iov_len = sizeof *plain};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct ucred cred;
    if (recvmsg(fd, &msg, MSG_WAITALL) != (ssize_t)sizeof *plain)
        errx(EXIT_FAILURE, "recvmsg: the other side ended early");
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    if (cmsg == NULL || cmsg->cmsg_type != SCM_CREDENTIALS) /* SO_PASSCRED is off */
        errx(EXIT_FAILURE, "recvmsg: no SCM_CREDENTIALS arrived");
    memcpy(&cred, CMSG_DATA(cmsg), sizeof cred);
    *credPid = cred.pid; /* the sender as *we* number it, 0 if we cannot */
}

/* Who is at the other end of a connected socket, as we number it. */
static pid_t peerPid(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
        err(EXIT_FAILURE, "getsockopt(SO_PEERCRED)");
    return cred.pid;
}
// end::receive[]

/* Receives the other side's PID and prints the three ways it arrived. */
static pid_t report(int fd, const char *tag, const char *sender, const char *receiver)
{
    pid_t plain, credPid;
    receivePid(fd, &plain, &credPid);
    printf("[%s] SCM_CREDENTIALS: the %s sent pid %ld, the %s received %ld\n", tag, sender,
           (long)plain, receiver, (long)credPid);
    printf("[%s] SO_PEERCRED: the %s reads the %s as %ld\n", tag, receiver, sender,
           (long)peerPid(fd));
    printf("[%s] plain bytes: the %s read %ld\n", tag, receiver, (long)plain);
    return plain;
}

// tag::ioctl[]
/* Asks the kernel to translate pid; returns 0 when the ioctls are missing. */
#define ASK(who, nsFd, request, pid) askKernel(who, nsFd, request, #request, pid)
static int askKernel(const char *who, int nsFd, unsigned long request, const char *name, pid_t pid)
{
    int answer = ioctl(nsFd, request, (unsigned long)pid); /* the PID itself, no pointer */
    if (answer == -1 && errno == ENOTTY) {                 /* an nsfs file, but no such ioctl */
        if (childPid != -1)                                /* the parent says it, once */
            printf("[ioctl] %s: not on this kernel (ENOTTY): needs Linux 6.11\n", name);
        return 0;
    }
    printf("[ioctl] %s: %s(%ld) = %d%s%s\n", who, name, (long)pid, answer, answer == -1 ? ", " : "",
           answer == -1 ? strerrorname_np(errno) : "");
    return 1;
}
// end::ioctl[]

/* Runs in the child, PID 1 of the new namespace. */
static int childMain(void *arg)
{
    int one = 1, fd;
    char byte;

    (void)arg;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* our parent gone: we go too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
        setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == -1 ||
        connect(fd, (struct sockaddr *)&addr, addrLen) == -1) /* SO_PASSCRED: give us creds */
        err(EXIT_FAILURE, "a socket connected to the parent");
    sendPid(fd);

    pid_t parent = report(fd, "down", "parent", "child"); /* the parent's own number */
    const char *who = "the child, on the parent's namespace";
    if (useIoctl && ASK(who, parentNsFd, NS_GET_PID_IN_PIDNS, getpid()))
        ASK(who, parentNsFd, NS_GET_PID_FROM_PIDNS, parent);
    if (write(fd, "d", 1) != 1) /* done (stdout is line-buffered): the parent goes on */
        err(EXIT_FAILURE, "write");
    while (read(fd, &byte, 1) > 0) /* until the parent closes its end */
        ;
    return EXIT_SUCCESS;
}

/* Ctrl-C and friends: an init ignores them, so kill the child ourselves. */
static void stopHandler(int sig)
{
    if (childPid > 0 && kill(childPid, SIGKILL) == 0)
        waitpid(childPid, NULL, 0);
    _exit(128 + sig);
}

/* The parent's half, once the child is connected on conn. */
static void parentTalk(int conn)
{
    char path[64], byte;

    report(conn, "up  ", "child", "parent");
    sendPid(conn);
    if (read(conn, &byte, 1) != 1) /* the child has printed its lines */
        errx(EXIT_FAILURE, "the child ended early");
    if (!useIoctl)
        return;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)childPid);
    int nsFd = open(path, O_RDONLY | O_CLOEXEC);
    if (nsFd == -1)
        err(EXIT_FAILURE, "%s", path);
    const char *who = "the parent, on the child's namespace";
    if (ASK(who, nsFd, NS_GET_PID_FROM_PIDNS, 1)) {
        ASK(who, nsFd, NS_GET_PID_IN_PIDNS, childPid);
        ASK(who, nsFd, NS_GET_TGID_IN_PIDNS, childPid);
        ASK(who, nsFd, NS_GET_PID_IN_PIDNS, getpid());
    }
    close(nsFd);
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    static const struct option options[] = {{"ioctl", no_argument, NULL, 'i'},
                                            {"wait", no_argument, NULL, 'w'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt, wait = 0, one = 1, status;
    struct sigaction sa = {.sa_handler = stopHandler};

    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    opterr = 0;                       /* our own one-line message */
    while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (opt == 'i' || opt == 'w')
            *(opt == 'i' ? &useIoctl : &wait) = 1;
        else if (opt == 'h') {
            printf("Usage: %s [--ioctl] [--wait]\n"
                   "Send a PID both ways across a PID namespace boundary and print what\n"
                   "arrives. --ioctl: also ask the NS_GET_PID_* ioctls (Linux 6.11).\n"
                   "--wait: keep both processes running until Ctrl-C.\n",
                   argv[0]);
            return EXIT_SUCCESS;
        } else
            errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_translate --help')",
                 argv[optind - 1]);
    }
    if (optind < argc)
        errx(EXIT_FAILURE, "unexpected argument '%s' (try 'pidns_translate --help')", argv[optind]);
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        if (sigaction(stopSignals[i], &sa, NULL) == -1)
            err(EXIT_FAILURE, "sigaction");

    /* An abstract name of the kernel's choosing (autobind); accepts inherit SO_PASSCRED. */
    int listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    addr.sun_family = AF_UNIX;
    addrLen = sizeof addr;
    if (listenFd == -1 || setsockopt(listenFd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == -1 ||
        bind(listenFd, (struct sockaddr *)&addr, sizeof(sa_family_t)) == -1 ||
        listen(listenFd, 1) == -1 ||
        getsockname(listenFd, (struct sockaddr *)&addr, &addrLen) == -1)
        err(EXIT_FAILURE, "a UNIX socket to listen on");
    if ((parentNsFd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) == -1)
        err(EXIT_FAILURE, "/proc/self/ns/pid");
    childPid = clone(childMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    printf("clone() returned %ld: the child's PID here (it is 1 inside)\n", (long)childPid);
    int conn = accept4(listenFd, NULL, NULL, SOCK_CLOEXEC);
    if (conn == -1)
        err(EXIT_FAILURE, "accept4");
    parentTalk(conn);
    if (wait) {
        printf("both keep running: the parent is %ld, the child %ld; Ctrl-C ends them\n",
               (long)getpid(), (long)childPid);
        for (;;)
            pause();
    }
    close(conn); /* the child's read() ends, and so does the child */
    if (waitpid(childPid, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    childPid = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
