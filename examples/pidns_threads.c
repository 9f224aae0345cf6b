/* SPDX-License-Identifier: MIT-0 */
/* pidns_threads.c: threads and PID namespaces, what the kernel refuses.
 *
 * A thread belongs to its process, so it lives in the process's PID
 * namespace: the kernel never lets a clone() put a new thread anywhere else.
 * copy_process() (kernel/fork.c) answers EINVAL to CLONE_THREAD together with
 * CLONE_NEWPID, and to CLONE_THREAD from a task whose children go to another
 * namespace than its own (task_active_pid_ns() != pid_ns_for_children), which
 * is the state unshare(CLONE_NEWPID) and setns() leave behind: pthread_create()
 * fails then, and the first fork() makes the namespace's init. Inside, a
 * thread of the init has NStgid ... 1 (its process) and NSpid ... 2 (itself).
 * An init may not use CLONE_PARENT either (EINVAL since Linux 2.6.32): its
 * sibling would be outside the namespace, with nobody to reap it.
 *
 * Build:  cc -o pidns_threads pidns_threads.c       (-pthread before glibc 2.34)
 * Run:    sudo ./pidns_threads [--stay]   (root, or root in a user namespace)
 *         sudo ./pidns_threads --setns PID
 * Prints:
 *   clone(CLONE_NEWPID | CLONE_THREAD): EINVAL (Invalid argument)
 *   unshare(CLONE_NEWPID): done, this process stays where it was
 *   pthread_create() after unshare(): EINVAL (Invalid argument)
 *   fork(): the child is PID 4242 here
 *   [init  ] getpid() = 1, pthread_create(): done
 *   [thread] NStgid: 4242 1
 *   [thread] NSpid:  4243 2
 *   [init  ] clone(CLONE_PARENT): EINVAL (Invalid argument)
 *
 * --stay keeps the init and its thread until Ctrl-C (or SIGTERM, SIGHUP,
 * SIGQUIT), which kill the init, and its namespace, with SIGKILL. --setns PID
 * joins the PID namespace of process PID with setns() instead of unshare().
 * Exit status 0, or 1 with one line "pidns_threads: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[64 * 1024]; /* for the clone() attempts, which never run */
static pid_t childPid = -1;   /* stays -1 in the child's copy */
static bool stay;             /* --stay: the init and its thread stay */
static sem_t printed;         /* the thread has printed its lines */
static int go[2];             /* pipe: the child starts when the parent has printed */

/* The errno names this program meets, for lines a reader can search for. */
static const char *errnoName(int e)
{
    switch (e) {
    case EINVAL:
        return "EINVAL";
    case EPERM:
        return "EPERM";
    case ENOMEM:
        return "ENOMEM";
    case EAGAIN:
        return "EAGAIN";
    default:
        return "another errno";
    }
}

static int neverRuns(void *arg)
{
    (void)arg;
    return 0;
}

/* Prints what clone(flags) did; a child it made unexpectedly is reaped. */
static void tryClone(const char *who, const char *what, int flags)
{
    pid_t pid = clone(neverRuns, stack + sizeof stack, flags, NULL);
    if (pid == -1)
        printf("%s%s: %s (%s)\n", who, what, errnoName(errno), strerror(errno));
    else {
        printf("%s%s: done, PID %ld (this kernel allows it)\n", who, what, (long)pid);
        if (!(flags & (CLONE_THREAD | CLONE_PARENT)))
            waitpid(pid, NULL, __WALL);
    }
}

/* The thread: its own two status lines, read through /proc/thread-self;
 * with --stay it stays (pause()) for /proc to show it. */
static void *threadMain(void *arg)
{
    char line[256];
    FILE *f = fopen("/proc/thread-self/status", "r");

    (void)arg;
    if (f == NULL)
        err(EXIT_FAILURE, "fopen /proc/thread-self/status");
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "NStgid:", 7) == 0 || strncmp(line, "NSpid:", 6) == 0)
            printf("[thread] %s", line);
    fclose(f);
    sem_post(&printed);
    while (stay)
        pause();
    return NULL;
}

/* The first child after unshare()/setns(): PID 1 (or a member) of the
 * namespace, where threads work again. Starts when go[0] reads a byte. */
static int childMain(void)
{
    const char *who = getpid() == 1 ? "[init  ] " : "[child ] ";
    pthread_t thread;
    char byte;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* our parent gone: we go too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    if (read(go[0], &byte, 1) != 1) /* the parent has printed its line */
        _exit(EXIT_FAILURE);
    // tag::init[]
    printf("%sgetpid() = %ld, now pthread_create()\n", who, (long)getpid());
    if ((errno = pthread_create(&thread, NULL, threadMain, NULL)) != 0)
        err(EXIT_FAILURE, "pthread_create in the child");
    while (sem_wait(&printed) == -1) /* EINTR: wait again */
        ;
    // end::init[]
    if (!stay && (errno = pthread_join(thread, NULL)) != 0)
        err(EXIT_FAILURE, "pthread_join");
    // tag::parent[]
    if (getpid() == 1)
        tryClone(who, "clone(CLONE_PARENT)", CLONE_PARENT | SIGCHLD);
    // end::parent[]
    if (stay) {
        printf("%sthe init and its thread stay until Ctrl-C\n", who);
        for (;;)
            pause();
    }
    return EXIT_SUCCESS;
}

/* Ctrl-C and friends: the init would ignore them, so kill it (and its
 * namespace) with the one signal an ancestor can always send. */
static void stopHandler(int sig)
{
    if (childPid > 0) {
        kill(childPid, SIGKILL);
        waitpid(childPid, NULL, 0);
    }
    _exit(128 + sig);
}

/* Our children's namespace: a new one, or the one nsFd (of --setns) names. */
static void switchChildrenNamespace(const char *target, int nsFd)
{
    if (target == NULL) {
        // tag::unshare[]
        if (unshare(CLONE_NEWPID) == -1) /* EPERM: needs CAP_SYS_ADMIN */
            err(EXIT_FAILURE, "unshare(CLONE_NEWPID)");
        printf("unshare(CLONE_NEWPID): done, this process stays where it was\n");
        // end::unshare[]
        return;
    }
    if (setns(nsFd, CLONE_NEWPID) == -1)
        err(EXIT_FAILURE, "setns(/proc/%s/ns/pid)", target);
    close(nsFd);
    printf("setns(/proc/%s/ns/pid): done, this process stays where it was\n", target);
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "Usage: %s [--stay | --setns PID]\n"
            "Show what the kernel refuses to threads around PID namespaces: CLONE_THREAD\n"
            "with CLONE_NEWPID, pthread_create() after unshare(CLONE_NEWPID) or setns(),\n"
            "CLONE_PARENT from an init; and a thread's NStgid and NSpid inside.\n"
            "  --stay       keep the init and a thread running until Ctrl-C\n"
            "  --setns PID  join the PID namespace of PID instead of making one\n",
            prog);
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    const char *target = NULL;
    char path[64];
    int nsFd = -1;
    struct sigaction sa;
    pthread_t thread;
    int e, status;

    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout, argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1 && strcmp(argv[1], "--stay") == 0) {
        if (argc > 2)
            errx(EXIT_FAILURE,
                 "--stay takes nothing after it, not '%s' (try 'pidns_threads --help')", argv[2]);
        stay = true;
    } else if (argc > 1 && strcmp(argv[1], "--setns") == 0) {
        if (argc != 3)
            errx(EXIT_FAILURE, "--setns wants one PID after it (try 'pidns_threads --help')");
        target = argv[2];
        if (strspn(target, "0123456789") != strlen(target) || *target == '\0' || *target == '0')
            errx(EXIT_FAILURE, "--setns wants a PID, not '%s' (try 'pidns_threads --help')",
                 target);
    } else if (argc > 1) {
        errx(EXIT_FAILURE, "unknown argument '%s' (try 'pidns_threads --help')", argv[1]);
    }
    snprintf(path, sizeof path, "/proc/%s/ns/pid", target ? target : "self");
    if (target != NULL && (nsFd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        err(EXIT_FAILURE, "open %s", path);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stopHandler;
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        if (sigaction(stopSignals[i], &sa, NULL) == -1)
            err(EXIT_FAILURE, "sigaction");

    if (sem_init(&printed, 0, 0) == -1)
        err(EXIT_FAILURE, "sem_init");
    if (pipe2(go, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");

    // tag::thread[]
    tryClone("", "clone(CLONE_NEWPID | CLONE_THREAD)",
             CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_FS | CLONE_FILES);
    // end::thread[]
    switchChildrenNamespace(target, nsFd);
    // tag::pthread[]
    e = pthread_create(&thread, NULL, threadMain, NULL);
    if (e == 0) {
        pthread_join(thread, NULL);
        errx(EXIT_FAILURE, "pthread_create() worked: this kernel allows it");
    }
    printf("pthread_create() after %s: %s (%s)\n", target ? "setns()" : "unshare()", errnoName(e),
           strerror(e));
    // end::pthread[]

    // tag::fork[]
    childPid = fork(); /* no PID was spent on the failed thread: this is PID 1 */
    if (childPid == -1)
        err(EXIT_FAILURE, "fork");
    if (childPid == 0)
        _exit(childMain());
    printf("fork(): the child is PID %ld here\n", (long)childPid);
    // end::fork[]
    close(go[0]);
    if (write(go[1], "g", 1) != 1)
        err(EXIT_FAILURE, "write to the child");

    if (waitpid(childPid, &status, 0) == -1)
        err(EXIT_FAILURE, "waitpid");
    childPid = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
