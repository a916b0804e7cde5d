/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading a client's request (request.c): what was found, for proxy.c to act
 * on. The reader never ends, refuses or dials a connection itself. */

#include <stddef.h>

struct conn;

enum request_step {
	REQUEST_MORE,      /* not all there yet: wait for more bytes */
	REQUEST_READY,     /* host, port, what (and forward, absolute-form) are set: decide */
	REQUEST_REFUSE,    /* malformed or over a cap: answer with the refusal */
	REQUEST_REJECTED,  /* a SOCKS5 greeting with no method we take: already answered; audit, close */
	REQUEST_GONE,      /* the client closed or failed, or memory ran out: close */
};

struct request_refusal {
	int status;              /* HTTP status, or SOCKS5 reply code for a SOCKS5 client */
	const char *reason;      /* static token: "header-too-large", "socks5-malformed", ... */
	const char *detail;      /* static, may be NULL */
};

/* Read what the client's socket holds and parse it. *got: the bytes read
 * (the connection was not idle). *ret is set for REFUSE and REJECTED. */
enum request_step request_read(struct conn *c, struct request_refusal *ret, size_t *got);
