/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate in the pid-1 init (see create_gate.h): resolve the name a
 * call would make or change exactly as the caller's kernel walk would
 * (gate_walk.c), decide on the parent's inode and, by name, on the path
 * (gate_rules.c), and perform the call on that parent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "create_decide.h"
#include "create_gate.h"
#include "gate_common.h"
#include "gate_git.h"
#include "gate_rules.h"
#include "gate_walk.h"
#include "runner.h"



int create_set_add(struct create_set *s, const char *dir, const char *name, bool prefix)
{
	struct stat st;

	if (strlen(name) >= sizeof(s->v[0].name))
		return -ENAMETOOLONG;
	if (s->last_dir && strcmp(s->last_dir, dir) == 0) {
		st.st_dev = s->last_dev;
		st.st_ino = s->last_ino;
	} else {
		if (stat(dir, &st) < 0)
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		free(s->last_dir);
		s->last_dir = strdup(dir); /* NULL: only the memo is lost */
		s->last_dev = st.st_dev;
		s->last_ino = st.st_ino;
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].dev == st.st_dev && s->v[i].ino == st.st_ino && s->v[i].prefix == prefix &&
		    strcmp(s->v[i].name, name) == 0)
			return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct create_rule *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = (struct create_rule){ .dev = st.st_dev, .ino = st.st_ino, .prefix = prefix };
	strcpy(s->v[s->n].name, name);
	s->n++;
	return 0;
}

void create_set_done(struct create_set *s)
{
	gate_rules_done(&s->names);
	free(s->last_dir);
	free(s->v);
	*s = (struct create_set){};
}

bool create_set_active(const struct create_set *s)
{
	return s->n > 0 || gate_rules_active(&s->names);
}

bool create_gate_nr(int nr)
{
	switch (nr) {
#ifdef SYS_open
	case SYS_open:
	case SYS_creat:
	case SYS_mkdir:
	case SYS_mknod:
	case SYS_symlink:
	case SYS_link:
	case SYS_rename:
	case SYS_unlink:
	case SYS_rmdir:
#endif
	case SYS_unlinkat:
	case SYS_openat:
	case SYS_mkdirat:
	case SYS_mknodat:
	case SYS_symlinkat:
	case SYS_linkat:
	case SYS_renameat:
	case SYS_renameat2:
	case SYS_bind:
	case SYS_truncate:
		return true;
	default:
		return false;
	}
}


/* The caller's umask, from /proc/TID/status, made init's own for the call. */
static int take_umask(const struct cop *c)
{
	char path[64], buf[2048];
	_cleanup_close_ int fd = -1;
	const char *at;
	ssize_t n;
	unsigned long m;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	at = strstr(buf, "\nUmask:");
	if (!at)
		return -EIO;
	m = strtoul(at + 7, NULL, 8);
	umask((mode_t)(m & 0777));
	return 0;
}

static bool still_valid(const struct cop *c)
{
	return gate_id_valid(c->listener, c->id);
}

static void reply(const struct cop *c, int64_t val, int error)
{
	gate_reply(c->listener, c->id, val, error);
}

/* The caller's controlling terminal, if it is one of the sandbox's ptys:
 * what /dev/tty opens for it. -ENXIO when it has none. */
static int caller_tty(const struct cop *c, int flags)
{
	char path[64], buf[1024], *p;
	_cleanup_close_ int fd = -1;
	unsigned long tty;
	unsigned maj, min;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)c->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty_nr" */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %lu", &tty) != 1)
		return -EIO;
	maj = (unsigned)((tty >> 8) & 0xfff);
	min = (unsigned)((tty & 0xff) | ((tty >> 12) & 0xfff00));
	if (tty == 0 || maj < 136 || maj > 143)
		return -ENXIO;
	snprintf(path, sizeof(path), "/dev/pts/%u", (maj - 136) * 256 + min);
	fd = open(path, (flags & ~O_CREAT) | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : TAKE_FD(fd);
}

static bool is_dev_tty(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 5 && minor(st->st_rdev) == 0;
}

/* A magic link (/proc/PID/fd/N) names a file, not a place: found first
 * without opening it for writing (O_TRUNC would already empty it), then
 * decided by its path, then opened through what was found. */
static int decide_magic(const struct cop *c, struct resolved *r, bool write)
{
	char proc[64];
	int fd, e;

	fd = openat(r->dir, r->name, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = create_decide_path(c, fd, "", write, false);
	if (e < 0) {
		close(fd);
		return e;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	close(r->dir);
	r->dir = fd; /* kept open: the name below is its magic link */
	snprintf(r->name, sizeof(r->name), "%s", proc);
	return 0;
}

/* Would the open change what is there: make it, write it, empty it? */
static bool writes(int flags, bool exists)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC) || ((flags & O_CREAT) && !exists);
}

static void do_open(const struct cop *c, int dirfd, uint64_t path, int flags, mode_t mode)
{
	struct resolved r;
	_cleanup_close_ int fd = -1;
	bool follow = !(flags & (O_EXCL | O_NOFOLLOW));
	struct stat st;
	int e;

	e = gate_resolve_arg(c, dirfd, path, follow, &r);
	if (e == 0 && !r.exists)
		e = take_umask(c);
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0 && (flags & O_CREAT))
		e = create_decide(c, &r);
	if (e == 0 && (flags & O_CREAT) && !r.exists && !r.magic)
		e = create_decide_making(c, r.dir, r.name);
	if (e == 0 && (writes(flags, r.exists) || c->set->names.read_gate))
		e = r.magic ? decide_magic(c, &r, writes(flags, r.exists))
			    : create_decide_path(c, r.dir, r.name, writes(flags, r.exists), false);
	if (e == 0 && (flags & O_PATH)) {
		/* An O_PATH file cannot be handed over (SECCOMP_IOCTL_NOTIF_ADDFD
		 * takes no O_PATH source: EBADF, and `open(".", O_PATH)` failed in
		 * every gated sandbox). The kernel opens it itself: an O_PATH fd
		 * reads and writes nothing, and every use that would (a reopen
		 * through /proc, a lookup below it, fchdir then open) comes back
		 * here and to Landlock with the file it reached. */
		gate_resolved_done(&r);
		if (still_valid(c))
			gate_reply_continue(c->listener, c->id);
		return;
	}
	if (e == 0 && r.exists && is_dev_tty(&r.st))
		fd = caller_tty(c, flags);
	else if (e == 0) {
		/* Never block init (a FIFO without a reader, a lease): the
		 * caller's blocking mode is put back below. A magic link is
		 * the kernel's to follow; anything else was resolved. */
		fd = openat(r.dir, r.name, flags | O_NONBLOCK | O_CLOEXEC | (r.magic || !follow ? 0 : O_NOFOLLOW), mode);
		if (fd < 0)
			fd = -errno;
	}
	gate_resolved_done(&r);
	if (e == -ESRCH)
		return;
	if (e == 0 && fd >= 0 && fstat(fd, &st) == 0 && is_dev_tty(&st)) {
		/* /dev/tty reached some other way: init's terminal is not the caller's */
		close(fd);
		fd = caller_tty(c, flags);
	}
	if (e == 0 && fd < 0)
		e = fd;
	if (e < 0) {
		reply(c, 0, e);
		return;
	}
	if (!(flags & O_NONBLOCK)) {
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0 && (fl & O_NONBLOCK))
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	struct seccomp_notif_addfd add = {
		.id = c->id,
		.srcfd = (unsigned)fd,
		.newfd_flags = (unsigned)(flags & O_CLOEXEC),
	};
	int newfd = ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add), err = errno;

	/* Init's copy goes before the caller resumes (so not ADDFD_FLAG_SEND,
	 * which resumes it at once): a writer left open here makes the file
	 * busy to an exec the caller does right after closing it (cp x /tmp/t;
	 * /tmp/t: ETXTBSY). */
	close(TAKE_FD(fd));
	if (newfd < 0) {
		if (err != ENOENT)
			reply(c, 0, -err); /* e.g. EMFILE: the caller's table is full */
		return;
	}
	reply(c, newfd, 0);
}

/* mkdir, mknod, symlink: one new name, made on the resolved parent. */
static void do_make(const struct cop *c, int nr, int dirfd, uint64_t path, mode_t mode, dev_t dev, uint64_t target)
{
	char text[PATH_MAX];
	struct resolved r;
	int e;

	e = gate_resolve_arg(c, dirfd, path, false, &r);
	if (e == 0 && target)
		e = gate_peek_string(c->tid, target, text, sizeof(text));
	if (e == 0 && !target)
		e = take_umask(c);
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0)
		e = create_decide(c, &r);
	if (e == 0) {
		char where[PATH_MAX];

		e = create_decide_names(c, r.dir, r.name, false);
		/* an empty .git: what goes in it is decided by name */
		if (e == -EACCES && !target && nr != SYS_mknodat
#ifdef SYS_mknod
		    && nr != SYS_mknod
#endif
		    && create_git_allows(c, r.dir, r.name, false, where, sizeof(where)))
			e = 0;
	}
	if (e == 0)
		e = create_decide_making(c, r.dir, r.name);
	if (e == 0) {
		if (target)
			e = symlinkat(text, r.dir, r.name);
		else if (nr == SYS_mknodat
#ifdef SYS_mknod
			 || nr == SYS_mknod
#endif
		)
			e = mknodat(r.dir, r.name, mode, dev);
		else
			e = mkdirat(r.dir, r.name, mode);
		e = e < 0 ? -errno : 0;
	}
	gate_resolved_done(&r);
	if (e != -ESRCH)
		reply(c, 0, e);
}

/* link and rename: the new name is decided; the old one is the caller's. */
static void do_link_rename(const struct cop *c, bool link, int olddir, uint64_t oldpath, int newdir, uint64_t newpath,
			   unsigned flags)
{
	struct resolved o = { .dir = -1 }, n = { .dir = -1 };
	_cleanup_close_ int empty = -1;
	char old[PATH_MAX], shown[PATH_MAX];
	int e;

	e = gate_peek_string(c->tid, oldpath, old, sizeof(old));
	if (e == 0 && link && (flags & AT_EMPTY_PATH) && !old[0]) {
		/* linkat(fd, "", ..., AT_EMPTY_PATH): the caller's fd itself */
		empty = olddir == AT_FDCWD ? gate_start_dir(c, AT_FDCWD, ".") : gate_take_fd(c, olddir);
		if (empty < 0)
			e = empty;
	} else if (e == 0)
		/* linkat(AT_SYMLINK_FOLLOW) links what a symlink leads to */
		e = gate_resolve_path(c, olddir, old, link && (flags & AT_SYMLINK_FOLLOW), &o);
	if (e == 0 && link && o.magic) {
		/* /proc/PID/fd/N names a file, not a place: decided by where
		 * that file is now, and linked through what was found */
		empty = openat(o.dir, o.name, O_PATH | O_CLOEXEC);
		if (empty < 0)
			e = -errno;
	}
	if (e == 0)
		e = gate_resolve_arg(c, newdir, newpath, false, &n);
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0)
		e = create_decide(c, &n);
	if (e == 0 && !link && empty < 0 && !(flags & RENAME_EXCHANGE) &&
	    create_git_allows(c, n.dir, n.name, true, shown, sizeof(shown))) {
		/* git's config.lock onto config: a validated copy of it */
		e = create_decide_names(c, o.dir, o.name, true);
		if (e == 0)
			e = create_decide_removal(c, o.dir, o.name);
		if (e == 0)
			e = gate_git_install(o.dir, o.name, n.dir, n.name, flags, shown);
		goto done;
	}
	if (e == 0)
		e = create_decide_making(c, n.dir, n.name);
	/* both names: a hard link or a move out of a protection would make
	 * its file writable under another name */
	if (e == 0)
		e = create_decide_names(c, n.dir, n.name, !link);
	if (e == 0)
		e = empty >= 0 ? create_decide_fd(c, empty) : create_decide_names(c, o.dir, o.name, !link);
	/* a directory moved carries what it holds away from where the host
	 * looks; an exchange moves the other one too */
	if (e == 0 && !link && empty < 0)
		e = create_decide_removal(c, o.dir, o.name);
	if (e == 0 && !link)
		e = create_decide_holds(c, o.dir, o.name);
	if (e == 0 && !link && (flags & RENAME_EXCHANGE))
		e = create_decide_removal(c, n.dir, n.name);
	if (e == 0 && !link && (flags & RENAME_EXCHANGE))
		e = create_decide_holds(c, n.dir, n.name);
	if (e == 0) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", empty);
		if (link && empty >= 0 && o.magic)
			e = linkat(AT_FDCWD, proc, n.dir, n.name, AT_SYMLINK_FOLLOW);
		else if (link)
			e = linkat(empty >= 0 ? empty : o.dir, empty >= 0 ? "" : o.name, n.dir, n.name,
				   (int)(flags & ~(unsigned)AT_SYMLINK_FOLLOW));
		else
			e = (int)syscall(SYS_renameat2, o.dir, o.name, n.dir, n.name, flags);
		e = e < 0 ? -errno : 0;
	}
done:
	gate_resolved_done(&o);
	gate_resolved_done(&n);
	if (e != -ESRCH)
		reply(c, 0, e);
}

/* unlink, rmdir: a protected or hidden name at any depth is never removed
 * (rmdir needs an empty directory, so its own name is all it can take). */
static void do_remove(const struct cop *c, int dirfd, uint64_t path, int flags)
{
	struct resolved r;
	int e;

	e = gate_resolve_arg(c, dirfd, path, false, &r);
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0 && r.exists)
		e = create_decide_removal(c, r.dir, r.name);
	if (e == 0)
		e = unlinkat(r.dir, r.name, flags) < 0 ? -errno : 0;
	gate_resolved_done(&r);
	if (e != -ESRCH)
		reply(c, 0, e);
}

/* bind: a pathname unix address makes a name; any other is performed as
 * asked (Landlock, applied to init too, refuses TCP binds the same way). */
static void do_bind(const struct cop *c, int sockfd, uint64_t addr, uint64_t addrlen)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_storage ss = {};
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	_cleanup_close_ int sock = -1, here = -1;
	struct resolved r = { .dir = -1 };
	int e = 0;

	if ((int)addrlen < 0 || addrlen > sizeof(ss))
		e = -EINVAL;
	if (e == 0 && addrlen) {
		struct iovec local = { &ss, addrlen }, remote = { (void *)(uintptr_t)addr, addrlen };

		if (process_vm_readv(c->tid, &local, 1, &remote, 1, 0) != (ssize_t)addrlen)
			e = -EFAULT;
	}
	if (e == 0) {
		sock = gate_take_fd(c, sockfd);
		if (sock < 0)
			e = sock;
	}
	if (e == 0 && ss.ss_family == AF_UNIX && addrlen > off && un->sun_path[0]) {
		char path[sizeof(un->sun_path) + 1];
		size_t n = strnlen(un->sun_path, addrlen - off);
		int dir;

		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		dir = gate_start_dir(c, AT_FDCWD, path);
		e = dir < 0 && path[0] != '/' ? dir : gate_walk(c, dir, path, false, &r);
	}
	if (e == 0 && r.dir >= 0)
		e = take_umask(c);
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0 && r.dir >= 0)
		e = create_decide(c, &r);
	if (e == 0 && r.dir >= 0)
		e = create_decide_names(c, r.dir, r.name, false);
	if (e == 0 && r.dir >= 0) {
		/* bind by the one component, from the resolved parent */
		struct sockaddr_un by = { .sun_family = AF_UNIX };

		size_t len = strlen(r.name);

		if (len >= sizeof(by.sun_path))
			len = sizeof(by.sun_path) - 1; /* cannot be: it was part of a sun_path */
		memcpy(by.sun_path, r.name, len);
		here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (here < 0 || fchdir(r.dir) < 0)
			e = -errno;
		else {
			e = bind(sock, (struct sockaddr *)&by, (socklen_t)(off + strlen(by.sun_path) + 1)) < 0 ? -errno : 0;
			(void)!fchdir(here);
		}
	} else if (e == 0)
		e = bind(sock, addrlen ? (struct sockaddr *)&ss : NULL, (socklen_t)addrlen) < 0 ? -errno : 0;
	gate_resolved_done(&r);
	if (e != -ESRCH)
		reply(c, 0, e);
}

/* truncate(path): what it empties is decided like an open for writing. */
static void do_truncate(const struct cop *c, uint64_t path, off_t length)
{
	char proc[64];
	struct resolved r;
	_cleanup_close_ int fd = -1;
	int e;

	e = gate_resolve_arg(c, AT_FDCWD, path, true, &r);
	if (e == 0 && !r.exists)
		e = -ENOENT;
	if (e == 0 && !still_valid(c))
		e = -ESRCH;
	if (e == 0 && !r.magic)
		e = create_decide_names(c, r.dir, r.name, false);
	if (e == 0) {
		fd = openat(r.dir, r.name, O_PATH | O_CLOEXEC | (r.magic ? 0 : O_NOFOLLOW));
		e = fd < 0 ? -errno : r.magic ? create_decide_fd(c, fd) : 0;
	}
	if (e == 0) {
		/* by the file found, not by the name again */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		e = truncate(proc, length) < 0 ? -errno : 0;
	}
	gate_resolved_done(&r);
	if (e != -ESRCH)
		reply(c, 0, e);
}

void create_gate_handle(int listener, const struct create_set *s, const struct seccomp_notif *n)
{
	const __u64 *a = n->data.args;
	struct cop c = { .listener = listener, .id = n->id, .tid = (pid_t)n->pid, .pidfd = -1, .set = s };

	switch (n->data.nr) {
#ifdef SYS_open
	case SYS_open:
		do_open(&c, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2]);
		break;
	case SYS_creat:
		do_open(&c, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1]);
		break;
	case SYS_mkdir:
		do_make(&c, n->data.nr, AT_FDCWD, a[0], (mode_t)a[1], 0, 0);
		break;
	case SYS_mknod:
		do_make(&c, n->data.nr, AT_FDCWD, a[0], (mode_t)a[1], (dev_t)(unsigned)a[2], 0);
		break;
	case SYS_symlink:
		do_make(&c, n->data.nr, AT_FDCWD, a[1], 0, 0, a[0]);
		break;
	case SYS_link:
		do_link_rename(&c, true, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
		break;
	case SYS_rename:
		do_link_rename(&c, false, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
		break;
	case SYS_unlink:
		do_remove(&c, AT_FDCWD, a[0], 0);
		break;
	case SYS_rmdir:
		do_remove(&c, AT_FDCWD, a[0], AT_REMOVEDIR);
		break;
#endif
	case SYS_unlinkat:
		do_remove(&c, (int)a[0], a[1], (int)a[2]);
		break;
	case SYS_openat:
		do_open(&c, (int)a[0], a[1], (int)a[2], (mode_t)a[3]);
		break;
	case SYS_mkdirat:
		do_make(&c, n->data.nr, (int)a[0], a[1], (mode_t)a[2], 0, 0);
		break;
	case SYS_mknodat:
		do_make(&c, n->data.nr, (int)a[0], a[1], (mode_t)a[2], (dev_t)(unsigned)a[3], 0);
		break;
	case SYS_symlinkat:
		do_make(&c, n->data.nr, (int)a[1], a[2], 0, 0, a[0]);
		break;
	case SYS_linkat:
		do_link_rename(&c, true, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
		break;
	case SYS_renameat:
		do_link_rename(&c, false, (int)a[0], a[1], (int)a[2], a[3], 0);
		break;
	case SYS_renameat2:
		do_link_rename(&c, false, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
		break;
	case SYS_bind:
		do_bind(&c, (int)a[0], a[1], a[2]);
		break;
	case SYS_truncate:
		do_truncate(&c, a[0], (off_t)a[1]);
		break;
	default:
		reply(&c, 0, -ENOSYS);
		break;
	}
	if (c.pidfd >= 0)
		close(c.pidfd);
}
