/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The execute-closure's state and memo (exec_closure_memo.c), shared by the
 * walk and the API (exec_closure.c) and the dynamic loader's rules
 * (exec_closure_ld.c) above it. */

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "elf_reader.h"
#include "exec_closure_limits.h"
#include "hashmap.h"
#include "ldcache.h"

enum object_kind {
	OBJECT_ELF,
	OBJECT_SCRIPT,
	OBJECT_OTHER, /* neither: executing it needs only itself */
	OBJECT_BAD,   /* malformed: error and reason */
};

/* One file, parsed once, found by identity. */
struct object {
	char *path; /* the canonical path it was first opened at */
	dev_t dev;
	ino_t ino;
	enum object_kind kind;
	struct elf_info *elf; /* OBJECT_ELF */
	char *interp;         /* OBJECT_SCRIPT: the "#!" interpreter */
	char *interp_arg;     /* ... and its argument, or NULL */
	int error;            /* OBJECT_BAD: -ENOEXEC */
	char *reason;
};

/* A path resolved: where it leads, or why nowhere. */
struct resolved {
	char *canonical; /* NULL: nothing there (error says why) */
	int error;
	dev_t dev;
	ino_t ino;
	mode_t mode;
};

/* A set of strings that keeps the order they were added in. */
struct strset {
	char **v; /* NULL-terminated once anything is added */
	size_t n, cap;
	struct hashmap index;
};

/* The closure of one added path. */
struct record {
	struct strset files;
	struct strset missing;
};

struct exec_closure {
	struct hashmap dirs;      /* directory as written -> canonical (char *), NULL when missing */
	struct hashmap resolved;  /* path as written -> struct resolved */
	struct hashmap dir_exists;/* canonical path -> (void *)1 directory, (void *)2 not */
	struct hashmap by_path;   /* canonical path -> struct object (not owned) */
	struct hashmap by_id;     /* struct file_id bytes -> struct object (owned) */
	struct hashmap lookups;   /* abi, canonical dir, name -> struct lookup */
	struct hashmap subdirs;   /* abi, canonical dir -> existing hwcaps subdirectories (char **) */
	struct hashmap records;   /* canonical path, search path -> struct record */
	struct ldcache *ldcache;
	bool ldcache_tried;
	struct strset files; /* over all adds */
	struct strset missing;
	struct exec_closure_stats stats;
};

int strset_add(struct strset *s, const char *str);
/* "fmt" formatted, then added. */
int strset_addf(struct strset *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strset_done(struct strset *s);

/* The canonical form of directory dir (absolute), memoised; *ret NULL when
 * it does not exist. */
int closure_canonical_dir(struct exec_closure *c, const char *dir, const char **ret, struct cordon_error *reterr);
/* path (absolute) resolved as the kernel would, symlinks followed
 * (memoised; owned by c). */
int closure_resolve(struct exec_closure *c, const char *path, const struct resolved **ret);
/* The canonical path of path (absolute; symlinks followed, memoised);
 * *ret NULL when nothing is there. */
int closure_canonical_path(struct exec_closure *c, const char *path, const char **ret);
/* Whether canonical path is a directory (stat, memoised). */
bool closure_is_dir(struct exec_closure *c, const char *path);
/* The file at path (absolute; symlinks followed), opened and parsed the
 * first time its identity is seen. *ret_obj NULL (and 0) when no regular
 * file is there; *ret_canonical is the path it resolved to (owned by c). */
int closure_object_at(struct exec_closure *c, const char *path, struct object **ret_obj, const char **ret_canonical,
		      struct cordon_error *reterr);
/* ld.so.cache, read and parsed on first use; NULL when unreadable. */
const struct ldcache *closure_ldcache(struct exec_closure *c);

/* Set reterr for a malformed object reached from who ("" for the path added). */
int closure_object_error(const struct object *obj, const char *who, struct cordon_error *reterr);
/* Free the memo (directories, paths, objects, ld.so.cache); the rest of c
 * is its owner's. */
void closure_memo_done(struct exec_closure *c);
