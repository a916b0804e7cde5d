/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* --broker-fd: /run/cordon and its listener (see broker.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker.h"
#include "broker_proto.h"
#include "cleanup.h"
#include "runner.h"

/* What the supervisor reads with the listener: this is a broker's. */
#define BROKER_HELLO "cordon-broker 1"
/* Shims queue here while the supervisor is busy. */
#define BROKER_BACKLOG 128

char *broker_path_entry(const char *path)
{
	char *s = NULL;

	if (asprintf(&s, "PATH=%s:%s", BROKER_SHIM_DIR, path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin") < 0)
		return NULL;
	return s;
}

/* One bind of the shim per name, from the fd opened before the private
 * tmpfs went on (mount.c): reachable wherever cordon is built or installed,
 * and the same file whatever its path names later. */
static void make_shims(const struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	_cleanup_close_ int dir = -1;
	int r;

	if (mkdir(BROKER_SHIM_DIR, 0755) < 0)
		exec_die("broker", "mkdir %s: %m", BROKER_SHIM_DIR);
	dir = open(BROKER_SHIM_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		exec_die("broker", "open %s: %m", BROKER_SHIM_DIR);
	if (x->shim_fd < 0 && p->shims && p->shims[0])
		exec_die("broker", "the shim %s was not opened", p->shim_path ? p->shim_path : "-");
	for (size_t i = 0; p->shims && p->shims[i]; i++) {
		r = mount_file_copy(x->shim_fd, dir, p->shims[i]);
		if (r < 0)
			exec_die("broker", "%s/%s: %s", BROKER_SHIM_DIR, p->shims[i], strerror(-r));
	}
}

static int make_listener(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = BROKER_SOCKET };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		exec_die("broker", "socket: %m");
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		exec_die("broker", "bind %s: %m", BROKER_SOCKET);
	if (listen(s, BROKER_BACKLOG) < 0)
		exec_die("broker", "listen: %m");
	return s;
}

static void hand_over(int to, int listener)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u = {};
	struct iovec iov = { .iov_base = (void *)BROKER_HELLO, .iov_len = sizeof(BROKER_HELLO) - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t l;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	do
		l = sendmsg(to, &m, MSG_NOSIGNAL);
	while (l < 0 && errno == EINTR);
	if (l != (ssize_t)iov.iov_len)
		exec_die("broker", "cannot hand the listener to the supervisor: %m");
}

void broker_listen(struct exec_ctx *x, size_t step)
{
	const struct plan *p = x->plan;
	int listener;

	/* BROKER_DIR was made in the sandbox's own /run (mount.c) */
	if (mount("cordon", BROKER_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,nr_inodes=4096,mode=0755") < 0)
		exec_die("broker", "tmpfs on %s: %m", BROKER_DIR);
	make_shims(x);
	if (x->shim_fd >= 0)
		close(x->shim_fd);
	x->shim_fd = -1;
	listener = make_listener();
	/* sealed: nothing in the sandbox can replace a shim or the socket */
	if (mount(NULL, BROKER_DIR, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		exec_die("broker", "cannot make %s read-only: %m", BROKER_DIR);
	hand_over(p->broker_fd, listener);
	close(listener);
	close(p->broker_fd);
}
