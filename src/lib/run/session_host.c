/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host may change under a session's running instance
 * (session_host.h): the state its rules name by identity, recorded when it
 * opens and checked again at each spawn, and HOME's directories, whose new
 * entries the instance cannot show.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "error.h"
#include "policy.h"
#include "session_host.h"

static const char *const home_dirs[] = { "", "/.config", "/.local/share" };

static bool home_stat(size_t i, struct timespec *ret)
{
	const char *home = getenv("HOME");
	char path[PATH_MAX];
	struct stat st;

	if (!home || home[0] != '/' || snprintf(path, sizeof(path), "%s%s", home, home_dirs[i]) >= (int)sizeof(path) ||
	    stat(path, &st) < 0)
		return false;
	*ret = st.st_mtim;
	return true;
}

bool session_host_home_changed(const struct session_host *s)
{
	for (size_t i = 0; i < ELEMENTSOF(home_dirs); i++) {
		struct timespec t = { -1, 0 };

		(void)home_stat(i, &t);
		if (t.tv_sec != s->home_mtime[i].tv_sec || t.tv_nsec != s->home_mtime[i].tv_nsec)
			return true;
	}
	return false;
}

static int id_add(struct session_host *s, const char *path, bool dir)
{
	struct stat st;
	struct session_id *id;

	for (size_t i = 0; i < s->n_ids; i++)
		if (strcmp(s->ids[i].path, path) == 0)
			return 0;
	if (stat(path, &st) < 0)
		return 0; /* nothing to name: the runner hides what is missing */
	if (s->n_ids >= SESSION_IDS_MAX)
		return -E2BIG;
	id = &s->ids[s->n_ids];
	*id = (struct session_id){ .path = strdup(path), .dir = dir, .dev = st.st_dev, .ino = st.st_ino,
				   .mtime = st.st_mtim };
	if (!id->path)
		return -ENOMEM;
	s->n_ids++;
	return 0;
}

/* Files granted by inode (a tool's executables) and the directories
 * deny_exec splits into a rule per entry: a package upgrade replaces the
 * file (a new inode, ungranted) or an entry of the directory. */
int session_host_snapshot(struct session_host *s, const struct cordon_policy *p, struct cordon_error *reterr)
{
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(home_dirs); i++)
		if (!home_stat(i, &s->home_mtime[i]))
			s->home_mtime[i] = (struct timespec){ -1, 0 };

	for (size_t i = 0; p->exec_roots && p->exec_roots[i] && r >= 0; i++) {
		struct stat st;

		if (stat(p->exec_roots[i], &st) == 0 && !S_ISDIR(st.st_mode))
			r = id_add(s, p->exec_roots[i], false);
	}
	for (size_t i = 0; p->deny_exec && p->deny_exec[i] && r >= 0; i++) {
		_cleanup_free_ char *dir = strdup(p->deny_exec[i]);
		char *slash = dir ? strrchr(dir, '/') : NULL;

		if (!dir)
			return -ENOMEM;
		if (slash)
			slash[slash == dir] = '\0';
		r = id_add(s, dir, true);
	}
	if (r == -E2BIG)
		return error_set(reterr, r, "more than %d files and directories to check again at each command",
				 SESSION_IDS_MAX);
	return r;
}

int session_host_check(const struct session_host *s, struct cordon_error *reterr)
{
	for (size_t i = 0; i < s->n_ids; i++) {
		const struct session_id *id = &s->ids[i];
		struct stat st;

		if (stat(id->path, &st) < 0 || st.st_dev != id->dev || st.st_ino != id->ino ||
		    (id->dir && (st.st_mtim.tv_sec != id->mtime.tv_sec || st.st_mtim.tv_nsec != id->mtime.tv_nsec)))
			return error_set(reterr, -ESTALE,
					 "%s changed after the session started (a package upgrade?): the sandbox's rules "
					 "name what was there then; open a new session",
					 id->path);
	}
	return 0;
}

void session_host_done(struct session_host *s)
{
	for (size_t i = 0; i < s->n_ids; i++)
		free(s->ids[i].path);
	s->n_ids = 0;
}
