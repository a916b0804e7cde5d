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

int error_prefix(struct cordon_error *reterr, int r, const char *fmt, ...)
{
	char reason[sizeof(reterr->message)];
	va_list ap;
	int n;

	if (!reterr)
		return r;
	memcpy(reason, reterr->message, sizeof(reason));
	reason[sizeof(reason) - 1] = '\0';
	va_start(ap, fmt);
	n = vsnprintf(reterr->message, sizeof(reterr->message), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(reterr->message) - 1 && reason[0])
		snprintf(reterr->message + n, sizeof(reterr->message) - (size_t)n, ": %s", reason);
	return r;
}
