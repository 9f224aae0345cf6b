/* SPDX-License-Identifier: MIT-0 */
/* pidns_init_sleep.c: one new PID namespace, seen from both sides.
 *
 * clone(CLONE_NEWPID) makes a child that is the first process, PID 1, of a
 * new PID namespace. The parent learns the child's PID in the parent's own
 * namespace (a number like 27656); the child, asking getpid(), gets 1, and
 * getppid() gives 0 because its parent lives in a namespace it cannot see.
 * Given a MOUNT_POINT, the child mounts a procfs there: a procfs lists the
 * processes of the namespace of the process that mounted it, so
 * MOUNT_POINT/1 is the child itself. The child then runs `sleep 600` as the
 * namespace's init, so you can look at it from another shell.
 *
 * Build:  cc -o pidns_init_sleep pidns_init_sleep.c
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
 * When the child ends (e.g. `kill -9 27656`), or on SIGINT (Ctrl-C),
 * SIGTERM, SIGHUP or SIGQUIT, it unmounts MOUNT_POINT and removes the
 * directory if it made it. The exit status is the child's (128+N if signal N
 * ended it), or 128+N if signal N stopped us. Only SIGKILL to this program
 * leaves the mount behind (the child still dies, by PR_SET_PDEATHSIG).
 * Errors: one line, "pidns_init_sleep: what failed: why" (err(3)), status 1.
 *
 * Unlike the article's program, every line survives a pipe (stdout is
 * line-buffered), the lines keep the order above, Ctrl-C ends the namespace
 * instead of leaving its init running, and the mount is cleaned up.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024]; /* the child's; it runs on its own copy */
static sigset_t originalMask;  /* restored before exec */
static int goPipe[2];          /* one byte: the parent has printed its line */

/* What the parent undoes on every way out (at exit, too, but not in the
 * child, which inherits the atexit() handler). */
static pid_t childPid = -1;
static const char *mountPoint; /* NULL: mount nothing */
static bool createdDir, inChild;
static dev_t deviceBefore; /* MOUNT_POINT with another device has our procfs on top */

/* Runs in the child, the first process (PID 1) of the new PID namespace. */
static int childFunc(void *arg)
{
    char go;

    (void)arg;
    inChild = true;
    /* If our parent dies, the kernel sends us SIGKILL: as a namespace's init
     * we would otherwise ignore its friendlier signals and sleep on, orphaned. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    /* Wait for the parent's line, so the output keeps the article's order.
     * No byte means the parent died before prctl() took effect. */
    close(goPipe[1]);
    if (read(goPipe[0], &go, 1) != 1)
        _exit(EXIT_FAILURE);

    // tag::ids[]
    /* getppid() is 0: our parent is in the parent namespace, invisible here. */
    printf("childFunc(): PID  = %ld\n", (long)getpid());
    printf("childFunc(): PPID = %ld\n", (long)getppid());
    // end::ids[]

    if (mountPoint != NULL) {
        // tag::mount[]
        /* A procfs shows the PID namespace of the process that mounts it:
         * we mount, so it shows our new namespace, with us as PID 1. The
         * mount itself lands in the mount namespace we share with the parent. */
        if (mount("proc", mountPoint, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
            err(EXIT_FAILURE, "mount procfs at %s", mountPoint);
        printf("Mounting procfs at %s\n", mountPoint);
        // end::mount[]
    }

    if (sigprocmask(SIG_SETMASK, &originalMask, NULL) == -1) /* a mask survives exec */
        err(EXIT_FAILURE, "sigprocmask");
    // tag::exec[]
    execlp("sleep", "sleep", "600", (char *)NULL);
    // end::exec[]
    err(EXIT_FAILURE, "execlp sleep");
}

/* Makes MOUNT_POINT (or keeps the directory there), remembering what to
 * undo. Refuses /proc and what holds it: a procfs there would hide the
 * system's /proc from every process of our mount namespace. */
static void prepareMountPoint(const char *path)
{
    char real[PATH_MAX];
    struct stat sb;

    if (mkdir(path, 0555) == 0)
        createdDir = true;
    else if (errno != EEXIST)
        err(EXIT_FAILURE, "mkdir %s", path);
    if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode))
        errx(EXIT_FAILURE, "mount point %s exists and is not a directory", path);
    deviceBefore = sb.st_dev;
    mountPoint = path; /* from here on, cleanUp() removes what we made */
    if (realpath(path, real) != NULL &&
        (strcmp(real, "/") == 0 || strcmp(real, "/proc") == 0 || strncmp(real, "/proc/", 6) == 0))
        errx(EXIT_FAILURE,
             "refusing to mount over %s: it would hide %s from every process sharing "
             "this mount namespace (use e.g. /proc2, or pidns_proc_mount)",
             real, real);
}

/* Undoes what the child left in our mount namespace, the child gone first:
 * a mounted procfs outlives the processes it lists. */
static void cleanUp(void)
{
    struct stat sb;

    if (inChild)
        return;
    if (childPid > 0) {
        kill(childPid, SIGKILL);
        waitpid(childPid, NULL, 0);
        childPid = -1;
    }
    if (mountPoint == NULL)
        return;
    if (stat(mountPoint, &sb) == 0 && sb.st_dev != deviceBefore && umount2(mountPoint, 0) == -1)
        warn("umount %s", mountPoint);
    if (createdDir && rmdir(mountPoint) == -1 && errno != ENOENT)
        warn("rmdir %s", mountPoint);
    mountPoint = NULL;
}

/* Waits for the child. The stop signals, blocked since before clone(), are
 * taken here with sigwaitinfo(), so no handler can race with clone().
 * Passing them on would do nothing: an init ignores every signal it has no
 * handler for. SIGKILL from an ancestor namespace (in cleanUp()) always
 * works, and when an init dies the kernel kills the rest of its namespace. */
static int waitForChild(const sigset_t *watched)
{
    int status;
    for (;;) {
        int sig = sigwaitinfo(watched, NULL); /* -1 only if interrupted: wait again */
        if (sig == SIGCHLD && waitpid(childPid, &status, WNOHANG) == childPid)
            break;
        if (sig > 0 && sig != SIGCHLD) {
            cleanUp();
            return 128 + sig;
        }
    }
    childPid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t watched;

    setvbuf(stdout, NULL, _IOLBF, 0); /* no line waits in a buffer exec discards */
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s [MOUNT_POINT]\n"
               "Create a child in a new PID namespace and show its PIDs; with MOUNT_POINT\n"
               "(e.g. /proc2), mount a procfs for the new namespace there. The child then\n"
               "sleeps as the namespace's init; Ctrl-C ends it and removes the mount.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1 && argv[1][0] == '-')
        errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_init_sleep --help')", argv[1]);
    if (argc > 2)
        errx(EXIT_FAILURE, "too many arguments: give at most one MOUNT_POINT "
                           "(try 'pidns_init_sleep --help')");

    sigemptyset(&watched);
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        sigaddset(&watched, stopSignals[i]);
    if (sigprocmask(SIG_BLOCK, &watched, &originalMask) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    if (pipe2(goPipe, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    atexit(cleanUp); /* a failure from here on undoes what we made */
    if (argc == 2)
        prepareMountPoint(argv[1]);

    // tag::clone[]
    childPid = clone(childFunc, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -Ur) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");

    printf("PID returned by clone(): %ld\n", (long)childPid);
    // end::clone[]
    if (write(goPipe[1], "g", 1) != 1)
        err(EXIT_FAILURE, "write to child");
    close(goPipe[1]);

    int status = waitForChild(&watched);
    cleanUp();
    return status;
}
