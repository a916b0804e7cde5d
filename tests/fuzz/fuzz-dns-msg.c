/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox's resolver's parser (--net allow, src/lib/net/dns_msg.c): a
 * query as one input, then the answer built from it. Checks: the name is
 * only host-name bytes and within its cap, the question lies inside the
 * input, an answer stays within its buffer and echoes id and question, a
 * parsed query parses again from the answer's question.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_msg.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dns_query q, q2;
	struct cordon_netaddr a[2] = { { .family = AF_INET, .a = { 198, 18, 0, 1 } },
				       { .family = AF_INET6, .a = { 0xfd, 0x63 } } };
	uint8_t out[DNS_REPLY_MAX];
	int r = dns_query_parse(data, size, &q), n;

	if (r == -EBADMSG)
		return 0;
	CHECK(r == 0 || r == -EINVAL || r == -EOPNOTSUPP);
	if (r < 0) {
		q.qend = 0;
		n = dns_reply_build(&q, data, 1, NULL, 0, 0, out, sizeof(out));
		CHECK(n == 12);
		return 0;
	}
	CHECK(q.qend > 12 && q.qend <= size);
	CHECK(strlen(q.name) <= CORDON_NET_HOST_MAX);
	for (const char *s = q.name; *s; s++)
		CHECK((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_' || *s == '.');
	n = dns_reply_build(&q, data, 0, a, 2, 300, out, sizeof(out));
	if (n == -ENOBUFS)
		return 0;
	CHECK(n >= (int)q.qend && (size_t)n <= sizeof(out));
	CHECK(out[0] == data[0] && out[1] == data[1] && (out[2] & 0x80));
	CHECK(memcmp(out + 12, data + 12, q.qend - 12) == 0);
	/* the answer's question reads as the same query */
	out[2] &= 0x7f;
	out[6] = out[7] = 0;
	CHECK(dns_query_parse(out, q.qend, &q2) == 0);
	CHECK(strcmp(q.name, q2.name) == 0 && q.qtype == q2.qtype && q.qclass == q2.qclass);
	return 0;
}
