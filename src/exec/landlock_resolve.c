/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The paths a Landlock ruleset withholds rights from (deny_read: every
 * right; deny_exec: EXECUTE), canonical, as landlock.c walks towards them.
 * A path that does not exist is its canonical parent joined with its name:
 * the parent is walked, so whatever appears there later gets no rule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "canon.h"
#include "cleanup.h"
#include "errbuf.h"
#include "landlock_internal.h"

/* A denied path that does not exist: the canonical parent (it exists)
 * joined with its name. -ENOENT when the parent is missing too (then the
 * policy named a shorter path for it), -ENOTDIR below a file. */
static int resolve_absent(const char *path, char **ret)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *parent = NULL, *canon = NULL;
	char *joined;

	if (!slash || slash[1] == '\0')
		return -ENOENT;
	parent = path_dirname(path);
	if (!parent)
		return -ENOMEM;
	canon = realpath(parent, NULL);
	if (!canon)
		return -errno;
	if (asprintf(&joined, "%s%s%s", canon, strcmp(canon, "/") == 0 ? "" : "/", slash + 1) < 0)
		return -ENOMEM;
	*ret = joined;
	return 0;
}

/* Resolving every denied path with realpath(3) costs a lstat and a
 * readlink per component: with the credential catalogue that was a
 * thousand syscalls a launch. The paths share a few parents (HOME,
 * ~/.config, ...): each directory is made canonical once, from its own
 * parent's canonical form and one lstat of its last component (realpath
 * only where that is a symlink), and the entry itself is looked at with
 * one lstat (realpath only when it is a symlink). */
#define PARENT_CACHE_MAX 256

struct parent_cache {
	size_t n;
	struct {
		char *raw;      /* the directory as written */
		char *canon;    /* realpath of it, or NULL */
		int err;        /* why not (-errno) */
	} v[PARENT_CACHE_MAX];
};

static void parent_cache_done(struct parent_cache *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		free(pc->v[i].raw);
		free(pc->v[i].canon);
	}
	pc->n = 0;
}

/* An empty, "." or ".." component in path[0..len): realpath's business. */
static bool has_dots(const char *path, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && (i + 1 == len || path[i + 1] == '/' ||
				       (path[i + 1] == '.' && (i + 2 == len || path[i + 2] == '/' ||
							      (path[i + 2] == '.' && (i + 3 == len || path[i + 3] == '/'))))))
			return true;
	return false;
}

/* path[0..len) (absolute) made canonical as realpath(3) would, memoised:
 * its parent's canonical form (memoised too) and one lstat of its last
 * component, followed by realpath only when that is a symlink. */
static int canon_dir(struct parent_cache *pc, const char *path, size_t len, const char **ret)
{
	const char *parent = NULL, *slash;
	char *raw, *canon = NULL;
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < pc->n; i++)
		if (strlen(pc->v[i].raw) == len && strncmp(pc->v[i].raw, path, len) == 0) {
			*ret = pc->v[i].canon;
			return pc->v[i].err;
		}
	if (pc->n >= PARENT_CACHE_MAX)
		return -E2BIG; /* the caller resolves without the cache */
	raw = strndup(path, len);
	if (!raw)
		return -ENOMEM;
	if (len == 1 || has_dots(raw, len)) {
		canon = realpath(raw, NULL);
		err = canon ? 0 : -errno;
	} else {
		slash = memrchr(raw, '/', len);
		err = canon_dir(pc, raw, slash == raw ? 1 : (size_t)(slash - raw), &parent);
		if (err == -E2BIG || err == -ENOMEM) {
			free(raw);
			return err;
		}
		if (err == 0 && asprintf(&canon, "%s%s", strcmp(parent, "/") == 0 ? "" : parent, slash) < 0) {
			free(raw);
			return -ENOMEM;
		}
		if (err == 0 && lstat(canon, &st) < 0)
			err = -errno;
		else if (err == 0 && S_ISLNK(st.st_mode)) {
			char *real = realpath(canon, NULL);

			err = real ? 0 : -errno;
			free(canon);
			canon = real;
		}
		if (err < 0) {
			free(canon);
			canon = NULL;
		}
	}
	if (pc->n >= PARENT_CACHE_MAX) {
		/* the recursion filled it */
		free(raw);
		free(canon);
		return -E2BIG;
	}
	pc->v[pc->n].raw = raw;
	pc->v[pc->n].canon = canon;
	pc->v[pc->n].err = err;
	pc->n++;
	*ret = canon;
	return err;
}

/* The canonical parent of path (absolute), memoised; -errno if it has none. */
static int cached_parent(struct parent_cache *pc, const char *path, const char **ret)
{
	const char *slash = strrchr(path, '/');

	return canon_dir(pc, path, slash == path ? 1 : (size_t)(slash - path), ret);
}

/* A denied path resolved as realpath would (ENOENT: absent, then the
 * canonical parent joined with its name, as resolve_absent gives). */
static int resolve_cached(struct parent_cache *pc, const char *path, char **ret, bool *ret_absent,
			  struct stat *ret_st, bool *ret_have_st)
{
	const char *parent = NULL, *base = strrchr(path, '/') + 1;
	struct stat st;
	char *joined;
	int r;

	if (path[0] != '/' || !base[0] || strcmp(path, "/") == 0)
		return (*ret = realpath(path, NULL)) ? 0 : -errno;
	r = cached_parent(pc, path, &parent);
	if (r == -E2BIG) {
		/* realpath(3) as ever, then the absent case as resolve_absent */
		if ((*ret = realpath(path, NULL)))
			return 0;
		if (errno != ENOENT)
			return -errno;
		r = resolve_absent(path, ret);
		if (r == 0)
			*ret_absent = true;
		return r;
	}
	if (r < 0)
		return r;
	if (asprintf(&joined, "%s%s%s", parent, strcmp(parent, "/") == 0 ? "" : "/", base) < 0)
		return -ENOMEM;
	if (lstat(joined, &st) < 0) {
		r = -errno;
		if (r == -ENOENT) {
			*ret_absent = true;
			*ret = joined;
			return 0;
		}
		free(joined);
		return r;
	}
	if (S_ISLNK(st.st_mode)) {
		char *canon = realpath(joined, NULL);

		r = canon ? 0 : -errno;
		free(joined);
		if (r == -ENOENT)
			return resolve_absent(path, ret) == 0 ? (*ret_absent = true, 0) : -ENOENT;
		if (r < 0)
			return r;
		joined = canon;
	} else {
		/* the entry itself, not a link: what stat would say */
		*ret_st = st;
		*ret_have_st = true;
	}
	*ret = joined;
	return 0;
}

/* The writable roots, canonical: only the ones that exist. */
static char **canonical_roots(struct parent_cache *pc, const char *const *list)
{
	size_t n = 0, k = 0;
	char **v;

	while (list && list[n])
		n++;
	v = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++) {
		const char *c = NULL;
		int r = list[i][0] == '/' ? canon_dir(pc, list[i], strlen(list[i]), &c) : -E2BIG;

		if (r == -E2BIG || r == -ENOMEM)
			v[k] = realpath(list[i], NULL);
		else
			v[k] = r == 0 ? strdup(c) : NULL;
		if (v[k])
			k++;
	}
	return v;
}

static void roots_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static inline void roots_freep(char ***v)
{
	roots_free(*v);
}

bool denied_hides(const struct denied *d, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!d[i].exec_only && path_is_under(path, d[i].path))
			return true;
	return false;
}

void denied_free(struct denied *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		free(d[i].path);
	free(d);
}

struct denied_list {
	struct denied *v;
	size_t n, cap;
};

static int denied_push(struct denied_list *l, char *canon, bool is_dir, bool exec_only)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct denied *grown = reallocarray(l->v, cap, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n++] = (struct denied){ .path = canon, .is_dir = is_dir, .exec_only = exec_only };
	return 0;
}

/* A path the caller found absent (deny_absent): its canonical parent
 * joined with its name, without looking at the name itself; whatever is
 * there now is omitted as a store made later would be (a directory: the
 * stricter reading). */
static int resolve_said_absent(struct parent_cache *pc, const char *path, char **ret)
{
	const char *parent = NULL, *base = strrchr(path, '/');
	int r;

	if (path[0] != '/' || !base || !base[1])
		return -ENOENT;
	base++;
	r = cached_parent(pc, path, &parent);
	if (r == -E2BIG)
		return resolve_absent(path, ret);
	if (r < 0)
		return r;
	return asprintf(ret, "%s%s%s", parent, strcmp(parent, "/") == 0 ? "" : "/", base) < 0 ? -ENOMEM : 0;
}

/* Resolve one list into l. Absent deny_read paths below a writable root are
 * dropped (the root may create any name: nothing to omit there); an absent
 * deny_exec path is kept, so its parent is walked and a name made there
 * later gets no EXECUTE. */
static int resolve_list(struct parent_cache *pc, const char *const *list, bool exec_only, bool said_absent,
			const char *const *writable_list, char ***writable, struct denied_list *l, char *err,
			size_t errlen)
{
	for (size_t i = 0; list && list[i]; i++) {
		_cleanup_free_ char *canon = NULL;
		bool absent = said_absent, have_st = false;
		struct stat st;
		int r = said_absent ? resolve_said_absent(pc, list[i], &canon)
				    : resolve_cached(pc, list[i], &canon, &absent, &st, &have_st);

		/* EACCES: below a hidden directory (mode 000), out of the
		 * command's reach as much as ours */
		if (r == -ENOENT || r == -ENOTDIR || r == -EACCES)
			continue;
		if (r < 0)
			return errbuf_set(err, errlen, r, "landlock: cannot resolve %s path %s: %s",
					  exec_only ? "deny_exec" : "deny_read", list[i], strerror(-r));
		if (absent && !exec_only) {
			if (!*writable && !(*writable = canonical_roots(pc, writable_list)))
				return errbuf_set(err, errlen, -ENOMEM, "landlock: out of memory");
			if (path_under_any(canon, (const char *const *)*writable))
				continue;
		}
		if (absent)
			st.st_mode = S_IFDIR; /* unknown: the stricter reading */
		else if (!have_st && stat(canon, &st) < 0)
			return errbuf_set(err, errlen, -errno, "landlock: cannot stat %s path %s: %s",
					  exec_only ? "deny_exec" : "deny_read", list[i], strerror(errno));
		r = denied_push(l, canon, S_ISDIR(st.st_mode), exec_only);
		if (r < 0)
			return errbuf_set(err, errlen, r, "landlock: out of memory");
		canon = NULL;
	}
	return 0;
}

int landlock_resolve_denied(const struct landlock_rules *r, struct denied **ret, size_t *ret_n, char *err,
			    size_t errlen)
{
	_cleanup_(roots_freep) char **writable = NULL;
	struct parent_cache pc = {};
	struct denied_list l = {};
	int k;

	k = resolve_list(&pc, r->deny_read, false, false, r->writable, &writable, &l, err, errlen);
	if (k >= 0)
		k = resolve_list(&pc, r->deny_absent, false, true, r->writable, &writable, &l, err, errlen);
	if (k >= 0)
		k = resolve_list(&pc, r->deny_exec, true, false, r->writable, &writable, &l, err, errlen);
	parent_cache_done(&pc);
	if (k < 0) {
		denied_free(l.v, l.n);
		return k;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
