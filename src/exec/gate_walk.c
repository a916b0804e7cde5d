/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's walk (see gate_walk.h). One component at a time from
 * the caller's directory (pidfd_getfd of its dirfd, /proc/TID/cwd for
 * AT_FDCWD, / for an absolute path): a symlink is read and spliced in
 * (absolute: from /), "self" and "thread-self" in /proc's root are the
 * caller's TID, and procfs magic links (fd/N, cwd, root, exe) are followed
 * by the kernel, which jumps to the caller's file. The parent ends as an
 * O_PATH fd; the check and the call both use it and one component name,
 * so nothing is looked up twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "gate_common.h"
#include "gate_walk.h"

#define MAX_HOPS 40     /* the kernel's MAXSYMLINKS */
#define PROC_ROOT_INO 1

void gate_resolved_done(struct resolved *r)
{
	if (r->dir >= 0)
		close(r->dir);
	r->dir = -1;
}

/* A NUL-terminated string of at most PATH_MAX bytes out of the caller. */
int gate_peek_string(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < size) {
		size_t page = 4096 - ((addr + got) & 4095), want = size - got < page ? size - got : page;
		struct iovec local = { buf + got, want }, remote = { (void *)(uintptr_t)(addr + got), want };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);

		if (n <= 0)
			return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

/* The caller's fd: the pidfd is opened the first time one is needed (the
 * common creations, relative to the working directory, need none). */
int gate_take_fd(const struct cop *c, int fd)
{
	struct cop *m = (struct cop *)c;

	if (m->pidfd < 0) {
		int r = gate_pidfd_open(c->tid);

		if (r < 0)
			return r;
		m->pidfd = r;
	}
	return gate_pidfd_getfd(c->pidfd, fd);
}

static bool on_proc(int fd, bool root_only)
{
	struct statfs s;
	struct stat st;

	if (fstatfs(fd, &s) < 0 || s.f_type != PROC_SUPER_MAGIC)
		return false;
	return !root_only || (fstat(fd, &st) == 0 && st.st_ino == PROC_ROOT_INO);
}

/* May the caller follow a magic link in the procfs directory dir? Init
 * follows it with its own rights, and may always reach into itself (its
 * status pipe, its listener): so never in init's own /proc/1. The kernel's
 * ptrace check stands for the caller's other processes (same uid and
 * domain). */
static bool magic_allowed(int dir)
{
	char self[64], path[PATH_MAX];
	ssize_t n;
	char *end;
	long pid;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", dir);
	n = readlink(self, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	pid = strtol(path + 6, &end, 10);
	return end != path + 6 && (*end == '/' || *end == '\0') && pid > 1;
}

/* The directory a caller's (dirfd, path) starts from; -1 for an absolute
 * path (the walk starts at /, which init shares with the caller). */
int gate_start_dir(const struct cop *c, int dirfd, const char *path)
{
	char proc[64];
	int fd;

	if (path[0] == '/')
		return -1;
	if (dirfd != AT_FDCWD)
		return gate_take_fd(c, dirfd);
	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)c->tid);
	fd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Walk path from dir (taken over; -1: path is absolute) to its last
 * component; follow_last: a trailing symlink is followed as well. */
/* One component down: *cur becomes the directory comp names in it. */
static int descend(int *cur, const char *comp, int flags)
{
	int fd = openat(*cur, comp, O_PATH | O_DIRECTORY | O_CLOEXEC | flags);

	if (fd < 0)
		return -errno;
	close(*cur);
	*cur = fd;
	return 0;
}

int gate_walk(const struct cop *c, int dir, const char *path, bool follow_last, struct resolved *ret)
{
	_cleanup_close_ int cur = dir;
	char buf[2 * PATH_MAX], *rest = buf;
	unsigned hops = 0;
	size_t len = strlen(path);

	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	if (len == 0)
		return -ENOENT;
	memcpy(buf, path, len + 1);
	for (;;) {
		char comp[NAME_MAX + 1], link[PATH_MAX];
		const char *after, *next;
		struct stat st;
		size_t n;
		bool last, trailing;
		int r;

		if (*rest == '/' || cur < 0) {
			if (*rest != '/')
				return -EBADF;
			if (cur >= 0)
				close(cur);
			cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (cur < 0)
				return -errno;
			rest += strspn(rest, "/");
		}
		if (!*rest)
			strcpy(rest, "."); /* "/" itself: it exists */
		n = strcspn(rest, "/");
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, rest, n);
		comp[n] = '\0';
		after = rest + n;
		next = after + strspn(after, "/");
		last = *next == '\0';

		if ((strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0) && on_proc(cur, true))
			snprintf(comp, sizeof(comp), "%d", (int)c->tid);
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (!last || errno != ENOENT)
				return -errno;
			ret->exists = false; /* the name to make */
			goto done;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
			ssize_t l;

			if (on_proc(cur, false) && !on_proc(cur, true)) {
				/* a magic link: the kernel jumps to the caller's file */
				if (!magic_allowed(cur))
					return -EACCES;
				if (last) {
					ret->magic = true;
					ret->exists = true;
					ret->st = st;
					goto done;
				}
				if ((r = descend(&cur, comp, 0)) < 0)
					return r;
				rest = (char *)next;
				continue;
			}
			if (++hops > MAX_HOPS)
				return -ELOOP;
			l = readlinkat(cur, comp, link, sizeof(link) - 1);
			if (l < 0)
				return -errno;
			link[l] = '\0';
			if (l == 0)
				return -ENOENT;
			/* splice: the link's text, then what followed it */
			trailing = *after == '/';
			n = strlen(next);
			if ((size_t)l + 1 + n + 1 > sizeof(buf))
				return -ENAMETOOLONG;
			memmove(buf + l + 1, next, n + 1);
			memcpy(buf, link, (size_t)l);
			buf[l] = n || trailing ? '/' : '\0';
			rest = buf;
			continue;
		}
		if (last) {
			ret->exists = true;
			ret->st = st;
			goto done;
		}
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		if ((r = descend(&cur, comp, O_NOFOLLOW)) < 0)
			return r;
		rest = (char *)next;
		continue;
done:
		/* the last name in init's own /proc/1 (a link's old name the
		 * kernel would follow): out of reach, as the magic links above */
		if (on_proc(cur, false) && !on_proc(cur, true) && !magic_allowed(cur))
			return -EACCES;
		snprintf(ret->name, sizeof(ret->name), "%s%s", comp, *after == '/' ? "/" : "");
		ret->dir = TAKE_FD(cur);
		return 0;
	}
}

/* Resolve the caller's (dirfd, path) into ret. */
int gate_resolve_path(const struct cop *c, int dirfd, const char *path, bool follow_last, struct resolved *ret)
{
	int dir;

	*ret = (struct resolved){ .dir = -1 };
	if (!path[0])
		return -ENOENT;
	dir = gate_start_dir(c, dirfd, path);
	if (dir < 0 && path[0] != '/')
		return dir;
	return gate_walk(c, dir, path, follow_last, ret);
}

/* The same for the path at addr in the caller's memory. */
int gate_resolve_arg(const struct cop *c, int dirfd, uint64_t addr, bool follow_last, struct resolved *ret)
{
	char path[PATH_MAX];
	int r;

	*ret = (struct resolved){ .dir = -1 };
	r = gate_peek_string(c->tid, addr, path, sizeof(path));
	return r < 0 ? r : gate_resolve_path(c, dirfd, path, follow_last, ret);
}
