/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Finding a profile (profile_find.c): a path, the user and installed
 * directories, the built-in ones; and the environment it resolves in. */

#include "profile_loader.h"

/* l ready to read, its find set to loader_find_doc. */
int loader_init(struct loader *l, const struct profile_env *env, struct cordon_error *reterr);
/* A doc holding a copy of data, named file and anchored at it (relative
 * extends resolve next to it). */
int doc_from_buffer(const char *data, size_t len, const char *file, struct doc **ret);
/* Find NAME (see profile_load). from/from_where: the extends that asked,
 * or NULL at the top. */
int loader_find_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret);

/* Packs (issue 24): whether name is OWNER/NAME/PROFILE (a pack's profile,
 * never a path), a part of one, and the resolver that hands over a pack
 * profile's verified bytes (text malloc'd; -errno and the reason). */
bool profile_name_is_pack(const char *name);
bool profile_pack_part_ok(const char *s, size_t n);
typedef int (*profile_pack_resolver_fn)(const char *name, char **ret_text, size_t *ret_len,
					struct cordon_error *reterr);
void profile_set_pack_resolver(profile_pack_resolver_fn fn);
