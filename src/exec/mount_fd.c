/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The new mount API on file descriptors (mount_fd.h), and the one file bind
 * the broker asks for (mount_file_copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "mount_fd.h"
#include "pathfd.h"
#include "runner.h"

int mount_set_attr(int dfd, const char *path, unsigned flags, __u64 set, __u64 clr)
{
	struct mount_attr_v0 attr = { .attr_set = set, .attr_clr = clr };

	if (syscall(__NR_mount_setattr, dfd, path, flags, &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

int mount_clone_at(int at, bool recursive, __u64 attrs)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = (int)syscall(__NR_open_tree, at, "",
			  OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0));
	if (fd < 0)
		return -errno;
	if (attrs && (r = mount_set_attr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, attrs, 0)) < 0)
		return r;
	return TAKE_FD(fd);
}

int mount_clone_tree(const char *path, bool recursive, bool noexec)
{
	_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, path, 0);

	if (at < 0)
		return at;
	return mount_clone_at(at, recursive, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (noexec ? MOUNT_ATTR_NOEXEC : 0));
}

int mount_attach_at(int fd, int at)
{
	if (syscall(__NR_move_mount, fd, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

int mount_attach_name(int fd, int dir, const char *name)
{
	if (syscall(__NR_move_mount, fd, "", dir, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

int mount_attach_tree(int fd, const char *path)
{
	_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, path, 0);

	if (at < 0)
		return at;
	return mount_attach_at(fd, at);
}

int mount_make_point(const char *path, bool dir)
{
	_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, "/", O_DIRECTORY);
	const char *c = path;

	if (at < 0)
		return at;
	for (;;) {
		char name[NAME_MAX + 1];
		bool last;
		int fd, r = path_next_component(&c, name, &last);

		if (r < 0)
			return r;
		if (r == 0)
			return TAKE_FD(at);
		if (!last || dir) {
			if (mkdirat(at, name, 0755) < 0 && errno != EEXIST)
				return -errno;
		} else {
			fd = openat(at, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0)
				return -errno;
			close(fd);
		}
		fd = path_open_nofollow(at, name, !last || dir ? O_DIRECTORY : 0);
		if (fd < 0)
			return fd;
		close(at);
		at = fd;
	}
}

int mount_attach_held(int *fd, const char *path, bool dir)
{
	_cleanup_close_ int held = TAKE_FD(*fd), at = mount_make_point(path, dir);

	return at < 0 ? at : mount_attach_at(held, at);
}

int mount_file_copy(int src, int dir, const char *name)
{
	_cleanup_close_ int tree = -1, at = -1;
	int fd, r;

	fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0755);
	if (fd < 0)
		return -errno;
	close(fd);
	at = path_open_nofollow(dir, name, 0);
	if (at < 0)
		return at;
	tree = mount_clone_at(src, false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (tree < 0)
		return tree;
	/* the clone keeps the flags of the mount src lies on, which the
	 * execute-only gate has made noexec by now: the shim runs */
	r = mount_set_attr(tree, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NOEXEC);
	if (r < 0)
		return r;
	return mount_attach_at(tree, at);
}
