/* SPDX-License-Identifier: MIT-0 */
/* pidns_nsid.c: names for a namespace that are never given to another one:
 * the 64-bit namespace ID and the nsfs file handle, beside the inode number
 * of "pid:[N]", which the kernel hands out again once a namespace is gone.
 *
 * ioctl(fd, NS_GET_ID) (Linux 6.18) on a namespace file returns its ID, a
 * 64-bit number the kernel never gives to a second namespace while it runs.
 * name_to_handle_at() on a namespace file (6.18) returns a file handle that
 * holds the ID, the type and the inode; open_by_handle_at() turns it back
 * into a descriptor while that namespace exists, and fails with ESTALE once
 * it is gone, never opening another one. The caller must be in the namespace,
 * or hold CAP_SYS_ADMIN in the initial user and PID namespaces (EPERM).
 * listns() (6.19) lists namespace IDs without walking /proc.
 *
 * Build: cc -o pidns_nsid pidns_nsid.c
 * Run:   ./pidns_nsid [FILE...]          each file's inode and ID
 *        ./pidns_nsid --save HANDLE FILE  store FILE's handle in HANDLE
 *        ./pidns_nsid --open HANDLE       what HANDLE names, and open it
 *        sudo ./pidns_nsid --reuse [--ids]  (or unshare -r ./pidns_nsid ...)
 *        sudo ./pidns_nsid --reuse --open HANDLE
 *        ./pidns_nsid --list              listns(): the PID namespaces
 * Prints lines such as "/proc/self/ns/pid: pid:[4026531836], id 8".
 * Exit status 0, or 1 with one line "pidns_nsid: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NSIO 0xb7                           /* <linux/nsfs.h> */
#define NS_GET_NSTYPE_ _IO(NSIO, 0x3)       /* Linux 4.11 */
#define NS_GET_ID_ _IOR(NSIO, 13, uint64_t) /* Linux 6.18 */
#define FILEID_NSFS_ 0xf1                   /* the handle type of nsfs */
#define SYS_LISTNS_ 470                     /* Linux 6.19, every architecture */
#define HANDLE_MAX 128                      /* MAX_HANDLE_SZ */
#define ID_UNKNOWN UINT64_MAX
#define ROUND_TRIES 2000 /* --reuse: tries for one number to come back */
#define ROUNDS 5         /* --reuse: numbers tried, one after another */

struct nsfsHandle { /* struct nsfs_file_handle, the bytes of f_handle */
    uint64_t nsId;
    uint32_t nsType; /* a CLONE_NEW* flag */
    uint32_t nsInum; /* the inode number */
};

struct nsIdReq { /* struct ns_id_req, listns()'s first argument */
    uint32_t size, spare;
    uint64_t nsId;
    uint32_t nsType, spare2;
    uint64_t userNsId;
};

static const char *typeName(uint32_t type)
{
    static const struct {
        uint32_t flag;
        const char *name;
    } names[] = {{CLONE_NEWPID, "pid"},       {CLONE_NEWUSER, "user"},
                 {CLONE_NEWNS, "mnt"},        {CLONE_NEWNET, "net"},
                 {CLONE_NEWUTS, "uts"},       {CLONE_NEWIPC, "ipc"},
                 {CLONE_NEWCGROUP, "cgroup"}, {0x80 /* CLONE_NEWTIME */, "time"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].flag == type)
            return names[i].name;
    return "?";
}

// tag::id[]
/* The namespace's 64-bit ID, or ID_UNKNOWN: ENOTTY before Linux 6.18. */
static uint64_t namespaceId(int fd)
{
    uint64_t id;
    return ioctl(fd, NS_GET_ID_, &id) == 0 ? id : ID_UNKNOWN;
}
// end::id[]

static void printId(uint64_t id)
{
    if (id == ID_UNKNOWN)
        printf("id unknown (NS_GET_ID needs Linux 6.18)\n");
    else
        printf("id %" PRIu64 "\n", id);
}

/* FILE: type:[inode], id N. */
static void describe(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 || fstat(fd, &st) == -1)
        err(EXIT_FAILURE, "%s", path);
    int type = ioctl(fd, NS_GET_NSTYPE_);
    if (type == -1)
        errx(EXIT_FAILURE, "%s: not a namespace file", path);
    printf("%s: %s:[%lu], ", path, typeName((uint32_t)type), (unsigned long)st.st_ino);
    printId(namespaceId(fd));
    close(fd);
}

// tag::save[]
/* Stores the file handle of namespace file PATH in HANDLE: the struct
 * file_handle as name_to_handle_at() fills it, header and bytes. */
static void saveHandle(const char *handlePath, const char *path)
{
    struct {
        struct file_handle fh;
        unsigned char bytes[HANDLE_MAX];
    } h = {.fh.handle_bytes = HANDLE_MAX};
    int mountId, fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        err(EXIT_FAILURE, "%s", path);
    /* AT_EMPTY_PATH: the handle of fd itself, the nsfs file (a path such as
     * /proc/self/ns/pid would name the procfs link unless followed) */
    if (name_to_handle_at(fd, "", &h.fh, &mountId, AT_EMPTY_PATH) == -1)
        err(EXIT_FAILURE, "name_to_handle_at(%s)%s", path,
            errno == EOPNOTSUPP ? " (nsfs file handles need Linux 6.18)" : "");
    // end::save[]
    FILE *out = fopen(handlePath, "we");
    size_t size = sizeof h.fh + h.fh.handle_bytes;
    if (out == NULL || fwrite(&h, 1, size, out) != size || fclose(out) != 0)
        err(EXIT_FAILURE, "%s", handlePath);
    close(fd);
    printf("%s: a handle of type 0x%x, %u bytes, saved to %s\n", path, (unsigned)h.fh.handle_type,
           h.fh.handle_bytes, handlePath);
}

/* Reads a handle saved by --save; exits on anything else. */
static void readHandle(const char *handlePath, struct file_handle *fh)
{
    unsigned char extra;
    FILE *in = fopen(handlePath, "re");
    if (in == NULL)
        err(EXIT_FAILURE, "%s", handlePath);
    if (fread(fh, 1, sizeof *fh, in) != sizeof *fh || fh->handle_bytes > HANDLE_MAX ||
        fread(fh->f_handle, 1, fh->handle_bytes, in) != fh->handle_bytes ||
        fread(&extra, 1, 1, in) != 0 || fh->handle_type != FILEID_NSFS_ ||
        fh->handle_bytes < sizeof(struct nsfsHandle))
        errx(EXIT_FAILURE, "%s: not a namespace file handle saved by 'pidns_nsid --save'",
             handlePath);
    fclose(in);
}

// tag::open[]
/* What the handle says, then what open_by_handle_at() makes of it. */
static int openHandle(const char *handlePath)
{
    struct {
        struct file_handle fh;
        unsigned char bytes[HANDLE_MAX];
    } h;
    struct nsfsHandle nh;
    readHandle(handlePath, &h.fh);
    memcpy(&nh, h.fh.f_handle, sizeof nh);
    printf("%s: id %" PRIu64 ", type %s, inode %" PRIu32 "\n", handlePath, nh.nsId,
           typeName(nh.nsType), nh.nsInum);
    /* Any descriptor on nsfs tells the kernel which file system decodes it. */
    int mountFd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    int fd = open_by_handle_at(mountFd, &h.fh, O_RDONLY | O_CLOEXEC);
    if (fd == -1) {
        printf("open_by_handle_at: %s (%s)%s\n", strerrorname_np(errno), strerror(errno),
               errno == ESTALE  ? ": no namespace has that ID now"
               : errno == EPERM ? ": not a namespace this process is in"
                                : "");
        return EXIT_FAILURE;
    }
    // end::open[]
    struct stat st;
    if (fstat(fd, &st) == -1)
        err(EXIT_FAILURE, "fstat");
    printf("open_by_handle_at: %s:[%lu], ", typeName(nh.nsType), (unsigned long)st.st_ino);
    printId(namespaceId(fd));
    close(fd);
    close(mountFd);
    return EXIT_SUCCESS;
}

struct probe {
    ino_t ino;
    uint64_t id;
    int err;
};
static char probeStack[64 * 1024]; /* each child's; it runs on its own copy */
static int toChild[2], fromChild[2];
static const char *handleToOpen; /* --reuse --open: the handle the newcomer opens */

/* PID 1 of a new namespace: sends its namespace's inode and ID, then waits
 * for one byte: 'o' to open the handle from inside, anything else to end. */
static int probeMain(void *arg)
{
    (void)arg;
    struct stat st;
    struct probe r;
    memset(&r, 0, sizeof r); /* its padding too: the struct is written whole to a pipe */
    r.id = ID_UNKNOWN;
    char what = 0;
    int fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (fd == -1 || fstat(fd, &st) == -1)
        r.err = errno;
    else
        r.ino = st.st_ino, r.id = namespaceId(fd);
    if (write(fromChild[1], &r, sizeof r) != sizeof r || read(toChild[0], &what, 1) != 1)
        return 1;
    if (what == 'o') {
        printf("inside the newcomer, PID %ld there:\n", (long)getpid());
        return openHandle(handleToOpen);
    }
    return 0;
}

/* A new PID namespace; its init reports and waits for our word (what). */
static pid_t newNamespace(struct probe *r)
{
    pid_t child = clone(probeMain, probeStack + sizeof probeStack, CLONE_NEWPID | SIGCHLD, NULL);
    if (child == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    if (read(fromChild[0], r, sizeof *r) != sizeof *r)
        errx(EXIT_FAILURE, "the namespace's init sent nothing");
    if (r->ino == 0)
        errx(EXIT_FAILURE, "/proc/self/ns/pid in the new namespace: %s", strerror(r->err));
    return child;
}

/* Tells the init what to do and waits for it; keep: hold its namespace
 * open first, so that the next one cannot get its inode. Returns the fd. */
static int release(pid_t child, char what, int keep)
{
    char path[64];
    int fd = -1, status;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)child);
    if (keep && (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        err(EXIT_FAILURE, "%s", path);
    if (write(toChild[1], &what, 1) != 1 || waitpid(child, &status, 0) == -1)
        err(EXIT_FAILURE, "the namespace's init");
    return fd;
}

// tag::reuse[]
/* One round: new PID namespaces until one gets the inode `target`, which
 * another one had. Those that get a lower (free) number are held open
 * meanwhile, so that the next ones climb; a higher one means `target` is
 * not free yet, or that another namespace on the machine took it (the
 * numbers are shared by all). Returns 1 when it came back. */
static int reuseRound(ino_t target, uint64_t targetId, int ids)
{
    struct probe r;
    int held[ROUND_TRIES], kept = 0, back = 0;
    for (int i = 1; i <= ROUND_TRIES && !back; i++) {
        pid_t child = newNamespace(&r);
        if (r.ino != target) {
            if ((held[kept] = release(child, 'x', r.ino < target)) != -1)
                kept++;
            if (r.ino > target)
                usleep(1000); /* the old one is freed after an RCU grace period */
            continue;
        }
        printf("made again until that inode came back: %d tries, %d held meanwhile\n", i, kept);
        printf("the newcomer: pid:[%lu]%s", (unsigned long)r.ino, ids ? ", " : "\n");
        if (ids)
            printId(r.id);
        if (ids && r.id != ID_UNKNOWN && targetId != ID_UNKNOWN)
            printf("inode reused: yes; ID reused: %s\n", r.id == targetId ? "yes" : "no");
        release(child, handleToOpen != NULL ? 'o' : 'x', 0);
        back = 1;
    }
    if (!back)
        printf("pid:[%lu] did not come back in %d tries (another namespace may hold it)\n",
               (unsigned long)target, ROUND_TRIES);
    while (kept > 0)
        close(held[--kept]);
    return back;
}
// end::reuse[]

/* --reuse: the namespace a handle names, one round; or a namespace made
 * and left, and a new one for each round whose number was taken. */
static int reuseMode(int ids)
{
    struct probe r;
    if (pipe2(toChild, O_CLOEXEC) == -1 || pipe2(fromChild, O_CLOEXEC) == -1)
        err(EXIT_FAILURE, "pipe2");
    if (handleToOpen != NULL) {
        struct {
            struct file_handle fh;
            unsigned char bytes[HANDLE_MAX];
        } h;
        struct nsfsHandle nh;
        readHandle(handleToOpen, &h.fh);
        memcpy(&nh, h.fh.f_handle, sizeof nh);
        printf("%s names pid:[%lu]\n", handleToOpen, (unsigned long)nh.nsInum);
        if (reuseRound(nh.nsInum, nh.nsId, ids))
            return EXIT_SUCCESS;
        printf("(or its own namespace lives still: 'pidns_nsid --open %s' tells)\n", handleToOpen);
        return EXIT_FAILURE;
    }
    for (int round = 1; round <= ROUNDS; round++) {
        release(newNamespace(&r), 'x', 0);
        printf("made and left: pid:[%lu]%s", (unsigned long)r.ino, ids ? ", " : "\n");
        if (ids)
            printId(r.id);
        if (reuseRound(r.ino, r.id, ids))
            return EXIT_SUCCESS;
    }
    printf("no number came back in %d rounds\n", ROUNDS);
    return EXIT_FAILURE;
}

/* listns(): the IDs of the PID namespaces this process may see. */
static int list(void)
{
    struct nsIdReq req = {.size = sizeof req, .nsType = CLONE_NEWPID};
    uint64_t ids[256];
    long n = syscall(SYS_LISTNS_, &req, ids, sizeof ids / sizeof ids[0], 0);
    if (n == -1)
        errx(EXIT_FAILURE, "listns: %s%s", strerror(errno),
             errno == ENOSYS ? " (it needs Linux 6.19)" : "");
    printf("listns(): %ld PID namespace(s) visible here\n", n);
    for (long i = 0; i < n; i++)
        printf("  id %" PRIu64 "\n", ids[i]);
    return EXIT_SUCCESS;
}

static void usage(const char *name)
{
    printf("Usage: %s [FILE...]             each namespace file's inode and 64-bit ID\n"
           "       %s --save HANDLE FILE    store FILE's nsfs file handle in HANDLE\n"
           "       %s --open HANDLE         what HANDLE names; open it (ESTALE once gone)\n"
           "       %s --reuse [--ids]       new PID namespaces until an inode comes back\n"
           "       %s --reuse --open HANDLE the same for HANDLE's inode, which opens it\n"
           "       %s --list                listns(): the PID namespaces (Linux 6.19)\n"
           "FILE defaults to /proc/self/ns/pid. IDs and handles need Linux 6.18.\n",
           name, name, name, name, name, name);
}

static void needArgs(int argc, int want, const char *what)
{
    if (argc != want)
        errx(EXIT_FAILURE, "%s (try 'pidns_nsid --help')", what);
}

int main(int argc, char *argv[])
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    const char *opt = argc > 1 ? argv[1] : "";
    if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
        usage(argv[0]);
        return EXIT_SUCCESS;
    }
    if (!strcmp(opt, "--save")) {
        needArgs(argc, 4, "--save takes HANDLE and FILE");
        saveHandle(argv[2], argv[3]);
        return EXIT_SUCCESS;
    }
    if (!strcmp(opt, "--open")) {
        needArgs(argc, 3, "--open takes one HANDLE");
        return openHandle(argv[2]);
    }
    if (!strcmp(opt, "--list")) {
        needArgs(argc, 2, "--list takes no argument");
        return list();
    }
    if (!strcmp(opt, "--reuse")) {
        int ids = 0;
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--ids"))
                ids = 1;
            else if (!strcmp(argv[i], "--open") && i + 1 < argc)
                handleToOpen = argv[++i];
            else
                errx(EXIT_FAILURE,
                     "--reuse takes --ids or --open HANDLE, not '%s' (try 'pidns_nsid --help')",
                     argv[i]);
        return reuseMode(ids);
    }
    if (opt[0] == '-')
        errx(EXIT_FAILURE, "unknown option '%s' (try 'pidns_nsid --help')", opt);
    if (argc == 1)
        describe("/proc/self/ns/pid");
    for (int i = 1; i < argc; i++)
        describe(argv[i]);
    return EXIT_SUCCESS;
}
