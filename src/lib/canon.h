/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <stddef.h>

#include "cordon/cordon.h"

/* Most symlinks followed while canonicalising one path (as the kernel's MAXSYMLINKS). */
#define CANON_MAX_SYMLINKS 40

/* Canonicalise path[0..len): refuses an embedded NUL byte (-EINVAL). The
 * rest as cordon_canonicalize. */
int canonicalize_n(const char *path, size_t len, char **ret, struct cordon_error *reterr);

/* Canonicalise rel (relative, no leading '/') below base, which must
 * already be canonical: base's own components are not looked at again. */
int canonicalize_at(const char *base, const char *rel, char **ret, struct cordon_error *reterr);

/* Join a and b with exactly one '/' between them. NULL on ENOMEM. */
char *path_join(const char *a, const char *b);
/* True if path equals dir or lies below it (both canonical, absolute). */
int path_is_under(const char *path, const char *dir);
/* The same for path[0..len) (a prefix of a longer string). */
bool path_is_under_n(const char *path, size_t len, const char *dir);
/* At or below one of dirs (NULL-terminated; NULL: none). */
bool path_under_any(const char *path, const char *const *dirs);
bool path_under_any_n(const char *path, size_t len, const char *const *dirs);
