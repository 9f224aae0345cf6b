/* pidns_init_signals.c: which signals reach the init (PID 1) of a PID
 * namespace, and what happens to the namespace when that init dies.
 *
 * The kernel protects a namespace's init: a signal for which init has no
 * handler is thrown away, whoever sends it from inside the namespace (even
 * SIGKILL, even from a process with every capability). From an ancestor
 * namespace, SIGKILL and SIGSTOP always get through; any other signal only
 * when init has a handler for it. When init dies, the kernel kills every other
 * process of the namespace, and the namespace accepts no new process: a
 * fork() that would put a child there fails with ENOMEM.
 *
 * The program builds four processes:
 *   this program (parent namespace)
 *    |- init     PID 1 in a new PID namespace; a handler for SIGUSR1 only
 *    `- joiner   stays in the parent namespace, but setns() points its
 *        |       future children at the new namespace
 *        `- member  PID 2 in the new namespace: sends signals to PID 1
 * It sends each probe, watches what init does (runs its handler, answers a
 * later ping, stops, dies) and prints the verdict. Finally the joiner, which
 * outlived the namespace, tries one more fork() into it.
 *
 * Build: cc -o pidns_init_signals pidns_init_signals.c
 * Run:   sudo ./pidns_init_signals      (or: unshare -r ./pidns_init_signals)
 * Prints one line per probe, e.g.
 *   [inside] kill(1, SIGKILL) from PID 2, init has no handler   -> ignored: ...
 *   [parent] kill(init, SIGKILL) from here                      -> delivered: ...
 *   [after ] fork() into the dead namespace, by the joiner      -> failed with ENOMEM
 * Exit status: 0 done, 1 a call failed, 2 bad usage, 77 skipped (needs
 * CAP_SYS_ADMIN). PID namespaces and setns() on them need Linux 3.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)
#define EXIT_SKIPPED 77
#define ACK_TIMEOUT_MS 2000

static const char *prog = "pidns_init_signals";
static int in_child; /* set after fork/clone: leave with _exit() */

/* Pipes between the processes (each end closed where it is not needed). */
static int ack_pipe[2];   /* init -> main: one struct ack per handled signal */
static int cmd_pipe[2];   /* main -> member: a signal number to send to PID 1 */
static int go_pipe[2];    /* main -> joiner: 'w' wait for member, 'f' fork */
static int reply_pipe[2]; /* member, joiner -> main: one int per command */

struct ack {
    int signo;
    pid_t sender; /* si_pid as init sees it: 0 for a sender it cannot see */
};

static volatile pid_t kill_on_exit[2]; /* init and joiner, for the handler */

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

static void skip(const char *why)
{
    printf("%s: skipped: %s\n", prog, why);
    exit(EXIT_SKIPPED);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGSTOP: return "SIGSTOP";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    default: return "signal";
    }
}

/* Starts a probe's line: "[side  ] what was done", padded so verdicts align. */
static void print_probe(const char *side, const char *what)
{
    printf("[%-6s] %-50s ", side, what);
}

static void write_int(int fd, int value)
{
    if (write(fd, &value, sizeof value) != sizeof value)
        die("write to pipe");
}

static int read_int(int fd)
{
    int value;
    ssize_t n = read(fd, &value, sizeof value);
    if (n != sizeof value) {
        if (n >= 0)
            errno = EPIPE; /* the other side ended early */
        die("read from pipe");
    }
    return value;
}

/* Ctrl-C or SIGTERM: the init ignores both (it has no handler), so end the
 * namespace with SIGKILL from here, the parent namespace, where it works. */
static void on_terminate(int sig)
{
    for (int i = 0; i < 2; i++)
        if (kill_on_exit[i] > 0)
            kill(kill_on_exit[i], SIGKILL);
    while (wait(NULL) > 0)
        ;
    _exit(128 + sig);
}

/* --- init: PID 1 of the new namespace ----------------------------------- */

// tag::handler[]
/* init's only handler: tells the main program who sent SIGUSR1. */
static void init_on_usr1(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int saved_errno = errno;
    struct ack ack = {sig, info->si_pid};
    ssize_t n = write(ack_pipe[1], &ack, sizeof ack); /* async-signal-safe */
    (void)n;
    errno = saved_errno;
}
// end::handler[]

static int init_main(void *arg)
{
    (void)arg;
    in_child = 1;
    /* We inherited the main program's SIGINT/SIGTERM handler: drop it, or
     * init would have a handler and the demonstration would be wrong. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program */
        die("prctl(PR_SET_PDEATHSIG)");
    struct sigaction sa = {.sa_sigaction = init_on_usr1, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) == -1)
        die("sigaction(SIGUSR1)");
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    /* Ready: until now a SIGUSR1 would have found no handler and been lost. */
    struct ack ready = {0, 0};
    if (write(ack_pipe[1], &ready, sizeof ready) != sizeof ready)
        die("write to pipe");
    for (;;)
        pause(); /* only signals happen here */
    return 0;   /* not reached */
}

/* --- member and joiner -------------------------------------------------- */

/* member (PID 2 inside): sends each requested signal to PID 1. */
static void member_main(void)
{
    write_int(reply_pipe[1], getpid()); /* 2: the first PID after init */
    for (;;) {
        int sig = read_int(cmd_pipe[0]);
        write_int(reply_pipe[1], kill(1, sig) == 0 ? 0 : errno);
    }
}

/* joiner: setns() into init's namespace, then fork member there; later wait
 * for member and try one more fork once init is gone. */
static void joiner_main(pid_t init_pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)init_pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        die(path);
    if (setns(fd, CLONE_NEWPID) == -1) /* moves only our future children */
        die("setns(CLONE_NEWPID)");
    close(fd);
    pid_t member = fork();
    if (member == -1)
        die("fork member");
    if (member == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
            die("prctl(PR_SET_PDEATHSIG)");
        member_main();
    }
    int status;
    if (read_int(go_pipe[0]) != 'w')
        _exit(EXIT_FAILURE);
    if (waitpid(member, &status, 0) == -1)
        die("waitpid member");
    write_int(reply_pipe[1], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (read_int(go_pipe[0]) != 'f')
        _exit(EXIT_FAILURE);
    // tag::late-fork[]
    pid_t late = fork(); /* pid_for_children still names the dead namespace */
    if (late == 0)
        _exit(0);
    int fork_errno = late == -1 ? errno : 0;
    // end::late-fork[]
    if (late > 0)
        waitpid(late, NULL, 0);
    write_int(reply_pipe[1], fork_errno);
    _exit(0);
}

/* --- watching init ------------------------------------------------------ */

/* Waits up to ACK_TIMEOUT_MS for init's handler to report; 1 if it did. */
static int wait_for_ack(struct ack *ack)
{
    struct pollfd pfd = {.fd = ack_pipe[0], .events = POLLIN};
    int n;
    while ((n = poll(&pfd, 1, ACK_TIMEOUT_MS)) == -1 && errno == EINTR)
        ;
    if (n == -1)
        die("poll");
    if (n == 0)
        return 0;
    if (read(ack_pipe[0], ack, sizeof *ack) != sizeof *ack)
        die("read init's acknowledgement");
    return 1;
}

/* The state letter of /proc/PID/stat ('S', 'T', 'Z'...), '?' if gone. */
static char process_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return '?';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = '\0';
    char *paren = strrchr(buf, ')'); /* the name may hold spaces */
    return paren != NULL && paren[1] == ' ' ? paren[2] : '?';
}

/* After a signal was sent: did init run its handler, ignore it, or not
 * answer at all? A ping (SIGUSR1 from here) that init answers proves it is
 * still running, so a signal sent before it had no effect. */
static void report_outcome(pid_t init, int sig)
{
    struct ack ack;
    if (sig != SIGUSR1 && kill(init, SIGUSR1) == -1)
        die("kill(init, SIGUSR1) (ping)");
    if (!wait_for_ack(&ack)) {
        printf("-> no answer: init is in state %c\n", process_state(init));
        return;
    }
    if (sig == SIGUSR1)
        printf("-> delivered: handler ran, sender PID %ld\n", (long)ack.sender);
    else
        printf("-> ignored: init answered a later ping\n");
}

static void probe_from_inside(pid_t init, int sig)
{
    char what[128];
    snprintf(what, sizeof what, "kill(1, %s) from PID 2, init has %s", signal_name(sig),
             sig == SIGUSR1 ? "a handler" : "no handler");
    print_probe("inside", what);
    write_int(cmd_pipe[1], sig);
    int err = read_int(reply_pipe[0]);
    if (err != 0) {
        printf("-> kill() failed: %s\n", strerror(err));
        return;
    }
    report_outcome(init, sig);
}

static void probe_from_parent(pid_t init, int sig)
{
    char what[128];
    snprintf(what, sizeof what, "kill(init, %s) from here, init has %s", signal_name(sig),
             sig == SIGUSR1 ? "a handler" : "no handler");
    print_probe("parent", what);
    if (kill(init, sig) == -1)
        die("kill(init)");
    report_outcome(init, sig);
}

/* SIGSTOP from the parent namespace: init stops (waitid sees it). */
static void probe_stop_from_parent(pid_t init)
{
    print_probe("parent", "kill(init, SIGSTOP) from here");
    if (kill(init, SIGSTOP) == -1)
        die("kill(init, SIGSTOP)");
    siginfo_t info;
    for (int tries = 0; tries < 300; tries++) {
        info.si_pid = 0;
        if (waitid(P_PID, init, &info, WSTOPPED | WNOHANG) == -1)
            die("waitid(WSTOPPED)");
        if (info.si_pid == init)
            break;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    if (info.si_pid != init) {
        printf("-> ignored: init did not stop\n");
        return;
    }
    if (kill(init, SIGCONT) == -1)
        die("kill(init, SIGCONT)");
    printf("-> delivered: init stopped (SIGCONT resumed it)\n");
}

/* SIGKILL from the parent namespace: init dies, the kernel kills the rest of
 * the namespace (member), and a later fork() into it fails. */
static void probe_kill_and_after(pid_t init)
{
    print_probe("parent", "kill(init, SIGKILL) from here");
    if (kill(init, SIGKILL) == -1)
        die("kill(init, SIGKILL)");
    /* init's exit waits until every process of its namespace is reaped, so
     * the joiner must reap member before our waitpid(init) can return. */
    write_int(go_pipe[1], 'w');
    int member_signal = read_int(reply_pipe[0]);
    int status;
    if (waitpid(init, &status, 0) == -1)
        die("waitpid(init)");
    kill_on_exit[0] = 0;
    if (WIFSIGNALED(status))
        printf("-> delivered: init killed by %s\n", signal_name(WTERMSIG(status)));
    else
        printf("-> init ended with status %d\n", WEXITSTATUS(status));
    print_probe("after", "member (PID 2 inside) when init died");
    if (member_signal != 0)
        printf("-> killed by %s, sent by the kernel\n", signal_name(member_signal));
    else
        printf("-> not killed\n");
    write_int(go_pipe[1], 'f');
    int fork_errno = read_int(reply_pipe[0]);
    print_probe("after", "fork() into the dead namespace, by the joiner");
    if (fork_errno != 0)
        printf("-> failed with %s (%s)\n", fork_errno == ENOMEM ? "ENOMEM" : "an error",
               strerror(fork_errno));
    else
        printf("-> succeeded\n");
}

static void usage(FILE *out, int status)
{
    fprintf(out,
            "Usage: %s\n"
            "Creates a PID namespace and shows which signals its init receives from\n"
            "inside and from the parent namespace, then kills init and shows that the\n"
            "rest of the namespace dies and fork() into it fails with ENOMEM.\n"
            "Needs CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
            prog, prog);
    exit(status);
}

static void parse_args(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
        usage(stdout, EXIT_SUCCESS);
    if (argc != 1) {
        fprintf(stderr, "%s: unexpected argument '%s'; it takes none (try --help)\n", prog,
                argv[1]);
        exit(2);
    }
}

/* Blocks or unblocks SIGINT/SIGTERM, so that no Ctrl-C can slip in between
 * creating a process and remembering its PID for on_terminate(). */
static void block_termination(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(how, &set, NULL) == -1)
        die("sigprocmask");
}

static pid_t start_init(void)
{
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        die("mmap stack");
    pid_t init = clone(init_main, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, NULL);
    if (init == -1 && errno == EPERM)
        skip("needs CAP_SYS_ADMIN to create a PID namespace (run as root, or: unshare -r)");
    if (init == -1)
        die("clone(CLONE_NEWPID)");
    munmap(stack, STACK_SIZE); /* the child has its own copy */
    return init;
}

static pid_t start_joiner(pid_t init)
{
    pid_t joiner = fork();
    if (joiner == -1)
        die("fork joiner");
    if (joiner == 0) {
        in_child = 1;
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        block_termination(SIG_UNBLOCK);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
            die("prctl(PR_SET_PDEATHSIG)");
        close(ack_pipe[0]);
        close(cmd_pipe[1]);
        close(go_pipe[1]);
        close(reply_pipe[0]);
        joiner_main(init);
    }
    return joiner;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    if (pipe2(ack_pipe, O_CLOEXEC) == -1 || pipe2(cmd_pipe, O_CLOEXEC) == -1 ||
        pipe2(go_pipe, O_CLOEXEC) == -1 || pipe2(reply_pipe, O_CLOEXEC) == -1)
        die("pipe2");
    struct sigaction sa = {.sa_handler = on_terminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        die("sigaction");
    block_termination(SIG_BLOCK);
    fflush(NULL);
    pid_t init = kill_on_exit[0] = start_init();
    pid_t joiner = kill_on_exit[1] = start_joiner(init);
    block_termination(SIG_UNBLOCK);
    struct ack ready;
    if (!wait_for_ack(&ready) || ready.signo != 0) { /* init has its handler now */
        errno = ETIMEDOUT;
        die("wait for init to be ready");
    }
    int member = read_int(reply_pipe[0]);
    if (member < 0) { /* joiner failed before member existed */
        errno = EPIPE;
        die("start member");
    }
    printf("init is PID %ld here and PID 1 inside; member is PID %d inside\n", (long)init,
           member);
    int inside[] = {SIGTERM, SIGINT, SIGKILL, SIGSTOP, SIGUSR1};
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++)
        probe_from_inside(init, inside[i]);
    probe_from_parent(init, SIGTERM);
    probe_from_parent(init, SIGUSR1);
    probe_stop_from_parent(init);
    probe_kill_and_after(init);
    if (waitpid(joiner, NULL, 0) == -1)
        die("waitpid joiner");
    return EXIT_SUCCESS;
}
