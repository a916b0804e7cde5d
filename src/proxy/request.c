/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a client's request: the HTTP head (CONNECT or absolute-form,
 * rewritten to origin-form for the upstream) or the SOCKS5 greeting and
 * request. What it finds goes to conn_decide (proxy.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "http_head.h"
#include "proxy.h"
#include "socks5.h"

static int set_host(struct conn *c, const char *p, size_t n)
{
	if (n > sizeof(c->host) - 1)
		return -1;
	memcpy(c->host, p, n);
	c->host_len = n;
	return 0;
}

/* The absolute-form request, rewritten to origin-form for the upstream:
 * its own Host, no hop-by-hop headers, and "Connection: close" (the next
 * request on the client's connection may name another host: it gets a
 * connection, and a decision, of its own). */
static int build_forward(struct conn *c, const struct http_head *h)
{
	size_t cap = h->length + c->host_len + 128, n = 0;
	char *out = malloc(cap);
	int w;

	if (!out)
		return -ENOMEM;
#define PUT(p, l)                                  \
	do {                                       \
		if (n + (l) > cap) {               \
			free(out);                 \
			return -E2BIG;             \
		}                                  \
		memcpy(out + n, (p), (l));         \
		n += (l);                          \
	} while (0)
	PUT(h->method.p, h->method.n);
	PUT(" ", 1);
	if (h->path_needs_slash)
		PUT("/", 1);
	PUT(h->path.p, h->path.n);
	PUT(" HTTP/1.1\r\nHost: ", 17);
	PUT(h->host.p, h->host.n);
	if (h->port != 80) {
		char port[8];

		w = snprintf(port, sizeof(port), ":%u", h->port);
		PUT(port, (size_t)w);
	}
	PUT("\r\n", 2);
	for (size_t i = 0; i < h->n_headers; i++) {
		if (http_header_is_hop(&h->name[i]))
			continue;
		PUT(h->name[i].p, h->name[i].n);
		PUT(": ", 2);
		PUT(h->value[i].p, h->value[i].n);
		PUT("\r\n", 2);
	}
	PUT("Connection: close\r\n\r\n", 21);
#undef PUT
	c->forward = out;
	c->forward_len = n;
	return 0;
}

static void got_http(struct conn *c)
{
	struct http_head *h = malloc(sizeof(*h));
	const char *reason;
	int status, r;

	if (!h) {
		conn_end(c);
		return;
	}
	r = http_head_parse(c->in, c->in_len, h, &status, &reason);
	if (r == HTTP_HEAD_MORE) {
		free(h);
		if (c->in_len >= sizeof(c->in))
			conn_refuse(c, 431, "header-too-large", "the request head is over the proxy's cap");
		return;
	}
	if (r < 0) {
		snprintf(c->what, sizeof(c->what), "HTTP");
		free(h);
		conn_refuse(c, status, reason, NULL);
		return;
	}
	snprintf(c->what, sizeof(c->what), "%.*s", (int)(h->method.n < 32 ? h->method.n : 32), h->method.p);
	c->consumed = h->length;
	c->port = h->port;
	if (set_host(c, h->host.p, h->host.n) < 0) {
		free(h);
		conn_refuse(c, 400, "host-malformed", "the host is longer than 253 bytes");
		return;
	}
	if (!h->connect && build_forward(c, h) < 0) {
		free(h);
		conn_refuse(c, 431, "header-too-large", NULL);
		return;
	}
	free(h);
	conn_decide(c);
}

static void got_socks(struct conn *c)
{
	const char *reason = "socks5-malformed";
	size_t len;
	int r, code;

	if (c->state == C_HEAD) {
		r = socks5_greeting_parse((const uint8_t *)c->in, c->in_len, &len, &reason);
		if (r == SOCKS5_MORE)
			return;
		snprintf(c->what, sizeof(c->what), "SOCKS5");
		if (r < 0) {
			/* "no acceptable methods": 0xff, then close */
			(void)!send(c->cfd, "\x05\xff", 2, MSG_NOSIGNAL | MSG_DONTWAIT);
			proxy_audit(c->px, "cordon-proxy: refused SOCKS5 -: %s", reason);
			conn_end(c);
			return;
		}
		if (send(c->cfd, "\x05\x00", 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2) {
			conn_end(c);
			return;
		}
		memmove(c->in, c->in + len, c->in_len - len);
		c->in_len -= len;
		c->state = C_SOCKS_REQUEST;
	}
	{
		struct socks5_request q;

		r = socks5_request_parse((const uint8_t *)c->in, c->in_len, &q, &code, &reason);
		if (r == SOCKS5_MORE)
			return;
		if (r < 0) {
			conn_refuse(c, code, reason, NULL);
			return;
		}
		(void)set_host(c, q.host, q.host_len);
		c->port = q.port;
		c->consumed = q.length;
	}
	conn_decide(c);
}

/* An empty line may end in p[0..n): a '\n' followed by '\n' or "\r\n" (a
 * superset of "\r\n\r\n" and the refused bare "\n\n": one parse too many
 * costs nothing, one too few would stall). A loop, not memmem: with UBSan
 * GCC warns (-Wnonnull) that the buffer "is null" on its check's path. */
static bool has_empty_line(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (p[i] == '\n' && (p[i + 1] == '\n' || (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')))
			return true;
	return false;
}

/* Parse the head again only when the new bytes could have completed it
 * (an empty line), brought the request line over its cap, or filled the
 * buffer: a client sending a byte at a time costs linear work, not
 * quadratic. */
static bool head_worth_parsing(const struct conn *c, size_t added)
{
	size_t from = c->in_len - added, back = from < 3 ? from : 3;

	if (c->in_len >= sizeof(c->in) || (from <= HTTP_LINE_MAX && c->in_len > HTTP_LINE_MAX))
		return true;
	return has_empty_line(c->in + from - back, added + back) || (from == 0 && added > 0); /* a bad first line: early */
}

void conn_on_head(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	ssize_t n;

	n = recv(fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_end(c);
		return;
	}
	if (n < 0)
		return;
	c->in_len += (size_t)n;
	conn_touch(c);
	if (c->kind == PROXY_LISTEN_SOCKS)
		got_socks(c);
	else if (head_worth_parsing(c, (size_t)n))
		got_http(c);
}
