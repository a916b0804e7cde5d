/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two questions about git's configuration for path tokens: which files
 * make up the user's and the system's git configuration, and where do they
 * point core.hooksPath. Read from the files themselves with git's syntax
 * (git_config_parse.h; a parser never spawns).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "fileio.h"
#include "git_config.h"
#include "git_config_parse.h"
#include "statmemo.h"
#include "strv.h"

#define GIT_CONFIG_MAX_FILES 64

struct git_reader {
	const char *home;
	const char *worktree;   /* the repository's top: what a relative hooksPath is relative to, or NULL */
	struct git_paths *out;
	size_t n_files;
};

/* ~/x and relative paths (relative to base_dir) to absolute; NULL when the
 * value cannot be placed (ENOMEM sets *err). */
static char *git_expand(const struct git_reader *g, const char *value, const char *base_dir)
{
	if (value[0] == '~' && (value[1] == '/' || value[1] == '\0'))
		return g->home ? path_join(g->home, value + 1) : NULL;
	if (value[0] == '/')
		return strdup(value);
	if (base_dir)
		return path_join(base_dir, value);
	return NULL;
}

static int git_read_file(struct git_reader *g, const char *path, unsigned depth);

/* One file's entries (git_config_parse.h): its includes read in turn, its
 * hooksPath named. A file git could not read either is no configuration. */
static int git_parse(struct git_reader *g, const char *path, const char *text, size_t len, unsigned depth)
{
	_cleanup_free_ char *dir = strdup(path);
	struct git_config c = {};
	char *slash;
	int r = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	r = git_config_parse(text, len, &c);
	if (r < 0)
		return r == -ENOMEM ? r : 0;

	for (size_t i = 0; r >= 0 && i < c.n; i++) {
		const struct git_config_entry *e = &c.v[i];
		const char *v = e->value;

		if (!v)
			continue; /* a bare key names no path */
		/* includeIf is taken as if its condition held: what git may
		 * read counts, and deciding gitdir:/onbranch: conditions here
		 * would be a second git */
		if (((strcmp(e->section, "include") == 0 && !e->subsection) || strcmp(e->section, "includeif") == 0) &&
		    strcmp(e->key, "path") == 0) {
			_cleanup_free_ char *inc = git_expand(g, v, dir);

			if (!inc || !inc[0])
				continue;
			/* named even while missing: a run could make it */
			r = strv_push_unique(&g->out->config_files, inc);
			if (r < 0)
				break;
			if (depth + 1 > PROFILE_GIT_INCLUDE_DEPTH)
				continue; /* git refuses deeper includes; so do we */
			r = git_read_file(g, inc, depth + 1);
			if (r < 0 && r != -ENOENT && r != -EACCES && r != -ENOTDIR && r != -EISDIR && r != -EINVAL && r != -EFBIG)
				break;
			r = 0;
		} else if (strcmp(e->section, "core") == 0 && !e->subsection && strcmp(e->key, "hookspath") == 0) {
			/* A relative hooksPath is relative to whichever repository
			 * runs the hook: named only for a known repository. */
			_cleanup_free_ char *hp = NULL;

			if ((v[0] != '/' && v[0] != '~' && !g->worktree) || !v[0])
				continue;
			hp = git_expand(g, v, g->worktree);
			if (!hp || strlen(hp) >= PATH_MAX)
				continue;
			r = strv_push_unique(&g->out->hooks_paths, hp);
		}
	}
	git_config_clear(&c);
	return r < 0 ? r : 0;
}

static int git_read_file(struct git_reader *g, const char *path, unsigned depth)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (++g->n_files > GIT_CONFIG_MAX_FILES)
		return 0;
	r = read_file_capped(path, GIT_CONFIG_PARSE_MAX_BYTES, true, &text, &len);
	if (r < 0)
		return r;
	/* included files count as configuration files too */
	if (depth > 0) {
		r = strv_push_unique(&g->out->config_files, path);
		if (r < 0)
			return r;
	}
	return git_parse(g, path, text, len, depth);
}

void git_paths_clear(struct git_paths *g)
{
	g->config_files = strv_free(g->config_files);
	g->hooks_paths = strv_free(g->hooks_paths);
}

/* A missing or unreadable file is no configuration; anything else fails. */
static bool read_failed(int r)
{
	return r < 0 && r != -ENOENT && r != -EACCES && r != -ENOTDIR && r != -EISDIR && r != -EINVAL && r != -EFBIG &&
	       r != -ENAMETOOLONG;
}

/* The system's, the XDG and the user's configuration, in git's order;
 * then extra (the repository's own), NULL-terminated. */
static int read_configs(struct git_reader *g, const char *xdg_config_home, const char *system_config,
			const char *const *extra)
{
	_cleanup_free_ char *xdg = NULL, *global = NULL;
	const char *files[3];
	size_t n = 0;
	int r;

	if (xdg_config_home && xdg_config_home[0] == '/')
		xdg = path_join(xdg_config_home, "git/config");
	else if (g->home)
		xdg = path_join(g->home, ".config/git/config");
	if (g->home)
		global = path_join(g->home, ".gitconfig");
	if ((g->home && !global) || ((xdg_config_home || g->home) && !xdg))
		return -ENOMEM;
	if (system_config && system_config[0])
		files[n++] = system_config;
	if (xdg)
		files[n++] = xdg;
	if (global)
		files[n++] = global;
	for (size_t i = 0; i < n; i++) {
		if ((r = strv_push_unique(&g->out->config_files, files[i])) < 0)
			return r;
		if (read_failed(r = git_read_file(g, files[i], 0)))
			return r;
	}
	for (size_t i = 0; extra && extra[i]; i++)
		if (read_failed(r = git_read_file(g, extra[i], 0)))
			return r;
	return 0;
}

int git_paths_read(const char *home, const char *xdg_config_home, const char *system_config,
		   struct git_paths *ret)
{
	struct git_paths out = {};
	struct git_reader g = { .home = home, .out = &out };
	int r = read_configs(&g, xdg_config_home, system_config, NULL);

	if (r < 0) {
		git_paths_clear(&out);
		return r;
	}
	*ret = out;
	return 0;
}

/* The git directory of the repository holding dir, found upward as git
 * does: a .git directory, or a .git file "gitdir: X". */
static int git_find_repo(const char *dir, char **ret_worktree, char **ret_gitdir)
{
	_cleanup_free_ char *d = strdup(dir);

	if (!d)
		return -ENOMEM;
	for (;;) {
		_cleanup_free_ char *dot = path_join(d, ".git"), *text = NULL;
		struct stat st;
		size_t len = 0;

		if (!dot)
			return -ENOMEM;
		if (statmemo_lstat(dot, &st) == 0 && S_ISDIR(st.st_mode)) {
			*ret_worktree = TAKE_PTR(d);
			*ret_gitdir = TAKE_PTR(dot);
			return 0;
		}
		if (statmemo_lstat(dot, &st) == 0 && S_ISREG(st.st_mode) &&
		    read_file_capped(dot, 4096, true, &text, &len) == 0 && strncmp(text, "gitdir:", 7) == 0) {
			char *v = text + 7;

			v += strspn(v, " \t");
			v[strcspn(v, "\r\n")] = '\0';
			*ret_gitdir = v[0] == '/' ? strdup(v) : path_join(d, v);
			*ret_worktree = TAKE_PTR(d);
			return *ret_gitdir ? 0 : -ENOMEM;
		}
		char *slash = strrchr(d, '/');

		if (!slash || slash == d)
			return -ENOENT;
		*slash = '\0';
	}
}

int git_paths_read_repo(const char *home, const char *xdg_config_home, const char *system_config, const char *dir,
			struct git_paths *ret)
{
	_cleanup_free_ char *worktree = NULL, *gitdir = NULL, *common = NULL, *text = NULL;
	struct git_paths out = {};
	size_t len = 0;
	int r;

	r = git_find_repo(dir, &worktree, &gitdir);
	if (r == -ENOENT) {
		*ret = out;
		return 0; /* no repository: nothing of its own to read */
	}
	if (r < 0)
		return r;
	/* a linked worktree's common directory holds the shared config */
	{
		_cleanup_free_ char *cd = path_join(gitdir, "commondir");

		if (!cd)
			return -ENOMEM;
		if (read_file_capped(cd, 4096, true, &text, &len) == 0) {
			text[strcspn(text, "\r\n")] = '\0';
			common = text[0] == '/' ? strdup(text) : path_join(gitdir, text);
			if (!common)
				return -ENOMEM;
		}
	}

	struct git_reader g = { .home = home, .worktree = worktree, .out = &out };
	_cleanup_free_ char *local = path_join(common ? common : gitdir, "config"),
			    *wtcfg = path_join(gitdir, "config.worktree");

	if (!local || !wtcfg)
		return -ENOMEM;
	r = read_configs(&g, xdg_config_home, system_config, (const char *const[]){ local, wtcfg, NULL });
	if (r < 0) {
		git_paths_clear(&out);
		return r;
	}
	*ret = out;
	return 0;
}
