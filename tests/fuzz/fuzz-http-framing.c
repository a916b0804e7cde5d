/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's request framing on a connection (http_body.h): heads, then
 * bodies by Content-Length or chunked, request after request, as the proxy
 * reads them; and the look at a response's head. Checks: where a body ends
 * does not depend on how its bytes arrive (whole, or in pieces of any size),
 * a body never takes more than it is given, a refusal names a status and a
 * reason, and a response's answer, once given, does not change with more
 * bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_body.h"
#include "http_head.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FRAMING_INPUT_MAX (64 * 1024)

/* Feed p[0..n) in pieces of step bytes: the result, and the bytes used. */
static int feed_in_pieces(struct http_body *b, const char *p, size_t n, size_t step, size_t *ret_used)
{
	size_t off = 0;

	for (;;) {
		size_t k = n - off < step ? n - off : step, used = 0;
		int r = http_body_feed(b, p + off, k, &used);

		CHECK(used <= k);
		off += used;
		if (r != 0) {
			*ret_used = off;
			return r;
		}
		CHECK(used == k);
		if (off == n) {
			*ret_used = off;
			return 0;
		}
	}
}

static void response(const char *buf, size_t len, bool head)
{
	bool keep = false, keep2 = false;
	int r = http_response_keeps(buf, len, head, &keep);

	CHECK(r == HTTP_RESPONSE_MORE || r == HTTP_RESPONSE_DONE);
	if (r == HTTP_RESPONSE_MORE)
		CHECK(!keep && len < HTTP_RESPONSE_HEAD_MAX);
	/* the answer a prefix gave stands */
	for (size_t cut = 0; cut < len; cut += 1 + cut / 3)
		if (http_response_keeps(buf, cut, head, &keep2) == HTTP_RESPONSE_DONE) {
			CHECK(r == HTTP_RESPONSE_DONE && keep2 == keep);
			break;
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1, *reason = NULL;
	size_t len, step;
	struct http_head *h;
	int status = 0;

	if (size < 1 || size > FRAMING_INPUT_MAX)
		return 0;
	step = 1 + data[0] % 13;
	len = size - 1;
	response(buf, len, data[0] & 1);
	h = malloc(sizeof(*h));
	if (!h)
		return 0;
	for (int requests = 0; requests < 8 && len > 0; requests++) {
		struct http_body whole, pieces;
		size_t used_whole = 0, used_pieces = 0;
		int r = http_head_parse(buf, len, h, &status, &reason), rw, rp;

		if (r != HTTP_HEAD_DONE || h->connect)
			break;
		if (http_body_from_head(h, &whole, &status, &reason) < 0) {
			CHECK(status >= 400 && status < 600 && reason && reason[0]);
			break;
		}
		(void)http_request_closes(h);
		pieces = whole;
		buf += h->length;
		len -= h->length;
		rw = http_body_feed(&whole, buf, len, &used_whole);
		rp = feed_in_pieces(&pieces, buf, len, step, &used_pieces);
		CHECK(rw == rp);
		CHECK(used_whole <= len);
		if (rw == 1)
			CHECK(used_whole == used_pieces && whole.done && pieces.done);
		if (rw == 0)
			CHECK(used_whole == len && used_pieces == len);
		if (rw != 1)
			break;
		/* the next request starts where this body ended */
		buf += used_whole;
		len -= used_whole;
	}
	free(h);
	return 0;
}
