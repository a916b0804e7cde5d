/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From a read request to a relay: decide on the name, resolve once (evdns,
 * which read /etc/hosts and resolv.conf at start, before the proxy confined
 * itself), decide on every answer, dial a checked address, then hand both
 * sockets to the relay. A refusal on the way goes back through conn.c.
 */
#include <errno.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "proxy.h"
#include "socks5.h"
#include "transparent.h"

/* a as a socket address of family (AF_INET: a is IPv4; AF_INET6: an IPv4
 * a is mapped, ::ffff:a.b.c.d), port in it; its length. */
static unsigned address_in(int family, uint16_t port, const struct cordon_netaddr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->a, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	if (a->family == AF_INET) {
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], a->a, 4);
	} else
		memcpy(&s6->sin6_addr, a->a, 16);
	return sizeof(*s6);
}

static void relay_touch(void *owner)
{
	conn_touch(owner);
}

static void relay_finished(void *owner)
{
	conn_end(owner);
}

/* Absolute-form: the client's bytes go upstream only up to the end of this
 * request's body; what follows is the next request, which waits in c->in
 * (empty while the relay reads: read_max keeps a read within it) until
 * this one's response is relayed, and is then decided as the first was. */
static int relay_frame(void *owner, struct relay_dir *d, const char *p, size_t n, size_t *ret_used, bool *ret_end)
{
	struct conn *c = owner;
	size_t used;
	int r;

	if (d == &c->down) {
		/* the response, forwarded as it is: its head says whether the
		 * client's connection may go on after it */
		size_t take = HTTP_RESPONSE_HEAD_MAX - c->resp_len;

		*ret_used = n;
		*ret_end = false;
		if (c->resp_done)
			return 0;
		if (!c->resp && !(c->resp = malloc(HTTP_RESPONSE_HEAD_MAX)))
			return -1;
		take = n < take ? n : take;
		memcpy(c->resp + c->resp_len, p, take);
		c->resp_len += take;
		/* looked at again only when a line may have ended: a head sent
		 * a byte at a time costs linear work */
		if (memchr(p, '\n', take) || c->resp_len == HTTP_RESPONSE_HEAD_MAX)
			c->resp_done = http_response_keeps(c->resp, c->resp_len, c->req_head, &c->resp_keep) ==
				       HTTP_RESPONSE_DONE;
		if (c->resp_done) {
			free(c->resp);
			c->resp = NULL;
		}
		return 0;
	}
	r = http_body_feed(&c->body, p, n, &used);
	if (r < 0) {
		conn_audit_refusal(c, "chunked-malformed", "the request body's chunked framing is malformed");
		return -1;
	}
	if (r == 1) {
		if (n - used > sizeof(c->in) - c->in_len)
			return -1; /* cannot be: a read is at most the room in c->in */
		memcpy(c->in + c->in_len, p + used, n - used);
		c->in_len += n - used;
	}
	*ret_used = used;
	*ret_end = r == 1;
	return 0;
}

/* The upstream answered and closed (each request asks it to): on to the
 * next request, when the client's connection goes on after this response.
 * It does not when the request or the response said close, when the
 * response ends only at the close (the client reads to EOF), or when this
 * request's body was not all there (what follows is not a request head).
 * Then what the client pipelined is never read, let alone forwarded. */
static void relay_ended(void *owner)
{
	struct conn *c = owner;

	if (!c->up.held || c->req_close || !c->resp_done || !c->resp_keep) {
		conn_close_after_answer(c);
		return;
	}
	conn_next_request(c);
}

static const struct relay_hooks relay_hooks = {
	.touch = relay_touch, .finished = relay_finished, .frame = relay_frame, .ended = relay_ended,
};

static void on_upstream(evutil_socket_t fd, short what, void *arg);
static void upstream_connected(struct conn *c);

/* An answer after the one being dialled that the connection could dial. */
static bool more_to_dial(const struct conn *c)
{
	for (size_t i = c->next_answer; i < c->answers.n; i++)
		if (!c->ops || c->t_family == AF_INET6 || c->answers.v[i].family == AF_INET)
			return true;
	return false;
}

static void dial_next(struct conn *c)
{
	struct sockaddr_storage ss = {};
	socklen_t sl;

	for (; c->next_answer < c->answers.n; c->next_answer++) {
		struct cordon_netaddr *a = &c->answers.v[c->next_answer];
		int fd;

		/* a later answer (the earlier ones failed to connect, maybe
		 * seconds ago): decided again against the host as it is now */
		if (c->next_answer > 0) {
			struct cordon_netaddr_list one = { .v = a, .n = 1 };
			struct cordon_net_verdict v;

			cordon_net_decide(c->px->cfg->rules, c->host, c->host_len, c->port, &one, c->px->here, &v);
			if (!v.allowed) {
				snprintf(c->rule, sizeof(c->rule), "%s", v.rule);
				conn_refuse_request(c, 403, v.reason, v.detail);
				return;
			}
		}

		if (c->ops) {
			/* handed over: dialled in the family of init's caller's
			 * socket (an IPv4 answer for an IPv6 socket: mapped) */
			if (c->t_family == AF_INET && a->family != AF_INET)
				continue; /* an IPv4 socket cannot take it */
			sl = address_in(c->t_family, c->port, a, &ss);
		} else if (a->family == AF_INET) {
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
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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
		struct pollfd pf = { .fd = fd, .events = POLLOUT };

		if (poll(&pf, 1, 0) == 1) {
			/* writable with no error or hang-up: connected (no
			 * SO_ERROR to read) */
			if (pf.revents == POLLOUT)
				upstream_connected(c);
			else if (c->ops && c->t_early && !more_to_dial(c))
				/* refused at once, and no other address to try:
				 * a caller that does not wait reads why in
				 * SO_ERROR, as from a connect of its own (its
				 * error is still on the socket, unread) */
				c->ops->deliver(c, true);
			else
				on_upstream(fd, EV_WRITE, c);
			return;
		}
		if (c->ops && c->t_early) {
			c->ops->deliver(c, true); /* the caller does not wait: neither do we */
			return;
		}
		c->uev = event_new(c->px->base, fd, EV_WRITE, on_upstream, c);
		if (!c->uev || event_add(c->uev, NULL) < 0) {
			conn_end(c);
			return;
		}
		return;
	}
	conn_refuse_request(c, 502, "upstream-connect-failed", "no checked address of the host accepted the connection");
}

/* A tunnel to a credential host: the interception takes both sockets. */
static void start_intercept(struct conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	const struct proxy_intercept *ic = c->px->cfg->intercept;
	int cfd = c->cfd, ufd = c->ufd;

	if (c->in_len > c->consumed) {
		/* bytes before our 200: the client did not wait for it */
		conn_refuse_request(c, 400, "pipelined-after-connect", "a credential host's tunnel starts after the 200");
		return;
	}
	if (c->uev)
		event_free(c->uev);
	c->uev = NULL;
	event_del(c->cev);
	if (send(cfd, established, sizeof(established) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(established) - 1) {
		conn_end(c);
		return;
	}
	(void)setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	(void)setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	c->cfd = c->ufd = -1;
	c->requests++;
	ic->start(ic->state, c->px, cfd, ufd, c->host, c->host_len, c->port);
	conn_end(c);
}

static void start_relay(struct conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t left = c->in_len - c->consumed, body = left;
	bool held = false;
	int r;

	if (c->forward) {
		r = http_body_feed(&c->body, c->in + c->consumed, left, &body);
		if (r < 0) {
			conn_refuse_request(c, 400, "chunked-malformed", "the request body's chunked framing is malformed");
			return;
		}
		held = r == 1;
	}

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
	if (c->forward) {
		c->up.framed = true;
		c->up.held = held;
		c->up.read_max = sizeof(c->in);
		c->down.framed = true;
		c->down.keep_open = true;
	}
	c->requests++;
	/* client -> upstream: the rewritten head (absolute-form), then what
	 * the client sent after its head (absolute-form: the body's part) */
	c->up.pre_len = c->forward_len + body;
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
	memcpy(c->up.pre + c->forward_len, c->in + c->consumed, body);
	/* what follows the body is the next request: undecided, it waits */
	memmove(c->in, c->in + c->consumed + body, left - body);
	c->in_len = left - body;
	c->consumed = 0;
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
	upstream_connected(c);
}

static void upstream_connected(struct conn *c)
{
	if (c->ops)
		c->ops->deliver(c, false);
	else if (c->intercept)
		start_intercept(c);
	else
		start_relay(c);
}

/* c->answers are in (a lookup's, or a kept one's): decide on every one
 * of them, then dial. */
static void dial_answers(struct conn *c)
{
	struct cordon_net_verdict v;

	cordon_net_decide(c->px->cfg->rules, c->host, c->host_len, c->port, &c->answers, c->px->here, &v);
	if (!v.allowed) {
		snprintf(c->rule, sizeof(c->rule), "%s", v.rule);
		conn_refuse_request(c, 403, v.reason, v.detail);
		return;
	}
	c->next_answer = 0;
	dial_next(c);
}

/* The lookup is done. */
static void resolved(struct conn *c)
{
	struct cordon_netaddr *list;
	size_t n = 0;

	if (c->dns_result != 0) {
		char detail[160];

		snprintf(detail, sizeof(detail), "the name does not resolve (%s)", evutil_gai_strerror(c->dns_result));
		conn_refuse_request(c, 502, "resolve-failed", detail);
		return;
	}
	list = calloc(CORDON_NET_MAX_ANSWERS, sizeof(*list));
	if (!list) {
		conn_end(c);
		return;
	}
	for (struct evutil_addrinfo *ai = c->dns_res; ai && n < CORDON_NET_MAX_ANSWERS; ai = ai->ai_next)
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			cordon_netaddr_from_sockaddr(ai->ai_addr, &list[n++]);
	if (c->kind == PROXY_LISTEN_TRANSPARENT)
		transparent_cache_put(c->px, c->host, c->host_len, c->dns_res); /* the next connect's */
	evutil_freeaddrinfo(c->dns_res);
	c->dns_res = NULL;
	c->answers = (struct cordon_netaddr_list){ .v = list, .n = n };
	dial_answers(c);
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
void conn_decide(struct conn *c)
{
	struct cordon_net_verdict v;
	struct evutil_addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	struct evdns_getaddrinfo_request *q;
	char name[CORDON_NET_HOST_MAX + 3];

	if (c->cev)
		event_del(c->cev);
	if (c->px->cfg->intercept && c->px->cfg->intercept->wants(c->px->cfg->intercept->state, c->host, c->host_len)) {
		/* a credential host: only through a tunnel the proxy terminates */
		if (c->kind == PROXY_LISTEN_TRANSPARENT) {
			conn_refuse_request(c, 403, "credential-host-transparent",
					    "a credential host is reached only through the proxy (HTTPS_PROXY, "
					    "ALL_PROXY are set in the sandbox), not by a direct connection");
			return;
		}
		if (c->kind == PROXY_LISTEN_SOCKS || c->forward) {
			conn_refuse_request(c, 403, c->kind == PROXY_LISTEN_SOCKS ? "credential-host-socks" : "credential-host-plain-http",
					    "a credential host is reached only through an HTTPS CONNECT tunnel");
			return;
		}
		c->intercept = true;
	}
	cordon_net_decide(c->px->cfg->rules, c->host, c->host_len, c->port, NULL, c->px->here, &v);
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
		snprintf(c->rule, sizeof(c->rule), "%s", v.rule);
		conn_refuse_request(c, 403, v.reason, v.detail);
		return;
	}
	/* exactly the name the rules decided: lower case, no trailing dot
	 * (no other spelling of it reaches the resolver) */
	snprintf(name, sizeof(name), "%s", v.name);
	/* --net allow: the sandbox's resolver had the name looked up moments
	 * ago (transparent_cache.c): dialled from that answer at once. Its
	 * addresses are decided in dial_answers exactly as a fresh lookup's,
	 * against the rules and this host's addresses as they are now: the
	 * cache saves the lookup, never a decision (transparent.h) */
	if (c->kind == PROXY_LISTEN_TRANSPARENT) {
		int r = transparent_cache_get(c->px, name, strlen(name), &c->answers);

		if (r < 0) {
			conn_end(c);
			return;
		}
		if (r > 0) {
			dial_answers(c);
			return;
		}
	}
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
