/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * .pth files (python_paths.c) on arbitrary bytes: the session start reads
 * those of every Python interpreter a tool runs. The parser may not crash,
 * read past len or return a path that is relative or holds a line
 * break.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "python_paths.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char **v = calloc(1, sizeof(char *));
	int r;

	if (!v)
		return 0;
	r = python_pth_paths((const char *)data, size, "/site", &v);
	if (r < 0 && r != -EFBIG && r != -ENOMEM)
		abort();
	for (char **p = v; r == 0 && *p; p++)
		if ((*p)[0] != '/' || strchr(*p, '\n'))
			abort();
	strv_free(v);
	return 0;
}
