/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The profile loader's own types, shared by its files (nothing outside
 * src/lib/profile*.c includes this):
 *
 *   profile_loader.c   documents, positions, JSON pointers, errors,
 *                      did-you-mean, and read_object(): the one loop over an
 *                      object's keys
 *   profile_read.c     the document and its sections (pure: JSON -> raw
 *                      state in struct loader), top level to network
 *   profile_read_run.c the sections about what runs: environment, limits,
 *                      command_policies
 *   profile_find.c     finding a profile: a path, the user and installed
 *                      directories, the built-in ones; the environment
 *   profile_resolve.c  raw state -> struct cordon_profile: tokens,
 *                      canonicalisation, groups, deny always wins
 *   profile.c          the facade: profile_load, profile_load_buffer,
 *                      profile_free
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profile_internal.h"

#define LOADER_MAX_STEPS 10

struct doc {
	char *file;      /* for messages */
	char *dir;       /* anchors relative extends; NULL for embedded profiles */
	char *identity;  /* canonical path or builtin:NAME: cycle detection */
	char *text;
	size_t len;
	json_t *root;
};

struct step {
	const char *key; /* NULL: an array element */
	size_t index;    /* member index in document order, or element index */
};

/* A value's place: its document and path, for messages and origins. */
struct where {
	const struct doc *doc;
	struct step steps[LOADER_MAX_STEPS];
	size_t n;
	bool at_key; /* point at the last member's key, not its value */
};

struct raw_entry {
	char *spelled;
	struct where where;
};

struct raw_list {
	struct raw_entry *v;
	size_t n;
};

struct raw_group {
	const char *name; /* owned by a document's JSON */
	struct raw_list paths;
};

struct raw_var {
	const char *name, *value; /* owned by a document's JSON */
	struct where where;
};

enum builtin_group {
	GROUP_CREDENTIALS,
	GROUP_PERSISTENCE,
	GROUP_SYSTEM_WRITE,
	_GROUP_MAX,
};

/* "credentials", "persistence", "system_write"; NULL-terminated. */
extern const char *const builtin_group_names[_GROUP_MAX + 1];

struct loader {
	struct cordon_error *reterr;
	/* resolved environment */
	char *home, *tmpdir, *xdg, *user_dir, *data_dir, *system_gitconfig, *workspace_given;
	bool git_read;
	struct git_paths git;

	struct doc **docs;
	size_t n_docs;
	const struct doc *stack[PROFILE_MAX_EXTENDS_DEPTH + 1];
	size_t depth;
	size_t n_rules;

	/* merged raw state */
	const char *meta[3];
	bool mode_set;
	enum cordon_mode mode;
	struct where mode_where;
	const char *ws_spelled;
	struct where ws_where;
	struct raw_list read, write, deny_read, protect, allow_vars;
	struct raw_list allow_unix;             /* network.allow_unix_sockets */
	char **net_rules[PROFILE_NET_RULE_KINDS]; /* network.allow_domains, ... (profile_net.c) */
	bool net_rules_seen;
	struct where net_rules_where;           /* the first list of them */
	struct raw_list bypass[_GROUP_MAX];
	struct raw_list lift;                   /* groups.credentials.lift: group names */
	struct raw_group *groups;
	size_t n_groups;
	bool net_set;
	enum profile_net net;
	struct where net_where;
	struct raw_var *vars;
	size_t n_vars;
	struct profile_limits limits;
	struct where limit_where[_PROFILE_LIMIT_MAX];
};

/* ---- profile_loader.c ---- */

static inline struct where where_child(const struct where *w, const char *key, size_t index)
{
	struct where c = *w;

	c.at_key = false;
	if (c.n < LOADER_MAX_STEPS)
		c.steps[c.n++] = (struct step){ .key = key, .index = index };
	return c;
}

static inline struct where where_key(const struct where *w, const char *key, size_t index)
{
	struct where c = where_child(w, key, index);

	c.at_key = true;
	return c;
}

static inline const char *errno_text(int r)
{
	return strerror(-r);
}

void doc_free(struct doc *d);
void raw_list_clear(struct raw_list *l);
int raw_list_push(struct raw_list *list, const char *s, const struct where *w);
void loader_clear(struct loader *l);

/* Fill l->reterr (file:line:column: at /pointer: message) and return r. */
int loader_fail(struct loader *l, int r, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* An error about a whole file, before there is JSON to point into. */
int loader_fail_file(struct loader *l, int r, const char *file, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* word is none of names[0..n): "WHAT "word", did you mean "NAME"?" for
 * the closest (edit distance at most 2), else "WHAT "word" (LABEL: all,
 * of, them)". Returns r. */
int loader_fail_unknown(struct loader *l, int r, const struct where *w, const char *what, const char *label,
			const char *word, const char *const *names, size_t n);
int loader_expect(struct loader *l, const struct where *w, const json_t *v, json_type type, const char *what);
/* A string without NUL bytes, at most max bytes (0: any). */
int loader_get_string(struct loader *l, const struct where *w, const json_t *v, size_t max, const char **ret);
/* One more rule against PROFILE_MAX_RULES (-E2BIG). */
int loader_count_rule(struct loader *l, const struct where *w);

/* How each string of a list is checked: 0, or what loader_fail returns. */
typedef int loader_check_fn(struct loader *l, const struct where *w, const char *s, intptr_t arg);

/* An array (else "expected WHAT, not ...") of strings of at most max bytes
 * (0: any); each is checked with check(arg), counted as a rule and pushed
 * to out with its where. */
int loader_read_list(struct loader *l, const struct where *w, const json_t *v, const char *what, size_t max,
		     loader_check_fn *check, intptr_t arg, struct raw_list *out);

/* An object whose keys the profile chooses (group, variable and command
 * names), so there is no table of them: read is called for each member in
 * document order, wk pointing at its key, wv at its value, with ctx. */
typedef int loader_member_fn(struct loader *l, const struct where *wk, const struct where *wv, const char *key,
			     json_t *value, void *ctx);
int loader_read_members(struct loader *l, const struct where *w, json_t *v, loader_member_fn *read, void *ctx);

struct loader_object;

/* How read_object reads one key of an object. */
struct loader_key {
	int (*read)(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
	size_t offset;     /* shared handlers: the field of struct loader (or of its
			    * limits) that the value goes to */
	intptr_t arg;      /* a handler's own constant: a cap, a flag, a limit key */
	const struct loader_object *object; /* a nested object's table */
	json_type type;    /* with what: the value must be of this type ... */
	const char *what;  /* ... else "expected WHAT, not ..." */
	bool first;        /* ordered objects: read before the others */
};

/* An object's known keys: keys[i] (NULL-terminated; the same list
 * profile_known_keys gives, and did-you-mean searches) is read by
 * readers[i]. ordered: every key is checked before any is read, then they
 * are read in table order, first ones first (the top level: extends
 * before what it overrides); else each is checked and read in document
 * order. */
struct loader_object {
	const char *const *keys;
	const struct loader_key *readers;
	bool ordered;
};

/* v must be an object; each member's key must be one of o's ("unknown key
 * ..., did you mean ...?"), and its reader is called with where w/key. */
int loader_read_object(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o);

/* A reader for a key whose value is an object of known keys: k->object. */
int loader_read_nested(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);

/* The field at k->offset in l, as type T. */
#define LOADER_FIELD(l, k, T) ((T *)(void *)((char *)(l) + (k)->offset))

/* The origin (file, JSON pointer) of w; "(built-in)" when w has no doc. */
int where_origin(const struct where *w, struct profile_origin *ret);
int profile_note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path, const struct where *w,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- profile_read.c ---- */

/* An array of path strings into out; allow_refs: "@name" references. */
int loader_read_paths(struct loader *l, const struct where *w, const json_t *v, bool allow_refs,
		      struct raw_list *out);
/* Read d (already kept by l) and, first, what it extends. */
int loader_read_doc(struct loader *l, struct doc *d);

/* ---- profile_read_run.c ---- */

extern const struct loader_object loader_environment_object, loader_limits_object;
extern const char *const loader_environment_keys[], *const loader_limit_keys[];
int loader_read_command_policies(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);

/* ---- profile_find.c ---- */

int loader_init(struct loader *l, const struct profile_env *env, struct cordon_error *reterr);
/* Keep d in l (freed with it); on failure d is freed. */
int loader_keep(struct loader *l, struct doc *d);
/* A doc holding a copy of data, named file and anchored at it (relative
 * extends resolve next to it). */
int doc_from_buffer(const char *data, size_t len, const char *file, struct doc **ret);
/* Find NAME (see profile_load). from/from_where: the extends that asked,
 * or NULL at the top. */
int loader_find_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret);

/* ---- profile.c ---- */

void profile_rule_clear(struct profile_rule *rule);

/* ---- profile_resolve.c ---- */

/* Raw state -> p: expand, canonicalise, check the rules against each
 * other, carry origins over. */
int loader_resolve(struct loader *l, struct cordon_profile *p);
