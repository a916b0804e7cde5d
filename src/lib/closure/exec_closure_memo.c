/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The execute-closure's memo: directories, paths and files by identity,
 * each looked at once. Below both the walk (exec_closure.c) and the
 * dynamic loader's rules (exec_closure_ld.c), and calls neither.
 *
 * Cost model: a path is resolved once (one lstat per component that is not
 * a memoised directory, plus readlink for a symlink); a file is opened and
 * parsed once per identity (st_dev, st_ino) — a second path to a known file
 * (a hard link) is recognised from its lstat without opening it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "exec_closure_memo.h"
#include "shebang.h"

struct file_id {
	dev_t dev;
	ino_t ino;
};

/* ---- strset -------------------------------------------------------------- */

int strset_add(struct strset *s, const char *str)
{
	size_t len = strlen(str);
	char *dup;
	int r;

	if (hashmap_find(&s->index, str, len))
		return 0;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **v = reallocarray(s->v, cap, sizeof(char *));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	dup = strdup(str);
	if (!dup)
		return -ENOMEM;
	r = hashmap_put(&s->index, str, len, dup);
	if (r < 0) {
		free(dup);
		return r;
	}
	s->v[s->n++] = dup;
	s->v[s->n] = NULL;
	return 1;
}

int strset_addf(struct strset *s, const char *fmt, ...)
{
	_cleanup_free_ char *str = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	return strset_add(s, str);
}

void strset_done(struct strset *s)
{
	hashmap_clear(&s->index, NULL); /* the values are s->v's strings */
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strset){};
}

/* ---- memo: directories, paths, identities ------------------------------- */

int closure_canonical_dir(struct exec_closure *c, const char *dir, const char **ret, struct cordon_error *reterr)
{
	struct hashmap_entry *e = hashmap_find(&c->dirs, dir, strlen(dir));
	char *canonical = NULL;
	int r;

	if (e) {
		c->stats.resolve_hits++;
		*ret = e->value;
		return 0;
	}
	c->stats.resolves++;
	/* A directory that cannot be resolved (loop, too long, no access)
	 * holds nothing the loader could find either. */
	r = canonicalize_n(dir, strlen(dir), &canonical, NULL);
	if (r == -ENOMEM)
		return r;
	r = hashmap_put(&c->dirs, dir, strlen(dir), canonical);
	if (r < 0) {
		free(canonical);
		return r;
	}
	*ret = canonical;
	return 0;
}

bool closure_is_dir(struct exec_closure *c, const char *path)
{
	struct hashmap_entry *e = hashmap_find(&c->dir_exists, path, strlen(path));
	struct stat st;
	bool is_dir;

	if (e)
		return e->value == (void *)1;
	is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	/* out of memory: not memoised, asked again next time */
	(void)hashmap_put(&c->dir_exists, path, strlen(path), is_dir ? (void *)1 : (void *)2);
	return is_dir;
}

static void resolved_free(void *p)
{
	struct resolved *r = p;

	if (r)
		free(r->canonical);
	free(r);
}

static int resolve(struct exec_closure *c, const char *path, unsigned hops, const struct resolved **ret);

/* Resolve the last component of path below its (memoised) directory. */
static int resolve_new(struct exec_closure *c, const char *path, unsigned hops, struct resolved *res)
{
	const char *slash = strrchr(path, '/'), *base = slash + 1, *dir_canonical;
	_cleanup_free_ char *dir = NULL, *full = NULL, *next = NULL;
	char target[PATH_MAX];
	const struct resolved *sub;
	struct stat st;
	ssize_t len;
	int r;

	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		/* "/a/b/.." and the like: the whole path is a directory */
		r = canonicalize_n(path, strlen(path), &full, NULL);
		if (r == -ENOMEM)
			return r;
		if (r < 0 || stat(full, &st) < 0) {
			res->error = r < 0 ? r : -errno;
			return 0;
		}
		res->canonical = TAKE_PTR(full);
		res->dev = st.st_dev;
		res->ino = st.st_ino;
		res->mode = st.st_mode;
		return 0;
	}

	dir = path_dirname(path);
	if (!dir)
		return -ENOMEM;
	r = closure_canonical_dir(c, dir, &dir_canonical, NULL);
	if (r < 0)
		return r;
	if (!dir_canonical) {
		res->error = -ENOENT;
		return 0;
	}
	full = path_join(dir_canonical, base);
	if (!full)
		return -ENOMEM;
	if (strlen(full) >= PATH_MAX) {
		res->error = -ENAMETOOLONG;
		return 0;
	}
	if (lstat(full, &st) < 0) {
		res->error = -errno;
		return 0;
	}
	if (!S_ISLNK(st.st_mode)) {
		res->canonical = TAKE_PTR(full);
		res->dev = st.st_dev;
		res->ino = st.st_ino;
		res->mode = st.st_mode;
		return 0;
	}

	if (hops >= CANON_MAX_SYMLINKS) {
		res->error = -ELOOP;
		return 0;
	}
	len = readlink(full, target, sizeof(target) - 1);
	if (len < 0 || (size_t)len >= sizeof(target) - 1 || len == 0) {
		res->error = len < 0 ? -errno : -ENAMETOOLONG;
		return 0;
	}
	target[len] = '\0';
	next = target[0] == '/' ? strdup(target) : path_join(dir_canonical, target);
	if (!next)
		return -ENOMEM;
	r = resolve(c, next, hops + 1, &sub);
	if (r == -ELOOP) {
		res->error = r;
		return 0;
	}
	if (r < 0)
		return r;
	*res = *sub;
	if (sub->canonical && !(res->canonical = strdup(sub->canonical)))
		return -ENOMEM;
	return 0;
}

static int resolve(struct exec_closure *c, const char *path, unsigned hops, const struct resolved **ret)
{
	struct hashmap_entry *e = hashmap_find(&c->resolved, path, strlen(path));
	struct resolved *res;
	int r;

	if (e) {
		c->stats.resolve_hits++;
		*ret = e->value;
		return 0;
	}
	c->stats.resolves++;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	r = resolve_new(c, path, hops, res);
	/* Too many links counts from where the walk began: only that answer
	 * is memoised, not the intermediate paths' (reached with fewer hops
	 * left, they may resolve from elsewhere). */
	if (r >= 0 && res->error == -ELOOP && hops > 0)
		r = -ELOOP;
	if (r >= 0)
		r = hashmap_put(&c->resolved, path, strlen(path), res);
	if (r == -EEXIST) {
		/* answered meanwhile, deeper in the same walk: keep that */
		resolved_free(res);
		*ret = hashmap_get(&c->resolved, path);
		return 0;
	}
	if (r < 0) {
		resolved_free(res);
		return r;
	}
	*ret = res;
	return 0;
}

int closure_resolve(struct exec_closure *c, const char *path, const struct resolved **ret)
{
	return resolve(c, path, 0, ret);
}

int closure_canonical_path(struct exec_closure *c, const char *path, const char **ret)
{
	const struct resolved *res;
	int r = resolve(c, path, 0, &res);

	if (r < 0)
		return r;
	*ret = res->canonical;
	return 0;
}

static void object_free(void *p)
{
	struct object *o = p;

	if (!o)
		return;
	free(o->path);
	elf_info_free(o->elf);
	free(o->interp);
	free(o->interp_arg);
	free(o->reason);
	free(o);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct object *, object_free);

static int read_head(struct exec_closure *c, int fd, uint8_t *head, size_t want)
{
	size_t done = 0;

	c->stats.reads++;
	while (done < want) {
		ssize_t got = pread(fd, head + done, want - done, (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EIO; /* shrank since fstat */
		done += (size_t)got;
	}
	return 0;
}

/* Classify and parse the open file; kind OBJECT_BAD carries the reason. */
static int object_parse(struct exec_closure *c, int fd, const struct stat *st, struct object *obj)
{
	uint8_t head[ELF_HEAD_SIZE] = {};
	size_t head_len = (uint64_t)st->st_size < sizeof(head) ? (size_t)st->st_size : sizeof(head);
	struct cordon_error err = {};
	int r;

	r = read_head(c, fd, head, head_len);
	if (r < 0) {
		obj->kind = OBJECT_BAD;
		obj->error = r;
		obj->reason = strdup(strerror(-r));
		return obj->reason ? 0 : -ENOMEM;
	}
	if (elf_has_magic(head, head_len)) {
		struct elf_source src = { .fd = fd, .size = (uint64_t)st->st_size, .head = head, .head_len = head_len };

		c->stats.elf_parses++;
		r = elf_read_info(&src, &obj->elf, &err);
		if (r == -ENOMEM)
			return r;
		if (r >= 0) {
			c->stats.reads += obj->elf->reads;
			obj->kind = OBJECT_ELF;
			return 0;
		}
	} else if (head_len >= 2 && head[0] == '#' && head[1] == '!') {
		c->stats.script_parses++;
		r = shebang_parse((const char *)head, head_len, &obj->interp, &obj->interp_arg, &err);
		if (r == -ENOMEM)
			return r;
		if (r > 0) {
			obj->kind = OBJECT_SCRIPT;
			return 0;
		}
	} else {
		obj->kind = OBJECT_OTHER;
		return 0;
	}
	obj->kind = OBJECT_BAD;
	obj->error = r;
	obj->reason = strdup(err.message[0] ? err.message : strerror(-r));
	return obj->reason ? 0 : -ENOMEM;
}

static int object_open(struct exec_closure *c, const char *canonical, const struct resolved *res,
		       struct object **ret)
{
	_cleanup_(object_freep) struct object *obj = NULL;
	_cleanup_close_ int fd = -1;
	struct file_id id;
	struct stat st;
	int r;

	/* O_NOFOLLOW: the path was resolved; a symlink planted since is not
	 * followed. O_NONBLOCK: a FIFO swapped in cannot hang us. */
	fd = open(canonical, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	c->stats.opens++;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*ret = NULL;
		return 0;
	}
	/* Replaced since the lstat: the file we hold is the one that counts. */
	id = (struct file_id){ .dev = st.st_dev, .ino = st.st_ino };
	if (st.st_dev != res->dev || st.st_ino != res->ino) {
		struct hashmap_entry *e = hashmap_find(&c->by_id, &id, sizeof(id));
		if (e) {
			*ret = e->value;
			return 0;
		}
	}

	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	obj->path = strdup(canonical);
	if (!obj->path)
		return -ENOMEM;
	obj->dev = st.st_dev;
	obj->ino = st.st_ino;
	r = object_parse(c, fd, &st, obj);
	if (r < 0)
		return r;
	r = hashmap_put(&c->by_id, &id, sizeof(id), obj);
	if (r < 0)
		return r;
	c->stats.unique_objects++;
	*ret = TAKE_PTR(obj);
	return 0;
}

int closure_object_at(struct exec_closure *c, const char *path, struct object **ret_obj, const char **ret_canonical,
		      struct cordon_error *reterr)
{
	const struct resolved *res;
	struct hashmap_entry *e;
	struct object *obj = NULL;
	struct file_id id;
	int r;

	r = resolve(c, path, 0, &res);
	if (r < 0)
		return r;
	if (!res->canonical || !S_ISREG(res->mode))
		goto done;

	e = hashmap_find(&c->by_path, res->canonical, strlen(res->canonical));
	if (e) {
		obj = e->value;
		goto done;
	}
	id = (struct file_id){ .dev = res->dev, .ino = res->ino };
	e = hashmap_find(&c->by_id, &id, sizeof(id));
	if (e) {
		c->stats.identity_hits++;
		obj = e->value;
	} else {
		r = object_open(c, res->canonical, res, &obj);
		if (r < 0)
			return r;
		if (!obj)
			goto done;
	}
	r = hashmap_put(&c->by_path, res->canonical, strlen(res->canonical), obj);
	if (r < 0)
		return r;
done:
	*ret_obj = obj;
	*ret_canonical = res->canonical;
	return 0;
}

const struct ldcache *closure_ldcache(struct exec_closure *c)
{
	if (!c->ldcache_tried) {
		c->ldcache_tried = true;
		c->stats.ldcache_loads++;
		c->stats.opens++;
		c->stats.reads++;
		/* Unreadable or malformed: the loader then ignores it too and
		 * searches the system directories. */
		(void)ldcache_load(LDCACHE_PATH, &c->ldcache, NULL);
	}
	return c->ldcache;
}

int closure_object_error(const struct object *obj, const char *who, struct cordon_error *reterr)
{
	int r;

	if (who && *who)
		r = error_set(reterr, obj->error, "'%s' (needed by %s): %s", obj->path, who, obj->reason);
	else
		r = error_set(reterr, obj->error, "'%s': %s", obj->path, obj->reason);
	if (reterr)
		snprintf(reterr->file, sizeof(reterr->file), "%s", obj->path);
	return r;
}

void closure_memo_done(struct exec_closure *c)
{
	hashmap_clear(&c->dirs, free);
	hashmap_clear(&c->resolved, resolved_free);
	hashmap_clear(&c->dir_exists, NULL);
	hashmap_clear(&c->by_path, NULL);
	hashmap_clear(&c->by_id, object_free);
	ldcache_free(c->ldcache);
	c->ldcache = NULL;
}
