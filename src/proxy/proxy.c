/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's connections: read a request head (HTTP or SOCKS5), decide on
 * the name, resolve once, decide on every answer, dial a checked address,
 * then hand both sockets to the relay. One libevent loop; nothing blocks
 * (names resolve through evdns, which read /etc/hosts and resolv.conf at
 * start, before the proxy confined itself).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "errbuf.h"
#include "http_head.h"
#include "proxy.h"
#include "request.h"
#include "socks5.h"

static uint64_t proxy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A timeout of s seconds in proxy_now()'s unit. */
static uint64_t ms(unsigned s)
{
	return (uint64_t)s * 1000;
}

static void conn_touch(struct conn *c)
{
	c->last = proxy_now();
}

void proxy_audit(const struct proxy *px, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	/* one record, one line: no byte of a client's may break it */
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] == 0x7f)
			line[i] = '?';
	line[n++] = '\n';
	(void)!write(px->cfg->audit_fd >= 0 ? px->cfg->audit_fd : STDERR_FILENO, line, (size_t)n);
}

static void set_accepting(struct proxy *px, bool on)
{
	if (px->accepting == on)
		return;
	px->accepting = on;
	for (size_t i = 0; i < px->n_listen; i++)
		if (on)
			event_add(px->listen_ev[i], NULL);
		else
			event_del(px->listen_ev[i]);
}

static void conn_free(struct conn *c)
{
	struct proxy *px = c->px;

	if (c->dns) {
		struct evdns_getaddrinfo_request *q = c->dns;

		c->dns = NULL;
		evdns_getaddrinfo_cancel(q);
	}
	if (c->dns_res)
		evutil_freeaddrinfo(c->dns_res);
	relay_dir_done(&c->up);
	relay_dir_done(&c->down);
	if (c->cev)
		event_free(c->cev);
	if (c->uev)
		event_free(c->uev);
	if (c->reap)
		event_free(c->reap);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->ufd >= 0)
		close(c->ufd);
	netaddr_list_done(&c->answers);
	free(c->forward);
	if (c->prev)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	px->n_conns--;
	free(c);
	if (px->n_conns < px->cfg->max_conns)
		set_accepting(px, true);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	conn_free(arg);
}

/* End the connection after the current callback: nothing is freed under a
 * caller's feet. */
static void conn_end(struct conn *c)
{
	if (c->finished)
		return;
	c->finished = true;
	relay_stop(&c->up);
	relay_stop(&c->down);
	if (c->cev)
		event_del(c->cev);
	if (c->uev)
		event_del(c->uev);
	event_active(c->reap, EV_TIMEOUT, 0);
}

static void relay_touch(void *owner)
{
	conn_touch(owner);
}

static void relay_finished(void *owner)
{
	conn_end(owner);
}

static const struct relay_hooks relay_hooks = { .touch = relay_touch, .finished = relay_finished };

static void host_text(const struct conn *c, char *buf, size_t len)
{
	size_t n = c->host_len < len - 1 ? c->host_len : len - 1;

	memcpy(buf, c->host, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x21 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
}

static void on_client_drain(evutil_socket_t fd, short what, void *arg);

/* Write the refusal, then drain the client until it closes (closing with
 * unread bytes would reset the connection and lose the answer). */
static void conn_refuse(struct conn *c, int status, const char *reason, const char *detail)
{
	char host[NETRULE_HOST_MAX + 3], msg[1024], body[512];
	int n, b;

	host_text(c, host, sizeof(host));
	proxy_audit(c->px, "cordon-proxy: refused %s %s:%u: %s%s%s", c->what, host[0] ? host : "-", c->port, reason,
		    detail && detail[0] ? ": " : "", detail ? detail : "");
	if (c->kind == PROXY_LISTEN_SOCKS) {
		uint8_t rep[10];

		(void)!send(c->cfd, rep, socks5_reply(status, rep), MSG_NOSIGNAL | MSG_DONTWAIT);
	} else {
		if (host[0])
			b = snprintf(body, sizeof(body), "cordon: the proxy refused %s:%u: %s\n", host, c->port,
				     detail && detail[0] ? detail : reason);
		else
			b = snprintf(body, sizeof(body), "cordon: the proxy refused the request: %s\n",
				     detail && detail[0] ? detail : reason);
		if (b < 0 || (size_t)b >= sizeof(body))
			b = (int)strlen(body);
		n = snprintf(msg, sizeof(msg),
			     "HTTP/1.1 %d %s\r\nX-Cordon-Error: %s\r\nContent-Type: text/plain\r\n"
			     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
			     status,
			     status == 403   ? "Forbidden"
			     : status == 502 ? "Bad Gateway"
			     : status == 504 ? "Gateway Timeout"
			     : status == 414 ? "URI Too Long"
			     : status == 431 ? "Request Header Fields Too Large"
			     : status == 505 ? "HTTP Version Not Supported"
			     : status == 501 ? "Not Implemented"
			     : status == 503 ? "Service Unavailable"
			     : status == 408 ? "Request Timeout"
					     : "Bad Request",
			     reason, b, body);
		if (n > 0)
			(void)!send(c->cfd, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	(void)shutdown(c->cfd, SHUT_WR);
	if (c->ufd >= 0) {
		if (c->uev)
			event_del(c->uev);
		close(c->ufd);
		c->ufd = -1;
	}
	c->state = C_CLOSING;
	c->state_since = proxy_now();
	event_free(c->cev);
	c->cev = event_new(c->px->base, c->cfd, EV_READ | EV_PERSIST, on_client_drain, c);
	if (!c->cev || event_add(c->cev, NULL) < 0)
		conn_end(c);
}

static void on_client_drain(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	char sink[4096];
	ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_end(c);
}

static int socks_code(const char *reason)
{
	if (strncmp(reason, "address-", 8) == 0 || strncmp(reason, "host-", 5) == 0 || strcmp(reason, "ip-literal") == 0)
		return SOCKS5_NOT_ALLOWED;
	if (strcmp(reason, "no-address") == 0 || strcmp(reason, "resolve-failed") == 0)
		return SOCKS5_HOST_UNREACHABLE;
	if (strcmp(reason, "upstream-connect-timeout") == 0)
		return SOCKS5_TTL_EXPIRED;
	if (strcmp(reason, "upstream-connect-failed") == 0)
		return SOCKS5_REFUSED;
	return SOCKS5_GENERAL_FAILURE;
}

/* A refusal of the decision's or of the dial's, in the client's protocol. */
static void refuse_request(struct conn *c, int http_status, const char *reason, const char *detail)
{
	conn_refuse(c, c->kind == PROXY_LISTEN_SOCKS ? socks_code(reason) : http_status, reason, detail);
}

static void on_upstream(evutil_socket_t fd, short what, void *arg);

static void dial_next(struct conn *c)
{
	struct sockaddr_storage ss = {};
	socklen_t sl;

	for (; c->next_answer < c->answers.n; c->next_answer++) {
		const struct netaddr *a = &c->answers.v[c->next_answer];
		int fd;

		if (a->family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons(c->port);
			memcpy(&s4->sin_addr, a->a, 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(c->port);
			memcpy(&s6->sin6_addr, a->a, 16);
			sl = sizeof(*s6);
		}
		fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
			close(fd);
			continue;
		}
		c->ufd = fd;
		c->next_answer++;
		c->state = C_CONNECTING;
		c->state_since = proxy_now();
		/* a loopback (or otherwise instant) handshake is complete by
		 * now: go on without a turn of the loop */
		if (poll(&(struct pollfd){ .fd = fd, .events = POLLOUT }, 1, 0) == 1) {
			on_upstream(fd, EV_WRITE, c);
			return;
		}
		c->uev = event_new(c->px->base, fd, EV_WRITE, on_upstream, c);
		if (!c->uev || event_add(c->uev, NULL) < 0) {
			conn_end(c);
			return;
		}
		return;
	}
	refuse_request(c, 502, "upstream-connect-failed", "no checked address of the host accepted the connection");
}

static void start_relay(struct conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t left = c->in_len - c->consumed;
	int r;

	if (c->uev)
		event_free(c->uev);
	c->uev = NULL;
	event_del(c->cev);
	c->state = C_RELAY;
	/* a relay forwards what it has at once: a small write (a TLS
	 * record, an interactive protocol's turn) must not wait for the
	 * peer's acknowledgement of the previous one (Nagle) */
	(void)setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	(void)setsockopt(c->ufd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	c->up = (struct relay_dir){ .from = c->cfd, .to = c->ufd };
	c->down = (struct relay_dir){ .from = c->ufd, .to = c->cfd };
	/* client -> upstream: the rewritten head (absolute-form), then what
	 * the client sent after its head */
	c->up.pre_len = c->forward_len + left;
	c->up.pre = malloc(c->up.pre_len + 1);
	if (c->down.pre_len == 0 && c->kind == PROXY_LISTEN_HTTP && !c->forward) {
		c->down.pre = strdup(established);
		c->down.pre_len = sizeof(established) - 1;
	} else if (c->kind == PROXY_LISTEN_SOCKS) {
		c->down.pre = malloc(10);
		if (c->down.pre)
			c->down.pre_len = socks5_reply(SOCKS5_OK, (uint8_t *)c->down.pre);
	}
	if (!c->up.pre || (c->down.pre_len && !c->down.pre)) {
		conn_end(c);
		return;
	}
	if (c->forward)
		memcpy(c->up.pre, c->forward, c->forward_len);
	memcpy(c->up.pre + c->forward_len, c->in + c->consumed, left);
	r = relay_start(c->px, c, &relay_hooks, &c->up, &c->down);
	if (r < 0)
		conn_end(c);
}

static void on_upstream(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		err = errno;
	if (err) {
		if (c->uev)
			event_free(c->uev);
		c->uev = NULL;
		close(c->ufd);
		c->ufd = -1;
		dial_next(c);
		return;
	}
	start_relay(c);
}

/* The answers are in: decide on every one of them, then dial. */
static void resolved(struct conn *c)
{
	struct netrule_verdict v;
	struct netaddr *list;
	size_t n = 0;

	if (c->dns_result != 0) {
		char detail[160];

		snprintf(detail, sizeof(detail), "the name does not resolve (%s)", evutil_gai_strerror(c->dns_result));
		refuse_request(c, 502, "resolve-failed", detail);
		return;
	}
	list = calloc(NETRULE_MAX_ANSWERS, sizeof(*list));
	if (!list) {
		conn_end(c);
		return;
	}
	for (struct evutil_addrinfo *ai = c->dns_res; ai && n < NETRULE_MAX_ANSWERS; ai = ai->ai_next)
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			netaddr_from_sockaddr(ai->ai_addr, &list[n++]);
	evutil_freeaddrinfo(c->dns_res);
	c->dns_res = NULL;
	c->answers = (struct netaddr_list){ .v = list, .n = n };
	netrule_decide(&c->px->cfg->rules, c->host, c->host_len, c->port, &c->answers, &c->px->own, &v);
	if (!v.allowed) {
		refuse_request(c, 403, v.reason, v.detail);
		return;
	}
	c->next_answer = 0;
	dial_next(c);
}

static void on_dns(int result, struct evutil_addrinfo *res, void *arg)
{
	struct conn *c = arg;

	if (result == EVUTIL_EAI_CANCEL) {
		if (res)
			evutil_freeaddrinfo(res);
		return; /* the connection is being freed */
	}
	c->dns = NULL;
	c->dns_result = result;
	c->dns_res = res;
	c->dns_done = true;
	if (!c->dns_sync)
		resolved(c);
}

/* The request is read: decide on the name. */
static void conn_decide(struct conn *c)
{
	struct netrule_verdict v;
	struct evutil_addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	struct evdns_getaddrinfo_request *q;
	char name[NETRULE_HOST_MAX + 3];

	event_del(c->cev);
	netrule_decide(&c->px->cfg->rules, c->host, c->host_len, c->port, NULL, &c->px->own, &v);
	if (v.is_literal && v.allowed) {
		c->answers.v = malloc(sizeof(*c->answers.v));
		if (!c->answers.v) {
			conn_end(c);
			return;
		}
		c->answers.v[0] = v.literal;
		c->answers.n = 1;
		dial_next(c);
		return;
	}
	if (!v.need_resolve) {
		refuse_request(c, 403, v.reason, v.detail);
		return;
	}
	/* a checked name: no NUL, at most 253 bytes, plus a trailing dot */
	memcpy(name, c->host, c->host_len);
	name[c->host_len] = '\0';
	c->state = C_RESOLVING;
	c->state_since = proxy_now();
	c->dns_sync = true;
	q = evdns_getaddrinfo(c->px->dns, name, NULL, &hints, on_dns, c);
	c->dns_sync = false;
	if (c->dns_done)
		resolved(c);
	else
		c->dns = q;
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
				set_accepting(px, false);
			return;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		*c = (struct conn){ .px = px, .kind = kind, .cfd = fd, .ufd = -1,
				    .started = px->now, .state_since = px->now, .last = px->now };
		c->next = px->conns;
		if (px->conns)
			px->conns->prev = c;
		px->conns = c;
		px->n_conns++;
		c->cev = event_new(px->base, fd, EV_READ | EV_PERSIST, on_head, c);
		c->reap = event_new(px->base, -1, 0, on_reap, c);
		if (!c->cev || !c->reap || event_add(c->cev, NULL) < 0) {
			conn_free(c);
			continue;
		}
		/* a client sends its request with the connect: read it now,
		 * not one turn of the loop later (EAGAIN: it comes by event) */
		on_head(fd, EV_READ, c);
	}
	if (px->n_conns >= px->cfg->max_conns)
		set_accepting(px, false);
}

/* Once a second: the timeouts. */
static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	const struct proxy_config *cfg = px->cfg;

	px->now = proxy_now();
	if (px->n_conns < cfg->max_conns)
		set_accepting(px, true);
	for (struct conn *c = px->conns, *next; c; c = next) {
		uint64_t in_state = px->now - c->state_since;

		next = c->next;
		if (c->finished)
			continue;
		switch (c->state) {
		case C_HEAD:
		case C_SOCKS_REQUEST:
			if (in_state >= ms(cfg->head_timeout))
				refuse_request(c, 408, "request-timeout", "the request head did not arrive in time");
			break;
		case C_RESOLVING:
			if (in_state >= ms(cfg->connect_timeout))
				refuse_request(c, 504, "resolve-timeout", "the name did not resolve in time");
			break;
		case C_CONNECTING:
			if (in_state >= ms(cfg->connect_timeout))
				refuse_request(c, 504, "upstream-connect-timeout", "the upstream did not answer in time");
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
	r = netrule_own_addresses(&px->own);
	if (r < 0)
		return errbuf_set(err, errlen, r, "cannot list the host's own addresses: %s", strerror(-r));
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
	char kinds[4] = {}, cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { kinds, sizeof(kinds) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
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
	/* one message; then the runner's end closes */
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
	if (px->dns)
		evdns_base_free(px->dns, 0);
	if (px->base)
		event_base_free(px->base);
	netaddr_list_done(&px->own);
}
