/* pidns_init_sleep.c: one new PID namespace, seen from both sides.
 *
 * What it shows
 *   clone(CLONE_NEWPID) makes a child that is the first process, PID 1, of a
 *   new PID namespace. The parent learns the child's PID in the parent's own
 *   namespace (a number like 27656); the child, asking getpid(), gets 1, and
 *   getppid() gives 0 because its parent lives in a namespace it cannot see.
 *   Given a MOUNT_POINT, the child mounts a procfs there: a procfs lists the
 *   processes of the namespace of the process that mounted it, so
 *   MOUNT_POINT/1 is the child itself. The child then runs `sleep 600` as the
 *   namespace's init, so you can look at it from another shell.
 *
 * Build:  cc -Wall -o pidns_init_sleep pidns_init_sleep.c
 * Run:    sudo ./pidns_init_sleep /proc2     (root, or root of a user namespace,
 *                                             e.g. inside the pidns-tutor lab)
 * Prints:
 *   PID returned by clone(): 27656
 *   childFunc(): PID  = 1
 *   childFunc(): PPID = 0
 *   Mounting procfs at /proc2
 * then waits. From another shell (same mount namespace) try
 *   ls -d /proc2/[1-9]*               -> /proc2/1
 *   grep -E '^(Name|PP?id)' /proc2/1/status   -> sleep, 1, 0
 *   readlink /proc/$(pidof pidns_init_sleep)/ns/pid /proc/27656/ns/pid
 *
 * How it ends
 *   When the child ends (e.g. `kill -9 27656`), or when this program gets
 *   SIGINT (Ctrl-C), SIGTERM, SIGHUP or SIGQUIT, it unmounts MOUNT_POINT and
 *   removes the directory if it created it. The exit status is the child's
 *   (128+N if a signal N ended it), or 128+N if signal N interrupted us.
 *   Only SIGKILL to this program leaves the mount behind (the child still
 *   dies, through PR_SET_PDEATHSIG); then run `umount MOUNT_POINT`.
 *
 * Differences from the article's program: all output is line-buffered so it
 * survives a pipe or a file; the lines always come out in the order above;
 * Ctrl-C ends the namespace instead of leaving its init running; the mount
 * is cleaned up; bad arguments are refused before anything is created.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)

static const char *progName = "pidns_init_sleep";

/* What the parent must undo; cleanUp() reads it on every way out. We do not
 * need the child to tell us what it did: a directory that appeared is ours,
 * and a mount point whose device changed has our procfs on top. */
static pid_t childPid = -1;
static const char *mountPoint;
static bool dirExisted;
static dev_t deviceBefore; /* st_dev of MOUNT_POINT (or its parent) before */

static bool cleanUp(void);

enum failMode { WARN, EXIT_PARENT, EXIT_CHILD };

/* Every message goes through here: "pidns_init_sleep: what: why", one line.
 * A clone child leaves with _exit(): exit() would run the parent's clean-up
 * and flush stdio buffers a second time. */
static void failWith(enum failMode mode, int errnum, const char *fmt, ...)
{
    va_list ap;
    char what[512];

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (errnum != 0)
        fprintf(stderr, "%s: %s: %s\n", progName, what, strerror(errnum));
    else
        fprintf(stderr, "%s: %s\n", progName, what);
    if (mode == EXIT_CHILD)
        _exit(EXIT_FAILURE);
    if (mode == EXIT_PARENT) {
        cleanUp();
        exit(EXIT_FAILURE);
    }
}
#define errMsg(...) failWith(WARN, errno, __VA_ARGS__)
#define errExit(...) failWith(EXIT_PARENT, errno, __VA_ARGS__)
#define errExitChild(...) failWith(EXIT_CHILD, errno, __VA_ARGS__)
#define usageErr(...) failWith(EXIT_PARENT, 0, __VA_ARGS__)

static void usage(void)
{
    printf("Usage: %s [MOUNT_POINT]\n"
           "Create a child in a new PID namespace and show its PIDs; with MOUNT_POINT\n"
           "(e.g. /proc2), mount a procfs for the new namespace there. The child then\n"
           "sleeps as the namespace's init; Ctrl-C ends it and removes the mount.\n"
           "Needs root, or root in a user namespace.\n",
           progName);
    exit(EXIT_SUCCESS);
}

/* Refuses, before anything is created, a mount point we could not make or
 * that would hide the system's own /proc from every process sharing our mount
 * namespace (the reason the article uses /proc2). */
static void checkMountPoint(const char *path)
{
    char copy[PATH_MAX], real[PATH_MAX];
    struct stat sb;

    if (strlen(path) == 0 || strlen(path) >= sizeof copy)
        usageErr("mount point '%s' is empty or too long", path);
    if (stat(path, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            usageErr("mount point %s exists and is not a directory", path);
        dirExisted = true;
        deviceBefore = sb.st_dev;
    } else if (errno != ENOENT) {
        errExit("stat %s", path);
    } else {
        strcpy(copy, path);
        for (size_t len = strlen(copy); len > 1 && copy[len - 1] == '/'; len--)
            copy[len - 1] = '\0'; /* "/proc2/" names /proc2, whose parent is / */
        char *slash = strrchr(copy, '/');
        const char *parent = slash == NULL ? "." : slash == copy ? "/" : (*slash = '\0', copy);
        if (stat(parent, &sb) == -1 || !S_ISDIR(sb.st_mode))
            usageErr("cannot create %s: directory %s does not exist", path, parent);
        if (faccessat(AT_FDCWD, parent, W_OK, AT_EACCESS) == -1)
            usageErr("cannot create %s: directory %s is not writable (%s)", path, parent,
                     strerror(errno));
        deviceBefore = sb.st_dev; /* a new directory lives on its parent's filesystem */
    }
    if (dirExisted && realpath(path, real) != NULL &&
        (strcmp(real, "/") == 0 || strcmp(real, "/proc") == 0 || strncmp(real, "/proc/", 6) == 0))
        usageErr("refusing to mount over %s: it would hide %s from every process sharing "
                 "this mount namespace (use e.g. /proc2, or pidns_proc_mount)",
                 real, real);
}

struct childArgs {
    const char *mountPoint; /* NULL: mount nothing */
    int goFd;               /* read end: one byte once the parent has printed */
    int goWriteFd;          /* the parent's end, which the child must close */
    sigset_t originalMask;  /* to restore before exec */
};

/* Runs in the child, the first process (PID 1) of the new PID namespace. */
static int childFunc(void *arg)
{
    struct childArgs *args = arg;
    char go;

    /* If our parent dies, the kernel sends us SIGKILL: as a namespace's init
     * we would otherwise ignore its friendlier signals and sleep on, orphaned. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        errExitChild("prctl(PR_SET_PDEATHSIG)");
    /* Wait for the parent's line, so the output keeps the article's order.
     * No byte means the parent died before prctl() took effect. */
    close(args->goWriteFd);
    if (read(args->goFd, &go, 1) != 1)
        _exit(EXIT_FAILURE);
    close(args->goFd);

    // tag::ids[]
    /* getppid() is 0: our parent is in the parent namespace, invisible here. */
    printf("childFunc(): PID  = %ld\n", (long)getpid());
    printf("childFunc(): PPID = %ld\n", (long)getppid());
    // end::ids[]

    if (args->mountPoint != NULL) {
        // tag::mount[]
        if (mkdir(args->mountPoint, 0555) == -1 && errno != EEXIST)
            errExitChild("mkdir %s", args->mountPoint);
        /* A procfs shows the PID namespace of the process that mounts it:
         * we mount, so it shows our new namespace, with us as PID 1. The
         * mount itself lands in the mount namespace we share with the parent. */
        if (mount("proc", args->mountPoint, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
            errExitChild("mount procfs at %s", args->mountPoint);
        printf("Mounting procfs at %s\n", args->mountPoint);
        // end::mount[]
    }

    /* The parent blocked some signals around clone(); a mask survives exec. */
    if (sigprocmask(SIG_SETMASK, &args->originalMask, NULL) == -1)
        errExitChild("sigprocmask");
    fflush(stdout); /* exec discards whatever stdio still holds */
    // tag::exec[]
    execlp("sleep", "sleep", "600", (char *)NULL);
    // end::exec[]
    errExitChild("execlp sleep");
    return EXIT_FAILURE;
}

/* Undoes what the child left in our shared mount namespace. The child must
 * be gone: a mounted procfs outlives the processes it lists. */
static bool cleanUp(void)
{
    bool ok = true;
    struct stat sb;

    if (childPid > 0) {
        kill(childPid, SIGKILL);
        while (waitpid(childPid, NULL, 0) == -1 && errno == EINTR)
            ;
        childPid = -1;
    }
    if (mountPoint == NULL)
        return ok;
    if (stat(mountPoint, &sb) == 0 && sb.st_dev != deviceBefore && umount2(mountPoint, 0) == -1) {
        errMsg("umount %s", mountPoint);
        ok = false;
    }
    if (!dirExisted && rmdir(mountPoint) == -1 && errno != ENOENT) {
        errMsg("rmdir %s", mountPoint);
        ok = false;
    }
    mountPoint = NULL;
    return ok;
}

/* Waits until the child ends. SIGINT, SIGTERM, SIGHUP and SIGQUIT are
 * blocked and taken here with sigwaitinfo(), so no handler can race with
 * clone(). Returns the exit status this program should report. */
static int waitForChild(const sigset_t *watched)
{
    int interruptedBy = 0, status = 0;

    for (;;) {
        int sig = sigwaitinfo(watched, NULL);
        if (sig == -1) {
            if (errno == EINTR)
                continue;
            errExit("sigwaitinfo");
        }
        if (sig != SIGCHLD) {
            /* Passing the signal on would do nothing: an init ignores every
             * signal it has no handler for. SIGKILL from an ancestor
             * namespace always works, and when a namespace's init dies the
             * kernel kills every other process in that namespace. */
            interruptedBy = sig;
            if (kill(childPid, SIGKILL) == -1 && errno != ESRCH)
                errExit("kill %ld", (long)childPid);
            continue;
        }
        pid_t pid = waitpid(childPid, &status, WNOHANG);
        if (pid == -1)
            errExit("waitpid");
        if (pid == childPid)
            break;
    }
    childPid = -1;
    if (interruptedBy != 0)
        return 128 + interruptedBy;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void parseArgs(int argc, char *argv[])
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int opt;

    while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (opt == 'h')
            usage();
        usageErr("unknown option '%s' (try '%s --help')", argv[optind - 1], progName);
    }
    if (argc - optind > 1)
        usageErr("too many arguments: give at most one MOUNT_POINT (try '%s --help')", progName);
    if (optind < argc) {
        checkMountPoint(argv[optind]);
        mountPoint = argv[optind]; /* only now: cleanUp() may remove what it names */
    }
}

int main(int argc, char *argv[])
{
    struct childArgs args;
    sigset_t watched;
    int goPipe[2];

    /* Line-buffered even into a pipe or a file, so no line waits in a buffer
     * that clone's child or exec would throw away. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    opterr = 0;
    parseArgs(argc, argv);

    sigemptyset(&watched);
    sigaddset(&watched, SIGCHLD);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGHUP);
    sigaddset(&watched, SIGQUIT);
    if (sigprocmask(SIG_BLOCK, &watched, &args.originalMask) == -1)
        errExit("sigprocmask");
    if (pipe2(goPipe, O_CLOEXEC) == -1)
        errExit("pipe2");
    args.mountPoint = mountPoint;
    args.goFd = goPipe[0];
    args.goWriteFd = goPipe[1];

    /* The child gets a copy of our memory (no CLONE_VM), this stack included,
     * so we can unmap our copy as soon as clone() returns. */
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        errExit("mmap child stack");
    fflush(stdout);
    // tag::clone[]
    childPid = clone(childFunc, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, &args);
    int cloneErrno = errno;
    munmap(stack, STACK_SIZE);
    close(goPipe[0]);
    if (childPid == -1) {
        errno = cloneErrno;
        errExit("clone(CLONE_NEWPID)%s", errno == EPERM ? " (needs root, or root in a user "
                                                          "namespace: try unshare -Ur)"
                                                        : "");
    }

    printf("PID returned by clone(): %ld\n", (long)childPid);
    // end::clone[]
    if (write(goPipe[1], "g", 1) != 1)
        errExit("write to child");
    close(goPipe[1]);

    int status = waitForChild(&watched);
    if (!cleanUp() && status == 0)
        status = EXIT_FAILURE;
    return status;
}
