/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The paths in a value a caller hands a tool (tool_env.c), on arbitrary
 * bytes: it may not crash or read past the value, and what it names is a
 * piece of the value (or its own words for a value it would not read).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tool_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const roots[] = { "/tmp", "/var/tmp/ws", NULL };
	char *value, what[256] = "";

	if (size > TOOL_ENV_VALUE_MAX + 16)
		return 0;
	value = malloc(size + 1);
	if (!value)
		return 0;
	memcpy(value, data, size);
	value[size] = '\0';
	if (tool_env_value_reaches(value, roots, what, sizeof(what)) && !what[0] && value[0])
		abort(); /* a refusal always names what */
	if (what[0] && what[0] != '(' && !strstr(value, what) && strlen(what) < 200)
		abort(); /* the piece named is the value's */
	free(value);
	return 0;
}
