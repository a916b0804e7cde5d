/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Raw state -> struct cordon_profile (profile_resolve.c). */

#include "profile_loader.h"

/* Raw state -> p: expand, canonicalise, check the rules against each
 * other, carry origins over. */
int loader_resolve(struct loader *l, struct cordon_profile *p);
/* One spelled entry (tokens, groups, ~, relative) to absolute paths, not
 * yet canonical; *ret may be empty (an @git token that names nothing). */
int loader_expand_entry(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e, char ***ret);
/* path canonical, or an error at w. */
int loader_canonical(struct loader *l, const struct where *w, const char *path, char **ret);
int loader_canonical_grant(struct loader *l, const struct where *w, const char *path, char **ret);
