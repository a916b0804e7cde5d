/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A sandbox of command_policies (profile_read_sandbox.c). */

#include "profile_loader.h"

extern const char *const loader_sandbox_keys[];

/* A sandbox object into *ret. */
int loader_read_sandbox(struct loader *l, const struct where *w, json_t *v, struct raw_sandbox **ret);
struct raw_sandbox *raw_sandbox_free(struct raw_sandbox *sb);
