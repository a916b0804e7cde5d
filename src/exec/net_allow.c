/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow, init's gate (see net_allow.h): connects handed over from
 * the proxy, the traps on inet sockets, and the kernel probe.
 *
 * The request to the proxy (on init's control socket, SOCK_SEQPACKET):
 * "T" FLAGS FAMILY PORT(2, network order) HOST, with one fd: init's end
 * of a fresh socketpair the answer comes back on, "O" ADDRESS-TEXT with
 * the connected (or, FLAGS & 1, still connecting) socket, or "E"
 * ERRNO(4) REASON. One request per connect; none of the bytes after it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "errbuf.h"
#include "gate_common.h"
#include "net_allow_impl.h"
#include "netrule.h"
#include "runner.h"

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef SECCOMP_ADDFD_FLAG_SETFD
#define SECCOMP_ADDFD_FLAG_SETFD (1UL << 0)
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static uint64_t netns_of(int sock);

/* ---- the probe ------------------------------------------------------ */

/* A child under a filter that sends getppid to a listener; the parent
 * takes the listener (pidfd_getfd), installs an fd at a chosen number in
 * the child (ADDFD, SETFD) and answers. The child says whether the fd is
 * there. */
int net_allow_probe(char *err, size_t errlen)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	int pair[2], st = 0, listener = -1, pidfd = -1, r = 0;
	const char *what = NULL;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
		return errbuf_set(err, errlen, -errno, "socketpair: %s", strerror(errno));
	if (!netns_of(pair[0])) {
		close(pair[0]);
		close(pair[1]);
		return errbuf_set(err, errlen, -EOPNOTSUPP,
				  "--net allow needs SO_NETNS_COOKIE (Linux 5.14) to tell a handed-over socket from the "
				  "sandbox's own, which this kernel refused: nothing was run");
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pair[0]);
		close(pair[1]);
		return errbuf_set(err, errlen, r, "fork: %s", strerror(-r));
	}
	if (pid == 0) {
		int l, ok = 0;
		struct stat s;

		close(pair[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(2);
		l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (l < 0 || write(pair[1], &l, sizeof(l)) != sizeof(l))
			_exit(3);
		(void)syscall(SYS_getppid);
		ok = fstat(200, &s) == 0 && S_ISSOCK(s.st_mode);
		_exit(ok ? 0 : 4);
	}
	close(pair[1]);
	{
		int number = -1;
		struct seccomp_notif n;

		if (read(pair[0], &number, sizeof(number)) != sizeof(number)) {
			what = "seccomp user notification (SECCOMP_FILTER_FLAG_NEW_LISTENER)";
			goto out;
		}
		pidfd = gate_pidfd_open(pid);
		listener = pidfd < 0 ? pidfd : gate_pidfd_getfd(pidfd, number);
		if (listener < 0) {
			what = "pidfd_getfd";
			r = listener;
			goto out;
		}
		memset(&n, 0, sizeof(n));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0) {
			what = "SECCOMP_IOCTL_NOTIF_RECV";
			r = -errno;
			goto out;
		}
		{
			struct seccomp_notif_addfd add = { .id = n.id, .flags = SECCOMP_ADDFD_FLAG_SETFD,
							   .srcfd = (uint32_t)pair[0], .newfd = 200 };

			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) != 200) {
				what = "SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SETFD";
				r = -errno;
			}
		}
		gate_reply(listener, n.id, 0, 0);
	}
out:
	if (what)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!what && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		what = "SECCOMP_IOCTL_NOTIF_ADDFD (the fd did not arrive)";
	if (listener >= 0)
		close(listener);
	if (pidfd >= 0)
		close(pidfd);
	close(pair[0]);
	if (what)
		return errbuf_set(err, errlen, r < 0 ? r : -EOPNOTSUPP,
				  "--net allow needs %s, which this kernel refused (%s): nothing was run", what,
				  r < 0 ? strerror(-r) : "unsupported");
	return 0;
}

/* ---- the state -------------------------------------------------------- */

/* The network namespace a socket belongs to (its cookie: no capability
 * needed, unlike SIOCGSKNS); 0 when the kernel does not say. */
static uint64_t netns_of(int sock)
{
	uint64_t cookie = 0;

	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &(socklen_t){ sizeof(cookie) }) < 0)
		return 0;
	return cookie;
}

struct net_allow *net_allow_new(struct exec_ctx *x, bool *ret_failed)
{
	const struct plan *p = x->plan;
	struct net_allow *na;
	int r = 0;

	*ret_failed = false;
	if (p->net != CORDON_NET_ALLOW)
		return NULL;
	na = calloc(1, sizeof(*na));
	if (!na || cordon_netrules_new(&na->rules) < 0) {
		*ret_failed = true;
		return NULL;
	}
	{
		_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		na->netns = s < 0 ? 0 : netns_of(s);
	}
	if (!na->netns) {
		*ret_failed = true; /* without the namespace's cookie nothing could be told apart */
		return NULL;
	}
	for (size_t i = 0; r == 0 && p->deny_domains && p->deny_domains[i]; i++)
		r = cordon_netrules_add(na->rules, CORDON_NET_DENY_DOMAIN, p->deny_domains[i], NULL, 0);
	for (size_t i = 0; r == 0 && p->allow_domains && p->allow_domains[i]; i++)
		r = cordon_netrules_add(na->rules, CORDON_NET_ALLOW_DOMAIN, p->allow_domains[i], NULL, 0);
	for (size_t i = 0; r == 0 && p->allow_addresses && p->allow_addresses[i]; i++)
		r = cordon_netrules_add(na->rules, CORDON_NET_ALLOW_ADDRESS, p->allow_addresses[i], NULL, 0);
	if (r < 0) {
		*ret_failed = true;
		return NULL;
	}
	na->proxy = x->proxy_fd;
	na->dns[0] = x->net_dns[0];
	na->dns[1] = x->net_dns[1];
	return na;
}

/* A socket of another namespace (the host's: one the proxy handed over),
 * or one the kernel would not say of. */
static bool foreign(const struct net_allow *na, int sock)
{
	uint64_t ns = netns_of(sock);

	return !ns || ns != na->netns;
}

static void denial(const char *op, const char *host, unsigned port)
{
	char target[CORDON_NET_HOST_MAX + 32];

	snprintf(target, sizeof(target), "tcp:%s:%u", host, port);
	status_denial("net-allow", op, target);
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static unsigned port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? ntohs(((const struct sockaddr_in *)ss)->sin_port)
					: ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* ---- the hand-over ---------------------------------------------------- */

static void pending_drop(struct net_allow *na, size_t i)
{
	struct net_pending *p = &na->pending[i];

	close(p->reply);
	close(p->sock);
	close(p->pidfd);
	na->pending[i] = na->pending[--na->n_pending];
}

static const struct {
	int level, name;
} opts[] = {
		{ SOL_SOCKET, SO_KEEPALIVE }, { SOL_SOCKET, SO_SNDBUF },     { SOL_SOCKET, SO_RCVBUF },
		{ SOL_SOCKET, SO_PRIORITY },  { SOL_SOCKET, SO_RCVLOWAT },   { SOL_SOCKET, SO_OOBINLINE },
		{ IPPROTO_TCP, TCP_NODELAY }, { IPPROTO_TCP, TCP_KEEPIDLE }, { IPPROTO_TCP, TCP_KEEPINTVL },
		{ IPPROTO_TCP, TCP_KEEPCNT }, { IPPROTO_TCP, TCP_USER_TIMEOUT }, { IPPROTO_TCP, TCP_CORK },
		{ IPPROTO_TCP, TCP_QUICKACK }, { IPPROTO_TCP, TCP_NOTSENT_LOWAT },
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))
_Static_assert(N_OPTS == NET_ALLOW_OPTS, "net_pending has room for each option");

/* A fresh TCP socket's values of opts, per family (asked once). */
static const int *fresh_options(int domain)
{
	static int values[2][N_OPTS];
	static bool known[2];
	int k = domain == AF_INET6;
	_cleanup_close_ int fresh = -1;

	if (known[k])
		return values[k];
	fresh = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fresh < 0)
		return NULL;
	for (size_t i = 0; i < N_OPTS; i++) {
		socklen_t l = sizeof(int);

		values[k][i] = INT_MIN; /* unknown: never equal, always copied */
		(void)getsockopt(fresh, opts[i].level, opts[i].name, &values[k][i], &l);
	}
	known[k] = true;
	return values[k];
}

/* What the caller set on its socket before the connect, where it differs
 * from a fresh socket's: noted, for the socket handed over. */
static void note_options(struct net_pending *p)
{
	const int *fresh = fresh_options(p->domain);
	socklen_t ll = sizeof(p->linger);

	if (!fresh)
		return;
	for (size_t i = 0; i < N_OPTS; i++) {
		int a = 0;
		socklen_t la = sizeof(a);

		if (getsockopt(p->sock, opts[i].level, opts[i].name, &a, &la) < 0 || a == fresh[i])
			continue;
		/* the kernel reports buffer sizes doubled, and doubles what is set */
		if (opts[i].level == SOL_SOCKET && (opts[i].name == SO_SNDBUF || opts[i].name == SO_RCVBUF))
			a /= 2;
		p->value[i] = a;
		p->differs |= 1u << i;
	}
	if (getsockopt(p->sock, SOL_SOCKET, SO_LINGER, &p->linger, &ll) < 0)
		p->linger.l_onoff = 0;
}

static void copy_options(const struct net_pending *p, int to)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (p->differs & (1u << i))
			(void)setsockopt(to, opts[i].level, opts[i].name, &p->value[i], sizeof(int));
	if (p->linger.l_onoff)
		(void)setsockopt(to, SOL_SOCKET, SO_LINGER, &p->linger, sizeof(p->linger));
}

/* The caller's fd flags (close-on-exec), from its fdinfo. */
static unsigned caller_fd_flags(pid_t tid, int fd)
{
	char path[64], buf[256];
	_cleanup_close_ int f = -1;
	ssize_t n;
	char *s;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0 || (n = read(f, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = '\0';
	s = strstr(buf, "flags:");
	return s && (strtoul(s + 6, NULL, 8) & O_CLOEXEC) ? O_CLOEXEC : 0;
}

/* Ask the proxy; the answer comes on a socket of this connect's own.
 * While the proxy resolves and dials, init reads what the answer will
 * need from the caller's socket (its options, its fd flags): once the
 * socket arrives, only the writes stand between it and the caller. The
 * caller is blocked in connect meanwhile; another of its threads could
 * change an option in between, as it could after the old read too. */
static int start(struct net_allow *na, const struct net_call *c, const char *host, uint16_t port)
{
	struct net_pending *p;
	int reply, r;

	if (na->n_pending >= NET_ALLOW_MAX_PENDING)
		return -EAGAIN;
	r = net_allow_ask(na, 'T', c->nonblock ? 1 : 0, c->domain, port, host, &reply);
	if (r < 0)
		return r;
	p = &na->pending[na->n_pending++];
	*p = (struct net_pending){ .id = c->id, .tid = c->tid, .pidfd = *c->pidfd, .sock = *c->sock, .fd = c->fd,
				   .reply = reply, .nonblock = c->nonblock, .port = port, .domain = c->domain };
	snprintf(p->host, sizeof(p->host), "%s", host);
	*c->pidfd = *c->sock = -1;
	note_options(p);
	p->fd_flags = caller_fd_flags(p->tid, p->fd);
	return 1;
}

static void finish(struct net_allow *na, int listener, size_t i)
{
	struct net_pending *p = &na->pending[i];
	char buf[256], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(p->reply, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	_cleanup_close_ int fd = -1;
	int error = -ECONNREFUSED;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); n > 0 && cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (n >= 5 && buf[0] == 'E') {
		int32_t e;

		memcpy(&e, buf + 1, sizeof(e));
		error = e > 0 && e < 4096 ? -e : -ECONNREFUSED;
	} else if (n >= 1 && buf[0] == 'O' && fd >= 0) {
		/* SETFD, then the answer on its own: ADDFD's FLAG_SEND would
		 * answer in the same call, but with the fd number as the
		 * result (the call returns 3, not 0), which no connect may
		 * return */
		struct seccomp_notif_addfd add = {
			.id = p->id, .flags = SECCOMP_ADDFD_FLAG_SETFD, .srcfd = (uint32_t)fd, .newfd = (uint32_t)p->fd,
			.newfd_flags = p->fd_flags,
		};

		copy_options(p, fd);
		/* blocking or not as the caller's socket was (set whatever
		 * the proxy's socket is: one call, no read) */
		(void)fcntl(fd, F_SETFL, p->nonblock ? O_NONBLOCK : 0);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0) {
			pending_drop(na, i); /* the caller is gone */
			return;
		}
		/* non-blocking: EINPROGRESS, as the kernel answers every
		 * non-blocking TCP connect (even one to its own loopback,
		 * complete by the time it returns), whether the proxy's
		 * connect is complete, going on ("O~"), or failed at once
		 * ("O~" too: its SO_ERROR says why); blocking: 0, connected */
		error = p->nonblock ? -EINPROGRESS : 0;
	} else if (n == 0 || n < 0)
		error = -ENETDOWN; /* the proxy ended: the run ends too */
	gate_reply(listener, p->id, 0, error);
	pending_drop(na, i);
}

size_t net_allow_pollfds(struct net_allow *na, struct pollfd *fds, int *timeout_ms)
{
	fds[0] = (struct pollfd){ .fd = na->dns[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = na->dns[1], .events = POLLIN };
	for (size_t i = 0; i < na->n_pending; i++)
		fds[2 + i] = (struct pollfd){ .fd = na->pending[i].reply, .events = POLLIN };
	for (size_t i = 0; i < na->n_waits; i++)
		fds[2 + na->n_pending + i] = (struct pollfd){ .fd = na->waits[i].reply, .events = POLLIN };
	if (na->n_pending && (*timeout_ms < 0 || *timeout_ms > 1000))
		*timeout_ms = 1000;
	na->polled = na->n_pending;
	na->waits_polled = na->n_waits;
	return 2 + na->n_pending + na->n_waits;
}

void net_allow_step(struct net_allow *na, int listener, const struct pollfd *fds, size_t n, int r)
{
	for (int k = 0; k < 2 && (size_t)k < n; k++) {
		if (fds[k].revents & POLLIN)
			net_allow_dns_serve(na, fds[k].fd);
		else if (fds[k].revents & (POLLERR | POLLNVAL))
			na->dns[k] = -1; /* gone: never a busy loop on it */
	}
	for (size_t i = na->waits_polled; i-- > 0;)
		if (fds[2 + na->polled + i].revents)
			net_allow_dns_looked(na, i);
	for (size_t i = na->polled; i-- > 0;) {
		if (fds[2 + i].revents)
			finish(na, listener, i);
		else if (r == 0 && !gate_id_valid(listener, na->pending[i].id))
			pending_drop(na, i); /* the caller went away: the proxy sees the close */
	}
}

/* ---- the traps -------------------------------------------------------- */

bool net_allow_early(struct net_allow *na, int listener, const struct seccomp_notif *n)
{
	_cleanup_close_ int pidfd = -1, sock = -1;
	struct sockaddr_storage ss = {};
	int domain = 0, r = 0;
	uint64_t len = n->data.args[2];

	if (n->data.nr != SYS_listen && n->data.nr != SYS_bind)
		return false;
	pidfd = gate_pidfd_open((pid_t)n->pid);
	sock = pidfd < 0 ? pidfd : gate_pidfd_getfd(pidfd, (int)n->data.args[0]);
	if (sock < 0) {
		r = sock;
		goto answer;
	}
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &(socklen_t){ sizeof(int) }) < 0) {
		r = -ENOTSOCK;
		goto answer;
	}
	if (domain != AF_INET && domain != AF_INET6) {
		if (n->data.nr == SYS_bind)
			return false; /* the creation gate's (a path), or the kernel's */
	} else if (foreign(na, sock)) {
		status_denial("net-allow", n->data.nr == SYS_listen ? "listen" : "bind", "a socket handed over from the host");
		r = -EACCES;
		goto answer;
	}
	if (!gate_id_valid(listener, n->id))
		return true;
	if (n->data.nr == SYS_listen)
		r = listen(sock, (int)n->data.args[1]) < 0 ? -errno : 0;
	else if (len > sizeof(ss))
		r = -EINVAL;
	else if ((r = gate_peek((pid_t)n->pid, n->data.args[1], &ss, (size_t)len)) == 0)
		r = bind(sock, (struct sockaddr *)&ss, (socklen_t)len) < 0 ? -errno : 0;
answer:
	gate_reply(listener, n->id, 0, r);
	return true;
}

int net_allow_call(struct net_allow *na, int listener, const struct net_call *c)
{
	struct cordon_net_verdict v;
	char text[INET6_ADDRSTRLEN];
	const char *host;
	bool tcp = c->type == SOCK_STREAM;
	bool connecting = c->nr == SYS_connect || (c->flags & MSG_FASTOPEN);
	unsigned port;
	size_t i;

	(void)listener;
	if (foreign(na, *c->sock)) {
		/* a handed-over socket: its one connection, nothing more */
		if (!connecting && !c->addrlen)
			return 0;
		if (c->nr != SYS_connect && !(c->flags & MSG_FASTOPEN))
			return 0; /* an address on a connected TCP send: ignored by the kernel */
		status_denial("net-allow", "connect", "a socket handed over from the host");
		return -EACCES;
	}
	if (!c->addrlen || c->addr->ss_family == AF_UNSPEC || is_loopback(c->addr))
		return 0; /* the sandbox's own loopback, or a disconnect */
	if (c->addr->ss_family != AF_INET && c->addr->ss_family != AF_INET6)
		return 0;
	port = port_of(c->addr);
	if (!connecting && tcp)
		return 0;
	if (!tcp) {
		/* UDP (and raw) leave only for the sandbox's loopback */
		status_denial("net-allow", c->nr == SYS_connect ? "connect" : "send", "udp: not the sandbox's loopback");
		return -EACCES;
	}
	if (c->nr != SYS_connect) {
		denial("connect", "(TCP Fast Open)", port);
		return -EACCES; /* a connect by another name: connect() takes this path */
	}
	i = net_allow_synthetic((const struct sockaddr *)c->addr, c->addrlen);
	if (i) {
		if (i > na->n_names)
			return -ENETUNREACH;
		host = na->names[i - 1];
	} else {
		struct cordon_netaddr a;

		cordon_netaddr_from_sockaddr((const struct sockaddr *)c->addr, &a);
		netaddr_format(&a, text, sizeof(text));
		host = text;
	}
	cordon_net_decide(na->rules, host, strlen(host), (uint16_t)port, NULL, NULL, &v);
	if (!v.allowed && !v.need_resolve) {
		denial("connect", host, port);
		return -EACCES;
	}
	return start(na, c, host, (uint16_t)port);
}
