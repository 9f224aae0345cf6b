/* SPDX-License-Identifier: MIT-0 */
/* pid_pass.c: a PID sent over a UNIX socket, translated by the kernel.
 * YOUR TURN: fill in the two TODOs.
 *
 * The parent makes a socketpair() and creates a child in a new PID
 * namespace with clone(). The child sends its own PID, as it sees it (1),
 * in an SCM_CREDENTIALS message; the kernel writes that PID as the
 * receiver's namespace numbers the sender, so the parent reads the number
 * clone() gave it. A PID written as plain data would arrive as it was sent.
 * The child stays until its input ends (Ctrl-D at a terminal), so that
 * its PIDs can be looked at in /proc.
 *
 * The check runs it with its output to a pipe and compares the PID the
 * parent printed with the child's PID in the lab (NSpid in /proc).
 *
 * Build: `build` in the tutorial (or cc -std=gnu11 -Wall -Wextra -Werror -O2 -g
 * -o pid_pass pid_pass.c). Run: `check` in the tutorial, or `./pid_pass` in
 * /tmp/pidns-exercises/09-pid-over-socket in the lab.
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
    char byte = 'x'; /* a message carries at least one byte of data */
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};

    memset(&control, 0, sizeof control);
    /* TODO: fill in the message's control message, CMSG_FIRSTHDR(&msg):
     * cmsg_level SOL_SOCKET, cmsg_type SCM_CREDENTIALS, cmsg_len
     * CMSG_LEN(sizeof(struct ucred)), and at CMSG_DATA() a struct ucred
     * holding getpid(), getuid() and getgid(). Then sendmsg() it on sv[1]
     * (on failure, perror("child: sendmsg") and return 1). */
    (void)msg;
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

    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    pid_t pid = 0;
    /* TODO: recvmsg() the child's message on sv[0] (on failure,
     * perror("recvmsg") and return 1). Its first control message,
     * CMSG_FIRSTHDR(&msg), of type SCM_CREDENTIALS, holds a struct ucred at
     * CMSG_DATA(): set pid to its .pid. */
    (void)msg;
    printf("parent: the child's PID, as I receive it: %ld\n", (long)pid);
    fflush(stdout);

    if (waitpid(child, NULL, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return 0;
}
