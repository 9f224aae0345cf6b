/* SPDX-License-Identifier: MIT-0 */
/* pidns_peer.c: who is on the other end of a UNIX socket, named by a pidfd
 * rather than by a number.
 *
 * SO_PEERCRED (and SCM_CREDENTIALS) give a server its client's PID, a number
 * that stays valid only until the client is reaped: then the kernel may give
 * it to a newcomer. SO_PEERPIDFD (getsockopt) and SCM_PIDFD (a control message
 * that arrives when the receiver set SO_PASSPIDFD), both Linux 6.5, give a
 * pidfd instead: a descriptor for the process itself. The demo makes a client
 * in a new PID namespace (its PID 1), a server in the caller's namespace, and
 * shows both views: the server's numbers for the client, the client's pidfd
 * for a server it cannot name, then the client's end seen through the pidfd
 * (poll(), waitid(P_PIDFD), fdinfo, and PIDFD_INFO_EXIT of Linux 6.15).
 * --serve/--client/--status: a server that keeps its clients' pidfds and
 * numbers, to compare them once a number has been reused.
 *
 * Build: cc -o pidns_peer pidns_peer.c
 * Run:   sudo ./pidns_peer                (or: unshare -r ./pidns_peer)
 *        ./pidns_peer --serve PATH  |  --client PATH  |  --status PATH
 * Exit status 0, or 1 with one line "pidns_peer: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Not in the headers of Debian 12 (Linux 6.1): the numbers of Linux 6.5
 * (x86 and most architectures) and 6.13/6.15 (struct pidfd_info, 64 bytes). */
#define SO_PASSPIDFD 76
#define SO_PEERPIDFD 77
#define SCM_PIDFD 4
#define PIDFD_INFO_EXIT 8
struct pidfdInfo {
    unsigned long long mask, cgroupid;
    unsigned int pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
    int exitCode; /* a wait status, once the process is reaped (6.15) */
};
#define PIDFD_GET_INFO _IOWR(0xFF, 11, struct pidfdInfo)

#define MAX_CLIENTS 16
static char stack[256 * 1024]; /* the demo client's */
static struct sockaddr_un addr;
static socklen_t addrLen;
static const char *servePath; /* --serve: removed when the server ends */

static void stopHandler(int sig)
{
    if (servePath != NULL)
        unlink(servePath);
    _exit(128 + sig);
}

/* "Pid: N, NSpid: N 1" from /proc/self/fdinfo/FD of a pidfd, into buf. */
static char *fdinfoPids(int fd, char *buf, size_t size)
{
    char path[64], line[256];
    size_t used = 0;
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        for (char *c = line; *c != '\0'; c++)
            *c = *c == '\t' ? ' ' : *c;
        if (strncmp(line, "Pid:", 4) == 0 || strncmp(line, "NSpid:", 6) == 0)
            used += snprintf(buf + used, size - used, "%s%s", used ? ", " : "", line);
        if (used >= size)
            break;
    }
    if (f != NULL)
        fclose(f);
    return buf;
}

/* What PIDFD_GET_INFO says of a pidfd: its pid, or, once reaped, how it ended. */
static char *pidfdInfo(int pidfd, char *buf, size_t size)
{
    // tag::exit[]
    struct pidfdInfo info = {.mask = PIDFD_INFO_EXIT}; /* PIDFD_INFO_PID comes always */
    if (ioctl(pidfd, PIDFD_GET_INFO, &info) == -1)
        snprintf(buf, size, "%s", errno == ENOTTY ? "needs Linux 6.13" : strerrorname_np(errno));
    else if (!(info.mask & PIDFD_INFO_EXIT))
        snprintf(buf, size, "pid %u, running (or no exit information before Linux 6.15)", info.pid);
    else if (WIFEXITED(info.exitCode))
        snprintf(buf, size, "reaped, exit status %d", WEXITSTATUS(info.exitCode));
    else
        snprintf(buf, size, "reaped, killed by SIG%s", sigabbrev_np(WTERMSIG(info.exitCode)));
    // end::exit[]
    return buf;
}

/* SO_PEERCRED's PID of the peer, and a pidfd from SO_PEERPIDFD (-1, errno). */
static pid_t peerNumberAndPidfd(int sock, int *pidfd)
{
    // tag::peer[]
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
        err(EXIT_FAILURE, "getsockopt(SO_PEERCRED)");
    len = sizeof *pidfd;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, pidfd, &len) == -1)
        *pidfd = -1; /* ENOPROTOOPT before Linux 6.5 */
    // end::peer[]
    return cred.pid;
}

/* The demo's client: PID 1 of a new namespace, connected to the server. */
static int clientMain(void *unused __attribute__((unused)))
{
    char byte, buf[128];
    int pidfd, sock = socket(AF_UNIX, SOCK_STREAM, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || sock == -1 ||
        connect(sock, (struct sockaddr *)&addr, addrLen) == -1 || read(sock, &byte, 1) != 1)
        err(EXIT_FAILURE, "the client's socket");
    pid_t server = peerNumberAndPidfd(sock, &pidfd);
    printf("[client] getpid() = %ld; SO_PEERCRED: the server is PID %ld\n", (long)getpid(),
           (long)server);
    if (pidfd >= 0)
        printf("[client] SO_PEERPIDFD: a pidfd all the same; PIDFD_GET_INFO on it: %s\n",
               pidfdInfo(pidfd, buf, sizeof buf));
    if (fflush(stdout) == EOF || write(sock, "h", 1) != 1 || read(sock, &byte, 1) != 1)
        _exit(EXIT_FAILURE);
    _exit(7); /* the status the server will learn */
}

/* The message's SCM_PIDFD descriptor, or -1. */
static int receivePidfd(int sock)
{
    char byte, control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    int fd = -1;
    if (recvmsg(sock, &msg, 0) != 1)
        err(EXIT_FAILURE, "recvmsg");
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_PIDFD)
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* After the client's end: poll(), waitid(P_PIDFD), and what is left. */
static void watchEnd(int conn, int pidfd, pid_t number)
{
    char buf[160];
    siginfo_t si = {0};
    // tag::wait[]
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    int ready = poll(&p, 1, -1); /* readable once the process has ended */
    printf("server: poll() on the pidfd: %s\n", p.revents & POLLIN ? "POLLIN, it ended" : "?");
    if (ready == -1 || waitid(P_PIDFD, pidfd, &si, WEXITED) == -1) /* reaps our child */
        err(EXIT_FAILURE, "poll or waitid(P_PIDFD)");
    printf("server: waitid(P_PIDFD): si_pid %ld, exit status %d\n", (long)si.si_pid, si.si_status);
    // end::wait[]
    printf("server: the pidfd's fdinfo now: %s\n", fdinfoPids(pidfd, buf, sizeof buf));
    printf("server: PIDFD_GET_INFO now: %s\n", pidfdInfo(pidfd, buf, sizeof buf));
    printf("server: SO_PEERCRED still says PID %ld; kill(%ld, 0): %s\n",
           (long)peerNumberAndPidfd(conn, &(int){0}), (long)number,
           kill(number, 0) == -1 ? strerrorname_np(errno) : "a process has that number");
}

static int demo(void)
{
    char buf[160];
    int pidfd, listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    /* An abstract name the kernel chooses (autobind): it leaves no file, and
     * differs from that of a server in another namespace, whose getpid() may
     * be ours. */
    addr.sun_family = AF_UNIX;
    addrLen = sizeof addr;
    if (listener == -1 || bind(listener, (struct sockaddr *)&addr, sizeof(sa_family_t)) == -1 ||
        listen(listener, 1) == -1 ||
        getsockname(listener, (struct sockaddr *)&addr, &addrLen) == -1)
        err(EXIT_FAILURE, "the server's socket");
    pid_t child = clone(clientMain, stack + sizeof stack, CLONE_NEWPID | SIGCHLD, NULL);
    if (child == -1) /* EPERM: needs root, or root in a user namespace (unshare -r) */
        err(EXIT_FAILURE, "clone(CLONE_NEWPID)");
    int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (conn == -1 || setsockopt(conn, SOL_SOCKET, SO_PASSPIDFD, &(int){1}, sizeof(int)) == -1)
        err(EXIT_FAILURE, errno == ENOPROTOOPT ? "SO_PASSPIDFD (needs Linux 6.5)" : "accept");
    printf("server: clone(CLONE_NEWPID) made the client, PID %ld here\n", (long)child);
    pid_t number = peerNumberAndPidfd(conn, &pidfd);
    printf("server: SO_PEERCRED: the client is PID %ld\n", (long)number);
    if (pidfd == -1)
        errx(EXIT_FAILURE, "SO_PEERPIDFD: %s (needs Linux 6.5)", strerrorname_np(errno));
    printf("server: SO_PEERPIDFD: pidfd %d, fdinfo %s\n", pidfd,
           fdinfoPids(pidfd, buf, sizeof buf));
    printf("server: PIDFD_GET_INFO: %s\n", pidfdInfo(pidfd, buf, sizeof buf));
    if (fflush(stdout) == EOF || write(conn, "g", 1) != 1)
        err(EXIT_FAILURE, "write");
    int scmPidfd = receivePidfd(conn); /* waits for the client's turn to end */
    printf("server: SCM_PIDFD with the client's message: pidfd %d, fdinfo %s\n", scmPidfd,
           scmPidfd >= 0 ? fdinfoPids(scmPidfd, buf, sizeof buf) : "(none)");
    if (write(conn, "x", 1) != 1) /* the client may end now */
        err(EXIT_FAILURE, "write");
    watchEnd(conn, pidfd, number);
    return EXIT_SUCCESS;
}

/* --serve: a client's record, kept until the server ends. */
struct client {
    pid_t number; /* from SO_PEERCRED */
    int pidfd;    /* from SO_PEERPIDFD */
    int conn;
};

/* The answer to --status: each client's number and pidfd, now. */
static void report(int out, const struct client *c, int count)
{
    char comm[64] = "", path[64], info[160];
    FILE *f = fdopen(out, "w");
    for (int i = 0; f != NULL && i < count; i++) {
        snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)c[i].number);
        FILE *cmd = fopen(path, "r");
        size_t n = cmd != NULL ? fread(comm, 1, sizeof comm - 1, cmd) : 0;
        for (size_t j = 0; j + 1 < n; j++)
            comm[j] = comm[j] == '\0' ? ' ' : comm[j];
        comm[n] = '\0';
        if (cmd != NULL)
            fclose(cmd);
        fprintf(f, "client %d: SO_PEERCRED said PID %ld; PID %ld now: %s\n", i + 1,
                (long)c[i].number, (long)c[i].number, n > 0 ? comm : "no process");
        fprintf(f, "client %d: its pidfd: %s; PIDFD_GET_INFO: %s\n", i + 1,
                fdinfoPids(c[i].pidfd, path, sizeof path),
                pidfdInfo(c[i].pidfd, info, sizeof info));
    }
    if (f != NULL)
        fclose(f);
    else
        close(out);
}

/* After bind()'s EADDRINUSE: removes PATH if it is a socket nobody listens
 * on (one a killed server left); returns whether it did. */
static int staleSocket(const char *path)
{
    struct stat st;
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int refused = probe >= 0 && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
                  connect(probe, (struct sockaddr *)&addr, sizeof addr) == -1 &&
                  errno == ECONNREFUSED;
    if (probe >= 0)
        close(probe);
    errno = EADDRINUSE;
    return refused && unlink(path) == 0;
}

static int serve(const char *path)
{
    struct client clients[MAX_CLIENTS];
    struct pollfd fds[MAX_CLIENTS + 1];
    char buf[160], byte;
    int count = 0, listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path)
        errx(EXIT_FAILURE, "socket path too long: '%s'", path);
    strcpy(addr.sun_path, path);
    if (listener == -1 ||
        (bind(listener, (struct sockaddr *)&addr, sizeof addr) == -1 &&
         (!staleSocket(path) || bind(listener, (struct sockaddr *)&addr, sizeof addr) == -1)))
        err(EXIT_FAILURE, "cannot listen on %s", path);
    servePath = path;
    if (listen(listener, 4) == -1)
        err(EXIT_FAILURE, "listen");
    printf("server: listening on %s\n", path);
    fds[0] = (struct pollfd){.fd = listener, .events = POLLIN};
    for (;;) {
        if (poll(fds, count + 1, -1) == -1)
            err(EXIT_FAILURE, "poll");
        for (int i = 0; i < count; i++)
            if (fds[i + 1].revents & POLLIN) { /* the pidfd: that client ended */
                printf("server: client %d has ended (poll() on its pidfd)\n", i + 1);
                fds[i + 1].fd = -1;
            }
        if (!(fds[0].revents & POLLIN))
            continue;
        int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (conn == -1 || read(conn, &byte, 1) != 1 || (byte == 'h' && count == MAX_CLIENTS)) {
            if (conn >= 0)
                close(conn);
        } else if (byte == '?') {
            report(conn, clients, count);
        } else {
            struct client *c = &clients[count];
            c->conn = conn;
            c->number = peerNumberAndPidfd(conn, &c->pidfd);
            if (c->pidfd == -1)
                err(EXIT_FAILURE, "SO_PEERPIDFD (needs Linux 6.5)");
            fds[++count] = (struct pollfd){.fd = c->pidfd, .events = POLLIN};
            printf("server: client %d: SO_PEERCRED: PID %ld; SO_PEERPIDFD: fdinfo %s\n", count,
                   (long)c->number, fdinfoPids(c->pidfd, buf, sizeof buf));
        }
    }
}

/* --client and --status: connect, say who we are, and wait or print. */
static int talk(const char *path, int status)
{
    char buf[512];
    ssize_t n;
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path)
        errx(EXIT_FAILURE, "socket path too long: '%s'", path);
    strcpy(addr.sun_path, path);
    if (sock == -1 || connect(sock, (struct sockaddr *)&addr, sizeof addr) == -1)
        err(EXIT_FAILURE, "cannot connect to %s", path);
    if (write(sock, status ? "?" : "h", 1) != 1)
        err(EXIT_FAILURE, "write");
    if (!status)
        printf("client: connected to %s as PID %ld; waiting\n", path, (long)getpid());
    while ((n = read(sock, buf, sizeof buf)) > 0) /* --client: until the server goes */
        if (fwrite(buf, 1, n, stdout) != (size_t)n)
            return EXIT_FAILURE;
    return EXIT_SUCCESS;
}

int main(int argc, char *argv[])
{
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa = {.sa_handler = stopHandler};
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line leaves at once, also into a pipe */
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s  |  %s --serve|--client|--status PATH\n"
               "Show a server's SO_PEERCRED number and SO_PEERPIDFD pidfd for a client in a\n"
               "new PID namespace. --serve PATH keeps its clients' numbers and pidfds;\n"
               "--client PATH connects and stays; --status PATH prints what the server has.\n",
               argv[0], argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc == 1)
        return demo();
    if (strcmp(argv[1], "--serve") != 0 && strcmp(argv[1], "--client") != 0 &&
        strcmp(argv[1], "--status") != 0)
        errx(EXIT_FAILURE, "%s '%s' (try 'pidns_peer --help')",
             argv[1][0] == '-' ? "unknown option" : "unexpected argument", argv[1]);
    if (argc != 3)
        errx(EXIT_FAILURE, "%s needs one PATH (try 'pidns_peer --help')", argv[1]);
    for (size_t i = 0; strcmp(argv[1], "--serve") == 0 && i < 4; i++)
        if (sigaction(stops[i], &sa, NULL) == -1) /* ends it, and removes PATH */
            err(EXIT_FAILURE, "sigaction");
    if (strcmp(argv[1], "--serve") == 0)
        return serve(argv[2]);
    return talk(argv[2], strcmp(argv[1], "--status") == 0);
}
