/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the CLI says what went wrong: one line on stderr (kept for the JSON
 * result's error), or a reason into a caller's buffer. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

void cli_say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cordon: %s\n", line);
	cli_note_message(line);
}

int cli_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}
