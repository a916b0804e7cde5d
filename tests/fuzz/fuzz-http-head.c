/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's request-head parser, then the host rules on what it found.
 * Checks: every span lies inside the input, a complete head is never
 * complete in a shorter prefix, more bytes after the head change nothing,
 * a refusal names a status and a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_head.h"
#include "netrule.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool inside(const struct http_span *s, const char *buf, size_t len)
{
	return s->p >= buf && s->p + s->n <= buf + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cordon_netrules rules;
	static bool ready;
	const char *buf = (const char *)data, *reason = NULL;
	struct http_head h, h2;
	int status = 0, r;

	if (!ready) {
		CHECK(netrules_add_host(&rules, false, "*.example.com", NULL) == 0);
		CHECK(netrules_add_host(&rules, true, "bad.example.com:443", NULL) == 0);
		CHECK(netrules_add_host(&rules, false, "[::1]:8080", NULL) == 0);
		CHECK(netrules_add_address(&rules, "10.0.0.0/8", NULL) == 0);
		ready = true;
	}
	r = http_head_parse(buf, size, &h, &status, &reason);
	if (r < 0) {
		CHECK(status >= 400 && status < 600 && reason && reason[0]);
		return 0;
	}
	if (r == HTTP_HEAD_MORE) {
		CHECK(size <= HTTP_HEAD_MAX);
		return 0;
	}
	CHECK(r == HTTP_HEAD_DONE);
	CHECK(h.length <= size && h.length >= 4);
	CHECK(memcmp(buf + h.length - 4, "\r\n\r\n", 4) == 0);
	CHECK(inside(&h.method, buf, size) && inside(&h.host, buf, size) && h.host.n > 0 && h.port > 0);
	CHECK(h.n_headers <= HTTP_HEADERS_MAX);
	for (size_t i = 0; i < h.n_headers; i++)
		CHECK(inside(&h.name[i], buf, h.length) && inside(&h.value[i], buf, h.length) && h.name[i].n > 0);
	if (!h.connect)
		CHECK(h.path.n > 0);
	CHECK(http_head_parse(buf, h.length - 1, &h2, &status, &reason) != HTTP_HEAD_DONE);
	CHECK(http_head_parse(buf, h.length, &h2, &status, &reason) == HTTP_HEAD_DONE && h2.length == h.length);

	{
		struct cordon_net_verdict v;
		struct cordon_netaddr a = { .family = AF_INET, .a = { 10, 1, 2, 3 } };
		struct cordon_netaddr_list answers = { .v = &a, .n = 1 };

		CHECK(cordon_net_decide(&rules, h.host.p, h.host.n, h.port, NULL, NULL, &v) == 0);
		CHECK(v.allowed || v.need_resolve || v.reason);
		CHECK(!(v.allowed && v.need_resolve));
		if (v.need_resolve) {
			/* a name the rules let through holds no NUL and no ':' */
			CHECK(!memchr(h.host.p, '\0', h.host.n));
			CHECK(cordon_net_decide(&rules, h.host.p, h.host.n, h.port, &answers, NULL, &v) == 0);
			CHECK(v.allowed);
		}
	}
	return 0;
}
