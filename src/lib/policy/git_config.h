/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Just enough of git's configuration (git_config.c): which files make up
 * the user's and the system's configuration, and where core.hooksPath
 * points. Read from the files themselves; nothing is ever spawned.
 */

/* [include] path = ... followed this deep, no deeper (the files are the
 * user's, and a loop must end) */
#define PROFILE_GIT_INCLUDE_DEPTH 10

struct git_paths {
	char **config_files;
	char **hooks_paths;
};

int git_paths_read(const char *home, const char *xdg_config_home, const char *system_config,
		   struct git_paths *ret);
void git_paths_clear(struct git_paths *g);
/* The same for the repository holding dir (found upward: a .git directory
 * or gitdir: file), its own config, config.worktree and common dir's
 * config included: every hooksPath git would use there, a relative one
 * joined to that repository's top. Nothing (and 0) outside a repository. */
int git_paths_read_repo(const char *home, const char *xdg_config_home, const char *system_config, const char *dir,
			struct git_paths *ret);
