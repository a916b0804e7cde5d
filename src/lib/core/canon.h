/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "path.h"

/* Most symlinks followed while canonicalising one path (as the kernel's MAXSYMLINKS). */
#define CANON_MAX_SYMLINKS 40

/* Canonicalise path[0..len): refuses an embedded NUL byte (-EINVAL). The
 * rest as cordon_canonicalize. */
int canonicalize_n(const char *path, size_t len, char **ret, struct cordon_error *reterr);

/* Canonicalise rel (relative, no leading '/') below base, which must
 * already be canonical: base's own components are not looked at again. */
int canonicalize_at(const char *base, const char *rel, char **ret, struct cordon_error *reterr);

/* Canonicalise a grant (a write, read, socket or exec path, a workspace):
 * refused (-EPERM, naming the path and the link) when a symlink on the way
 * sits at or below any root of the NULL-terminated list of root lists
 * roots: a link a sandbox could have made (build -> ~/.ssh, planted by an
 * earlier run) never redirects what the next policy grants. Links
 * elsewhere (/var/run -> /run) are followed as canonicalize_n does. */
int canonicalize_grant(const char *path, const char *const *const *roots, char **ret, struct cordon_error *reterr);
