/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A truncating copy of a string into a fixed buffer (text.h). */
#include <string.h>

#include "text.h"

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
