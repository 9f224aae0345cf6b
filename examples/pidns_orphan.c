/* SPDX-License-Identifier: MIT-0 */
/* pidns_orphan.c: who adopts a process whose parent dies inside a PID
 * namespace: the namespace's own init, or a child subreaper.
 *
 * When a process dies, the kernel gives its children a new parent, found in
 * the dying parent's PID namespace: a live thread of the dead parent's
 * process first, then the nearest living ancestor that made itself a child
 * subreaper (prctl(PR_SET_CHILD_SUBREAPER, 1), Linux 3.4), and otherwise that
 * namespace's init (PID 1 there), which must collect their exit status with
 * wait(). So a namespace looks after the orphans of its own processes. But a
 * process put into a namespace by setns()+fork (nsenter, docker exec) has its
 * parent outside: when that parent dies, it is adopted outside, by the outer
 * init or subreaper, not by the namespace's init.
 *
 * Processes (PIDs inside the new namespace):
 *   init 1 -- parent 2 -- orphan 3          (scenario 1: no subreaper)
 *   init 1 -- subreaper 4 -- parent 5 -- orphan 6   (scenario 2)
 * Each orphan asks for a signal when its parent dies (PR_SET_PDEATHSIG); by
 * the time the signal arrives the kernel has already re-parented it, so
 * getppid() then names the new parent.
 *
 * Build: cc -o pidns_orphan pidns_orphan.c
 * Run:   sudo ./pidns_orphan            (or: unshare -r ./pidns_orphan)
 * Prints, e.g.:
 *   [no subreaper] orphan PID 3: parent PID 2 died; new parent PID 1
 *                  -> re-parented to this namespace's init
 *   [subreaper]    orphan PID 6: parent PID 5 died; new parent PID 4
 *                  -> re-parented to the subreaper, not to init
 * Exit status 0, or 1 with one line "pidns_orphan: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024]; /* init's; it runs on its own copy */

static pid_t forkOrExit(void)
{
    pid_t pid = fork();
    if (pid == -1)
        err(EXIT_FAILURE, "fork");
    return pid;
}

/* The "PPid:" of /proc/self/status: the parent as the namespace of the
 * procfs mounted at /proc sees it (normally the parent namespace). */
static long procStatusPpid(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        err(EXIT_FAILURE, "fopen /proc/self/status");
    char line[256];
    long ppid = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "PPid: %ld", &ppid) == 1)
            break;
    fclose(f);
    return ppid;
}

/* Runs in the grandchild: tells its parent it is ready, waits for the
 * parent's death, then reports who adopted it. */
static void orphanMain(const char *label, int readyFd, pid_t subreaper)
{
    pid_t parent = getppid();
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &usr1, NULL) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    // tag::pdeathsig[]
    /* Signal me when my parent dies; the re-parenting is done by then. */
    if (prctl(PR_SET_PDEATHSIG, SIGUSR1) == -1)
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    if (write(readyFd, "r", 1) != 1)
        err(EXIT_FAILURE, "write ready");
    close(readyFd);
    if (sigwaitinfo(&usr1, NULL) == -1)
        err(EXIT_FAILURE, "sigwaitinfo");
    pid_t adopter = getppid();
    // end::pdeathsig[]
    printf("%-14s orphan PID %ld: parent PID %ld died; new parent PID %ld\n", label, (long)getpid(),
           (long)parent, (long)adopter);
    if (adopter == 1)
        printf("%-14s -> re-parented to this namespace's init\n", "");
    else if (adopter == subreaper)
        printf("%-14s -> re-parented to the subreaper, not to init\n", "");
    else
        printf("%-14s -> re-parented to PID %ld\n", "", (long)adopter);
    printf("%-14s    /proc/self/status, the parent namespace's view: PPid: %ld\n", "",
           procStatusPpid());
    _exit(0);
}

/* Runs in the process that will be the adopter (init, or the subreaper):
 * forks a parent, which forks the orphan and dies once it is ready. Then
 * reaps both and says which it reaped. */
static void makeOrphan(const char *label, pid_t subreaper)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    pid_t parent = forkOrExit();
    if (parent == 0) {
        pid_t orphan = forkOrExit();
        if (orphan == 0) {
            close(ready[0]);
            orphanMain(label, ready[1], subreaper);
        }
        close(ready[1]);
        char byte;
        if (read(ready[0], &byte, 1) != 1)
            err(EXIT_FAILURE, "read ready");
        printf("%-14s parent PID %ld of orphan PID %ld exits now\n", label, (long)getpid(),
               (long)orphan);
        _exit(0);
    }
    close(ready[0]);
    close(ready[1]);
    pid_t reaped[2];
    for (int i = 0; i < 2; i++)
        if ((reaped[i] = wait(NULL)) == -1)
            err(EXIT_FAILURE, "wait");
    printf("%-14s PID %ld reaped PID %ld (its child) and PID %ld (the adopted orphan)\n", label,
           (long)getpid(), (long)(reaped[0] == parent ? reaped[0] : reaped[1]),
           (long)(reaped[0] == parent ? reaped[1] : reaped[0]));
}

static int initMain(void *arg)
{
    int *go = arg; /* the parent's pipe: EOF once it has printed its line */
    char c;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* die with the program, on Ctrl-C too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    close(go[1]);
    if (read(go[0], &c, 1) == -1) /* so our lines come after the parent's */
        err(EXIT_FAILURE, "read go pipe");
    close(go[0]);
    makeOrphan("[no subreaper]", 0);

    pid_t subreaper = forkOrExit();
    if (subreaper == 0) {
        // tag::subreaper[]
        /* From now on, orphans below this process come to it, not to init. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
            err(EXIT_FAILURE, "prctl(PR_SET_CHILD_SUBREAPER)");
        // end::subreaper[]
        printf("%-14s PID %ld made itself a child subreaper\n", "[subreaper]", (long)getpid());
        makeOrphan("[subreaper]", getpid());
        _exit(0);
    }
    int status;
    if (waitpid(subreaper, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid subreaper");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    int status, go[2];

    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nShow that an orphan in a PID namespace is adopted by the namespace's\n"
               "init, or by a child subreaper when there is one.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc != 1)
        errx(EXIT_FAILURE, "unexpected argument '%s'; it takes none (try --help)", argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, even into a pipe */
    /* Ctrl-C needs no handler: init dies with us (PR_SET_PDEATHSIG), and
     * with it, everything in its namespace. */
    if (pipe(go) == -1)
        err(EXIT_FAILURE, "pipe");
    pid_t init = clone(initMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, go);
    if (init == -1) /* EPERM: needs CAP_SYS_ADMIN, as root or with unshare -r */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    printf("init of the new namespace: PID 1 inside, PID %ld here\n", (long)init);
    close(go[1]); /* init may start now */
    close(go[0]);
    if (waitpid(init, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid init");
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE;
}
