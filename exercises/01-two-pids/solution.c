/* SPDX-License-Identifier: MIT-0 */
/* two_pids.c: one process, two PIDs (the reference solution).
 *
 * The parent creates a child in a new PID namespace with clone() and
 * reports the PID that clone() returned: the child's PID in the parent's
 * namespace. The child reports its own PID and its parent's as it sees them
 * (1 and 0), then becomes `sleep 30`, so that its two PIDs can be looked at
 * in /proc while it runs.
 *
 * Build: cc -std=gnu11 -Wall -Wextra -Werror -O2 -g -o two_pids two_pids.c
 * Run (as root, or in the tutorial's lab): ./two_pids
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
    printf("child: PID %ld, parent %ld\n", (long)getpid(), (long)getppid());
    /* exec throws away what stdio still buffers: with output to a pipe,
     * the line above would be lost without this. */
    fflush(stdout);
    execlp("sleep", "sleep", "30", (char *)NULL);
    perror("child: execlp sleep");
    return 1;
}

int main(void)
{
    static char stack[STACK_SIZE];

    pid_t child = clone(childMain, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, NULL);
    if (child == -1) {
        perror("clone");
        return 1;
    }
    printf("parent: child is PID %ld\n", (long)child);
    fflush(stdout);
    if (waitpid(child, NULL, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return 0;
}
