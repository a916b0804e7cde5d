/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker_proto.h"
#include "stdio_check.h"

#ifndef PIPEFS_MAGIC
#define PIPEFS_MAGIC 0x50495045
#endif

/* Filesystems whose files never block a write for long and check rights
 * at open only: disk and memory filesystems. Everything else (FUSE, NFS,
 * SMB, 9p, procfs, sysfs, anon inodes, pidfs ...) is refused. */
static bool local_fs(unsigned long t)
{
	static const unsigned long ok[] = {
		EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC,
		F2FS_SUPER_MAGIC, RAMFS_MAGIC, MSDOS_SUPER_MAGIC, EXFAT_SUPER_MAGIC, SQUASHFS_MAGIC,
		0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */, 0x7366746e /* ntfs3 */, ISOFS_SUPER_MAGIC,
		REISERFS_SUPER_MAGIC, HUGETLBFS_MAGIC,
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (t == ok[i])
			return true;
	return false;
}

static bool is_broker_addr(const struct sockaddr_un *a, socklen_t l)
{
	size_t n = sizeof(BROKER_SOCKET) - 1;

	return a->sun_family == AF_UNIX && l >= offsetof(struct sockaddr_un, sun_path) + n &&
	       memcmp(a->sun_path, BROKER_SOCKET, n) == 0 &&
	       (l == offsetof(struct sockaddr_un, sun_path) + n || a->sun_path[n] == '\0');
}

/* NULL, or why this socket may not be a tool's stdio */
static const char *socket_refused(int fd)
{
	struct sockaddr_un a;
	socklen_t l;
	int v = 0;
	socklen_t vl = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) == 0 && v)
		return "a listening socket";
	l = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &l) == 0 && is_broker_addr(&a, l))
		return "the supervisor's broker socket";
	l = sizeof(a);
	if (getpeername(fd, (struct sockaddr *)&a, &l) == 0 && is_broker_addr(&a, l))
		return "a connection to the supervisor's broker";
	return NULL;
}

/* NULL, or why fd may not be stdio number i */
static const char *refused(int i, int fd)
{
	struct stat st;
	struct statfs sf;
	int fl = fcntl(fd, F_GETFL), acc;

	if (fl < 0 || fstat(fd, &st) < 0)
		return "not an open file";
	acc = fl & O_ACCMODE;
	if ((fl & O_PATH) || (i == 0 ? acc == O_WRONLY : acc == O_RDONLY))
		return i == 0 ? "not open for reading" : "not open for writing";
	switch (st.st_mode & S_IFMT) {
	case S_IFIFO:
		if (fstatfs(fd, &sf) < 0 || sf.f_type != PIPEFS_MAGIC)
			return "a named FIFO (only a pipe is passed on)";
		if (acc == O_RDWR)
			return "a pipe opened read-write";
		return NULL;
	case S_IFSOCK:
		return socket_refused(fd);
	case S_IFCHR: {
		unsigned ma = major(st.st_rdev), mi = minor(st.st_rdev);

		/* null, zero, full, random, urandom */
		if (ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9))
			return NULL;
		/* the terminals: asked only of a terminal's device numbers */
		if ((ma == 4 || ma == 5 || (ma >= 136 && ma <= 143)) && isatty(fd))
			return NULL;
		return "a device that is not a terminal";
	}
	case S_IFREG:
		if (fstatfs(fd, &sf) < 0 || !local_fs((unsigned long)sf.f_type))
			return "a file that is not on a local filesystem (an eventfd, a FUSE or network file, "
			       "procfs ...)";
		return NULL;
	case 0:
		return "an eventfd, timerfd, signalfd or other anonymous file";
	default:
		return "not a pipe, socket, terminal or file";
	}
}

int stdio_check(const int io[3], char *why, size_t n)
{
	static const char *const names[] = { "stdin", "stdout", "stderr" };

	for (int i = 0; i < 3; i++) {
		const char *r = refused(i, io[i]);

		if (r) {
			snprintf(why, n, "the caller's %s is %s: a tool's stdio may be a pipe, a socket, a terminal or "
				 "a local file",
				 names[i], r);
			return -EPERM;
		}
	}
	return 0;
}
