/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's error carrier (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

int error_set(struct cordon_error *reterr, int r, const char *fmt, ...)
{
	va_list ap;

	if (!reterr)
		return r;
	memset(reterr, 0, sizeof(*reterr));
	va_start(ap, fmt);
	vsnprintf(reterr->message, sizeof(reterr->message), fmt, ap);
	va_end(ap);
	return r;
}
