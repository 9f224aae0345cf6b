/* SPDX-License-Identifier: MIT */
/* io.c: writing everything, reading a whole file, closing inherited fds.
 * See io.h.
 */
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int io_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

char *io_read_fd_len(int fd, size_t max, size_t *len_out)
{
    /* A regular file says its size: one buffer of that size (and a byte to
     * see it end) is read in one go; a pipe or a /proc file grows it. */
    struct stat st;
    size_t len = 0, cap = 4096;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size < max)
        cap = (size_t)st.st_size + 2;
    char *buf = malloc(cap);
    while (buf != NULL) {
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n == -1 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == -1) {
                free(buf);
                buf = NULL;
            }
            break;
        }
        len += (size_t)n;
        if (len > max) {
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        if (cap - len < 2) {
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    if (buf != NULL)
        buf[len] = '\0';
    if (len_out != NULL)
        *len_out = len;
    return buf;
}

char *io_read_fd(int fd, size_t max)
{
    return io_read_fd_len(fd, max, NULL);
}

char *io_read_file(int dirfd, const char *path, size_t max)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return NULL;
    char *text = io_read_fd(fd, max);
    int saved = errno;
    close(fd);
    errno = saved;
    return text;
}

static int is_kept(int fd, const int *keep, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (keep[i] == fd)
            return 1;
    return 0;
}

void io_close_fds_from(int first)
{
    if (first < 0)
        first = 0;
    if (close_range((unsigned)first, ~0U, 0) == 0)
        return;
    int keep[3] = {0, 1, 2};
    io_close_fds_except(keep, first < 3 ? (size_t)first : 3);
}

void io_close_fds_except(const int *keep, size_t count)
{
    /* close_range() over the gaps between the kept fds, lowest first. */
    int highest = -1;
    for (size_t i = 0; i < count; i++)
        if (keep[i] > highest)
            highest = keep[i];
    int from = 0;
    while (from <= highest) {
        if (is_kept(from, keep, count)) {
            from++;
            continue;
        }
        int to = from;
        while (to + 1 <= highest && !is_kept(to + 1, keep, count))
            to++;
        if (close_range((unsigned)from, (unsigned)to, 0) == -1)
            for (int fd = from; fd <= to; fd++)
                close(fd);
        from = to + 1;
    }
    if (close_range((unsigned)highest + 1, ~0U, 0) == -1)
        for (int fd = highest + 1; fd < 1024; fd++)
            close(fd);
}
