/* SPDX-License-Identifier: MIT-0 */
/* pidns_proc_mount.c: giving a new PID namespace its own /proc, safely.
 *
 * ps reads /proc, so a PID namespace looks right from inside only with a
 * procfs mounted by one of its processes at /proc; mounted over the /proc
 * everyone shares, it would hide the system's processes from every program
 * in our mount namespace (hence the article's /proc2). Two clean ways out:
 *   default   clone(CLONE_NEWPID | CLONE_NEWNS): the child gets its own
 *             mount namespace too, makes its mounts private and mounts procfs
 *             at /proc; the kernel discards it with the namespace.
 *   --chroot DIR
 *             clone(CLONE_NEWPID) only: the child chroots to DIR and mounts
 *             procfs at /proc there, DIR/proc for us: a mount in OUR mount
 *             namespace that outlives the child, so we unmount it at the end.
 *             DIR must hold a root tree with COMMAND, e.g. (as root):
 *               unshare -m --propagation private sh -c 'mkdir -p /tmp/jail &&
 *                 mount --rbind / /tmp/jail && ./pidns_proc_mount --chroot /tmp/jail'
 *
 * Build:  cc -o pidns_proc_mount pidns_proc_mount.c
 * Run:    sudo ./pidns_proc_mount [--chroot DIR] [COMMAND [ARG...]]
 *         (COMMAND defaults to ps -e -o pid,ppid,cmd: PID 1, PPID 0, alone)
 * Exit status: COMMAND's (128+N if signal N ended it, or if signal N stopped
 * us). Errors: one line, "pidns_proc_mount: what failed: why", status 1.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
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
static char *defaultCommand[] = {"ps", "-e", "-o", "pid,ppid,cmd", NULL}, **command;
static const char *chrootDir; /* NULL: default mode (own mount namespace) */
static sigset_t originalMask; /* restored before exec */

/* What the parent undoes in --chroot mode on every way out (not the child's
 * copy of the atexit() handler). */
static pid_t childPid = -1;
static char chrootProc[PATH_MAX + 8]; /* the real path of DIR/proc, or "" */
static bool createdDir, inChild;
static dev_t deviceBefore; /* DIR/proc with another device has our procfs on top */

/* True if a mount made at `path` would propagate to peers: the mountinfo
 * line of the mount holding it (the last at the longest mount point covering
 * path) has an optional field shared:N. Escaped blanks (\040) stay escaped. */
static bool onSharedMount(const char *path)
{
    char line[4096], point[PATH_MAX];
    size_t bestLen = 0;
    bool bestShared = false;
    int afterPoint;
    FILE *info = fopen("/proc/self/mountinfo", "re");

    if (info == NULL)
        err(EXIT_FAILURE, "fopen /proc/self/mountinfo");
    while (fgets(line, sizeof line, info) != NULL) {
        if (sscanf(line, "%*s %*s %*s %*s %4095s %*s%n", point, &afterPoint) != 1)
            continue;
        size_t len = strlen(point);
        bool covers =
            len == 1 || (strncmp(path, point, len) == 0 && (path[len] == '\0' || path[len] == '/'));
        if (covers && len >= bestLen) {
            bestLen = len;
            char *optional = line + afterPoint, *end = strstr(optional, " - ");
            char *shared = strstr(optional, " shared:");
            bestShared = shared != NULL && (end == NULL || shared < end);
        }
    }
    fclose(info);
    return bestShared;
}

/* --chroot DIR: refuses a DIR where a procfs mount would reach beyond it,
 * and makes DIR/proc (or keeps the one there), remembering what to undo. */
static void prepareChrootProc(const char *dir)
{
    char real[PATH_MAX], proc[PATH_MAX + 8];
    struct stat sb;

    if (realpath(dir, real) == NULL)
        err(EXIT_FAILURE, "--chroot %s", dir);
    if (strcmp(real, "/") == 0)
        errx(EXIT_FAILURE,
             "--chroot %s: refusing to mount over the real /proc (use the default "
             "mode, which gives the child its own mount namespace)",
             dir);
    snprintf(proc, sizeof proc, "%s/proc", real);
    if (onSharedMount(proc))
        errx(EXIT_FAILURE,
             "--chroot %s: %s is on a shared mount, so a procfs mounted there "
             "would propagate to its peers; run 'mount --make-rprivate %s' first",
             dir, proc, real);
    if (mkdir(proc, 0555) == 0)
        createdDir = true;
    else if (errno != EEXIST)
        err(EXIT_FAILURE, "--chroot %s: mkdir %s", dir, proc);
    if (stat(proc, &sb) == -1)
        err(EXIT_FAILURE, "--chroot %s: %s", dir, proc);
    deviceBefore = sb.st_dev;
    snprintf(chrootProc, sizeof chrootProc, "%s", proc); /* only now: cleanUp() reads it */
}

/* Undoes what a --chroot child left in our mount namespace, the child gone
 * first (a procfs outlives its processes). The default mode leaves nothing. */
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
    if (chrootProc[0] == '\0')
        return;
    if (stat(chrootProc, &sb) == 0 && sb.st_dev != deviceBefore && umount2(chrootProc, 0) == -1)
        warn("umount %s", chrootProc);
    if (createdDir && rmdir(chrootProc) == -1 && errno != ENOENT)
        warn("rmdir %s", chrootProc);
    chrootProc[0] = '\0';
}

/* Gives the child, now PID 1 of the new PID namespace, a procfs at /proc. */
static void mountOwnProc(void)
{
    // tag::own-proc[]
    if (chrootDir == NULL) {
        /* We are in a copy of the parent's mount namespace, and copies of
         * shared mounts stay peers of the originals: without this, our
         * /proc mount would be propagated straight back to the parent.
         * (A propagation change ignores source and type; "none" rather than
         * NULL keeps checkers such as valgrind quiet.) */
        if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1)
            err(EXIT_FAILURE, "mount --make-rprivate /");
    } else {
        /* chroot() changes only how paths resolve for us; the mount below
         * still happens in the parent's mount namespace, at DIR/proc. */
        if (chroot(chrootDir) == -1)
            err(EXIT_FAILURE, "chroot %s", chrootDir);
        if (chdir("/") == -1)
            err(EXIT_FAILURE, "chdir /");
    }
    /* A procfs shows the PID namespace of the process that mounts it. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        err(EXIT_FAILURE, "mount procfs at /proc");
    // end::own-proc[]
    if (chrootDir == NULL)
        printf("Mounted procfs at /proc in a new mount namespace (yours is untouched)\n");
    else
        printf("Mounted procfs at %s/proc (the chroot's /proc; removed when we exit)\n", chrootDir);
}

static int childFunc(void *arg)
{
    (void)arg;
    inChild = true;
    /* If the parent dies, SIGKILL: as an init we ignore friendlier signals. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    mountOwnProc();
    if (sigprocmask(SIG_SETMASK, &originalMask, NULL) == -1) /* a mask survives exec */
        err(EXIT_FAILURE, "sigprocmask");
    execvp(command[0], command);
    err(errno == ENOENT ? 127 : 126, "execvp %s", command[0]);
}

/* Waits for the child. The stop signals, blocked since before clone(), are
 * taken here; an init ignores signals it has no handler for, so we end its
 * namespace with SIGKILL (in cleanUp()), which always works from outside. */
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

static void parseArgs(int argc, char *argv[])
{
    enum { OPT_CHROOT = CHAR_MAX + 1 };
    static const struct option options[] = {{"chroot", required_argument, NULL, OPT_CHROOT},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt;

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (opt == 'h') {
            printf("Usage: %s [--chroot DIR] [COMMAND [ARG...]]\nRun COMMAND (default: ps) "
                   "as PID 1 of a new PID namespace with its own /proc.\n",
                   argv[0]);
            exit(EXIT_SUCCESS);
        }
        if (opt == OPT_CHROOT)
            chrootDir = optarg;
        else if (optopt == OPT_CHROOT)
            errx(EXIT_FAILURE, "--chroot needs a directory (try 'pidns_proc_mount --help')");
        else
            errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_proc_mount --help')",
                 argv[optind - 1]);
    }
    command = optind < argc ? argv + optind : defaultCommand;
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t watched;

    setvbuf(stdout, NULL, _IOLBF, 0); /* no line waits in a buffer exec discards */
    parseArgs(argc, argv);
    sigemptyset(&watched);
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        sigaddset(&watched, stopSignals[i]);
    if (sigprocmask(SIG_BLOCK, &watched, &originalMask) == -1)
        err(EXIT_FAILURE, "sigprocmask");
    atexit(cleanUp); /* a failure from here on undoes what we made */
    if (chrootDir != NULL)
        prepareChrootProc(chrootDir);

    // tag::flags[]
    int flags = CLONE_NEWPID | SIGCHLD | (chrootDir == NULL ? CLONE_NEWNS : 0);
    childPid = clone(childFunc, stack + sizeof stack, flags, NULL);
    // end::flags[]
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -Ur) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID%s)", chrootDir == NULL ? "|CLONE_NEWNS" : "");
    int status = waitForChild(&watched);
    cleanUp();
    return status;
}
