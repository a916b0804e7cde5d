/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The --net allow resolver's DNS messages (src/lib/net/dns_msg.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "dns_msg.h"

/* A query for name (dotted), of type qtype, with the header's flags. */
static size_t query(uint8_t *out, const char *name, uint16_t qtype, uint16_t flags)
{
	size_t n = 12;
	const char *s = name;

	memset(out, 0, 12);
	out[0] = 0x12;
	out[1] = 0x34;
	out[2] = (uint8_t)(flags >> 8);
	out[3] = (uint8_t)flags;
	out[5] = 1;
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);

		out[n++] = (uint8_t)l;
		memcpy(out + n, s, l);
		n += l;
		s += l + (dot ? 1 : 0);
	}
	out[n++] = 0;
	out[n++] = (uint8_t)(qtype >> 8);
	out[n++] = (uint8_t)qtype;
	out[n++] = 0;
	out[n++] = 1;
	return n;
}

Test(dns_msg, a_query_reads_and_is_answered)
{
	uint8_t q[600], out[DNS_REPLY_MAX];
	struct dns_query d;
	struct cordon_netaddr a[2] = { { .family = AF_INET, .a = { 198, 18, 0, 7 } },
				       { .family = AF_INET6, .a = { 0xfd, 0x63 } } };
	size_t n = query(q, "Api.Example.com", DNS_TYPE_A, 0x0100);
	int len;

	cr_assert_eq(dns_query_parse(q, n, &d), 0);
	cr_assert_str_eq(d.name, "Api.Example.com");
	cr_assert_eq(d.qtype, DNS_TYPE_A);
	cr_assert(d.rd);
	len = dns_reply_build(&d, q, DNS_RCODE_OK, a, 2, 300, out, sizeof(out));
	/* header, the question, one A (the AAAA address is not of its type) */
	cr_assert_eq(len, (int)n + 16);
	cr_assert_eq(out[0], 0x12);
	cr_assert(out[2] & 0x80);
	cr_assert_eq(out[7], 1);
	cr_assert_eq(memcmp(out + len - 4, a[0].a, 4), 0);
	len = dns_reply_build(&d, q, DNS_RCODE_NXDOMAIN, a, 2, 300, out, sizeof(out));
	cr_assert_eq(len, (int)n);
	cr_assert_eq(out[3] & 0xf, DNS_RCODE_NXDOMAIN);
	cr_assert_eq(out[7], 0);
}

Test(dns_msg, malformed_and_other_queries_are_refused)
{
	uint8_t q[600];
	struct dns_query d;
	char long_label[70], long_name[300];
	size_t n;

	/* a response: never answered */
	n = query(q, "x.y", DNS_TYPE_A, 0x8100);
	cr_assert_eq(dns_query_parse(q, n, &d), -EBADMSG);
	/* shorter than a header */
	cr_assert_eq(dns_query_parse(q, 11, &d), -EBADMSG);
	/* not a standard query (opcode 1), or two questions */
	n = query(q, "x.y", DNS_TYPE_A, 0x0800);
	cr_assert_eq(dns_query_parse(q, n, &d), -EOPNOTSUPP);
	n = query(q, "x.y", DNS_TYPE_A, 0x0100);
	q[5] = 2;
	cr_assert_eq(dns_query_parse(q, n, &d), -EOPNOTSUPP);
	/* a compression pointer in the question */
	n = query(q, "x.y", DNS_TYPE_A, 0x0100);
	q[12] = 0xc0;
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	/* a label over 63 bytes, a name over 253 */
	memset(long_label, 'a', 64);
	long_label[64] = '\0';
	n = query(q, long_label, DNS_TYPE_A, 0x0100);
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	for (size_t i = 0; i < 5; i++)
		memcpy(long_name + i * 60, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.", 60);
	long_name[299] = '\0';
	n = query(q, long_name, DNS_TYPE_A, 0x0100);
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	/* a NUL, a dot or a space inside a label */
	n = query(q, "ab.c", DNS_TYPE_A, 0x0100);
	q[14] = '\0';
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	q[14] = '.';
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	q[14] = ' ';
	cr_assert_eq(dns_query_parse(q, n, &d), -EINVAL);
	/* cut inside the question */
	n = query(q, "x.y", DNS_TYPE_A, 0x0100);
	cr_assert_eq(dns_query_parse(q, n - 1, &d), -EINVAL);
	/* larger than any query */
	cr_assert_eq(dns_query_parse(q, DNS_MSG_MAX + 1, &d), -EBADMSG);
}

Test(dns_msg, other_types_get_an_empty_answer)
{
	uint8_t q[600], out[DNS_REPLY_MAX];
	struct dns_query d;
	struct cordon_netaddr a = { .family = AF_INET, .a = { 198, 18, 0, 1 } };
	size_t n = query(q, "x.y", 65 /* HTTPS */, 0x0100);

	cr_assert_eq(dns_query_parse(q, n, &d), 0);
	cr_assert_eq(dns_reply_build(&d, q, DNS_RCODE_OK, &a, 1, 300, out, sizeof(out)), (int)n);
	cr_assert_eq(out[7], 0);
	cr_assert_eq(out[3] & 0xf, 0);
}
