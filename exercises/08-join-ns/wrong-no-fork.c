/* SPDX-License-Identifier: MIT-0 */
/* join_ns.c: run a command in the PID namespace of a running process (a wrong
 * program: it execs the command itself after setns(), without a fork, so
 * the command stays in the caller's namespace).
 *
 * setns() with a PID namespace moves only the caller's future children
 * (pid_for_children): the caller itself stays where it is, so the command
 * must run in a child made after setns().
 *
 * Build: cc -std=gnu11 -Wall -Wextra -Werror -O2 -g -o join_ns join_ns.c
 * Run (as root, or in the tutorial's lab): ./join_ns PID COMMAND [ARG...]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    char path[64];

    if (argc < 3) {
        fprintf(stderr, "usage: %s PID COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof path, "/proc/%s/ns/pid", argv[1]);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        perror(path);
        return 1;
    }
    if (setns(fd, CLONE_NEWPID) == -1) { /* only our children will be in it */
        perror("setns");
        return 1;
    }
    close(fd);
    execvp(argv[2], &argv[2]);
    perror(argv[2]);
    return 127;
}
