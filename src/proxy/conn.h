/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One client connection of the proxy: private to proxy.c and request.c (which
 * only reads its request into it). */

#include <event2/util.h>
#include <stdbool.h>
#include <stdint.h>

#include "http_head.h"
#include "netrule.h"
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

struct conn {
	struct proxy *px;
	struct conn *next, *prev;
	int kind;                      /* PROXY_LISTEN_HTTP or _SOCKS */
	enum conn_state state;
	int cfd, ufd;
	struct event *cev, *uev, *reap;
	uint64_t started, state_since, last;
	char in[CONN_IN_MAX];
	size_t in_len, consumed;       /* consumed: bytes of in that were the head/request */
	char host[NETRULE_HOST_MAX + 3];
	size_t host_len;
	uint16_t port;
	char what[64];                 /* "CONNECT", "GET", "SOCKS5" for the audit line */
	char *forward;                 /* absolute-form: the rewritten head */
	size_t forward_len;
	struct netaddr_list answers;
	size_t next_answer;
	struct evdns_getaddrinfo_request *dns;
	bool dns_sync, dns_done, finished;
	int dns_result;
	struct evutil_addrinfo *dns_res;
	struct relay_dir up, down;
};

