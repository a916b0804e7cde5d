/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DNS queries read and answers written for the sandbox's resolver (see dns_msg.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_msg.h"

#define HDR 12

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A host name's bytes only: letters, digits, '-' and '_' (no NUL, no
 * dot inside a label, nothing a rule could read otherwise). */
static bool label_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int dns_query_parse(const uint8_t *p, size_t n, struct dns_query *ret)
{
	struct dns_query q = {};
	size_t at = HDR, out = 0;
	uint16_t flags;

	if (n < HDR || n > DNS_MSG_MAX)
		return -EBADMSG;
	flags = get16(p + 2);
	if (flags & 0x8000)
		return -EBADMSG; /* a response: never answered */
	q.id = get16(p);
	q.rd = flags & 0x0100;
	*ret = q;
	if (((flags >> 11) & 0xf) != 0 || get16(p + 4) != 1 || get16(p + 6) != 0 || get16(p + 8) != 0)
		return -EOPNOTSUPP;
	for (;;) {
		uint8_t len;

		if (at >= n)
			return -EINVAL;
		len = p[at++];
		if (len == 0)
			break;
		if (len > 63 || n - at < len)
			return -EINVAL; /* a compression pointer too: none in a question */
		if (out + (out ? 1 : 0) + len > CORDON_NET_HOST_MAX)
			return -EINVAL;
		if (out)
			q.name[out++] = '.';
		for (size_t i = 0; i < len; i++) {
			if (!label_byte(p[at + i]))
				return -EINVAL;
			q.name[out++] = (char)p[at + i];
		}
		at += len;
	}
	q.name[out] = '\0';
	if (n - at < 4)
		return -EINVAL;
	q.qtype = get16(p + at);
	q.qclass = get16(p + at + 2);
	q.qend = at + 4;
	*ret = q;
	return 0;
}

int dns_reply_build(const struct dns_query *q, const uint8_t *req, int rcode, const struct cordon_netaddr *addrs,
		    size_t n, uint32_t ttl, uint8_t *out, size_t outlen)
{
	size_t len = HDR, qlen = q->qend > HDR ? q->qend - HDR : 0;
	uint16_t count = 0;
	int want = q->qtype == DNS_TYPE_A ? AF_INET : q->qtype == DNS_TYPE_AAAA ? AF_INET6 : 0;

	if (outlen < HDR + qlen)
		return -ENOBUFS;
	memset(out, 0, HDR);
	put16(out, q->id);
	/* QR, AA, RD as asked, RA; the rcode */
	put16(out + 2, (uint16_t)(0x8000 | 0x0400 | (q->rd ? 0x0100 : 0) | 0x0080 | (rcode & 0xf)));
	if (qlen) {
		put16(out + 4, 1);
		memcpy(out + HDR, req + HDR, qlen);
		len += qlen;
	}
	for (size_t i = 0; qlen && rcode == DNS_RCODE_OK && want && i < n; i++) {
		size_t alen = addrs[i].family == AF_INET ? 4 : 16;

		if (addrs[i].family != want)
			continue;
		if (outlen - len < 12 + alen)
			return -ENOBUFS;
		put16(out + len, 0xc000 | HDR); /* the question's name */
		put16(out + len + 2, q->qtype);
		put16(out + len + 4, DNS_CLASS_IN);
		put16(out + len + 6, (uint16_t)(ttl >> 16));
		put16(out + len + 8, (uint16_t)ttl);
		put16(out + len + 10, (uint16_t)alen);
		memcpy(out + len + 12, addrs[i].a, alen);
		len += 12 + alen;
		count++;
	}
	put16(out + 6, count);
	return (int)len;
}
