/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errbuf.h"

int errbuf_set(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

void text_copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (size == 0)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}
