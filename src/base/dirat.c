/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirat.h"

int dir_make_open_at(int dirfd, const char *rel, size_t len, mode_t mode)
{
	_cleanup_close_ int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	const char *at = rel, *end = rel + len;

	if (fd < 0)
		return -errno;
	while (at < end) {
		size_t n;
		_cleanup_free_ char *name = NULL;
		int next;

		while (at < end && *at == '/')
			at++;
		n = 0;
		while (at + n < end && at[n] != '/')
			n++;
		if (n == 0)
			break;
		if (!(name = strndup(at, n)))
			return -ENOMEM;
		if (mkdirat(fd, name, mode) < 0 && errno != EEXIST)
			return -errno;
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return -errno;
		close(fd);
		fd = next;
		at += n;
	}
	return TAKE_FD(fd);
}
