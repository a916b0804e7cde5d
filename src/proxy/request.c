/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a client's request: the HTTP head (CONNECT or absolute-form,
 * rewritten to origin-form for the upstream) or the SOCKS5 greeting and
 * request. It reads and parses, and says what it found (request.h); what
 * happens next (refuse, decide, dial) is proxy.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "conn.h"
#include "http_head.h"
#include "proxy.h"
#include "request.h"
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

static enum request_step refuse(struct request_refusal *ret, int status, const char *reason, const char *detail)
{
	*ret = (struct request_refusal){ .status = status, .reason = reason, .detail = detail };
	return REQUEST_REFUSE;
}

static enum request_step got_http(struct conn *c, struct request_refusal *ret)
{
	_cleanup_free_ struct http_head *h = malloc(sizeof(*h));
	const char *reason;
	int status, r;

	if (!h)
		return REQUEST_GONE;
	r = http_head_parse(c->in, c->in_len, h, &status, &reason);
	if (r == HTTP_HEAD_MORE)
		return c->in_len >= sizeof(c->in)
			       ? refuse(ret, 431, "header-too-large", "the request head is over the proxy's cap")
			       : REQUEST_MORE;
	if (r < 0) {
		snprintf(c->what, sizeof(c->what), "HTTP");
		return refuse(ret, status, reason, NULL);
	}
	snprintf(c->what, sizeof(c->what), "%.*s", (int)(h->method.n < 32 ? h->method.n : 32), h->method.p);
	c->consumed = h->length;
	c->port = h->port;
	if (set_host(c, h->host.p, h->host.n) < 0)
		return refuse(ret, 400, "host-malformed", "the host is longer than 253 bytes");
	if (!h->connect) {
		/* where the body ends, so the next request is found and decided */
		if (http_body_from_head(h, &c->body, &status, &reason) < 0)
			return refuse(ret, status, reason, NULL);
		c->req_close = http_request_closes(h);
		c->req_head = h->method.n == 4 && memcmp(h->method.p, "HEAD", 4) == 0;
		if (build_forward(c, h) < 0)
			return refuse(ret, 431, "header-too-large", NULL);
	}
	return REQUEST_READY;
}

static enum request_step got_socks(struct conn *c, struct request_refusal *ret)
{
	const char *reason = "socks5-malformed";
	size_t len;
	int r, code;

	if (c->state == C_HEAD) {
		r = socks5_greeting_parse((const uint8_t *)c->in, c->in_len, &len, &reason);
		if (r == SOCKS5_MORE)
			return REQUEST_MORE;
		snprintf(c->what, sizeof(c->what), "SOCKS5");
		if (r < 0) {
			/* "no acceptable methods": 0xff, then close */
			(void)!send(c->cfd, "\x05\xff", 2, MSG_NOSIGNAL | MSG_DONTWAIT);
			*ret = (struct request_refusal){ .reason = reason };
			return REQUEST_REJECTED;
		}
		if (send(c->cfd, "\x05\x00", 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2)
			return REQUEST_GONE;
		memmove(c->in, c->in + len, c->in_len - len);
		c->in_len -= len;
		c->state = C_SOCKS_REQUEST;
	}
	{
		struct socks5_request q;

		r = socks5_request_parse((const uint8_t *)c->in, c->in_len, &q, &code, &reason);
		if (r == SOCKS5_MORE)
			return REQUEST_MORE;
		if (r < 0)
			return refuse(ret, code, reason, NULL);
		(void)set_host(c, q.host, q.host_len);
		c->port = q.port;
		c->consumed = q.length;
	}
	return REQUEST_READY;
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

enum request_step request_read(struct conn *c, struct request_refusal *ret, size_t *got)
{
	/* after a response: what c->in holds already is the next request's */
	bool pending = c->pending_parse;
	ssize_t n = 0;
	enum request_step step;

	*got = 0;
	c->pending_parse = false;
	if (!c->client_eof && c->in_len < sizeof(c->in)) {
		n = recv(c->cfd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return REQUEST_GONE;
		if (n == 0) {
			/* shut after its last request: that one is still answered
			 * (HTTP; a SOCKS5 client that shuts mid-request is gone) */
			if (c->in_len == 0 || c->kind == PROXY_LISTEN_SOCKS)
				return REQUEST_GONE;
			c->client_eof = true;
			pending = true;
		}
	}
	if (c->client_eof && c->in_len == 0)
		return REQUEST_GONE;
	if (n > 0) {
		c->in_len += (size_t)n;
		*got = (size_t)n;
	} else if (!pending)
		return REQUEST_MORE;
	if (c->kind == PROXY_LISTEN_SOCKS)
		return got_socks(c, ret);
	if (!pending && !head_worth_parsing(c, (size_t)n))
		return REQUEST_MORE;
	step = got_http(c, ret);
	/* a head that cannot complete: nothing more will come */
	return step == REQUEST_MORE && c->client_eof ? REQUEST_GONE : step;
}
