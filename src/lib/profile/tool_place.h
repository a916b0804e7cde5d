/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where a piece of a profile's command_policies or credentials was written
 * (file, JSON pointer, line): for decisions, refusals and `cordon why`.
 * Below both tools.h and the credentials' creds.h, which each hold places. */

#include <stdlib.h>

struct tool_place {
	char *file;
	char *pointer;
	int line;
};

static inline void tool_place_clear(struct tool_place *pl)
{
	free(pl->file);
	free(pl->pointer);
	*pl = (struct tool_place){};
}
