/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "fileio.h"

int read_small(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	ssize_t l;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	l = read(fd, buf, size - 1);
	if (l < 0)
		return -errno;
	buf[l] = '\0';
	return (int)l;
}

int read_fd_capped(int fd, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, size = 0;

	for (;;) {
		ssize_t l;

		if (len == size) {
			size_t ns = size ? size * 2 : 65536;
			char *nb;

			if (ns > max + 1)
				ns = max + 1;
			if (ns <= size)
				return -EFBIG;
			nb = realloc(buf, ns + 1);
			if (!nb)
				return -ENOMEM;
			buf = nb;
			size = ns;
		}
		l = read(fd, buf + len, size - len);
		if (l < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (l == 0)
			break;
		len += (size_t)l;
		if (len > max)
			return -EFBIG;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int read_file_capped(const char *path, size_t max, bool regular_only, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;

	if (!regular_only && strcmp(path, "-") == 0)
		fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (regular_only ? O_NONBLOCK : 0));
	if (fd < 0)
		return -errno;
	if (regular_only) {
		struct stat st;

		if (fstat(fd, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
		if ((uint64_t)st.st_size > max)
			return -EFBIG;
	}
	return read_fd_capped(fd, max, ret, ret_len);
}

CORDON_API int cordon_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	if (!path || !ret || !ret_len)
		return -EINVAL;
	return read_file_capped(path, max, false, ret, ret_len);
}
