/* SPDX-License-Identifier: MIT-0 */
/* proc_mount.c: a procfs for a new PID namespace, mounted by its init at
 * DIR and unmounted again before it exits. YOUR TURN: fill in the two TODOs.
 *
 * The parent creates a child in a new PID namespace (but in the parent's
 * mount namespace) with clone(). A procfs shows the PID namespace of the
 * process that mounts it, so the child mounts it: at DIR, which everybody
 * in the mount namespace sees. The child keeps it there until its input
 * ends (Ctrl-D at a terminal), so that it can be looked at, and unmounts
 * it before it exits: nothing else would.
 *
 * The check runs it in a mount namespace of its own (unshare -m), with
 * output to a pipe, as `./proc_mount p`; while it runs, p/1 must be the
 * child, and once it has ended nothing must be mounted at p.
 *
 * Build: `build` in the tutorial (or cc -std=gnu11 -Wall -Wextra -Werror -O2 -g
 * -o proc_mount proc_mount.c). Run: `check` in the tutorial, or
 * `mkdir -p p && ./proc_mount p` in /tmp/pidns-exercises/04-proc-mount in the lab.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)

static int childMain(void *arg)
{
    const char *dir = arg;

    /* TODO: mount a procfs ("proc", of type "proc") at dir; on failure,
     * perror("child: mount") and return 1. */
    printf("child: PID %ld, a procfs at %s until the end of input (Ctrl-D)\n", (long)getpid(), dir);
    fflush(stdout);
    /* Keep it mounted until our input ends (Ctrl-D at a terminal; the
     * check's release): a fixed time could end before anybody looked. */
    char buf[64];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        continue;
    /* TODO: unmount dir again; on failure, perror("child: umount") and
     * return 1. */
    return 0;
}

int main(int argc, char *argv[])
{
    static char stack[STACK_SIZE];
    int status;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    pid_t child = clone(childMain, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, argv[1]);
    if (child == -1) {
        perror("clone");
        return 1;
    }
    printf("parent: child is PID %ld\n", (long)child);
    fflush(stdout);
    if (waitpid(child, &status, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
