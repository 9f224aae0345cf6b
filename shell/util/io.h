/* SPDX-License-Identifier: MIT */
/* io.h: the few file-descriptor helpers every part of the tutor uses, each
 * written once: write everything, read a whole (small) file, close what a
 * child must not inherit.
 */
#ifndef PIDNS_TUTOR_IO_H
#define PIDNS_TUTOR_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all of buf, again after EINTR and short writes. Returns 0, or -1
 * (errno set) when the reader is gone or the write fails. */
int io_write_all(int fd, const void *buf, size_t len);

/* Reads fd to its end into a malloc'd NUL-terminated string. NULL with errno
 * on a read error, ENOMEM, or EFBIG when there is more than max bytes. */
char *io_read_fd(int fd, size_t max);
/* The same, with the number of bytes read in *len (the text may hold NULs). */
char *io_read_fd_len(int fd, size_t max, size_t *len);
/* The same for the file at path (relative to dirfd, or AT_FDCWD). */
char *io_read_file(int dirfd, const char *path, size_t max);

/* Closes every fd from first up: children of the shell must not keep its
 * files (the terminal, history, pipes of other jobs) open. */
void io_close_fds_from(int first);
/* Closes every fd but those listed (-1 entries are ignored): a child must not
 * hold, say, a pipe a test or the shell waits to see closed. */
void io_close_fds_except(const int *keep, size_t count);

#endif
