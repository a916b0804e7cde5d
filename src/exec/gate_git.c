/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's validated install of a git repository's config, and
 * what a directory must be rid of before git takes it for a repository
 * (see gate_git.h). Runs in init, on the fds the gate resolved.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "gate_git.h"
#include "gate_rules.h"
#include "git_config_parse.h"
#include "git_config_safe.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* A refusal, where the run's output (and so its denials and hints) shows
 * it: the key, the file, why. "Permission denied" is what the command got. */
static void say_refused(const char *shown, const char *key, const char *why)
{
	struct pollfd pfd = { .fd = STDERR_FILENO, .events = POLLOUT };
	char line[1024];
	int n = snprintf(line, sizeof(line) - 1, "cordon-gate: %s: git config %s%s%s: Permission denied", shown,
			 key[0] ? key : "", key[0] ? " refused, " : "", why);

	if (n <= 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* the key and the path are the sandbox's bytes: one line, always */
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	line[n++] = '\n';
	/* init never blocks: a line that cannot go now is dropped (the
	 * command still gets its EACCES) */
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT))
		(void)!write(STDERR_FILENO, line, (size_t)n);
}

/* The regular file dir/name, parsed. -ENOENT: none. */
static int read_config(int dir, const char *name, struct stat *ret_st, struct git_config *ret)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	if (fd < 0)
		return errno == ELOOP ? -EACCES : -errno;
	if (fstat(fd, ret_st) < 0)
		return -errno;
	if (!S_ISREG(ret_st->st_mode))
		return -EACCES;
	if ((size_t)ret_st->st_size > GIT_CONFIG_PARSE_MAX_BYTES)
		return -EFBIG;
	r = read_fd_capped(fd, GIT_CONFIG_PARSE_MAX_BYTES, &text, &len);
	if (r < 0)
		return r;
	return git_config_parse(text, len, ret);
}

/* text as a new file dir/name, replacing what is there: made unnamed
 * (O_TMPFILE), named by linkat, renamed into place. */
static int write_replace(int dir, const char *name, const char *text, size_t len, mode_t mode, unsigned flags)
{
	_cleanup_close_ int fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	char proc[64], tmp[64];
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0)
		return -errno;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (unsigned i = 0;; i++) {
		snprintf(tmp, sizeof(tmp), ".cordon-config.%d.%u", (int)getpid(), i);
		if (linkat(AT_FDCWD, proc, dir, tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		if (errno != EEXIST || i > 100)
			return -errno;
	}
	if (syscall(SYS_renameat2, dir, tmp, dir, name, flags & RENAME_NOREPLACE) < 0) {
		r = -errno;
		(void)unlinkat(dir, tmp, 0);
	}
	return r;
}

static int install(int odir, const char *oname, int ndir, const char *nname, unsigned flags, const char *shown,
		   bool self)
{
	struct git_config cand = {}, cur = {};
	struct stat st, cst, dst;
	_cleanup_free_ char *text = NULL;
	const char *why = NULL;
	char key[256] = "";
	size_t len = 0;
	int r, rc;

	r = read_config(odir, oname, &st, &cand);
	if (r == -ENOENT)
		return r;
	if (r < 0) {
		say_refused(shown, "", r == -EFBIG ? "too large" : r == -EINVAL ? "not git's config syntax"
										 : "not a regular file");
		return r == -ENOMEM ? r : -EACCES;
	}
	/* a rename never crosses file systems */
	if (fstat(ndir, &dst) < 0) {
		r = -errno;
		goto out;
	}
	if (dst.st_dev != st.st_dev) {
		r = -EXDEV;
		goto out;
	}
	/* re-installed in place: it is its own candidate, nothing to carry over */
	rc = self ? -ENOENT : read_config(ndir, nname, &cst, &cur);
	if (rc == 0 && (flags & RENAME_NOREPLACE)) {
		r = -EEXIST;
		goto out;
	}
	if (rc < 0 && rc != -ENOENT) {
		say_refused(shown, "", "the config it would replace is not git's config syntax");
		r = -EACCES;
		goto out;
	}
	r = git_config_check(&cand, rc == 0 ? &cur : NULL, key, sizeof(key), &why);
	if (r < 0) {
		say_refused(shown, key, why);
		r = -EACCES;
		goto out;
	}
	r = git_config_serialise(&cand, &text, &len);
	if (r < 0) {
		if (r == -EINVAL)
			say_refused(shown, "", "a section name git could not read back");
		r = r == -EINVAL ? -EACCES : r;
		goto out;
	}
	r = write_replace(ndir, nname, text, len, st.st_mode & 0666, flags);
	/* the candidate's name goes, as with the rename asked for */
	if (r == 0 && !self)
		(void)unlinkat(odir, oname, 0);
out:
	git_config_clear(&cand);
	git_config_clear(&cur);
	return r;
}

int gate_git_install(int odir, const char *oname, int ndir, const char *nname, unsigned flags, const char *shown)
{
	if (flags & ~(unsigned)RENAME_NOREPLACE)
		return -EINVAL;
	return install(odir, oname, ndir, nname, flags, shown, false);
}

/* Anything in dir/name (a directory)? -1: cannot tell. */
static int dir_has_entries(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int n = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			n = 1;
			break;
		}
	closedir(d);
	return n;
}

bool gate_git_marks(const char *name)
{
	return strcmp(name, "HEAD") == 0 || strcmp(name, "objects") == 0 || strcmp(name, "refs") == 0 ||
	       strcmp(name, "commondir") == 0;
}

int gate_git_making(const struct gate_rules *g, int dir, const char *name, const char *path)
{
	static const char *const marks[] = { "HEAD", "objects", "refs" };
	bool has[3];
	size_t which = 3;
	struct stat st;
	char shown[4096];
	int r;

	if (!g->git || gate_rules_root(g, path, &(const char *){ NULL }) < 0)
		return 0;
	if (strcmp(name, "commondir") == 0)
		return -EACCES; /* inside a .git the rule by name refuses it already */
	for (size_t i = 0; i < 3; i++) {
		has[i] = fstatat(dir, marks[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (strcmp(name, marks[i]) == 0)
			which = i;
	}
	if (which == 3 || has[which])
		return 0;
	has[which] = true;
	if (!(has[0] && has[1] && has[2]))
		return 0;
	/* dir becomes a repository git finds: settle what it holds */
	if (fstatat(dir, "gitdir", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    fstatat(dir, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0 || dir_has_entries(dir, "hooks") != 0)
		return -EACCES;
	for (size_t i = 0; i < 2; i++) {
		const char *cfg = i == 0 ? "config" : "config.worktree";

		snprintf(shown, sizeof(shown), "%.*s/%s", (int)(strrchr(path, '/') ? strrchr(path, '/') - path : 0),
			 path, cfg);
		r = install(dir, cfg, dir, cfg, 0, shown, true);
		if (r < 0 && r != -ENOENT)
			return r == -ENOMEM ? r : -EACCES;
	}
	return 0;
}
