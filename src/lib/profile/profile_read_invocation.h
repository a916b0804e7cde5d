/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An invocation_policy of command_policies (profile_read_invocation.c). */

#include "profile_loader.h"

extern const char *const loader_invocation_keys[], *const loader_rule_keys[];

/* An invocation_policy object into *ret. */
int loader_read_invocation_policy(struct loader *l, const struct where *w, json_t *v, struct raw_policy **ret);
struct raw_policy *raw_policy_free(struct raw_policy *pol);
