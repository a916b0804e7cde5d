/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * DNS messages for the sandbox's resolver under --net allow: one query
 * read (untrusted bytes, a hard size cap, no compression in the question),
 * one answer written. Pure: no I/O.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/netrules.h"

#define DNS_MSG_MAX 4096       /* bytes of a query read; more is malformed */
#define DNS_REPLY_MAX 512      /* bytes of an answer over UDP without EDNS */

enum {
	DNS_TYPE_A = 1,
	DNS_TYPE_AAAA = 28,
	DNS_CLASS_IN = 1,
	DNS_RCODE_OK = 0,
	DNS_RCODE_FORMERR = 1,
	DNS_RCODE_SERVFAIL = 2,
	DNS_RCODE_NXDOMAIN = 3,
	DNS_RCODE_NOTIMP = 4,
	DNS_RCODE_REFUSED = 5,
};

struct dns_query {
	uint16_t id;
	uint16_t qtype, qclass;
	char name[CORDON_NET_HOST_MAX + 1]; /* dotted, no trailing dot, as asked (case kept) */
	size_t qend;                         /* the question's end in the message */
	bool rd;
};

/* 0 and *ret; -EBADMSG: not a query worth an answer (a response, too
 * short for a header: dropped); -EINVAL: malformed (FORMERR, ret->id set);
 * -EOPNOTSUPP: not a standard query of one question (NOTIMP, ret->id set). */
int dns_query_parse(const uint8_t *p, size_t n, struct dns_query *ret);

/* The answer to q (whose message is req[0..q->qend)): rcode, and the
 * n addresses of q's type (A: AF_INET ones, AAAA: AF_INET6 ones; others
 * skipped) with ttl. Returns its length in out (at most outlen), or
 * -ENOBUFS. A query that did not parse (q->qend 0) gets a header alone. */
int dns_reply_build(const struct dns_query *q, const uint8_t *req, int rcode, const struct cordon_netaddr *addrs,
		    size_t n, uint32_t ttl, uint8_t *out, size_t outlen);
