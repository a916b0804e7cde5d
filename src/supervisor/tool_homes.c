/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tools' private HOMEs (cordon_toolbox_set_homes): one directory per
 * session below the supervisor's state, beside the audit logs, that no
 * sandbox can write (the toolbox refuses it otherwise) and that only the
 * supervisor removes. A tool writes what it likes in its HOME, links too:
 * the removal walks by fd and never follows one.
 *
 * A supervisor killed with SIGKILL cannot remove its directory, so each
 * session holds an flock on its own directory for its life, and the next
 * session to start removes every directory nobody holds. Making one's own
 * directory and sweeping happen under the base directory's flock, so a sweep never
 * takes a directory between its mkdir and its flock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirat.h"
#include "errbuf.h"
#include "tool_homes.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* The base's path from the environment: XDG_STATE_HOME (absolute), else
 * HOME/.local/state. */
static int state_base(char **ret)
{
	const char *x = secure_getenv("XDG_STATE_HOME"), *h = secure_getenv("HOME");
	char *p = NULL;

	if (x && x[0] == '/')
		p = asprintf(&p, "%s/cordon/tools", x) < 0 ? NULL : p;
	else if (h && h[0] == '/')
		p = asprintf(&p, "%s/.local/state/cordon/tools", h) < 0 ? NULL : p;
	else
		return -ENOENT;
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

/* Everything in the directory dfd, removed; depth capped (a tool's tree). */
static void remove_below(int dfd, int depth)
{
	DIR *d;
	struct dirent *de;
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub;

			/* a tool may have left it unreadable: it is ours */
			(void)fchmodat(dfd, de->d_name, 0700, 0);
			sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0) {
				if (depth < 256)
					remove_below(sub, depth + 1);
				close(sub);
			}
			(void)unlinkat(dfd, de->d_name, AT_REMOVEDIR);
		} else
			(void)unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

/* Every session directory in base (a directory fd) that no live session holds,
 * removed: its supervisor was killed. Called under the base's lock. */
static void sweep_orphans(int base)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int fd = openat(base, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* base may be O_PATH */

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		_cleanup_close_ int sub = -1;

		if (de->d_name[0] == '.')
			continue; /* . and .. (a session's name never starts with a dot) */
		sub = openat(base, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || flock(sub, LOCK_EX | LOCK_NB) < 0)
			continue; /* a live session's, or not a directory */
		remove_below(sub, 0);
		(void)unlinkat(base, de->d_name, AT_REMOVEDIR);
	}
}

int tool_homes_new(const char *session_id, char **ret, int *ret_held, char *err, size_t errlen)
{
	_cleanup_free_ char *base = NULL, *dir = NULL;
	_cleanup_close_ int fd = -1, lock = -1, own = -1;
	int r = state_base(&base);

	if (r < 0)
		return errbuf_set(err, errlen, r, "the tools' homes: no XDG_STATE_HOME or HOME to keep them in");
	{
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		fd = root < 0 ? -errno : dir_make_open_at(root, base, strlen(base), 0700);
	}
	if (fd < 0)
		return errbuf_set(err, errlen, fd, "the tools' homes: cannot make %s: %s", base, strerror(-fd));
	/* the base's own lock (on a descriptor of its own: an flock belongs
	 * to the open file) */
	lock = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		return errbuf_set(err, errlen, -errno, "the tools' homes: cannot lock %s: %m", base);
	sweep_orphans(fd);
	if (mkdirat(fd, session_id, 0700) < 0)
		return errbuf_set(err, errlen, -errno, "the tools' homes: cannot make %s/%s: %m", base, session_id);
	own = openat(fd, session_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (own < 0 || flock(own, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		(void)unlinkat(fd, session_id, AT_REMOVEDIR);
		return errbuf_set(err, errlen, r, "the tools' homes: cannot hold %s/%s: %s", base, session_id,
				  strerror(-r));
	}
	if (asprintf(&dir, "%s/%s", base, session_id) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(dir);
	*ret_held = TAKE_FD(own);
	return 0;
}

void tool_homes_remove(const char *dir)
{
	_cleanup_free_ char *parent = NULL;
	const char *name;
	_cleanup_close_ int pfd = -1, fd = -1;

	if (!dir || !(name = strrchr(dir, '/')) || !(parent = strndup(dir, (size_t)(name - dir))))
		return;
	name++;
	pfd = open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	remove_below(fd, 0);
	(void)unlinkat(pfd, name, AT_REMOVEDIR);
}
