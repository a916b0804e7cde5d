/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow: the connections handed over, after the hand-over (see
 * transparent.h). The proxy keeps no copy of a handed-over socket (one
 * would hold it open after the sandbox closed it); it looks each one up
 * once a second by its 4-tuple and cookie (NETLINK_SOCK_DIAG in the host's
 * namespace, opened before the proxy confines itself), remembers the
 * byte counts seen last, and when the socket is closing or gone writes the
 * audit line: name, address, port, duration, bytes. The live ones count
 * against --max-conns, as relayed connections do.
 */
#include <arpa/inet.h>
#include <errno.h>
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
	struct handed *v;
	size_t n, size;
};

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
	px->ledger = l;
	return 0;
}

void transparent_ledger_free(struct proxy *px)
{
	struct transparent_ledger *l = px->ledger;

	if (!l)
		return;
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

/* Where h is now: 1 still open (counts updated), 0 closing or gone. */
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
		size_t left;

		if (nh->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(nh))->error == -ENOENT ? 0 : 1;
		if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			continue;
		left = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
		for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left))
			if (a->rta_type == INET_DIAG_INFO && RTA_PAYLOAD(a) >= offsetof(struct tcp_info, tcpi_bytes_received) + 8) {
				struct tcp_info ti = {};

				memcpy(&ti, RTA_DATA(a), RTA_PAYLOAD(a) < sizeof(ti) ? RTA_PAYLOAD(a) : sizeof(ti));
				/* acked counts our SYN as one byte */
				h->sent = ti.tcpi_bytes_acked ? ti.tcpi_bytes_acked - 1 : 0;
				h->received = ti.tcpi_bytes_received;
			}
		switch (m->idiag_state) {
		case ST_ESTABLISHED:
		case ST_SYN_SENT:
		case ST_SYN_RECV:
		case ST_CLOSE_WAIT:
			return 1;
		default:
			return 0; /* the sandbox closed it (FIN_WAIT, TIME_WAIT, ...) */
		}
	}
	return 1;
}

void transparent_ledger_tick(struct proxy *px)
{
	struct transparent_ledger *l = px->ledger;

	for (size_t i = l ? l->n : 0; i-- > 0;) {
		struct handed *h = &l->v[i];

		if (look(l, h))
			continue;
		proxy_audit(px, "cordon-proxy: closed %s:%u (%s) after %llu s: %llu bytes sent, %llu received (as last "
			    "seen, once a second)", h->host,
			    h->port, h->addr, (unsigned long long)((px->now - h->started) / 1000),
			    (unsigned long long)h->sent, (unsigned long long)h->received);
		l->v[i] = l->v[--l->n];
	}
}
