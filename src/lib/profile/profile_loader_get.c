/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile loader's typed getters and read_object(), the one loop over
 * an object's keys that every section reader goes through. Below the
 * readers; above the core (profile_loader.c), whose errors they fill.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "profile_loader.h"
#include "profile_loader_get.h"

/* ---- typed getters ---------------------------------------------------------- */

/* The index of key in known (NULL-terminated), or an "unknown key" error. */
static int match_key(struct loader *l, const struct where *wk, const char *key, const char *const *known)
{
	size_t n = 0;

	for (; known[n]; n++)
		if (strcmp(known[n], key) == 0)
			return (int)n;
	return loader_fail_unknown(l, -EINVAL, wk, "unknown key", "known", key, known, n);
}

int loader_expect(struct loader *l, const struct where *w, const json_t *v, json_type type, const char *what)
{
	if (json_typeof(v) == type)
		return 0;
	return loader_fail(l, -EINVAL, w, "expected %s, not %s", what, json_type_name(v));
}

int loader_get_string(struct loader *l, const struct where *w, const json_t *v, size_t max, const char **ret)
{
	const char *s;
	int r = loader_expect(l, w, v, JSON_STRING, "a string");

	if (r < 0)
		return r;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return loader_fail(l, -EINVAL, w, "a NUL byte is not allowed in a string");
	if (max && strlen(s) > max)
		return loader_fail(l, max == PATH_MAX - 1 ? -ENAMETOOLONG : -EINVAL, w, "longer than %zu bytes", max);
	*ret = s;
	return 0;
}

int loader_get_word(struct loader *l, const struct where *w, const json_t *v, const char *const *words, size_t n,
		    const char *what, size_t *ret)
{
	const char *s;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (words[i] && strcmp(s, words[i]) == 0) {
			*ret = i;
			return 0;
		}
	return loader_fail(l, -EINVAL, w, "\"%.100s\" is not %s", s, what);
}

int loader_count_rule(struct loader *l, const struct where *w)
{
	if (++l->n_rules > PROFILE_MAX_RULES)
		return loader_fail(l, -E2BIG, w, "more than %d rules in this profile and the profiles it extends",
				   PROFILE_MAX_RULES);
	return 0;
}

int loader_read_list(struct loader *l, const struct where *w, const json_t *v, const char *what, size_t max,
		     loader_check_fn *check, intptr_t arg, struct raw_list *out)
{
	size_t i;
	json_t *e;
	int r;

	r = loader_expect(l, w, v, JSON_ARRAY, what);
	if (r < 0)
		return r;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s;

		r = loader_get_string(l, &we, e, max, &s);
		if (r < 0)
			return r;
		r = check(l, &we, s, arg);
		if (r < 0)
			return r;
		r = loader_count_rule(l, &we);
		if (r < 0)
			return r;
		r = raw_list_push(out, s, &we);
		if (r < 0)
			return r;
	}
	return 0;
}

int loader_read_members(struct loader *l, const struct where *w, json_t *v, loader_member_fn *read, void *ctx)
{
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = loader_expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wk = where_key(w, key, index);
		struct where wm = where_child(w, key, index);

		r = read(l, &wk, &wm, key, m, ctx);
		if (r < 0)
			return r;
		index++;
	}
	return 0;
}

/* ---- reading an object ------------------------------------------------------ */

/* What an ordered object holds between checking its keys and reading them. */
struct object_pass {
	const struct loader_object *o;
	json_t *values[16]; /* the largest table, the top level, has 11 keys */
	struct where wheres[16];
};

static int read_value(struct loader *l, const struct where *wv, json_t *v, const struct loader_key *k)
{
	int r;

	if (k->what && (r = loader_expect(l, wv, v, k->type, k->what)) < 0)
		return r;
	return k->read(l, wv, v, k);
}

static int read_known_member(struct loader *l, const struct where *wk, const struct where *wv, const char *key,
			     json_t *v, void *ctx)
{
	struct object_pass *op = ctx;
	int i = match_key(l, wk, key, op->o->keys);

	if (i < 0)
		return i;
	if (!op->o->ordered)
		return read_value(l, wv, v, &op->o->readers[i]);
	op->values[i] = v;
	op->wheres[i] = *wv;
	return 0;
}

int loader_read_object(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o)
{
	struct object_pass op = { .o = o };
	size_t n = 0;
	int r;

	while (o->keys[n])
		n++;
	if (n > ELEMENTSOF(op.values))
		return -EINVAL; /* a table too large: a bug here, not in the profile */
	r = loader_read_members(l, w, v, read_known_member, &op);
	if (r < 0 || !o->ordered)
		return r;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (!op.values[i] || o->readers[i].first != (pass == 0))
				continue;
			r = read_value(l, &op.wheres[i], op.values[i], &o->readers[i]);
			if (r < 0)
				return r;
		}
	return 0;
}

int loader_read_nested(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_object(l, w, v, k->object);
}

int loader_read_into(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o, void *target)
{
	void *saved = l->target;
	int r;

	l->target = target;
	r = loader_read_object(l, w, v, o);
	l->target = saved;
	return r;
}
