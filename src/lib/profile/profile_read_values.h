/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Values the top level and a command's sandbox read alike
 * (profile_read_values.c): path lists, network mode, host rules. */

#include "profile_loader.h"

/* An array of path strings into out; allow_refs: "@name" references. */
int loader_read_paths(struct loader *l, const struct where *w, const json_t *v, bool allow_refs,
		      struct raw_list *out);
/* network.mode's value. */
int loader_get_net_mode(struct loader *l, const struct where *w, const json_t *v, enum profile_net *ret);
/* An array of host rules of kind (checked as the proxy takes them), each
 * counted as a rule, added to *out once. */
int loader_read_net_rules(struct loader *l, const struct where *w, const json_t *v, enum cordon_net_rule kind,
			  char ***out);
/* Host rules without network mode proxy: an error at w. */
int loader_check_net_rules_mode(struct loader *l, const struct where *w, enum profile_net net);
