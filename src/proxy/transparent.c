/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* --net allow: connections decided and dialled here, passed to init (see transparent.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <event2/dns.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "transparent.h"

static void transparent_deliver(struct conn *c, bool early);
static void transparent_refused(struct conn *c, const char *reason, const char *detail);
static const struct conn_ops transparent_ops = { .deliver = transparent_deliver, .refused = transparent_refused };

struct lookup {
	struct proxy *px;
	int fd;
	size_t len;
	char name[];
};

static void looked(int result, struct evutil_addrinfo *res, void *arg)
{
	struct lookup *l = arg;
	char e[5] = { 'E' };
	int32_t v = result == EVUTIL_EAI_NONAME
#ifdef EVUTIL_EAI_NODATA
		|| result == EVUTIL_EAI_NODATA
#endif
		? EHOSTUNREACH : EAGAIN;

	if (result == 0 && res) {
		/* the connect that usually follows dials from this answer */
		transparent_cache_put(l->px, l->name, l->len, res);
		(void)send(l->fd, "O", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	} else {
		memcpy(e + 1, &v, sizeof(v));
		(void)send(l->fd, e, sizeof(e), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (res)
		evutil_freeaddrinfo(res);
	close(l->fd);
	free(l);
}

/* "R" NAME: does the name exist (resolving it as a CONNECT would)? The
 * sandbox's resolver answers NXDOMAIN for one that does not. Init asks
 * only for names its rules allow. The answer is kept for the connect
 * (transparent_cache.c). */
static void lookup(struct proxy *px, int fd, const char *name)
{
	struct evutil_addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	size_t len = strlen(name);
	struct lookup *l = malloc(sizeof(*l) + len + 1);

	if (!l) {
		close(fd);
		return;
	}
	*l = (struct lookup){ .px = px, .fd = fd, .len = len };
	memcpy(l->name, name, len + 1);
	(void)evdns_getaddrinfo(px->dns, name, NULL, &hints, looked, l);
}

void transparent_request(struct proxy *px, int fd, const char *msg, size_t n)
{
	struct conn *c;
	size_t hl = n > 5 ? n - 5 : 0;

	if (n >= 6 && msg[0] == 'R' && hl <= CORDON_NET_HOST_MAX) {
		char name[CORDON_NET_HOST_MAX + 1];

		memcpy(name, msg + 5, hl);
		name[hl] = '\0';
		if (memchr(name, '\0', hl)) {
			close(fd);
			return;
		}
		lookup(px, fd, name);
		return;
	}

	/* the connections handed over and still open count as relayed ones do;
	 * the ledger learns of closes from the kernel's destroy notices, read
	 * on its own event, which may not have run yet: at the cap it looks
	 * now (a client making many short connections is not refused for
	 * ones it already closed) */
	if (n >= 6 && px->n_conns + transparent_ledger_live(px) >= px->cfg->max_conns)
		transparent_ledger_tick(px);
	if (n < 6 || msg[0] != 'T' || hl > CORDON_NET_HOST_MAX ||
	    px->n_conns + transparent_ledger_live(px) >= px->cfg->max_conns) {
		char e[5] = { 'E' };
		int32_t v = n < 6 || hl > CORDON_NET_HOST_MAX ? EINVAL : EAGAIN;

		memcpy(e + 1, &v, sizeof(v));
		(void)send(fd, e, sizeof(e), MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		return;
	}
	/* no read event on init's socket: the request is in, and the answer
	 * goes on it within this call unless the name must be looked up
	 * (two epoll_ctl calls a connect fewer) */
	c = conn_new(px, fd, PROXY_LISTEN_TRANSPARENT, NULL);
	if (c)
		c->ops = &transparent_ops;
	if (!c)
		return;
	c->t_early = msg[1] & 1;
	c->t_family = msg[2] == 6 ? AF_INET6 : AF_INET;
	c->port = (uint16_t)((uint8_t)msg[3] << 8 | (uint8_t)msg[4]);
	memcpy(c->host, msg + 5, hl);
	c->host[hl] = '\0';
	c->host_len = hl;
	snprintf(c->what, sizeof(c->what), "connect (--net allow)");
	if (c->port == 0) {
		conn_refuse_request(c, 400, "port-zero", "port 0 is no destination");
		return;
	}
	conn_decide(c);
}

static void transparent_deliver(struct conn *c, bool early)
{
	char msg[2 + INET6_ADDRSTRLEN + 8] = { 'O', early ? '~' : ' ' }, cbuf[CMSG_SPACE(sizeof(int))] = {};
	char addr[INET6_ADDRSTRLEN] = "?";
	struct iovec iov = { msg, 0 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	const struct cordon_netaddr *a = c->next_answer ? &c->answers.v[c->next_answer - 1] : NULL;
	struct pollfd pf = { .fd = c->ufd, .events = POLLOUT };
	/* early, and refused already (dial.c hands such a socket to a caller
	 * that does not wait: its SO_ERROR, unread, says why) */
	bool failed = early && poll(&pf, 1, 0) == 1 && (pf.revents & (POLLERR | POLLHUP));

	if (a)
		inet_ntop(a->family, a->a, addr, sizeof(addr));
	iov.iov_len = 2 + (size_t)snprintf(msg + 2, sizeof(msg) - 2, "%s", addr);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &c->ufd, sizeof(int));
	if (c->uev)
		event_del(c->uev);
	if (sendmsg(c->cfd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		conn_end(c);
		return;
	}
	if (!failed)
		transparent_ledger_add(c->px, c->ufd, c->host, c->host_len, c->port, addr);
	/* the audit line: the proxy sees no byte of it after this (the ledger
	 * says its duration and bytes when it is closed) */
	proxy_audit(c->px, "cordon-proxy: handed over %.*s:%u (%s) to the sandbox%s", (int)c->host_len, c->host, c->port,
		    addr, failed ? " (its connect failed: the caller reads why in SO_ERROR)" : early ? " (connecting)" : "");
	c->requests++;
	conn_end(c);
}

static int reason_errno(const char *reason)
{
	if (strncmp(reason, "upstream-connect-timeout", 24) == 0 || strcmp(reason, "resolve-timeout") == 0)
		return ETIMEDOUT;
	if (strncmp(reason, "upstream-connect", 16) == 0)
		return ECONNREFUSED;
	if (strcmp(reason, "resolve-failed") == 0)
		return EHOSTUNREACH;
	return EACCES; /* the rules refused it */
}

static void transparent_refused(struct conn *c, const char *reason, const char *detail)
{
	char msg[5 + 200] = { 'E' };
	int32_t e = reason_errno(reason);
	int k;

	memcpy(msg + 1, &e, sizeof(e));
	k = snprintf(msg + 5, sizeof(msg) - 5, "%s", reason);
	if (k < 0 || (size_t)k >= sizeof(msg) - 5)
		k = (int)sizeof(msg) - 6;
	(void)detail;
	(void)send(c->cfd, msg, 5 + (size_t)k, MSG_NOSIGNAL | MSG_DONTWAIT);
}
