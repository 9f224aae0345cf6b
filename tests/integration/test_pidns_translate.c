/* SPDX-License-Identifier: MIT */
/* test_pidns_translate.c: PID translation across a PID namespace boundary,
 * on the real kernel, and pidns_translate's numbers against it.
 *
 * The harness itself first plays both sides (examples_run.h's sandbox, as
 * root and as nobody in a user namespace): it listens on a UNIX socket, makes
 * a child in a new PID namespace that connects, and checks what arrives each
 * way: the child's SCM_CREDENTIALS pid 1 as the child's real number, the
 * harness's own as 0 down there, SO_PEERCRED likewise, plain bytes as
 * written; and, on Linux 6.11 and later, the NS_GET_PID_* ioctls (ENOTTY
 * before; EINVAL on a namespace that is not a PID namespace). Then it runs
 * pidns_translate --wait --ioctl and compares every number it prints with
 * the NSpid and PPid lines it reads itself from /proc, and SIGTERM ends it
 * with nothing left.
 */
#include "examples_run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NS_GET_PID_FROM_PIDNS /* older headers (Debian 12's): the values of Linux 6.11 */
#define NS_GET_PID_FROM_PIDNS _IOR(NSIO, 0x6, int)
#define NS_GET_PID_IN_PIDNS _IOR(NSIO, 0x8, int)
#endif

static struct sockaddr_un listen_addr;
static socklen_t listen_addr_len;
static char child_stack[256 * 1024];

/* Sends *value as data, with SCM_CREDENTIALS naming the caller. */
static int send_with_creds(int fd, int value)
{
    _Alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct ucred))] = {0};
    struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
    struct iovec iov = {.iov_base = &value, .iov_len = sizeof value};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_CREDENTIALS;
    cmsg->cmsg_len = CMSG_LEN(sizeof cred);
    memcpy(CMSG_DATA(cmsg), &cred, sizeof cred);
    return sendmsg(fd, &msg, 0) == (ssize_t)sizeof value ? 0 : -1;
}

/* Receives one int of data and the credentials' pid (-1 if none came). */
static int recv_with_creds(int fd, int *value, pid_t *cred_pid)
{
    _Alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {.iov_base = value, .iov_len = sizeof *value};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct ucred cred;
    if (recvmsg(fd, &msg, MSG_WAITALL) != (ssize_t)sizeof *value)
        return -1;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    *cred_pid = -1;
    if (cmsg != NULL && cmsg->cmsg_type == SCM_CREDENTIALS) {
        memcpy(&cred, CMSG_DATA(cmsg), sizeof cred);
        *cred_pid = cred.pid;
    }
    return 0;
}

static pid_t peer_pid(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : -1;
}

/* The child, PID 1 of a new namespace: connects, sends its PID up, receives
 * the harness's, and reports as plain bytes what it got: the credentials'
 * pid, SO_PEERCRED's, and its own getpid(). Then waits for EOF. */
static int child_side(void *arg)
{
    int one = 1, value, report[3];
    pid_t cred_pid;
    char byte;
    (void)arg;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == -1 ||
        connect(fd, (struct sockaddr *)&listen_addr, listen_addr_len) == -1 ||
        send_with_creds(fd, getpid()) == -1 || recv_with_creds(fd, &value, &cred_pid) == -1)
        _exit(3);
    report[0] = cred_pid;
    report[1] = peer_pid(fd);
    report[2] = getpid();
    if (write(fd, report, sizeof report) != (ssize_t)sizeof report)
        _exit(4);
    while (read(fd, &byte, 1) > 0)
        ;
    _exit(0);
}

/* Asks an nsfs ioctl; -errno on failure. */
static int ns_ioctl(int fd, unsigned long request, pid_t pid)
{
    int r = ioctl(fd, request, (unsigned long)pid);
    return r == -1 ? -errno : r;
}

static int harness_sends_and_receives(void *arg)
{
    int failed = 0, one = 1, conn = -1, ns_fd = -1, net_fd = -1, value, report[3];
    pid_t child = -1, cred_pid;
    char path[64], nspid[128];
    (void)arg;

    int listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    listen_addr.sun_family = AF_UNIX;
    listen_addr_len = sizeof listen_addr;
    EXPECT(listen_fd != -1 &&
               setsockopt(listen_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0 &&
               bind(listen_fd, (struct sockaddr *)&listen_addr, sizeof(sa_family_t)) == 0 &&
               listen(listen_fd, 1) == 0 &&
               getsockname(listen_fd, (struct sockaddr *)&listen_addr, &listen_addr_len) == 0,
           "listening socket: %s", strerror(errno));
    child = clone(child_side, child_stack + sizeof child_stack, CLONE_NEWPID | SIGCHLD, NULL);
    EXPECT(child > 0, "clone(CLONE_NEWPID): %s", strerror(errno));
    conn = accept(listen_fd, NULL, NULL);
    EXPECT(conn != -1, "accept: %s", strerror(errno));

    /* Up: data as written (1), credentials and SO_PEERCRED as we number the child. */
    EXPECT(recv_with_creds(conn, &value, &cred_pid) == 0, "nothing came up");
    EXPECT(value == 1, "the child's getpid() as data: %d", value);
    EXPECT(cred_pid == child, "SCM_CREDENTIALS pid %ld, the child is %ld", (long)cred_pid,
           (long)child);
    EXPECT(peer_pid(conn) == child, "SO_PEERCRED pid %ld, the child is %ld", (long)peer_pid(conn),
           (long)child);
    snprintf(path, sizeof path, "/proc/%ld/status", (long)child);
    char expect_nspid[64];
    snprintf(expect_nspid, sizeof expect_nspid, "%ld\t1", (long)child);
    EXPECT(ex_status_field(path, "NSpid", nspid, sizeof nspid) && strcmp(nspid, expect_nspid) == 0,
           "NSpid of the child: '%s'", nspid);

    /* Down: our credentials arrive as 0, SO_PEERCRED too; the child is 1 to itself. */
    EXPECT(send_with_creds(conn, getpid()) == 0, "sendmsg: %s", strerror(errno));
    EXPECT(read(conn, report, sizeof report) == (ssize_t)sizeof report, "no report came up");
    EXPECT(report[0] == 0, "the child received our credentials as pid %d", report[0]);
    EXPECT(report[1] == 0, "the child's SO_PEERCRED: pid %d", report[1]);
    EXPECT(report[2] == 1, "the child's getpid(): %d", report[2]);

    /* On request: the nsfs ioctls (Linux 6.11), with our own /proc reading. */
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)child);
    ns_fd = open(path, O_RDONLY | O_CLOEXEC);
    net_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    EXPECT(ns_fd != -1 && net_fd != -1, "opening ns files: %s", strerror(errno));
    EXPECT(ns_ioctl(ns_fd, _IO(NSIO, 0x7f), 1) == -ENOTTY, "an unknown nsfs request");
    int from = ns_ioctl(ns_fd, NS_GET_PID_FROM_PIDNS, 1);
    if (from == -ENOTTY) {
        print_message("note: no NS_GET_PID_* ioctls on this kernel (before 6.11): not checked\n");
    } else {
        EXPECT(from == child, "NS_GET_PID_FROM_PIDNS(1) = %d, the child is %ld", from, (long)child);
        EXPECT(ns_ioctl(ns_fd, NS_GET_PID_IN_PIDNS, child) == 1, "NS_GET_PID_IN_PIDNS(child)");
        EXPECT(ns_ioctl(ns_fd, NS_GET_PID_IN_PIDNS, getpid()) == -ESRCH,
               "NS_GET_PID_IN_PIDNS(ourselves) = %d",
               ns_ioctl(ns_fd, NS_GET_PID_IN_PIDNS, getpid()));
        EXPECT(ns_ioctl(net_fd, NS_GET_PID_FROM_PIDNS, 1) == -EINVAL, "on a network namespace");
    }
out:
    if (ns_fd != -1)
        close(ns_fd);
    if (net_fd != -1)
        close(net_fd);
    if (conn != -1)
        close(conn); /* the child's read() ends */
    if (listen_fd != -1)
        close(listen_fd);
    if (child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
        if (!failed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            fprintf(stderr, "the child ended with wait status %#x\n", status);
            failed = 1;
        }
    }
    return failed;
}

static void test_credentials_arrive_translated_both_ways(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(harness_sends_and_receives, NULL, false);
}

static void test_credentials_arrive_translated_both_ways_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    ex_run_test(harness_sends_and_receives, NULL, true);
}

static int example_numbers_match_proc(void *arg)
{
    int failed = 0;
    char path[64], value[128], expect[64];
    struct ex_run r = {.pid = 0};
    (void)arg;

    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_translate", "--wait", "--ioctl", NULL}) == 0, "fork");
    EXPECT(ex_read_until(&r, "Ctrl-C ends them\n", 5000), "output so far:\n%s", r.out);
    long parent = r.pid, child = tl_number_after(r.out, "clone() returned ");
    EXPECT(tl_number_after(r.out, "both keep running: the parent is ") == parent, "%s", r.out);
    /* What /proc says, read by us. */
    snprintf(path, sizeof path, "/proc/%ld/status", child);
    snprintf(expect, sizeof expect, "%ld\t1", child);
    EXPECT(ex_status_field(path, "NSpid", value, sizeof value) && strcmp(value, expect) == 0,
           "NSpid of the child %ld: '%s'", child, value);
    snprintf(expect, sizeof expect, "%ld", parent);
    EXPECT(ex_status_field(path, "PPid", value, sizeof value) && strcmp(value, expect) == 0,
           "PPid of the child: '%s'", value);
    snprintf(path, sizeof path, "/proc/%ld/status", parent);
    EXPECT(ex_status_field(path, "NSpid", value, sizeof value) && strcmp(value, expect) == 0,
           "NSpid of the parent: '%s' (one level: no number in the child's namespace)", value);
    /* The example's numbers against it. */
    EXPECT_LINE(r.out, "[up  ] SCM_CREDENTIALS: the child sent pid 1, the parent received %ld\n",
                child);
    EXPECT_LINE(r.out, "[up  ] SO_PEERCRED: the parent reads the child as %ld\n", child);
    EXPECT_LINE(r.out, "[up  ] plain bytes: the parent read 1\n");
    EXPECT_LINE(r.out, "[down] SCM_CREDENTIALS: the parent sent pid %ld, the child received 0\n",
                parent);
    EXPECT_LINE(r.out, "[down] SO_PEERCRED: the child reads the parent as 0\n");
    EXPECT_LINE(r.out, "[down] plain bytes: the child read %ld\n", parent);
    int self_fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    int probe = self_fd == -1 ? -1 : ioctl(self_fd, NS_GET_PID_FROM_PIDNS, (unsigned long)1);
    int missing = probe == -1 && errno == ENOTTY;
    if (self_fd != -1)
        close(self_fd);
    if (missing) {
        EXPECT_LINE(r.out, "[ioctl] NS_GET_PID_FROM_PIDNS: not on this kernel (ENOTTY): needs "
                           "Linux 6.11\n");
    } else {
        const char *child_side = "[ioctl] the child, on the parent's namespace: ";
        const char *parent_side = "[ioctl] the parent, on the child's namespace: ";
        EXPECT_LINE(r.out, "%sNS_GET_PID_IN_PIDNS(1) = %ld\n", child_side, child);
        EXPECT_LINE(r.out, "%sNS_GET_PID_FROM_PIDNS(%ld) = -1, ESRCH\n", child_side, parent);
        EXPECT_LINE(r.out, "%sNS_GET_PID_FROM_PIDNS(1) = %ld\n", parent_side, child);
        EXPECT_LINE(r.out, "%sNS_GET_PID_IN_PIDNS(%ld) = 1\n", parent_side, child);
        EXPECT_LINE(r.out, "%sNS_GET_TGID_IN_PIDNS(%ld) = 1\n", parent_side, child);
        EXPECT_LINE(r.out, "%sNS_GET_PID_IN_PIDNS(%ld) = -1, ESRCH\n", parent_side, parent);
    }
    EXPECT(kill(r.pid, SIGTERM) == 0, "kill: %s", strerror(errno));
    int status = ex_finish(&r, 5000);
    EXPECT(status == 128 + SIGTERM, "exit status %d, output:\n%s", status, r.out);
    EXPECT(ex_no_process_left(), "the child outlived the example");
out:
    ex_abandon(&r);
    return failed;
}

static void test_example_numbers_match_nspid(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    ex_run_test(example_numbers_match_proc, NULL, false);
}

static void test_example_numbers_match_nspid_as_nobody(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT(); /* to become nobody */
    ex_run_test(example_numbers_match_proc, NULL, true);
}

static void test_example_bad_arguments_leave_nothing(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    static const struct bad_case cases[] = {
        {"/ex/pidns_translate x", "unexpected argument 'x'"},
        {"/ex/pidns_translate --bogus", "unknown option '--bogus'"},
        {"/ex/pidns_translate --wait extra", "unexpected argument 'extra'"},
        {NULL, NULL},
    };
    ex_run_test(bad_arguments, (void *)cases, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_credentials_arrive_translated_both_ways),
        cmocka_unit_test(test_credentials_arrive_translated_both_ways_as_nobody),
        cmocka_unit_test(test_example_numbers_match_nspid),
        cmocka_unit_test(test_example_numbers_match_nspid_as_nobody),
        cmocka_unit_test(test_example_bad_arguments_leave_nothing),
    };
    return cmocka_run_group_tests(tests, ex_load, ex_unload);
}
