/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Read at most size-1 bytes of a small file (a /proc or /sys value, a
 * cache file) into buf and NUL-terminate it. Returns the length or -errno. */
int read_small(const char *path, char *buf, size_t size);

/* Read all of path (at most max bytes; -EFBIG beyond) into a malloc'd,
 * NUL-terminated buffer (*ret, length *ret_len). regular_only: refuse
 * anything but a regular file (-EISDIR for a directory, -EINVAL otherwise),
 * opened O_NONBLOCK so a FIFO cannot hang the caller; otherwise "-" means
 * standard input and pipes are read to their end. */
int read_file_capped(const char *path, size_t max, bool regular_only, char **ret, size_t *ret_len);

/* The same from an open fd, read to its end (at most max bytes). */
int read_fd_capped(int fd, size_t max, char **ret, size_t *ret_len);
