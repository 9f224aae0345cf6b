/* SPDX-License-Identifier: MIT-0 */
/* pidns_set_tid.c: choose the PIDs of a new process, one per PID namespace,
 * with clone3() and set_tid; and /proc/sys/kernel/ns_last_pid.
 *
 * Why choose PIDs: checkpoint/restore (CRIU) saves a container's processes
 * on one host and recreates them on another, and the programs inside
 * remember PIDs, so each must come back with the PID it had. The restored
 * container gets a new PID namespace, where nothing collides, and each
 * process is made with clone3() whose set_tid array names its PID in the new
 * namespace (set_tid[0]) and, optionally, in those above (set_tid[1], ...).
 * The kernel's rules (Linux 5.5): the caller needs CAP_CHECKPOINT_RESTORE
 * (Linux 5.9) or CAP_SYS_ADMIN in the user namespace owning each namespace
 * where it chooses a PID; in a namespace with no init yet the first PID must
 * be 1; a PID in use fails with EEXIST. The older way: writing N to
 * /proc/sys/kernel/ns_last_pid (same privilege) makes the next fork() in the
 * writer's namespace get N+1 if it is free.
 *
 * The program makes a PID namespace whose init creates a child with PID 42
 * there (or INNER_PID) and a chosen free PID here, tries the same PID again
 * (EEXIST), then writes 99 to the namespace's ns_last_pid and forks PID 100.
 * glibc has no clone3() wrapper: it is called through syscall(2), with
 * SYS_clone3 and struct clone_args from the system headers (Linux 5.5 or
 * later). As an ordinary user in a user namespace, choosing the PID here
 * fails with EPERM: the program says so and chooses only the inner PID.
 *
 * Build: cc -o pidns_set_tid pidns_set_tid.c
 * Run:   sudo ./pidns_set_tid [INNER_PID]       (or: unshare -r ./pidns_set_tid)
 * Prints, e.g.:
 *   [init] clone3(set_tid = {42, 22345}, set_tid_size = 2)
 *   [42]   getpid() = 42; NSpid: 22345 42
 *   [init] clone3(set_tid = {42}) again while 42 lives -> EEXIST (File exists)
 *   [init] wrote 99 to ns_last_pid; fork() -> PID 100; ns_last_pid is now 100
 * Exit status 0, or 1 with one line "pidns_set_tid: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h> /* struct clone_args, CLONE_NEWPID */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h> /* SYS_clone3 */
#include <sys/wait.h>
#include <unistd.h>

static pid_t innerPid = 42; /* the PID to choose inside */
static pid_t outerPid;      /* a free PID to choose here (0: none) */

/* clone3() like fork() (no new stack), with optional chosen PIDs. Returns
 * the child's PID in the parent, 0 in the child, -1 with errno. */
// tag::clone3[]
static pid_t clone3WithPids(uint64_t flags, const pid_t *setTid, size_t count)
{
    struct clone_args args = {
        .flags = flags,
        .exit_signal = SIGCHLD,
        .set_tid = (uint64_t)(uintptr_t)setTid,
        .set_tid_size = count,
    };
    fflush(NULL); /* nothing buffered may be written twice */
    return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}
// end::clone3[]

/* The value of a /proc/sys/kernel file, or -1. */
static long readSysctl(const char *path)
{
    long value = -1;
    FILE *f = fopen(path, "re");
    if (f != NULL && fscanf(f, "%ld", &value) != 1)
        value = -1;
    if (f != NULL)
        fclose(f);
    return value;
}

/* The child with chosen PIDs: shows its NSpid line, then lives until init
 * closes the hold pipe (so that its PID stays taken meanwhile). */
static void chosenChild(const int *said, const int *hold)
{
    char line[512] = "", byte;
    FILE *f = fopen("/proc/self/status", "re");
    while (f != NULL && fgets(line, sizeof line, f) != NULL && strncmp(line, "NSpid:", 6) != 0)
        ;
    for (char *p = line; *p != '\0'; p++)
        *p = *p == '\t' ? ' ' : *p == '\n' ? '\0' : *p;
    printf("[%ld]   getpid() = %ld; %s\n", (long)getpid(), (long)getpid(), line);
    close(hold[1]);
    if (write(said[1], "s", 1) != 1 || read(hold[0], &byte, 1) == -1)
        err(EXIT_FAILURE, "pipe to init");
    _exit(0);
}

/* Creates the child with PID innerPid inside and, when allowed and free,
 * outerPid in the parent namespace. */
static pid_t createChosenChild(const int *said, const int *hold)
{
    pid_t tids[2] = {innerPid, outerPid}; /* innermost namespace first */
    pid_t pid = -1;
    char byte;

    if (outerPid > 0) {
        printf("[init] clone3(set_tid = {%ld, %ld}, set_tid_size = 2)\n", (long)innerPid,
               (long)outerPid);
        pid = clone3WithPids(0, tids, 2);
        if (pid == -1 && errno != EPERM && errno != EEXIST)
            err(EXIT_FAILURE, "clone3(set_tid)");
        if (pid == -1)
            printf("[init]   -> %s\n",
                   errno == EPERM ? "EPERM: choosing a PID in the parent "
                                    "namespace needs privilege over the user namespace that owns it"
                                  : "EEXIST: that PID is taken in the parent namespace");
    }
    if (pid == -1) {
        printf("[init] clone3(set_tid = {%ld}, set_tid_size = 1)\n", (long)innerPid);
        pid = clone3WithPids(0, tids, 1);
    }
    if (pid == -1) /* E2BIG: set_tid needs Linux 5.5; EPERM: no privilege here */
        err(EXIT_FAILURE, "clone3(set_tid)");
    if (pid == 0)
        chosenChild(said, hold);
    close(said[1]);                   /* so that a child that died gives EOF */
    if (read(said[0], &byte, 1) != 1) /* its line is out */
        errx(EXIT_FAILURE, "the chosen child ended before it showed its PIDs");
    return pid;
}

/* Writes 99 to this namespace's ns_last_pid; the next fork() gets 100. */
static void chooseWithNsLastPid(void)
{
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd == -1 || write(fd, "99", 2) != 2) {
        printf("[init] writing 99 to ns_last_pid -> %s (needs CAP_CHECKPOINT_RESTORE or "
               "CAP_SYS_ADMIN over this namespace)\n",
               strerror(errno));
        if (fd != -1)
            close(fd);
        return;
    }
    close(fd);
    pid_t child = clone3WithPids(0, NULL, 0); /* a plain fork() */
    if (child == -1)
        err(EXIT_FAILURE, "fork");
    if (child == 0)
        _exit(0);
    if (waitpid(child, NULL, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    printf("[init] wrote 99 to ns_last_pid; fork() -> PID %ld; ns_last_pid is now %ld\n",
           (long)child, readSysctl("/proc/sys/kernel/ns_last_pid"));
}

/* PID 1 of the new namespace. */
static void initMain(void)
{
    int said[2], hold[2];

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program, Ctrl-C too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    printf("[init] getpid() = %ld; ns_last_pid = %ld\n", (long)getpid(),
           readSysctl("/proc/sys/kernel/ns_last_pid"));
    if (pipe2(said, O_CLOEXEC) == -1 || pipe2(hold, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    pid_t chosen = createChosenChild(said, hold);
    long last = readSysctl("/proc/sys/kernel/ns_last_pid");
    printf("[init] ns_last_pid = %ld after it%s\n", last,
           last == 1 ? " (a chosen PID does not move the counter)" : "");
    pid_t again = clone3WithPids(0, &innerPid, 1);
    if (again == 0)
        _exit(0);
    printf("[init] clone3(set_tid = {%ld}) again while %ld lives -> %s\n", (long)innerPid,
           (long)innerPid,
           again == -1 && errno == EEXIST ? "EEXIST (File exists)"
           : again == -1                  ? strerror(errno)
                                          : "succeeded");
    if (again > 0)
        waitpid(again, NULL, 0);
    close(hold[1]); /* lets the chosen child end */
    if (waitpid(chosen, NULL, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    chooseWithNsLastPid();
    _exit(0);
}

/* A PID no process uses here now, well above the last one handed out. The
 * kernel has the last word: EEXIST if it got taken meanwhile. */
static pid_t pickFreePid(long pidMax)
{
    long candidate = readSysctl("/proc/sys/kernel/ns_last_pid") + 1000;
    for (int tries = 0; tries < 1000; tries++, candidate++) {
        if (candidate >= pidMax || candidate < 1000)
            candidate = 1000;
        if (kill((pid_t)candidate, 0) == -1 && errno == ESRCH)
            return (pid_t)candidate;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long pidMax = readSysctl("/proc/sys/kernel/pid_max"), value;
    char *end;
    int status;

    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [INNER_PID]\nCreate a PID namespace whose init creates a child with "
               "PID INNER_PID\n(default 42) inside and a chosen free PID here, with clone3() "
               "and set_tid;\nthen show /proc/sys/kernel/ns_last_pid at work.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 2)
        errx(EXIT_FAILURE, "too many arguments (try --help)");
    if (argc == 2 && argv[1][0] == '-' && (argv[1][1] < '0' || argv[1][1] > '9'))
        errx(EXIT_FAILURE, "unknown option '%s' (try --help)", argv[1]);
    if (argc == 2) {
        errno = 0;
        value = strtol(argv[1], &end, 10);
        if (errno != 0 || end == argv[1] || *end != '\0' || value < 2 || value >= pidMax)
            errx(EXIT_FAILURE,
                 "INNER_PID must be a number from 2 to %ld (1 is init's), not "
                 "'%s'",
                 pidMax - 1, argv[1]);
        innerPid = (pid_t)value;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    outerPid = pickFreePid(pidMax);
    printf("here: ns_last_pid = %ld; PID %ld is free here\n",
           readSysctl("/proc/sys/kernel/ns_last_pid"), (long)outerPid);
    /* Ctrl-C needs no handler: init dies with us (PR_SET_PDEATHSIG), and
     * with it its namespace. */
    pid_t init = clone3WithPids(CLONE_NEWPID, NULL, 0);
    if (init == -1) /* ENOSYS: clone3() needs Linux 5.3; EPERM: root or unshare -r */
        err(EXIT_FAILURE, "clone3(CLONE_NEWPID)");
    if (init == 0)
        initMain();
    if (waitpid(init, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
