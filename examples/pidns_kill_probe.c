/* pidns_kill_probe.c: which processes kill() can reach across a PID namespace
 * boundary.
 *
 * Any call that takes a PID (kill, waitpid, ptrace, sched_setaffinity...)
 * looks the number up in the caller's own PID namespace. A namespace's
 * members also get numbers in every ancestor namespace, but never in a
 * descendant one. So a process can name the processes of its own namespace
 * and of the namespaces below it, and none above: for them, there is simply
 * no such PID, and the kernel answers ESRCH. kill(pid, 0) sends nothing; it
 * only asks whether the PID can be reached, which makes it a clean probe.
 *
 * The program creates a child in a new PID namespace with
 * clone(CLONE_NEWPID). The child (PID 1 there) forks a process of its own,
 * then probes with kill(): itself and its child (visible), its parent and
 * other outside processes (not visible), and shows that an init ignores a
 * signal it has no handler for, even one it sends itself. The parent then
 * probes from outside: the child is visible, a real signal reaches it (and the
 * child sees the sender's PID as 0), and SIGKILL ends it, which makes the
 * kernel kill the rest of its namespace.
 *
 * Build:  cc -o pidns_kill_probe pidns_kill_probe.c
 * Run:    sudo ./pidns_kill_probe          (or, unprivileged: unshare -Ur ./pidns_kill_probe)
 *         sudo ./pidns_kill_probe --wait   (keeps the namespace up until Enter)
 * Prints: one line per probe, "inside : CALL -> RESULT (why)" from the child
 *         and "outside: ..." from the parent; UNEXPECTED marks a result the
 *         kernel should not give; then a summary line.
 * Exit:   0 when every probe behaved as the kernel documents, 2 when one did
 *         not, 1 on a bad argument or a failed call (named in the message).
 *
 * The processes synchronise with pipes, never with sleeps. Ctrl-C or SIGTERM
 * end the whole namespace (its init would ignore them) and nothing is left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define KP_NAME "pidns_kill_probe"
#define KP_STACK_SIZE (1024 * 1024)
#define KP_OTHER (-1) /* a probe's result that is not an errno value: "wrong" */

/* What the parent hands to the child. clone() without CLONE_VM gives the
 * child a copy of our memory, so these values arrive as they were. */
struct kp_args {
    pid_t parent_pid;  /* the parent's PID, in the parent's namespace */
    pid_t witness_pid; /* another process of the parent's namespace */
    int command[2];    /* parent -> child: the child's outside PID, a go byte, EOF */
    int report[2];     /* child -> parent: struct kp_report, twice */
    int life[2];       /* its write end is kept open only by the child's child */
};

/* What the child reports after its probes. */
struct kp_report {
    int probes;
    int unexpected;
};

static int kp_probes, kp_unexpected; /* counted in each process */
static volatile sig_atomic_t kp_child = -1, kp_witness = -1;

/* All error messages go through here: "pidns_kill_probe: what failed: why",
 * and what to do about it when hint is not NULL. */
static void kp_error_hint(int errnum, const char *hint, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* keep stdout and stderr in order when both go to one pipe */
    fprintf(stderr, "%s: ", KP_NAME);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (errnum != 0)
        fprintf(stderr, ": %s", strerror(errnum));
    if (hint != NULL)
        fprintf(stderr, " (%s)", hint);
    fputc('\n', stderr);
}

#define kp_error(errnum, ...) kp_error_hint(errnum, NULL, __VA_ARGS__)

static const char *kp_errno_name(int errnum)
{
    switch (errnum) {
    case 0:
        return "success";
    case ESRCH:
        return "ESRCH";
    case EPERM:
        return "EPERM";
    default:
        return strerror(errnum);
    }
}

/* One probe line: "where: call -> result (why)", counted, with UNEXPECTED
 * and what the kernel should have answered when the result differs. */
static void kp_verdict(const char *where, int got, int expected, const char *fmt, ...)
{
    va_list ap;
    kp_probes++;
    printf("%s: ", where);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (got != expected) {
        kp_unexpected++;
        if (got == KP_OTHER)
            printf("  UNEXPECTED: not what the kernel documents");
        else
            printf("  UNEXPECTED: got %s, the kernel documents %s", kp_errno_name(got),
                   kp_errno_name(expected));
    }
    printf("\n");
}

static int kp_kill(pid_t pid, int sig)
{
    return kill(pid, sig) == -1 ? errno : 0;
}

static void kp_usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [--wait]\n"
            "Create a child in a new PID namespace and probe with kill() which\n"
            "processes each side can reach: inside, the parent is invisible (ESRCH);\n"
            "outside, the child is visible and can be signalled.\n"
            "\n"
            "  -w, --wait   before ending the namespace, wait for Enter on stdin\n"
            "               (look at it meanwhile with ps -e -o pid,pidns,cmd)\n"
            "  -h, --help   show this help and exit\n"
            "\n"
            "Needs CAP_SYS_ADMIN: run it as root, or as an ordinary user with\n"
            "  unshare -Ur %s\n",
            KP_NAME, KP_NAME);
}

/* The child's child: it only exists, holding the life pipe open, until the
 * kernel kills it with the rest of the namespace. */
static void kp_grandchild(const struct kp_args *args)
{
    close(args->command[0]);
    close(args->report[1]);
    for (;;)
        pause();
}

/* kill(pid, 0) from inside on a PID that names something outside. The same
 * number may also name one of our own processes: then the probe says so
 * instead of claiming a visibility it did not test. */
static void kp_probe_outside_pid(pid_t pid, const char *outside_name, pid_t grandchild)
{
    int got = kp_kill(pid, 0);

    if (pid == 1 || pid == grandchild)
        kp_verdict("inside ", got, 0,
                   "kill(%ld, 0) -> %s (PID %ld is %s in the parent namespace, but here "
                   "the same number names %s: each namespace numbers its processes on its own)",
                   (long)pid, kp_errno_name(got), (long)pid, outside_name,
                   pid == 1 ? "this process" : "this process's child");
    else
        kp_verdict("inside ", got, ESRCH,
                   "kill(%ld, 0) -> %s (not visible: PID %ld is %s in the parent namespace; "
                   "in this one the number names nothing)",
                   (long)pid, kp_errno_name(got), (long)pid, outside_name);
}

/* An init gets only the signals it has a handler for, except SIGKILL and
 * SIGSTOP from an ancestor namespace. SIGTERM here has no handler: had it
 * been delivered, we would die before kill() returned. */
static void kp_probe_init_ignores_sigterm(void)
{
    sigset_t pending;
    int got = kp_kill(1, SIGTERM);

    if (sigpending(&pending) == -1) {
        kp_error(errno, "sigpending");
        sigemptyset(&pending);
    }
    kp_verdict("inside ", got, 0,
               "kill(1, SIGTERM) -> %s, and PID 1 is still running (an init ignores a signal "
               "it has no handler for, even its own)%s",
               kp_errno_name(got), sigismember(&pending, SIGTERM) ? " [still pending]" : "");
}

/* Waits for the parent's SIGUSR1 (blocked, so it waits in the queue for
 * sigwaitinfo: the init rule drops only signals that would get the default
 * action). The sender's PID is given in our namespace: 0, as for getppid(). */
static void kp_probe_signal_from_outside(void)
{
    sigset_t set;
    siginfo_t info;

    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    while (sigwaitinfo(&set, &info) == -1)
        if (errno != EINTR) {
            kp_error(errno, "sigwaitinfo");
            kp_verdict("inside ", errno, 0, "sigwaitinfo() failed");
            return;
        }
    kp_verdict("inside ", info.si_pid == 0 ? 0 : KP_OTHER, 0,
               "sigwaitinfo() -> SIGUSR1 from PID %ld (the sender is outside: it has no "
               "number in this namespace, so the kernel reports 0)",
               (long)info.si_pid);
}

static int kp_send_report(int fd)
{
    struct kp_report report = {kp_probes, kp_unexpected};
    if (write(fd, &report, sizeof report) != sizeof report) {
        kp_error(errno, "write the report to the parent");
        return -1;
    }
    kp_probes = kp_unexpected = 0;
    return 0;
}

/* Waits for the child's outside PID from the parent; 0 when the parent is
 * gone (EOF, or a hung-up pipe: then PR_SET_PDEATHSIG came too late). */
static pid_t kp_receive_own_outside_pid(int fd)
{
    pid_t pid;
    struct pollfd p = {.fd = fd, .events = 0};

    if (read(fd, &pid, sizeof pid) != sizeof pid)
        return 0;
    if (poll(&p, 1, 0) == -1 || (p.revents & POLLHUP))
        return 0;
    return pid;
}

/* The probes made from inside: IDs, then kill() on PIDs of this namespace
 * (visible) and of the parent's (not), then a signal an init ignores. */
static void kp_probe_from_inside(const struct kp_args *args, pid_t self_outside)
{
    pid_t grandchild;

    kp_verdict("inside ", getpid() == 1 ? 0 : KP_OTHER, 0,
               "getpid() -> %ld (the first process of a new namespace is its PID 1)",
               (long)getpid());
    kp_verdict("inside ", getppid() == 0 ? 0 : KP_OTHER, 0,
               "getppid() -> %ld (the parent is in the parent namespace, which has no "
               "number for it here)",
               (long)getppid());
    fflush(stdout);
    grandchild = fork();
    if (grandchild == -1) {
        kp_error(errno, "fork (inside the new namespace)");
        _exit(1);
    }
    if (grandchild == 0)
        kp_grandchild(args);
    close(args->life[1]); /* now only the grandchild holds it */
    printf("inside : fork() -> %ld (a second process in this namespace)\n", (long)grandchild);

    int got = kp_kill(1, 0);
    kp_verdict("inside ", got, 0, "kill(1, 0) -> %s (visible: PID 1 is this process itself)",
               kp_errno_name(got));
    got = kp_kill(grandchild, 0);
    kp_verdict("inside ", got, 0,
               "kill(%ld, 0) -> %s (visible: this process's child, in the same namespace)",
               (long)grandchild, kp_errno_name(got));
    kp_probe_outside_pid(args->parent_pid, "the parent", grandchild);
    kp_probe_outside_pid(args->witness_pid, "the witness", grandchild);
    kp_probe_outside_pid(self_outside, "this very process", grandchild);
    kp_probe_init_ignores_sigterm();
}

/* The child: PID 1 of the new namespace. It never returns: it ends with
 * _exit(), which leaves stdio alone (the parent owns it), or by SIGKILL. */
static int kp_child_main(void *arg)
{
    const struct kp_args *args = arg;
    sigset_t usr1;
    pid_t self_outside;

    signal(SIGINT, SIG_DFL); /* the parent's handlers are not for us */
    signal(SIGTERM, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the parent */
        kp_error(errno, "prctl(PR_SET_PDEATHSIG)");
    /* A pipe reports EOF only once every copy of its write end is closed:
     * drop the parent's ends, which we got copies of. */
    close(args->command[1]);
    close(args->report[0]);
    close(args->life[0]);
    self_outside = kp_receive_own_outside_pid(args->command[0]);
    if (self_outside == 0)
        _exit(1);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL); /* queue it for sigwaitinfo() */

    kp_probe_from_inside(args, self_outside);
    if (kp_send_report(args->report[1]) == -1)
        _exit(1);
    /* The parent sends SIGUSR1, prints its line, then the go byte. */
    char byte;
    if (read(args->command[0], &byte, 1) != 1)
        _exit(1);
    kp_probe_signal_from_outside();
    if (kp_send_report(args->report[1]) == -1)
        _exit(1);
    /* Wait to be killed by the parent; EOF means it is gone. */
    while (read(args->command[0], &byte, 1) > 0)
        ;
    _exit(0);
}

/* SIGINT/SIGTERM in the parent: the child is an init and would ignore them,
 * so end its namespace with SIGKILL, then die of the signal as usual. */
static void kp_on_signal(int sig)
{
    if (kp_child > 0)
        kill(kp_child, SIGKILL);
    if (kp_witness > 0)
        kill(kp_witness, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A process of the parent's namespace that only waits to be killed: one more
 * outside PID for the child to probe (see kp_probe_outside_pid()). */
static pid_t kp_start_witness(void)
{
    pid_t parent = getpid();

    fflush(stdout);
    pid_t pid = fork();
    if (pid == -1) {
        kp_error(errno, "fork (the witness process)");
        return -1;
    }
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
            _exit(1);
        for (;;)
            pause();
    }
    return pid;
}

/* Reads one report from the child; -1 when it ended before sending it. */
static int kp_receive_report(int fd)
{
    struct kp_report report;
    ssize_t n;

    while ((n = read(fd, &report, sizeof report)) == -1 && errno == EINTR)
        ;
    if (n != sizeof report) {
        kp_error(n == -1 ? errno : 0, "the child ended before reporting");
        return -1;
    }
    kp_probes += report.probes;
    kp_unexpected += report.unexpected;
    return 0;
}

static void kp_wait_for_enter(pid_t child)
{
    int c;
    printf("outside: the namespace is still up; its init is PID %ld here. Look with\n"
           "         ps -e -o pid,pidns,cmd   then press Enter to end it\n",
           (long)child);
    while ((c = getchar()) != EOF && c != '\n')
        ;
}

/* Creates the child, PID 1 of a new PID namespace. Returns its PID as our
 * namespace numbers it, or -1. */
static pid_t kp_start_child(struct kp_args *args)
{
    /* The child runs on its own copy of this array (no CLONE_VM): a static
     * one needs no freeing on either side. */
    static char stack[KP_STACK_SIZE] __attribute__((aligned(16)));
    pid_t pid;

    fflush(stdout); /* the child gets a copy of our buffers: empty them first */
    /* The stack grows down on the machines Linux runs on: pass its top. */
    pid = clone(kp_child_main, stack + KP_STACK_SIZE, CLONE_NEWPID | SIGCHLD, args);
    if (pid == -1 && errno == EPERM)
        kp_error_hint(errno, "it needs CAP_SYS_ADMIN: run it as root, or with unshare -Ur",
                      "clone(CLONE_NEWPID)");
    else if (pid == -1)
        kp_error(errno, "clone(CLONE_NEWPID)");
    return pid;
}

/* Ends a process of ours and collects it; returns its wait status. */
static int kp_reap(pid_t pid, int sig)
{
    int status = 0;
    if (sig != 0 && kill(pid, sig) == -1)
        kp_error(errno, "kill(%ld, %s)", (long)pid, strsignal(sig));
    while (waitpid(pid, &status, 0) == -1)
        if (errno != EINTR) {
            kp_error(errno, "waitpid(%ld)", (long)pid);
            break;
        }
    return status;
}

/* The parent's probes, once the child has reported its own. */
static int kp_probe_from_outside(pid_t child, int command_fd, int report_fd, int life_fd, int wait)
{
    char go = 'g', byte;
    int got = kp_kill(child, 0);

    kp_verdict("outside", got, 0,
               "kill(%ld, 0) -> %s (visible: the child's namespace is a descendant of this one)",
               (long)child, kp_errno_name(got));
    got = kp_kill(child, SIGUSR1);
    kp_verdict("outside", got, 0,
               "kill(%ld, SIGUSR1) -> %s (a real signal sent into the child namespace)",
               (long)child, kp_errno_name(got));
    /* Only now let the child collect it, so that the lines come in order. */
    if (write(command_fd, &go, 1) != 1 || kp_receive_report(report_fd) == -1)
        return -1;
    if (wait)
        kp_wait_for_enter(child);
    got = kp_kill(child, SIGKILL);
    kp_verdict("outside", got, 0, "kill(%ld, SIGKILL) -> %s", (long)child, kp_errno_name(got));
    int status = kp_reap(child, 0);
    kp_child = -1;
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    kp_verdict("outside", killed ? 0 : KP_OTHER, 0,
               "waitpid(%ld) -> %s (SIGKILL from an ancestor namespace ends even an init)",
               (long)child, killed ? "killed by SIGKILL" : "not killed by SIGKILL");
    ssize_t n = read(life_fd, &byte, 1);
    kp_verdict("outside", n == 0 ? 0 : KP_OTHER, 0,
               "read(pipe held only by the child's child) -> %s (when a namespace's init dies, "
               "the kernel kills every other process of the namespace)",
               n == 0 ? "EOF, it is gone" : "no EOF");
    return 0;
}

static void kp_close_pipes(struct kp_args *args)
{
    int *fds[] = {args->command, args->report, args->life};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            if (fds[i][j] != -1) {
                close(fds[i][j]);
                fds[i][j] = -1;
            }
}

/* Starts the witness, the pipes and the child, runs both sides' probes and
 * cleans up. Returns the exit status. */
static int kp_run(int wait)
{
    struct kp_args args = {
        .parent_pid = getpid(), .command = {-1, -1}, .report = {-1, -1}, .life = {-1, -1}};
    int rc = 1;

    printf("outside: this process is PID %ld\n", (long)args.parent_pid);
    /* The witness comes first, so that it holds no copy of the pipes. */
    args.witness_pid = kp_witness = kp_start_witness();
    if (args.witness_pid == -1)
        return 1;
    printf("outside: fork() -> %ld (a witness: one more process in this namespace)\n",
           (long)args.witness_pid);
    if (pipe2(args.command, O_CLOEXEC) == -1 || pipe2(args.report, O_CLOEXEC) == -1 ||
        pipe2(args.life, O_CLOEXEC) == -1) {
        kp_error(errno, "pipe");
        goto out;
    }
    pid_t child = kp_start_child(&args);
    if (child == -1)
        goto out;
    kp_child = child;
    close(args.command[0]), close(args.report[1]), close(args.life[1]); /* the child's */
    args.command[0] = args.report[1] = args.life[1] = -1;
    printf("outside: clone(CLONE_NEWPID) -> %ld (the child's PID in this namespace)\n",
           (long)child);
    if (write(args.command[1], &child, sizeof child) != sizeof child) {
        kp_error(errno, "write to the child");
    } else if (kp_receive_report(args.report[0]) == 0 &&
               kp_probe_from_outside(child, args.command[1], args.report[0], args.life[0], wait) ==
                   0) {
        printf("summary: %d probes, %s\n", kp_probes,
               kp_unexpected == 0 ? "all as the kernel documents" : "SOME UNEXPECTED");
        rc = kp_unexpected == 0 ? 0 : 2;
    }
    if (kp_child > 0) { /* an error path: end the namespace */
        kp_reap(child, SIGKILL);
        kp_child = -1;
    }
out:
    kp_reap(args.witness_pid, SIGKILL);
    kp_witness = -1;
    kp_close_pipes(&args);
    return rc;
}

int main(int argc, char *argv[])
{
    static const struct option options[] = {
        {"wait", no_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct sigaction sa = {.sa_handler = kp_on_signal};
    int opt, wait = 0;

    /* Line-buffered even into a pipe or a file: the child's lines must not
     * sit in a buffer when it is killed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((opt = getopt_long(argc, argv, "wh", options, NULL)) != -1) {
        switch (opt) {
        case 'w':
            wait = 1;
            break;
        case 'h':
            kp_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "Try '%s --help' for more information.\n", KP_NAME);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help' for more information.\n",
                KP_NAME, argv[optind], KP_NAME);
        return 1;
    }
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1) {
        kp_error(errno, "sigaction");
        return 1;
    }
    printf("%s: who can signal whom across a PID namespace boundary\n", KP_NAME);
    return kp_run(wait);
}
