/* SPDX-License-Identifier: MIT */
/* in_sandbox: run a command inside the sandbox (shell/lab/sandbox.h): a private
 * mount namespace whose root is a scratch tmpfs, so that /procN directories
 * and mounts the command makes never reach the host. Used by the benchmarks
 * and handy for trying the examples by hand:
 *
 *   build/tests/helpers/in_sandbox build/examples/multi_pidns 5 ls -d /proc4/[1-9]*
 */
#include "lab/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    char err[512];

    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 2 ? stderr : stdout, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return argc < 2 ? 2 : 0;
    }
    if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
        fprintf(stderr, "in_sandbox: %s\n", err);
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "in_sandbox: exec %s: ", argv[1]);
    perror(NULL);
    return 127;
}
