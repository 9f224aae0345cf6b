/* pidns_proc_mount.c: giving a new PID namespace its own /proc, safely.
 *
 * What it shows
 *   Tools such as ps read /proc, so a PID namespace only looks right from
 *   inside when a procfs mounted by one of its own processes sits at /proc.
 *   Mounting it over the /proc everyone shares would hide the system's
 *   processes from every other program in the same mount namespace (which
 *   is why the article mounts at /proc2). There are two clean ways out:
 *
 *   default   clone(CLONE_NEWPID | CLONE_NEWNS): the child also gets its own
 *             mount namespace, a copy of ours. It makes every mount in it
 *             private (systemd makes / shared, and a shared mount would pass
 *             our new /proc back to the parent's namespace), then mounts
 *             procfs at /proc. Only the child's namespace sees it; the
 *             kernel discards it, with the namespace, when the last process
 *             inside exits. Nothing to clean up.
 *
 *   --chroot DIR
 *             clone(CLONE_NEWPID) only: the child changes its root to DIR
 *             and mounts procfs at /proc there, which is DIR/proc for us.
 *             That mount lives in OUR mount namespace, visible to everyone,
 *             and it outlives the child: so this program unmounts it when
 *             the child ends or when it is interrupted. We refuse DIR=/ (that
 *             would cover the real /proc) and a DIR/proc on a shared mount
 *             (the mount would propagate to its peers, which may include
 *             the real root). DIR must hold a root tree with COMMAND in it;
 *             prepare one, e.g. as root in a private mount namespace:
 *               unshare -m --propagation private sh -c \
 *                 'mkdir -p /tmp/jail && mount --rbind / /tmp/jail &&
 *                  ./pidns_proc_mount --chroot /tmp/jail'
 *             (then rmdir /tmp/jail). Note that chroot() is no security
 *             boundary: a root process can leave it. It only changes where
 *             "/" and so "/proc" are for the child.
 *
 * Build:  cc -Wall -o pidns_proc_mount pidns_proc_mount.c
 * Run:    sudo ./pidns_proc_mount [--chroot DIR] [COMMAND [ARG...]]
 *         (root, or root of a user namespace, e.g. inside the pidns-tutor lab)
 *         COMMAND defaults to: ps -e -o pid,ppid,cmd
 * Prints: one line saying where procfs was mounted, then COMMAND's output;
 *         by default ps, running as PID 1 with PPID 0, alone in its namespace:
 *             Mounted procfs at /proc in a new mount namespace (yours is untouched)
 *                 PID    PPID CMD
 *                   1       0 ps -e -o pid,ppid,cmd
 * Exit status: COMMAND's (128+N if signal N ended it); on SIGINT, SIGTERM,
 * SIGHUP or SIGQUIT the child's namespace is killed and we exit with 128+N.
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

static const char *progName = "pidns_proc_mount";
static char *defaultCommand[] = {"ps", "-e", "-o", "pid,ppid,cmd", NULL};

/* What the parent must undo in --chroot mode; cleanUp() reads it on every
 * way out. A directory that appeared is ours; a DIR/proc whose device
 * changed has our procfs on top. */
static pid_t childPid = -1;
static char chrootProc[PATH_MAX]; /* "" unless --chroot: the real path of DIR/proc */
static bool procDirExisted;
static dev_t deviceBefore;

static bool cleanUp(void);

enum failMode { WARN, EXIT_PARENT, EXIT_CHILD };

/* Every message goes through here: "pidns_proc_mount: what: why", one line.
 * A clone child leaves with _exit(): exit() would run the parent's clean-up
 * and flush stdio buffers a second time. */
static void failWith(enum failMode mode, int errnum, const char *fmt, ...)
{
    va_list ap;
    char what[PATH_MAX + 256];

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
    printf("Usage: %s [--chroot DIR] [COMMAND [ARG...]]\n"
           "Run COMMAND (default: ps -e -o pid,ppid,cmd) as PID 1 of a new PID namespace\n"
           "whose own procfs is mounted at /proc, without touching the caller's /proc:\n"
           "  (default)      in a new, private mount namespace\n"
           "  --chroot DIR   chrooted into DIR, procfs at DIR/proc (unmounted at exit)\n"
           "Needs root, or root in a user namespace.\n",
           progName);
    exit(EXIT_SUCCESS);
}

/* Decodes the octal escapes (\040 for a space) of a mountinfo field. */
static void unescapeMountField(char *field)
{
    char *out = field;
    for (char *in = field; *in != '\0'; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* True if the mount that holds 'path' (the topmost mount at its longest
 * mount-point prefix) is shared, i.e. a mount made there propagates to its
 * peers. Its mountinfo line carries an optional field "shared:N". */
static bool onSharedMount(const char *path)
{
    char line[4096], best[PATH_MAX] = "";
    bool bestShared = false;
    FILE *info = fopen("/proc/self/mountinfo", "re");

    if (info == NULL)
        errExit("fopen /proc/self/mountinfo");
    while (fgets(line, sizeof line, info) != NULL) {
        char *save, *field = strtok_r(line, " \n", &save);
        char *mountPoint = NULL;
        bool shared = false;
        for (int i = 1; field != NULL && strcmp(field, "-") != 0; i++) {
            if (i == 5)
                mountPoint = field;
            if (i > 6 && strncmp(field, "shared:", 7) == 0)
                shared = true;
            field = strtok_r(NULL, " \n", &save);
        }
        if (mountPoint == NULL)
            continue;
        unescapeMountField(mountPoint);
        size_t len = strlen(mountPoint);
        bool covers = strcmp(mountPoint, "/") == 0 || (strncmp(path, mountPoint, len) == 0 &&
                                                       (path[len] == '\0' || path[len] == '/'));
        if (covers && strlen(mountPoint) >= strlen(best) && len < sizeof best) {
            strcpy(best, mountPoint); /* a later line at the same point is on top */
            bestShared = shared;
        }
    }
    fclose(info);
    return bestShared;
}

/* Refuses, before anything is created, a chroot directory that is missing,
 * or where a procfs mount would reach beyond it; records what is there now. */
static void checkChrootDir(const char *dir)
{
    char real[PATH_MAX];
    struct stat sb;

    if (realpath(dir, real) == NULL)
        usageErr("--chroot %s: %s", dir, strerror(errno));
    if (stat(real, &sb) == -1 || !S_ISDIR(sb.st_mode))
        usageErr("--chroot %s: not a directory", dir);
    if (strcmp(real, "/") == 0)
        usageErr("--chroot %s: refusing to mount over the real /proc (use the default "
                 "mode, which gives the child its own mount namespace)",
                 dir);
    if (snprintf(chrootProc, sizeof chrootProc, "%s/proc", real) >= (int)sizeof chrootProc)
        usageErr("--chroot %s: path too long", dir);
    if (lstat(chrootProc, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            usageErr("--chroot %s: %s exists and is not a directory", dir, chrootProc);
        procDirExisted = true;
    } else if (errno != ENOENT) {
        usageErr("--chroot %s: %s: %s", dir, chrootProc, strerror(errno));
    } else if (faccessat(AT_FDCWD, real, W_OK, AT_EACCESS) == -1) {
        usageErr("--chroot %s: cannot create %s: %s", dir, chrootProc, strerror(errno));
    } else if (stat(real, &sb) == -1) {
        usageErr("--chroot %s: %s", dir, strerror(errno));
    }
    deviceBefore = sb.st_dev; /* a new directory lives on DIR's filesystem */
    if (onSharedMount(procDirExisted ? chrootProc : real))
        usageErr("--chroot %s: %s is on a shared mount, so a procfs mounted there would "
                 "propagate to its peers; run 'mount --make-rprivate %s' first",
                 dir, chrootProc, real);
}

/* Undoes what a --chroot child left in our mount namespace (the child must
 * be gone first: a mounted procfs outlives the processes it lists). In the
 * default mode there is nothing to undo: the child's mount namespace, and
 * its /proc with it, ended with its last process. */
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
    if (chrootProc[0] == '\0')
        return ok;
    if (stat(chrootProc, &sb) == 0 && sb.st_dev != deviceBefore && umount2(chrootProc, 0) == -1) {
        errMsg("umount %s", chrootProc);
        ok = false;
    }
    if (!procDirExisted && rmdir(chrootProc) == -1 && errno != ENOENT) {
        errMsg("rmdir %s", chrootProc);
        ok = false;
    }
    chrootProc[0] = '\0';
    return ok;
}

struct childArgs {
    const char *chrootDir; /* NULL: default mode (own mount namespace) */
    char **command;
    int goFd, goWriteFd;   /* one byte on goFd: the parent is alive */
    sigset_t originalMask; /* restored before exec */
};

/* Gives the child, now PID 1 of the new PID namespace, a procfs at /proc. */
static void mountOwnProc(const struct childArgs *args)
{
    // tag::own-proc[]
    if (args->chrootDir == NULL) {
        /* We are in a copy of the parent's mount namespace, and copies of
         * shared mounts stay peers of the originals: without this, our
         * /proc mount would be propagated straight back to the parent.
         * (A propagation change ignores source and type; "none" rather than
         * NULL keeps checkers such as valgrind quiet.) */
        if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1)
            errExitChild("mount --make-rprivate /");
    } else {
        /* chroot() changes only how paths resolve for us; the mount below
         * still happens in the parent's mount namespace, at DIR/proc. */
        if (chroot(args->chrootDir) == -1)
            errExitChild("chroot %s", args->chrootDir);
        if (chdir("/") == -1)
            errExitChild("chdir /");
        if (mkdir("/proc", 0555) == -1 && errno != EEXIST)
            errExitChild("mkdir /proc in %s", args->chrootDir);
    }
    /* A procfs shows the PID namespace of the process that mounts it. */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
        errExitChild("mount procfs at /proc");
    // end::own-proc[]
    if (args->chrootDir == NULL)
        printf("Mounted procfs at /proc in a new mount namespace (yours is untouched)\n");
    else
        printf("Mounted procfs at %s/proc (the chroot's /proc; removed when we exit)\n",
               args->chrootDir);
}

static int childFunc(void *arg)
{
    struct childArgs *args = arg;
    char go;

    /* If the parent dies, we get SIGKILL (as an init we would ignore its
     * friendlier signals). No byte on the pipe means it died before. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        errExitChild("prctl(PR_SET_PDEATHSIG)");
    close(args->goWriteFd);
    if (read(args->goFd, &go, 1) != 1)
        _exit(EXIT_FAILURE);
    close(args->goFd);

    mountOwnProc(args);
    if (sigprocmask(SIG_SETMASK, &args->originalMask, NULL) == -1)
        errExitChild("sigprocmask");
    fflush(stdout); /* exec discards whatever stdio still holds */
    execvp(args->command[0], args->command);
    int saved = errno;
    failWith(WARN, saved, "execvp %s", args->command[0]);
    _exit(saved == ENOENT ? 127 : 126);
}

/* Waits until the child ends, taking SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * (blocked since before clone) with sigwaitinfo(). Returns our exit status. */
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
            /* An init ignores signals it has no handler for; SIGKILL from
             * an ancestor namespace ends it, and its whole namespace. */
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

static void parseArgs(int argc, char *argv[], struct childArgs *args)
{
    enum { OPT_CHROOT = CHAR_MAX + 1 };
    static const struct option options[] = {{"chroot", required_argument, NULL, OPT_CHROOT},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    int opt;

    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (opt == 'h')
            usage();
        else if (opt == OPT_CHROOT)
            args->chrootDir = optarg;
        else if (optopt == OPT_CHROOT)
            usageErr("--chroot needs a directory (try '%s --help')", progName);
        else
            usageErr("unknown option '%s' (try '%s --help')", argv[optind - 1], progName);
    }
    args->command = optind < argc ? argv + optind : defaultCommand;
    if (args->chrootDir != NULL)
        checkChrootDir(args->chrootDir);
}

int main(int argc, char *argv[])
{
    struct childArgs args = {.chrootDir = NULL};
    sigset_t watched;
    int goPipe[2];

    /* Line-buffered even into a pipe, so no line is lost at exec. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    parseArgs(argc, argv, &args);

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
    args.goFd = goPipe[0];
    args.goWriteFd = goPipe[1];

    // tag::flags[]
    int flags = CLONE_NEWPID | SIGCHLD | (args.chrootDir == NULL ? CLONE_NEWNS : 0);
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        errExit("mmap child stack");
    fflush(stdout);
    childPid = clone(childFunc, stack + STACK_SIZE, flags, &args);
    // end::flags[]
    int cloneErrno = errno;
    munmap(stack, STACK_SIZE); /* the child has its own copy */
    close(goPipe[0]);
    if (childPid == -1) {
        errno = cloneErrno;
        errExit("clone(CLONE_NEWPID%s)%s", args.chrootDir == NULL ? "|CLONE_NEWNS" : "",
                errno == EPERM ? " (needs root, or root in a user namespace: try unshare -Ur)"
                               : "");
    }
    if (write(goPipe[1], "g", 1) != 1)
        errExit("write to child");
    close(goPipe[1]);

    int status = waitForChild(&watched);
    if (!cleanUp() && status == 0)
        status = EXIT_FAILURE;
    return status;
}
