/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dynamic loader's rules, after glibc's elf/dl-load.c (_dl_map_object,
 * open_path, _dl_dst_substitute) and elf/dl-deps.c (breadth-first over
 * DT_NEEDED): an image is the executable, its PT_INTERP, and every object
 * the loader would map for it.
 *
 * For a DT_NEEDED name (dynamic string tokens expanded first):
 *   - a name some object of the image already answers to (the name it was
 *     loaded by, its path, its DT_SONAME) is that object;
 *   - a name with a '/' is a path;
 *   - else, when the requesting object has no DT_RUNPATH: the DT_RPATH of
 *     the requester, of its loader, and on up, then the executable's; the
 *     requester's DT_RUNPATH; ld.so.cache; the system directories (the last
 *     two not for a requester flagged DF_1_NODEFLIB, the cache only for its
 *     entries outside the system directories). Every directory is searched
 *     with glibc's hwcaps subdirectories first. Objects of another class or
 *     machine are skipped, as the loader skips them.
 * Where the loader's choice depends on the CPU (glibc-hwcaps and legacy
 * hwcap subdirectories, several cache entries for one name) every existing
 * candidate is taken: the gate then covers what the loader may pick.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "exec_closure_ld.h"
#include "exec_closure_memo.h"
#include "strv.h"

/* What glibc's loader uses for one class and machine: the cache flags it
 * accepts (sysdeps/.../dl-cache.h: _dl_cache_check_flags), $LIB and
 * $PLATFORM, its system directories (SYSTEM_DIRS, from slibdir and libdir:
 * Debian builds them as /lib/<multiarch>, /usr/lib/<multiarch> and adds
 * /lib, /usr/lib; `ld.so --help` prints them, and the unit test compares
 * this table with what the host's ld.so says), and the subdirectories
 * searched in each directory before the directory itself (`ld.so --help`:
 * glibc-hwcaps, then glibc 2.36's legacy hwcap directories). */
struct ldso_abi {
	unsigned char elf_class;
	unsigned machine;
	int32_t cache_flags[2];
	const char *lib;
	const char *platform;
	const char *const *system_dirs;
	const char *const *subdirs;
};

static const char *const x86_64_dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib",
					   NULL };
static const char *const x86_64_subdirs[] = { "glibc-hwcaps/x86-64-v4", "glibc-hwcaps/x86-64-v3",
					      "glibc-hwcaps/x86-64-v2", "tls/x86_64/x86_64",
					      "tls/x86_64",             "tls",
					      "x86_64/x86_64",          "x86_64",
					      NULL };
static const char *const i386_dirs[] = { "/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu", "/lib", "/usr/lib", NULL };
static const char *const aarch64_dirs[] = { "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib",
					    "/usr/lib", NULL };
static const char *const no_subdirs[] = { NULL };

static const struct ldso_abi abis[] = {
	{
		.elf_class = ELFCLASS64,
		.machine = EM_X86_64,
		.cache_flags = { LDCACHE_FLAG_ELF_LIBC6 | LDCACHE_FLAG_X8664_LIB64, -1 },
		.lib = "lib/x86_64-linux-gnu",
		.platform = "x86_64",
		.system_dirs = x86_64_dirs,
		.subdirs = x86_64_subdirs,
	},
	{
		.elf_class = ELFCLASS32,
		.machine = EM_386,
		.cache_flags = { LDCACHE_FLAG_ELF, LDCACHE_FLAG_ELF_LIBC6 },
		.lib = "lib/i386-linux-gnu",
		.platform = "i686",
		.system_dirs = i386_dirs,
		.subdirs = no_subdirs,
	},
	{
		.elf_class = ELFCLASS64,
		.machine = EM_AARCH64,
		.cache_flags = { LDCACHE_FLAG_ELF_LIBC6 | LDCACHE_FLAG_AARCH64_LIB64, -1 },
		.lib = "lib/aarch64-linux-gnu",
		.platform = "aarch64",
		.system_dirs = aarch64_dirs,
		.subdirs = no_subdirs,
	},
};

/* Candidates the loader may take for one name. */
#define MAX_CANDIDATES 16

static const struct ldso_abi *abi_for(unsigned char elf_class, unsigned machine)
{
	for (size_t i = 0; i < ELEMENTSOF(abis); i++)
		if (abis[i].elf_class == elf_class && abis[i].machine == machine)
			return &abis[i];
	return NULL;
}

const char *const *closure_system_dirs(unsigned char elf_class, unsigned machine)
{
	const struct ldso_abi *abi = abi_for(elf_class, machine);

	return abi ? abi->system_dirs : NULL;
}

/* One object in the image. */
struct node {
	struct object *obj;
	const char *canonical; /* owned by the closure's memo */
	char *origin;          /* $ORIGIN: the directory of the path it was loaded by */
	struct node *loader;
	char **rpath, **runpath; /* expanded, when first needed */
	bool expanded;
};

struct image {
	struct exec_closure *c;
	struct record *rec;
	const struct ldso_abi *abi; /* NULL: rules unknown for this machine */
	const struct elf_info *want;
	struct node **nodes;
	size_t n, cap;
	struct node *main;
	struct hashmap names;  /* a name the loader matches -> struct node */
	struct hashmap by_obj; /* struct object * -> struct node */
	struct cordon_error *reterr;
};

struct candidate {
	struct object *obj;
	const char *canonical;
	char *found_path; /* the path as the loader built it (for $ORIGIN) */
};

struct candidates {
	size_t n;
	struct candidate v[MAX_CANDIDATES];
};

/* A directory's memoised answer for one name. */
struct lookup_hit {
	struct object *obj;
	const char *canonical;
	const char *subdir; /* "" or "glibc-hwcaps/x86-64-v3/"-like, static */
};

struct lookup {
	size_t n;
	struct lookup_hit hits[];
};

static void candidates_done(struct candidates *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->v[i].found_path);
	cs->n = 0;
}

/* glibc's is_dst: "$NAME" not followed by an identifier character, or
 * "${NAME}". Returns the length after the '$', or 0. */
static size_t is_dst(const char *input, const char *ref)
{
	size_t rlen = strlen(ref);
	bool curly = input[0] == '{';
	char next;

	if (curly)
		input++;
	if (strncmp(input, ref, rlen) != 0)
		return 0;
	next = input[rlen];
	if (curly)
		return next == '}' ? rlen + 2 : 0;
	if ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') || (next >= '0' && next <= '9') ||
	    next == '_')
		return 0;
	return rlen;
}

/* input with $ORIGIN, $PLATFORM and $LIB replaced for node. *ret NULL when
 * a known token has no value here, or the result would exceed PATH_MAX:
 * the loader drops such a path. */
static int expand(const struct image *im, const struct node *node, const char *input, char **ret)
{
	char out[PATH_MAX], *copy;
	size_t o = 0;

	while (*input) {
		const char *repl = NULL;
		size_t len = 0, rl;

		if (*input != '$') {
			if (o + 1 >= sizeof(out))
				goto dropped;
			out[o++] = *input++;
			continue;
		}
		input++;
		if ((len = is_dst(input, "ORIGIN")))
			repl = node->origin;
		else if ((len = is_dst(input, "PLATFORM")))
			repl = im->abi ? im->abi->platform : NULL;
		else if ((len = is_dst(input, "LIB")))
			repl = im->abi ? im->abi->lib : NULL;
		if (len == 0) {
			if (o + 1 >= sizeof(out))
				goto dropped;
			out[o++] = '$';
			continue;
		}
		if (!repl)
			goto dropped;
		rl = strlen(repl);
		if (o + rl >= sizeof(out))
			goto dropped;
		memcpy(out + o, repl, rl);
		o += rl;
		input += len;
	}
	out[o] = '\0';
	copy = strdup(out);
	if (!copy)
		return -ENOMEM;
	*ret = copy;
	return 0;
dropped:
	*ret = NULL;
	return 0;
}

/* A DT_RPATH / DT_RUNPATH, split at ':' and expanded; empty and dropped
 * elements left out, trailing slashes removed. */
static int expand_path_list(const struct image *im, const struct node *node, const char *list, char ***ret)
{
	_cleanup_strv_free_ char **dirs = NULL;
	_cleanup_free_ char *copy = strdup(list);
	char *p = copy, *elem;
	int r;

	if (!copy)
		return -ENOMEM;
	while ((elem = strsep(&p, ":"))) {
		char *dir;
		size_t len;

		if (!*elem)
			continue;
		r = expand(im, node, elem, &dir);
		if (r < 0)
			return r;
		if (!dir)
			continue;
		len = strlen(dir);
		while (len > 1 && dir[len - 1] == '/')
			dir[--len] = '\0';
		if (len == 0) {
			free(dir);
			continue;
		}
		r = strv_consume(&dirs, dir);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(dirs);
	return 0;
}

static int node_dirs(const struct image *im, struct node *node)
{
	int r;

	if (node->expanded)
		return 0;
	if (node->obj->elf->rpath) {
		r = expand_path_list(im, node, node->obj->elf->rpath, &node->rpath);
		if (r < 0)
			return r;
	}
	if (node->obj->elf->runpath) {
		r = expand_path_list(im, node, node->obj->elf->runpath, &node->runpath);
		if (r < 0)
			return r;
	}
	node->expanded = true;
	return 0;
}

/* The subdirectories of dir (canonical) that exist, in search order. */
static int existing_subdirs(struct image *im, const char *dir, char ***ret)
{
	struct exec_closure *c = im->c;
	_cleanup_free_ char *key = NULL;
	_cleanup_strv_free_ char **found = NULL;
	struct hashmap_entry *e;
	size_t abi = (size_t)(im->abi - abis);
	int r;

	if (asprintf(&key, "%zu:%s", abi, dir) < 0)
		return -ENOMEM;
	e = hashmap_find(&c->subdirs, key, strlen(key));
	if (e) {
		*ret = e->value;
		return 0;
	}
	found = calloc(1, sizeof(char *));
	if (!found)
		return -ENOMEM;
	for (const char *const *s = im->abi->subdirs; *s; s++) {
		_cleanup_free_ char *path = NULL;
		bool exists = true;
		const char *q = *s;

		/* each prefix, so a missing "tls" costs one stat for all */
		while (exists) {
			size_t n = strcspn(q, "/");
			free(path);
			if (asprintf(&path, "%s/%.*s", dir, (int)(q - *s + n), *s) < 0) {
				path = NULL;
				return -ENOMEM;
			}
			exists = closure_is_dir(c, path);
			if (!q[n])
				break;
			q += n + 1;
		}
		if (exists) {
			r = strv_push(&found, *s);
			if (r < 0)
				return r;
		}
	}
	r = hashmap_put(&c->subdirs, key, strlen(key), found);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(found);
	return 0;
}

/* What dir (canonical) holds for name: memoised per directory and name. */
static int dir_lookup(struct image *im, const char *dir, const char *name, const struct lookup **ret)
{
	struct exec_closure *c = im->c;
	_cleanup_free_ char *key = NULL;
	_cleanup_free_ struct lookup *lk = NULL;
	struct hashmap_entry *e;
	char **subdirs;
	size_t keylen;
	int r;

	r = asprintf(&key, "%zu:%s/%s", im->abi ? (size_t)(im->abi - abis) : ELEMENTSOF(abis), dir, name);
	if (r < 0) {
		key = NULL;
		return -ENOMEM;
	}
	keylen = (size_t)r;
	e = hashmap_find(&c->lookups, key, keylen);
	if (e) {
		c->stats.lookup_hits++;
		*ret = e->value;
		return 0;
	}
	c->stats.lookups++;
	if (im->abi) {
		r = existing_subdirs(im, dir, &subdirs);
		if (r < 0)
			return r;
	} else {
		subdirs = (char **)no_subdirs;
	}
	lk = calloc(1, sizeof(*lk) + (strv_length(subdirs) + 1) * sizeof(struct lookup_hit));
	if (!lk)
		return -ENOMEM;
	for (size_t i = 0; i <= strv_length(subdirs); i++) {
		const char *sub = subdirs[i] ? subdirs[i] : "";
		_cleanup_free_ char *path = NULL;
		struct object *obj;
		const char *canonical;

		if (asprintf(&path, "%s/%s%s%s", dir, sub, *sub ? "/" : "", name) < 0)
			return -ENOMEM;
		r = closure_object_at(c, path, &obj, &canonical, im->reterr);
		if (r < 0)
			return r;
		if (obj)
			lk->hits[lk->n++] = (struct lookup_hit){ .obj = obj, .canonical = canonical, .subdir = sub };
	}
	r = hashmap_put(&c->lookups, key, keylen, lk);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(lk);
	return 0;
}

/* Whether obj can join the image; an error for a file the loader would
 * refuse outright (not ELF, malformed). */
static int usable(struct image *im, const struct object *obj, const struct node *requester, bool *ret)
{
	if (obj->kind == OBJECT_BAD)
		return closure_object_error(obj, requester->canonical, im->reterr);
	if (obj->kind != OBJECT_ELF) {
		int r = error_set(im->reterr, -ENOEXEC, "'%s' (needed by %s): not an ELF file", obj->path,
				  requester->canonical);
		if (im->reterr)
			snprintf(im->reterr->file, sizeof(im->reterr->file), "%s", obj->path);
		return r;
	}
	*ret = elf_info_compatible(im->want, obj->elf);
	return 0;
}

static int add_candidate(struct candidates *cs, struct object *obj, const char *canonical, char *found_path)
{
	if (cs->n >= MAX_CANDIDATES) {
		free(found_path);
		return 0;
	}
	cs->v[cs->n++] = (struct candidate){ .obj = obj, .canonical = canonical, .found_path = found_path };
	return 0;
}

/* The first directory of dirs holding a usable name; all its candidates. */
static int try_dirs(struct image *im, const struct node *requester, char *const *dirs, const char *name,
		    struct candidates *cs)
{
	for (char *const *d = dirs; d && *d && cs->n == 0; d++) {
		const char *canonical_dir;
		const struct lookup *lk;
		int r;

		if ((*d)[0] != '/')
			continue; /* relative to the working directory: unknowable */
		r = closure_canonical_dir(im->c, *d, &canonical_dir, NULL);
		if (r < 0)
			return r;
		if (!canonical_dir)
			continue;
		r = dir_lookup(im, canonical_dir, name, &lk);
		if (r < 0)
			return r;
		for (size_t i = 0; i < lk->n; i++) {
			const struct lookup_hit *h = &lk->hits[i];
			char *found;
			bool ok;

			r = usable(im, h->obj, requester, &ok);
			if (r < 0)
				return r;
			if (!ok)
				continue;
			if (asprintf(&found, "%s/%s%s%s", strcmp(*d, "/") ? *d : "", h->subdir, *h->subdir ? "/" : "",
				     name) < 0)
				return -ENOMEM;
			r = add_candidate(cs, h->obj, h->canonical, found);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static bool under_system_dir(const struct image *im, const char *path)
{
	for (const char *const *d = im->abi->system_dirs; *d; d++)
		if (path_is_under(path, *d) && strcmp(path, *d) != 0)
			return true;
	return false;
}

static int try_cache(struct image *im, const struct node *requester, const char *name, struct candidates *cs)
{
	const struct ldcache *cache = closure_ldcache(im->c);
	const struct ldcache_entry *entries;
	size_t n;

	if (!cache || !im->abi)
		return 0;
	entries = ldcache_find(cache, name, &n);
	for (size_t i = 0; i < n; i++) {
		const struct ldcache_entry *e = &entries[i];
		struct object *obj;
		const char *canonical;
		char *found;
		bool ok;
		int r;

		if (e->flags != im->abi->cache_flags[0] && e->flags != im->abi->cache_flags[1])
			continue;
		if ((requester->obj->elf->flags_1 & DF_1_NODEFLIB) && under_system_dir(im, e->path))
			continue;
		r = closure_object_at(im->c, e->path, &obj, &canonical, im->reterr);
		if (r < 0)
			return r;
		if (!obj)
			continue;
		r = usable(im, obj, requester, &ok);
		if (r < 0)
			return r;
		if (!ok)
			continue;
		found = strdup(e->path);
		if (!found)
			return -ENOMEM;
		r = add_candidate(cs, obj, canonical, found);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The loader's search for name, requested by requester. */
static int search(struct image *im, struct node *requester, const char *name, struct candidates *cs)
{
	int r;

	r = node_dirs(im, requester);
	if (r < 0)
		return r;
	if (!requester->obj->elf->runpath) {
		bool did_main = false;

		for (struct node *l = requester; l && cs->n == 0; l = l->loader) {
			if (!l->obj->elf->rpath)
				continue;
			r = node_dirs(im, l);
			if (r >= 0)
				r = try_dirs(im, requester, l->rpath, name, cs);
			if (r < 0)
				return r;
			did_main |= l == im->main;
		}
		if (cs->n == 0 && !did_main && im->main->obj->elf->rpath) {
			r = node_dirs(im, im->main);
			if (r >= 0)
				r = try_dirs(im, requester, im->main->rpath, name, cs);
			if (r < 0)
				return r;
		}
	}
	if (cs->n == 0 && requester->runpath) {
		r = try_dirs(im, requester, requester->runpath, name, cs);
		if (r < 0)
			return r;
	}
	if (cs->n == 0) {
		r = try_cache(im, requester, name, cs);
		if (r < 0)
			return r;
	}
	if (cs->n == 0 && im->abi && !(requester->obj->elf->flags_1 & DF_1_NODEFLIB))
		return try_dirs(im, requester, (char *const *)im->abi->system_dirs, name, cs);
	return 0;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	free(n->origin);
	strv_free(n->rpath);
	strv_free(n->runpath);
	free(n);
}

static int add_name(struct image *im, const char *name, struct node *node)
{
	int r = hashmap_put(&im->names, name, strlen(name), node);

	return r == -EEXIST ? 0 : r;
}

/* A node for obj, found at found_path (consumed) by loader. */
static int add_node(struct image *im, struct object *obj, const char *canonical, char *found_path,
		    struct node *loader, struct node **ret)
{
	struct node *node;
	int r;

	if (im->n >= EXEC_CLOSURE_MAX_FILES) {
		free(found_path);
		return error_set(im->reterr, -E2BIG, "the closure holds more than %d objects", EXEC_CLOSURE_MAX_FILES);
	}
	if (im->n == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 32;
		struct node **v = reallocarray(im->nodes, cap, sizeof(*v));

		if (!v) {
			free(found_path);
			return -ENOMEM;
		}
		im->nodes = v;
		im->cap = cap;
	}
	node = calloc(1, sizeof(*node));
	if (!node) {
		free(found_path);
		return -ENOMEM;
	}
	node->obj = obj;
	node->canonical = canonical;
	node->loader = loader;
	node->origin = path_dirname(found_path);
	im->nodes[im->n++] = node;
	r = hashmap_put(&im->by_obj, &obj, sizeof(obj), node);
	if (r >= 0)
		r = add_name(im, found_path, node);
	if (r >= 0 && obj->elf && obj->elf->soname)
		r = add_name(im, obj->elf->soname, node);
	if (r >= 0) {
		r = strset_add(&im->rec->files, canonical);
		if (r > 0 && im->rec->files.n > EXEC_CLOSURE_MAX_FILES)
			r = error_set(im->reterr, -E2BIG, "the closure holds more than %d files",
				      EXEC_CLOSURE_MAX_FILES);
	}
	free(found_path);
	if (r < 0)
		return r;
	if (ret)
		*ret = node;
	return 0;
}

static int missing(struct image *im, const char *name, const struct node *requester, const char *why)
{
	int r = strset_addf(&im->rec->missing, "%s (needed by %s%s)", name, requester->canonical, why);

	return r < 0 ? r : 0;
}

/* One DT_NEEDED entry of requester. */
static int load_needed(struct image *im, struct node *requester, const char *raw)
{
	_cleanup_free_ char *name = NULL;
	struct candidates cs = {};
	int r;

	r = expand(im, requester, raw, &name);
	if (r < 0)
		return r;
	if (!name)
		return missing(im, raw, requester, "; a $-token has no value here");
	if (hashmap_find(&im->names, name, strlen(name)))
		return 0;

	if (strchr(name, '/')) {
		struct object *obj;
		const char *canonical;
		bool ok = false;

		if (name[0] != '/')
			return missing(im, name, requester, "; relative to the working directory");
		r = closure_object_at(im->c, name, &obj, &canonical, im->reterr);
		if (r >= 0 && obj)
			r = usable(im, obj, requester, &ok);
		if (r < 0)
			return r;
		if (!ok)
			return missing(im, name, requester, obj ? "; wrong ELF class or machine" : "");
		r = add_candidate(&cs, obj, canonical, strdup(name));
		if (r < 0 || !cs.v[0].found_path) {
			candidates_done(&cs);
			return -ENOMEM;
		}
	} else {
		r = search(im, requester, name, &cs);
		if (r < 0) {
			candidates_done(&cs);
			return r;
		}
		if (cs.n == 0)
			return missing(im, name, requester, "");
	}

	for (size_t i = 0; i < cs.n; i++) {
		struct candidate *cand = &cs.v[i];
		struct hashmap_entry *e = hashmap_find(&im->by_obj, &cand->obj, sizeof(cand->obj));
		struct node *node;

		if (e) {
			/* the same file under another name: the loader reuses it */
			node = e->value;
		} else {
			r = add_node(im, cand->obj, cand->canonical, TAKE_PTR(cand->found_path), requester, &node);
			if (r < 0)
				break;
		}
		if (i == 0) {
			r = add_name(im, name, node);
			if (r < 0)
				break;
		}
	}
	candidates_done(&cs);
	return r < 0 ? r : 0;
}

static void image_done(struct image *im)
{
	for (size_t i = 0; i < im->n; i++)
		node_free(im->nodes[i]);
	free(im->nodes);
	hashmap_clear(&im->names, NULL);
	hashmap_clear(&im->by_obj, NULL);
}

/* PT_INTERP: the kernel maps it, so it must exist and be ELF. */
static int add_interp(struct image *im, const struct object *exe, const char *exe_path)
{
	const char *interp = exe->elf->interp, *canonical;
	struct object *obj;
	char *found;
	int r;

	r = closure_object_at(im->c, interp, &obj, &canonical, im->reterr);
	if (r < 0)
		return r;
	if (!obj) {
		r = strset_addf(&im->rec->missing, "%s (interpreter of %s)", interp, exe_path);
		return r < 0 ? r : 0;
	}
	if (obj->kind == OBJECT_BAD)
		return closure_object_error(obj, exe_path, im->reterr);
	if (obj->kind != OBJECT_ELF) {
		r = error_set(im->reterr, -ENOEXEC, "'%s' (interpreter of %s): not an ELF file", canonical, exe_path);
		if (im->reterr)
			snprintf(im->reterr->file, sizeof(im->reterr->file), "%s", canonical);
		return r;
	}
	found = strdup(interp);
	if (!found)
		return -ENOMEM;
	/* not walked: the loader does not load its own dependencies */
	return add_node(im, obj, canonical, found, NULL, NULL);
}

int closure_elf_image(struct exec_closure *c, struct record *rec, struct object *exe, const char *exe_path,
		      struct cordon_error *reterr)
{
	struct image im = { .c = c, .rec = rec, .want = exe->elf, .reterr = reterr };
	const char *cache_path;
	char *found;
	int r;

	/* Without PT_INTERP nothing loads libraries (static, or the loader
	 * itself run as a program). */
	if (!exe->elf->interp)
		return 0;
	im.abi = abi_for(exe->elf->elf_class, exe->elf->machine);

	found = strdup(exe_path);
	if (!found)
		return -ENOMEM;
	r = add_node(&im, exe, exe_path, found, NULL, &im.main);
	if (r >= 0)
		r = add_interp(&im, exe, exe_path);
	if (r >= 0)
		r = closure_canonical_path(c, LDCACHE_PATH, &cache_path);
	if (r >= 0 && cache_path)
		r = strset_add(&rec->files, cache_path);

	/* Breadth first, as _dl_map_object_deps: the order decides which
	 * object answers to a name first. The interpreter (node 1 when found)
	 * is not walked. */
	for (size_t i = 0; r >= 0 && i < im.n; i++) {
		struct node *node = im.nodes[i];

		if (i > 0 && !node->loader)
			continue;
		for (size_t k = 0; r >= 0 && k < node->obj->elf->n_needed; k++)
			r = load_needed(&im, node, node->obj->elf->needed[k]);
	}
	image_done(&im);
	return r < 0 ? r : 0;
}
