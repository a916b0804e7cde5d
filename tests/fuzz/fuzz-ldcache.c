/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ld.so.cache reader (ldcache.c) on arbitrary bytes. /etc/ld.so.cache
 * is root's file, but the execute-closure trusts nothing it parses: the
 * reader must never crash or read out of bounds, and every entry it keeps
 * must name an absolute path within its length cap. The sonames looked up
 * are the ones the seeds hold, so the lookups reach kept entries.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "libc.so.6", "libx.so.1", "liby.so", "", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ldcache *cache = NULL;
	struct cordon_error err = {};
	int r = ldcache_parse(data, size, &cache, &err);

	if (r < 0) {
		if (r != -ENOEXEC && r != -EFBIG && r != -ENOMEM)
			abort();
		return 0;
	}
	if (ldcache_entries(cache) > size / 12)
		abort();
	for (const char *const *n = names; *n; n++) {
		size_t count;
		const struct ldcache_entry *e = ldcache_find(cache, *n, &count);

		for (size_t i = 0; i < count; i++)
			if (e[i].path[0] != '/' || strlen(e[i].path) >= LDCACHE_MAX_PATH)
				abort();
	}
	ldcache_free(cache);
	return 0;
}
