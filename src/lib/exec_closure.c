/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The execute-closure: the memo (directories, paths, files by identity),
 * scripts and "#!/usr/bin/env", and the API. The dynamic loader's rules
 * live in exec_closure_ld.c.
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

#include "canon.h"
#include "cleanup.h"
#include "exec_closure_internal.h"
#include "provider.h"
#include "shebang.h"
#include "strv.h"

/* A path resolved: where it leads, or why nowhere. */
struct resolved {
	char *canonical; /* NULL: nothing there (error says why) */
	int error;
	dev_t dev;
	ino_t ino;
	mode_t mode;
};

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

	dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
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

/* ---- scripts and the walk ----------------------------------------------- */

struct walk {
	struct exec_closure *c;
	struct record *rec;
	const char *search_path;
	struct strset roots; /* files an execve started from (loops through env) */
	struct cordon_error *reterr;
};

static int exec_file(struct walk *w, const char *path, unsigned depth, const char *needed_by);

static bool is_env(const char *interp)
{
	const char *base = strrchr(interp, '/');

	return strcmp(base ? base + 1 : interp, "env") == 0;
}

/* NAME on the search path as execvp finds it: the first regular file with
 * an execute bit; empty and relative entries (the working directory, which
 * the closure cannot know) are skipped. */
static int search_program(struct walk *w, const char *name, const char **ret)
{
	const char *p = w->search_path, *found = NULL;

	while (*p && !found) {
		size_t n = strcspn(p, ":");
		_cleanup_free_ char *dir = strndup(p, n), *cand = NULL;
		const char *dir_canonical;
		const struct resolved *res;
		int r;

		p += n + (p[n] == ':');
		if (!dir)
			return -ENOMEM;
		if (dir[0] != '/')
			continue;
		r = closure_canonical_dir(w->c, dir, &dir_canonical, NULL);
		if (r < 0)
			return r;
		if (!dir_canonical)
			continue;
		cand = path_join(dir_canonical, name);
		if (!cand)
			return -ENOMEM;
		r = resolve(w->c, cand, 0, &res);
		if (r < 0)
			return r;
		if (res->canonical && S_ISREG(res->mode) && (res->mode & 0111))
			found = res->canonical;
	}
	*ret = found;
	return 0;
}

static int exec_env_program(struct walk *w, const struct object *script, const char *script_path)
{
	_cleanup_free_ char *name = NULL;
	struct cordon_error err = {};
	const char *found;
	int r;

	r = shebang_env_program(script->interp_arg, &name, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		r = error_set(w->reterr, r, "'%s': %s", script_path, err.message);
		if (w->reterr)
			snprintf(w->reterr->file, sizeof(w->reterr->file), "%s", script_path);
		return r;
	}
	if (strchr(name, '/')) {
		if (name[0] == '/')
			return exec_file(w, name, 0, script_path);
		r = strset_addf(&w->rec->missing, "%s (relative program of #!env in %s)", name, script_path);
		return r < 0 ? r : 0;
	}
	r = search_program(w, name, &found);
	if (r < 0)
		return r;
	if (found)
		return exec_file(w, found, 0, script_path);
	r = strset_addf(&w->rec->missing, "%s (not on the search path, for #!env in %s)", name, script_path);
	return r < 0 ? r : 0;
}

static int add_file(struct walk *w, const char *canonical)
{
	if (w->rec->files.n >= EXEC_CLOSURE_MAX_FILES && !hashmap_find(&w->rec->files.index, canonical, strlen(canonical)))
		return error_set(w->reterr, -E2BIG, "the closure holds more than %d files", EXEC_CLOSURE_MAX_FILES);
	return strset_add(&w->rec->files, canonical);
}

/* Add what executing path needs. depth: interpreters the kernel followed
 * to get here; needed_by: who named path (NULL: the caller added it). */
static int exec_file(struct walk *w, const char *path, unsigned depth, const char *needed_by)
{
	struct object *obj;
	const char *canonical;
	int r;

	r = closure_object_at(w->c, path, &obj, &canonical, w->reterr);
	if (r < 0)
		return r;
	if (!obj) {
		if (!needed_by && !canonical)
			return error_set(w->reterr, -ENOENT, "'%s' does not exist", path);
		if (!needed_by)
			return error_set(w->reterr, -EACCES, "'%s' is not a regular file", path);
		r = strset_addf(&w->rec->missing, "%s (needed by %s)", path, needed_by);
		return r < 0 ? r : 0;
	}
	if (depth == 0) {
		/* a new execve: a file seen before as a root is done */
		r = strset_add(&w->roots, canonical);
		if (r <= 0)
			return r;
	}
	r = add_file(w, canonical);
	if (r < 0)
		return r;

	switch (obj->kind) {
	case OBJECT_BAD:
		return closure_object_error(obj, needed_by, w->reterr);
	case OBJECT_OTHER:
		return 0;
	case OBJECT_ELF:
		return closure_elf_image(w->c, w->rec, obj, canonical, w->reterr);
	case OBJECT_SCRIPT:
		break;
	}

	if (depth + 1 > EXEC_CLOSURE_MAX_INTERP_DEPTH) {
		r = error_set(w->reterr, -ELOOP, "'%s': more than %d interpreters in a row (a loop of #! lines?)",
			      canonical, EXEC_CLOSURE_MAX_INTERP_DEPTH);
		if (w->reterr)
			snprintf(w->reterr->file, sizeof(w->reterr->file), "%s", canonical);
		return r;
	}
	if (obj->interp[0] != '/') {
		/* the kernel opens it relative to the working directory */
		r = strset_addf(&w->rec->missing, "%s (relative #! interpreter of %s)", obj->interp, canonical);
		return r < 0 ? r : 0;
	}
	r = exec_file(w, obj->interp, depth + 1, canonical);
	if (r < 0)
		return r;
	if (is_env(obj->interp))
		return exec_env_program(w, obj, canonical);
	return 0;
}

/* ---- records and the API ------------------------------------------------ */

static void record_free(void *p)
{
	struct record *rec = p;

	if (!rec)
		return;
	strset_done(&rec->files);
	strset_done(&rec->missing);
	free(rec);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct record *, record_free);

static int record_for(struct exec_closure *c, const char *path, const char *search_path, struct record **ret,
		      struct cordon_error *reterr)
{
	_cleanup_(record_freep) struct record *rec = NULL;
	_cleanup_free_ char *key = NULL;
	const struct resolved *res;
	struct hashmap_entry *e;
	struct walk w;
	size_t keylen;
	int r;

	c->stats.adds++;
	if (!path || path[0] != '/')
		return error_set(reterr, -EINVAL, "'%s' is not an absolute path", path ? path : "(null)");
	if (strlen(path) >= PATH_MAX)
		return error_set(reterr, -ENAMETOOLONG, "path is longer than %d bytes", PATH_MAX - 1);
	if (!search_path)
		search_path = EXEC_CLOSURE_DEFAULT_PATH;

	r = resolve(c, path, 0, &res);
	if (r < 0)
		return r;
	if (!res->canonical)
		return error_set(reterr, res->error ? res->error : -ENOENT, "'%s': %s", path,
				 strerror(res->error ? -res->error : ENOENT));
	keylen = strlen(res->canonical) + 1 + strlen(search_path);
	key = malloc(keylen + 1);
	if (!key)
		return -ENOMEM;
	sprintf(key, "%s%c%s", res->canonical, '\0', search_path);
	e = hashmap_find(&c->records, key, keylen);
	if (e) {
		c->stats.adds_memoised++;
		*ret = e->value;
		return 0;
	}

	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	w = (struct walk){ .c = c, .rec = rec, .search_path = search_path, .reterr = reterr };
	r = exec_file(&w, path, 0, NULL);
	strset_done(&w.roots);
	if (r < 0)
		return r;
	r = hashmap_put(&c->records, key, keylen, rec);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(rec);
	return 0;
}

/* Fold one record into the session's lists. */
static int merge(struct exec_closure *c, const struct record *rec)
{
	int r;

	for (size_t i = 0; i < rec->files.n; i++) {
		r = strset_add(&c->files, rec->files.v[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < rec->missing.n; i++) {
		r = strset_add(&c->missing, rec->missing.v[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int exec_closure_add(struct exec_closure *c, const char *path, const char *search_path,
		     struct cordon_error *reterr)
{
	struct record *rec;
	int r;

	r = record_for(c, path, search_path, &rec, reterr);
	if (r < 0)
		return r;
	return merge(c, rec);
}

int exec_closure_of(struct exec_closure *c, const char *path, const char *search_path, char ***ret_files,
		    struct cordon_error *reterr)
{
	struct record *rec;
	char **copy;
	int r;

	r = record_for(c, path, search_path, &rec, reterr);
	if (r < 0)
		return r;
	r = merge(c, rec);
	if (r < 0)
		return r;
	copy = strv_copy((const char *const *)rec->files.v);
	if (!copy)
		return -ENOMEM;
	*ret_files = copy;
	return 0;
}

static const char *const no_strings[] = { NULL };

const char *const *exec_closure_files(const struct exec_closure *c)
{
	return c->files.v ? (const char *const *)c->files.v : no_strings;
}

const char *const *exec_closure_missing(const struct exec_closure *c)
{
	return c->missing.v ? (const char *const *)c->missing.v : no_strings;
}

void exec_closure_stats(const struct exec_closure *c, struct exec_closure_stats *ret)
{
	*ret = c->stats;
}

int exec_closure_new(struct exec_closure **ret)
{
	struct exec_closure *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*ret = c;
	return 0;
}

static void strv_free_value(void *p)
{
	strv_free(p);
}

struct exec_closure *exec_closure_free(struct exec_closure *c)
{
	if (!c)
		return NULL;
	hashmap_clear(&c->dirs, free);
	hashmap_clear(&c->resolved, resolved_free);
	hashmap_clear(&c->dir_exists, NULL);
	hashmap_clear(&c->by_path, NULL);
	hashmap_clear(&c->by_id, object_free);
	hashmap_clear(&c->lookups, free); /* one allocation each */
	hashmap_clear(&c->subdirs, strv_free_value);
	hashmap_clear(&c->records, record_free);
	ldcache_free(c->ldcache);
	strset_done(&c->files);
	strset_done(&c->missing);
	free(c);
	return NULL;
}
