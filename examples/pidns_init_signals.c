/* SPDX-License-Identifier: MIT-0 */
/* pidns_init_signals.c: which signals reach the init (PID 1) of a PID
 * namespace, and what its death does to the namespace.
 *
 * From inside its namespace (even as SIGKILL, even from a privileged
 * process), a signal init neither handles nor blocks is dropped; a blocked
 * one stays queued, and a fault init causes itself (SIGSEGV...) kills it.
 * From an ancestor namespace, SIGKILL and SIGSTOP always get through, others
 * only if init handles them. When init dies the kernel kills the rest of its
 * namespace, and a fork() into it fails with ENOMEM.
 *
 * Here init handles SIGUSR1 only; a joiner stays outside but, after setns(),
 * forks member, PID 2 inside, which signals PID 1 on request. Each probe
 * watches what init does; at the end the joiner forks into the dead namespace.
 *
 * Build: cc -o pidns_init_signals pidns_init_signals.c
 * Run:   sudo ./pidns_init_signals      (or: unshare -r ./pidns_init_signals)
 * Prints a line per probe ("[inside] kill(1, SIGKILL) ... -> ignored: ...").
 * Exit status 0, or 1 with one line "pidns_init_signals: what failed: why".
 * PID namespaces date from Linux 2.6.24; setns() on them, and creating them
 * in a user namespace without privilege, from 3.8; glibc 2.32 or later.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024]; /* init's: it runs on its own copy */
static int ackPipe[2];         /* init -> main: one struct ack per handled signal */
static int cmdPipe[2];         /* main -> member: a signal number to send to PID 1 */
static int replyPipe[2];       /* member, joiner -> main: one int per command */

struct ack { /* the signal, and its sender as init sees it (0: outside) */
    int signo;
    pid_t sender;
};

/* Starts a probe's line, "[side  ] what was done", padded so verdicts align;
 * `what` names the signal as SIG%s (sigabbrev_np(): glibc 2.32). */
static void printProbe(const char *side, const char *what, int sig, const char *handler)
{
    char text[128];
    snprintf(text, sizeof text, what, sig != 0 ? sigabbrev_np(sig) : "", handler);
    printf("[%-6s] %-50s ", side, text);
}

static void writeInt(int fd, int value)
{
    if (write(fd, &value, sizeof value) != sizeof value)
        err(EXIT_FAILURE, "write to pipe");
}

static int readInt(int fd)
{
    int value;
    if (read(fd, &value, sizeof value) == sizeof value)
        return value;
    errx(EXIT_FAILURE, "read from pipe: the other side ended early");
}

// tag::handler[]
/* init's only handler: tells the main program who sent SIGUSR1. */
static void initOnUsr1(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int savedErrno = errno;
    struct ack ack = {sig, info->si_pid};
    ssize_t n = write(ackPipe[1], &ack, sizeof ack); /* async-signal-safe */
    (void)n;
    errno = savedErrno;
}
// end::handler[]

/* init: PID 1 of the new namespace, with no handler but for SIGUSR1. */
static int initMain(void *arg)
{
    struct sigaction sa = {.sa_sigaction = initOnUsr1, .sa_flags = SA_SIGINFO | SA_RESTART};
    struct ack ready = {0, 0};

    (void)arg;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) == -1)
        err(EXIT_FAILURE, "sigaction(SIGUSR1)");
    /* Ready: until now a SIGUSR1 would have found no handler and been lost. */
    if (write(ackPipe[1], &ready, sizeof ready) == sizeof ready)
        for (;;)
            pause(); /* only signals happen here */
    err(EXIT_FAILURE, "write to pipe");
}

/* joiner: setns(), fork member (PID 2 inside), which sends the requested
 * signals to PID 1; reap it, and fork once more after init is gone. */
static void joinerMain(pid_t init)
{
    char path[64];
    int status;

    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)init);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 || setns(fd, CLONE_NEWPID) == -1) /* moves only our future children */
        err(EXIT_FAILURE, "setns(%s)", path);
    pid_t member = fork();
    if (member == -1)
        err(EXIT_FAILURE, "fork member");
    if (member == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        writeInt(replyPipe[1], getpid()); /* 2: the first PID after init */
        for (;;)
            writeInt(replyPipe[1], kill(1, readInt(cmdPipe[0])) == 0 ? 0 : errno);
    }
    if (waitpid(member, &status, 0) == -1) /* member ends when init dies */
        err(EXIT_FAILURE, "waitpid member");
    writeInt(replyPipe[1], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    // tag::late-fork[]
    pid_t late = fork(); /* pid_for_children still names the dead namespace */
    if (late == 0)
        _exit(0);
    int forkErrno = late == -1 ? errno : 0;
    // end::late-fork[]
    if (late > 0)
        waitpid(late, NULL, 0);
    writeInt(replyPipe[1], forkErrno);
    _exit(0);
}

/* Did init run its handler, or ignore the signal? A ping (SIGUSR1 from here)
 * that init answers proves it still runs: a signal sent before did nothing. */
static void reportOutcome(pid_t init, int sig)
{
    struct pollfd pfd = {.fd = ackPipe[0], .events = POLLIN};
    struct ack ack;

    if (sig != SIGUSR1 && kill(init, SIGUSR1) == -1)
        err(EXIT_FAILURE, "kill(init, SIGUSR1) (ping)");
    if (poll(&pfd, 1, 2000) != 1 || read(ackPipe[0], &ack, sizeof ack) != sizeof ack)
        printf("-> no answer within 2 s\n");
    else if (sig == SIGUSR1)
        printf("-> delivered: handler ran, sender PID %ld\n", (long)ack.sender);
    else
        printf("-> ignored: init answered a later ping\n");
}

static void probeFromInside(pid_t init, int sig)
{
    printProbe("inside", "kill(1, SIG%s) from PID 2, init has %s", sig,
               sig == SIGUSR1 ? "a handler" : "no handler");
    writeInt(cmdPipe[1], sig);
    int error = readInt(replyPipe[0]);
    if (error == 0)
        reportOutcome(init, sig);
    else
        printf("-> kill() failed: %s\n", strerror(error));
}

static void probeFromParent(pid_t init, int sig)
{
    siginfo_t info;
    printProbe("parent", "kill(init, SIG%s) from here%s", sig,
               sig == SIGSTOP   ? ""
               : sig == SIGUSR1 ? ", init has a handler"
                                : ", init has no handler");
    if (kill(init, sig) == -1)
        err(EXIT_FAILURE, "kill(init, SIG%s)", sigabbrev_np(sig));
    if (sig != SIGSTOP) {
        reportOutcome(init, sig);
        return;
    }
    /* SIGSTOP from the parent namespace stops init: waitid() sees it. */
    if (waitid(P_PID, init, &info, WSTOPPED) == -1 || kill(init, SIGCONT) == -1)
        err(EXIT_FAILURE, "waitid(WSTOPPED)");
    printf("-> delivered: init stopped (SIGCONT resumed it)\n");
}

/* SIGKILL from the parent namespace: init dies, the kernel kills the rest of
 * the namespace (member), and a later fork() into it fails. */
static void probeKillAndAfter(pid_t init)
{
    int status;
    printProbe("parent", "kill(init, SIG%s) from here", SIGKILL, "");
    if (kill(init, SIGKILL) == -1)
        err(EXIT_FAILURE, "kill(init, SIGKILL)");
    /* init's exit waits for its namespace's processes: the joiner reaps member. */
    int memberSignal = readInt(replyPipe[0]);
    if (waitpid(init, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid(init)");
    printf("-> delivered: init killed by SIG%s\n",
           WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : "(none: it exited)");
    printProbe("after", "member (PID 2 inside) when init died", 0, "");
    printf("-> killed by SIG%s, sent by the kernel\n",
           memberSignal != 0 ? sigabbrev_np(memberSignal) : "(none: not killed)");
    int forkErrno = readInt(replyPipe[0]);
    printProbe("after", "fork() into the dead namespace, by the joiner", 0, "");
    printf("-> %s %s (%s)\n", forkErrno != 0 ? "failed with" : "succeeded:", /* glibc 2.32 */
           strerrorname_np(forkErrno), strerror(forkErrno));
}

int main(int argc, char **argv)
{
    struct ack ready;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nShow which signals the init of a new PID namespace receives from\n"
               "inside and from the parent namespace, then what its death does.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc != 1)
        errx(EXIT_FAILURE, "unexpected argument '%s'; it takes none (try --help)", argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    if (pipe2(ackPipe, O_CLOEXEC) == -1 || pipe2(cmdPipe, O_CLOEXEC) == -1 ||
        pipe2(replyPipe, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    /* Ctrl-C needs no handler: init, joiner and member die with us
     * (PR_SET_PDEATHSIG), and with init, its whole namespace. */
    pid_t init = clone(initMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (init == -1) /* EPERM: needs CAP_SYS_ADMIN, as root or with unshare -r */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    pid_t joiner = fork();
    if (joiner == -1)
        err(EXIT_FAILURE, "fork joiner");
    if (joiner == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
            err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
        joinerMain(init);
    }
    if (read(ackPipe[0], &ready, sizeof ready) != sizeof ready) /* init has its handler now */
        errx(EXIT_FAILURE, "init ended before it was ready");
    int member = readInt(replyPipe[0]);
    printf("init is PID %ld here and PID 1 inside; member is PID %d inside\n", (long)init, member);
    int inside[] = {SIGTERM, SIGINT, SIGKILL, SIGSTOP, SIGUSR1};
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++)
        probeFromInside(init, inside[i]);
    probeFromParent(init, SIGTERM);
    probeFromParent(init, SIGUSR1);
    probeFromParent(init, SIGSTOP);
    probeKillAndAfter(init);
    if (waitpid(joiner, NULL, 0) == -1)
        err(EXIT_FAILURE, "waitpid joiner");
    return EXIT_SUCCESS;
}
