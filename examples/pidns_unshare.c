/* SPDX-License-Identifier: MIT-0 */
/* pidns_unshare.c: unshare(CLONE_NEWPID) moves the caller's future children,
 * not the caller; and a small launcher in the spirit of util-linux
 * `unshare --pid --fork --mount-proc COMMAND`.
 *
 * unshare(CLONE_NEWPID) creates a PID namespace but leaves the caller where
 * it is: a process's PID never changes. What changes is the namespace of its
 * next children, which /proc/self/ns/pid_for_children names (Linux 4.12);
 * the kernel shows that link only once the new namespace has its init, the
 * first child (ENOENT until then). When that init dies, later fork()s fail
 * with ENOMEM. A second unshare(CLONE_NEWPID) fails with EINVAL: the
 * caller's children already have a namespace different from its own.
 *
 * Without options it shows all of that. With --launch it runs COMMAND as PID
 * 1 of a new PID namespace, in a new mount namespace (made private first, so
 * nothing leaks to the host) with a procfs for the new namespace at /proc.
 *
 * Build: cc -o pidns_unshare pidns_unshare.c
 * Run:   sudo ./pidns_unshare        or        sudo ./pidns_unshare --launch ps -e
 * Prints the links before and after, then "first child: getpid() = 1, ...".
 * Ctrl-C or SIGTERM kill the namespace (its init ignores them) unless the
 * launched command handles the signal: then it gets the signal. Exit status:
 * 0 (--launch: COMMAND's, 128+N if signal N killed it), 126/127 COMMAND
 * cannot run / not found, 1 bad usage or a failed call, with one line
 * "pidns_unshare: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads a namespace link ("pid:[4026531836]") into buf. After
 * unshare(CLONE_NEWPID), pid_for_children gives ENOENT until the new
 * namespace has its init (the first child). */
static const char *nsLink(const char *name, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/ns/%s", name);
    ssize_t n = readlink(path, buf, len - 1);
    if (n == -1 && errno == ENOENT)
        snprintf(buf, len, "(unreadable: ENOENT, no init yet)");
    else if (n == -1)
        err(EXIT_FAILURE, "readlink %s", path);
    else
        buf[n] = '\0';
    return buf;
}

/* " (unchanged)" or " (changed)" when both links could be read. */
static const char *linkChange(const char *before, const char *now)
{
    if (before == NULL || before[0] == '(' || now[0] == '(')
        return "";
    return strcmp(before, now) == 0 ? " (unchanged)" : " (changed)";
}

static void printLinks(const char *when, const char *oldPid, const char *oldChildren)
{
    char pidLink[64], childrenLink[64];
    nsLink("pid", pidLink, sizeof pidLink);
    nsLink("pid_for_children", childrenLink, sizeof childrenLink);
    printf("%s:\n", when);
    printf("  getpid()                        = %ld\n", (long)getpid());
    printf("  /proc/self/ns/pid               = %s%s\n", pidLink, linkChange(oldPid, pidLink));
    printf("  /proc/self/ns/pid_for_children  = %s%s\n", childrenLink,
           linkChange(oldChildren, childrenLink));
}

/* A child that reports where it is; we return once it has printed. With a
 * pipe in hold, it stays alive until the pipe's write end is closed, so it
 * can go on being the namespace's init. */
static pid_t reportChild(const char *label, const int *hold)
{
    char link[64], byte;
    int said[2];

    if (pipe2(said, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    pid_t pid = fork();
    if (pid == -1)
        err(EXIT_FAILURE, "fork");
    if (pid > 0) {
        close(said[1]);
        if (read(said[0], &byte, 1) != 1) /* wait for its line */
            err(EXIT_FAILURE, "read from child");
        close(said[0]);
        return pid;
    }
    printf("%s getpid() = %ld, getppid() = %ld, ns/pid = %s\n", label, (long)getpid(),
           (long)getppid(), nsLink("pid", link, sizeof link));
    if (write(said[1], "s", 1) != 1)
        err(EXIT_FAILURE, "write to parent");
    if (hold != NULL) {
        close(hold[1]); /* or we would hold our own pipe open */
        if (read(hold[0], &byte, 1) == -1)
            err(EXIT_FAILURE, "read");
    }
    _exit(0);
}

static int demonstrate(void)
{
    char oldPid[64], oldChildren[64];
    nsLink("pid", oldPid, sizeof oldPid);
    nsLink("pid_for_children", oldChildren, sizeof oldChildren);
    printLinks("before unshare(CLONE_NEWPID)", NULL, NULL);
    if (unshare(CLONE_NEWPID) == -1) /* EPERM: needs root, or unshare -r */
        err(EXIT_FAILURE, "unshare(CLONE_NEWPID)");
    printLinks("after unshare(CLONE_NEWPID)", oldPid, oldChildren);

    int hold[2]; /* keeps the first child, the init, alive until closed */
    if (pipe2(hold, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    pid_t init = reportChild("first child: ", hold);
    close(hold[0]);
    printLinks("after the first child", oldPid, oldChildren);
    pid_t second = reportChild("second child:", NULL);
    if (waitpid(second, NULL, 0) == -1)
        err(EXIT_FAILURE, "second child");

    if (unshare(CLONE_NEWPID) == 0)
        printf("second unshare(CLONE_NEWPID): succeeded\n");
    else
        printf("second unshare(CLONE_NEWPID): failed with %s (%s)\n",
               errno == EINVAL ? "EINVAL" : "an error", strerror(errno));

    close(hold[1]); /* the init reads EOF and exits: the namespace dies */
    if (waitpid(init, NULL, 0) == -1)
        err(EXIT_FAILURE, "waitpid first child");
    pid_t late = fork();
    if (late == 0)
        _exit(0);
    if (late > 0) {
        waitpid(late, NULL, 0);
        printf("fork() after the first child (PID 1) ended: succeeded\n");
    } else {
        printf("fork() after the first child (PID 1) ended: failed with %s (%s)\n",
               errno == ENOMEM ? "ENOMEM" : "an error", strerror(errno));
    }
    return EXIT_SUCCESS;
}

/* In the child, PID 1 of the new namespace: a mount namespace of its own
 * with private propagation (so no mount reaches the host), a procfs for its
 * PID namespace at /proc, then COMMAND. procfs shows the namespace of the
 * process that mounts it, which is why the child mounts it, not the parent. */
static void launchChild(char **command)
{
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    // tag::launch[]
    if (unshare(CLONE_NEWNS) == -1)
        err(EXIT_FAILURE, "unshare(CLONE_NEWNS)");
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1) /* type unused */
        err(EXIT_FAILURE, "mount --make-rprivate /");
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        err(EXIT_FAILURE, "mount proc at /proc");
    execvp(command[0], command);
    // end::launch[]
    err(errno == ENOENT ? 127 : 126, "cannot run %s", command[0]);
}

/* 1 if process pid has a handler for sig (bit sig-1 of SigCgt). */
static int catchesSignal(pid_t pid, int sig)
{
    char path[64], line[256];
    unsigned long long caught = 0;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "SigCgt: %llx", &caught) == 1)
            break;
    fclose(f);
    return (caught >> (sig - 1)) & 1;
}

static int launch(char **command)
{
    static const int watched[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++)
        sigaddset(&set, watched[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    if (unshare(CLONE_NEWPID) == -1) /* EPERM: needs root, or unshare -r */
        err(EXIT_FAILURE, "unshare(CLONE_NEWPID)");
    pid_t child = fork();
    if (child == -1)
        err(EXIT_FAILURE, "fork");
    if (child == 0)
        launchChild(command);
    for (;;) {
        int status, sig = sigwaitinfo(&set, NULL); /* -1 only if interrupted: wait again */
        if (sig == SIGCHLD && waitpid(child, &status, WNOHANG) == child)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        /* The command is PID 1: without a handler it would ignore sig, so
         * end the namespace with SIGKILL, which it cannot ignore from here. */
        if (sig > 0 && sig != SIGCHLD)
            kill(child, catchesSignal(child, sig) ? sig : SIGKILL);
    }
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"launch", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, launchMode = 0;

    opterr = 0;
    /* '+': stop at the first non-option, which belongs to COMMAND. */
    while ((opt = getopt_long(argc, argv, "+lh", options, NULL)) != -1) {
        if (opt == 'l') {
            launchMode = 1;
        } else if (opt == 'h') {
            printf("Usage: %s | %s --launch COMMAND [ARG...]\nShow what unshare(CLONE_NEWPID) "
                   "changes, or run COMMAND as PID 1 of a new\nPID namespace with its own /proc "
                   "(like unshare -fp --mount-proc).\n",
                   argv[0], argv[0]);
            return EXIT_SUCCESS;
        } else {
            errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_unshare --help')",
                 argv[optind - 1]);
        }
    }
    if (launchMode && optind == argc)
        errx(EXIT_FAILURE, "--launch needs a COMMAND, e.g. pidns_unshare --launch ps -e");
    if (!launchMode && optind < argc)
        errx(EXIT_FAILURE, "unexpected argument '%s' (to run a command: --launch)", argv[optind]);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    return launchMode ? launch(argv + optind) : demonstrate();
}
