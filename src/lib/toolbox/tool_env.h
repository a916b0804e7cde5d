/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a tool's environment may take from its caller (tool_env.c): the
 * paths in a value, checked against every root a sandbox of the session
 * can write.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The most paths one value may hold, and its length; beyond, it reaches
 * (fail closed: each path costs a canonicalisation). */
#define TOOL_ENV_PATHS_MAX 256
#define TOOL_ENV_VALUE_MAX (128 * 1024)

/* Does value name a path the tool would find written by a sandbox of the
 * session? Every absolute path in it (the whole value, or a piece after a
 * separator: ':' ';' ',' '=' '@' whitespace and quotes, or after an
 * option's letters, "-I/x") is looked at as written (with "." and
 * repeated '/' dropped) and canonical (symlinks followed): at or below one
 * of roots, under /proc or /dev (but /dev/null: a caller's fd, its cwd),
 * or with a ".." component, it does; a piece starting "./" or "../" too (it
 * resolves against the caller's directory), and a value with more than
 * TOOL_ENV_PATHS_MAX paths or over TOOL_ENV_VALUE_MAX bytes (it is not
 * read further). True with the piece (capped)
 * in what[size]; false when no piece does. Fails closed: a piece that
 * cannot be canonicalised counts. */
bool tool_env_value_reaches(const char *value, const char *const *roots, char *what, size_t size);
