/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What any sandbox of a session can write (the session's writable roots
 * and every tool's write grants on every edge), and the session start's
 * refusal of an executable place in it: a tool's closure, its exec grants
 * and the shim are what tools map executable, so a file the session or
 * another tool could write there would run with the tool's grants. "Any
 * sandbox": tool A must not be able to write tool B's virtualenv. The
 * mounts do the rest (the runner: nothing writable is mapped executable).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "policy.h"
#include "python_paths.h"
#include "strv.h"
#include "toolbox_writable.h"

static int push_canonical(char ***v, const char *path)
{
	_cleanup_free_ char *c = NULL;

	if (!path || path[0] != '/')
		return 0;
	/* missing: the tail is kept as written, nothing below it exists yet */
	return strv_push_unique(v, cordon_canonicalize(path, &c, NULL) < 0 ? path : c);
}

static int push_edge_grants(char ***v, const struct cordon_tools *t, const char *caller, const char *command)
{
	struct cordon_tool_sandbox sb;
	int r;

	if (cordon_tools_sandbox(t, caller, command, &sb) < 0)
		return 0; /* no such edge */
	for (const char *const *s = sb.fs_write; s && *s; s++)
		if ((r = push_canonical(v, *s)) < 0)
			return r;
	for (const char *const *s = sb.fs_write_file; s && *s; s++)
		if ((r = push_canonical(v, *s)) < 0)
			return r;
	return 0;
}

static int toolbox_tools_writable(const struct cordon_tools *t, char ***ret)
{
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
	const char *const *names = cordon_tools_commands(t);
	int r;

	if (!v)
		return -ENOMEM;
	for (size_t c = 0; names && names[c]; c++) {
		r = push_edge_grants(&v, t, CORDON_TOOLS_SESSION, names[c]);
		for (size_t k = 0; r >= 0 && names[k]; k++)
			r = push_edge_grants(&v, t, names[k], names[c]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

int toolbox_all_writable(const struct cordon_tools *t, const char *const *session_writable, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	int r = toolbox_tools_writable(t, &v);

	/* /tmp itself is a private tmpfs in every sandbox of a session (a
	 * session with tools runs in full isolation: light isolation refuses
	 * deny-exec): the host's files there are out of every sandbox's reach.
	 * A root below it ($TMPDIR) is bound in from the host: it counts. */
	for (size_t i = 0; r >= 0 && session_writable && session_writable[i]; i++)
		if (strcmp(session_writable[i], "/tmp") != 0)
			r = push_canonical(&v, session_writable[i]);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(v);
	return 0;
}

int toolbox_check_unwritable(char *const *writable, const char *what, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;

	/* the name as listed and where it leads: both are opened by path */
	if (cordon_canonicalize(path, &canon, NULL) < 0)
		canon = NULL;
	STRV_FOREACH(w, writable)
		if (path_is_under(path, *w) || (canon && path_is_under(canon, *w)))
			return error_set(reterr, -EPERM,
					 "%s: %s lies in %s, which a sandbox of this session can write: a file "
					 "there would run with the tool's grants (install it outside every "
					 "writable root)",
					 what, path, *w);
	/* a directory: nor may a writable root lie at or below it (or where
	 * it leads), where a file made would be what the tool loads */
	STRV_FOREACH(w, writable)
		if (path_is_under(*w, path) || (canon && path_is_under(*w, canon)))
			return error_set(reterr, -EPERM,
					 "%s: %s is writable by a sandbox of this session and lies in %s, where the "
					 "tool loads code from",
					 what, *w, path);
	return 0;
}

int toolbox_check_library_dirs(char *const *writable, struct cordon_error *reterr)
{
	for (size_t i = 0; policy_library_dirs[i]; i++) {
		_cleanup_free_ char *lib = NULL;

		if (cordon_canonicalize(policy_library_dirs[i], &lib, NULL) < 0)
			continue;
		STRV_FOREACH(w, writable)
			if (path_is_under(*w, lib))
				return error_set(reterr, -EPERM,
						 "%s is writable by a sandbox of this session and lies in the library "
						 "directory %s, which every tool maps executable",
						 *w, lib);
	}
	return 0;
}

int toolbox_check_module_places(char *const *writable, const char *what, const char *exe, char *const *closure,
				struct cordon_error *reterr)
{
	int r;

	STRV_FOREACH(f, closure) {
		const char *base = strrchr(*f, '/') ? strrchr(*f, '/') + 1 : *f;

		if (python_interpreter_name(base) == 0) {
			_cleanup_strv_free_ char **places = NULL;

			r = python_module_places(*f, &places);
			if (r < 0)
				return error_set(reterr, r, "%s: cannot read where %s imports from: %s", what, *f,
						 strerror(-r));
			STRV_FOREACH(m, places)
				if ((r = toolbox_check_unwritable(writable, what, *m, reterr)) < 0)
					return r;
		}
		/* a script node runs: require() looks in node_modules of each
		 * directory above it */
		if ((strcmp(base, "node") == 0 || strcmp(base, "nodejs") == 0) && strcmp(exe, *f) != 0) {
			_cleanup_free_ char *dir = path_dirname(exe);

			while (dir) {
				_cleanup_free_ char *nm = path_join(dir, "node_modules"), *up = NULL;

				if (!nm)
					return -ENOMEM;
				r = toolbox_check_unwritable(writable, what, nm, reterr);
				if (r < 0)
					return r;
				if (strcmp(dir, "/") == 0)
					break;
				up = path_dirname(dir);
				free(dir);
				dir = TAKE_PTR(up);
			}
		}
	}
	return 0;
}
