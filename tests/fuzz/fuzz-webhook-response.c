/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The webhook's answer parser (src/supervisor/approve_message.c) and the
 * escaping that every shown or logged string goes through. Checks: a
 * decision is taken only from a JSON object echoing this request's id and
 * digest, and it is the one jansson reads there; a refusal says why; every
 * reason, and every escape, is printable ASCII within its buffer.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "approve_message.h"
#include "approve_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                                                       \
	do {                                                                                                           \
		if (!(x))                                                                                              \
			abort();                                                                                       \
	} while (0)

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;
	char reason[256], small[9];
	bool allow = false;
	int r;

	memset(reason, 'x', sizeof(reason));
	r = webhook_response_parse(body, size, ID, DIGEST, &allow, reason, sizeof(reason));
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
		json_decref(o);
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
