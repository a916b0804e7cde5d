/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --protect, resolved by init before the mounts are made (it is in the new
 * mount namespace then, which still shows the host's tree): what to bind
 * read-only, and what the creation gate refuses to make.
 *
 *   - It exists: the path itself is bound read-only (mount.c).
 *   - It does not: nothing can be mounted on a name that does not exist,
 *     and nothing is made on the host to stand for it (a placeholder would
 *     be visible to the host, outlive a SIGKILL of cordon and break a host
 *     `git init`). Instead its deepest existing ancestor A and the next
 *     component C are recorded, and the creation gate (create_gate.h)
 *     refuses to make C in A, by any call, through any path.
 *   - PREFIX*: every existing entry with that prefix is bound; no new name
 *     with the prefix can be made in the directory.
 *
 * The runner makes nothing on the host, so there is nothing to clean up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "dirlist.h"
#include "path.h"
#include "protect_names.h"
#include "runner.h"

#define MAX_TARGETS (4 * EXEC_MAX_LIST)
#define MAX_SYMLINK_HOPS 8

/* The longest --write root holding path, or NULL. */
static const char *root_of(const struct plan *p, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; p->write[i]; i++)
		if (path_is_under(path, p->write[i]) && (!best || strlen(p->write[i]) > strlen(best)))
			best = p->write[i];
	return best;
}

/* Below the private tmpfs and not bound back: gone with the sandbox, so
 * there is nothing worth protecting. */
static bool ephemeral(const struct plan *p, const char *path)
{
	if (!p->private_tmp || (!path_is_under(path, "/tmp") && !path_is_under(path, "/dev/shm")))
		return false;
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].kind == STEP_BIND_BACK && p->steps[i].len < PATH_MAX) {
			char b[PATH_MAX];

			memcpy(b, p->steps[i].path, p->steps[i].len);
			b[p->steps[i].len] = '\0';
			if (path_is_under(path, b))
				return false;
		}
	return true;
}

/* An existing protected path is bound by its canonical path: a symlink
 * it is, or one on its way, leads where the bind by path once followed
 * it, and mount.c resolves that path with no symlink on the way, so a
 * directory swapped for one since is refused there, never followed. */
static int add_target(struct exec_ctx *x, size_t step, const char *path)
{
	char *c;

	if (x->n_targets >= MAX_TARGETS)
		return -E2BIG;
	/* grown by doubling: a workspace has a few existing protected
	 * paths, and a table for the most (64 KiB) cost a page fault a
	 * page in init */
	if ((x->n_targets & (x->n_targets - 1)) == 0 && x->n_targets >= 8) {
		struct protect_target *grown = reallocarray(x->targets, 2 * x->n_targets, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		x->targets = grown;
	}
	c = realpath(path, NULL);
	if (!c)
		return -errno;
	x->targets[x->n_targets++] = (struct protect_target){ .step = step, .path = c };
	return 0;
}

/* The missing component path[0..k) of a protected path: never made. */
static int refuse_creation(struct exec_ctx *x, const char *path, size_t k)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	size_t slash = k;
	int r;

	while (slash > 0 && path[slash - 1] != '/')
		slash--;
	if (slash == 0 || k - slash > NAME_MAX)
		return -EINVAL;
	memcpy(dir, path, slash);
	dir[slash > 1 ? slash - 1 : 1] = '\0';
	memcpy(name, path + slash, k - slash);
	name[k - slash] = '\0';
	r = create_set_add(&x->create, dir, name, false);
	return r == -ENOENT || r == -ENOTDIR || r == -EACCES ? 0 : r; /* gone meanwhile: nothing can be made there */
}

/* Most protected paths are names right below a writable root (.claude,
 * .vscode, .npmrc, .git/hooks, .cordon*...), and most are missing. The
 * root is listed once instead of looked up name by name: a path whose
 * first component below the root is not among its entries is missing
 * without an lstat of its own, and a PREFIX* in the root that no entry
 * starts with needs no listing of its own. A root holding more than
 * LISTED_MAX entries is not listed (the lookups cost less). */
#define LISTED_MAX 512

struct listed_name {
	size_t step;
	const char *name;       /* the first component below the root, unterminated */
	size_t len;
	bool prefix;            /* PREFIX* right in the root: name[0..len-1) */
};

struct protect_listing {
	const struct listed_name *v;
	size_t n;
	bool *absent;           /* per plan step: nothing of it below the root (yet) */
	size_t n_entries;
};

/* step i's first component below root, when it is a protected path
 * strictly below that root (its longest writable root) */
static bool first_below(const struct plan *p, size_t i, const char *root, size_t rl, struct listed_name *ret)
{
	const struct step *s = &p->steps[i];
	const char *c;
	size_t len;

	if (s->kind != STEP_PROTECT || s->len <= rl + (rl > 1) || strncmp(s->path, root, rl) != 0 ||
	    (rl > 1 && s->path[rl] != '/') || root_of(p, s->path) != root)
		return false;
	c = path_first_below(s->path, rl, &len);
	*ret = (struct listed_name){ .step = i, .name = c, .len = len,
				     .prefix = c[len - 1] == '*' && c + len == s->path + s->len };
	return true;
}

static int listed_entry(const char *name, unsigned char type, void *data)
{
	struct protect_listing *l = data;
	size_t n = strlen(name);

	if (++l->n_entries > LISTED_MAX)
		return -E2BIG;
	for (size_t k = 0; k < l->n; k++) {
		const struct listed_name *c = &l->v[k];

		if (!l->absent[c->step])
			continue;
		if (c->prefix)
			l->absent[c->step] = strncmp(name, c->name, c->len - 1) != 0;
		else
			l->absent[c->step] = n != c->len || memcmp(name, c->name, n) != 0;
	}
	return 0;
}

/* absent[i]: step i is a protected path the listing of its writable root
 * shows missing (its first component below the root is not there), or a
 * PREFIX* in that root no entry starts with. */
static int list_roots(const struct plan *p, bool *absent)
{
	_cleanup_free_ struct listed_name *v = calloc(p->n_steps ? p->n_steps : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t w = 0; p->write[w]; w++) {
		struct protect_listing l = { .v = v, .absent = absent };
		size_t rl = strlen(p->write[w]);

		if (ephemeral(p, p->write[w]))
			continue;
		for (size_t i = 0; i < p->n_steps; i++)
			if (first_below(p, i, p->write[w], rl, &v[l.n]))
				absent[v[l.n++].step] = true;
		/* worth a listing for a few names; a root not listed (missing,
		 * too big, unreadable) tells nothing */
		if (l.n >= 4 && dirlist_path(p->write[w], O_NOFOLLOW, listed_entry, &l) == 0)
			continue;
		for (size_t k = 0; k < l.n; k++)
			absent[v[k].step] = false;
	}
	return 0;
}

/* Resolve one protected path (no '*'). */
static int resolve_one(struct exec_ctx *x, size_t step, const char *path, unsigned hops, bool absent)
{
	const struct plan *p = x->plan;
	const char *root = root_of(p, path);
	char prefix[PATH_MAX];
	struct stat st;
	size_t n = strlen(path), first;
	const char *below;
	int r;

	if (!root || ephemeral(p, path))
		return 0;
	if (n >= sizeof(prefix))
		return -ENAMETOOLONG;

	below = path_first_below(path, strlen(root), &first);
	if (absent) {
		/* its root's listing has no first component for it: missing */
		size_t k = (size_t)(below - path) + first;

		if (k < n && p->protect_git && protect_match_git(below))
			return 0;
		return refuse_creation(x, path, k);
	}
	if (lstat(path, &st) == 0) {
		/* a repository's config is replaced only by the gate's own
		 * validated copy (gate_git.h): a read-only mount on it would
		 * make that rename fail (EBUSY); every write is decided by
		 * name at each call */
		if (p->protect_git && protect_git_config_name(below))
			return 0;
		if (S_ISLNK(st.st_mode) && stat(path, &st) < 0)
			return errno == ENOENT ? -ELOOP : -errno; /* dangling: cannot bind it */
		return add_target(x, step, path);
	}
	if (errno == ENOTDIR || errno == EACCES)
		return 0; /* below a file, or out of reach: it cannot be created there either */
	if (errno != ENOENT)
		return -errno;

	/* Walk down from the root to the first missing component. */
	memcpy(prefix, path, n + 1);
	for (size_t k = (size_t)(below - path); k <= n; k++) {
		if (k != n && path[k] != '/')
			continue;
		prefix[k] = '\0';
		/* the whole path was just found missing: not asked again */
		if (k == n)
			return refuse_creation(x, path, k);
		if (lstat(prefix, &st) == 0) {
			if (S_ISLNK(st.st_mode)) {
				/* Follow it only into a writable root: elsewhere nothing can be made. */
				char *real = realpath(prefix, NULL), joined[PATH_MAX];

				if (!real || !root_of(p, real) || hops >= MAX_SYMLINK_HOPS) {
					free(real);
					return 0;
				}
				r = snprintf(joined, sizeof(joined), "%s%s", real, path + k);
				free(real);
				if (r < 0 || (size_t)r >= sizeof(joined))
					return -ENAMETOOLONG;
				return resolve_one(x, step, joined, hops + 1, false);
			}
			if (!S_ISDIR(st.st_mode))
				return 0;
			prefix[k] = path[k];
			continue;
		}
		if (errno != ENOENT)
			return errno == EACCES || errno == ENOTDIR ? 0 : -errno;
		/* git's code entries are decided by name at each call, which
		 * lets a .git be made and a validated config be installed
		 * (gate_git.h); everything in them stays refused there */
		if (p->protect_git && protect_match_git(below))
			return 0;
		return refuse_creation(x, path, k);
	}
	return 0;
}

/* PREFIX*: the existing entries of the parent that start with PREFIX
 * (absent: its root's listing had none). */
static int resolve_prefix(struct exec_ctx *x, size_t step, const char *pattern, bool absent)
{
	const char *slash = strrchr(pattern, '/');
	size_t dl = (size_t)(slash - pattern), pl = strlen(slash + 1) - 1;
	char dir[PATH_MAX], entry[PATH_MAX];
	DIR *d;
	int r = 0;

	if (dl >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, pattern, dl);
	dir[dl ? dl : 1] = '\0';
	if (dl == 0)
		dir[0] = '/';
	if (root_of(x->plan, dir) && !ephemeral(x->plan, dir) && pl <= NAME_MAX) {
		char name[NAME_MAX + 1];

		/* no new name with the prefix in this directory */
		memcpy(name, slash + 1, pl);
		name[pl] = '\0';
		r = create_set_add(&x->create, dir, name, true);
		if (r < 0 && r != -ENOENT && r != -ENOTDIR && r != -EACCES)
			return r;
		r = 0;
	}
	if (absent)
		return 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
	for (struct dirent *de; (de = readdir(d));) {
		if (strncmp(de->d_name, slash + 1, pl) != 0 || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(entry, sizeof(entry), "%s/%s", dl ? dir : "", de->d_name) >= sizeof(entry)) {
			r = -ENAMETOOLONG;
			break;
		}
		r = resolve_one(x, step, entry, 0, false);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int protect_prepare(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	_cleanup_free_ bool *absent = NULL;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < p->n_steps; i++)
		n += p->steps[i].kind == STEP_PROTECT;
	/* which protected paths are missing, from one listing of their root */
	if (n > 0) {
		absent = calloc(p->n_steps, sizeof(*absent));
		if (!absent || list_roots(p, absent) < 0)
			return -ENOMEM;
	}
	/* the write gate's rules by name: from the plan alone, before the
	 * mounts (the roots' inodes are the host's) */
	r = gate_rules_init(&x->create.names, p, ephemeral, absent);
	if (r < 0) {
		exec_say("protect", "cannot build the write gate's rules: %s", strerror(-r));
		return r;
	}
	if (n == 0)
		return 0;
	x->targets = calloc(8, sizeof(*x->targets));
	if (!x->targets)
		return -ENOMEM;

	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i];
		char path[PATH_MAX];

		if (s->kind != STEP_PROTECT)
			continue;
		if (s->len >= sizeof(path))
			return -ENAMETOOLONG;
		memcpy(path, s->path, s->len);
		path[s->len] = '\0';
		r = path[s->len - 1] == '*' ? resolve_prefix(x, i, path, absent[i]) : resolve_one(x, i, path, 0, absent[i]);
		if (r < 0) {
			exec_say("protect", "%s: %s", path,
			    r == -ELOOP ? "a dangling symlink cannot be kept read-only" : strerror(-r));
			return r;
		}
	}
	return 0;
}
