/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Room left in a pipe: what a write end can take now without blocking (its
 * size less what is unread). For the status channel, which nothing reads
 * before the run ends: a writer that would block there would hold up the
 * run (a pipe may be one page when a user is over pipe-user-pages-soft).
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/ioctl.h>

/* -1: not a pipe, or the kernel cannot say (then: assume no room). */
static inline long pipe_room(int fd)
{
	int size = fcntl(fd, F_GETPIPE_SZ), unread = 0;

	if (size < 0 || ioctl(fd, FIONREAD, &unread) < 0)
		return -1;
	return size > unread ? (long)size - unread : 0;
}
