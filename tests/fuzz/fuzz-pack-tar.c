/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pack's .tar (pack_tar.c) on arbitrary bytes: no crash, no read past
 * them, and every entry it hands over has a plain relative path and lies
 * inside the input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pack_tar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *base;
static size_t base_len;

static int entry(void *ctx, const char *path, bool is_dir, const char *d, size_t len)
{
	(void)ctx;
	size_t n = strlen(path);

	if (!path[0] || path[0] == '/' || strcmp(path, "..") == 0 || strncmp(path, "../", 3) == 0 ||
	    strstr(path, "/../") || (n >= 3 && strcmp(path + n - 3, "/..") == 0))
		abort();
	if (!is_dir && (d < base || len > base_len || (size_t)(d - base) > base_len - len))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_error why;

	base = (const char *)data;
	base_len = size;
	(void)pack_tar_walk((const char *)data, size, entry, NULL, &why);
	return 0;
}
