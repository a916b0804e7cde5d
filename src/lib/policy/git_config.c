/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Just enough of git's configuration syntax to answer two questions for
 * path tokens: which files make up the user's and the system's git
 * configuration, and where do they point core.hooksPath. Read from the
 * files themselves (a parser never spawns), from global and system
 * configuration only.
 */
#include <ctype.h>
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
#include "strv.h"

#define GIT_CONFIG_MAX_BYTES ((size_t)1024 * 1024)
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

/* Parse value text (after '='): quotes, escapes, comments. In place. */
static void git_value(char *s)
{
	char *w = s;
	bool quoted = false;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*s == '#' || *s == ';'))
			break;
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			continue;
		}
		*w++ = *s;
	}
	*w = '\0';
}

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static int git_read_file(struct git_reader *g, const char *path, unsigned depth);

static int git_parse(struct git_reader *g, const char *path, char *text, unsigned depth)
{
	_cleanup_free_ char *dir = strdup(path);
	char section[64] = "";
	char *slash, *save = NULL;
	int r;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq, *key;

		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '#' || *line == ';' || *line == '\0')
			continue;
		if (*line == '[') {
			char *end = strchr(line, ']');
			size_t n;

			if (!end)
				continue; /* not git's syntax: ignore the line */
			n = (size_t)(end - line - 1);
			if (n >= sizeof(section))
				n = sizeof(section) - 1;
			memcpy(section, line + 1, n);
			section[n] = '\0';
			for (char *c = section; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			/* [section] key = value on one line */
			line = end + 1;
			while (*line == ' ' || *line == '\t')
				line++;
			if (*line == '\0' || *line == '#' || *line == ';')
				continue;
		}
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		key = line;
		rstrip(key);
		for (char *c = key; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		git_value(eq + 1);
		rstrip(eq + 1);

		/* includeIf is taken as if its condition held: what git may
		 * read counts, and deciding gitdir:/onbranch: conditions here
		 * would be a second git */
		if ((strcmp(section, "include") == 0 || strncmp(section, "includeif", 9) == 0) && strcmp(key, "path") == 0) {
			_cleanup_free_ char *inc = git_expand(g, eq + 1, dir);

			if (!inc || !inc[0])
				continue;
			/* named even while missing: a run could make it */
			r = strv_push_unique(&g->out->config_files, inc);
			if (r < 0)
				return r;
			if (depth + 1 > PROFILE_GIT_INCLUDE_DEPTH)
				continue; /* git refuses deeper includes; so do we */
			r = git_read_file(g, inc, depth + 1);
			if (r < 0 && r != -ENOENT && r != -EACCES && r != -ENOTDIR && r != -EISDIR && r != -EINVAL && r != -EFBIG)
				return r;
		} else if (strcmp(section, "core") == 0 && strcmp(key, "hookspath") == 0) {
			/* A relative hooksPath is relative to whichever repository
			 * runs the hook: named only for a known repository. */
			_cleanup_free_ char *hp = NULL;

			if (eq[1] != '/' && eq[1] != '~' && !g->worktree)
				continue;
			if (!eq[1])
				continue;
			hp = git_expand(g, eq + 1, g->worktree);
			if (!hp || strlen(hp) >= PATH_MAX)
				continue;
			r = strv_push_unique(&g->out->hooks_paths, hp);
			if (r < 0)
				return r;
		}
	}
	return 0;
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
	r = read_file_capped(path, GIT_CONFIG_MAX_BYTES, true, &text, &len);
	if (r < 0)
		return r;
	/* included files count as configuration files too */
	if (depth > 0) {
		r = strv_push_unique(&g->out->config_files, path);
		if (r < 0)
			return r;
	}
	if (memchr(text, '\0', len))
		return 0;
	return git_parse(g, path, text, depth);
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
		if (lstat(dot, &st) == 0 && S_ISDIR(st.st_mode)) {
			*ret_worktree = TAKE_PTR(d);
			*ret_gitdir = TAKE_PTR(dot);
			return 0;
		}
		if (lstat(dot, &st) == 0 && S_ISREG(st.st_mode) &&
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
