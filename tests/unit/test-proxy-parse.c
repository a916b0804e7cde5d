/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proxy's request-head and SOCKS5 parsers (src/proxy): pure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "http_body.h"
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

/* The framing a head announces; -1 with the status and reason. */
static int framing(const char *head, struct http_body *b, int *status, const char **reason)
{
	struct http_head h;

	cr_assert_eq(parse(head, &h, status, reason), HTTP_HEAD_DONE, "%s", head);
	return http_body_from_head(&h, b, status, reason);
}

Test(http_body, ambiguous_framing_is_refused)
{
	static const struct {
		const char *head, *reason;
		int status;
	} cases[] = {
		{ "POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
		  "length-ambiguous", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n",
		  "content-length-twice", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n", "content-length-malformed", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "content-length-malformed", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nContent-Length: 99999999999999999\r\n\r\n",
		  "content-length-malformed", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		  "transfer-encoding-twice", 400 },
		{ "POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
		  "transfer-encoding-unsupported", 501 },
		{ "POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n",
		  "transfer-encoding-unsupported", 501 },
		{ "POST http://a.example/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "length-ambiguous", 400 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct http_body b;
		const char *reason = NULL;
		int status = 0;

		cr_assert_eq(framing(cases[i].head, &b, &status, &reason), -1, "%s", cases[i].head);
		cr_assert_str_eq(reason, cases[i].reason, "%s", cases[i].head);
		cr_assert_eq(status, cases[i].status);
	}
}

/* Where a chunked body ends does not depend on how its bytes arrive. */
Test(http_body, chunked_ends_at_the_same_byte_however_split)
{
	static const char body[] = "5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nGET http://next/";
	size_t end = strlen(body) - strlen("GET http://next/");
	const char *reason = NULL;
	int status = 0;
	struct http_body b0;

	cr_assert_eq(framing("POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &b0, &status,
			     &reason),
		     0);
	cr_assert_eq(b0.kind, HTTP_BODY_CHUNKED);
	for (size_t step = 1; step <= sizeof(body); step++) {
		struct http_body b = b0;
		size_t off = 0, used;
		int r = 0;

		while (off < strlen(body)) {
			size_t k = strlen(body) - off < step ? strlen(body) - off : step;

			r = http_body_feed(&b, body + off, k, &used);
			off += used;
			if (r != 0)
				break;
		}
		cr_assert_eq(r, 1, "step %zu", step);
		cr_assert_eq(off, end, "step %zu: ended at %zu", step, off);
	}
}

Test(http_body, malformed_chunks_are_refused)
{
	static const char *const bad[] = {
		"zz\r\n", "5\nhello\r\n", "5\r\nhelloX\r\n", "5 \r\nhello\r\n", "\r\n", "12345678901234\r\n",
		"0\r\n folded\r\n\r\n", "0\r\nT: x\n\r\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct http_body b = { .kind = HTTP_BODY_CHUNKED };
		size_t used;

		cr_assert_eq(http_body_feed(&b, bad[i], strlen(bad[i]), &used), -1, "%s", bad[i]);
	}
}

Test(http_body, content_length_takes_exactly_its_bytes)
{
	struct http_body b;
	const char *reason = NULL;
	int status = 0;
	size_t used;

	cr_assert_eq(framing("POST http://a.example/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n", &b, &status, &reason), 0);
	cr_assert_eq(http_body_feed(&b, "hel", 3, &used), 0);
	cr_assert_eq(used, 3);
	cr_assert_eq(http_body_feed(&b, "loGET ", 6, &used), 1);
	cr_assert_eq(used, 2);
	cr_assert_eq(framing("GET http://a.example/ HTTP/1.1\r\n\r\n", &b, &status, &reason), 0);
	cr_assert(b.done);
}

Test(http_body, a_response_lets_the_connection_go_on_only_when_it_delimits_itself)
{
	static const struct {
		const char *head;
		bool head_request, keep;
	} cases[] = {
		{ "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", false, true },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false, true },
		{ "HTTP/1.1 204 No Content\r\n\r\n", false, true },
		{ "HTTP/1.1 200 OK\r\n\r\n", true, true },
		{ "HTTP/1.1 200 OK\r\n\r\n", false, false },                          /* ends at the close */
		{ "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\n", false, false },
		{ "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", false, false },
		{ "HTTP/1.1 100 Continue\r\n\r\n", false, false },
		{ "HTTP/1.1 200 OK\nContent-Length: 3\r\n\r\n", false, false },       /* bare LF */
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool keep = !cases[i].keep;

		cr_assert_eq(http_response_keeps(cases[i].head, strlen(cases[i].head), cases[i].head_request, &keep),
			     HTTP_RESPONSE_DONE, "%s", cases[i].head);
		cr_assert_eq(keep, cases[i].keep, "%s", cases[i].head);
	}
}
