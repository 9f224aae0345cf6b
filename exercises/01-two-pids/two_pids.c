/* SPDX-License-Identifier: MIT-0 */
/* two_pids.c: one process, two PIDs. YOUR TURN: fill in the two TODOs.
 *
 * The parent creates a child in a new PID namespace with clone() and
 * reports the PID that clone() returned: the child's PID in the parent's
 * namespace. The child reports its own PID and its parent's as it sees them,
 * then becomes `sleep 30`, so that its two PIDs can be looked at in /proc
 * while it runs. The check runs it with its output to a pipe and expects:
 *
 *     parent: child is PID <the child's PID in the lab>
 *     child: PID <its PID in its namespace>, parent <its parent's PID there>
 *
 * Build: `build` in the tutorial (or cc -std=gnu11 -Wall -Wextra -Werror -O2 -g
 * -o two_pids two_pids.c). Run: `check` in the tutorial, or `sh ./two_pids`
 * in /tmp/pidns-exercises/01-two-pids in the lab.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)

static int childMain(void *arg)
{
    (void)arg;
    /* TODO: print "child: PID %ld, parent %ld\n" with getpid() and getppid(). */
    execlp("sleep", "sleep", "30", (char *)NULL);
    perror("child: execlp sleep");
    return 1;
}

int main(void)
{
    static char stack[STACK_SIZE];
    pid_t child = -1;

    /* TODO: create the child with clone(): childMain on the top of stack,
     * in a new PID namespace, sending SIGCHLD when it ends. Then print
     * "parent: child is PID %ld\n" with what clone() returned. */
    (void)stack;
    (void)childMain;
    if (child == -1) {
        perror("clone");
        return 1;
    }
    if (waitpid(child, NULL, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return 0;
}
