/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Keeping the standard fds apart from the ones a program makes (stdfd.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "stdfd.h"

int stdfd_sanitise(void)
{
	int null_fd = -1;

	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* not close-on-exec: it is the program's stdio from now on */
		if (null_fd < 0) {
			null_fd = open("/dev/null", O_RDWR | O_NOCTTY);
			if (null_fd < 0)
				return -errno;
			/* the lowest free fd: this one */
			if (null_fd == fd)
				continue;
		}
		if (dup2(null_fd, fd) < 0) {
			int r = -errno;

			if (null_fd > 2)
				close(null_fd);
			return r;
		}
	}
	if (null_fd > 2)
		close(null_fd);
	return 0;
}

int stdfd_move_above(int fd)
{
	int copy;

	if (fd > 2)
		return fd;
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		copy = -errno;
	close(fd);
	return copy;
}
