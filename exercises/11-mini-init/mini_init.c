/* SPDX-License-Identifier: MIT-0 */
/* mini_init.c: a minimal init, which reaps every child and passes SIGTERM
 * on to its command. YOUR TURN: fill in the TODO.
 *
 * The parent creates the init in a new PID namespace with clone() and exits
 * with the init's status. The init runs COMMAND as PID 2, then takes its
 * signals one at a time with sigwaitinfo(): SIGTERM goes on to the command;
 * on SIGCHLD it reaps every child that has ended (orphans are its children
 * too), and once the command is among them it exits with the command's
 * status.
 *
 * The check runs a shell as the command, which leaves an orphan behind and
 * ends through its trap on SIGTERM (exit 3); the orphan must be reaped, and
 * SIGTERM sent to the init must end the command, and then the program,
 * with status 3.
 *
 * Build: `build` in the tutorial (or cc -std=gnu11 -Wall -Wextra -Werror -O2 -g
 * -o mini_init mini_init.c). Run: `check` in the tutorial, or
 * `./mini_init COMMAND [ARG...]` in /tmp/pidns-exercises/11-mini-init in the lab.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (1024 * 1024)

static int initMain(void *arg)
{
    char **cmd = arg;
    sigset_t set;
    int status;
    pid_t pid;

    /* Blocked, the two signals wait in a queue for sigwaitinfo(). */
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);

    pid_t child = fork();
    if (child == -1) {
        perror("init: fork");
        return 1;
    }
    if (child == 0) { /* the command must not inherit the blocked mask */
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        execvp(cmd[0], cmd);
        perror("init: execvp");
        _exit(127);
    }
    printf("init: PID %ld, running %s as PID %ld\n", (long)getpid(), cmd[0], (long)child);
    fflush(stdout);

    for (;;) {
        int sig = sigwaitinfo(&set, NULL);
        /* TODO: on SIGTERM, pass it on to the command (child) with kill().
         * On SIGCHLD, reap every child that has ended: waitpid(-1, &status,
         * WNOHANG) in a loop until it returns 0 or -1 (one SIGCHLD may stand
         * for several children, and orphans are ours too). When the command
         * is among them, return its exit status (128 + the signal's number
         * if a signal killed it). */
        (void)sig;
        (void)pid;
        (void)status;
    }
}

int main(int argc, char *argv[])
{
    static char stack[STACK_SIZE];
    int status;

    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    pid_t init = clone(initMain, stack + STACK_SIZE, CLONE_NEWPID | SIGCHLD, &argv[1]);
    if (init == -1) {
        perror("clone");
        return 1;
    }
    if (waitpid(init, &status, 0) == -1) {
        perror("waitpid");
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
