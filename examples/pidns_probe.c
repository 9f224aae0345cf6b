/* SPDX-License-Identifier: MIT-0 */
/* pidns_probe.c: what a process can see of its own PID namespaces.
 *
 * A process has a PID in its own PID namespace and in every ancestor, and
 * can see (signal, look up) only processes of its namespace and of those
 * nested below. This program asks the kernel, from the caller's side:
 *   - getpid() and getppid(): the parent is 0 when it lives in an ancestor
 *     namespace, which has no number for it in ours;
 *   - /proc/self/ns/pid and ns/pid_for_children (our next child's
 *     namespace): they differ after unshare(CLONE_NEWPID);
 *   - the NSpid line of /proc/self/status, one PID per namespace level;
 *   - the parent namespaces, walked with ioctl(NS_GET_PARENT) until EPERM.
 * (pidns_parents shows the chain of parent processes instead.)
 *
 * Build:  cc -o pidns_probe pidns_probe.c
 * Run:    ./pidns_probe  or  sudo unshare -pf ./pidns_probe  (PID 1 of a new
 *         namespace)  or  sudo multi_pidns 3 ./pidns_probe  (three levels down)
 * Exit status 0 when every probe could be made, else 1, each failure one
 * line "pidns_probe: what failed: why". Needs no privilege, and Linux 4.12
 * or later (NSpid came in 4.1, NS_GET_PARENT in 4.9, pid_for_children 4.12).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NS_GET_PARENT /* <linux/nsfs.h>, here so that old headers build it */
#define NS_GET_PARENT _IO(0xb7, 0x2)
#endif
#define INITIAL_PIDNS_INO 0xEFFFFFFCUL /* the root namespace's fixed inode (PROC_PID_INIT_INO) */
#define MAX_LEVELS 40                  /* more than the 33 the kernel allows */
#define WHERE_SIZE 128                 /* mount points listed for one level */

static int failed; /* a probe could not be made: exit status 1 */

/* A probe that failed: its message now, and exit status 1 at the end. */
static void probeFailed(const char *what)
{
    warn("%s", what);
    failed = 1;
}

/* readlink() into buf as a string; returns 0, or -1 with errno. */
static int readLink(const char *path, char *buf, size_t size)
{
    ssize_t n = readlink(path, buf, size - 1);
    if (n == -1)
        return -1;
    buf[n] = '\0';
    return 0;
}

static void showIds(ino_t ownIno)
{
    pid_t pid = getpid(), ppid = getppid();
    printf("Process IDs, as numbered in this process's own PID namespace\n");
    printf("  getpid()  = %ld%s\n", (long)pid,
           pid == 1 ? "    PID 1: this process is the init of its namespace" : "");
    if (ppid == 0 && ownIno == INITIAL_PIDNS_INO)
        printf("  getppid() = 0    the system's first process: it has no parent\n");
    else if (ppid == 0)
        printf("  getppid() = 0    the parent lives in an ancestor namespace that this\n"
               "                   process cannot see, so the kernel has no number to give\n");
    else
        printf("  getppid() = %ld    the parent is visible from here\n", (long)ppid);
}

/* Explains pid_for_children; returns an fd on it for the walk, or -1. */
static int showChildrenLink(const char *ownLink)
{
    const char *path = "/proc/self/ns/pid_for_children";
    char link[64];
    if (readLink(path, link, sizeof link) == -1) {
        if (errno != ENOENT) {
            probeFailed("readlink /proc/self/ns/pid_for_children");
            return -1;
        }
        /* The file is there, but without a target (pidns_unshare shows more). */
        printf("  %s: no target yet: after unshare(CLONE_NEWPID) the kernel\n"
               "      shows the new namespace once its first process (its init) exists.\n",
               path);
        return -1;
    }
    printf("  %s -> %s  %s\n", path, link,
           strcmp(link, ownLink) == 0
               ? "the same: children will join this namespace"
               : "DIFFERENT: children will be born into a new, child namespace");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        probeFailed("open /proc/self/ns/pid_for_children");
    return fd;
}

/* Shows both links. Returns an fd on the deepest namespace we can name (our
 * children's if it differs, else our own) for the ancestry walk, or -1. */
static int showLinks(void)
{
    char own[64];

    printf("\nNamespace links (the number in brackets, an inode, identifies the namespace)\n");
    if (readLink("/proc/self/ns/pid", own, sizeof own) == -1) {
        probeFailed("readlink /proc/self/ns/pid");
        return -1;
    }
    printf("  /proc/self/ns/pid              -> %s  the namespace this process is in\n", own);
    int fd = showChildrenLink(own);
    if (fd == -1 && (fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC)) == -1)
        probeFailed("open /proc/self/ns/pid");
    return fd;
}

/* Reads the NSpid values (up to MAX_LEVELS) of a status file into pids:
 * their count, or -1 with errno. */
static int readNspid(const char *statusPath, long *pids)
{
    char line[1024] = "";
    int count = 0;
    FILE *f = fopen(statusPath, "re");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL && strncmp(line, "NSpid:", 6) != 0)
        ;
    if (strncmp(line, "NSpid:", 6) == 0)
        for (char *p = line + 6, *end; count < MAX_LEVELS; p = end) {
            pids[count] = strtol(p, &end, 10);
            if (end == p)
                break;
            count++;
        }
    fclose(f);
    return count;
}

/* Other procfs mounts (e.g. the /procK of multi_pidns) show us too, each
 * numbered as its own namespace does; our NSpid line there is shorter by the
 * levels above its namespace, which tells its level: its mount point goes to
 * where[level]. Mount points come from /proc/self/mountinfo (field 5). */
static void findOtherProcfs(int count, char where[][WHERE_SIZE])
{
    char line[4096], mountPoint[256], path[300];
    long pids[MAX_LEVELS];
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (f == NULL) {
        probeFailed("open /proc/self/mountinfo");
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        const char *fields = strstr(line, " - "); /* then FSTYPE SOURCE OPTIONS */
        if (fields == NULL || strncmp(fields, " - proc ", 8) != 0 ||
            sscanf(line, "%*s %*s %*s %*s %255s", mountPoint) != 1 ||
            strcmp(mountPoint, "/proc") == 0)
            continue;
        snprintf(path, sizeof path, "%s/self/status", mountPoint);
        int n = readNspid(path, pids);
        if (n <= 0 || n > count) /* a namespace we are not in: no self there */
            continue;
        size_t used = strlen(where[count - n]);
        snprintf(where[count - n] + used, WHERE_SIZE - used, "%s%s", used == 0 ? "" : ", ",
                 mountPoint);
    }
    fclose(f);
}

static void showNspid(void)
{
    long pids[MAX_LEVELS];
    char where[MAX_LEVELS][WHERE_SIZE] = {{0}};
    int count = readNspid("/proc/self/status", pids);
    printf("\nNSpid line of /proc/self/status: this process's PID at each level\n");
    if (count == -1) { /* /proc is a procfs of a namespace where we have no PID */
        probeFailed("open /proc/self/status (is /proc a procfs of a namespace this process "
                    "belongs to?)");
        return;
    }
    findOtherProcfs(count, where);
    for (int i = 0; i < count; i++) {
        const char *note = count == 1       ? "in this process's own namespace, which is also "
                                              "that of /proc"
                           : i == count - 1 ? "in this process's own namespace"
                           : i == 0         ? "in the namespace of the procfs mounted at /proc"
                                            : "";
        int also = where[i][0] != '\0';
        if (note[0] == '\0' && !also)
            printf("  level %d: PID %ld\n", i, pids[i]);
        else
            printf("  level %d: PID %-8ld  %s%s%s%s\n", i, pids[i], note,
                   note[0] != '\0' && also ? "; " : "",
                   also ? "also the PID in the procfs at " : "", where[i]);
    }
    printf("  The line starts at the namespace of the procfs at /proc (not necessarily the\n"
           "  root): a procfs shows only the levels from its own namespace down.\n");
}

/* Walks up from fd with NS_GET_PARENT, one line per namespace. Takes fd. */
static void showAncestry(int fd, ino_t ownIno)
{
    printf("\nNamespace ancestry, walked upwards with ioctl(fd, NS_GET_PARENT)\n");
    while (fd != -1) { /* at most 33 levels: the kernel allows no more */
        struct stat st;
        if (fstat(fd, &st) == -1) {
            probeFailed("fstat a namespace fd");
            break;
        }
        printf("  pid:[%lu]  %s\n", (unsigned long)st.st_ino,
               st.st_ino == ownIno ? "this process's namespace"
                                   : "the namespace this process's children go into");
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent == -1 && errno == EPERM && st.st_ino == INITIAL_PIDNS_INO)
            printf("  ioctl(NS_GET_PARENT) -> EPERM: this is the system's initial PID\n"
                   "  namespace, the root of the tree: it has no parent.\n");
        else if (parent == -1 && errno == EPERM)
            printf("  ioctl(NS_GET_PARENT) -> EPERM: the parent is outside this process's view:\n"
                   "  a process may walk up to its own PID namespace, whatever NSpid shows.\n");
        else if (parent == -1)
            probeFailed("ioctl(NS_GET_PARENT)");
        close(fd);
        fd = parent;
    }
}

int main(int argc, char *argv[])
{
    struct stat own;

    setvbuf(stdout, NULL, _IOLBF, 0); /* each line leaves as it is made, even into a pipe */
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nShow what this process can see of its PID namespaces: getpid(),\n"
               "getppid(), the ns/pid and pid_for_children links, NSpid and the namespace\n"
               "ancestry (NS_GET_PARENT). Compare: sudo unshare -pf %s\n",
               argv[0], argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1)
        errx(EXIT_FAILURE, "%s '%s' (try 'pidns_probe --help')",
             argv[1][0] == '-' ? "unknown option" : "unexpected argument", argv[1]);
    printf("pidns_probe: what process %ld can see of its PID namespaces\n\n", (long)getpid());
    if (stat("/proc/self/ns/pid", &own) == -1)
        err(EXIT_FAILURE, "stat /proc/self/ns/pid (is procfs mounted at /proc?)");
    showIds(own.st_ino);
    int deepest = showLinks();
    showNspid();
    showAncestry(deepest, own.st_ino);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
