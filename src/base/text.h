/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A truncating copy of a string into a fixed buffer. */

#include <stddef.h>

/* Copy src into dst[0..size), cut short when it does not fit; always
 * terminated (size 0: nothing written). */
void text_copy(char *dst, size_t size, const char *src);
