/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * git's configuration as cordon reads it (src/lib/policy/git_config.c) on arbitrary
 * bytes: the workspace repository's .git/config, its .git file (gitdir:)
 * and what they include are written by whoever wrote the repository, so
 * the reader takes untrusted input. It must never crash, and every path it
 * returns must be absolute and shorter than PATH_MAX (the policy protects
 * them). The first byte picks where the bytes go: a system config, the
 * repository's .git/config, or its .git file.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], sys_cfg[96], repo_cfg[128], dot_git[96];

static void cleanup(void)
{
	unlink(sys_cfg);
	unlink(repo_cfg);
	unlink(dot_git);
	snprintf(repo_cfg, sizeof(repo_cfg), "%s/.git", dir);
	rmdir(repo_cfg);
	rmdir(dir);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

static void check(const struct git_paths *g)
{
	for (char **v = g->hooks_paths; v && *v; v++)
		if ((*v)[0] != '/' || strlen(*v) >= PATH_MAX)
			abort();
	for (char **v = g->config_files; v && *v; v++)
		if ((*v)[0] != '/')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct git_paths g = {};
	char gitdir[96];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/cordon-fuzz-git-%d", (int)getpid());
		snprintf(sys_cfg, sizeof(sys_cfg), "%s.sys", dir);
		snprintf(dot_git, sizeof(dot_git), "%s/.git", dir);
		atexit(cleanup);
	}
	if (size == 0)
		return 0;
	(void)mkdir(dir, 0700);
	snprintf(gitdir, sizeof(gitdir), "%s/.git", dir);
	snprintf(repo_cfg, sizeof(repo_cfg), "%s/config", gitdir);
	unlink(repo_cfg);
	unlink(dot_git);
	rmdir(gitdir);
	switch (data[0] % 3) {
	case 0:
		put(sys_cfg, data + 1, size - 1);
		if (git_paths_read(dir, NULL, sys_cfg, &g) == 0)
			check(&g);
		break;
	case 1:
		if (mkdir(gitdir, 0700) < 0)
			abort();
		put(repo_cfg, data + 1, size - 1);
		if (git_paths_read_repo(dir, NULL, NULL, dir, &g) == 0)
			check(&g);
		unlink(repo_cfg);
		rmdir(gitdir);
		break;
	default:
		put(dot_git, data + 1, size - 1); /* "gitdir: ..." */
		if (git_paths_read_repo(dir, NULL, NULL, dir, &g) == 0)
			check(&g);
		unlink(dot_git);
		break;
	}
	git_paths_clear(&g);
	return 0;
}
