/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Paths resolved once, with no symlink followed; removal through the parent's fd. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "pathfd.h"

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* Only these mean anything beside O_PATH (openat2 refuses the rest). */
#define PATH_FLAGS (O_DIRECTORY | O_NOFOLLOW)

int path_next_component(const char **cursor, char name[static NAME_MAX + 1], bool *last)
{
	const char *c = *cursor + strspn(*cursor, "/");
	size_t n = strcspn(c, "/");

	if (n == 0)
		return 0;
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c, n);
	name[n] = '\0';
	*cursor = c + n;
	*last = c[n + strspn(c + n, "/")] == '\0';
	return 1;
}

int path_open_walk(int dirfd, const char *path, int flags)
{
	_cleanup_close_ int fd = -1;
	const char *c = path;
	struct stat st;

	if (!path[0])
		return -ENOENT;
	fd = openat(path[0] == '/' ? AT_FDCWD : dirfd, path[0] == '/' ? "/" : ".", O_PATH | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	for (;;) {
		char name[NAME_MAX + 1];
		bool last;
		int next, r = path_next_component(&c, name, &last);

		if (r < 0)
			return r;
		if (r == 0)
			break;
		/* O_NOFOLLOW: a symlink opens as itself, and is refused below
		 * unless it is the last component and the caller asked for it */
		next = openat(fd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW | (last ? flags & O_DIRECTORY : 0));
		if (next < 0)
			return -errno;
		close(fd);
		fd = next;
		if (fstat(fd, &st) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW)))
			return -ELOOP;
		if (!last && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	if ((flags & O_DIRECTORY) && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return TAKE_FD(fd);
}

int path_open_nofollow(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(O_PATH | O_CLOEXEC | (flags & PATH_FLAGS)),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(__NR_openat2, dirfd, path, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS)
		return path_open_walk(dirfd, path, flags & PATH_FLAGS);
	return -errno;
}

int path_open_parent(const char *path, char name[static NAME_MAX + 1])
{
	char dir[PATH_MAX];
	size_t n = strlen(path), base;

	while (n > 1 && path[n - 1] == '/')
		n--;
	base = n;
	while (base > 0 && path[base - 1] != '/')
		base--;
	if (base == n || n - base > NAME_MAX || n >= sizeof(dir))
		return -EINVAL; /* "/", "" or a name too long */
	if ((n - base == 1 && path[base] == '.') || (n - base == 2 && path[base] == '.' && path[base + 1] == '.'))
		return -EINVAL;
	memcpy(name, path + base, n - base);
	name[n - base] = '\0';
	if (base == 0)
		return path_open_nofollow(AT_FDCWD, ".", O_DIRECTORY);
	memcpy(dir, path, base);
	dir[base] = '\0';
	return path_open_nofollow(AT_FDCWD, dir, O_DIRECTORY);
}

int path_remove(const char *path, int flags)
{
	char name[NAME_MAX + 1];
	_cleanup_close_ int dfd = path_open_parent(path, name);
	bool dir = flags & AT_REMOVEDIR;
	struct stat st;

	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (dir != S_ISDIR(st.st_mode))
		return dir ? -ENOTDIR : -EISDIR;
	if (unlinkat(dfd, name, dir ? AT_REMOVEDIR : 0) < 0)
		return -errno;
	return 0;
}
