/* SPDX-License-Identifier: MIT */
/* test_pidns_peer.c: pidns_peer and pidns_kept on the real kernel.
 *
 * pidns_peer --serve keeps a pidfd for each client: this test finds it in
 * the server's /proc/PID/fd, reads its fdinfo while the client runs (the
 * client's PID) and once we have reaped the client (Pid: -1), and checks
 * that --status then says the number names no process. The demo's numbers
 * and pidns_kept's are compared with the PIDs the programs themselves
 * report; the demo runs beside a process that holds the abstract name its
 * own PID would give. Each case runs in a sandboxed child (examples_run.h), as root and
 * as nobody in a user namespace.
 */
#include "examples_run.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The Pid: of the first pidfd process 'pid' holds, as our /proc numbers it;
 * -2 when it holds none. */
static long held_pidfd_pid(pid_t pid)
{
    char dir[64], path[400], link[64], value[64];
    long found = -2;
    snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && found == -2 && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        link[n > 0 ? n : 0] = '\0';
        snprintf(path, sizeof path, "/proc/%ld/fdinfo/%s", (long)pid, e->d_name);
        if (strcmp(link, "anon_inode:[pidfd]") == 0 &&
            ex_status_field(path, "Pid", value, sizeof value))
            found = strtol(value, NULL, 10);
    }
    if (d != NULL)
        closedir(d);
    return found;
}

static int server_keeps_a_pidfd(void *arg)
{
    int failed = 0;
    long held = -2;
    struct ex_run server = {.pid = 0}, client = {.pid = 0}, status = {.pid = 0};
    (void)arg;
    EXPECT(ex_start(&server, (char *[]){"/ex/pidns_peer", "--serve", "/peer.sock", NULL}) == 0,
           "fork");
    EXPECT(ex_read_until(&server, "listening on /peer.sock\n", 5000), "%s", server.out);
    EXPECT(ex_start(&client, (char *[]){"/ex/pidns_peer", "--client", "/peer.sock", NULL}) == 0,
           "fork");
    EXPECT(ex_read_until(&client, "waiting\n", 5000), "%s", client.out);
    for (int i = 0; i < 100 && (held = held_pidfd_pid(server.pid)) != client.pid; i++)
        usleep(20000);
    EXPECT(held == (long)client.pid, "the server's pidfd names %ld, the client is %ld", held,
           (long)client.pid);
    pid_t number = client.pid;
    EXPECT(kill(client.pid, SIGTERM) == 0, "kill");
    EXPECT(ex_finish(&client, 5000) == 128 + SIGTERM, "%s", client.out); /* reaped here */
    held = held_pidfd_pid(server.pid);
    EXPECT(held == -1, "after the reaping the server's pidfd reads Pid: %ld, not -1", held);
    EXPECT(ex_start(&status, (char *[]){"/ex/pidns_peer", "--status", "/peer.sock", NULL}) == 0,
           "fork");
    EXPECT(ex_finish(&status, 5000) == 0, "%s", status.out);
    EXPECT_LINE(status.out, "SO_PEERCRED said PID %ld; PID %ld now: no process\n", (long)number,
                (long)number);
    EXPECT_LINE(status.out, "its pidfd: Pid: -1");
    EXPECT(kill(server.pid, SIGTERM) == 0, "kill");
    EXPECT(ex_finish(&server, 5000) == 128 + SIGTERM, "%s", server.out);
    EXPECT(access("/peer.sock", F_OK) == -1 && errno == ENOENT, "the server left /peer.sock");
    EXPECT(ex_no_process_left(), "a process outlived the server");
out:
    ex_abandon(&status);
    ex_abandon(&client);
    ex_abandon(&server);
    return failed;
}

static int demo_numbers_agree(void *arg)
{
    int failed = 0;
    struct ex_run r = {.pid = 0};
    (void)arg;
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_peer", NULL}) == 0, "fork");
    EXPECT(ex_finish(&r, 5000) == 0, "%s", r.out);
    long c = tl_number_after(r.out, "made the client, PID ");
    EXPECT(c > 1, "%s", r.out);
    EXPECT_LINE(r.out, "server: SO_PEERCRED: the client is PID %ld\n", c);
    EXPECT_LINE(r.out, "fdinfo Pid: %ld, NSpid: %ld 1\n", c, c);
    EXPECT_LINE(r.out, "[client] getpid() = 1; SO_PEERCRED: the server is PID 0\n");
    EXPECT_LINE(r.out, "server: waitid(P_PIDFD): si_pid %ld, exit status 7\n", c);
    EXPECT_LINE(r.out, "server: the pidfd's fdinfo now: Pid: -1, NSpid: -1\n");
    EXPECT_LINE(r.out, "server: SO_PEERCRED still says PID %ld; kill(%ld, 0): ESRCH\n", c, c);
    EXPECT(ex_no_process_left(), "the client outlived the demo");
out:
    ex_abandon(&r);
    return failed;
}

/* Another lab's server may have our getpid(), and abstract names are shared
 * by every process of the network namespace: the demo, PID 1 of a namespace
 * of its own, must not need a name derived from it ("pidns_peer.1", held
 * here, is what it used to bind and fail on with EADDRINUSE). */
static int demo_beside_a_namesake(void *arg)
{
    int failed = 0;
    struct ex_run r = {.pid = 0};
    struct sockaddr_un held = {.sun_family = AF_UNIX};
    (void)arg;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    size_t n = (size_t)snprintf(held.sun_path + 1, sizeof held.sun_path - 1, "pidns_peer.1");
    EXPECT(fd != -1 && bind(fd, (struct sockaddr *)&held,
                            (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0,
           "holding the abstract name pidns_peer.1: %s", strerror(errno));
    EXPECT(ex_start(&r, (char *[]){"/usr/bin/unshare", "-p", "-f", "/ex/pidns_peer", NULL}) == 0,
           "fork");
    EXPECT(ex_finish(&r, 5000) == 0, "%s", r.out);
    EXPECT_LINE(r.out, "[client] getpid() = 1; SO_PEERCRED: the server is PID 0\n");
    EXPECT(ex_no_process_left(), "the client outlived the demo");
out:
    if (fd != -1)
        close(fd);
    ex_abandon(&r);
    return failed;
}

static int kept_numbers_per_reader(void *arg)
{
    int failed = 0;
    struct ex_run r = {.pid = 0};
    (void)arg;
    EXPECT(ex_start(&r, (char *[]){"/ex/pidns_kept", NULL}) == 0, "fork");
    EXPECT(ex_finish(&r, 5000) == 0, "%s", r.out);
    long a = tl_number_after(r.out, "A is PID 1 in its namespace and ");
    EXPECT(a > 1, "%s", r.out);
    EXPECT_LINE(r.out, "[parent] F_GETOWN: %ld\n", a);
    EXPECT_LINE(r.out, "[A     ] F_GETOWN: 1\n");
    EXPECT_LINE(r.out, "[B     ] F_GETOWN: 0\n");
    EXPECT_LINE(r.out, "[B     ] mq_notify's signal: si_pid 0\n");
    EXPECT_LINE(r.out, "[parent] mq_notify's signal: si_pid %ld\n", a);
    EXPECT_LINE(r.out, "[A     ] mq_notify's signal: si_pid 0\n");
    EXPECT_LINE(r.out, "[B     ] read one of them: pid 0\n");
    EXPECT_LINE(r.out, "[parent] read one of them: pid %ld\n", a);
    EXPECT(ex_no_process_left(), "A or B outlived the program");
out:
    ex_abandon(&r);
    return failed;
}

/* Each case as root and as nobody, on a kernel of at least major.minor
 * (pidns_peer needs SO_PEERPIDFD, 6.5; on 6.1 it fails, as it should). */
#define BOTH_WAYS(fn, major, minor, what)                                                          \
    static void test_##fn(void **state)                                                            \
    {                                                                                              \
        (void)state;                                                                               \
        TL_REQUIRE_ROOT();                                                                         \
        TL_REQUIRE_KERNEL(major, minor, what);                                                     \
        ex_run_test(fn, NULL, false);                                                              \
    }                                                                                              \
    static void test_##fn##_as_nobody(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        TL_REQUIRE_ROOT(); /* to become nobody */                                                  \
        TL_REQUIRE_KERNEL(major, minor, what);                                                     \
        ex_run_test(fn, NULL, true);                                                               \
    }
BOTH_WAYS(server_keeps_a_pidfd, 6, 5, "SO_PEERPIDFD")
BOTH_WAYS(demo_numbers_agree, 6, 5, "SO_PEERPIDFD")
BOTH_WAYS(demo_beside_a_namesake, 6, 5, "SO_PEERPIDFD")
BOTH_WAYS(kept_numbers_per_reader, 3, 8, "PID namespaces")

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_keeps_a_pidfd),
        cmocka_unit_test(test_server_keeps_a_pidfd_as_nobody),
        cmocka_unit_test(test_demo_numbers_agree),
        cmocka_unit_test(test_demo_numbers_agree_as_nobody),
        cmocka_unit_test(test_demo_beside_a_namesake),
        cmocka_unit_test(test_demo_beside_a_namesake_as_nobody),
        cmocka_unit_test(test_kept_numbers_per_reader),
        cmocka_unit_test(test_kept_numbers_per_reader_as_nobody),
    };
    return cmocka_run_group_tests(tests, ex_load, ex_unload);
}
