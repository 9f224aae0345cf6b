/* SPDX-License-Identifier: MIT-0 */
/* pid_pass.c: a PID sent over a UNIX socket, translated by the kernel (a
 * wrong program: the child writes getpid() as plain data, which nobody
 * translates, so the parent reads the child's own number, 1).
 *
 * The parent makes a socketpair() and creates a child in a new PID
 * namespace with clone(). The child sends its own PID, as it sees it (1),
 * in an SCM_CREDENTIALS message; the kernel writes that PID as the
 * receiver's namespace numbers the sender, so the parent reads the number
 * clone() gave it. A PID written as plain data would arrive as it was sent.
 * The child stays until its input ends (Ctrl-D at a terminal), so that
 * its PIDs can be looked at in /proc.
 *
 * Build: cc -std=gnu11 -Wall -Wextra -Werror -O2 -g -o pid_pass pid_pass.c
 * Run (as root, or in the tutorial's lab): ./pid_pass
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)

static int sv[2]; /* sv[0]: the parent's end, sv[1]: the child's */

static int childMain(void *arg)
{
    (void)arg;
    pid_t mine = getpid();
    if (write(sv[1], &mine, sizeof mine) == -1) {
        perror("child: write");
        return 1;
    }
    printf("child: sent my PID, %ld; staying until the end of input (Ctrl-D)\n", (long)getpid());
    fflush(stdout);
    /* Stay until our input ends (Ctrl-D at a terminal; the check's
     * release), so that our PIDs can be read in /proc meanwhile. */
    char buf[64];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        continue;
    return 0;
}

int main(void)
{
    static char stack[STACK_SIZE];
    int on = 1;

    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == -1) {
        perror("socketpair");
        return 1;
    }
    /* Without SO_PASSCRED the receiver gets no credentials. */
    if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == -1) {
        perror("setsockopt SO_PASSCRED");
        return 1;
    }
    pid_t child = clone(childMain, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, NULL);
    if (child == -1) {
        perror("clone");
        return 1;
    }

    pid_t pid;
    if (read(sv[0], &pid, sizeof pid) != sizeof pid) {
        perror("read");
        return 1;
    }
    printf("parent: the child's PID, as I receive it: %ld\n", (long)pid);
    fflush(stdout);

    if (waitpid(child, NULL, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return 0;
}
