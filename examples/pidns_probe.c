/* pidns_probe.c: what a process can see of its own PID namespaces.
 *
 * A PID namespace gives its members their own set of process numbers. A
 * process is a member of one namespace, but it also has a PID in every
 * ancestor namespace, and it can see (signal, look up) only the processes of
 * its own namespace and of the namespaces nested below it. This program asks
 * the kernel, from the calling process's point of view:
 *
 *   - getpid() and getppid(): the parent is reported as 0 when it lives in an
 *     ancestor namespace, because there is no number for it in ours;
 *   - /proc/self/ns/pid (the namespace we are in) and
 *     /proc/self/ns/pid_for_children (the one our next child will be in):
 *     they differ after unshare(CLONE_NEWPID), which moves only future
 *     children;
 *   - the NSpid: line of /proc/self/status, one PID per namespace level;
 *   - the chain of parent namespaces, walked with ioctl(NS_GET_PARENT) until
 *     the kernel answers EPERM at the edge of our view;
 *   - with --parents, the chain of parent processes as the procfs mounted at
 *     /proc lists them, and where that chain crosses a namespace boundary.
 *
 * Build:  cc -o pidns_probe pidns_probe.c
 * Run:    ./pidns_probe                    (in the namespace you are in)
 *         sudo unshare -pf ./pidns_probe   (as PID 1 of a new namespace)
 *         sudo unshare -p ./pidns_probe    (after unshare(), without fork)
 *         sudo multi_pidns 3 ./pidns_probe (three levels down)
 *         unshare -Urpf ./pidns_probe      (the same, as an ordinary user)
 * Prints: a short report in four parts (IDs, links, NSpid, ancestry), each
 *         line saying what the value means. Features a kernel lacks are
 *         reported as "not supported by this kernel (needs Linux X)".
 * Exit:   0 when every probe could be made, 1 on a bad argument or when a
 *         call failed (the message names the call and the reason).
 *
 * Needs no privilege: everything here is read from the caller's own /proc
 * entries. Linux 3.8 or later; parts need 4.1, 4.9 and 4.12 (said when used).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* From <linux/nsfs.h>; defined here so that the file builds with old headers. */
#ifndef NS_GET_PARENT
#define NS_GET_PARENT _IO(0xb7, 0x2)
#endif

#define PROBE_NAME "pidns_probe"
/* The kernel gives the initial PID namespace this fixed inode (PROC_PID_INIT_INO). */
#define PROBE_INITIAL_PIDNS_INO 0xEFFFFFFCUL
#define PROBE_MAX_LEVELS 40
#define PROBE_WHERE_SIZE                                                                           \
    128 /* mount points listed for one level */ /* the kernel allows 33 levels counting the        \
                                                   initial one */

static int probe_failed; /* set when a call failed: the exit status becomes 1 */

/* All error messages go through here: "pidns_probe: what failed: why". */
static void probe_error(int errnum, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* keep stdout and stderr in order when both go to one pipe */
    fprintf(stderr, "%s: ", PROBE_NAME);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (errnum != 0)
        fprintf(stderr, ": %s", strerror(errnum));
    fputc('\n', stderr);
    probe_failed = 1;
}

static void probe_usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [--parents]\n"
            "Show what this process can see of its PID namespaces: getpid() and\n"
            "getppid(), the /proc/self/ns/pid and pid_for_children links, the NSpid\n"
            "line of /proc/self/status and the namespace ancestry (NS_GET_PARENT).\n"
            "\n"
            "  -p, --parents  also list the parent processes that the procfs at /proc\n"
            "                 shows, marking where they cross a namespace boundary\n"
            "  -h, --help     show this help and exit\n"
            "\n"
            "Run it inside a namespace to see the difference, e.g.\n"
            "  sudo unshare -pf %s    or    unshare -Urpf %s\n",
            PROBE_NAME, PROBE_NAME, PROBE_NAME);
}

/* readlink() into buf as a terminated string; returns 0 or an errno value. */
static int probe_readlink(const char *path, char *buf, size_t size)
{
    ssize_t n = readlink(path, buf, size - 1);
    if (n == -1)
        return errno;
    buf[n] = '\0';
    return 0;
}

static void probe_show_ids(ino_t own_ino)
{
    pid_t pid = getpid(), ppid = getppid();

    printf("Process IDs, as numbered in this process's own PID namespace\n");
    printf("  getpid()  = %ld%s\n", (long)pid,
           pid == 1 ? "    PID 1: this process is the init of its namespace" : "");
    if (ppid == 0 && own_ino == PROBE_INITIAL_PIDNS_INO)
        printf("  getppid() = 0    the system's first process: it has no parent\n");
    else if (ppid == 0)
        printf("  getppid() = 0    the parent lives in an ancestor namespace that this\n"
               "                   process cannot see, so the kernel has no number to give\n");
    else
        printf("  getppid() = %ld    the parent is visible from here\n", (long)ppid);
}

/* Forks a child that only waits. After unshare(CLONE_NEWPID) that child is the
 * first process, and so the init, of the new namespace; until it exists the
 * kernel refuses to show pid_for_children. The child tells us its getpid()
 * through a pipe and exits when we close the other pipe (or when we die).
 * Returns the child's PID (ours), or -1; *release_fd is the pipe to close. */
static pid_t probe_start_waiting_child(int *release_fd, pid_t *pid_inside)
{
    int report[2], release[2];
    pid_t child;

    if (pipe2(report, O_CLOEXEC) == -1) {
        probe_error(errno, "pipe");
        return -1;
    }
    if (pipe2(release, O_CLOEXEC) == -1) {
        probe_error(errno, "pipe");
        close(report[0]), close(report[1]);
        return -1;
    }
    fflush(stdout); /* the child must not inherit unwritten output */
    child = fork();
    if (child == -1) {
        probe_error(errno, "fork (to give the new namespace its init)");
        close(report[0]), close(report[1]), close(release[0]), close(release[1]);
        return -1;
    }
    if (child == 0) {
        char byte;
        pid_t self = getpid();
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the probe */
        close(report[0]);
        close(release[1]);
        if (write(report[1], &self, sizeof self) != sizeof self)
            _exit(1);
        while (read(release[0], &byte, 1) == -1 && errno == EINTR)
            ; /* EOF: the parent is done, or gone */
        _exit(0);
    }
    close(report[1]);
    close(release[0]);
    if (read(report[0], pid_inside, sizeof *pid_inside) != sizeof *pid_inside) {
        probe_error(errno, "read the child's getpid() from its pipe");
        *pid_inside = -1;
    }
    close(report[0]);
    *release_fd = release[1];
    return child;
}

static void probe_stop_waiting_child(pid_t child, int release_fd)
{
    close(release_fd); /* the child sees EOF and exits */
    while (waitpid(child, NULL, 0) == -1)
        if (errno != EINTR) {
            probe_error(errno, "waitpid for the child");
            break;
        }
}

/* Explains pid_for_children and opens it (for the ancestry walk). When the
 * link exists but cannot be read yet, a waiting child is made so that it can.
 * Returns an fd on the children's namespace, or -1. */
static int probe_show_children_link(const char *own_link)
{
    const char *path = "/proc/self/ns/pid_for_children";
    char link[64];
    struct stat st;
    pid_t child = -1, pid_inside = -1;
    int release_fd = -1, fd = -1, err;

    if (lstat(path, &st) == -1) {
        if (errno == ENOENT)
            printf("  %s: not supported by this kernel (needs Linux 4.12)\n", path);
        else
            probe_error(errno, "lstat %s", path);
        return -1;
    }
    err = probe_readlink(path, link, sizeof link);
    if (err == ENOENT) {
        /* The file is there but has no target: a new namespace without init. */
        printf("  %s: no target yet. This process called unshare(CLONE_NEWPID),\n"
               "      which moves only its future children; the kernel shows the new\n"
               "      namespace once its first process (its init) exists. Forking one...\n",
               path);
        child = probe_start_waiting_child(&release_fd, &pid_inside);
        if (child == -1)
            return -1;
        printf("      the child is PID %ld here, and getpid() = %ld in the new namespace\n",
               (long)child, (long)pid_inside);
        err = probe_readlink(path, link, sizeof link);
    }
    if (err != 0) {
        probe_error(err, "readlink %s", path);
    } else {
        int same = strcmp(link, own_link) == 0;
        printf("  %s -> %s  %s\n", path, link,
               same ? "the same: children will join this namespace"
                    : "DIFFERENT: children will be born into a new, child namespace");
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd == -1)
            probe_error(errno, "open %s", path);
    }
    if (child != -1)
        probe_stop_waiting_child(child, release_fd);
    return fd;
}

/* Shows both links. Returns an fd on the deepest namespace we can name (our
 * children's if it differs, else our own) for the ancestry walk, or -1. */
static int probe_show_links(void)
{
    char own[64];
    int err, fd_own, fd_children;

    printf("\nNamespace links (the number in brackets is the namespace's inode: it\n"
           "identifies the namespace)\n");
    err = probe_readlink("/proc/self/ns/pid", own, sizeof own);
    if (err != 0) {
        probe_error(err, "readlink /proc/self/ns/pid");
        return -1;
    }
    printf("  /proc/self/ns/pid              -> %s  the namespace this process is in\n", own);
    fd_own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (fd_own == -1)
        probe_error(errno, "open /proc/self/ns/pid");
    fd_children = probe_show_children_link(own);
    if (fd_children == -1)
        return fd_own;
    if (fd_own != -1)
        close(fd_own);
    return fd_children;
}

/* Returns the NSpid line's values (up to max) into pids, their count, 0 when
 * the kernel has no NSpid line, or -1 on an error. */
static int probe_read_nspid(const char *status_path, long *pids, int max)
{
    FILE *f = fopen(status_path, "re");
    char *line = NULL;
    size_t cap = 0;
    int count = 0;

    if (f == NULL)
        return -1;
    while (getline(&line, &cap, f) != -1) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        char *p = line + 6, *end;
        for (;;) {
            long value = strtol(p, &end, 10);
            if (end == p || count == max)
                break;
            pids[count++] = value;
            p = end;
        }
        break;
    }
    free(line);
    fclose(f);
    return count;
}

/* Other procfs mounts (e.g. the /procK of multi_pidns) show this process
 * too, each numbered as its own namespace does. A procfs's NSpid line for us
 * is shorter by the levels above its namespace, which tells the level it
 * belongs to: its mount point is appended to where[level]. */
static void probe_find_other_procfs(int count, char where[][PROBE_WHERE_SIZE])
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char *line = NULL, mount_point[256], path[300];
    size_t cap = 0;
    long pids[PROBE_MAX_LEVELS];

    if (f == NULL) {
        probe_error(errno, "open /proc/self/mountinfo");
        return;
    }
    while (getline(&line, &cap, f) != -1) {
        /* ID PARENT MAJ:MIN ROOT MOUNT_POINT ... - FSTYPE SOURCE OPTIONS */
        const char *fields = strstr(line, " - ");
        if (fields == NULL || strncmp(fields, " - proc ", 8) != 0 ||
            sscanf(line, "%*s %*s %*s %*s %255s", mount_point) != 1 ||
            strcmp(mount_point, "/proc") == 0)
            continue;
        snprintf(path, sizeof path, "%s/self/status", mount_point);
        int n = probe_read_nspid(path, pids, PROBE_MAX_LEVELS);
        if (n <= 0 || n > count) /* a namespace we are not in: no self there */
            continue;
        size_t used = strlen(where[count - n]);
        snprintf(where[count - n] + used, PROBE_WHERE_SIZE - used, "%s%s", used == 0 ? "" : ", ",
                 mount_point);
    }
    free(line);
    fclose(f);
}

static void probe_show_nspid(void)
{
    long pids[PROBE_MAX_LEVELS];
    char where[PROBE_MAX_LEVELS][PROBE_WHERE_SIZE] = {{0}};
    int count = probe_read_nspid("/proc/self/status", pids, PROBE_MAX_LEVELS);

    printf("\nNSpid line of /proc/self/status: this process's PID at each level\n");
    if (count == -1) {
        /* /proc/self is missing when /proc is a procfs of a namespace in
         * which this process has no PID (a sibling or a descendant one). */
        probe_error(errno, "open /proc/self/status (is /proc a procfs of a namespace "
                           "this process belongs to?)");
        return;
    }
    if (count == 0) {
        printf("  NSpid: not supported by this kernel (needs Linux 4.1)\n");
        return;
    }
    probe_find_other_procfs(count, where);
    for (int i = 0; i < count; i++) {
        const char *note = "";
        int also = where[i][0] != '\0';
        if (count == 1)
            note = "in this process's own namespace, which is also that of /proc";
        else if (i == count - 1)
            note = "in this process's own namespace";
        else if (i == 0)
            note = "in the namespace of the procfs mounted at /proc";
        if (note[0] == '\0' && !also)
            printf("  level %d: PID %ld\n", i, pids[i]);
        else
            printf("  level %d: PID %-8ld  %s%s%s%s\n", i, pids[i], note,
                   note[0] != '\0' && also ? "; " : "",
                   also ? "also the PID in the procfs at " : "", where[i]);
    }
    printf("  The line starts at the namespace of the procfs mounted at /proc, which\n"
           "  is not necessarily the top of the tree: a procfs numbers processes as its\n"
           "  own namespace does, and shows only the levels from there down.\n");
}

/* Walks up from fd with NS_GET_PARENT, one line per namespace. Takes fd. */
static void probe_show_ancestry(int fd, ino_t own_ino)
{
    int levels = 0;

    printf("\nNamespace ancestry, walked upwards with ioctl(fd, NS_GET_PARENT)\n");
    while (fd != -1) {
        struct stat st;
        if (fstat(fd, &st) == -1) {
            probe_error(errno, "fstat a namespace fd");
            break;
        }
        printf("  pid:[%lu]  %s\n", (unsigned long)st.st_ino,
               st.st_ino == own_ino ? "this process's namespace"
                                    : "the namespace this process's children go into");
        levels++;
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent == -1) {
            if (errno == EPERM && st.st_ino == PROBE_INITIAL_PIDNS_INO)
                printf("  ioctl(NS_GET_PARENT) -> EPERM: this is the system's initial PID\n"
                       "  namespace, the root of the tree: it has no parent.\n");
            else if (errno == EPERM)
                printf("  ioctl(NS_GET_PARENT) -> EPERM: the parent is outside this process's\n"
                       "  view. A process may walk up to its own PID namespace and no further,\n"
                       "  however many levels NSpid shows above it.\n");
            else if (errno == ENOTTY || errno == EINVAL)
                printf("  ioctl(NS_GET_PARENT): not supported by this kernel (needs Linux 4.9)\n");
            else
                probe_error(errno, "ioctl(NS_GET_PARENT)");
        }
        close(fd);
        fd = parent;
        if (levels == PROBE_MAX_LEVELS && fd != -1) {
            probe_error(0, "ioctl(NS_GET_PARENT): more than %d levels", PROBE_MAX_LEVELS);
            close(fd);
            fd = -1;
        }
    }
}

/* One process of the --parents list, read from /proc/PID. */
struct probe_process {
    char name[64];
    long ppid;
    char ns[64]; /* the pid link, or why it cannot be read */
    char nspid[160];
};

static int probe_read_process(long pid, struct probe_process *proc)
{
    char path[64], *line = NULL;
    size_t cap = 0;
    FILE *f;
    int err;

    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    f = fopen(path, "re");
    if (f == NULL)
        return errno;
    strcpy(proc->name, "?");
    proc->ppid = 0;
    strcpy(proc->nspid, "-");
    while (getline(&line, &cap, f) != -1) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "Name:", 5) == 0)
            snprintf(proc->name, sizeof proc->name, "%s", line + 5 + strspn(line + 5, " \t"));
        else if (strncmp(line, "PPid:", 5) == 0)
            proc->ppid = strtol(line + 5, NULL, 10);
        else if (strncmp(line, "NSpid:", 6) == 0)
            snprintf(proc->nspid, sizeof proc->nspid, "%s", line + 6 + strspn(line + 6, " \t"));
    }
    free(line);
    fclose(f);
    for (char *c = proc->nspid; *c != '\0'; c++)
        if (*c == '\t')
            *c = ' ';
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
    err = probe_readlink(path, proc->ns, sizeof proc->ns);
    if (err != 0) /* another user's process: its links are private */
        snprintf(proc->ns, sizeof proc->ns, "(hidden: %s)", strerror(err));
    return 0;
}

/* --parents: follows PPid upwards through /proc. These numbers belong to the
 * namespace of the procfs at /proc, which may be an ancestor of ours: then it
 * lists processes that this process can read about but cannot signal. */
static void probe_show_parent_chain(void)
{
    struct probe_process proc;
    char previous_ns[64] = "", self[32];
    long pid;
    int err, crossed = 0;

    printf("\nParent processes, as the procfs mounted at /proc lists them (--parents)\n");
    printf("  %-8s %-16s %-20s %s\n", "PID", "NAME", "PID NAMESPACE", "NSpid");
    /* /proc/self points at our PID as that procfs numbers it. */
    err = probe_readlink("/proc/self", self, sizeof self);
    if (err != 0) {
        probe_error(err, "readlink /proc/self");
        return;
    }
    pid = strtol(self, NULL, 10);
    for (int rows = 0; pid > 0 && rows < 4096; rows++) {
        err = probe_read_process(pid, &proc);
        if (err != 0) {
            printf("  %-8ld (gone: %s)\n", pid, strerror(err)); /* it exited meanwhile */
            return;
        }
        /* A hidden link tells nothing: compare only links we could read. */
        if (previous_ns[0] == 'p' && proc.ns[0] == 'p' && strcmp(previous_ns, proc.ns) != 0) {
            printf("  -------- namespace boundary: the process above is in a child namespace\n"
                   "           of this one, and its getppid() returns 0 --------\n");
            crossed = 1;
        }
        printf("  %-8ld %-16s %-20s %s%s\n", pid, proc.name, proc.ns, proc.nspid,
               rows == 0 ? "   <- this process" : "");
        snprintf(previous_ns, sizeof previous_ns, "%s", proc.ns);
        pid = proc.ppid;
    }
    if (crossed)
        printf("  The processes below a boundary are listed only because /proc is a\n"
               "  procfs of an ancestor namespace: this process can read about them, but\n"
               "  kill() and other calls taking a PID cannot reach them.\n");
}

int main(int argc, char *argv[])
{
    static const struct option options[] = {
        {"parents", no_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, parents = 0;
    struct stat own;

    /* Line-buffered even into a pipe or a file: nothing waits in a buffer
     * when we fork, and a reader sees each line as it is made. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((opt = getopt_long(argc, argv, "ph", options, NULL)) != -1) {
        switch (opt) {
        case 'p':
            parents = 1;
            break;
        case 'h':
            probe_usage(stdout);
            return 0;
        default:
            fprintf(stderr, "Try '%s --help' for more information.\n", PROBE_NAME);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help' for more information.\n",
                PROBE_NAME, argv[optind], PROBE_NAME);
        return 1;
    }
    printf("%s: what process %ld can see of its PID namespaces\n\n", PROBE_NAME, (long)getpid());
    if (stat("/proc/self/ns/pid", &own) == -1) {
        probe_error(errno, "stat /proc/self/ns/pid (is procfs mounted at /proc?)");
        return 1;
    }
    probe_show_ids(own.st_ino);
    int deepest = probe_show_links();
    probe_show_nspid();
    probe_show_ancestry(deepest, own.st_ino);
    if (parents)
        probe_show_parent_chain();
    return probe_failed ? 1 : 0;
}
