/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow: the connections handed over, after the hand-over (see
 * transparent.h). The proxy keeps no copy of a handed-over socket (one
 * would hold it open after the sandbox closed it). Two NETLINK_SOCK_DIAG
 * sockets in the host's namespace, opened before the proxy confines
 * itself, say what becomes of it: the kernel's destroy notifications
 * (SKNLGRP_INET{,6}_TCP_DESTROY) carry each socket's last tcp_info when it
 * is freed, so the audit line (name, address, port, duration, bytes) has
 * the bytes at close however short the connection; and a look by 4-tuple
 * and cookie once a second keeps the counts seen last, for a socket whose
 * notification was lost (the notification socket's buffer overran) or
 * where the kernel sends none; that line says so. The live ones count
 * against --max-conns, as relayed connections do.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "transparent.h"

/* The kernel's TCP states (include/net/tcp_states.h), as sock_diag says them. */
enum {
	ST_ESTABLISHED = 1,
	ST_SYN_SENT = 2,
	ST_SYN_RECV = 3,
	ST_CLOSE_WAIT = 8,
	ST_LAST_ACK = 9,
	ST_CLOSING = 11,
};

struct handed {
	uint64_t cookie;
	struct sockaddr_storage local, peer;
	char host[CORDON_NET_HOST_MAX + 1];
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;
	uint64_t started;
	uint64_t sent, received;
};

struct transparent_ledger {
	int diag;
	int destroyed; /* the destroy notifications, or -1 */
	struct event *destroyed_ev;
	struct handed *v;
	size_t n, size;
};

/* Room for the notifications of every TCP socket of the host's namespace
 * freed between two turns of the loop; SO_RCVBUFFORCE where the proxy may,
 * else what rmem_max allows. */
#define DESTROYED_RCVBUF (4 << 20)

static void on_destroyed(evutil_socket_t fd, short what, void *arg);

/* The notification socket: -errno when the kernel will not send them. */
static int destroyed_open(void)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK,
				  .nl_groups = 1u << (SKNLGRP_INET_TCP_DESTROY - 1) |
					       1u << (SKNLGRP_INET6_TCP_DESTROY - 1) };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_SOCK_DIAG), size = DESTROYED_RCVBUF;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int transparent_ledger_open(struct proxy *px)
{
	struct transparent_ledger *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (l->diag < 0) {
		int e = -errno;

		free(l);
		return e;
	}
	/* without them (an old kernel): the looks alone, their lines say so */
	l->destroyed = destroyed_open();
	if (l->destroyed >= 0) {
		l->destroyed_ev = event_new(px->base, l->destroyed, EV_READ | EV_PERSIST, on_destroyed, px);
		if (!l->destroyed_ev || event_add(l->destroyed_ev, NULL) < 0) {
			if (l->destroyed_ev)
				event_free(l->destroyed_ev);
			close(l->destroyed);
			close(l->diag);
			free(l);
			return -ENOMEM;
		}
	}
	px->ledger = l;
	return 0;
}

void transparent_ledger_free(struct proxy *px)
{
	struct transparent_ledger *l = px->ledger;

	if (!l)
		return;
	/* the sandbox has ended: the closes the kernel has told of, audited */
	transparent_ledger_tick(px);
	if (l->destroyed_ev)
		event_free(l->destroyed_ev);
	if (l->destroyed >= 0)
		close(l->destroyed);
	close(l->diag);
	free(l->v);
	free(l);
	px->ledger = NULL;
}

size_t transparent_ledger_live(const struct proxy *px)
{
	return px->ledger ? px->ledger->n : 0;
}

void transparent_ledger_add(struct proxy *px, int fd, const char *host, size_t host_len, uint16_t port,
			    const char *addr)
{
	struct transparent_ledger *l = px->ledger;
	struct handed h = { .port = port, .started = px->now };
	socklen_t ll = sizeof(h.local), pl = sizeof(h.peer), cl = sizeof(h.cookie);

	if (!l)
		return;
	if (getsockname(fd, (struct sockaddr *)&h.local, &ll) < 0 || getpeername(fd, (struct sockaddr *)&h.peer, &pl) < 0)
		h.peer.ss_family = AF_UNSPEC; /* still connecting: its peer is the address dialled */
	if (h.peer.ss_family == AF_UNSPEC)
		(void)getsockname(fd, (struct sockaddr *)&h.local, &ll);
	(void)getsockopt(fd, SOL_SOCKET, SO_COOKIE, &h.cookie, &cl);
	snprintf(h.host, sizeof(h.host), "%.*s", (int)host_len, host);
	snprintf(h.addr, sizeof(h.addr), "%s", addr);
	if (l->n == l->size) {
		size_t size = l->size ? 2 * l->size : 16;
		struct handed *v = realloc(l->v, size * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->size = size;
	}
	l->v[l->n++] = h;
}

/* h's byte counts from a diag message's INET_DIAG_INFO, if it has one
 * (true): the payload bytes sent (sent less retransmitted: no SYN, no FIN)
 * and received. bytes_received counts the peer's FIN as one: one less
 * when it came (freed: normally; a connection reset without one is said
 * one byte short). */
static bool counts(const struct inet_diag_msg *m, size_t len, struct handed *h, bool fin_received)
{
	size_t left = len - sizeof(*m);

	for (const struct rtattr *a = (const struct rtattr *)(m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		struct tcp_info ti = {};

		if (a->rta_type != INET_DIAG_INFO ||
		    RTA_PAYLOAD(a) < offsetof(struct tcp_info, tcpi_bytes_retrans) + sizeof(ti.tcpi_bytes_retrans))
			continue;
		memcpy(&ti, RTA_DATA(a), RTA_PAYLOAD(a) < sizeof(ti) ? RTA_PAYLOAD(a) : sizeof(ti));
		h->sent = ti.tcpi_bytes_sent >= ti.tcpi_bytes_retrans ? ti.tcpi_bytes_sent - ti.tcpi_bytes_retrans : 0;
		h->received = ti.tcpi_bytes_received;
		if (fin_received && h->received)
			h->received--;
		return true;
	}
	return false;
}

static void audit_closed(struct proxy *px, const struct handed *h, bool at_close)
{
	proxy_audit(px, "cordon-proxy: closed %s:%u (%s) after %llu s: %llu bytes sent, %llu received%s", h->host,
		    h->port, h->addr, (unsigned long long)((px->now - h->started) / 1000), (unsigned long long)h->sent,
		    (unsigned long long)h->received, at_close ? "" : " (as last seen, once a second)");
}

/* The kernel's notifications of sockets freed: ours audited with their
 * counts at close, the rest (any TCP socket of the host's) ignored. */
static void on_destroyed(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	struct transparent_ledger *l = px->ledger;
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

	(void)what;
	for (int turn = 0; turn < 64; turn++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		/* ENOBUFS: some were lost; the looks find those */
		if (n < 0 && errno == ENOBUFS)
			continue;
		if (n < (ssize_t)sizeof(struct nlmsghdr))
			return;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			const struct inet_diag_msg *m = NLMSG_DATA(nh);
			uint64_t cookie;

			if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			memcpy(&cookie, m->id.idiag_cookie, sizeof(cookie));
			for (size_t i = 0; cookie && i < l->n; i++) {
				if (l->v[i].cookie != cookie)
					continue;
				counts(m, nh->nlmsg_len - NLMSG_LENGTH(0), &l->v[i], true);
				audit_closed(px, &l->v[i], true);
				l->v[i] = l->v[--l->n];
				break;
			}
		}
	}
}

/* Where h is now: 1 still open (counts updated); 0 closed by the sandbox,
 * its counts at close (FIN_WAIT, LAST_ACK, CLOSING: nothing more moves);
 * -1 gone, or freed into TIME_WAIT (no counts: as last seen). */
static int look(struct transparent_ledger *l, struct handed *h)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = (uint8_t)h->local.ss_family, .sdiag_protocol = IPPROTO_TCP,
		       .idiag_ext = 1 << (INET_DIAG_INFO - 1), .idiag_states = ~0u },
	};
	char buf[4096];
	ssize_t n;

	if (h->peer.ss_family == AF_UNSPEC) {
		/* dialled while connecting: ask once it has a peer */
		h->peer.ss_family = h->local.ss_family;
	}
	if (h->local.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&h->local,
					 *b = (const struct sockaddr_in *)&h->peer;

		req.r.id.idiag_sport = a->sin_port;
		req.r.id.idiag_dport = b->sin_port ? b->sin_port : htons(h->port);
		memcpy(req.r.id.idiag_src, &a->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &b->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&h->local,
					  *b = (const struct sockaddr_in6 *)&h->peer;

		req.r.id.idiag_sport = a->sin6_port;
		req.r.id.idiag_dport = b->sin6_port ? b->sin6_port : htons(h->port);
		memcpy(req.r.id.idiag_src, &a->sin6_addr, 16);
		memcpy(req.r.id.idiag_dst, &b->sin6_addr, 16);
	}
	req.r.id.idiag_if = 0;
	memcpy(req.r.id.idiag_cookie, &h->cookie, sizeof(h->cookie));
	if (send(l->diag, &req, sizeof(req), MSG_DONTWAIT) < 0)
		return 1; /* not known: looked at again next time */
	n = recv(l->diag, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(struct nlmsghdr))
		return 1;
	for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		struct inet_diag_msg *m = NLMSG_DATA(nh);

		if (nh->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(nh))->error == -ENOENT ? -1 : 1;
		if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			continue;
		switch (m->idiag_state) {
		case ST_ESTABLISHED:
		case ST_SYN_SENT:
		case ST_SYN_RECV:
		case ST_CLOSE_WAIT:
			(void)counts(m, nh->nlmsg_len - NLMSG_LENGTH(0), h, false);
			return 1;
		default:
			/* the sandbox closed it (FIN_WAIT, TIME_WAIT, ...) */
			return counts(m, nh->nlmsg_len - NLMSG_LENGTH(0), h,
				      m->idiag_state == ST_LAST_ACK || m->idiag_state == ST_CLOSING)
				       ? 0
				       : -1;
		}
	}
	return 1;
}

void transparent_ledger_tick(struct proxy *px)
{
	struct transparent_ledger *l = px->ledger;

	/* the notifications queued first: a socket freed is audited with its
	 * counts at close, not as last seen */
	if (l && l->destroyed >= 0)
		on_destroyed(l->destroyed, EV_READ, px);
	for (size_t i = l ? l->n : 0; i-- > 0;) {
		struct handed *h = &l->v[i];
		int r = look(l, h);

		if (r > 0)
			continue;
		audit_closed(px, h, r == 0);
		l->v[i] = l->v[--l->n];
	}
}
