/* SPDX-License-Identifier: MIT */
/* test_pidns_pidfd.c: pidns_pidfd on the real kernel, observed from outside.
 *
 * The program's own lines are only a guide: each case reads what the kernel
 * shows of it while it runs (its pidfd in /proc/PID/fd and fdinfo, the
 * init's NSpid, PPid and ns/pid link, the namespaces of a --join child),
 * opens its own pidfd for the init and asks the kernel the same questions
 * (PIDFD_GET_PID_NAMESPACE, PIDFD_GET_INFO), repeats the two refusals from a
 * namespace of its own (pidfd_open ESRCH, pidfd_send_signal EINVAL), and
 * checks with kill(0) that what was ended is gone. Each case runs in a
 * sandboxed child (testlib.h), as root and as nobody in a user namespace.
 */
#include "stage.h"
#include "testlib.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The examples, staged where nobody can run them too (stage.h): a clone
 * under /root is out of nobody's reach. Set by main(). */
static const char *staged;

static const char *example(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", staged, name);
    return path;
}

#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)
struct pidfd_info_v0 {
    unsigned long long mask, cgroupid;
    unsigned int pid, tgid, ppid, ids[8], spare;
};
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfd_info_v0)

static int pidfd_open(pid_t pid)
{
    return syscall(SYS_pidfd_open, pid, 0);
}

/* Starts argv with stdout and stderr into a pipe; *out_fd is its read end. */
static pid_t spawn(char *const argv[], int *out_fd)
{
    int p[2];
    if (pipe(p) == -1)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    *out_fd = p[0];
    return pid;
}

/* Reads from fd into buf until it holds `until` (or EOF, or 10 s pass). */
static int read_until(int fd, char *buf, size_t size, const char *until)
{
    size_t len = strlen(buf);
    double end = tl_now() + 10;
    while (strstr(buf, until) == NULL && tl_now() < end && len + 1 < size) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, buf + len, size - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
    }
    return strstr(buf, until) != NULL;
}

static char *read_file(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

static ino_t ino_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* From a new PID namespace of our own: pidfd_open(our PID) is ESRCH, and a
 * pidfd for us that the child inherited cannot signal us (EINVAL). */
static int refusals_inside(void)
{
    pid_t me = getpid();
    int mine = pidfd_open(me);
    if (mine == -1 || unshare(CLONE_NEWPID) == -1)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        int open_errno = pidfd_open(me) == -1 ? errno : 0;
        int signal_errno = syscall(SYS_pidfd_send_signal, mine, 0, NULL, 0) == -1 ? errno : 0;
        _exit(open_errno == ESRCH && signal_errno == EINVAL ? 0 : 1);
    }
    int status;
    close(mine);
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status)
               ? WEXITSTATUS(status)
               : 1;
}

static int hold_case(void *arg)
{
    (void)arg;
    int failed = 0, out_fd = -1, status, fd = -1, mine = -1, ns = -1;
    long init = 0;
    char buf[8192] = "", path[128], text[4096], want[256], link[128] = "";
    char *argv[] = {(char *)example("pidns_pidfd"), "--hold", NULL};
    pid_t prog = spawn(argv, &out_fd);
    EXPECT(prog > 0 && read_until(out_fd, buf, sizeof buf, "holding pidfd"), "output:\n%s", buf);
    EXPECT(sscanf(strstr(buf, "): PID "), "): PID %ld, pidfd %d", &init, &fd) == 2, "%s", buf);
    /* The pidfd in the program's fd table, and its fdinfo numbers. */
    snprintf(path, sizeof path, "/proc/%d/fd/%d", prog, fd);
    EXPECT(readlink(path, link, sizeof link - 1) > 0 && strcmp(link, "anon_inode:[pidfd]") == 0,
           "%s -> %s", path, link);
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", prog, fd);
    snprintf(want, sizeof want, "\nPid:\t%ld\nNSpid:\t%ld\t1\n", init, init);
    EXPECT(strstr(read_file(path, text, sizeof text), want) != NULL, "%s:\n%s", path, text);
    /* The init: the program's child, PID 1 of a namespace that is not ours. */
    snprintf(path, sizeof path, "/proc/%ld/status", init);
    snprintf(want, sizeof want, "\nPPid:\t%d\n", prog);
    EXPECT(strstr(read_file(path, text, sizeof text), want) != NULL, "%s", text);
    snprintf(want, sizeof want, "\nNSpid:\t%ld\t1\n", init);
    EXPECT(strstr(text, want) != NULL, "%s", text);
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", init);
    EXPECT(ino_of(path) != ino_of("/proc/self/ns/pid"), "the init shares our namespace");
    /* Our own pidfd for the init: the same namespace, the same number. */
    mine = pidfd_open((pid_t)init);
    EXPECT(mine >= 0, "pidfd_open(%ld): %s", init, strerror(errno));
    ns = ioctl(mine, PIDFD_GET_PID_NAMESPACE, 0);
    if (ns == -1 && errno == ENOTTY) {
        print_message("SKIP: PIDFD_GET_PID_NAMESPACE needs Linux 6.11\n");
    } else {
        struct stat st;
        EXPECT(ns >= 0 && fstat(ns, &st) == 0 && st.st_ino == ino_of(path), "ns inode differs");
        snprintf(want, sizeof want, "PIDFD_GET_PID_NAMESPACE: pid:[%lu], the inode of %s",
                 (unsigned long)st.st_ino, path);
        EXPECT(strstr(buf, want) != NULL, "missing \"%s\" in:\n%s", want, buf);
    }
    struct pidfd_info_v0 info = {.mask = 1};
    if (ioctl(mine, PIDFD_GET_INFO_V0, &info) == 0)
        EXPECT(info.pid == init && info.tgid == init, "PIDFD_GET_INFO pid %u", info.pid);
    EXPECT(strstr(buf, "the parent's PID: ESRCH") && strstr(buf, "parent's pidfd: EINVAL"), "%s",
           buf);
    EXPECT(refusals_inside() == 0, "pidfd_open/pidfd_send_signal from inside were not refused");
    /* SIGTERM: the program ends the init through its pidfd, and exits 0. */
    EXPECT(kill((pid_t)init, 0) == 0, "the init is gone before SIGTERM");
    EXPECT(kill(prog, SIGTERM) == 0 && waitpid(prog, &status, 0) == prog, "wait");
    prog = -1;
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    EXPECT(kill((pid_t)init, 0) == -1 && errno == ESRCH, "the init outlived the program");
    EXPECT(read_until(out_fd, buf, sizeof buf, "killed by SIGKILL"), "%s", buf);
out:
    if (prog > 0) {
        kill(prog, SIGKILL);
        waitpid(prog, NULL, 0);
    }
    if (ns >= 0)
        close(ns);
    if (mine >= 0)
        close(mine);
    if (out_fd >= 0)
        close(out_fd);
    return failed;
}

/* The PID of the child of parent (0 when none yet); polls for up to 5 s. */
static pid_t child_of(pid_t parent)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", parent, parent);
    for (double end = tl_now() + 5; tl_now() < end; usleep(20000))
        if (atoi(read_file(path, text, sizeof text)) > 0)
            return atoi(text);
    return 0;
}

static int same_ns(pid_t a, pid_t b, const char *kind)
{
    char pa[64], pb[64];
    snprintf(pa, sizeof pa, "/proc/%d/ns/%s", a, kind);
    snprintf(pb, sizeof pb, "/proc/%d/ns/%s", b, kind);
    return ino_of(pa) != 0 && ino_of(pa) == ino_of(pb);
}

/* --join S pid,mnt: the child is in both of the box's namespaces, the
 * joiner stays in our PID namespace (a mount namespace moves the caller, a
 * PID namespace only its next children); with pid only, the child's mount
 * namespace is ours. */
static int join_case(void *arg)
{
    (void)arg;
    int failed = 0, box_out = -1, join_out = -1, status;
    char spid[32];
    char *box_argv[] = {"unshare", "--pid", "--fork", "--mount-proc", "sleep", "1180", NULL};
    pid_t box = spawn(box_argv, &box_out), join = -1, sleeper = box > 0 ? child_of(box) : 0;
    EXPECT(sleeper > 0, "no box");
    snprintf(spid, sizeof spid, "%d", sleeper);
    for (int round = 0; round < 2; round++) {
        char *join_argv[] = {(char *)example("pidns_pidfd"),
                             "--join",
                             spid,
                             round == 0 ? "pid,mnt" : "pid",
                             "sleep",
                             "1181",
                             NULL};
        join = spawn(join_argv, &join_out);
        pid_t c = join > 0 ? child_of(join) : 0;
        EXPECT(c > 0 && same_ns(c, sleeper, "pid"), "round %d: not in the box's pid ns", round);
        EXPECT(same_ns(c, sleeper, "mnt") == (round == 0), "round %d: mnt ns", round);
        EXPECT(same_ns(join, getpid(), "pid"), "the joiner itself left our PID namespace");
        EXPECT(kill(join, SIGTERM) == 0 && waitpid(join, &status, 0) == join, "wait joiner");
        join = -1;
        EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM, "status %#x", status);
        for (double end = tl_now() + 5; kill(c, 0) == 0 && tl_now() < end;)
            usleep(20000);
        EXPECT(kill(c, 0) == -1 && errno == ESRCH, "the joined sleep outlived the joiner");
        close(join_out);
        join_out = -1;
    }
out:
    if (join > 0) {
        kill(join, SIGKILL);
        waitpid(join, NULL, 0);
    }
    if (sleeper > 0)
        kill(sleeper, SIGKILL);
    if (box > 0)
        waitpid(box, NULL, 0);
    if (box_out >= 0)
        close(box_out);
    if (join_out >= 0)
        close(join_out);
    return failed;
}

static void test_hold_pidfd_names_the_new_namespaces_init(void **state)
{
    (void)state;
    tl_run_sandboxed(hold_case, false);
}

static void test_hold_pidfd_as_nobody_in_a_user_namespace(void **state)
{
    (void)state;
    tl_run_sandboxed(hold_case, true);
}

static void test_join_enters_pid_and_mnt_by_one_setns(void **state)
{
    (void)state;
    tl_run_sandboxed(join_case, false);
}

static void test_join_as_nobody_in_a_user_namespace(void **state)
{
    (void)state;
    tl_run_sandboxed(join_case, true);
}

/* Bad arguments: one line naming the mistake, status 1, nothing started. */
static void test_bad_usage_says_what_is_wrong(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = tl_shf(&out,
                    "p=%s; $p x; echo s=$?; $p --hold y; echo s=$?; $p --join 1; echo s=$?;"
                    " $p --join abc pid true; echo s=$?; $p --join 1 foo true; echo s=$?",
                    example("pidns_pidfd"));
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "pidns_pidfd: unexpected argument 'x' (try 'pidns_pidfd --help')"));
    assert_non_null(strstr(out, "pidns_pidfd: unexpected argument 'y'"));
    assert_non_null(strstr(out, "pidns_pidfd: --join needs PID, NS and COMMAND"));
    assert_non_null(strstr(out, "pidns_pidfd: not a PID: 'abc'"));
    assert_non_null(strstr(out, "pidns_pidfd: unknown namespace 'foo'"));
    assert_null(strstr(out, "s=0"));
    assert_null(strstr(out, "clone("));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hold_pidfd_names_the_new_namespaces_init),
        cmocka_unit_test(test_hold_pidfd_as_nobody_in_a_user_namespace),
        cmocka_unit_test(test_join_enters_pid_and_mnt_by_one_setns),
        cmocka_unit_test(test_join_as_nobody_in_a_user_namespace),
        cmocka_unit_test(test_bad_usage_says_what_is_wrong),
    };
    staged = tl_stage_examples();
    if (staged == NULL)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tl_unstage();
    return failed;
}
