/* SPDX-License-Identifier: MIT-0 */
/* pidns_siginfo.c: the sender's PID in a signal's siginfo, as the
 * receiver's PID namespace sees it.
 *
 * A process that receives a signal can learn who sent it: si_pid in the
 * siginfo_t that sigwaitinfo() (or an SA_SIGINFO handler) gets. For kill()
 * and the kernel's own SIGCHLD the kernel fills si_pid in: the sender's
 * number in the receiver's namespace, 0 when it has none there. For
 * sigqueue() the sender fills it (the C library writes getpid()); the kernel
 * keeps it as written, only zeroing it for a sender in an ancestor namespace.
 * So a new namespace's init sees 1 when it signals itself, 2 from PID 2, and
 * 0 from its parent, which has no number inside; while the parent, above,
 * sees the init's real PID (what clone() returned) in the init's SIGCHLD. A
 * process below cannot even name one above, so SIGCHLD is how news comes up.
 * With --forge, PID 2 queues its signal with rt_sigqueueinfo() and writes
 * 4242 as its own PID: the init reads 4242.
 *
 * Build:  cc -o pidns_siginfo pidns_siginfo.c
 * Run:    sudo ./pidns_siginfo [--forge]   (root, or root of a user namespace)
 * Prints:
 *   clone() returned 4242: the init's PID in the parent's namespace
 *   [init  ] kill(getpid(), SIGUSR1), the init to itself: si_pid = 1
 *   [init  ] sigqueue(1, SIGUSR1) from PID 2: si_pid = 2
 *   [init  ] SIGCHLD, PID 2 exited: si_pid = 2
 *   [init  ] kill(init, SIGUSR1) from the parent namespace: si_pid = 0
 *   [parent] SIGCHLD, the init exited: si_pid = 4242, the PID clone() returned
 *
 * Every signal is blocked and taken with sigwaitinfo(): a blocked signal
 * waits in the queue, even for an init without handlers (an init drops only
 * the unblocked ones). Ctrl-C, SIGTERM, SIGHUP or SIGQUIT kill the init,
 * and with it its namespace, then end the program with status 128+N.
 * Exit status 0, or 1 with one line "pidns_siginfo: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024]; /* the child's; it runs on its own copy */
static pid_t childPid = -1;    /* stays -1 in the child's copy */
static int chan[2];            /* socketpair: chan[0] the parent's end, chan[1] the init's */
static int forge;              /* --forge: PID 2 claims to be FORGED_PID */
#define FORGED_PID 4242

/* Waits for sig (blocked) and returns the sender's PID as we number it. */
static pid_t senderOf(int sig)
{
    sigset_t set;
    siginfo_t si;

    sigemptyset(&set);
    sigaddset(&set, sig);
    while (sigwaitinfo(&set, &si) == -1) /* EINTR: wait again */
        ;
    return si.si_pid;
}

/* PID 2's signal to the init: sigqueue(), or with --forge the system call
 * under it, with a siginfo whose si_pid the sender writes itself. */
static void queueToInit(void)
{
    if (!forge) {
        if (sigqueue(1, SIGUSR1, (union sigval){.sival_int = 0}) == -1)
            err(EXIT_FAILURE, "sigqueue");
        return;
    }
    // tag::forge[]
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR1;
    si.si_code = SI_QUEUE;  /* negative: the kernel lets the sender fill the rest */
    si.si_pid = FORGED_PID; /* not our PID: nothing checks it */
    si.si_uid = getuid();
    if (syscall(SYS_rt_sigqueueinfo, 1, SIGUSR1, &si) == -1)
        err(EXIT_FAILURE, "rt_sigqueueinfo");
    // end::forge[]
}

/* Runs in the child, PID 1 of the new namespace. */
static int initMain(void *arg)
{
    char byte;

    (void)arg;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* our parent gone: we go too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    close(chan[0]);
    if (read(chan[1], &byte, 1) != 1) /* the parent has printed its line */
        _exit(EXIT_FAILURE);

    // tag::self[]
    if (kill(getpid(), SIGUSR1) == -1)
        err(EXIT_FAILURE, "kill(getpid())");
    printf("[init  ] kill(getpid(), SIGUSR1), the init to itself: si_pid = %ld\n",
           (long)senderOf(SIGUSR1));
    // end::self[]

    // tag::member[]
    fflush(stdout); /* the child must not print our buffer again */
    pid_t member = fork();
    if (member == -1)
        err(EXIT_FAILURE, "fork");
    if (member == 0) { /* PID 2: a queued signal with a value, then exit */
        queueToInit();
        _exit(EXIT_SUCCESS);
    }
    if (forge)
        printf("[init  ] rt_sigqueueinfo(1, SIGUSR1) from PID %ld, claiming %d: si_pid = %ld\n",
               (long)member, FORGED_PID, (long)senderOf(SIGUSR1));
    else
        printf("[init  ] sigqueue(1, SIGUSR1) from PID %ld: si_pid = %ld\n", (long)member,
               (long)senderOf(SIGUSR1));
    printf("[init  ] SIGCHLD, PID %ld exited: si_pid = %ld\n", (long)member,
           (long)senderOf(SIGCHLD));
    // end::member[]
    if (waitpid(member, NULL, 0) == -1)
        err(EXIT_FAILURE, "waitpid");

    fflush(stdout);
    if (write(chan[1], "r", 1) != 1) /* now the parent's turn */
        err(EXIT_FAILURE, "write to parent");
    printf("[init  ] kill(init, SIGUSR1) from the parent namespace: si_pid = %ld\n",
           (long)senderOf(SIGUSR1));
    fflush(stdout);
    return EXIT_SUCCESS;
}

/* Ctrl-C and friends: the init would ignore them, so kill it (and its
 * namespace) with the one signal an ancestor can always send. */
static void stopHandler(int sig)
{
    if (childPid > 0) {
        kill(childPid, SIGKILL);
        waitpid(childPid, NULL, 0);
    }
    _exit(128 + sig);
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    sigset_t blocked;
    char byte;

    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [--forge]\n"
               "Send signals to and from the init of a new PID namespace and print the\n"
               "sender's PID (si_pid) that each receiver gets.\n"
               "  --forge  PID 2 queues its signal with rt_sigqueueinfo(), writing %d\n"
               "           as its PID: the init reads what the sender wrote\n",
               argv[0], FORGED_PID);
        return EXIT_SUCCESS;
    }
    if (argc > 1 && strcmp(argv[1], "--forge") == 0) {
        forge = 1;
        argc--, argv++;
    }
    if (argc > 1)
        errx(EXIT_FAILURE, "takes only --forge, not '%s' (try 'pidns_siginfo --help')", argv[1]);

    /* Blocked before clone(), so the child starts with them blocked too. */
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGUSR1);
    sigaddset(&blocked, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &blocked, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stopHandler;
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        if (sigaction(stopSignals[i], &sa, NULL) == -1)
            err(EXIT_FAILURE, "sigaction");
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan) == -1)
        err(EXIT_FAILURE, "socketpair");

    fflush(stdout);
    childPid = clone(initMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    close(chan[1]); /* from now on a read sees the init's death */
    printf("clone() returned %ld: the init's PID in the parent's namespace\n", (long)childPid);
    if (write(chan[0], "g", 1) != 1)
        err(EXIT_FAILURE, "write to init");

    if (read(chan[0], &byte, 1) != 1)
        errx(EXIT_FAILURE, "the init ended early");
    // tag::parent[]
    if (kill(childPid, SIGUSR1) == -1)
        err(EXIT_FAILURE, "kill(init)");
    pid_t sender = senderOf(SIGCHLD); /* the init exits after reporting */
    printf("[parent] SIGCHLD, the init exited: si_pid = %ld, %s\n", (long)sender,
           sender == childPid ? "the PID clone() returned" : "not the PID clone() returned");
    // end::parent[]

    int status;
    if (waitpid(childPid, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    childPid = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
