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
