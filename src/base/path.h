/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Paths as strings, a generic helper like strv.h: pure (the filesystem is
 * canon.h's), so a front end may share it.
 */

#include <stdbool.h>
#include <stddef.h>

/* Join a and b with exactly one '/' between them. NULL on ENOMEM. */
char *path_join(const char *a, const char *b);
/* The directory part of path: "/" for "/x", "a/b" for "a/b/c". NULL when
 * path has no '/', or on ENOMEM. */
char *path_dirname(const char *path);
/* True if path equals dir or lies below it (both canonical, absolute). */
int path_is_under(const char *path, const char *dir);
/* The same for path[0..len) (a prefix of a longer string). */
bool path_is_under_n(const char *path, size_t len, const char *dir);
/* At or below one of dirs (NULL-terminated; NULL: none). */
bool path_under_any(const char *path, const char *const *dirs);
bool path_under_any_n(const char *path, size_t len, const char *const *dirs);
/* Absolute, with no empty, "." or ".." component and no trailing slash:
 * resolved with no symlink on the way, it is its own canonical form. "/"
 * is not (it has no component). */
bool path_is_plain_absolute(const char *path);
/* The first component of path below the directory that is its first
 * dir_len bytes (path strictly below it), and its length. */
const char *path_first_below(const char *path, size_t dir_len, size_t *ret_len);
