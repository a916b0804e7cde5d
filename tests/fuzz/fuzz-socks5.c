/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's SOCKS5 parser: a greeting, then a request, as one input.
 * Checks: lengths stay inside the input, a name keeps its exact length,
 * a refusal names a reply code, a shorter prefix is never complete.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "socks5.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *reason = NULL;
	struct socks5_request q, q2;
	size_t glen = 0;
	int r, code = -1;
	uint8_t rep[10];

	r = socks5_greeting_parse(data, size, &glen, &reason);
	if (r != SOCKS5_DONE) {
		CHECK(r == SOCKS5_MORE || (r < 0 && reason));
		return 0;
	}
	CHECK(glen >= 3 && glen <= size && glen <= 257);
	data += glen;
	size -= glen;
	r = socks5_request_parse(data, size, &q, &code, &reason);
	if (r < 0) {
		CHECK(code > 0 && code <= 8 && reason);
		CHECK(socks5_reply(code, rep) == 10 && rep[0] == 5 && rep[1] == code);
		return 0;
	}
	if (r == SOCKS5_MORE)
		return 0;
	CHECK(q.length <= size && q.host_len > 0 && q.host_len < sizeof(q.host) && q.port > 0);
	if (data[3] == 3)
		CHECK(q.host_len == data[4] && memcmp(q.host, data + 5, q.host_len) == 0);
	CHECK(socks5_request_parse(data, q.length - 1, &q2, &code, &reason) == SOCKS5_MORE);
	return 0;
}
