/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The execute-closure: the walk (scripts and "#!/usr/bin/env"), the
 * records of each added path, and the API. The memo it walks over lives in
 * exec_closure_memo.c, the dynamic loader's rules in exec_closure_ld.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "exec_closure.h"
#include "exec_closure_ld.h"
#include "exec_closure_memo.h"
#include "shebang.h"
#include "strv.h"

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
		r = closure_resolve(w->c, cand, &res);
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

	r = closure_resolve(c, path, &res);
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
	closure_memo_done(c);
	hashmap_clear(&c->lookups, free); /* one allocation each */
	hashmap_clear(&c->subdirs, strv_free_value);
	hashmap_clear(&c->records, record_free);
	strset_done(&c->files);
	strset_done(&c->missing);
	free(c);
	return NULL;
}
