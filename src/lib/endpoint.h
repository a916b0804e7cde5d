/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A credential's endpoint policy, decided on method and path: the one
 * matcher the proxy and `cordon why` share. Pure, bounded, no allocation.
 *
 * The path is canonicalised first, and ambiguous paths are refused rather
 * than guessed at: a dot segment ("." or ".."), an empty segment ("//"),
 * ';' (matrix parameters), '\', a NUL, a control byte, or a percent
 * escape of '.', '/', '\', ';' or a control byte (the upstream might
 * decode it to something the glob did not see). What remains is compared
 * as sent, query string removed.
 *
 * Globs: segments separated by '/'; "*" is one whole segment (any non-empty
 * name), "**" any number of segments (zero too); a '*' inside a segment
 * matches any characters of that segment.
 */

#include <stdbool.h>
#include <stddef.h>

#include "credtable.h"

#define ENDPOINT_PATH_MAX 8192

/* The origin-form target t[0..n) ("/a/b?q=1"): its path into out (NUL
 * terminated). -EINVAL with a static reason token in *ret_reason for an
 * ambiguous or malformed path; -E2BIG when over ENDPOINT_PATH_MAX. */
int endpoint_canon_path(const char *t, size_t n, char *out, size_t outlen, const char **ret_reason);

/* glob matches a canonical path. */
bool endpoint_glob_match(const char *glob, const char *path);

/* deny -> approve -> allow -> default. *ret_rule: the rule that decided,
 * NULL for the default. */
enum credtable_action endpoint_decide(const struct credtable_policy *p, const char *method, const char *path,
				      const struct credtable_rule **ret_rule);

/* A token of "deny", "approve", "allow". */
const char *endpoint_action_name(enum credtable_action a);
