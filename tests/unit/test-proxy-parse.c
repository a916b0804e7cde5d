/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proxy's request-head and SOCKS5 parsers (src/proxy): pure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "http_head.h"
#include "socks5.h"

static int parse(const char *s, struct http_head *h, int *status, const char **reason)
{
	return http_head_parse(s, strlen(s), h, status, reason);
}

#define SPAN_IS(sp, str) (((sp).n == strlen(str)) && memcmp((sp).p, (str), (sp).n) == 0)

Test(http_head, connect)
{
	struct http_head h;
	const char *reason = NULL;
	int status = 0;
	const char *req = "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\nTLS...";

	cr_assert_eq(parse(req, &h, &status, &reason), HTTP_HEAD_DONE);
	cr_assert(h.connect);
	cr_assert(SPAN_IS(h.host, "api.example.com"));
	cr_assert_eq(h.port, 443);
	cr_assert_eq(h.minor, 1);
	cr_assert_eq(h.n_headers, 1);
	cr_assert_eq(h.length, strlen(req) - strlen("TLS..."));
}

Test(http_head, connect_ipv6_and_needs_a_port)
{
	struct http_head h;
	const char *reason = NULL;
	int status = 0;

	cr_assert_eq(parse("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", &h, &status, &reason), HTTP_HEAD_DONE);
	cr_assert(SPAN_IS(h.host, "[::1]"));
	cr_assert_eq(h.port, 8443);
	cr_assert_eq(parse("CONNECT example.com HTTP/1.1\r\n\r\n", &h, &status, &reason), -1);
	cr_assert_eq(status, 400);
	cr_assert_str_eq(reason, "malformed-target");
	cr_assert_eq(parse("CONNECT example.com:0 HTTP/1.1\r\n\r\n", &h, &status, &reason), -1);
	cr_assert_eq(parse("CONNECT example.com:65536 HTTP/1.1\r\n\r\n", &h, &status, &reason), -1);
	cr_assert_eq(parse("CONNECT [::1]x:1 HTTP/1.1\r\n\r\n", &h, &status, &reason), -1);
}

Test(http_head, absolute_form)
{
	struct http_head h;
	const char *reason = NULL;
	int status = 0;

	cr_assert_eq(parse("GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\nAccept: */*\r\nX-Y:  v  \r\n\r\n", &h,
			   &status, &reason),
		     HTTP_HEAD_DONE);
	cr_assert_not(h.connect);
	cr_assert(SPAN_IS(h.method, "GET"));
	cr_assert(SPAN_IS(h.host, "Example.com"));
	cr_assert_eq(h.port, 8080);
	cr_assert(SPAN_IS(h.path, "/a/b?c=d"));
	cr_assert_eq(h.n_headers, 2);
	cr_assert(SPAN_IS(h.name[1], "X-Y"));
	cr_assert(SPAN_IS(h.value[1], "v"));

	cr_assert_eq(parse("POST HTTP://h.example HTTP/1.0\r\n\r\n", &h, &status, &reason), HTTP_HEAD_DONE);
	cr_assert_eq(h.port, 80);
	cr_assert(SPAN_IS(h.path, "/"));
	cr_assert_eq(h.minor, 0);
	cr_assert_eq(parse("GET http://h.example?q HTTP/1.1\r\n\r\n", &h, &status, &reason), HTTP_HEAD_DONE);
	cr_assert(h.path_needs_slash);
	cr_assert(SPAN_IS(h.path, "?q"));
}

Test(http_head, incomplete_is_more)
{
	struct http_head h;
	const char *reason = NULL;
	int status = 0;
	const char *req = "GET http://h.example/ HTTP/1.1\r\nA: b\r\n\r\n";

	for (size_t n = 0; n < strlen(req); n++)
		cr_assert_eq(http_head_parse(req, n, &h, &status, &reason), HTTP_HEAD_MORE, "at %zu", n);
	cr_assert_eq(http_head_parse(req, strlen(req), &h, &status, &reason), HTTP_HEAD_DONE);
}

struct bad_case {
	const char *req;
	int status;
	const char *reason;
};

Test(http_head, refusals)
{
	static const struct bad_case cases[] = {
		{ "GET /origin-form HTTP/1.1\r\n\r\n", 400, "not-a-proxy-request" },
		{ "GET https://h.example/ HTTP/1.1\r\n\r\n", 501, "https-absolute-form" },
		{ "GET http://user@h.example/ HTTP/1.1\r\n\r\n", 400, "userinfo-in-target" },
		{ "GET http://h.example/ HTTP/2.0\r\n\r\n", 505, "http-version" },
		{ "GET http://h.example/ HTTP/1.1\n\n", 400, "bare-lf" },
		{ "GET  http://h.example/ HTTP/1.1\r\n\r\n", 400, "malformed-request-line" },
		{ "G@T http://h.example/ HTTP/1.1\r\n\r\n", 400, "malformed-request-line" },
		{ "GET http://h.example/a\x01 HTTP/1.1\r\n\r\n", 400, "malformed-target" },
		{ "GET http://h.example/#frag HTTP/1.1\r\n\r\n", 400, "malformed-target" },
		{ "GET http://h.example/ HTTP/1.1\r\nNoColon\r\n\r\n", 400, "malformed-header" },
		{ "GET http://h.example/ HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, "folded-header" },
		{ "GET http://h.example/ HTTP/1.1\r\nA: b\x7f\r\n\r\n", 400, "malformed-header" },
		{ "GET http://h.example/ HTTP/1.1\r\nA : b\r\n\r\n", 400, "malformed-header" },
	};
	struct http_head h;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *reason = NULL;
		int status = 0;

		cr_expect_eq(parse(cases[i].req, &h, &status, &reason), -1, "%zu", i);
		cr_expect_eq(status, cases[i].status, "%zu: %d", i, status);
		cr_expect(reason && strcmp(reason, cases[i].reason) == 0, "%zu: %s", i, reason ? reason : "-");
	}
}

Test(http_head, nul_in_host_is_left_to_the_rules)
{
	struct http_head h;
	const char *reason = NULL;
	int status = 0;
	const char req[] = "CONNECT a\0b.example:443 HTTP/1.1\r\n\r\n";

	/* the parser keeps the bytes; netrule refuses them as host-malformed */
	cr_assert_eq(http_head_parse(req, sizeof(req) - 1, &h, &status, &reason), HTTP_HEAD_DONE);
	cr_assert_eq(h.host.n, 11);
	cr_assert_not_null(memchr(h.host.p, '\0', h.host.n));
}

Test(http_head, caps)
{
	static char buf[HTTP_HEAD_MAX + 4096];
	struct http_head h;
	const char *reason = NULL;
	int status = 0;
	size_t n;

	/* a request line over its cap, complete or not */
	n = (size_t)snprintf(buf, sizeof(buf), "GET http://h.example/");
	memset(buf + n, 'a', HTTP_LINE_MAX);
	n += HTTP_LINE_MAX;
	cr_assert_eq(http_head_parse(buf, n, &h, &status, &reason), -1);
	cr_assert_eq(status, 414);
	memcpy(buf + n, " HTTP/1.1\r\n\r\n", 13);
	cr_assert_eq(http_head_parse(buf, n + 13, &h, &status, &reason), -1);
	cr_assert_eq(status, 414);

	/* the head over its cap */
	n = (size_t)snprintf(buf, sizeof(buf), "GET http://h.example/ HTTP/1.1\r\nX: ");
	memset(buf + n, 'a', HTTP_HEAD_MAX);
	n += HTTP_HEAD_MAX;
	cr_assert_eq(http_head_parse(buf, n, &h, &status, &reason), -1);
	cr_assert_eq(status, 431);
	cr_assert_str_eq(reason, "header-too-large");

	/* too many header lines */
	n = (size_t)snprintf(buf, sizeof(buf), "GET http://h.example/ HTTP/1.1\r\n");
	for (int i = 0; i <= HTTP_HEADERS_MAX; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "H%d: v\r\n", i);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\r\n");
	cr_assert_eq(http_head_parse(buf, n, &h, &status, &reason), -1);
	cr_assert_eq(status, 431);
	cr_assert_str_eq(reason, "too-many-headers");
}

Test(http_head, hop_by_hop)
{
	static const char *const hop[] = { "Connection", "proxy-connection", "Keep-Alive", "Proxy-Authorization",
					   "Host", "TE", "Upgrade" };
	static const char *const end[] = { "Accept", "Content-Length", "Transfer-Encoding", "Authorization" };

	for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
		cr_expect(http_header_is_hop(&(struct http_span){ hop[i], strlen(hop[i]) }), "%s", hop[i]);
	for (size_t i = 0; i < sizeof(end) / sizeof(end[0]); i++)
		cr_expect_not(http_header_is_hop(&(struct http_span){ end[i], strlen(end[i]) }), "%s", end[i]);
}

Test(socks5, greeting)
{
	const char *reason = NULL;
	size_t len = 0;

	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"", 0, &len, &reason), SOCKS5_MORE);
	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"\x05\x02\x02", 3, &len, &reason), SOCKS5_MORE);
	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"\x05\x02\x02\x00", 4, &len, &reason), SOCKS5_DONE);
	cr_assert_eq(len, 4);
	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"\x05\x01\x02", 3, &len, &reason), -1);
	cr_assert_str_eq(reason, "socks5-no-acceptable-method");
	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"\x04\x01\x00", 3, &len, &reason), -1);
	cr_assert_str_eq(reason, "not-socks5");
	cr_assert_eq(socks5_greeting_parse((const uint8_t *)"\x05\x00", 2, &len, &reason), -1);
}

Test(socks5, requests)
{
	struct socks5_request q;
	const char *reason = NULL;
	int code = -1;
	const uint8_t dom[] = "\x05\x01\x00\x03\x0b" "example.com" "\x01\xbb";
	const uint8_t v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 };
	const uint8_t v6[] = { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x1f, 0x90 };
	const uint8_t nul[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 };

	for (size_t n = 0; n < sizeof(dom) - 1; n++)
		cr_assert_eq(socks5_request_parse(dom, n, &q, &code, &reason), SOCKS5_MORE, "%zu", n);
	cr_assert_eq(socks5_request_parse(dom, sizeof(dom) - 1, &q, &code, &reason), SOCKS5_DONE);
	cr_assert_eq(q.host_len, 11);
	cr_assert(memcmp(q.host, "example.com", 11) == 0);
	cr_assert_eq(q.port, 443);
	cr_assert_eq(q.length, sizeof(dom) - 1);
	cr_assert_eq(socks5_request_parse(v4, sizeof(v4), &q, &code, &reason), SOCKS5_DONE);
	cr_assert_str_eq(q.host, "127.0.0.1");
	cr_assert_eq(socks5_request_parse(v6, sizeof(v6), &q, &code, &reason), SOCKS5_DONE);
	cr_assert_str_eq(q.host, "::1");
	cr_assert_eq(q.port, 8080);
	/* a NUL in the name stays in it, with its length: the rules refuse it */
	cr_assert_eq(socks5_request_parse(nul, sizeof(nul), &q, &code, &reason), SOCKS5_DONE);
	cr_assert_eq(q.host_len, 3);
	cr_assert_eq(q.host[1], '\0');
}

Test(socks5, request_refusals)
{
	static const struct {
		uint8_t req[12];
		size_t n;
		int code;
	} cases[] = {
		{ { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, SOCKS5_CMD_UNSUPPORTED },  /* BIND */
		{ { 5, 3, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, SOCKS5_CMD_UNSUPPORTED },  /* UDP ASSOCIATE */
		{ { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 }, 10, SOCKS5_ATYP_UNSUPPORTED },
		{ { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 }, 10, SOCKS5_GENERAL_FAILURE },  /* RSV */
		{ { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 }, 10, SOCKS5_GENERAL_FAILURE },
		{ { 5, 1, 0, 3, 0, 0, 80 }, 7, SOCKS5_GENERAL_FAILURE },           /* empty name */
		{ { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 }, 10, SOCKS5_GENERAL_FAILURE },   /* port 0 */
	};
	uint8_t rep[10];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct socks5_request q;
		const char *reason = NULL;
		int code = -1;

		cr_expect_eq(socks5_request_parse(cases[i].req, cases[i].n, &q, &code, &reason), -1, "%zu", i);
		cr_expect_eq(code, cases[i].code, "%zu: %d", i, code);
		cr_expect_not_null(reason);
	}
	cr_assert_eq(socks5_reply(SOCKS5_NOT_ALLOWED, rep), 10);
	cr_assert(memcmp(rep, "\x05\x02\x00\x01\x00\x00\x00\x00\x00\x00", 10) == 0);
}
