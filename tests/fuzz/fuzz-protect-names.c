/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's matcher by name (protect_names.c) on arbitrary paths:
 * the names come from the sandbox (what a confined process asks to make or
 * write), so the matcher reads untrusted bytes. It must never crash or
 * read out of bounds, and it must agree with itself: what lies below a
 * protected path is protected too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protect_names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { ".vscode", ".mcp.json", ".cordon*", ".claude", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *rel;

	if (size > 4096)
		return 0;
	rel = malloc(size + 1);
	if (!rel)
		return 0;
	memcpy(rel, data, size);
	rel[size] = '\0';
	const char *n = protect_match_names(names, rel), *g = protect_match_git(rel);

	/* below what is protected is protected too: the same answer for
	 * rel + "/x" — except below a .git entry itself (only its code
	 * entries are protected, not objects or refs) */
	size_t len = strlen(rel); /* the bytes may hold a NUL: the path ends there */

	if (len > 0 && rel[len - 1] != '/') {
		char longer[4100];
		const char *last = strrchr(rel, '/');

		memcpy(longer, rel, len);
		memcpy(longer + len, "/x", 3);
		if (n && !protect_match_names(names, longer))
			abort();
		if (g && strcmp(last ? last + 1 : rel, ".git") != 0 && !protect_match_git(longer))
			abort();
	}
	free(rel);
	return 0;
}
