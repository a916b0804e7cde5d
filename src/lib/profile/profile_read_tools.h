/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* command_policies (profile_read_tools.c): approval backends, commands,
 * from. */

#include "profile_loader.h"
#include "profile_loader_get.h"

extern const char *const loader_tools_keys[], *const loader_command_keys[];

int loader_read_command_policies(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
/* A command's name: 1 to TOOLS_NAME_MAX of A-Z a-z 0-9 . _ + -, not
 * starting with '.' or '-', and not "session". */
bool tools_command_name_valid(const char *s);
void raw_tools_clear(struct raw_tools *t);
