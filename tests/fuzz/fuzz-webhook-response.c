/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The webhook's answer parser (src/supervisor/approve_message.c) and the
 * escaping that every shown or logged string goes through. Checks: a
 * decision is taken only from a JSON object echoing this request's id and
 * digest, signed (mac) under the answer key for that decision and an
 * expires_ms in (now, the request's expiry], and it is the one jansson
 * reads there; a refusal says why; every reason, and every escape, is
 * printable ASCII within its buffer. The input is parsed as it is, and
 * once more with every "@MAC" in it replaced by the right MAC of an allow
 * expiring at 1500, so the fuzzer reaches past the signature check.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "approve_message.h"
#include "approve_text.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ID     "0123456789abcdef0123456789abcdef"
#define DIGEST "abababababababababababababababababababababababababababababababab"

static bool printable(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		return false; /* no NUL inside the buffer */
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

#define KEY "answer-key"

static const struct webhook_expect want = {
	.request_id = ID, .digest = DIGEST, .expires_ms = 2000, .now_ms = 1000, .key = KEY, .key_len = sizeof(KEY) - 1,
};

static void check_parse(const char *body, size_t size)
{
	char reason[256];
	bool allow = false;
	int r;

	memset(reason, 'x', sizeof(reason));
	r = webhook_response_parse(body, size, &want, &allow, reason, sizeof(reason));
	CHECK(printable(reason, sizeof(reason)));
	if (size > WEBHOOK_RESPONSE_MAX)
		CHECK(r == -EMSGSIZE);
	if (r < 0) {
		CHECK(r == -EBADMSG || r == -EMSGSIZE);
		CHECK(reason[0] != '\0');
	} else {
		json_t *o = json_loadb(body, size, 0, NULL), *d;

		CHECK(r == 0 && o && json_is_object(o));
		CHECK(json_is_string(json_object_get(o, "request_id")) &&
		      strcmp(json_string_value(json_object_get(o, "request_id")), ID) == 0);
		CHECK(json_is_string(json_object_get(o, "digest")) &&
		      strcmp(json_string_value(json_object_get(o, "digest")), DIGEST) == 0);
		d = json_object_get(o, "decision");
		CHECK(json_is_string(d));
		CHECK(allow == (strcmp(json_string_value(d), "allow") == 0));
		CHECK(allow || strcmp(json_string_value(d), "deny") == 0);
		/* signed, for this decision, and not expired */
		json_t *e = json_object_get(o, "expires_ms"), *m = json_object_get(o, "mac");
		char good[SHA256_HEX];

		CHECK(json_is_integer(e) && json_integer_value(e) > 1000 && json_integer_value(e) <= 2000);
		CHECK(webhook_answer_mac(KEY, strlen(KEY), ID, DIGEST, allow, (uint64_t)json_integer_value(e), good) == 0);
		CHECK(json_is_string(m) && strcmp(json_string_value(m), good) == 0);
		json_decref(o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;
	char small[9], mac[SHA256_HEX];
	char *signed_body, *o;

	check_parse(body, size);
	if (size <= WEBHOOK_RESPONSE_MAX && webhook_answer_mac(KEY, strlen(KEY), ID, DIGEST, true, 1500, mac) == 0 &&
	    (signed_body = malloc(size * 16 + 1))) {
		o = signed_body;
		for (size_t i = 0; i < size; i++) {
			if (size - i >= 4 && memcmp(body + i, "@MAC", 4) == 0) {
				memcpy(o, mac, SHA256_HEX - 1);
				o += SHA256_HEX - 1;
				i += 3;
			} else
				*o++ = body[i];
		}
		check_parse(signed_body, (size_t)(o - signed_body));
		free(signed_body);
	}

	for (size_t cap = 0; cap <= sizeof(small); cap++) {
		size_t n;

		memset(small, 'x', sizeof(small));
		n = escape_printable(body, size, small, cap);
		if (cap > 0) {
			CHECK(n < cap && strlen(small) == n && printable(small, cap));
		} else {
			CHECK(n == 0);
		}
	}
	(void)terminal_answer_is_yes(body, size);
	return 0;
}
