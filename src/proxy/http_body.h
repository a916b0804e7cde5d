/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Where a request's body ends, so that the proxy finds the next request
 * head on a connection and decides it too (a body the proxy could not
 * delimit would let a second request reach the upstream undecided). Pure,
 * bounded, no allocation.
 *
 * From the head: no body, Content-Length (exactly one, digits only) or
 * Transfer-Encoding: chunked (exactly one header, that one coding). Both,
 * twice, another coding, or chunked under HTTP/1.0 are refused: the proxy
 * and the upstream could disagree on where the next request starts.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http_head.h"

#define HTTP_BODY_LINE_MAX 4096         /* a chunk-size line or a trailer line */
#define HTTP_BODY_TRAILERS_MAX 100      /* trailer lines */
#define HTTP_BODY_LENGTH_MAX (UINT64_C(1) << 53)  /* Content-Length and the sum of chunks */

enum http_body_kind {
	HTTP_BODY_NONE,
	HTTP_BODY_LENGTH,
	HTTP_BODY_CHUNKED,
};

struct http_body {
	enum http_body_kind kind;
	uint64_t left;          /* LENGTH: bytes left; CHUNKED: bytes left of this chunk's data */
	uint64_t total;         /* CHUNKED: data bytes so far */
	int state;              /* CHUNKED: where in the framing (http_body.c) */
	size_t line;            /* bytes of the current size or trailer line */
	unsigned digits;        /* hex digits of the current chunk size */
	unsigned trailers;      /* trailer lines so far */
	bool done;
};

/* The framing h announces. -1 with the status to answer and a reason token
 * (static) for an ambiguous or unsupported one. */
int http_body_from_head(const struct http_head *h, struct http_body *ret, int *ret_status, const char **ret_reason);

/* Feed the next bytes of the body, p[0..n). *ret_used: how many belong to
 * it (the rest is the next request). 1: the body is complete, 0: all used
 * and more is to come, -1: malformed chunked framing. */
int http_body_feed(struct http_body *b, const char *p, size_t n, size_t *ret_used);

/*
 * Whether the client's connection may carry another request after this
 * response, from the response's head as the upstream sent it (the proxy
 * forwards it untouched and only looks): yes only for an HTTP/1.1 response
 * that delimits itself (Content-Length, chunked, or no body: a HEAD's, 204,
 * 304) and does not say "Connection: close". Anything else (HTTP/1.0, a body
 * that ends at the close, 1xx first, a head over the cap, malformed): no,
 * the proxy closes after it, as such a client expects.
 */
#define HTTP_RESPONSE_HEAD_MAX 16384

enum {
	HTTP_RESPONSE_MORE = 0,         /* the head is not all there yet */
	HTTP_RESPONSE_DONE = 1,         /* *ret_keep says */
};

/* buf[0..len): the response's first bytes. head_request: the request was
 * HEAD. Past HTTP_RESPONSE_HEAD_MAX without the end of the head: DONE, no. */
int http_response_keeps(const char *buf, size_t len, bool head_request, bool *ret_keep);

/* Whether a request asked to close after its response: HTTP/1.0 without
 * "Connection: keep-alive", or a "close" token. */
bool http_request_closes(const struct http_head *h);
