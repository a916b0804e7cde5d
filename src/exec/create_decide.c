/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's decisions (create_gate.h): whether a call that makes,
 * changes, moves or removes a name may go on, on the parent's inode
 * (create_set_add) and by name on the path as init sees it now
 * (gate_rules.h, gate_git.h). create_gate.c performs what is allowed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "create_decide.h"
#include "create_gate.h"
#include "gate_common.h"
#include "gate_git.h"
#include "gate_rules.h"
#include "gate_walk.h"
#include "runner.h"

/* The path of the name in the directory, as init (and so the caller) sees
 * it now. -ENOENT: the directory was removed meanwhile; 1: dir is no
 * place in the tree (a pipe /dev/stdout led to). */
static int path_of(int dir, const char *name, char *buf, size_t size)
{
	char self[64];
	size_t nl = strcspn(name, "/");
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", dir);
	n = readlink(self, buf, size - 1);
	if (n <= 0)
		return -EACCES; /* fail closed */
	buf[n] = '\0';
	if (buf[0] != '/')
		return 1; /* no name in the tree: a pipe, a socket, an anonymous inode */
	if ((size_t)n > 10 && strcmp(buf + n - 10, " (deleted)") == 0)
		return -ENOENT;
	if (!name[0] || (nl == 1 && name[0] == '.'))
		return 0;
	if ((size_t)n + 1 + nl + 1 > size)
		return -ENAMETOOLONG;
	if (n > 1)
		buf[n++] = '/';
	memcpy(buf + n, name, nl);
	buf[(size_t)n + nl] = '\0';
	return 0;
}

/* By name, on the path now (gate_rules.h): a write is refused at or below
 * what the write gate protects or hides, a read only at or below a hidden
 * path. holder: a rename, which would carry a protection along. */
int create_decide_path(const struct cop *c, int dir, const char *name, bool write, bool holder)
{
	const struct gate_rules *g = &c->set->names;
	char path[PATH_MAX];
	int r;

	if (write ? !gate_rules_active(g) : g->n_hides == 0)
		return 0;
	r = path_of(dir, name, path, sizeof(path));
	if (r != 0)
		return r < 0 ? r : 0;
	if (gate_rules_hidden(g, path) || (write && gate_rules_check(g, path, holder))) {
		status_denial("write-gate", write ? "write" : "read", path);
		return -EACCES;
	}
	return 0;
}

int create_decide_names(const struct cop *c, int dir, const char *name, bool holder)
{
	return create_decide_path(c, dir, name, true, holder);
}

/* The name's first component, made in dir: the last of HEAD, objects,
 * refs settles what dir holds first (gate_git.h). */
int create_decide_making(const struct cop *c, int dir, const char *name)
{
	char path[PATH_MAX], comp[NAME_MAX + 1];
	size_t n = strcspn(name, "/");
	int r;

	if (!c->set->names.git || n > NAME_MAX)
		return 0;
	memcpy(comp, name, n);
	comp[n] = '\0';
	if (!gate_git_marks(comp))
		return 0; /* every other creation: no look at the directory */
	r = path_of(dir, name, path, sizeof(path));
	if (r != 0)
		return r < 0 ? r : 0;
	return gate_git_making(&c->set->names, dir, comp, path);
}

/* mkdir .git, or a rename onto a git directory's config: allowed where
 * only git's rule by name refuses it (gate_rules_git_mkdir, _config). */
bool create_git_allows(const struct cop *c, int dir, const char *name, bool config, char *path, size_t size)
{
	if (!c->set->names.git || path_of(dir, name, path, size) != 0)
		return false;
	return config ? gate_rules_git_config(&c->set->names, path) : gate_rules_git_mkdir(&c->set->names, path);
}

/* A name removed or moved away (unlink, rmdir, the old name of a rename). */
int create_decide_removal(const struct cop *c, int dir, const char *name)
{
	const struct gate_rules *g = &c->set->names;
	char path[PATH_MAX];
	int r;

	if (!gate_rules_active(g))
		return 0;
	r = path_of(dir, name, path, sizeof(path));
	if (r != 0)
		return r < 0 ? r : 0;
	if (gate_rules_hidden(g, path) || gate_rules_check_removal(g, path)) {
		status_denial("write-gate", "write", path);
		return -EACCES;
	}
	return 0;
}

/* What a directory scan may cost before it gives up: past this the move is
 * answered EXDEV, which mv and the like meet by copying and removing, one
 * gated call at a time. */
#define HOLD_SCAN_MAX_ENTRIES 65536
#define HOLD_SCAN_MAX_DEPTH 64

/* Below path[0..len) (the directory fd, taken over): is anything the write
 * gate protects or hides there by name (a nested .git, sub/.vscode)? */
static int scan_holds(const struct gate_rules *g, int fd, char *path, size_t len, unsigned depth, size_t *budget)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (depth > HOLD_SCAN_MAX_DEPTH) {
		close(fd);
		return -EXDEV;
	}
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && (errno = 0, de = readdir(d))) {
		size_t n = strlen(de->d_name);
		bool dir = de->d_type == DT_DIR;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (*budget == 0 || len + 1 + n >= PATH_MAX) {
			r = -EXDEV;
			break;
		}
		(*budget)--;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		if (gate_rules_check_removal(g, path) || gate_rules_hidden(g, path)) {
			status_denial("write-gate", "write", path);
			r = -EACCES;
			break;
		}
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		}
		if (dir) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 ? -EACCES /* fail closed */ : scan_holds(g, sub, path, len + 1 + n, depth + 1, budget);
		}
		path[len] = '\0';
	}
	if (r == 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* A rename moves a directory with all it holds: refused when a protected or
 * hidden name is anywhere below it (the nested .git would vanish from where
 * the host looks for it). -EXDEV: too large to look through. */
int create_decide_holds(const struct cop *c, int dir, const char *name)
{
	const struct gate_rules *g = &c->set->names;
	char path[PATH_MAX];
	size_t budget = HOLD_SCAN_MAX_ENTRIES;
	int fd, r;

	if (!gate_rules_active(g))
		return 0;
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no directory there: nothing below it */
	r = path_of(fd, "", path, sizeof(path));
	if (r != 0) {
		close(fd);
		return r < 0 ? r : 0;
	}
	if (gate_rules_root(g, path, &(const char *){ NULL }) < 0) {
		close(fd);
		return 0; /* outside every writable root: read-only anyway */
	}
	return scan_holds(g, fd, path, strlen(path), 0, &budget);
}

/* May the name be made in the directory? Refused when (its inode, name) is
 * a missing protected path's first missing component. */
int create_decide(const struct cop *c, const struct resolved *r)
{
	size_t len = strcspn(r->name, "/");
	struct stat st;

	if (strcmp(r->name, ".") == 0 || strcmp(r->name, "..") == 0 || strcmp(r->name, "./") == 0 ||
	    strcmp(r->name, "../") == 0)
		return 0; /* names no new entry */
	if (fstat(r->dir, &st) < 0)
		return -errno; /* fail closed */
	for (size_t i = 0; i < c->set->n; i++) {
		const struct create_rule *rule = &c->set->v[i];
		size_t n = strlen(rule->name);

		if (rule->dev != st.st_dev || rule->ino != st.st_ino)
			continue;
		if (rule->prefix ? len >= n && strncmp(r->name, rule->name, n) == 0
				 : len == n && strncmp(r->name, rule->name, n) == 0) {
			char path[PATH_MAX];

			if (path_of(r->dir, r->name, path, sizeof(path)) == 0)
				status_denial("write-gate", "write", path);
			return -EACCES;
		}
	}
	return 0;
}

/* A file init opened for the caller through a magic link: its path now. */
int create_decide_fd(const struct cop *c, int fd)
{
	return create_decide_path(c, fd, "", true, false);
}
