/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The proxy's HTTP/1.x request-head parser: pure, bounded, no allocation.
 * It reads what a client sends a forward proxy: "CONNECT host:port" or an
 * absolute-form request ("GET http://host[:port]/path HTTP/1.1"), then the
 * header lines up to the empty line. Anything else is refused with the
 * status to answer and a reason token for X-Cordon-Error.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_LINE_MAX 8192      /* the request line */
#define HTTP_HEAD_MAX 32768     /* request line and every header line */
#define HTTP_HEADERS_MAX 100    /* header lines */

struct http_span {
	const char *p;
	size_t n;
};

struct http_head {
	bool connect;                   /* CONNECT host:port */
	struct http_span method;
	struct http_span host;          /* as sent: may hold any byte but CR/LF/SP; "[v6]" kept bracketed */
	uint16_t port;
	struct http_span path;          /* absolute-form: the origin-form target ("/" when the URI has none) */
	bool path_needs_slash;          /* the URI's path is empty and a query follows: write "/" first */
	int minor;                      /* HTTP/1.minor */
	size_t n_headers;
	struct http_span name[HTTP_HEADERS_MAX], value[HTTP_HEADERS_MAX];
	size_t length;                  /* bytes of the head, the empty line included */
	int status;                     /* http_head_parse_response: the status code */
};

enum {
	HTTP_HEAD_MORE = 0,             /* incomplete: read more (and call again with all of it) */
	HTTP_HEAD_DONE = 1,             /* *ret filled */
};

/* Parse buf[0..len). HTTP_HEAD_MORE, HTTP_HEAD_DONE, or -1 with the
 * status to answer in *ret_status (400, 405, 414, 431, 501, 505) and a
 * reason token in *ret_reason (static). Spans point into buf. */
int http_head_parse(const char *buf, size_t len, struct http_head *ret, int *ret_status, const char **ret_reason);

/* The same for a request inside an intercepted tunnel: origin-form
 * ("GET /path HTTP/1.1") only, an absolute-form target or a CONNECT is
 * refused (the tunnel's host was decided; no request names another). */
int http_head_parse_origin(const char *buf, size_t len, struct http_head *ret, int *ret_status, const char **ret_reason);
/* A response head ("HTTP/1.1 200 OK" and headers): status in ret->status;
 * malformed: 502 "upstream-malformed". */
int http_head_parse_response(const char *buf, size_t len, struct http_head *ret, int *ret_status,
			     const char **ret_reason);

/* Headers a proxy consumes (hop-by-hop, or its own) or rewrites (Host):
 * not forwarded as sent. */
bool http_header_is_hop(const struct http_span *name);
