/* SPDX-License-Identifier: MIT-0 */
/* pidns_parents.c: the chain of parent processes, across PID namespaces.
 *
 * A procfs numbers processes as the PID namespace it was mounted from does.
 * This program follows the PPid field upwards from itself through /proc,
 * printing each process's name, PID namespace (the ns/pid link) and NSpid
 * line, and marks where the chain crosses a namespace boundary: there a
 * process's parent lives in an ancestor namespace, so that process's
 * getppid() returns 0. When /proc belongs to an ancestor of our namespace
 * (as after `unshare -pf` without --mount-proc), it lists processes this
 * process can read about but cannot signal: their PIDs mean nothing in our
 * own namespace.
 *
 * Build:  cc -o pidns_parents pidns_parents.c
 * Run:    sudo unshare -pf ./pidns_parents     (or: unshare -Urpf ./pidns_parents)
 * Prints, e.g.:
 *   PID      NAME             PID NAMESPACE        NSpid
 *   4243     pidns_parents    pid:[4026532301]     4243 1   <- this process
 *   -------- namespace boundary: ...
 *   4242     unshare          pid:[4026531836]     4242
 * Exit status 0, or 1 with one line "pidns_parents: what failed: why".
 * Needs no privilege; NSpid needs Linux 4.1.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One process of the chain, read from /proc/PID. */
struct process {
    char name[64];
    long ppid;
    char ns[64]; /* the ns/pid link, or why it cannot be read */
    char nspid[160];
};

/* Reads /proc/PID/status and ns/pid; returns 0, or -1 with errno. */
static int readProcess(long pid, struct process *proc)
{
    char path[64], line[256];
    FILE *f;

    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    f = fopen(path, "re");
    if (f == NULL)
        return -1;
    snprintf(proc->name, sizeof proc->name, "?");
    snprintf(proc->nspid, sizeof proc->nspid, "-");
    proc->ppid = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "Name:", 5) == 0)
            snprintf(proc->name, sizeof proc->name, "%s", line + 5 + strspn(line + 5, " \t"));
        else if (strncmp(line, "PPid:", 5) == 0)
            proc->ppid = strtol(line + 5, NULL, 10);
        else if (strncmp(line, "NSpid:", 6) == 0)
            snprintf(proc->nspid, sizeof proc->nspid, "%s", line + 6 + strspn(line + 6, " \t"));
    }
    fclose(f);
    for (char *c = proc->nspid; *c != '\0'; c++)
        if (*c == '\t')
            *c = ' ';
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
    ssize_t n = readlink(path, proc->ns, sizeof proc->ns - 1);
    if (n == -1) /* another user's process: its links are private */
        snprintf(proc->ns, sizeof proc->ns, "(hidden: %s)", strerror(errno));
    else
        proc->ns[n] = '\0';
    return 0;
}

int main(int argc, char *argv[])
{
    struct process proc;
    char previousNs[64] = "", self[32];
    int crossed = 0;

    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nList the parent processes as the procfs at /proc shows them, with\n"
               "each one's PID namespace and NSpid, marking namespace boundaries.\n",
               argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1)
        errx(EXIT_FAILURE, "%s '%s' (try 'pidns_parents --help')",
             argv[1][0] == '-' ? "unknown option" : "unexpected argument", argv[1]);

    /* /proc/self points at our PID as that procfs numbers it. */
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    if (n == -1)
        err(EXIT_FAILURE, "readlink /proc/self (is /proc a procfs of a namespace we are in?)");
    self[n] = '\0';
    printf("Parent processes, as the procfs mounted at /proc lists them\n");
    printf("  %-8s %-16s %-20s %s\n", "PID", "NAME", "PID NAMESPACE", "NSpid");
    for (long pid = strtol(self, NULL, 10), rows = 0; pid > 0; pid = proc.ppid, rows++) {
        if (readProcess(pid, &proc) == -1) {
            printf("  %-8ld (gone: %s)\n", pid, strerror(errno)); /* it exited meanwhile */
            return EXIT_SUCCESS;
        }
        /* A hidden link tells nothing: compare only links we could read. */
        if (previousNs[0] == 'p' && proc.ns[0] == 'p' && strcmp(previousNs, proc.ns) != 0) {
            printf("  -------- namespace boundary: the process above is in a child namespace\n"
                   "           of this one, and its getppid() returns 0 --------\n");
            crossed = 1;
        }
        printf("  %-8ld %-16s %-20s %s%s\n", pid, proc.name, proc.ns, proc.nspid,
               rows == 0 ? "   <- this process" : "");
        snprintf(previousNs, sizeof previousNs, "%s", proc.ns);
    }
    if (crossed)
        printf("  The processes below a boundary are listed only because /proc is a\n"
               "  procfs of an ancestor namespace: this process can read about them, but\n"
               "  kill() and other calls taking a PID cannot reach them.\n");
    return EXIT_SUCCESS;
}
