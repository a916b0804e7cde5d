/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Raw command_policies -> struct cordon_tools (profile_resolve_tools.c). */

#include "profile_loader.h"

/* l->tools -> p->tools (NULL when no command_policies was read). */
int loader_resolve_tools(struct loader *l, struct cordon_profile *p);

/* The command of l's command_policies called name, or NULL. */
const struct raw_command *raw_command(const struct loader *l, const char *name);
