/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by landlock.c and landlock_resolve.c only. */

#include <stdbool.h>
#include <stddef.h>

#include "landlock.h"

/* A path the ruleset withholds rights from, canonical. */
struct denied {
	char *path;
	bool is_dir;     /* unknown (absent): true, the stricter reading */
	bool exec_only;  /* deny_exec: only EXECUTE is withheld; else (deny_read) every right */
};

/* r->deny_read, then r->deny_exec, resolved (landlock_resolve.c). The
 * array is the caller's: denied_free. 0, or -errno with a reason in err. */
int landlock_resolve_denied(const struct landlock_rules *r, struct denied **ret, size_t *ret_n, char *err,
			    size_t errlen);
void denied_free(struct denied *d, size_t n);
/* PATH at or beneath a path deny_read hides (not deny_exec's). */
bool denied_hides(const struct denied *d, size_t n, const char *path);

/* The split of init's ruleset (landlock_split.c): where the sandbox's
 * inodes differ from the host's (INSIDE, NULL-terminated). At or beneath
 * one of them; one of them strictly beneath PATH; DIR/NAME at or beneath
 * one of them; and, for each entry of DIR on the way to one of them, once,
 * cb(name, DT_UNKNOWN, data) (stops at, and returns, cb's first failure). */
bool landlock_inside_at(const char *const *inside, const char *path);
bool landlock_inside_below(const char *const *inside, const char *path);
bool landlock_inside_entry(const char *const *inside, const char *dir, const char *name);
int landlock_inside_names(const char *const *inside, const char *dir,
			  int (*cb)(const char *name, unsigned char d_type, void *data), void *data);
