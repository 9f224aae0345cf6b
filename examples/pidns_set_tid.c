/* pidns_set_tid.c: choose the PIDs of a new process, one per PID namespace,
 * with clone3() and set_tid; and /proc/sys/kernel/ns_last_pid.
 *
 * Why choose PIDs: checkpoint/restore (CRIU) saves a container's processes
 * on one host and recreates them on another. The programs inside remember
 * PIDs (in files, in variables, as the parent of a child), so each process
 * must come back with the PID it had, in its own namespace. The restored
 * container gets a new PID namespace, where nothing collides, and each
 * process is created with clone3() whose set_tid array names its PID in the
 * new namespace (set_tid[0]) and, optionally, in the namespaces above it
 * (set_tid[1], ...). Rules the kernel enforces (Linux 5.5):
 *  - the caller needs CAP_CHECKPOINT_RESTORE (Linux 5.9) or CAP_SYS_ADMIN in
 *    the user namespace owning each namespace where it chooses a PID;
 *  - in a namespace with no init yet the first PID must be 1;
 *  - a PID already in use fails with EEXIST.
 * The older way is /proc/sys/kernel/ns_last_pid: the last PID handed out in
 * the reader's namespace; writing N (same privilege) makes the next fork()
 * in that namespace get N+1 if it is free.
 *
 * The program makes a PID namespace whose init (PID 1) creates a child with
 * PID 42 there (or INNER_PID) and a chosen free PID in this namespace, shows
 * it in NSpid, tries the same PID again (EEXIST), then writes 99 to the
 * namespace's ns_last_pid and forks a child that gets PID 100. It never
 * writes ns_last_pid outside the namespace it made.
 *
 * Build: cc -o pidns_set_tid pidns_set_tid.c
 * Run:   sudo ./pidns_set_tid [INNER_PID]       (or: unshare -r ./pidns_set_tid)
 * Prints, e.g.:
 *   [init] clone3(set_tid = {42, 22345}) -> PID 42 inside, PID 22345 here
 *   [42]   getpid() = 42; NSpid: 22345 42
 *   [init] clone3(set_tid = {42}) while 42 lives -> EEXIST (File exists)
 *   [init] wrote 99 to ns_last_pid; fork() -> PID 100
 * As an ordinary user in a user namespace, choosing the PID in this
 * (parent) namespace fails with EPERM: the program says so and chooses only
 * the inner PID.
 * Exit status: 0 done, 1 a call failed, 2 bad usage, 77 skipped (needs
 * Linux 5.5 or CAP_SYS_ADMIN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435 /* the same number on every architecture */
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID 0x20000000
#endif

#define EXIT_SKIPPED 77

static const char *prog = "pidns_set_tid";
static int in_child; /* set after clone: leave with _exit() */
static volatile pid_t init_pid; /* for on_terminate() */
static pid_t inner_pid = 42;  /* the PID to choose inside */
static pid_t outer_pid;       /* a free PID to choose here (0: none) */

/* struct clone_args up to set_tid_size (CLONE_ARGS_SIZE_VER1, 80 bytes):
 * declared here so the file builds with old kernel headers too. */
struct clone_args_v1 {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
    uint64_t stack, stack_size, tls, set_tid, set_tid_size;
};

/* The one error path: "program: what failed: why", then leave. */
__attribute__((noreturn)) static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    if (in_child)
        _exit(EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

__attribute__((noreturn)) static void skip(const char *why)
{
    printf("%s: skipped: %s\n", prog, why);
    fflush(NULL);
    if (in_child)
        _exit(EXIT_SKIPPED);
    exit(EXIT_SKIPPED);
}

/* clone3() like fork() (no new stack), with optional chosen PIDs. Returns
 * the child's PID in the parent, 0 in the child, -1 with errno. */
// tag::clone3[]
static pid_t clone3_pids(uint64_t flags, const pid_t *set_tid, size_t count)
{
    struct clone_args_v1 args = {
        .flags = flags,
        .exit_signal = SIGCHLD,
        .set_tid = (uint64_t)(uintptr_t)set_tid,
        .set_tid_size = count,
    };
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = (pid_t)syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0)
        in_child = 1;
    return pid;
}
// end::clone3[]

/* The namespace's ns_last_pid, -1 (errno set) if it cannot be read. */
static long read_ns_last_pid(void)
{
    char buf[32];
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

/* The "NSpid:" line of /proc/self/status, tabs made spaces. */
static void read_nspid(char *line, size_t len)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        die("fopen /proc/self/status");
    line[0] = '\0';
    while (fgets(line, (int)len, f) != NULL)
        if (strncmp(line, "NSpid:", 6) == 0)
            break;
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; *p != '\0'; p++)
        if (*p == '\t')
            *p = ' ';
}

/* --- inside the new namespace ------------------------------------------ */

/* The child with chosen PIDs: says where it is, then lives until init
 * closes the hold pipe (so that its PID stays taken meanwhile). */
__attribute__((noreturn)) static void chosen_child(const int *said, const int *hold)
{
    char nspid[512], byte;
    read_nspid(nspid, sizeof nspid);
    printf("[%ld]   getpid() = %ld; %s\n", (long)getpid(), (long)getpid(), nspid);
    fflush(NULL);
    close(hold[1]);
    if (write(said[1], "s", 1) != 1 || read(hold[0], &byte, 1) == -1)
        die("pipe to init");
    _exit(0);
}

/* Explains why clone3() with set_tid failed, skipping where that is the
 * honest answer (an old kernel, no privilege). */
static void set_tid_failed(void)
{
    if (errno == ENOSYS)
        skip("clone3() needs Linux 5.3");
    if (errno == E2BIG)
        skip("set_tid needs Linux 5.5");
    if (errno == EPERM)
        skip("choosing a PID needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN in the user "
             "namespace that owns the PID namespace");
    die("clone3(set_tid)");
}

/* Creates the child with PID inner_pid inside and, when allowed and free,
 * outer_pid in the parent namespace. */
static pid_t create_chosen_child(const int *said, const int *hold)
{
    pid_t tids[2] = {inner_pid, outer_pid}; /* innermost namespace first */
    size_t count = outer_pid > 0 ? 2 : 1;
    if (count == 2)
        printf("[init] clone3(set_tid = {%ld, %ld}, set_tid_size = 2)\n", (long)inner_pid,
               (long)outer_pid);
    pid_t pid = clone3_pids(0, tids, count);
    if (pid == -1 && count == 2 && (errno == EPERM || errno == EEXIST)) {
        printf("[init]   -> %s: %s\n", errno == EPERM ? "EPERM" : "EEXIST",
               errno == EPERM ? "choosing a PID in the parent namespace needs privilege over "
                                "the user namespace that owns it"
                              : "that PID is taken in the parent namespace");
        count = 1;
    }
    if (count == 1) {
        printf("[init] clone3(set_tid = {%ld}, set_tid_size = 1)\n", (long)inner_pid);
        pid = clone3_pids(0, tids, 1);
    }
    if (pid == -1)
        set_tid_failed();
    if (pid == 0)
        chosen_child(said, hold);
    char byte;
    if (read(said[0], &byte, 1) != 1) /* its line is out */
        die("read from child");
    return pid;
}

/* Writes 99 to this namespace's ns_last_pid; the next fork() gets 100. */
static void choose_with_ns_last_pid(void)
{
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd == -1 || write(fd, "99", 2) != 2) {
        printf("[init] writing 99 to ns_last_pid -> %s (needs CAP_CHECKPOINT_RESTORE or "
               "CAP_SYS_ADMIN over this namespace)\n", strerror(errno));
        if (fd != -1)
            close(fd);
        return;
    }
    close(fd);
    pid_t child = clone3_pids(0, NULL, 0); /* a plain fork() */
    if (child == -1)
        die("fork");
    if (child == 0)
        _exit(0);
    if (waitpid(child, NULL, 0) == -1)
        die("waitpid");
    printf("[init] wrote 99 to ns_last_pid; fork() -> PID %ld; ns_last_pid is now %ld\n",
           (long)child, read_ns_last_pid());
}

static void init_main(void)
{
    signal(SIGINT, SIG_DFL); /* the program's handler is not ours */
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
        die("sigprocmask");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program */
        die("prctl(PR_SET_PDEATHSIG)");
    printf("[init] getpid() = %ld; ns_last_pid = %ld\n", (long)getpid(), read_ns_last_pid());
    int said[2], hold[2];
    if (pipe2(said, O_CLOEXEC) == -1 || pipe2(hold, O_CLOEXEC) == -1)
        die("pipe2");
    pid_t chosen = create_chosen_child(said, hold);
    long last = read_ns_last_pid();
    printf("[init] ns_last_pid = %ld after it%s\n", last,
           last == 1 ? " (a chosen PID does not move the counter)" : "");
    pid_t again_tid[1] = {inner_pid};
    pid_t again = clone3_pids(0, again_tid, 1);
    if (again == 0)
        _exit(0);
    printf("[init] clone3(set_tid = {%ld}) again while %ld lives -> %s\n", (long)inner_pid,
           (long)inner_pid, again == -1 && errno == EEXIST ? "EEXIST (File exists)"
                            : again == -1                 ? strerror(errno)
                                                          : "succeeded");
    if (again > 0)
        waitpid(again, NULL, 0);
    close(hold[1]); /* lets the chosen child end */
    if (waitpid(chosen, NULL, 0) == -1)
        die("waitpid");
    choose_with_ns_last_pid();
    fflush(NULL);
    _exit(0);
}

/* --- the program, in the parent namespace ------------------------------- */

/* Ctrl-C or SIGTERM: init has no handler and would ignore them; SIGKILL
 * from here ends it and its namespace. */
static void on_terminate(int sig)
{
    if (init_pid > 0)
        kill(init_pid, SIGKILL);
    while (wait(NULL) > 0)
        ;
    _exit(128 + sig);
}

static long read_pid_max(void)
{
    FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
    long pid_max = 32768;
    if (f != NULL) {
        if (fscanf(f, "%ld", &pid_max) != 1)
            pid_max = 32768;
        fclose(f);
    }
    return pid_max;
}

static void parse_args(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [INNER_PID]\n"
               "Creates a PID namespace whose init creates a child with PID INNER_PID\n"
               "(default 42) inside and a chosen free PID here, with clone3() and\n"
               "set_tid; then shows /proc/sys/kernel/ns_last_pid at work.\n"
               "Needs Linux 5.5 and CAP_SYS_ADMIN (root, or: unshare -r %s).\n",
               prog, prog);
        exit(EXIT_SUCCESS);
    }
    if (argc > 2) {
        fprintf(stderr, "%s: too many arguments (try --help)\n", prog);
        exit(2);
    }
    if (argc == 2 && argv[1][0] == '-' && (argv[1][1] < '0' || argv[1][1] > '9')) {
        fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, argv[1]);
        exit(2);
    }
    if (argc == 1)
        return;
    long pid_max = read_pid_max();
    char *end;
    errno = 0;
    long value = strtol(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || value < 2 || value >= pid_max) {
        fprintf(stderr, "%s: INNER_PID must be a number from 2 to %ld (1 is init's), not '%s'\n",
                prog, pid_max - 1, argv[1]);
        exit(2);
    }
    inner_pid = (pid_t)value;
}

/* A PID no process uses here now, well above the last one handed out. The
 * kernel has the last word: EEXIST if it got taken meanwhile. */
static pid_t pick_free_pid(void)
{
    long pid_max = read_pid_max(), last = read_ns_last_pid();
    long candidate = (last > 0 ? last : 1000) + 1000;
    for (int tries = 0; tries < 1000; tries++, candidate++) {
        if (candidate >= pid_max)
            candidate = 1000;
        if (kill((pid_t)candidate, 0) == -1 && errno == ESRCH)
            return (pid_t)candidate;
    }
    return 0;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    outer_pid = pick_free_pid();
    printf("here: ns_last_pid = %ld; PID %ld is free here\n", read_ns_last_pid(),
           (long)outer_pid);
    struct sigaction sa = {.sa_handler = on_terminate};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1)
        die("sigaction");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* No Ctrl-C between clone3() and remembering init's PID. */
    if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
        die("sigprocmask");
    pid_t init = clone3_pids(CLONE_NEWPID, NULL, 0);
    if (init == -1 && errno == ENOSYS)
        skip("clone3() needs Linux 5.3");
    if (init == -1 && errno == EPERM)
        skip("needs CAP_SYS_ADMIN to create a PID namespace (run as root, or: unshare -r)");
    if (init == -1)
        die("clone3(CLONE_NEWPID)");
    if (init == 0)
        init_main();
    init_pid = init;
    if (sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
        die("sigprocmask");
    int status;
    if (waitpid(init, &status, 0) == -1)
        die("waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
