/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths as strings: joined, and compared by component. Pure: nothing here
 * looks at the filesystem (canon.c does).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb;
	char *r;

	while (la > 0 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	/* by hand: asprintf's format walk cost ten times the copy, and a
	 * launch joins some hundreds of paths */
	lb = strlen(b);
	r = malloc(la + 1 + lb + 1);
	if (!r)
		return NULL;
	memcpy(r, a, la);
	r[la] = '/';
	memcpy(r + la + 1, b, lb + 1);
	return r;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return NULL;
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

bool path_is_under_n(const char *path, size_t len, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return len > 0 && path[0] == '/';
	return len >= n && strncmp(path, dir, n) == 0 && (len == n || path[n] == '/');
}

int path_is_under(const char *path, const char *dir)
{
	return path_is_under_n(path, strlen(path), dir);
}

bool path_under_any_n(const char *path, size_t len, const char *const *dirs)
{
	for (size_t i = 0; dirs && dirs[i]; i++)
		if (path_is_under_n(path, len, dirs[i]))
			return true;
	return false;
}

bool path_under_any(const char *path, const char *const *dirs)
{
	return path_under_any_n(path, strlen(path), dirs);
}

bool path_is_plain_absolute(const char *p)
{
	if (p[0] != '/' || p[1] == '\0')
		return false;
	for (const char *c = p; *c; c++)
		if (*c == '/' && (c[1] == '/' || c[1] == '\0' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
				  (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))
			return false;
	return true;
}

const char *path_first_below(const char *path, size_t dir_len, size_t *ret_len)
{
	const char *c = path + dir_len, *slash;

	if (*c == '/')
		c++;
	slash = strchr(c, '/');
	*ret_len = slash ? (size_t)(slash - c) : strlen(c);
	return c;
}
