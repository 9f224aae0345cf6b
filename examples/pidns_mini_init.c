/* SPDX-License-Identifier: MIT-0 */
/* pidns_mini_init.c: a minimal init for a PID namespace.
 *
 * The first process of a PID namespace (its PID 1) has two jobs that an
 * ordinary program does not do:
 *  - it adopts the orphans of the namespace's processes, and their exit
 *    status stays in the process table (a zombie) until PID 1 collects it
 *    with wait(); or, another way, ignores SIGCHLD (SIG_IGN or
 *    SA_NOCLDWAIT) so that the kernel reaps them at once;
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
 * Exit status: COMMAND's (128+N if a signal N killed it); 126 COMMAND cannot
 * run, 127 COMMAND not found; 125 (like env(1), as 1 could be COMMAND's)
 * this program failed or was used wrongly, with one line
 * "pidns_mini_init: what failed: why" (err(3)).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_OWN_FAILURE 125

static char stack[256 * 1024]; /* init's; it runs on its own copy */
static int quiet, noReap;
static char **command;

/* The signals passed on to COMMAND, and SIGCHLD, which init waits for. */
static const int waited[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* A progress message on stderr, so COMMAND's stdout stays its own. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    if (quiet)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One call, one write: the command's output cannot land inside the line. */
    fprintf(stderr, "pidns_mini_init: %s\n", line);
}

/* "exited with status 3" or "was killed by signal 15 (Terminated)". */
static void describeStatus(int status, char *buf, size_t len)
{
    snprintf(buf, len, WIFEXITED(status) ? "exited with status %d" : "was killed by signal %d (%s)",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
             strsignal(WTERMSIG(status)));
}

/* A shell-style exit status: the exit code, or 128 + the killing signal. */
static int shellStatus(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The set of signals both processes take with sigwaitinfo(). A blocked
 * signal is queued even for an init with no handler (the kernel cannot know
 * what the handler will be when it is unblocked), so blocking them and
 * waiting for them is a correct way for an init to receive them. */
static void waitSet(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof waited / sizeof waited[0]; i++)
        sigaddset(set, waited[i]);
}

static void startCommand(void)
{
    sigset_t none;
    sigemptyset(&none); /* the command starts with no signal blocked, as from a shell */
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        err(EXIT_OWN_FAILURE, "sigprocmask");
    execvp(command[0], command);
    err(errno == ENOENT ? 127 : 126, "cannot run %s", command[0]);
}

/* Collects every child that has ended. Returns 1 once COMMAND has ended,
 * with its wait status in *commandStatus. With --no-reap only COMMAND is
 * collected, so orphans stay zombies. */
static int reapChildren(pid_t commandPid, int *commandStatus)
{
    int done = 0, status;
    pid_t pid;
    char text[128];
    // tag::reap[]
    while ((pid = waitpid(noReap ? commandPid : -1, &status, WNOHANG)) > 0) {
        describeStatus(status, text, sizeof text);
        if (pid == commandPid) {
            say("PID %ld (%s) %s", (long)pid, command[0], text);
            *commandStatus = status;
            done = 1;
        } else {
            say("reaped PID %ld, an orphan: %s", (long)pid, text);
        }
    }
    // end::reap[]
    if (pid == -1 && errno != ECHILD)
        err(EXIT_OWN_FAILURE, "waitpid");
    return done;
}

/* With --no-reap: collect the zombies that waited, only to count them. */
static void countZombies(void)
{
    int zombies = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        zombies++;
    say("%d orphan(s) stayed zombies until now: nobody reaped them", zombies);
}

static int initMain(void *arg)
{
    (void)arg;
    /* If the program above us dies, so do we, and with us the namespace. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        err(EXIT_OWN_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    say("PID %ld in a new namespace, running %s as PID 2", (long)getpid(), command[0]);
    pid_t commandPid = fork();
    if (commandPid == -1)
        err(EXIT_OWN_FAILURE, "fork");
    if (commandPid == 0)
        startCommand();
    sigset_t set;
    waitSet(&set);
    int commandStatus = 0;
    // tag::loop[]
    for (;;) {
        siginfo_t info;
        int sig = sigwaitinfo(&set, &info);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            err(EXIT_OWN_FAILURE, "sigwaitinfo");
        if (sig == SIGCHLD) {
            if (reapChildren(commandPid, &commandStatus))
                break;
        } else {
            say("passing SIG%s on to PID %ld", sigabbrev_np(sig), (long)commandPid);
            if (kill(commandPid, sig) == -1 && errno != ESRCH)
                err(EXIT_OWN_FAILURE, "kill");
        }
    }
    // end::loop[]
    if (noReap)
        countZombies();
    return shellStatus(commandStatus);
}

static void parseArgs(int argc, char **argv)
{
    enum { OPT_NO_REAP = 256 };
    static const struct option options[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"no-reap", no_argument, NULL, OPT_NO_REAP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;

    opterr = 0;
    /* '+': stop at the first non-option, which belongs to COMMAND. */
    while ((opt = getopt_long(argc, argv, "+qh", options, NULL)) != -1) {
        switch (opt) {
        case 'q':
            quiet = 1;
            break;
        case OPT_NO_REAP:
            noReap = 1;
            break;
        case 'h':
            printf("Usage: %s [-q] [--no-reap] [--] COMMAND [ARG...]\n"
                   "Run COMMAND as PID 2 of a new PID namespace, under a minimal init (PID 1)\n"
                   "that reaps orphans and passes signals on to COMMAND.\n"
                   "  -q, --quiet    no progress messages\n"
                   "      --no-reap  wait for COMMAND only: orphans stay zombies (to compare)\n",
                   argv[0]);
            exit(EXIT_SUCCESS);
        default:
            errx(EXIT_OWN_FAILURE, "unknown option '%s' (try 'pidns_mini_init --help')",
                 argv[optind - 1]);
        }
    }
    if (optind == argc)
        errx(EXIT_OWN_FAILURE, "no COMMAND given: say what to run, e.g. pidns_mini_init sleep 10");
    command = argv + optind;
}

/* Waits for init, passing signals down. The first SIGINT or SIGTERM is
 * passed on (init hands it to COMMAND); a second one ends the namespace
 * with SIGKILL, which an ancestor namespace can always send to an init. */
static int supervise(pid_t init)
{
    sigset_t set;
    waitSet(&set);
    int stops = 0;
    for (;;) {
        int status, sig = sigwaitinfo(&set, NULL); /* -1 only if interrupted: wait again */
        if (sig == SIGCHLD && waitpid(init, &status, WNOHANG) == init)
            return shellStatus(status);
        if (sig == -1 || sig == SIGCHLD)
            continue;
        if ((sig == SIGINT || sig == SIGTERM) && ++stops > 1) {
            say("second SIG%s: killing the whole namespace", sigabbrev_np(sig));
            sig = SIGKILL;
        }
        if (kill(init, sig) == -1 && errno != ESRCH)
            err(EXIT_OWN_FAILURE, "kill");
    }
}

int main(int argc, char **argv)
{
    parseArgs(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    sigset_t set;
    waitSet(&set);
    /* Blocked before clone(), so nothing is lost before anyone waits; both
     * init and this process then take them with sigwaitinfo(). */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        err(EXIT_OWN_FAILURE, "sigprocmask");
    pid_t init = clone(initMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (init == -1) /* EPERM: needs CAP_SYS_ADMIN, as root or with unshare -r */
        err(EXIT_OWN_FAILURE, "clone(CLONE_NEWPID)");
    return supervise(init);
}
