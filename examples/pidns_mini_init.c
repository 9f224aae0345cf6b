/* pidns_mini_init.c: a minimal init for a PID namespace.
 *
 * The first process of a PID namespace (its PID 1) has two jobs that an
 * ordinary program does not do:
 *  - it adopts every orphan of the namespace: when a process dies, its
 *    children are re-parented to PID 1, and their exit status stays in the
 *    process table (a zombie) until PID 1 collects it with wait();
 *  - it gets no signal it has no handler for, so Ctrl-C or SIGTERM sent to a
 *    namespace do nothing unless its init passes them on.
 * This program creates a PID namespace, becomes its PID 1, runs COMMAND as
 * PID 2, reaps every process that ends, passes SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1 and SIGUSR2 on to COMMAND, and exits with COMMAND's status
 * as soon as COMMAND ends (the kernel then kills whatever is left inside).
 *
 * Build: cc -o pidns_mini_init pidns_mini_init.c
 * Run:   sudo ./pidns_mini_init sh -c '(sleep 1 &); sleep 2'
 * Prints, on stderr (unless -q):
 *   pidns_mini_init: PID 1 in a new namespace, running sh as PID 2
 *   pidns_mini_init: reaped PID 4, an orphan: exited with status 0
 *   pidns_mini_init: PID 2 (sh) exited with status 0
 * With --no-reap it waits for COMMAND only: orphans stay zombies, counted at
 * the end. A second Ctrl-C or SIGTERM kills the whole namespace.
 * Exit status: COMMAND's (128+N if a signal N killed it); 77 skipped (needs
 * CAP_SYS_ADMIN); 125 this program failed or was used wrongly; 126 COMMAND
 * cannot run, 127 COMMAND not found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)
#define EXIT_SKIPPED 77
#define EXIT_OWN_FAILURE 125

static const char *prog = "pidns_mini_init";
static int in_child; /* set after fork/clone: leave with _exit() */
static int quiet;
static int no_reap;
static char **command;

/* The signals passed on to COMMAND (and SIGCHLD, which init waits for). */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_FORWARDED (sizeof forwarded / sizeof forwarded[0])

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_OWN_FAILURE);
    exit(EXIT_OWN_FAILURE);
}

/* A progress message on stderr, so COMMAND's stdout stays its own. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* "SIGTERM" for the signals this program handles by name. */
static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGKILL: return "SIGKILL";
    default: return "a signal";
    }
}

/* "exited with status 3" or "was killed by SIGTERM (Terminated)". */
static void describe_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
}

/* A shell-style exit status: the exit code, or 128 + the killing signal. */
static int shell_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The set of signals both processes take with sigwaitinfo(). A blocked
 * signal is queued even for an init with no handler (the kernel cannot know
 * what the handler will be when it is unblocked), so blocking them and
 * waiting for them is a correct way for an init to receive them. */
static void wait_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    for (size_t i = 0; i < N_FORWARDED; i++)
        sigaddset(set, forwarded[i]);
}

/* --- PID 2: the command ------------------------------------------------- */

static void start_command(void)
{
    sigset_t none;
    sigemptyset(&none);
    /* The command starts with no signal blocked, as from a shell. */
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    execvp(command[0], command);
    int err = errno;
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, command[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* --- PID 1: the init ---------------------------------------------------- */

/* Collects every child that has ended. Returns 1 once COMMAND has ended,
 * with its wait status in *command_status. With --no-reap only COMMAND is
 * collected, so orphans stay zombies. */
static int reap_children(pid_t command_pid, int *command_status)
{
    int done = 0, status;
    pid_t pid;
    char text[128];
    // tag::reap[]
    while ((pid = waitpid(no_reap ? command_pid : -1, &status, WNOHANG)) > 0) {
        describe_status(status, text, sizeof text);
        if (pid == command_pid) {
            say("PID %ld (%s) %s", (long)pid, command[0], text);
            *command_status = status;
            done = 1;
        } else {
            say("reaped PID %ld, an orphan: %s", (long)pid, text);
        }
    }
    // end::reap[]
    if (pid == -1 && errno != ECHILD)
        die("waitpid");
    return done;
}

/* With --no-reap: collect the zombies that waited, only to count them. */
static void count_zombies(void)
{
    int zombies = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        zombies++;
    say("%d orphan(s) stayed zombies until now: nobody reaped them", zombies);
}

static int init_main(void *arg)
{
    (void)arg;
    in_child = 1;
    /* If the program above us dies, so do we, and with us the namespace. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        die("prctl(PR_SET_PDEATHSIG)");
    say("PID %ld in a new namespace, running %s as PID 2", (long)getpid(), command[0]);
    fflush(NULL);
    pid_t command_pid = fork();
    if (command_pid == -1)
        die("fork");
    if (command_pid == 0)
        start_command();
    sigset_t set;
    wait_set(&set);
    int command_status = 0;
    // tag::loop[]
    for (;;) {
        siginfo_t info;
        int sig = sigwaitinfo(&set, &info);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            die("sigwaitinfo");
        if (sig == SIGCHLD) {
            if (reap_children(command_pid, &command_status))
                break;
        } else {
            say("passing %s on to PID %ld", signal_name(sig), (long)command_pid);
            if (kill(command_pid, sig) == -1 && errno != ESRCH)
                die("kill");
        }
    }
    // end::loop[]
    if (no_reap)
        count_zombies();
    fflush(NULL);
    return shell_status(command_status);
}

/* --- the program in the parent namespace -------------------------------- */

static void usage(FILE *out, int status)
{
    fprintf(out,
            "Usage: %s [-q] [--no-reap] [--] COMMAND [ARG...]\n"
            "Runs COMMAND as PID 2 of a new PID namespace, under a minimal init (PID 1)\n"
            "that reaps orphans and passes signals on to COMMAND.\n"
            "  -q, --quiet    no progress messages\n"
            "      --no-reap  wait for COMMAND only: orphans stay zombies (to compare)\n"
            "  -h, --help     this text\n"
            "Needs CAP_SYS_ADMIN (root, or: unshare -r %s ...).\n",
            prog, prog);
    exit(status);
}

static void parse_args(int argc, char **argv)
{
    enum { OPT_NO_REAP = 256 };
    static const struct option options[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"no-reap", no_argument, NULL, OPT_NO_REAP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    /* '+': stop at the first non-option, which belongs to COMMAND. */
    while ((opt = getopt_long(argc, argv, "+qh", options, NULL)) != -1) {
        switch (opt) {
        case 'q': quiet = 1; break;
        case OPT_NO_REAP: no_reap = 1; break;
        case 'h': usage(stdout, EXIT_SUCCESS); break;
        default:
            fprintf(stderr, "Try '%s --help'.\n", prog);
            exit(EXIT_OWN_FAILURE);
        }
    }
    if (optind == argc) {
        fprintf(stderr, "%s: no COMMAND given: say what to run, e.g. %s sleep 10\n", prog, prog);
        exit(EXIT_OWN_FAILURE);
    }
    command = argv + optind;
}

static pid_t start_init(void)
{
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        die("mmap stack");
    fflush(NULL);
    pid_t init = clone(init_main, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, NULL);
    if (init == -1 && errno == EPERM) {
        printf("%s: skipped: needs CAP_SYS_ADMIN to create a PID namespace "
               "(run as root, or: unshare -r)\n", prog);
        exit(EXIT_SKIPPED);
    }
    if (init == -1)
        die("clone(CLONE_NEWPID)");
    munmap(stack, STACK_SIZE); /* the child has its own copy */
    return init;
}

/* Waits for init, passing signals down. The first SIGINT or SIGTERM is
 * passed on (init hands it to COMMAND); a second one ends the namespace
 * with SIGKILL, which an ancestor namespace can always send to an init. */
static int supervise(pid_t init)
{
    sigset_t set;
    wait_set(&set);
    int stops = 0;
    for (;;) {
        int status, sig = sigwaitinfo(&set, NULL);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            die("sigwaitinfo");
        if (sig == SIGCHLD) {
            pid_t pid = waitpid(init, &status, WNOHANG);
            if (pid == -1)
                die("waitpid");
            if (pid == init)
                return shell_status(status);
            continue;
        }
        if ((sig == SIGINT || sig == SIGTERM) && ++stops > 1) {
            say("second %s: killing the whole namespace", signal_name(sig));
            sig = SIGKILL;
        }
        if (kill(init, sig) == -1 && errno != ESRCH)
            die("kill");
    }
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    sigset_t set;
    wait_set(&set);
    /* Blocked before clone(), so nothing is lost before anyone waits; both
     * init and this process then take them with sigwaitinfo(). */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    pid_t init = start_init();
    return supervise(init);
}
