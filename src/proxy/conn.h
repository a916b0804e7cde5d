/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One client connection of the proxy, private to src/proxy: its life
 * (conn.c), its way from a read request to a relay (dial.c). request.c only
 * reads the request into it; proxy.c runs the loop. */

#include <event2/event.h>
#include <event2/util.h>
#include <stdbool.h>
#include <stdint.h>

#include "http_body.h"
#include "http_head.h"
#include "proxy.h"

struct evdns_getaddrinfo_request;
struct evutil_addrinfo;

#define CONN_IN_MAX (HTTP_HEAD_MAX + 1)

enum conn_state {
	C_HEAD,            /* reading the HTTP head, or the SOCKS5 greeting */
	C_SOCKS_REQUEST,   /* greeting answered: reading the SOCKS5 request */
	C_RESOLVING,
	C_CONNECTING,
	C_RELAY,
	C_CLOSING,         /* a refusal was written: drain until EOF, then close */
};

/* How a connection that carries no client's request ends (--net allow,
 * transparent.c): its dialled socket handed over, a refusal said. The
 * dial and the refusal call these instead of relaying or answering. */
struct conn_ops {
	void (*deliver)(struct conn *c, bool early); /* early: still connecting */
	void (*refused)(struct conn *c, const char *reason, const char *detail);
};

struct conn {
	const struct conn_ops *ops;    /* NULL: a client's HTTP or SOCKS request */
	struct proxy *px;
	struct conn *next, *prev;
	int kind;                      /* PROXY_LISTEN_HTTP or _SOCKS */
	enum conn_state state;
	int cfd, ufd;
	struct event *cev, *uev, *reap;
	uint64_t started, state_since, last;
	char in[CONN_IN_MAX];
	size_t in_len, consumed;       /* consumed: bytes of in that were the head/request */
	char host[CORDON_NET_HOST_MAX + 3];
	size_t host_len;
	uint16_t port;
	char what[64];                 /* "CONNECT", "GET", "SOCKS5" for the audit line */
	char rule[CORDON_NET_HOST_MAX + 32]; /* the rule that refused ("--deny-domain H"), or empty */
	char *forward;                 /* absolute-form: the rewritten head */
	size_t forward_len;
	struct http_body body;         /* absolute-form: where this request's body ends */
	bool req_close, req_head;      /* the request asked to close after it; it was a HEAD */
	char *resp;                    /* the response's head, looked at (not changed) */
	size_t resp_len;
	bool resp_done, resp_keep;     /* looked at; the client's connection may go on after it */
	unsigned requests;             /* requests relayed on this connection so far */
	bool pending_parse;            /* c->in may hold a whole request already: parse it */
	bool client_eof;               /* the client shut its side after what c->in holds */
	struct event *next_req;        /* the response is relayed: read the next request */
	struct cordon_netaddr_list answers;
	size_t next_answer;
	struct evdns_getaddrinfo_request *dns;
	bool dns_sync, dns_done, finished;
	bool intercept;                /* a CONNECT to a credential host: TLS is terminated here */
	int dns_result;
	struct evutil_addrinfo *dns_res;
	struct relay_dir up, down;
	int t_family;                  /* PROXY_LISTEN_TRANSPARENT: the caller's socket's family */
	bool t_early;                  /* ... which does not wait for the connect (transparent.h) */
};

/* conn.c */
/* Monotonic milliseconds: the timeouts are checked once a second, so a
 * second's resolution would let one fire up to a second early. */
uint64_t proxy_now(void);
/* Take new connections, or stop until one ends (a cap, or out of fds). */
void proxy_set_accepting(struct proxy *px, bool on);
/* A new client connection on fd, of kind, read by on_read until its request
 * is in (NULL: its request is in already, --net allow's); linked into the
 * proxy's list. NULL (fd closed) when out of memory. */
struct conn *conn_new(struct proxy *px, int fd, int kind, event_callback_fn on_read);
/* Unlink and free now (the proxy's end; otherwise conn_end). */
void conn_free(struct conn *c);
/* Bytes moved: the connection is not idle. */
void conn_touch(struct conn *c);
/* End the connection once the current callback returns. */
void conn_end(struct conn *c);
/* Answer with a refusal (HTTP status, or SOCKS5 reply code for a SOCKS5
 * client), write its audit line, then drain and close. */
void conn_refuse(struct conn *c, int status, const char *reason, const char *detail);
/* The audit line of a refusal that has no answer of its own (the client's
 * stream is mid-response). */
void conn_audit_refusal(struct conn *c, const char *reason, const char *detail);
/* What the client gets is written: shut, drain, close (C_CLOSING). */
void conn_close_after_answer(struct conn *c);
/* The upstream finished its response: make the connection read, and
 * decide, its next request (on_read runs with pending_parse set). */
void conn_next_request(struct conn *c);
/* A refusal of the decision's or of the dial's (reason: a cordon_net_verdict token or
 * the dial's), in the client's protocol: the SOCKS5 code follows the reason. */
void conn_refuse_request(struct conn *c, int http_status, const char *reason, const char *detail);

/* dial.c: the request is read (host, port, what; forward for
 * absolute-form): decide, resolve, decide again, dial, relay. */
void conn_decide(struct conn *c);
