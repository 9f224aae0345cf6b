/* SPDX-License-Identifier: MIT-0 */
/* pidns_reboot.c: reboot(2) called by the init of a new PID namespace ends
 * that namespace, and its parent learns which command it was.
 *
 * Since Linux 3.4, reboot() called in a PID namespace other than the
 * machine's first one does not touch the machine: the kernel
 * (reboot_pid_ns() in kernel/pid_namespace.c) kills the namespace's init
 * with SIGKILL, and so the whole namespace, and records the command in it.
 * The parent of the init then sees it killed by a signal that says what was
 * asked: SIGHUP for LINUX_REBOOT_CMD_RESTART and RESTART2, SIGINT for
 * LINUX_REBOOT_CMD_POWER_OFF and HALT. Any other command fails with EINVAL
 * there. The caller needs CAP_SYS_BOOT in the user namespace that owns its
 * PID namespace (since Linux 3.8), so root of a user namespace will do.
 *
 * SAFETY: in the machine's first PID namespace the same call restarts or
 * powers off the machine. This program calls reboot() in one place only: in
 * the child that clone(CLONE_NEWPID) made, after checking that it is PID 1
 * (getpid() == 1, a number the machine's own init holds for its whole life)
 * of a namespace whose /proc/self/ns/pid inode differs from the one the
 * parent read before clone(). If either check fails, or the inode cannot be
 * read, it refuses and calls nothing.
 *
 * Build:  cc -o pidns_reboot pidns_reboot.c
 * Run:    sudo ./pidns_reboot restart     (or unshare -r ./pidns_reboot halt)
 * Prints:
 *   [init  ] PID 1 of pid:[4026532412], calling reboot(LINUX_REBOOT_CMD_RESTART)
 *   [parent] the init (PID 4242 here) was killed by SIGHUP
 *
 * Exit status: 0 when the init was killed by a signal (the reboot of its
 * namespace), 1 when it exited instead (reboot() failed) or a call failed,
 * 2 on bad usage; 128+N when stopped by signal N (Ctrl-C, SIGTERM, SIGHUP,
 * SIGQUIT), after killing the init.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <linux/reboot.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct rebootCmd {
    const char *name;     /* what the user types */
    const char *constant; /* what the kernel calls it */
    unsigned int cmd;
} rebootCmds[] = {
    {.name = "restart", .constant = "LINUX_REBOOT_CMD_RESTART", .cmd = LINUX_REBOOT_CMD_RESTART},
    {.name = "restart2", .constant = "LINUX_REBOOT_CMD_RESTART2", .cmd = LINUX_REBOOT_CMD_RESTART2},
    {.name = "halt", .constant = "LINUX_REBOOT_CMD_HALT", .cmd = LINUX_REBOOT_CMD_HALT},
    {.name = "power-off",
     .constant = "LINUX_REBOOT_CMD_POWER_OFF",
     .cmd = LINUX_REBOOT_CMD_POWER_OFF},
    {.name = "cad-on", .constant = "LINUX_REBOOT_CMD_CAD_ON", .cmd = LINUX_REBOOT_CMD_CAD_ON},
};

static char stack[256 * 1024]; /* the child's; it runs on its own copy */
static pid_t childPid = -1;    /* stays -1 in the child's copy */
static ino_t parentNs;         /* inode of the parent's PID namespace */

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s CMD\n"
            "Make a new PID namespace whose init calls reboot(CMD), and report how the\n"
            "init ended. CMD is restart, restart2, halt, power-off (each ends the\n"
            "namespace, never the machine) or cad-on (refused there with EINVAL).\n",
            prog);
}

static const char *signalName(int sig)
{
    switch (sig) {
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    case SIGKILL:
        return "SIGKILL";
    default:
        return "another signal";
    }
}

/* Runs in the child; reboot() is called here and nowhere else. */
static int initMain(void *arg)
{
    const struct rebootCmd *rc = arg;
    struct stat ns;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1) /* our parent gone: we go too */
        err(EXIT_FAILURE, "prctl(PR_SET_PDEATHSIG)");
    // tag::safety[]
    if (stat("/proc/self/ns/pid", &ns) == -1)
        err(EXIT_FAILURE, "[init  ] refusing to call reboot(): stat /proc/self/ns/pid");
    if (getpid() != 1 || ns.st_ino == parentNs) /* never in the namespace we came from */
        errx(EXIT_FAILURE, "[init  ] refusing to call reboot(): not PID 1 of a new namespace");
    // end::safety[]

    printf("[init  ] PID 1 of pid:[%lu], calling reboot(%s)\n", (unsigned long)ns.st_ino,
           rc->constant);
    fflush(stdout); /* a successful call never returns: print first */
    // tag::reboot[]
    syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, rc->cmd, "pidns-tutor");
    // end::reboot[]
    printf("[init  ] reboot(%s) failed: %s (%s)\n", rc->constant, strerrorname_np(errno),
           strerror(errno));
    fflush(stdout);
    return EXIT_FAILURE;
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

static const struct rebootCmd *parseArgs(int argc, char *argv[])
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout, argv[0]);
        exit(EXIT_SUCCESS);
    }
    if (argc != 2) {
        fprintf(stderr, "pidns_reboot: needs one CMD (try 'pidns_reboot --help')\n");
        exit(2);
    }
    for (size_t i = 0; i < sizeof rebootCmds / sizeof rebootCmds[0]; i++)
        if (strcmp(argv[1], rebootCmds[i].name) == 0)
            return &rebootCmds[i];
    fprintf(stderr, "pidns_reboot: unknown CMD '%s' (try 'pidns_reboot --help')\n", argv[1]);
    exit(2);
}

int main(int argc, char *argv[])
{
    static const int stopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa;
    struct stat ns;
    int status;

    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    const struct rebootCmd *rc = parseArgs(argc, argv);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stopHandler;
    for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
        if (sigaction(stopSignals[i], &sa, NULL) == -1)
            err(EXIT_FAILURE, "sigaction");
    if (stat("/proc/self/ns/pid", &ns) == -1) /* the child compares with this */
        err(EXIT_FAILURE, "stat /proc/self/ns/pid");
    parentNs = ns.st_ino;

    fflush(stdout);
    // tag::clone[]
    childPid = clone(initMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, (void *)rc);
    if (childPid == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    while (waitpid(childPid, &status, 0) == -1)
        if (errno != EINTR)
            err(EXIT_FAILURE, "waitpid");
    // end::clone[]
    pid_t init = childPid;
    childPid = -1;

    // tag::report[]
    if (WIFSIGNALED(status)) {
        printf("[parent] the init (PID %ld here) was killed by %s\n", (long)init,
               signalName(WTERMSIG(status)));
        return EXIT_SUCCESS;
    }
    printf("[parent] the init (PID %ld here) exited with status %d\n", (long)init,
           WEXITSTATUS(status));
    // end::report[]
    return EXIT_FAILURE;
}
