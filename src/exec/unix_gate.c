/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unix gate in the pid-1 init (see unix_gate.h): the listener handoff,
 * the wait loop, and performing each notified call on init's own copies of
 * the caller's socket and arguments.
 *
 * Never SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel would re-read the
 * caller's memory and fd table after the check, and a racing thread could
 * have rewritten the address or dup2'd another socket onto the fd. Every
 * answer is the result of the call init made.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "create_gate.h"
#include "gate_common.h"
#include "net_allow.h"
#include "errbuf.h"
#include "pathfd.h"
#include "runner.h"
#include "syscall_filter.h"
#include "unix_gate.h"
#include "unix_gate_impl.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#define SCM_MAX_FD 253 /* the kernel's cap on fds in one SCM_RIGHTS */

struct gate_msg {
	struct sockaddr_storage addr;
	socklen_t addrlen;      /* 0: no address */
	int path_fd;            /* the admitted pathname socket (O_PATH), or -1 */
	char *data;
	size_t len;
	char *control;
	size_t controllen;
	int *fds;               /* init's copies of the SCM_RIGHTS fds */
	size_t n_fds;
	size_t sent;
};

struct gate_op {
	uint64_t id;            /* the notification */
	pid_t tid;
	int pidfd;
	int nr;
	int sock;               /* init's copy of the caller's socket */
	int domain, type, protocol;
	unsigned flags;         /* the caller's send flags */
	bool nonblock;          /* the caller would not block */
	uint64_t mmsg_at;       /* sendmmsg: the caller's vector, for msg_len */
	size_t n_msgs, done, bytes;
	int error;              /* why preparation stopped after n_msgs messages, or 0 */
	struct gate_msg *msgs;
};

int unix_gate_pair(int ret[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ret) < 0 ? -errno : 0;
}

/* The command, first thing after the clone, while its fd table is still
 * init's: the notification filter's listener is born in that table, so
 * init holds it from the first instant, before the command makes any call
 * the filter sends to it (no window where a gated call meets no one).
 * Then the command takes a copy of the table of its own (unshare), so
 * nothing it closes or opens from here on reaches init's, and only then
 * tells init the listener's number: init closes its fds after that word.
 * The command does not wait for init: it has nothing to wait for. */
int unix_gate_offer(int fd, unsigned which, char *err, size_t errlen)
{
	_cleanup_close_ int sock = fd, listener = -EBADF;
	int r;

	/* the no_new_privs step comes again later: a no-op by then */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errbuf_set(err, errlen, -errno, "gate: no_new_privs: %s", strerror(errno));
	r = seccomp_apply_notify(which, &listener, err, errlen);
	if (r < 0)
		return r;
	if (unshare(CLONE_FILES) < 0)
		return errbuf_set(err, errlen, -errno, "gate: cannot take a copy of the fd table: %s", strerror(errno));
	/* write is not gated (sendmsg would be) */
	if (write(sock, &listener, sizeof(listener)) != (ssize_t)sizeof(listener))
		return errbuf_set(err, errlen, -EIO, "gate: cannot tell init the listener: %s", strerror(errno));
	return 0; /* this copy of the listener and of sock closed: init has its own */
}

int unix_gate_receive(int fd, int pidfd, int *ret_listener)
{
	_cleanup_close_ int sock = fd;
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
	int number, listener;
	ssize_t n;

	/* the command's word, or its end (the write end stays open in this
	 * table, so its end is no EOF here: its pidfd says it) */
	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return -errno;
	if (!(p[0].revents & POLLIN)) {
		*ret_listener = -1; /* the command ended first */
		return 0;
	}
	do
		n = read(sock, &number, sizeof(number));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(number))
		return n < 0 ? -errno : -EIO;
	/* in this table since the command made it: a seccomp listener (it
	 * knows no notification 0: ENOENT; any other fd: ENOTTY, EBADF) */
	listener = number;
	if (listener < 0 || ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &(uint64_t){ 0 }) == 0 || errno != ENOENT)
		return -EBADF;
	gate_sync_wakeup(listener);
	*ret_listener = listener;
	return 0;
}

static void msg_clear(struct gate_msg *m)
{
	if (m->path_fd >= 0)
		close(m->path_fd);
	for (size_t k = 0; k < m->n_fds; k++)
		close(m->fds[k]);
	free(m->fds);
	free(m->data);
	free(m->control);
	*m = (struct gate_msg){ .path_fd = -1 };
}

static void op_free(struct gate_op *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->n_msgs; i++)
		msg_clear(&op->msgs[i]);
	free(op->msgs);
	if (op->sock >= 0)
		close(op->sock);
	if (op->pidfd >= 0)
		close(op->pidfd);
	free(op);
}

static bool is_tcp(const struct gate_op *op)
{
	return (op->domain == AF_INET || op->domain == AF_INET6) && op->type == SOCK_STREAM &&
	       (op->protocol == IPPROTO_TCP || op->protocol == IPPROTO_MPTCP);
}

/* A TCP connect refused: "tcp:ADDRESS:PORT" on the status channel. */
static void tcp_denial(const struct gate_msg *m)
{
	char addr[INET6_ADDRSTRLEN] = "?", target[INET6_ADDRSTRLEN + 16];
	unsigned port = 0;

	if (m->addr.ss_family == AF_INET && m->addrlen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&m->addr;

		inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
		port = ntohs(in->sin_port);
	} else if (m->addr.ss_family == AF_INET6 && m->addrlen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&m->addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
		port = ntohs(in6->sin6_port);
	}
	snprintf(target, sizeof(target), "tcp:%s:%u", addr, port);
	status_denial("unix-gate", "connect", target);
}

/* The destination: a pathname unix socket is decided by inode; TCP
 * connects get Landlock's answer for the command. */
static int decide_address(struct gate *g, struct gate_op *op, struct gate_msg *m, bool connecting)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&m->addr;
	const size_t off = offsetof(struct sockaddr_un, sun_path);

	if (m->addrlen < sizeof(sa_family_t))
		return 0;
	if (op->domain == AF_UNIX && un->sun_family == AF_UNIX && m->addrlen > off && un->sun_path[0]) {
		char path[sizeof(un->sun_path) + 1];
		size_t n = strnlen(un->sun_path, m->addrlen - off);

		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		return gate_check_path(g, op->tid, path, &m->path_fd);
	}
	if (is_tcp(op) && g->deny_tcp) {
		if (connecting && un->sun_family != AF_UNSPEC) {
			tcp_denial(m);
			return -EACCES;
		}
		if (!connecting && (op->flags & MSG_FASTOPEN))
			return -EACCES; /* a connect by another name */
	}
	return 0;
}

static int copy_address(struct gate_op *op, struct gate_msg *m, uint64_t at, uint64_t len)
{
	if (!at || !len)
		return 0;
	if (len > sizeof(m->addr))
		return -EINVAL;
	m->addrlen = (socklen_t)len;
	return gate_peek(op->tid, at, &m->addr, len);
}

/* SCM_RIGHTS numbers are the caller's: swap in init's copies of the same
 * files. Credentials would be init's to vouch for: refused. */
static int translate_control(struct gate_op *op, struct gate_msg *m)
{
	struct msghdr h = { .msg_control = m->control, .msg_controllen = m->controllen };
	const char *end = m->control + m->controllen;

	m->fds = calloc(m->controllen / sizeof(int) + 1, sizeof(int));
	if (!m->fds)
		return -ENOMEM;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		size_t n;
		int *v;

		if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > (size_t)(end - (char *)c))
			return -EINVAL;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS)
			return -EPERM;
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (m->n_fds + n > SCM_MAX_FD)
			return -EINVAL;
		v = (int *)CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			int fd, mine;

			memcpy(&fd, v + i, sizeof(fd));
			mine = gate_pidfd_getfd(op->pidfd, fd);
			if (mine < 0)
				return -EBADF;
			m->fds[m->n_fds++] = mine;
			memcpy(v + i, &mine, sizeof(mine));
		}
	}
	return 0;
}

/* One message: address, payload (gathered from iov, n_iov entries in the
 * caller), ancillary data. 1: no room left in this call's data budget. */
static int prepare_msg(struct gate *g, struct gate_op *op, struct gate_msg *m, uint64_t name, uint64_t namelen,
		       const struct iovec *iov, size_t n_iov, uint64_t control, uint64_t controllen)
{
	size_t budget = GATE_MAX_DATA - op->bytes, total = 0, off = 0;
	bool stream = op->type == SOCK_STREAM;
	int r;

	m->path_fd = -1;
	if ((r = copy_address(op, m, name, namelen)) < 0)
		return r;
	for (size_t i = 0; i < n_iov; i++) {
		if (iov[i].iov_len > SIZE_MAX / 2 || total + iov[i].iov_len > SIZE_MAX / 2)
			return -EINVAL;
		total += iov[i].iov_len;
	}
	if (total > budget) {
		if (m != op->msgs)
			return 1; /* not the first message: the caller's next call sends it */
		if (!stream)
			return -EMSGSIZE;
		total = budget; /* a short write, as a stream may give */
	}
	m->data = malloc(total ? total : 1);
	if (!m->data)
		return -ENOMEM;
	for (size_t i = 0; i < n_iov && off < total; i++) {
		size_t n = iov[i].iov_len < total - off ? iov[i].iov_len : total - off;

		if ((r = gate_peek(op->tid, (uint64_t)(uintptr_t)iov[i].iov_base, m->data + off, n)) < 0)
			return r;
		off += n;
	}
	m->len = total;
	op->bytes += total;
	if (control && controllen) {
		if (controllen > GATE_MAX_CONTROL)
			return -ENOBUFS;
		m->control = malloc(controllen);
		if (!m->control)
			return -ENOMEM;
		m->controllen = controllen;
		if ((r = gate_peek(op->tid, control, m->control, controllen)) < 0 || (r = translate_control(op, m)) < 0)
			return r;
	}
	return decide_address(g, op, m, false);
}

/* A msghdr in the caller's memory. */
static int prepare_msghdr(struct gate *g, struct gate_op *op, struct gate_msg *m, uint64_t at)
{
	_cleanup_free_ struct iovec *iov = NULL;
	struct msghdr h;
	int r;

	if ((r = gate_peek(op->tid, at, &h, sizeof(h))) < 0)
		return r;
	if (h.msg_iovlen > GATE_MAX_IOV)
		return -EMSGSIZE;
	iov = calloc(h.msg_iovlen + 1, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if ((r = gate_peek(op->tid, (uint64_t)(uintptr_t)h.msg_iov, iov, h.msg_iovlen * sizeof(*iov))) < 0)
		return r;
	return prepare_msg(g, op, m, (uint64_t)(uintptr_t)h.msg_name, h.msg_name ? h.msg_namelen : 0, iov,
			   h.msg_iovlen, (uint64_t)(uintptr_t)h.msg_control, h.msg_controllen);
}

static int prepare(struct gate *g, struct gate_op *op, const struct seccomp_notif *n)
{
	const __u64 *a = n->data.args;
	size_t want = 1;
	int r, fl;

	op->pidfd = gate_pidfd_open(op->tid);
	if (op->pidfd < 0)
		return op->pidfd;
	op->sock = gate_pidfd_getfd(op->pidfd, (int)a[0]);
	if (op->sock < 0)
		return op->sock;
	if (getsockopt(op->sock, SOL_SOCKET, SO_DOMAIN, &op->domain, &(socklen_t){ sizeof(int) }) < 0 ||
	    getsockopt(op->sock, SOL_SOCKET, SO_TYPE, &op->type, &(socklen_t){ sizeof(int) }) < 0 ||
	    getsockopt(op->sock, SOL_SOCKET, SO_PROTOCOL, &op->protocol, &(socklen_t){ sizeof(int) }) < 0)
		return -errno;
	fl = fcntl(op->sock, F_GETFL);
	if (fl < 0)
		return -errno;
	op->nonblock = fl & O_NONBLOCK;

	if (op->nr == SYS_sendmmsg)
		want = a[2] > GATE_MAX_MMSG ? GATE_MAX_MMSG : (size_t)a[2];
	op->msgs = calloc(want ? want : 1, sizeof(*op->msgs));
	if (!op->msgs)
		return -ENOMEM;
	for (size_t i = 0; i < want; i++)
		op->msgs[i].path_fd = -1;

	switch (op->nr) {
	case SYS_connect:
		op->n_msgs = 1;
		if ((int)a[2] < 0)
			return -EINVAL;
		if ((r = copy_address(op, &op->msgs[0], a[1], (uint32_t)a[2])) < 0)
			return r;
		return decide_address(g, op, &op->msgs[0], true);
	case SYS_sendto: {
		struct iovec one = { (void *)(uintptr_t)a[1], (size_t)a[2] };

		op->flags = (unsigned)a[3];
		op->n_msgs = 1;
		if ((int)a[5] < 0)
			return -EINVAL;
		return prepare_msg(g, op, &op->msgs[0], a[4], (uint32_t)a[5], &one, 1, 0, 0);
	}
	case SYS_sendmsg:
		op->flags = (unsigned)a[2];
		op->n_msgs = 1;
		return prepare_msghdr(g, op, &op->msgs[0], a[1]);
	case SYS_sendmmsg:
		op->flags = (unsigned)a[3];
		op->mmsg_at = a[1];
		for (size_t i = 0; i < want; i++) {
			op->n_msgs = i + 1;
			r = prepare_msghdr(g, op, &op->msgs[i], a[1] + i * sizeof(struct mmsghdr));
			if (r != 0) {
				/* messages before a bad one are sent, as the kernel would */
				op->n_msgs = i;
				msg_clear(&op->msgs[i]);
				if (i == 0)
					return r > 0 ? -EMSGSIZE : r;
				op->error = r > 0 ? 0 : r;
				return 0;
			}
		}
		return 0;
	default:
		return -ENOSYS;
	}
}

/* Send what is prepared, from op->done on, never blocking init. false: a
 * blocking caller found no room; park it. true: answered. */
static bool op_run(struct gate *g, struct gate_op *op)
{
	int error = 0;

	while (op->done < op->n_msgs) {
		struct gate_msg *m = &op->msgs[op->done];
		struct iovec iov = { m->data + m->sent, m->len - m->sent };
		struct msghdr h = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = m->controllen ? m->control : NULL,
			.msg_controllen = m->controllen,
		};
		struct sockaddr_un via;
		ssize_t n;

		if (m->path_fd >= 0) {
			h.msg_name = &via;
			h.msg_namelen = gate_proc_address(m->path_fd, &via);
		} else if (m->addrlen) {
			h.msg_name = &m->addr;
			h.msg_namelen = m->addrlen;
		}
		n = sendmsg(op->sock, &h, (int)(op->flags | MSG_DONTWAIT | MSG_NOSIGNAL));
		if (n < 0) {
			if ((errno == EAGAIN || errno == EWOULDBLOCK) && !op->nonblock)
				return false;
			error = -errno;
			/* the caller's SIGPIPE, on the caller's thread */
			if (errno == EPIPE && !(op->flags & MSG_NOSIGNAL))
				(void)syscall(SYS_pidfd_send_signal, op->pidfd, SIGPIPE, NULL, 0);
			if (m->sent > 0)
				op->done++; /* what went out counts, as the kernel's short count */
			break;
		}
		m->sent += (size_t)n;
		m->controllen = 0; /* ancillary data went with the first byte */
		if (m->sent < m->len) {
			/* A stream took part of it: a blocking caller waits for
			 * the rest, as in the kernel; a non-blocking one gets
			 * the short count. */
			if (!op->nonblock)
				continue;
			op->done++;
			break;
		}
		op->done++;
	}
	if (!error)
		error = op->error;
	if (op->nr != SYS_sendmmsg) {
		gate_reply(g->listener, op->id, op->done ? (int64_t)op->msgs[0].sent : 0, op->done ? 0 : error ? error : -EIO);
		return true;
	}
	/* msg_len goes back into the caller's vector, if it is still the caller */
	for (size_t i = 0; i < op->done && gate_id_valid(g->listener, op->id); i++) {
		unsigned len = (unsigned)op->msgs[i].sent;
		struct iovec local = { &len, sizeof(len) },
			     remote = { (void *)(uintptr_t)(op->mmsg_at + i * sizeof(struct mmsghdr) +
							     offsetof(struct mmsghdr, msg_len)),
					sizeof(len) };

		(void)process_vm_writev(op->tid, &local, 1, &remote, 1, 0);
	}
	gate_reply(g->listener, op->id, (int64_t)op->done, op->done || !error ? 0 : error);
	return true;
}

static int do_connect(struct gate_op *op)
{
	const struct gate_msg *m = &op->msgs[0];
	struct sockaddr_un via;
	int r;

	/* Blocking when the caller's socket is: a unix listener with a full
	 * backlog holds init until it accepts (see unix_gate.h). */
	if (m->path_fd >= 0)
		r = connect(op->sock, (struct sockaddr *)&via, gate_proc_address(m->path_fd, &via));
	else
		r = connect(op->sock, m->addrlen ? (const struct sockaddr *)&m->addr : NULL, m->addrlen);
	return r < 0 ? -errno : 0;
}

static void park(struct gate *g, struct gate_op *op)
{
	if (g->n_parked >= GATE_MAX_PARKED || g->parked_bytes + op->bytes > GATE_MAX_PARKED_BYTES) {
		op->error = -ENOBUFS;
		op->nonblock = true;
		(void)op_run(g, op);
		op_free(op);
		return;
	}
	g->parked[g->n_parked++] = op;
	g->parked_bytes += op->bytes;
}

static void unpark(struct gate *g, size_t i)
{
	g->parked_bytes -= g->parked[i]->bytes;
	op_free(g->parked[i]);
	g->parked[i] = g->parked[--g->n_parked];
}

static void handle(struct gate *g)
{
	struct seccomp_notif n;
	struct gate_op *op;
	int r;

	memset(&n, 0, sizeof(n)); /* the kernel insists */
	if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
		return; /* ENOENT: the caller went away before we took it */
	if (g->net && net_allow_early(g->net, g->listener, &n))
		return;
	if (create_gate_nr(n.data.nr)) {
		create_gate_handle(g->listener, g->create, &n);
		return;
	}
	op = calloc(1, sizeof(*op));
	if (!op) {
		gate_reply(g->listener, n.id, 0, -ENOMEM);
		return;
	}
	*op = (struct gate_op){ .id = n.id, .tid = (pid_t)n.pid, .nr = n.data.nr, .pidfd = -1, .sock = -1 };
	r = prepare(g, op, &n);
	if (op->flags & MSG_DONTWAIT)
		op->nonblock = true;
	/* Everything read and taken: is it still the same caller? (a pid
	 * reused since RECV would have given us another process's fd) */
	if (!gate_id_valid(g->listener, op->id)) {
		op_free(op);
		return;
	}
	if (r >= 0 && g->net && (op->domain == AF_INET || op->domain == AF_INET6)) {
		const struct gate_msg *m = &op->msgs[0];
		struct net_call c = { .id = op->id, .tid = op->tid, .nr = op->nr, .fd = (int)n.data.args[0],
				      .pidfd = &op->pidfd, .sock = &op->sock, .domain = op->domain, .type = op->type,
				      .protocol = op->protocol, .flags = op->flags, .nonblock = op->nonblock,
				      .addr = &m->addr, .addrlen = op->n_msgs ? m->addrlen : 0 };

		r = net_allow_call(g->net, g->listener, &c);
		if (r > 0) {
			op_free(op); /* taken: answered when the proxy has */
			return;
		}
	}
	if (r < 0)
		gate_reply(g->listener, op->id, 0, r);
	else if (op->nr == SYS_connect)
		gate_reply(g->listener, op->id, 0, do_connect(op));
	else if (op->n_msgs == 0)
		gate_reply(g->listener, op->id, 0, 0); /* sendmmsg with vlen 0 */
	else if (!op_run(g, op)) {
		park(g, op);
		return;
	}
	op_free(op);
}

_Static_assert(UNIX_GATE_MAX_POLLFDS == 1 + GATE_MAX_PARKED + NET_ALLOW_MAX_POLLFDS, "the listener, every parked op, --net allow's");

unsigned exec_gates(const struct exec_ctx *x)
{
	return (x->plan->unix_gate ? NOTIFY_UNIX : 0) | (x->plan->net == CORDON_NET_ALLOW ? NOTIFY_UNIX | NOTIFY_NET : 0) | (create_set_active(&x->create) ? NOTIFY_CREATE : 0) |
	       (x->create.names.read_gate ? NOTIFY_READ | NOTIFY_CREATE : 0);
}

int unix_gate_pin(struct exec_ctx *x, char *err, size_t errlen)
{
	const struct plan *p = x->plan;
	size_t n = 0;

	for (size_t i = 0; p->allow_unix && p->allow_unix[i]; i++)
		n++;
	if (n == 0)
		return 0;
	x->unix_pins = calloc(n, sizeof(*x->unix_pins));
	if (!x->unix_pins)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* no link anywhere on the way, nor as the socket itself: the
		 * policy named it with none, so one now is a swap */
		int fd = path_open_nofollow(AT_FDCWD, p->allow_unix[i], O_NOFOLLOW);
		struct stat st;

		if (fd == -ENOENT)
			continue; /* nothing to connect to: no pin, every connect refused */
		if (fd < 0)
			return errbuf_set(err, errlen, fd, "--allow-unix-socket %s: %s", p->allow_unix[i],
					  fd == -ELOOP ? "a symlink lies on the way" : strerror(-fd));
		if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			close(fd);
			return errbuf_set(err, errlen, -EINVAL, "--allow-unix-socket %s: %s", p->allow_unix[i],
					  S_ISLNK(st.st_mode) ? "a symlink now, not the socket the policy named"
							      : "not a unix socket");
		}
		x->unix_pins[x->n_unix_pins++] = (struct unix_pin){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	}
	return 0;
}

struct gate *unix_gate_new(struct exec_ctx *x, int listener)
{
	const struct plan *p = x->plan;
	struct gate *g = calloc(1, sizeof(*g));
	bool failed;

	if (!g)
		return NULL;
	*g = (struct gate){
		.listener = listener,
		.diag = gate_diag_open(),
		.pins = x->unix_pins,
		.n_pins = x->n_unix_pins,
		.deny_tcp = p->landlock.deny_tcp && landlock_get_abi() >= 4,
		.host_net = p->net == CORDON_NET_HOST,
		.create = &x->create,
		.listening = true,
		.net = net_allow_new(x, &failed),
	};
	if (failed) {
		free(g);
		return NULL; /* fail closed: --net allow without its gate runs nothing */
	}
	return g;
}

size_t unix_gate_pollfds(struct gate *g, struct pollfd *fds, int *timeout_ms)
{
	fds[0] = (struct pollfd){ .fd = g->listening ? g->listener : -1, .events = POLLIN };
	for (size_t i = 0; i < g->n_parked; i++)
		fds[1 + i] = (struct pollfd){ .fd = g->parked[i]->sock, .events = POLLOUT };
	/* parked callers are re-checked each second: one killed meanwhile
	 * is dropped, with init's copy of its socket */
	if (g->n_parked && (*timeout_ms < 0 || *timeout_ms > 1000))
		*timeout_ms = 1000;
	g->polled = g->n_parked;
	g->net_polled = g->net ? net_allow_pollfds(g->net, fds + 1 + g->n_parked, timeout_ms) : 0;
	return 1 + g->n_parked + g->net_polled;
}

void unix_gate_step(struct gate *g, const struct pollfd *fds, int r)
{
	size_t n_parked = g->polled;

	if (g->net)
		net_allow_step(g->net, g->listener, fds + 1 + n_parked, g->net_polled, r);
	if (fds[0].revents & POLLIN)
		handle(g);
	else if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		g->listening = false; /* every process under the filter is gone */
	for (size_t i = n_parked; i-- > 0;) {
		struct gate_op *op = g->parked[i];

		if (!fds[1 + i].revents && r != 0)
			continue;
		if (!gate_id_valid(g->listener, op->id))
			unpark(g, i);
		else if (fds[1 + i].revents && op_run(g, op))
			unpark(g, i);
	}
}
