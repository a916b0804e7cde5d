/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's loop: its listeners and control socket, new connections and
 * their requests (request.c reads them; dial.c takes a read request on to
 * the relay), and the timeouts, once a second. One libevent loop; nothing
 * blocks.
 */
#include <errno.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "transparent.h"
#include "errbuf.h"
#include "proxy.h"
#include "request.h"

/* Seconds a client's connection is kept open after a response for its
 * next request. */
#define PROXY_KEEPALIVE_IDLE 2

/* A timeout of s seconds in proxy_now()'s unit. */
static uint64_t ms(unsigned s)
{
	return (uint64_t)s * 1000;
}

/* The client's socket is readable while its request is read. */
static void on_head(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct request_refusal no;
	size_t got;
	enum request_step step = request_read(c, &no, &got);

	if (got)
		conn_touch(c);
	switch (step) {
	case REQUEST_MORE:
		break;
	case REQUEST_READY:
		conn_decide(c);
		break;
	case REQUEST_REFUSE:
		conn_refuse(c, no.status, no.reason, no.detail);
		break;
	case REQUEST_REJECTED:
		proxy_audit(c->px, "cordon-proxy: refused %s -: %s", c->what, no.reason);
		conn_end(c);
		break;
	case REQUEST_GONE:
		conn_end(c);
		break;
	}
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct proxy *px = arg;
	int kind = PROXY_LISTEN_HTTP;

	for (size_t i = 0; i < px->n_listen; i++)
		if (px->listen_fd[i] == lfd)
			kind = px->listen_kind[i];
	px->now = proxy_now(); /* the timeouts count from here, not from the last tick */
	for (int k = 0; k < 64 && px->n_conns < px->cfg->max_conns; k++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0) {
			/* out of fds: stop until a connection ends (or the next
			 * tick), instead of spinning on a readable listener */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				proxy_set_accepting(px, false);
			return;
		}
		c = conn_new(px, fd, kind, on_head);
		if (!c)
			continue;
		/* a client sends its request with the connect: read it now,
		 * not one turn of the loop later (EAGAIN: it comes by event) */
		on_head(fd, EV_READ, c);
	}
	if (px->n_conns >= px->cfg->max_conns)
		proxy_set_accepting(px, false);
}

/* Once a second: the timeouts. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	const struct proxy_config *cfg = px->cfg;

	px->now = proxy_now();
	if (px->n_conns < cfg->max_conns)
		proxy_set_accepting(px, true);
	transparent_ledger_tick(px);
	for (struct conn *c = px->conns, *next; c; c = next) {
		uint64_t in_state = px->now - c->state_since;

		next = c->next;
		if (c->finished)
			continue;
		switch (c->state) {
		case C_HEAD:
		case C_SOCKS_REQUEST:
			/* a kept-alive connection with no next request: just close
			 * (soon: a client that reads to EOF waits on it) */
			if (c->requests && c->in_len == 0 &&
			    in_state >= ms(cfg->head_timeout < PROXY_KEEPALIVE_IDLE ? cfg->head_timeout : PROXY_KEEPALIVE_IDLE))
				conn_end(c);
			else if (in_state >= ms(cfg->head_timeout))
				conn_refuse_request(c, 408, "request-timeout", "the request head did not arrive in time");
			break;
		case C_RESOLVING:
			if (in_state >= ms(cfg->connect_timeout))
				conn_refuse_request(c, 504, "resolve-timeout", "the name did not resolve in time");
			break;
		case C_CONNECTING:
			if (in_state >= ms(cfg->connect_timeout))
				conn_refuse_request(c, 504, "upstream-connect-timeout", "the upstream did not answer in time");
			break;
		case C_RELAY:
			if (px->now - c->last >= ms(cfg->idle_timeout) ||
			    (cfg->total_timeout && px->now - c->started >= ms(cfg->total_timeout))) {
				conn_end(c);
				break;
			}
			/* a connection that waits holds no buffer */
			if (px->now - c->last >= ms(RELAY_IDLE_RELEASE)) {
				relay_release(&c->up);
				relay_release(&c->down);
			}
			break;
		case C_CLOSING:
			if (in_state >= ms(2))
				conn_end(c);
			break;
		}
	}
}

int proxy_init(struct proxy *px, const struct proxy_config *cfg, char *err, size_t errlen)
{
	struct timeval one = { 1, 0 };
	int r;

	*px = (struct proxy){ .cfg = cfg, .now = proxy_now(), .accepting = true };
	px->base = event_base_new();
	if (!px->base)
		return errbuf_set(err, errlen, -ENOMEM, "cannot make the event loop");
	/* resolv.conf and /etc/hosts are read here, before the proxy confines itself */
	px->dns = evdns_base_new(px->base, EVDNS_BASE_INITIALIZE_NAMESERVERS | EVDNS_BASE_DISABLE_WHEN_INACTIVE);
	if (!px->dns)
		px->dns = evdns_base_new(px->base, 0); /* no resolv.conf: /etc/hosts only */
	if (!px->dns)
		return errbuf_set(err, errlen, -ENOMEM, "cannot make the resolver");
	/* the name resolved is the name the rules checked: no search domains */
	evdns_base_search_clear(px->dns);
	(void)evdns_base_load_hosts(px->dns, "/etc/hosts");
	/* the route lookups' socket, opened before the proxy confines itself */
	r = cordon_net_host_open(&px->here);
	if (r < 0)
		return errbuf_set(err, errlen, r, "cannot open the route lookup socket: %s", strerror(-r));
	/* --net allow's ledger: its NETLINK_SOCK_DIAG socket, before confinement too */
	if (cfg->transparent && (r = transparent_ledger_open(px)) < 0)
		return errbuf_set(err, errlen, r, "cannot open the socket diagnostics socket: %s", strerror(-r));
	px->tick = event_new(px->base, -1, EV_PERSIST, on_tick, px);
	if (!px->tick || event_add(px->tick, &one) < 0)
		return errbuf_set(err, errlen, -ENOMEM, "cannot arm the timeouts");
	return 0;
}

int proxy_add_listener(struct proxy *px, int fd, int kind)
{
	struct event *ev;

	if (px->n_listen >= sizeof(px->listen_fd) / sizeof(px->listen_fd[0]))
		return -E2BIG;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	ev = event_new(px->base, fd, EV_READ | EV_PERSIST, on_accept, px);
	if (!ev)
		return -ENOMEM;
	if (px->accepting && event_add(ev, NULL) < 0) {
		event_free(ev);
		return -EIO;
	}
	px->listen_ev[px->n_listen] = ev;
	px->listen_fd[px->n_listen] = fd;
	px->listen_kind[px->n_listen] = kind;
	px->n_listen++;
	return 0;
}

static void on_control(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	char kinds[8 + CORDON_NET_HOST_MAX] = {}, cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { kinds, sizeof(kinds) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0 && (kinds[0] == PROXY_LISTEN_TRANSPARENT || kinds[0] == 'R') && px->cfg->transparent) {
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		int rfd = -1;

		if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)) && !(m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)))
			memcpy(&rfd, CMSG_DATA(cm), sizeof(int));
		if (rfd >= 0)
			transparent_request(px, rfd, kinds, (size_t)n);
		return;
	}
	if (n > 0)
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			size_t k;

			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k; i++) {
				int lfd;

				memcpy(&lfd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (i >= (size_t)n || (kinds[i] != PROXY_LISTEN_HTTP && kinds[i] != PROXY_LISTEN_SOCKS) ||
				    proxy_add_listener(px, lfd, kinds[i]) < 0)
					close(lfd);
			}
		}
	/* one message; then the runner's end closes (--net allow: init's
	 * requests follow, until it ends) */
	if (n > 0 && px->cfg->transparent)
		return;
	event_del(px->control_ev);
	close(fd);
}

int proxy_add_control(struct proxy *px, int fd)
{
	px->control_ev = event_new(px->base, fd, EV_READ | EV_PERSIST, on_control, px);
	if (!px->control_ev || event_add(px->control_ev, NULL) < 0)
		return -ENOMEM;
	return 0;
}

int proxy_run(struct proxy *px)
{
	return event_base_dispatch(px->base) < 0 ? -EIO : 0;
}

void proxy_done(struct proxy *px)
{
	while (px->conns)
		conn_free(px->conns);
	for (size_t i = 0; i < px->n_listen; i++) {
		event_free(px->listen_ev[i]);
		close(px->listen_fd[i]);
	}
	if (px->control_ev)
		event_free(px->control_ev);
	if (px->tick)
		event_free(px->tick);
	transparent_ledger_free(px);
	transparent_cache_free(px);
	if (px->dns)
		evdns_base_free(px->dns, 0);
	if (px->base)
		event_base_free(px->base);
	px->here = cordon_net_host_free(px->here);
}
