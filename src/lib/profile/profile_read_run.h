/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The environment and limits sections (profile_read_run.c): the
 * profile's own, and a command sandbox's. */

#include "profile_loader.h"
#include "profile_loader_get.h"

extern const struct loader_object loader_environment_object, loader_limits_object;
extern const char *const loader_environment_keys[], *const loader_limit_keys[];

/* The raw_run the environment and limits readers fill now. */
static inline struct raw_run *loader_run(struct loader *l)
{
	return l->run ? l->run : &l->top;
}
