/* SPDX-License-Identifier: MIT-0 */
/* pidns_kept.c: PIDs the kernel keeps and hands back later, each translated
 * for the process that reads it, across sibling PID namespaces.
 *
 * The parent makes two children, A and B, each PID 1 of a new PID namespace
 * of its own: siblings, which cannot name each other, below the parent's.
 * Three things the kernel records and returns later:
 *  - F_SETOWN: A makes itself the owner of a pipe's read end (the process
 *    that gets SIGIO when data arrives); F_GETOWN, asked by each, answers
 *    the owner as the asker numbers it (Linux keeps a struct pid since
 *    2.6.19, translated at each F_GETOWN).
 *  - mq_notify(): the process notified when a message arrives in an empty
 *    POSIX message queue gets a signal whose si_pid is the sender, numbered
 *    for the notified process's namespace (ipc/mqueue.c, __do_notify()).
 *  - SCM_CREDENTIALS: A sends its credentials twice into one datagram socket
 *    that B and the parent both read; the PID in each is translated when it
 *    is read, by its reader.
 * The queue lives in an IPC namespace the program makes for itself, so it
 * vanishes with the program.
 *
 * Build: cc -o pidns_kept pidns_kept.c
 * Run:   sudo ./pidns_kept                (or: unshare -r ./pidns_kept)
 * Exit status 0, or 1 with one line "pidns_kept: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char stacks[2][256 * 1024];
static int pipeFds[2];  /* F_SETOWN: the read end's owner gets SIGIO */
static int creds[2];    /* SCM_CREDENTIALS: [0] read by B and the parent, [1] A's */
static int ctl[2][2];   /* a command channel to A ([0]) and to B ([1]) */
static char queue[64];  /* the POSIX message queue's name */
static const char *who; /* "parent", "A " or "B " */

static void say(const char *fmt, long value)
{
    printf("[%s] ", who);
    printf(fmt, value);
    putchar('\n');
}

/* Waits for a blocked signal; returns its siginfo. */
static siginfo_t awaitSignal(int sig)
{
    sigset_t set;
    siginfo_t si;
    sigemptyset(&set);
    sigaddset(&set, sig);
    if (sigwaitinfo(&set, &si) == -1)
        err(EXIT_FAILURE, "sigwaitinfo");
    return si;
}

static void sendCredentials(void)
{
    struct ucred me = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
    char control[CMSG_SPACE(sizeof me)] = {0};
    struct iovec iov = {.iov_base = "c", .iov_len = 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    *c = (struct cmsghdr){
        .cmsg_len = CMSG_LEN(sizeof me), .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_CREDENTIALS};
    memcpy(CMSG_DATA(c), &me, sizeof me);
    for (int i = 0; i < 2; i++)
        if (sendmsg(creds[1], &msg, 0) != 1)
            err(EXIT_FAILURE, "sendmsg(SCM_CREDENTIALS)");
    say("sent SCM_CREDENTIALS with pid %ld, twice", (long)me.pid);
}

static void receiveCredentials(void)
{
    struct ucred them = {0};
    char byte, control[CMSG_SPACE(sizeof them)];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    if (recvmsg(creds[0], &msg, 0) != 1)
        err(EXIT_FAILURE, "recvmsg");
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c != NULL && c->cmsg_type == SCM_CREDENTIALS)
        memcpy(&them, CMSG_DATA(c), sizeof them);
    say("read one of them: pid %ld", (long)them.pid);
}

/* One action, done by whoever is told to. */
static void act(char cmd)
{
    static mqd_t q = (mqd_t)-1; /* kept open: closing it would drop mq_notify() */
    char buf[16];
    if (q == (mqd_t)-1 && (q = mq_open(queue, O_RDWR)) == (mqd_t)-1)
        err(EXIT_FAILURE, "mq_open %s", queue);
    switch (cmd) {
    case 'O': /* become the pipe's owner */
        // tag::setown[]
        if (fcntl(pipeFds[0], F_SETOWN, getpid()) == -1)
            err(EXIT_FAILURE, "F_SETOWN");
        // end::setown[]
        say("F_SETOWN(getpid() = %ld) on the pipe", (long)getpid());
        break;
    case 'G': /* who owns it, as we number it */
        say("F_GETOWN: %ld", (long)fcntl(pipeFds[0], F_GETOWN));
        break;
    case 'I': { /* the SIGIO that writing into the pipe raised */
        siginfo_t si = awaitSignal(SIGIO);
        say("SIGIO arrived: si_pid %ld (sent by the kernel itself)", (long)si.si_pid);
        break;
    }
    case 'N': { /* be notified of the next message */
        // tag::notify[]
        struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
        if (mq_notify(q, &ev) == -1)
            err(EXIT_FAILURE, "mq_notify");
        // end::notify[]
        break;
    }
    case 'R': { /* the notification, then empty the queue */
        // tag::sipid[]
        siginfo_t si = awaitSignal(SIGUSR1);
        say("mq_notify's signal: si_pid %ld", (long)si.si_pid);
        // end::sipid[]
        if (mq_receive(q, buf, sizeof buf, NULL) == -1)
            err(EXIT_FAILURE, "mq_receive");
        break;
    }
    case 'S':
        if (mq_send(q, "m", 1, 0) == -1)
            err(EXIT_FAILURE, "mq_send");
        say("mq_send() one message (I am PID %ld here)", (long)getpid());
        break;
    case 'C':
        sendCredentials();
        break;
    case 'V':
        receiveCredentials();
        break;
    }
    fflush(stdout);
}

/* A or B: PID 1 of its own namespace; does what the parent says. */
static int childMain(void *arg)
{
    int *chan = arg;
    char cmd;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        err(EXIT_FAILURE, "prctl");
    who = chan == ctl[0] ? "A     " : "B     ";
    while (read(chan[1], &cmd, 1) == 1 && cmd != 'Q') {
        act(cmd);
        if (write(chan[1], "d", 1) != 1)
            break;
    }
    _exit(EXIT_SUCCESS);
}

/* Has A (0), B (1) or the parent (-1) do cmd, and waits until it is done. */
static void tell(int child, char cmd)
{
    char done;
    if (child < 0)
        act(cmd);
    else if (write(ctl[child][0], &cmd, 1) != 1 || read(ctl[child][0], &done, 1) != 1)
        errx(EXIT_FAILURE, "child %c ended early", "AB"[child]);
}

int main(int argc, char *argv[])
{
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 16};
    sigset_t blocked;
    pid_t pid[2];
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nTwo sibling PID namespaces and the parent read the PIDs the kernel\n"
               "keeps: F_GETOWN, mq_notify()'s si_pid, SCM_CREDENTIALS.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1)
        errx(EXIT_FAILURE, "%s '%s' (try 'pidns_kept --help')",
             argv[1][0] == '-' ? "unknown option" : "unexpected argument", argv[1]);
    who = "parent";
    sigemptyset(&blocked); /* taken by sigwaitinfo(), never by a handler */
    sigaddset(&blocked, SIGIO);
    sigaddset(&blocked, SIGUSR1);
    snprintf(queue, sizeof queue, "/pidns_kept.%ld", (long)getpid());
    if (unshare(CLONE_NEWIPC) == -1) /* EPERM: needs root, or unshare -r */
        err(EXIT_FAILURE, "unshare(CLONE_NEWIPC)");
    if (sigprocmask(SIG_BLOCK, &blocked, NULL) == -1 || pipe(pipeFds) == -1 ||
        fcntl(pipeFds[0], F_SETFL, O_ASYNC | O_NONBLOCK) == -1 ||
        socketpair(AF_UNIX, SOCK_DGRAM, 0, creds) == -1 ||
        setsockopt(creds[0], SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)) == -1 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, ctl[0]) == -1 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, ctl[1]) == -1)
        err(EXIT_FAILURE, "setting up");
    mqd_t q = mq_open(queue, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
    if (q == (mqd_t)-1)
        err(EXIT_FAILURE, "mq_open %s", queue);
    mq_close(q);
    for (int i = 0; i < 2; i++) {
        pid[i] = clone(childMain, stacks[i] + sizeof stacks[i], CLONE_NEWPID | SIGCHLD, ctl[i]);
        if (pid[i] == -1)
            err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    }
    printf("A is PID 1 in its namespace and %ld here; B is PID 1 in its own and %ld here\n",
           (long)pid[0], (long)pid[1]);
    tell(0, 'O'), tell(-1, 'G'), tell(0, 'G'), tell(1, 'G');
    if (write(pipeFds[1], "x", 1) != 1) /* raises SIGIO for the owner, A */
        err(EXIT_FAILURE, "write");
    tell(0, 'I');
    tell(1, 'N'), tell(0, 'S'), tell(1, 'R');   /* A sends, B is notified */
    tell(-1, 'N'), tell(0, 'S'), tell(-1, 'R'); /* A sends, the parent is notified */
    tell(0, 'N'), tell(-1, 'S'), tell(0, 'R');  /* the parent sends, A is notified */
    tell(0, 'C'), tell(1, 'V'), tell(-1, 'V');  /* A's credentials, read by B, then here */
    for (int i = 0; i < 2; i++) {
        if (write(ctl[i][0], "Q", 1) != 1 || waitpid(pid[i], NULL, 0) == -1)
            err(EXIT_FAILURE, "waitpid");
    }
    mq_unlink(queue);
    return EXIT_SUCCESS;
}
