/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The open_urls parser. Checks: a taken URL is no longer than the cap
 * plus its added '/', holds no byte outside 0x21..0x7e and no '\' or '@'
 * before its path, its origin is its own prefix, a taken URL parses again
 * to itself (the serialisation is a fixed point), and a refusal says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "url_check.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct url_parsed u, again;
	struct cordon_error why = {};
	int r = url_parse((const char *)data, size, &u, &why);

	if (r < 0) {
		CHECK(why.message[0]);
		return 0;
	}
	CHECK(u.len <= URL_MAX_BYTES + 1 && u.len == strlen(u.url));
	for (size_t i = 0; i < u.len; i++)
		CHECK(u.url[i] > 0x20 && u.url[i] < 0x7f && u.url[i] != '\\');
	CHECK(memchr(u.url, '@', u.path_off) == NULL);
	CHECK(strncmp(u.url, u.origin, strlen(u.origin)) == 0 && strlen(u.origin) == u.path_off);
	CHECK(u.url[u.path_off] == '/');
	CHECK(u.path_off + u.path_len + u.query_len + u.fragment_len == u.len);
	if (u.len <= URL_MAX_BYTES) {
		CHECK(url_parse(u.url, u.len, &again, &why) == 0);
		CHECK(again.len == u.len && memcmp(again.url, u.url, u.len) == 0);
		CHECK(strcmp(again.origin, u.origin) == 0);
	}
	return 0;
}
