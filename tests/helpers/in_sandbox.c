/* in_sandbox.c: runs a command inside the sandbox the lab and the tests use
 * (shell/sandbox.c: own mount namespace, tmpfs root, a user namespace when
 * not root), so that /procN directories and mounts never reach the host.
 *
 *   build/tests/helpers/in_sandbox COMMAND [ARG...]
 *
 * For trying the examples by hand and for benchmarks. The sandbox code is
 * included, not linked, because helpers are built from one file each.
 */
#include "../../shell/sandbox.c"

#include <stdlib.h>

int main(int argc, char *argv[])
{
    char err[512];

    if (argc < 2) {
        fprintf(stderr, "usage: in_sandbox COMMAND [ARG...]\n");
        return 2;
    }
    if (sandbox_enter(0, NULL, err, sizeof err) == -1) {
        fprintf(stderr, "in_sandbox: %s\n", err);
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "in_sandbox: execvp %s: %s\n", argv[1], strerror(errno));
    return 127;
}
