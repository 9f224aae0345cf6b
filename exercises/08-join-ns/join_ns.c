/* SPDX-License-Identifier: MIT-0 */
/* join_ns.c: run a command in the PID namespace of a running process . YOUR TURN: fill in
 * the TODO.
 *
 * setns() with a PID namespace moves only the caller's future children
 * (pid_for_children): the caller itself stays where it is, so the command
 * must run in a child made after setns().
 *
 * The check starts a namespace (`unshare --pid --fork sleep 300`), runs
 *     ./join_ns PID_OF_ITS_INIT readlink /proc/self/ns/pid
 * and compares the namespace the command reports with the init's.
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
    int status;

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
    /* TODO: join the PID namespace of fd with setns(), then run argv[2]
     * (with its arguments, &argv[2]) in a process that is really in it, and
     * wait for it; leave status as its wait status. */
    status = 127 << 8;
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
