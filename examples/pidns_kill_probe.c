/* SPDX-License-Identifier: MIT-0 */
/* pidns_kill_probe.c: which processes kill() can reach across a PID
 * namespace boundary.
 *
 * A call taking a PID (kill, waitpid...) looks it up in the caller's own PID
 * namespace, and a process has PIDs only in its namespace and the ancestors:
 * so a process can name those of its namespace and below, none above
 * (ESRCH). kill(pid, 0) only asks whether a PID can be reached. A child in a
 * new namespace (PID 1 there) probes itself, its child and outside
 * processes; then the parent probes it, signals it, and SIGKILLs it.
 *
 * Build: cc -o pidns_kill_probe pidns_kill_probe.c;  run: sudo ./pidns_kill_probe [--wait]
 * Prints "inside : CALL -> RESULT (why)" or "outside: ...", UNEXPECTED on an
 * undocumented result, a summary. Exit status 0 if all is as documented, 2
 * if not, 1 on an error ("pidns_kill_probe: what failed: why").
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024]; /* the child's; it runs on its own copy */
static int *probes, *unexpected;
static pid_t parentPid, witnessPid;  /* the witness: one more process outside */
static int toChild[2], fromChild[2]; /* a byte each way: "your turn" */
static int life[2];                  /* its write end stays open only in the child's child */
static volatile sig_atomic_t childPid = -1;

static const char *errnoName(int e)
{
    return e == 0 ? "success" : e == ESRCH ? "ESRCH" : strerror(e);
}

static int tryKill(pid_t pid, int sig)
{
    return kill(pid, sig) == -1 ? errno : 0;
}

/* One probe line, "where: call -> result (why)", counted in shared memory. */
static void verdict(const char *where, bool asDocumented, const char *fmt, ...)
{
    va_list ap;
    (*probes)++;
    printf("%s: ", where);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    *unexpected += !asDocumented;
    printf("%s\n", asDocumented ? "" : "  UNEXPECTED: not what the kernel documents");
}

/* kill(pid, 0) from inside on a PID of something outside. The number may
 * also name one of ours (if the parent is PID 1 or 2): then the probe says so. */
static void probeOutsidePid(pid_t pid, const char *who, pid_t grandchild)
{
    int got = tryKill(pid, 0);
    if (pid == 1 || pid == grandchild)
        verdict("inside ", got == 0,
                "kill(%ld, 0) -> %s (PID %ld is %s in the parent namespace, but here the same "
                "number names %s)",
                (long)pid, errnoName(got), (long)pid, who,
                pid == 1 ? "this process" : "this process's child");
    else
        verdict("inside ", got == ESRCH,
                "kill(%ld, 0) -> %s (not visible: PID %ld is %s in the parent namespace; "
                "in this one the number names nothing)",
                (long)pid, errnoName(got), (long)pid, who);
}

/* The probes made from inside, by PID 1 of the new namespace. */
static void probeFromInside(pid_t selfOutside)
{
    verdict("inside ", getpid() == 1,
            "getpid() -> %ld (the first process of a new namespace is its PID 1)", (long)getpid());
    verdict("inside ", getppid() == 0,
            "getppid() -> %ld (the parent has no number in this namespace)", (long)getppid());
    pid_t grandchild = fork();
    if (grandchild == -1)
        err(EXIT_FAILURE, "fork (inside the new namespace)");
    while (grandchild == 0) /* it only holds the life pipe open, until the kernel kills it */
        pause();
    close(life[1]);
    printf("inside : fork() -> %ld (a second process in this namespace)\n", (long)grandchild);
    int got = tryKill(1, 0);
    verdict("inside ", got == 0, "kill(1, 0) -> %s (visible: PID 1 is this process itself)",
            errnoName(got));
    got = tryKill(grandchild, 0);
    verdict("inside ", got == 0,
            "kill(%ld, 0) -> %s (visible: this process's child, in the same namespace)",
            (long)grandchild, errnoName(got));
    probeOutsidePid(parentPid, "the parent", grandchild);
    probeOutsidePid(witnessPid, "the witness", grandchild);
    probeOutsidePid(selfOutside, "this very process", grandchild);
    /* An init gets only signals it handles (or SIGKILL/SIGSTOP from above). */
    got = tryKill(1, SIGTERM);
    verdict("inside ", got == 0,
            "kill(1, SIGTERM) -> %s, and PID 1 is still running (no handler: ignored)",
            errnoName(got));
}

/* The child, PID 1 of the new namespace: it ends with _exit() or SIGKILL. */
static int childMain(void *unused __attribute__((unused)))
{
    pid_t selfOutside;
    sigset_t usr1;
    siginfo_t info;
    char byte;

    signal(SIGINT, SIG_DFL); /* the parent's handlers are not for us */
    signal(SIGTERM, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the parent */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    close(toChild[1]); /* a pipe gives EOF once every copy of its write end is closed */
    close(fromChild[0]);
    close(life[0]);
    if (read(toChild[0], &selfOutside, sizeof selfOutside) != sizeof selfOutside)
        _exit(EXIT_FAILURE); /* the parent is gone */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL); /* queued for sigwaitinfo(), not dropped */
    probeFromInside(selfOutside);
    if (write(fromChild[1], "i", 1) != 1 || read(toChild[0], &byte, 1) != 1)
        _exit(EXIT_FAILURE);
    if (sigwaitinfo(&usr1, &info) == -1)
        err(EXIT_FAILURE, "sigwaitinfo");
    verdict("inside ", info.si_pid == 0,
            "sigwaitinfo() -> SIGUSR1 from PID %ld (the sender has no number in here)",
            (long)info.si_pid);
    if (write(fromChild[1], "i", 1) == 1) /* then wait to be killed (EOF: parent gone) */
        while (read(toChild[0], &byte, 1) > 0)
            ;
    _exit(EXIT_SUCCESS);
}

/* SIGINT, SIGTERM: the child, an init, would ignore them; SIGKILL it, then die. */
static void onSignal(int sig)
{
    if (childPid > 0)
        kill(childPid, SIGKILL);
    if (witnessPid > 0)
        kill(witnessPid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The parent's probes, once the child has made its own. */
static void probeFromOutside(pid_t child, bool waitForEnter)
{
    char byte;
    int status, got = tryKill(child, 0);
    verdict("outside", got == 0,
            "kill(%ld, 0) -> %s (visible: the child's namespace is a descendant of this one)",
            (long)child, errnoName(got));
    got = tryKill(child, SIGUSR1);
    verdict("outside", got == 0,
            "kill(%ld, SIGUSR1) -> %s (a real signal sent into the child namespace)", (long)child,
            errnoName(got));
    if (write(toChild[1], "g", 1) != 1 || read(fromChild[0], &byte, 1) != 1)
        errx(EXIT_FAILURE, "the child ended before its last probe");
    if (waitForEnter) {
        printf("outside: its init is PID %ld here; look, then press Enter to end it\n",
               (long)child);
        while ((got = getchar()) != EOF && got != '\n')
            ;
    }
    got = tryKill(child, SIGKILL);
    verdict("outside", got == 0, "kill(%ld, SIGKILL) -> %s", (long)child, errnoName(got));
    if (waitpid(child, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    childPid = -1;
    bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    verdict("outside", killed,
            "waitpid(%ld) -> %s (SIGKILL from an ancestor namespace ends even an init)",
            (long)child, killed ? "killed by SIGKILL" : "not killed by SIGKILL");
    ssize_t n = read(life[0], &byte, 1);
    verdict("outside", n == 0,
            "read(pipe held only by the child's child) -> %s (killed with its init)",
            n == 0 ? "EOF, it is gone" : "no EOF");
}

int main(int argc, char *argv[])
{
    struct sigaction sa = {.sa_handler = onSignal};
    bool waitForEnter = false;
    char byte;

    setvbuf(stdout, NULL, _IOLBF, 0); /* no line sits in a buffer when a process is killed */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: %s [--wait]\nProbe which processes kill() reaches across a PID "
                   "namespace.\n  -w, --wait   wait for Enter before ending it\n",
                   argv[0]);
            return EXIT_SUCCESS;
        }
        if (strcmp(argv[i], "-w") == 0 || strcmp(argv[i], "--wait") == 0)
            waitForEnter = true;
        else
            errx(EXIT_FAILURE, "%s '%s' (try 'pidns_kill_probe --help')",
                 argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
    }
    probes = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (probes == MAP_FAILED)
        err(EXIT_FAILURE, "mmap");
    unexpected = probes + 1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        err(EXIT_FAILURE, "sigaction");
    parentPid = getpid();
    printf("pidns_kill_probe: who can signal whom across a PID namespace boundary\n"
           "outside: this process is PID %ld\n",
           (long)parentPid);
    witnessPid = fork(); /* before the pipes, so that it holds no copy of them */
    if (witnessPid == -1)
        err(EXIT_FAILURE, "fork (the witness)");
    if (witnessPid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;)
            pause();
    }
    printf("outside: fork() -> %ld (a witness, one more process here)\n", (long)witnessPid);
    if (pipe2(toChild, O_CLOEXEC) == -1 || pipe2(fromChild, O_CLOEXEC) == -1 ||
        pipe2(life, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    pid_t child = clone(childMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if ((childPid = child) == -1) /* EPERM: needs CAP_SYS_ADMIN, as root or unshare -Ur */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    close(toChild[0]);
    close(fromChild[1]);
    close(life[1]);
    printf("outside: clone(CLONE_NEWPID) -> %ld (the child's PID here)\n", (long)child);
    if (write(toChild[1], &child, sizeof child) != sizeof child ||
        read(fromChild[0], &byte, 1) != 1)
        errx(EXIT_FAILURE, "the child ended before its probes");
    probeFromOutside(child, waitForEnter);
    kill(witnessPid, SIGKILL);
    waitpid(witnessPid, NULL, 0);
    printf("summary: %d probes, %s\n", *probes,
           *unexpected == 0 ? "all as the kernel documents" : "SOME UNEXPECTED");
    return *unexpected == 0 ? EXIT_SUCCESS : 2;
}
