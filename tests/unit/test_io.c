/* SPDX-License-Identifier: MIT */
/* test_io.c: util/io.c, the one writer, whole-file reader and fd closer of
 * the shell, on memory files and pipes (no privilege, nothing on disk). */
#include "testlib.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG 100000

static int memory_file_with(const char *data, size_t len)
{
    int fd = memfd_create("test_io", MFD_CLOEXEC);
    assert_true(fd != -1);
    assert_int_equal(io_write_all(fd, data, len), 0);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

static void test_read_gets_all_that_was_written(void **state)
{
    (void)state;
    char *data = malloc(BIG);
    assert_non_null(data);
    for (size_t i = 0; i < BIG; i++)
        data[i] = (char)('a' + i % 26);
    int fd = memory_file_with(data, BIG);
    size_t len = 0;
    char *text = io_read_fd_len(fd, BIG, &len);
    assert_non_null(text);
    assert_int_equal(len, BIG);
    assert_memory_equal(text, data, BIG);
    assert_int_equal(text[BIG], '\0');
    free(text);
    /* one byte more than the limit is refused, not cut */
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    errno = 0;
    assert_null(io_read_fd(fd, BIG - 1));
    assert_int_equal(errno, EFBIG);
    close(fd);
    free(data);
}

static void test_read_counts_nul_bytes_and_reads_empty_files(void **state)
{
    (void)state;
    int fd = memory_file_with("a\0b", 3);
    size_t len = 0;
    char *text = io_read_fd_len(fd, 16, &len);
    assert_non_null(text);
    assert_int_equal(len, 3);
    assert_int_equal(text[2], 'b');
    free(text);
    close(fd);
    fd = memory_file_with("", 0);
    text = io_read_fd(fd, 16);
    assert_string_equal(text, "");
    free(text);
    close(fd);
    errno = 0;
    assert_null(io_read_file(AT_FDCWD, "/no-such-dir/file", 16));
    assert_int_equal(errno, ENOENT);
}

static void test_write_fails_when_the_reader_is_gone(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    assert_int_equal(io_write_all(p[1], "x", 1), 0); /* a reader: it works */
    close(p[0]);
    errno = 0;
    assert_int_equal(io_write_all(p[1], "x", 1), -1);
    assert_int_equal(errno, EPIPE);
    signal(SIGPIPE, old);
    close(p[1]);
}

/* In a child: opens fds, closes all but the listed, reports which are open
 * as a bit mask in its exit status (bit i: the i-th opened fd). */
static int open_fds_after(int use_from)
{
    pid_t pid = fork();
    assert_true(pid != -1);
    if (pid == 0) {
        int fds[4];
        for (int i = 0; i < 4; i++)
            fds[i] = fcntl(2, F_DUPFD, 10 + 3 * i);
        if (use_from) {
            io_close_fds_from(fds[2]);
        } else {
            int keep[] = {0, 1, 2, fds[1], -1, fds[3]};
            io_close_fds_except(keep, sizeof keep / sizeof keep[0]);
        }
        int mask = 0;
        for (int i = 0; i < 4; i++)
            mask |= fcntl(fds[i], F_GETFD) != -1 ? 1 << i : 0;
        _exit(fcntl(2, F_GETFD) != -1 ? mask : 64);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_close_keeps_exactly_the_listed_fds(void **state)
{
    (void)state;
    assert_int_equal(open_fds_after(0), (1 << 1) | (1 << 3));
    assert_int_equal(open_fds_after(1), (1 << 0) | (1 << 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_gets_all_that_was_written),
        cmocka_unit_test(test_read_counts_nul_bytes_and_reads_empty_files),
        cmocka_unit_test(test_write_fails_when_the_reader_is_gone),
        cmocka_unit_test(test_close_keeps_exactly_the_listed_fds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
