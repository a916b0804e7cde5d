/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which file a command under command_policies runs, decided once, at
 * session start: an absolute executable as the profile gives it, a bare
 * name on the original PATH, never from a directory the session can write
 * (nor through a symlink into one): what the agent could plant there must
 * not become the tool that holds the tool's credentials.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "strv.h"
#include "tools.h"

/* A PATH longer than this is not one a session starts with. */
#define TOOLS_PATH_ENV_MAX (64 * 1024)

/* 0 when path is a regular file with an execute bit that we may execute;
 * else -errno with reterr naming what is wrong. */
static int check_executable(const char *command, const char *path, struct cordon_error *reterr)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return error_set(reterr, -errno, "%s: executable %s: %s", command, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error_set(reterr, -EACCES, "%s: executable %s is not a regular file", command, path);
	if (!(st.st_mode & 0111) || access(path, X_OK) < 0)
		return error_set(reterr, -EACCES, "%s: executable %s is not executable", command, path);
	return 0;
}

/* writable, canonical where it can be (a root that does not exist yet
 * stays as given: nothing below it can be found either). */
static int canonical_roots(const char *const *writable, char ***ret)
{
	_cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
	int r;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; writable && writable[i]; i++) {
		_cleanup_free_ char *c = NULL;

		if (writable[i][0] != '/')
			continue;
		r = strv_push_unique(&out, cordon_canonicalize(writable[i], &c, NULL) < 0 ? writable[i] : c);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(out);
	return 0;
}

/* The first regular executable name on path_env outside roots; *skipped
 * keeps the first directory (or symlink target) left out because the
 * session can write it. */
static int search_path(const char *name, const char *path_env, char *const *roots, char **ret, char **skipped)
{
	const char *p = path_env;

	while (*p) {
		size_t n = strcspn(p, ":");
		_cleanup_free_ char *dir = strndup(p, n), *cdir = NULL, *cand = NULL, *ccand = NULL;
		struct stat st;

		p += n + (p[n] == ':');
		if (!dir)
			return -ENOMEM;
		/* "" and relative entries mean the current directory: never */
		if (dir[0] != '/' || n >= PATH_MAX)
			continue;
		if (cordon_canonicalize(dir, &cdir, NULL) < 0)
			continue;
		if (path_under_any(cdir, (const char *const *)roots)) {
			if (!*skipped)
				*skipped = TAKE_PTR(cdir);
			continue;
		}
		cand = path_join(cdir, name);
		if (!cand)
			return -ENOMEM;
		if (cordon_canonicalize(cand, &ccand, NULL) < 0 || stat(ccand, &st) < 0 || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0111) || access(ccand, X_OK) < 0)
			continue;
		if (path_under_any(ccand, (const char *const *)roots)) {
			if (!*skipped)
				*skipped = TAKE_PTR(ccand);
			continue;
		}
		*ret = TAKE_PTR(ccand);
		return 0;
	}
	return -ENOENT;
}

CORDON_API int cordon_tools_resolve(const struct cordon_tools *t, const char *command, const char *path_env,
				    const char *const *writable, char **ret, struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **roots = NULL;
	_cleanup_free_ char *found = NULL, *skipped = NULL;
	const struct tool_command *c;
	const char *exe;
	int r;

	if (!t || !command || !ret)
		return error_set(reterr, -EINVAL, "no command to resolve");
	c = tools_command(t, command);
	if (!c)
		return error_set(reterr, -ENOENT, "%.100s is not a command under command_policies", command);
	exe = c->executable ? c->executable : c->name;
	if (exe[0] == '/') {
		r = cordon_canonicalize(exe, &found, reterr);
		if (r < 0)
			return r;
		r = check_executable(command, found, reterr);
		if (r < 0)
			return r;
		*ret = TAKE_PTR(found);
		return 0;
	}
	if (!path_env || !path_env[0])
		return error_set(reterr, -ENOENT, "%s: no PATH to look %s up on", command, exe);
	if (strlen(path_env) > TOOLS_PATH_ENV_MAX)
		return error_set(reterr, -E2BIG, "%s: PATH is longer than %d bytes", command, TOOLS_PATH_ENV_MAX);
	r = canonical_roots(writable, &roots);
	if (r < 0)
		return r;
	r = search_path(exe, path_env, roots, &found, &skipped);
	if (r == -ENOENT && skipped)
		return error_set(reterr, -ENOENT,
				 "%s: %s is not on PATH outside what the session can write (%s is skipped: a binary "
				 "the session could plant there is never taken)",
				 command, exe, skipped);
	if (r == -ENOENT)
		return error_set(reterr, -ENOENT, "%s: %s is not on PATH", command, exe);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(found);
	return 0;
}

const struct tool_command *tools_controlling(const struct cordon_tools *t, const char *canonical,
					     const char *path_env, const char *const *writable)
{
	for (size_t i = 0; t && canonical && i < t->n_commands; i++) {
		_cleanup_free_ char *exe = NULL;

		if (cordon_tools_resolve(t, t->commands[i].name, path_env, writable, &exe, NULL) == 0 &&
		    strcmp(exe, canonical) == 0)
			return &t->commands[i];
	}
	return NULL;
}
