/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The profile loader's typed getters and table-driven object reader
 * (profile_loader_get.c), for the section readers. */

#include "profile_loader.h"

int loader_expect(struct loader *l, const struct where *w, const json_t *v, json_type type, const char *what);
/* A string without NUL bytes, at most max bytes (0: any). */
int loader_get_string(struct loader *l, const struct where *w, const json_t *v, size_t max, const char **ret);
/* A string that is one of words[0..n) (NULL entries skipped): its index
 * in *ret, else "\"s\" is not WHAT". */
int loader_get_word(struct loader *l, const struct where *w, const json_t *v, const char *const *words, size_t n,
		    const char *what, size_t *ret);
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

/* Read v with o's table, its readers filling target (l->target meanwhile). */
int loader_read_into(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o, void *target);
