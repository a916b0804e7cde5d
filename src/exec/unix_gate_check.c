/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unix gate's decision: may the caller reach the pathname socket it
 * names? Resolved the way connect resolves it (relative to the caller's
 * working directory, symlinks followed), to an O_PATH fd; the decision and
 * the connect both use that fd, so no second lookup can land elsewhere.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "gate_walk.h"
#include "runner.h"
#include "unix_gate_impl.h"

int gate_diag_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	return fd < 0 ? -errno : fd;
}

/* 1 when a unix socket of this network namespace is bound to (dev, ino)
 * (its socket inode in *ret_sock), 0 when none is, -errno when the kernel
 * cannot say (then: refuse). */
static int bound_in_netns(int diag, uint32_t seq, dev_t dev, ino_t ino, uint32_t *ret_sock)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} q = {
		.nlh = {
			.nlmsg_len = sizeof(q),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = seq,
		},
		.req = {
			.sdiag_family = AF_UNIX,
			.udiag_states = ~0u,
			.udiag_show = UDIAG_SHOW_VFS,
		},
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	int found = 0;

	if (diag < 0)
		return diag;
	if (sendto(diag, &q, sizeof(q), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(diag, buf, sizeof(buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m;
			struct rtattr *a;
			int len;

			if (h->nlmsg_seq != seq)
				continue; /* the rest of an earlier, abandoned dump */
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error < 0 ? e->error : -EIO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			m = NLMSG_DATA(h);
			len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				struct unix_diag_vfs *v = RTA_DATA(a);

				if (a->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(a) < sizeof(*v))
					continue;
				/* The kernel reports its own dev_t (major << 20 |
				 * minor) and 32 bits of the inode: a larger inode
				 * never matches. */
				if ((uint64_t)ino <= UINT32_MAX && v->udiag_vfs_ino == (uint32_t)ino &&
				    v->udiag_vfs_dev >> 20 == major(dev) && (v->udiag_vfs_dev & 0xfffff) == minor(dev)) {
					found = 1;
					*ret_sock = m->udiag_ino;
				}
			}
		}
	}
}

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* Does a process of the sandbox hold the socket inode sock? Init's /proc is
 * the sandbox's pid namespace: every process listed is the sandbox's.
 * 1, 0, or -errno (then: refuse). */
static int held_in_sandbox(uint32_t sock)
{
	char want[32];
	_cleanup_(closedirp) DIR *proc = opendir("/proc");
	struct dirent *p;
	int wl;

	if (!proc)
		return -errno;
	wl = snprintf(want, sizeof(want), "socket:[%" PRIu32 "]", sock);
	while ((p = readdir(proc))) {
		char path[64], link[64];
		_cleanup_(closedirp) DIR *fds = NULL;
		struct dirent *f;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue; /* gone meanwhile */
		while ((f = readdir(fds))) {
			char fd[96];
			ssize_t n;

			if (f->d_name[0] == '.')
				continue;
			snprintf(fd, sizeof(fd), "%s/%.20s", path, f->d_name);
			n = readlink(fd, link, sizeof(link) - 1);
			if (n == wl && memcmp(link, want, (size_t)wl) == 0)
				return 1;
		}
	}
	return 0;
}

/* Bound by a process of the sandbox? With a network namespace of its own,
 * NETLINK_SOCK_DIAG lists only the sandbox's sockets; in the host's
 * (--net host), it lists the host's as well, so the socket must also be
 * held by a process of the sandbox's pid namespace. */
static int bound_in_sandbox(struct gate *g, dev_t dev, ino_t ino)
{
	uint32_t sock = 0;
	int r = bound_in_netns(g->diag, ++g->seq, dev, ino, &sock);

	if (r <= 0 || !g->host_net)
		return r;
	return held_in_sandbox(sock);
}

/* The pin an admitted socket is, or NULL: by the inode each pin holds, never
 * by what an allowed path names now (a sandbox may swap that for a link). */
static const struct unix_pin *pinned(const struct gate *g, const struct stat *st)
{
	for (size_t i = 0; i < g->n_pins; i++)
		if (g->pins[i].dev == st->st_dev && g->pins[i].ino == st->st_ino)
			return &g->pins[i];
	return NULL;
}

int gate_check_path(struct gate *g, pid_t tid, const char *path, int *ret_fd)
{
	struct cop c = { .listener = g->listener, .tid = tid, .pidfd = -1 };
	_cleanup_close_ int fd = -EBADF;
	struct resolved r;
	struct stat st;
	int e;

	/* Resolved as the caller's connect would (gate_walk.h: its working
	 * directory, symlinks followed, /proc/self its own), then held by
	 * an O_PATH fd: what is decided is what is connected to. */
	e = gate_resolve_path(&c, AT_FDCWD, path, true, &r);
	if (e == 0 && !r.exists)
		e = -ENOENT;
	if (e == 0) {
		fd = openat(r.dir, r.name, O_PATH | O_CLOEXEC | (r.magic ? 0 : O_NOFOLLOW));
		if (fd < 0)
			e = -errno;
	}
	gate_resolved_done(&r);
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (e < 0)
		return e;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED;
	const struct unix_pin *pin = pinned(g, &st);

	if (pin) {
		/* connected to through the pin itself */
		close(TAKE_FD(fd));
		fd = fcntl(pin->fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	} else {
		e = bound_in_sandbox(g, st.st_dev, st.st_ino);
		if (e <= 0) {
			/* a host socket, or the kernel cannot tell: refuse */
			char self[64], where[PATH_MAX];
			ssize_t n;

			snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
			n = readlink(self, where, sizeof(where) - 1);
			where[n > 0 ? n : 0] = '\0';
			status_denial("unix-gate", "connect", n > 0 && where[0] == '/' ? where : path);
			return -EACCES;
		}
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

socklen_t gate_proc_address(int path_fd, struct sockaddr_un *ret)
{
	int n;

	*ret = (struct sockaddr_un){ .sun_family = AF_UNIX };
	n = snprintf(ret->sun_path, sizeof(ret->sun_path), "/proc/self/fd/%d", path_fd);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
}
