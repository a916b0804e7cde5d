/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tools' private HOMEs (cordon_toolbox_set_homes): one directory per
 * session below the supervisor's state, beside the audit logs, that no
 * sandbox can write (the toolbox refuses it otherwise) and that only the
 * supervisor removes. A tool writes what it likes in its HOME, links too:
 * the removal walks by fd and never follows one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirat.h"
#include "errbuf.h"
#include "tool_homes.h"

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

int tool_homes_new(const char *session_id, char **ret, char *err, size_t errlen)
{
	_cleanup_free_ char *base = NULL, *dir = NULL;
	_cleanup_close_ int fd = -1;
	int r = state_base(&base);

	if (r < 0)
		return errbuf_set(err, errlen, r, "the tools' homes: no XDG_STATE_HOME or HOME to keep them in");
	{
		_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		fd = root < 0 ? -errno : dir_make_open_at(root, base, strlen(base), 0700);
	}
	if (fd < 0)
		return errbuf_set(err, errlen, fd, "the tools' homes: cannot make %s: %s", base, strerror(-fd));
	if (mkdirat(fd, session_id, 0700) < 0)
		return errbuf_set(err, errlen, -errno, "the tools' homes: cannot make %s/%s: %m", base, session_id);
	if (asprintf(&dir, "%s/%s", base, session_id) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(dir);
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
