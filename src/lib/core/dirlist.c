/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory listing by getdents64 (dirlist.h): the records walked in a
 * buffer on the stack, each checked against what the kernel returned.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirlist.h"

int dirlist_fd(int fd, dirlist_fn fn, void *data)
{
	char buf[8192] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof(buf));

		if (n < 0)
			return errno == EINTR ? -EIO : -errno;
		if (n == 0)
			return 0;
		for (size_t off = 0; off < (size_t)n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			const char *name = de->d_name;
			int r;

			if (de->d_reclen < offsetof(struct dirent64, d_name) + 1 || de->d_reclen > (size_t)n - off ||
			    !memchr(name, '\0', de->d_reclen - offsetof(struct dirent64, d_name)))
				return -EIO;
			off += de->d_reclen;
			if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
				continue;
			r = fn(name, de->d_type, data);
			if (r != 0)
				return r;
		}
	}
}

int dirlist_path(const char *path, int extra_flags, dirlist_fn fn, void *data)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | extra_flags);

	if (fd < 0)
		return -errno;
	return dirlist_fd(fd, fn, data);
}
