/* pidns_unshare.c: unshare(CLONE_NEWPID) moves the caller's future children,
 * not the caller; and a small launcher in the spirit of util-linux
 * `unshare --pid --fork --mount-proc COMMAND`.
 *
 * unshare(CLONE_NEWPID) creates a PID namespace but leaves the caller where
 * it is: a process's PID never changes. What changes is the namespace its
 * next children are created in, which /proc/self/ns/pid_for_children names.
 * The first child becomes PID 1 of the new namespace; when that init dies,
 * the namespace dies and later fork()s fail with ENOMEM. A process can do
 * this only once: a second unshare(CLONE_NEWPID) fails with EINVAL, since
 * its children already have a namespace different from its own.
 *
 * Without options it demonstrates all of that, printing the namespace links
 * before and after. With --launch it runs COMMAND as PID 1 of a new PID
 * namespace, in a new mount namespace (propagation made private first, so
 * nothing leaks to the host) where a procfs for the new namespace is mounted
 * at /proc, so that ps inside shows only the namespace's processes.
 *
 * Build: cc -o pidns_unshare pidns_unshare.c
 * Run:   sudo ./pidns_unshare
 *        sudo ./pidns_unshare --launch ps -e
 * Prints (demonstration), e.g.:
 *   after unshare(CLONE_NEWPID):
 *     getpid()                        = 4242
 *     /proc/self/ns/pid               = pid:[4026531836] (unchanged)
 *     /proc/self/ns/pid_for_children  = pid:[4026532410] (changed)
 *   first child:  getpid() = 1, getppid() = 0, ns/pid = pid:[4026532410]
 * Ctrl-C or SIGTERM kill the namespace (its init ignores them) unless the
 * launched command has a handler for the signal: then it gets the signal.
 * Exit status: 0 done (--launch: COMMAND's status, 128+N if killed by signal
 * N), 1 a call failed, 2 bad usage, 77 skipped (needs CAP_SYS_ADMIN),
 * 126/127 COMMAND cannot run / not found.
 */
#define _GNU_SOURCE
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

#define EXIT_SKIPPED 77

static const char *prog = "pidns_unshare";
static int in_child; /* set after fork: leave with _exit() */

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

static void unshare_or_skip(int flags, const char *what)
{
    if (unshare(flags) == 0)
        return;
    if (errno == EPERM) {
        printf("%s: skipped: needs CAP_SYS_ADMIN for %s (run as root, or: unshare -r)\n", prog,
               what);
        exit(EXIT_SKIPPED);
    }
    die(what);
}

/* Reads a namespace link ("pid:[4026531836]") into buf. Two ways to fail
 * that teach something: pid_for_children exists only since Linux 4.12, and
 * after unshare(CLONE_NEWPID) it cannot be read until the new namespace has
 * its init (the first child): the kernel answers ENOENT until then. */
static const char *ns_link(const char *name, char *buf, size_t len)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/ns/%s", name);
    ssize_t n = readlink(path, buf, len - 1);
    if (n == -1 && errno == ENOENT && lstat(path, &st) == -1) {
        snprintf(buf, len, "(missing: needs Linux 4.12)");
        return buf;
    }
    if (n == -1 && errno == ENOENT) {
        snprintf(buf, len, "(unreadable: ENOENT, no init yet)");
        return buf;
    }
    if (n == -1)
        die(path);
    buf[n] = '\0';
    return buf;
}

static pid_t fork_or_die(void)
{
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid == 0)
        in_child = 1;
    return pid;
}

/* --- the demonstration ------------------------------------------------ */

/* " (unchanged)" or " (changed)" when both links could be read. */
static const char *link_change(const char *before, const char *now)
{
    if (before == NULL || before[0] == '(' || now[0] == '(')
        return "";
    return strcmp(before, now) == 0 ? " (unchanged)" : " (changed)";
}

static void print_links(const char *when, const char *old_pid, const char *old_children)
{
    char pid_link[64], children_link[64];
    ns_link("pid", pid_link, sizeof pid_link);
    ns_link("pid_for_children", children_link, sizeof children_link);
    printf("%s:\n", when);
    printf("  getpid()                        = %ld\n", (long)getpid());
    printf("  /proc/self/ns/pid               = %s%s\n", pid_link, link_change(old_pid, pid_link));
    printf("  /proc/self/ns/pid_for_children  = %s%s\n", children_link,
           link_change(old_children, children_link));
}

/* A child that reports where it is; we return once it has printed. With a
 * pipe in hold, it stays alive until the pipe's write end is closed, so it
 * can go on being the namespace's init. */
static pid_t report_child(const char *label, const int *hold)
{
    int said[2];
    if (pipe2(said, O_CLOEXEC) == -1)
        die("pipe2");
    pid_t pid = fork_or_die();
    if (pid == -1)
        return -1;
    if (pid > 0) {
        char byte;
        close(said[1]);
        if (read(said[0], &byte, 1) != 1) /* wait for its line */
            die("read from child");
        close(said[0]);
        return pid;
    }
    char link[64], byte;
    printf("%s getpid() = %ld, getppid() = %ld, ns/pid = %s\n", label, (long)getpid(),
           (long)getppid(), ns_link("pid", link, sizeof link));
    fflush(NULL);
    if (write(said[1], "s", 1) != 1)
        die("write to parent");
    if (hold != NULL) {
        close(hold[1]); /* or we would hold our own pipe open */
        if (read(hold[0], &byte, 1) == -1)
            die("read");
    }
    _exit(0);
}

static int demonstrate(void)
{
    char old_pid[64], old_children[64];
    ns_link("pid", old_pid, sizeof old_pid);
    ns_link("pid_for_children", old_children, sizeof old_children);
    print_links("before unshare(CLONE_NEWPID)", NULL, NULL);
    unshare_or_skip(CLONE_NEWPID, "unshare(CLONE_NEWPID)");
    print_links("after unshare(CLONE_NEWPID)", old_pid, old_children);

    int hold[2]; /* keeps the first child, the init, alive until closed */
    if (pipe2(hold, O_CLOEXEC) == -1)
        die("pipe2");
    pid_t init = report_child("first child: ", hold);
    if (init == -1)
        die("fork");
    close(hold[0]);
    print_links("after the first child", old_pid, old_children);
    pid_t second = report_child("second child:", NULL);
    if (second == -1 || waitpid(second, NULL, 0) == -1)
        die("second child");

    if (unshare(CLONE_NEWPID) == 0)
        printf("second unshare(CLONE_NEWPID): succeeded\n");
    else
        printf("second unshare(CLONE_NEWPID): failed with %s (%s)\n",
               errno == EINVAL ? "EINVAL" : "an error", strerror(errno));

    close(hold[1]); /* the init reads EOF and exits: the namespace dies */
    if (waitpid(init, NULL, 0) == -1)
        die("waitpid first child");
    pid_t late = fork_or_die();
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

/* --- the launcher ----------------------------------------------------- */

/* In the child, PID 1 of the new namespace: a mount namespace of its own
 * with private propagation (so no mount reaches the host), a procfs for its
 * PID namespace at /proc, then COMMAND. procfs shows the namespace of the
 * process that mounts it, which is why the child mounts it, not the parent. */
static void launch_child(char **command)
{
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    // tag::launch[]
    if (unshare(CLONE_NEWNS) == -1)
        die("unshare(CLONE_NEWNS)");
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1) /* type unused */
        die("mount --make-rprivate /");
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        die("mount proc at /proc");
    execvp(command[0], command);
    // end::launch[]
    int err = errno;
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, command[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* 1 if process pid has a handler for sig (bit sig-1 of SigCgt). */
static int catches_signal(pid_t pid, int sig)
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
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    unshare_or_skip(CLONE_NEWPID, "unshare(CLONE_NEWPID)");
    pid_t child = fork_or_die();
    if (child == -1)
        die("fork");
    if (child == 0)
        launch_child(command);
    for (;;) {
        int status, sig = sigwaitinfo(&set, NULL);
        if (sig == -1 && errno == EINTR)
            continue;
        if (sig == -1)
            die("sigwaitinfo");
        if (sig == SIGCHLD) {
            pid_t pid = waitpid(child, &status, WNOHANG);
            if (pid == -1)
                die("waitpid");
            if (pid == child)
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            continue;
        }
        /* The command is PID 1: without a handler it would ignore sig, so
         * end the namespace with SIGKILL, which it cannot ignore from here. */
        if (kill(child, catches_signal(child, sig) ? sig : SIGKILL) == -1 && errno != ESRCH)
            die("kill");
    }
}

static void usage(FILE *out, int status)
{
    fprintf(out,
            "Usage: %s                        show what unshare(CLONE_NEWPID) changes\n"
            "       %s --launch COMMAND [ARG...]\n"
            "           run COMMAND as PID 1 of a new PID namespace, with its own\n"
            "           procfs at /proc in a private mount namespace\n"
            "           (like: unshare --pid --fork --mount-proc COMMAND)\n"
            "Needs CAP_SYS_ADMIN (root, or: unshare -r %s ...).\n",
            prog, prog, prog);
    exit(status);
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"launch", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, launch_mode = 0;
    /* '+': stop at the first non-option, which belongs to COMMAND. */
    while ((opt = getopt_long(argc, argv, "+lh", options, NULL)) != -1) {
        if (opt == 'l')
            launch_mode = 1;
        else if (opt == 'h')
            usage(stdout, EXIT_SUCCESS);
        else {
            fprintf(stderr, "Try '%s --help'.\n", prog);
            exit(2);
        }
    }
    if (launch_mode && optind == argc) {
        fprintf(stderr, "%s: --launch needs a COMMAND, e.g. %s --launch ps -e\n", prog, prog);
        exit(2);
    }
    if (!launch_mode && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (to run a command: --launch)\n", prog,
                argv[optind]);
        exit(2);
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    return launch_mode ? launch(argv + optind) : demonstrate();
}
