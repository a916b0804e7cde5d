/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HOME allowlist's configuration filter (home_filter.c) on arbitrary
 * bytes, both as a git config file and as any other: it must not crash,
 * never grow the input by more than one newline, and what it keeps must
 * hold no URL with userinfo (a "://...@" before the next '/' or line end).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "home_filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int git = 0; git < 2; git++) {
		char *out = NULL;
		size_t n = 0;
		int r = home_filter((const char *)data, size, git, &out, &n);

		if (r < 0) {
			if (size <= HOME_FILTER_MAX && r != -12 /* ENOMEM */)
				abort();
			continue;
		}
		if (n > size + 1 || out[n] != '\0')
			abort();
		for (char *s = strstr(out, "://"); s; s = strstr(s + 3, "://"))
			for (char *c = s + 3; *c && *c != '/' && *c != '\n'; c++)
				if (*c == '@')
					abort();
		free(out);
	}
	return 0;
}
