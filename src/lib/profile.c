/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile loader: bytes -> validated, merged, expanded, immutable
 * struct cordon_profile. Two phases. Reading walks each file of the
 * extends chain (parent first) and merges raw values, remembering where
 * each came from; resolving then expands path tokens (which need the final
 * workspace), canonicalises, and checks the rules against each other (deny
 * always wins). Every refusal names file, line, column and JSON pointer:
 * jansson keeps no positions, so they are found again by walking the
 * (already validated) text along the value's path, as confined_json.c does.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "config.h"
#include "fileio.h"
#include "json_pos.h"
#include "policy.h"
#include "profile_internal.h"
#include "profiles_embedded.h"
#include "provider.h"
#include "strv.h"

#define _cleanup_json_ _cleanup_(json_decrefp)
#define MAX_STEPS 10
#define ENV_VALUE_MAX (128 * 1024)
#define META_MAX 4096

/* ---- documents and positions ------------------------------------------- */

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

struct where {
	const struct doc *doc;
	struct step steps[MAX_STEPS];
	size_t n;
	bool at_key; /* point at the last member's key, not its value */
};

static const char *locate(const struct where *w)
{
	struct json_cursor c = { w->doc->text, w->doc->text + w->doc->len };

	json_skip_ws(&c);
	for (size_t i = 0; i < w->n && c.p < c.end; i++) {
		if (*c.p == '{') {
			c.p++;
			json_skip_ws(&c);
			for (size_t k = 0; k < w->steps[i].index && c.p < c.end; k++) {
				json_skip_string(&c);
				json_skip_ws(&c);
				c.p++;
				json_skip_ws(&c);
				json_skip_value(&c);
				json_skip_comma(&c);
			}
			if (i == w->n - 1 && w->at_key)
				break;
			json_skip_string(&c);
			json_skip_ws(&c);
			c.p++;
			json_skip_ws(&c);
		} else if (*c.p == '[') {
			c.p++;
			json_skip_ws(&c);
			for (size_t k = 0; k < w->steps[i].index && c.p < c.end; k++) {
				json_skip_value(&c);
				json_skip_comma(&c);
			}
		} else
			break;
	}
	return c.p < c.end ? c.p : c.end;
}

/* JSON pointer (RFC 6901) of w into buf. */
static void pointer_of(const struct where *w, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n && o + 1 < size; i++) {
		buf[o++] = '/';
		if (w->steps[i].key) {
			for (const char *k = w->steps[i].key; *k && o + 2 < size; k++) {
				if (*k == '~' || *k == '/') {
					buf[o++] = '~';
					buf[o++] = *k == '~' ? '0' : '1';
				} else
					buf[o++] = *k;
			}
		} else
			o += (size_t)snprintf(buf + o, size - o, "%zu", w->steps[i].index);
		if (o >= size)
			o = size - 1;
	}
	buf[o < size ? o : size - 1] = '\0';
}

static struct where where_child(const struct where *w, const char *key, size_t index)
{
	struct where c = *w;

	c.at_key = false;
	if (c.n < MAX_STEPS)
		c.steps[c.n++] = (struct step){ .key = key, .index = index };
	return c;
}

static struct where where_key(const struct where *w, const char *key, size_t index)
{
	struct where c = where_child(w, key, index);

	c.at_key = true;
	return c;
}

/* ---- the loader ---------------------------------------------------------- */

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

static const char *const builtin_group_names[_GROUP_MAX] = {
	[GROUP_CREDENTIALS] = "credentials",
	[GROUP_PERSISTENCE] = "persistence",
	[GROUP_SYSTEM_WRITE] = "system_write",
};

static const char *const builtin_group_names_v[] = { "credentials", "persistence", "system_write", NULL };

/* Never writable by a profile grant unless bypassed. */
static const char *const system_write_paths[] = {
	"/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/sbin", "/usr", "/var/lib", "/var/spool", "/sys", "/proc", "/dev", NULL,
};

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

static void doc_free(struct doc *d)
{
	if (!d)
		return;
	free(d->file);
	free(d->dir);
	free(d->identity);
	free(d->text);
	json_decref(d->root);
	free(d);
}

static void raw_list_clear(struct raw_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].spelled);
	free(l->v);
	*l = (struct raw_list){};
}

static void loader_clear(struct loader *l)
{
	free(l->home);
	free(l->tmpdir);
	free(l->xdg);
	free(l->user_dir);
	free(l->data_dir);
	free(l->system_gitconfig);
	free(l->workspace_given);
	git_paths_clear(&l->git);
	raw_list_clear(&l->read);
	raw_list_clear(&l->write);
	raw_list_clear(&l->deny_read);
	raw_list_clear(&l->protect);
	raw_list_clear(&l->allow_vars);
	raw_list_clear(&l->allow_unix);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(l->net_rules[i]);
	for (size_t i = 0; i < _GROUP_MAX; i++)
		raw_list_clear(&l->bypass[i]);
	raw_list_clear(&l->lift);
	for (size_t i = 0; i < l->n_groups; i++)
		raw_list_clear(&l->groups[i].paths);
	free(l->groups);
	free(l->vars);
	for (size_t i = 0; i < l->n_docs; i++)
		doc_free(l->docs[i]);
	free(l->docs);
}

/* ---- errors ------------------------------------------------------------- */

/* Copy with truncation, always terminated. */
static void copy_trunc(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int failv(struct loader *l, int r, const struct where *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static int failv(struct loader *l, int r, const struct where *w, const char *fmt, va_list ap)
{
	struct cordon_error *e = l->reterr;
	char msg[sizeof(e->message)], pointer[sizeof(e->path)] = "";
	char out[sizeof(e->file) + sizeof(e->path) + sizeof(e->message) + 64];
	int line = 0, column = 0;

	if (!e)
		return r;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	memset(e, 0, sizeof(*e));
	if (w && w->doc) {
		json_position_of(w->doc->text, locate(w), &line, &column);
		pointer_of(w, pointer, sizeof(pointer));
		copy_trunc(e->file, sizeof(e->file), w->doc->file);
	}
	e->line = line;
	e->column = column;
	copy_trunc(e->path, sizeof(e->path), pointer);
	if (!w || !w->doc)
		copy_trunc(out, sizeof(out), msg);
	else if (pointer[0])
		snprintf(out, sizeof(out), "%s:%d:%d: at %s: %s", e->file, line, column, pointer, msg);
	else
		snprintf(out, sizeof(out), "%s:%d:%d: %s", e->file, line, column, msg);
	copy_trunc(e->message, sizeof(e->message), out);
	return r;
}

static int fail(struct loader *l, int r, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct loader *l, int r, const struct where *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = failv(l, r, w, fmt, ap);
	va_end(ap);
	return r;
}

/* An error about a whole file, before there is JSON to point into. */
static int fail_file(struct loader *l, int r, const char *file, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int fail_file(struct loader *l, int r, const char *file, int line, int column, const char *fmt, ...)
{
	struct cordon_error *e = l->reterr;
	char msg[sizeof(e->message)], out[sizeof(e->file) + sizeof(e->message) + 64];
	va_list ap;

	if (!e)
		return r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(e, 0, sizeof(*e));
	copy_trunc(e->file, sizeof(e->file), file);
	e->line = line;
	e->column = column;
	if (line > 0)
		snprintf(out, sizeof(out), "%s:%d:%d: %s", e->file, line, column, msg);
	else
		snprintf(out, sizeof(out), "%s: %s", e->file, msg);
	copy_trunc(e->message, sizeof(e->message), out);
	return r;
}

unsigned profile_edit_distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[65];

	if (la > 64 || lb > 64)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0], best;

		row[0] = (unsigned)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], v;

			v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb] > cap ? cap + 1 : row[lb];
}

/* For a word that is none of names[0..n): the closest of them (edit
 * distance at most 2), or NULL; and all of them, comma-separated, in list. */
static const char *closest_name(const char *word, const char *const *names, size_t n, char *list, size_t listlen)
{
	const char *best = NULL;
	unsigned best_d = 3;
	size_t o = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		unsigned d = profile_edit_distance(word, names[i], 2);

		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
		o += (size_t)snprintf(list + o, listlen - o, "%s%s", i ? ", " : "", names[i]);
		if (o >= listlen)
			o = listlen - 1;
	}
	return best;
}

/* The index of key in known (NULL-terminated), or an "unknown key" error. */
static int match_key(struct loader *l, const struct where *parent, const char *key, size_t index,
		     const char *const *known)
{
	struct where w = where_key(parent, key, index);
	const char *best;
	char list[512];
	size_t n = 0;

	for (; known[n]; n++)
		if (strcmp(known[n], key) == 0)
			return (int)n;
	best = closest_name(key, known, n, list, sizeof(list));
	if (best)
		return fail(l, -EINVAL, &w, "unknown key \"%.100s\", did you mean \"%s\"?", key, best);
	return fail(l, -EINVAL, &w, "unknown key \"%.100s\" (known: %s)", key, list);
}

static int expect(struct loader *l, const struct where *w, const json_t *v, json_type type, const char *what)
{
	if (json_typeof(v) == type)
		return 0;
	return fail(l, -EINVAL, w, "expected %s, not %s", what, json_type_name(v));
}

static int get_string(struct loader *l, const struct where *w, const json_t *v, size_t max, const char **ret)
{
	const char *s;
	int r = expect(l, w, v, JSON_STRING, "a string");

	if (r < 0)
		return r;
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return fail(l, -EINVAL, w, "a NUL byte is not allowed in a string");
	if (max && strlen(s) > max)
		return fail(l, max == PATH_MAX - 1 ? -ENAMETOOLONG : -EINVAL, w, "longer than %zu bytes", max);
	*ret = s;
	return 0;
}

static int count_rule(struct loader *l, const struct where *w)
{
	if (++l->n_rules > PROFILE_MAX_RULES)
		return fail(l, -E2BIG, w, "more than %d rules in this profile and the profiles it extends",
			    PROFILE_MAX_RULES);
	return 0;
}

static int raw_push(struct raw_list *list, const char *s, const struct where *w)
{
	struct raw_entry *nv = realloc(list->v, (list->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	list->v = nv;
	nv[list->n].spelled = strdup(s);
	if (!nv[list->n].spelled)
		return -ENOMEM;
	nv[list->n].where = *w;
	list->n++;
	return 0;
}

/* An array of path strings; allow_refs: "@name" group references allowed. */
static int read_path_list(struct loader *l, const struct where *w, const json_t *v, bool allow_refs,
			  struct raw_list *out)
{
	size_t i;
	json_t *e;
	int r;

	r = expect(l, w, v, JSON_ARRAY, "an array of paths");
	if (r < 0)
		return r;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s;

		r = get_string(l, &we, e, PATH_MAX - 1, &s);
		if (r < 0)
			return r;
		if (!s[0])
			return fail(l, -EINVAL, &we, "a path must not be empty");
		if (s[0] == '@' && !allow_refs)
			return fail(l, -EINVAL, &we, "a group cannot refer to \"%.100s\": list paths", s);
		r = count_rule(l, &we);
		if (r < 0)
			return r;
		r = raw_push(out, s, &we);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- sections ------------------------------------------------------------ */

static int read_meta(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "name", "description", "version", NULL };
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, known);
		const char *s;

		if (k < 0)
			return k;
		r = get_string(l, &wm, m, k == 1 ? META_MAX : 128, &s);
		if (r < 0)
			return r;
		l->meta[k] = s;
		index++;
	}
	return 0;
}

static int read_mode(struct loader *l, const struct where *w, json_t *v)
{
	const char *s;
	int r = get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (cordon_mode_from_string(s, &l->mode) < 0)
		return fail(l, -EINVAL, w, "\"%.100s\" is not a mode: use read-only, workspace-write or danger-full-access",
			    s);
	l->mode_set = true;
	l->mode_where = *w;
	return 0;
}

static int read_filesystem(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "read", "write", "deny_read", "protect", "exec", NULL };
	struct raw_list *lists[] = { &l->read, &l->write, &l->deny_read, &l->protect };
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, known);

		if (k < 0)
			return k;
		if (k == 4) {
			struct raw_list ignored = {};

			r = read_path_list(l, &wm, m, true, &ignored);
			raw_list_clear(&ignored);
			if (r < 0)
				return r;
			return fail(l, -EOPNOTSUPP, &wm,
				    "filesystem.exec (the execute-only gate) needs the tool-sandbox supervisor, not yet available");
		}
		r = read_path_list(l, &wm, m, true, lists[k]);
		if (r < 0)
			return r;
		index++;
	}
	return 0;
}

static bool group_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* groups.credentials.lift: names of credential groups, checked against the
 * catalogue's so a typo is an error, never a lift of nothing. */
static int read_lift(struct loader *l, const struct where *w, const json_t *v)
{
	const char *names[32];
	size_t i, n = profile_credential_groups(names, ELEMENTSOF(names));
	json_t *e;
	int r;

	r = expect(l, w, v, JSON_ARRAY, "an array of credential group names");
	if (r < 0)
		return r;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s, *best;
		char list[512];
		size_t k;

		r = get_string(l, &we, e, 64, &s);
		if (r < 0)
			return r;
		for (k = 0; k < n && strcmp(names[k], s) != 0; k++)
			;
		if (k == n) {
			best = closest_name(s, names, n, list, sizeof(list));
			if (best)
				return fail(l, -EINVAL, &we, "no credential group \"%.100s\", did you mean \"%s\"?", s,
					    best);
			return fail(l, -EINVAL, &we, "no credential group \"%.100s\" (groups: %s)", s, list);
		}
		r = count_rule(l, &we);
		if (r < 0)
			return r;
		r = raw_push(&l->lift, s, &we);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_groups(struct loader *l, const struct where *w, json_t *v)
{
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		struct where wk = where_key(w, key, index);
		size_t g;

		if (!group_name_valid(key))
			return fail(l, -EINVAL, &wk,
				    "group name \"%.100s\" must be 1 to 64 lower-case letters, digits, '_' or '-'", key);
		for (g = 0; g < _GROUP_MAX; g++)
			if (strcmp(builtin_group_names[g], key) == 0)
				break;
		if (g < _GROUP_MAX) {
			static const char *const known[] = { "bypass", NULL };
			static const char *const known_credentials[] = { "bypass", "lift", NULL };
			const char *bk;
			json_t *bv;
			size_t bi = 0;

			if (!json_is_object(m))
				return fail(l, -EINVAL, &wm, "\"%s\" is a built-in group: it takes {%s}, not %s", key,
					    g == GROUP_CREDENTIALS ? "\"bypass\": [paths], \"lift\": [group names]"
								   : "\"bypass\": [paths]",
					    json_type_name(m));
			json_object_foreach(m, bk, bv) {
				struct where wb = where_child(&wm, bk, bi);
				int k = match_key(l, &wm, bk, bi, g == GROUP_CREDENTIALS ? known_credentials : known);

				if (k < 0)
					return k;
				if (k == 1)
					r = read_lift(l, &wb, bv);
				else
					r = read_path_list(l, &wb, bv, false, &l->bypass[g]);
				if (r < 0)
					return r;
				bi++;
			}
		} else {
			struct raw_group *grp = NULL;

			for (size_t i = 0; i < l->n_groups; i++)
				if (strcmp(l->groups[i].name, key) == 0)
					grp = &l->groups[i];
			if (!grp) {
				struct raw_group *ng = realloc(l->groups, (l->n_groups + 1) * sizeof(*ng));

				if (!ng)
					return -ENOMEM;
				l->groups = ng;
				grp = &ng[l->n_groups++];
				*grp = (struct raw_group){ .name = key };
			}
			r = read_path_list(l, &wm, m, false, &grp->paths);
			if (r < 0)
				return r;
		}
		index++;
	}
	return 0;
}

static int read_network(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "mode", "allow_domains", "deny_domains", "allow_unix_sockets",
					     "allow_addresses", NULL };
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, known);
		const char *s;
		size_t i;
		json_t *e;

		if (k < 0)
			return k;
		if (k == 0) {
			r = get_string(l, &wm, m, 0, &s);
			if (r < 0)
				return r;
			if (strcmp(s, "none") == 0)
				l->net = PROFILE_NET_NONE;
			else if (strcmp(s, "host") == 0)
				l->net = PROFILE_NET_HOST;
			else if (strcmp(s, "proxy") == 0)
				l->net = PROFILE_NET_PROXY;
			else
				return fail(l, -EINVAL, &wm, "\"%.100s\" is not a network mode: use none, host or proxy", s);
			l->net_set = true;
			l->net_where = wm;
		} else if (k == 3) {
			/* host sockets the runner's unix gate admits; lists add */
			if (json_is_array(m))
				json_array_foreach(m, i, e)
					if (json_is_string(e) && json_string_value(e)[0] == '@') {
						struct where we = where_child(&wm, NULL, i);

						return fail(l, -EINVAL, &we, "a socket is a path, not \"%.100s\"",
							    json_string_value(e));
					}
			r = read_path_list(l, &wm, m, false, &l->allow_unix);
			if (r < 0)
				return r;
		} else {
			/* the proxy's host rules (profile_net.c); lists add */
			enum cordon_net_rule kind = k == 1 ? CORDON_NET_ALLOW_DOMAIN
						  : k == 2 ? CORDON_NET_DENY_DOMAIN
							   : CORDON_NET_ALLOW_ADDRESS;

			r = expect(l, &wm, m, JSON_ARRAY, k == 4 ? "an array of addresses" : "an array of domain names");
			if (r < 0)
				return r;
			json_array_foreach(m, i, e) {
				struct where we = where_child(&wm, NULL, i);
				char why[300];

				r = get_string(l, &we, e, 260, &s);
				if (r < 0)
					return r;
				if (profile_net_rule_check(kind, s, why, sizeof(why)) < 0)
					return fail(l, -EINVAL, &we, "%s", why);
				if (strv_push_unique(&l->net_rules[kind], s) < 0)
					return fail(l, -ENOMEM, &we, "out of memory");
			}
			if (!l->net_rules_seen) {
				l->net_rules_seen = true;
				l->net_rules_where = wm;
			}
		}
		index++;
	}
	return 0;
}

static int read_environment(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "allow_vars", "set_vars", NULL };
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, known);

		if (k < 0)
			return k;
		if (k == 0) {
			size_t i;
			json_t *e;

			r = expect(l, &wm, m, JSON_ARRAY, "an array of variable names");
			if (r < 0)
				return r;
			json_array_foreach(m, i, e) {
				struct where we = where_child(&wm, NULL, i);
				const char *s;

				r = get_string(l, &we, e, 0, &s);
				if (r < 0)
					return r;
				if (!env_name_valid(s, true))
					return fail(l, -EINVAL, &we,
						    "\"%.100s\" is not a variable name or pattern (NAME, PREFIX_* or *)", s);
				if (env_name_is_injection(s))
					return fail(l, -EPERM, &we,
						    "refusing to pass %s into the sandbox: it makes a loader or interpreter run code chosen from outside",
						    s);
				r = count_rule(l, &we);
				if (r < 0)
					return r;
				r = raw_push(&l->allow_vars, s, &we);
				if (r < 0)
					return r;
			}
		} else {
			const char *name;
			json_t *val;
			size_t vi = 0;

			r = expect(l, &wm, m, JSON_OBJECT, "an object of NAME: value");
			if (r < 0)
				return r;
			json_object_foreach(m, name, val) {
				struct where wv = where_child(&wm, name, vi);
				struct where wk = where_key(&wm, name, vi);
				const char *s;
				struct raw_var *nv;
				size_t j;

				if (!env_name_valid(name, false))
					return fail(l, -EINVAL, &wk, "\"%.100s\" is not a variable name", name);
				if (env_name_is_injection(name))
					return fail(l, -EPERM, &wk,
						    "refusing to set %s: it makes a loader or interpreter run code chosen from outside",
						    name);
				r = get_string(l, &wv, val, ENV_VALUE_MAX, &s);
				if (r < 0)
					return r;
				r = count_rule(l, &wv);
				if (r < 0)
					return r;
				/* scalars override: a later file's value replaces */
				for (j = 0; j < l->n_vars; j++)
					if (strcmp(l->vars[j].name, name) == 0)
						break;
				if (j == l->n_vars) {
					nv = realloc(l->vars, (l->n_vars + 1) * sizeof(*nv));
					if (!nv)
						return -ENOMEM;
					l->vars = nv;
					l->n_vars++;
				}
				l->vars[j] = (struct raw_var){ .name = name, .value = s, .where = wv };
				vi++;
			}
		}
		index++;
	}
	return 0;
}

int profile_parse_size(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] != '\0' && !(end[1] == 'B' && end[2] == '\0') &&
	    !(end[1] == 'i' && end[2] == 'B' && end[3] == '\0'))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = (uint64_t)v << shift;
	return 0;
}

/* seconds: an integer, or "N", "Ns", "Nm", "Nh". */
static int parse_duration(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		mul = 60, end++;
	else if (*end == 'h')
		mul = 3600, end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*ret = v * mul;
	return 0;
}

static const char *const limit_keys[] = {
	[PROFILE_LIMIT_TIMEOUT] = "timeout",
	[PROFILE_LIMIT_CPU] = "cpu",
	[PROFILE_LIMIT_MEMORY] = "memory",
	[PROFILE_LIMIT_MAX_PROCESSES] = "max_processes",
	[PROFILE_LIMIT_MAX_FILE_SIZE] = "max_file_size",
	[PROFILE_LIMIT_MAX_OPEN_FILES] = "max_open_files",
	[PROFILE_LIMIT_MAX_OUTPUT] = "max_output",
	[PROFILE_LIMIT_ON_OUTPUT_LIMIT] = "on_output_limit",
	[PROFILE_LIMIT_FALLBACK] = "limits_fallback",
	NULL,
};

enum limit_kind { LIMIT_SECONDS, LIMIT_SIZE, LIMIT_COUNT };

static int read_limit_number(struct loader *l, const struct where *w, json_t *v, enum limit_kind kind,
			     uint64_t min, uint64_t max, const char *range, uint64_t *ret)
{
	uint64_t n;
	int r;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return fail(l, -EINVAL, w, "must be %s, not %" JSON_INTEGER_FORMAT, range,
				    json_integer_value(v));
		n = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v) && kind != LIMIT_COUNT) {
		const char *s;

		r = get_string(l, w, v, 64, &s);
		if (r < 0)
			return r;
		r = kind == LIMIT_SIZE ? profile_parse_size(s, &n) : parse_duration(s, &n);
		if (r < 0)
			return fail(l, -EINVAL, w, "\"%.64s\" is not %s", s,
				    kind == LIMIT_SIZE ? "a size (a number of bytes, or with a k, M, G or T suffix)"
						       : "a duration (seconds, or with an s, m or h suffix)");
	} else
		return fail(l, -EINVAL, w, "expected %s, not %s",
			    kind == LIMIT_COUNT ? "an integer" : kind == LIMIT_SIZE ? "a size (integer or \"64M\")"
										: "seconds (integer or \"5m\")",
			    json_type_name(v));
	if (n < min || n > max)
		return fail(l, -ERANGE, w, "must be %s, not %" PRIu64, range, n);
	*ret = n;
	return 0;
}

static int read_limits(struct loader *l, const struct where *w, json_t *v)
{
	struct profile_limits *lim = &l->limits;
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, limit_keys);
		const char *s;

		if (k < 0)
			return k;
		switch ((enum profile_limit_key)k) {
		case PROFILE_LIMIT_TIMEOUT:
			r = read_limit_number(l, &wm, m, LIMIT_SECONDS, 1, 604800, "from 1 second to 1 week",
					      &lim->timeout_seconds);
			break;
		case PROFILE_LIMIT_CPU:
			r = read_limit_number(l, &wm, m, LIMIT_SECONDS, 1, 604800, "from 1 second to 1 week",
					      &lim->cpu_seconds);
			break;
		case PROFILE_LIMIT_MEMORY:
			r = read_limit_number(l, &wm, m, LIMIT_SIZE, 1ull << 20, 1ull << 40, "from 1M to 1T",
					      &lim->memory);
			break;
		case PROFILE_LIMIT_MAX_PROCESSES:
			r = read_limit_number(l, &wm, m, LIMIT_COUNT, 1, 4194304, "from 1 to 4194304",
					      &lim->max_processes);
			break;
		case PROFILE_LIMIT_MAX_FILE_SIZE:
			r = read_limit_number(l, &wm, m, LIMIT_SIZE, 1, 1ull << 40, "from 1 byte to 1T",
					      &lim->max_file_size);
			break;
		case PROFILE_LIMIT_MAX_OPEN_FILES:
			r = read_limit_number(l, &wm, m, LIMIT_COUNT, 3, 1048576, "from 3 to 1048576",
					      &lim->max_open_files);
			break;
		case PROFILE_LIMIT_MAX_OUTPUT:
			r = read_limit_number(l, &wm, m, LIMIT_SIZE, 1, 1ull << 30, "from 1 byte to 1G",
					      &lim->max_output);
			break;
		case PROFILE_LIMIT_ON_OUTPUT_LIMIT:
			r = get_string(l, &wm, m, 0, &s);
			if (r < 0)
				break;
			if (strcmp(s, "truncate") == 0)
				lim->on_output_limit = PROFILE_OUTPUT_TRUNCATE;
			else if (strcmp(s, "kill") == 0)
				lim->on_output_limit = PROFILE_OUTPUT_KILL;
			else
				r = fail(l, -EINVAL, &wm, "\"%.100s\" is not truncate or kill", s);
			break;
		case PROFILE_LIMIT_FALLBACK:
			r = get_string(l, &wm, m, 0, &s);
			if (r < 0)
				break;
			if (strcmp(s, "warn") == 0)
				lim->fallback_fail = false;
			else if (strcmp(s, "fail") == 0)
				lim->fallback_fail = true;
			else
				r = fail(l, -EINVAL, &wm, "\"%.100s\" is not warn or fail", s);
			break;
		case _PROFILE_LIMIT_MAX:
		default:
			r = -EINVAL;
			break;
		}
		if (r < 0)
			return r;
		lim->set |= 1u << k;
		l->limit_where[k] = wm;
		index++;
	}
	return 0;
}

/* command_policies: the shape the tool-sandbox issue will enforce,
 *   { "CMD": { "default": "allow|deny|approve", "profile": "NAME",
 *              "allow"|"deny"|"approve": [ { "argv": { "exact"|"prefix"|"contains": [..] },
 *                                            "env": { "NAME": { "equals": "v" } | { "one_of": [..] } } } ] } }
 * checked, then refused: nothing enforces it yet. */
static int read_string_array(struct loader *l, const struct where *w, json_t *v)
{
	size_t i;
	json_t *e;
	int r = expect(l, w, v, JSON_ARRAY, "an array of strings");

	if (r < 0)
		return r;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s;

		r = get_string(l, &we, e, 0, &s);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_command_rule(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "argv", "env", NULL };
	static const char *const argv_known[] = { "exact", "prefix", "contains", NULL };
	static const char *const env_known[] = { "equals", "one_of", NULL };
	const char *key, *k2;
	json_t *m, *m2;
	size_t index = 0, i2;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, key, m) {
		struct where wm = where_child(w, key, index);
		int k = match_key(l, w, key, index, known);

		if (k < 0)
			return k;
		r = expect(l, &wm, m, JSON_OBJECT, "an object");
		if (r < 0)
			return r;
		i2 = 0;
		json_object_foreach(m, k2, m2) {
			struct where w2 = where_child(&wm, k2, i2);

			if (k == 0) {
				r = match_key(l, &wm, k2, i2, argv_known);
				if (r < 0)
					return r;
				r = read_string_array(l, &w2, m2);
			} else {
				const char *k3;
				json_t *m3;
				size_t i3 = 0;

				if (!env_name_valid(k2, false))
					return fail(l, -EINVAL, &w2, "\"%.100s\" is not a variable name", k2);
				r = expect(l, &w2, m2, JSON_OBJECT, "an object");
				if (r < 0)
					return r;
				json_object_foreach(m2, k3, m3) {
					struct where w3 = where_child(&w2, k3, i3);
					const char *s;
					int kk = match_key(l, &w2, k3, i3, env_known);

					if (kk < 0)
						return kk;
					r = kk == 0 ? get_string(l, &w3, m3, 0, &s) : read_string_array(l, &w3, m3);
					if (r < 0)
						return r;
					i3++;
				}
			}
			if (r < 0)
				return r;
			i2++;
		}
		index++;
	}
	return 0;
}

static int read_command_policies(struct loader *l, const struct where *w, json_t *v)
{
	static const char *const known[] = { "default", "profile", "allow", "deny", "approve", NULL };
	const char *cmd, *key;
	json_t *c, *m;
	size_t ci = 0;
	int r;

	r = expect(l, w, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	json_object_foreach(v, cmd, c) {
		struct where wc = where_child(w, cmd, ci);
		size_t index = 0;

		if (!cmd[0] || strchr(cmd, '/'))
			return fail(l, -EINVAL, &wc, "\"%.100s\" is not a command name", cmd);
		r = expect(l, &wc, c, JSON_OBJECT, "an object");
		if (r < 0)
			return r;
		json_object_foreach(c, key, m) {
			struct where wm = where_child(&wc, key, index);
			int k = match_key(l, &wc, key, index, known);
			const char *s;
			size_t i;
			json_t *e;

			if (k < 0)
				return k;
			if (k == 0) {
				r = get_string(l, &wm, m, 0, &s);
				if (r < 0)
					return r;
				if (strcmp(s, "allow") != 0 && strcmp(s, "deny") != 0 && strcmp(s, "approve") != 0)
					return fail(l, -EINVAL, &wm, "\"%.100s\" is not allow, deny or approve", s);
			} else if (k == 1) {
				r = get_string(l, &wm, m, 255, &s);
				if (r < 0)
					return r;
			} else {
				r = expect(l, &wm, m, JSON_ARRAY, "an array of rules");
				if (r < 0)
					return r;
				json_array_foreach(m, i, e) {
					struct where we = where_child(&wm, NULL, i);

					r = read_command_rule(l, &we, e);
					if (r < 0)
						return r;
				}
			}
			index++;
		}
		ci++;
	}
	return fail(l, -EOPNOTSUPP, w, "command_policies needs the tool-sandbox supervisor, not yet available");
}

/* ---- finding and reading files ------------------------------------------- */

static bool name_is_path(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n >= 5 && strcmp(name + n - 5, ".json") == 0);
}

static const char *builtin_text(const char *name, size_t *ret_len)
{
	for (size_t i = 0; i < ELEMENTSOF(embedded_profiles); i++)
		if (strcmp(embedded_profiles[i].name, name) == 0) {
			*ret_len = embedded_profiles[i].len;
			return embedded_profiles[i].text;
		}
	return NULL;
}

const char *const *profile_builtin_names(void)
{
	static const char *names[ELEMENTSOF(embedded_profiles) + 1];

	if (!names[0])
		for (size_t i = 0; i < ELEMENTSOF(embedded_profiles); i++)
			names[i] = embedded_profiles[i].name;
	return names;
}

int profile_builtin_text(const char *name, const char **ret_text, size_t *ret_len)
{
	size_t len;
	const char *t = name ? builtin_text(name, &len) : NULL;

	if (!t)
		return -ENOENT;
	*ret_text = t;
	*ret_len = len;
	return 0;
}

/* Read path into a new doc; -errno without a message (the caller says). */
static int doc_read_file(const char *path, const char *shown, struct doc **ret)
{
	_cleanup_free_ char *text = NULL;
	struct doc *d;
	size_t len = 0;
	char *slash;
	int r;

	/* regular files only, opened non-blocking: a FIFO named by extends
	 * must not hang the loader */
	r = read_file_capped(path, PROFILE_MAX_BYTES, true, &text, &len);
	if (r < 0)
		return r;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->file = strdup(shown);
	d->dir = strdup(path);
	if (!d->file || !d->dir) {
		doc_free(d);
		return -ENOMEM;
	}
	slash = strrchr(d->dir, '/');
	if (!slash)
		strcpy(d->dir, ".");
	else
		slash[slash == d->dir ? 1 : 0] = '\0';
	if (cordon_canonicalize(path, &d->identity, NULL) < 0) {
		d->identity = strdup(path);
		if (!d->identity) {
			doc_free(d);
			return -ENOMEM;
		}
	}
	d->text = TAKE_PTR(text);
	d->len = len;
	*ret = d;
	return 0;
}

static int doc_from_buffer(const char *data, size_t len, const char *file, const char *dir, const char *identity,
			   struct doc **ret)
{
	struct doc *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->file = strdup(file);
	d->dir = dir ? strdup(dir) : NULL;
	d->identity = strdup(identity);
	d->text = malloc(len + 1);
	if (!d->file || (dir && !d->dir) || !d->identity || !d->text) {
		doc_free(d);
		return -ENOMEM;
	}
	if (len)
		memcpy(d->text, data, len);
	d->text[len] = '\0';
	d->len = len;
	*ret = d;
	return 0;
}

static int loader_keep(struct loader *l, struct doc *d)
{
	struct doc **nd = realloc(l->docs, (l->n_docs + 1) * sizeof(*nd));

	if (!nd) {
		doc_free(d);
		return -ENOMEM;
	}
	l->docs = nd;
	nd[l->n_docs++] = d;
	return 0;
}

static const char *errno_text(int r)
{
	return strerror(-r);
}

/* Find NAME (see profile_load). from/from_where: the extends that asked, or
 * NULL at the top. */
static int find_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret)
{
	_cleanup_free_ char *joined = NULL, *ident = NULL;
	const char *text;
	size_t len;
	int r;

	if (name_is_path(name)) {
		const char *path = name;

		if (from && !from->dir)
			return fail(l, -EINVAL, from_where, "a built-in profile can only extend built-in profiles");
		if (name[0] != '/' && from && strcmp(from->dir, ".") != 0) {
			joined = path_join(from->dir, name);
			if (!joined)
				return -ENOMEM;
			path = joined;
		}
		if (strlen(path) >= PATH_MAX)
			return from ? fail(l, -ENAMETOOLONG, from_where, "profile path is longer than %d bytes",
					   PATH_MAX - 1)
				    : fail_file(l, -ENAMETOOLONG, "(profile)", 0, 0,
						"profile path is longer than %d bytes", PATH_MAX - 1);
		r = doc_read_file(path, path, ret);
		if (r == -EFBIG)
			return fail_file(l, r, path, 0, 0, "profile is larger than the 1 MiB limit");
		if (r < 0)
			return from ? fail(l, r, from_where, "cannot read \"%.200s\": %s", path, errno_text(r))
				    : fail_file(l, r, path, 0, 0, "cannot read profile: %s", errno_text(r));
		return 0;
	}

	if (!name[0] || strlen(name) > 255)
		return from ? fail(l, -EINVAL, from_where, "\"%.100s\" is not a profile name", name)
			    : fail_file(l, -EINVAL, "(profile)", 0, 0, "\"%.100s\" is not a profile name", name);
	for (size_t i = 0; i < 2; i++) {
		const char *dir = i == 0 ? l->user_dir : l->data_dir;
		_cleanup_free_ char *file = NULL;
		char fname[300];

		if (!dir || !dir[0])
			continue;
		snprintf(fname, sizeof(fname), "%s.json", name);
		file = path_join(dir, fname);
		if (!file)
			return -ENOMEM;
		r = doc_read_file(file, file, ret);
		if (r == 0)
			return 0;
		if (r == -EFBIG)
			return fail_file(l, r, file, 0, 0, "profile is larger than the 1 MiB limit");
		if (r != -ENOENT && r != -ENOTDIR)
			return from ? fail(l, r, from_where, "cannot read \"%.200s\": %s", file, errno_text(r))
				    : fail_file(l, r, file, 0, 0, "cannot read profile: %s", errno_text(r));
	}
	text = builtin_text(name, &len);
	if (!text)
		return from ? fail(l, -ENOENT, from_where,
				   "no profile named \"%.100s\" (not in the user or installed profile directories, not built in)",
				   name)
			    : fail_file(l, -ENOENT, name, 0, 0,
					"no profile by that name (not in the user or installed profile directories, not built in)");
	if (asprintf(&ident, "builtin:%s", name) < 0)
		return -ENOMEM;
	return doc_from_buffer(text, len, ident, NULL, ident, ret);
}

/* ---- one document ---------------------------------------------------------- */


enum top_key {
	TOP_SCHEMA,
	TOP_EXTENDS,
	TOP_META,
	TOP_MODE,
	TOP_WORKSPACE,
	TOP_FILESYSTEM,
	TOP_GROUPS,
	TOP_NETWORK,
	TOP_ENVIRONMENT,
	TOP_LIMITS,
	TOP_COMMAND_POLICIES,
	_TOP_MAX,
};

static const char *const top_keys[_TOP_MAX + 1] = {
	[TOP_SCHEMA] = "$schema",
	[TOP_EXTENDS] = "extends",
	[TOP_META] = "meta",
	[TOP_MODE] = "mode",
	[TOP_WORKSPACE] = "workspace",
	[TOP_FILESYSTEM] = "filesystem",
	[TOP_GROUPS] = "groups",
	[TOP_NETWORK] = "network",
	[TOP_ENVIRONMENT] = "environment",
	[TOP_LIMITS] = "limits",
	[TOP_COMMAND_POLICIES] = "command_policies",
	NULL,
};

const char *const *profile_known_keys(const char *section)
{
	static const char *const meta[] = { "name", "description", "version", NULL };
	static const char *const fs[] = { "read", "write", "deny_read", "protect", "exec", NULL };
	static const char *const net[] = { "mode", "allow_domains", "deny_domains", "allow_unix_sockets",
					   "allow_addresses", NULL };
	static const char *const env[] = { "allow_vars", "set_vars", NULL };

	if (!section || !section[0])
		return top_keys;
	if (strcmp(section, "meta") == 0)
		return meta;
	if (strcmp(section, "filesystem") == 0)
		return fs;
	if (strcmp(section, "network") == 0)
		return net;
	if (strcmp(section, "environment") == 0)
		return env;
	if (strcmp(section, "limits") == 0)
		return limit_keys;
	if (strcmp(section, "groups") == 0)
		return builtin_group_names_v;
	return NULL;
}

static int read_doc(struct loader *l, struct doc *d);

static int read_extends(struct loader *l, const struct doc *d, const struct where *w, json_t *v)
{
	struct doc *parent = NULL;
	const char *name;
	int r;

	r = get_string(l, w, v, PATH_MAX - 1, &name);
	if (r < 0)
		return r;
	if (!name[0])
		return fail(l, -EINVAL, w, "extends must name a profile");
	if (l->depth >= PROFILE_MAX_EXTENDS_DEPTH)
		return fail(l, -ELOOP, w, "extends chain is deeper than %d profiles", PROFILE_MAX_EXTENDS_DEPTH);
	r = find_doc(l, name, d, w, &parent);
	if (r < 0)
		return r;
	r = loader_keep(l, parent);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->depth; i++)
		if (strcmp(l->stack[i]->identity, parent->identity) == 0) {
			char chain[400] = "";
			size_t o = 0;

			for (size_t j = i; j < l->depth; j++) {
				o += (size_t)snprintf(chain + o, sizeof(chain) - o, "%s -> ", l->stack[j]->file);
				if (o >= sizeof(chain))
					o = sizeof(chain) - 1;
			}
			snprintf(chain + o, sizeof(chain) - o, "%s", parent->file);
			return fail(l, -ELOOP, w, "extends cycle: %s", chain);
		}
	return read_doc(l, parent);
}

static int read_doc(struct loader *l, struct doc *d)
{
	struct where root = { .doc = d };
	json_t *values[_TOP_MAX] = {};
	size_t indexes[_TOP_MAX] = {};
	json_error_t jerr;
	const char *key, *nul;
	json_t *v;
	size_t index = 0;
	int r;

	if (d->len > PROFILE_MAX_BYTES)
		return fail_file(l, -EFBIG, d->file, 0, 0, "profile is larger than the 1 MiB limit");
	nul = memchr(d->text, '\0', d->len);
	if (nul) {
		int line, column;

		json_position_of(d->text, nul, &line, &column);
		return fail_file(l, -EINVAL, d->file, line, column, "NUL byte in profile");
	}
	d->root = json_loadb(d->text, d->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!d->root)
		return fail_file(l, -EINVAL, d->file, jerr.line > 0 ? jerr.line : 1, jerr.column > 0 ? jerr.column : 1,
				 "invalid JSON: %s", jerr.text);
	if (!json_is_object(d->root))
		return fail(l, -EINVAL, &root, "a profile is a JSON object, not %s", json_type_name(d->root));

	json_object_foreach(d->root, key, v) {
		int k = match_key(l, &root, key, index, top_keys);

		if (k < 0)
			return k;
		values[k] = v;
		indexes[k] = index++;
	}

	l->stack[l->depth++] = d;
	if (values[TOP_EXTENDS]) {
		struct where w = where_child(&root, top_keys[TOP_EXTENDS], indexes[TOP_EXTENDS]);

		r = read_extends(l, d, &w, values[TOP_EXTENDS]);
		if (r < 0)
			return r;
	}
	l->depth--;

	for (size_t k = 0; k < _TOP_MAX; k++) {
		struct where w;
		const char *s;

		if (!values[k] || k == TOP_EXTENDS)
			continue;
		w = where_child(&root, top_keys[k], indexes[k]);
		switch ((enum top_key)k) {
		case TOP_SCHEMA:
			r = get_string(l, &w, values[k], 4096, &s);
			break;
		case TOP_META:
			r = read_meta(l, &w, values[k]);
			break;
		case TOP_MODE:
			r = read_mode(l, &w, values[k]);
			break;
		case TOP_WORKSPACE:
			r = get_string(l, &w, values[k], PATH_MAX - 1, &s);
			if (r >= 0 && !s[0])
				r = fail(l, -EINVAL, &w, "a path must not be empty");
			if (r >= 0 && (strncmp(s, "$WORKSPACE", 10) == 0 || s[0] == '@'))
				r = fail(l, -EINVAL, &w, "the workspace cannot be defined by \"%.100s\"", s);
			else if (r >= 0 && s[0] != '/' && s[0] != '~' && s[0] != '$')
				r = fail(l, -EINVAL, &w, "the workspace must be an absolute path, not \"%.100s\"", s);
			if (r >= 0) {
				l->ws_spelled = s;
				l->ws_where = w;
			}
			break;
		case TOP_FILESYSTEM:
			r = read_filesystem(l, &w, values[k]);
			break;
		case TOP_GROUPS:
			r = read_groups(l, &w, values[k]);
			break;
		case TOP_NETWORK:
			r = read_network(l, &w, values[k]);
			break;
		case TOP_ENVIRONMENT:
			r = read_environment(l, &w, values[k]);
			break;
		case TOP_LIMITS:
			r = read_limits(l, &w, values[k]);
			break;
		case TOP_COMMAND_POLICIES:
			r = read_command_policies(l, &w, values[k]);
			break;
		case TOP_EXTENDS:
		case _TOP_MAX:
		default:
			r = 0;
			break;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- resolving -------------------------------------------------------------- */

void profile_origin_clear(struct profile_origin *o)
{
	free(o->file);
	free(o->pointer);
	*o = (struct profile_origin){};
}

int profile_origin_copy(struct profile_origin *dst, const struct profile_origin *src)
{
	dst->file = src->file ? strdup(src->file) : NULL;
	dst->pointer = src->pointer ? strdup(src->pointer) : NULL;
	if ((src->file && !dst->file) || (src->pointer && !dst->pointer)) {
		profile_origin_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static int origin_of(const struct where *w, struct profile_origin *ret)
{
	char pointer[256];

	if (!w->doc) {
		ret->file = strdup("(built-in)");
		ret->pointer = strdup("");
	} else {
		pointer_of(w, pointer, sizeof(pointer));
		ret->file = strdup(w->doc->file);
		ret->pointer = strdup(pointer);
	}
	if (!ret->file || !ret->pointer) {
		profile_origin_clear(ret);
		return -ENOMEM;
	}
	return 0;
}

static int note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path,
		    const struct where *w, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path,
		    const struct where *w, const char *fmt, ...)
{
	struct profile_note *nn = realloc(p->notes, (p->n_notes + 1) * sizeof(*nn));
	struct profile_note *n;
	va_list ap;
	int r;

	if (!nn)
		return -ENOMEM;
	p->notes = nn;
	n = &nn[p->n_notes];
	*n = (struct profile_note){ .kind = kind };
	va_start(ap, fmt);
	r = vasprintf(&n->text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	if (path) {
		n->path = strdup(path);
		if (!n->path) {
			free(n->text);
			return -ENOMEM;
		}
	}
	r = origin_of(w, &n->origin);
	if (r < 0) {
		free(n->text);
		free(n->path);
		return r;
	}
	p->n_notes++;
	return 0;
}

static int rules_push(struct profile_rules *rs, const char *path, const char *spelled, const struct where *w)
{
	struct profile_rule *nv;
	int r;

	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].path, path) == 0)
			return 0; /* the first rule that named it stays its origin */
	nv = realloc(rs->v, (rs->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	rs->v = nv;
	nv = &nv[rs->n];
	*nv = (struct profile_rule){ .path = strdup(path), .spelled = strdup(spelled) };
	if (!nv->path || !nv->spelled)
		goto oom;
	r = origin_of(w, &nv->origin);
	if (r < 0)
		goto oom;
	rs->n++;
	return 0;
oom:
	free(nv->path);
	free(nv->spelled);
	return -ENOMEM;
}

static int canonical(struct loader *l, const struct where *w, const char *path, char **ret)
{
	struct cordon_error e = {};
	int r;

	if (strlen(path) >= PATH_MAX)
		return fail(l, -ENAMETOOLONG, w, "the expanded path is longer than %d bytes", PATH_MAX - 1);
	r = cordon_canonicalize(path, ret, &e);
	if (r < 0)
		return fail(l, r, w, "%s", e.message);
	return 0;
}

static int git_ensure(struct loader *l)
{
	int r;

	if (l->git_read)
		return 0;
	r = git_paths_read(l->home, l->xdg, l->system_gitconfig, &l->git);
	if (r < 0)
		return r;
	l->git_read = true;
	return 0;
}

/* Expand one spelled entry to absolute (not yet canonical) paths. */
static int expand_entry(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e,
			char ***ret, unsigned group_depth)
{
	_cleanup_strv_free_ char **out = NULL;
	const char *s = e->spelled, *base = NULL, *rest = NULL;
	char *joined;
	int r;

	if (s[0] == '@') {
		if (strcmp(s, "@git:config-files") == 0 || strcmp(s, "@git:hooks-path") == 0) {
			r = git_ensure(l);
			if (r < 0)
				return fail(l, r, &e->where, "cannot read the git configuration: %s", errno_text(r));
			r = strv_extend_strv(&out, (const char *const *)(s[5] == 'c' ? l->git.config_files
										 : l->git.hooks_paths));
			if (r < 0)
				return r;
			if (!out) {
				out = calloc(1, sizeof(char *));
				if (!out)
					return -ENOMEM;
			}
			*ret = TAKE_PTR(out);
			return 0;
		}
		if (strncmp(s, "@git:", 5) == 0)
			return fail(l, -EINVAL, &e->where,
				    "unknown token \"%.100s\" (known: @git:config-files, @git:hooks-path)", s);
		for (size_t g = 0; g < _GROUP_MAX; g++)
			if (strcmp(s + 1, builtin_group_names[g]) == 0)
				return fail(l, -EINVAL, &e->where,
					    "\"%s\" is a built-in group: it always applies; only its bypass can be set", s);
		for (size_t i = 0; i < l->n_groups; i++)
			if (strcmp(l->groups[i].name, s + 1) == 0) {
				out = calloc(1, sizeof(char *));
				if (!out)
					return -ENOMEM;
				for (size_t j = 0; j < l->groups[i].paths.n; j++) {
					_cleanup_strv_free_ char **sub = NULL;

					r = expand_entry(l, p, &l->groups[i].paths.v[j], &sub, group_depth + 1);
					if (r < 0)
						return r;
					r = strv_extend_strv(&out, (const char *const *)sub);
					if (r < 0)
						return r;
				}
				*ret = TAKE_PTR(out);
				return 0;
			}
		return fail(l, -EINVAL, &e->where, "no group named \"%.100s\" (define it under groups)", s + 1);
	}

	if (s[0] == '~') {
		if (s[1] != '\0' && s[1] != '/')
			return fail(l, -EINVAL, &e->where, "\"%.100s\": only ~ and ~/ are supported, not ~user", s);
		if (!l->home)
			return fail(l, -EINVAL, &e->where, "\"%.100s\" needs HOME, which is not set", s);
		base = l->home;
		rest = s + 1;
	} else if (s[0] == '$') {
		static const char *const tokens[] = { "$WORKSPACE", "$HOME", "$TMPDIR", "$XDG_CONFIG_HOME", NULL };
		size_t n = strcspn(s, "/");
		size_t t;

		for (t = 0; tokens[t]; t++)
			if (strlen(tokens[t]) == n && strncmp(tokens[t], s, n) == 0)
				break;
		if (!tokens[t])
			return fail(l, -EINVAL, &e->where,
				    "unknown token \"%.*s\" (known: $WORKSPACE, $HOME, $TMPDIR, $XDG_CONFIG_HOME)",
				    (int)(n > 100 ? 100 : n), s);
		base = t == 0 ? p->workspace : t == 1 ? l->home : t == 2 ? l->tmpdir : l->xdg;
		if (!base)
			return fail(l, -EINVAL, &e->where, "\"%s\" is not set", tokens[t]);
		rest = s + n;
	} else if (s[0] == '/') {
		base = NULL;
	} else {
		if (!p->workspace)
			return fail(l, -EINVAL, &e->where, "relative path \"%.100s\" needs a workspace", s);
		base = p->workspace;
		rest = s;
	}
	joined = base ? (rest[0] ? path_join(base, rest) : strdup(base)) : strdup(s);
	if (!joined)
		return -ENOMEM;
	r = strv_consume(&out, joined);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(out);
	return 0;
}

enum list_kind { LIST_READ, LIST_WRITE, LIST_DENY, LIST_PROTECT, LIST_BYPASS, LIST_SOCKET };

static int resolve_list(struct loader *l, struct cordon_profile *p, const struct raw_list *in,
			enum list_kind kind, struct profile_rules *out)
{
	int r;

	for (size_t i = 0; i < in->n; i++) {
		_cleanup_strv_free_ char **paths = NULL;

		r = expand_entry(l, p, &in->v[i], &paths, 0);
		if (r < 0)
			return r;
		if (!paths[0] && in->v[i].spelled[0] == '@') {
			r = note_add(p, PROFILE_NOTE_EMPTY_TOKEN, NULL, &in->v[i].where, "%s names no path here",
				     in->v[i].spelled);
			if (r < 0)
				return r;
		}
		STRV_FOREACH(x, paths) {
			_cleanup_free_ char *c = NULL;
			struct stat st;

			r = canonical(l, &in->v[i].where, *x, &c);
			if (r < 0)
				return r;
			if (strcmp(c, "/") == 0 && kind != LIST_READ)
				return fail(l, -EINVAL, &in->v[i].where, "\"%.100s\" is the whole filesystem",
					    in->v[i].spelled);
			/* Missing read, write and read-deny paths are checked
			 * like the others, then skipped and reported (prune). */
			if (kind != LIST_PROTECT && kind != LIST_BYPASS && kind != LIST_SOCKET && stat(c, &st) < 0 &&
			    errno != ENOENT && errno != ENOTDIR)
				return fail(l, -errno, &in->v[i].where, "cannot inspect %s: %m", c);
			if (++l->n_rules > PROFILE_MAX_RULES)
				return fail(l, -E2BIG, &in->v[i].where,
					    "more than %d rules once expanded", PROFILE_MAX_RULES);
			r = rules_push(out, c, in->v[i].spelled, &in->v[i].where);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Drop rules whose path does not exist, each reported. */
/* A lifted group entry needs a grant: a read grant for credentials, a write
 * grant otherwise, and under workspace-write the workspace is one (a .vscode
 * there is writable once lifted, whether or not it exists yet). */
static bool bypass_granted(const struct cordon_profile *p, unsigned g, const struct profile_rules *grants,
			   const char *path)
{
	for (size_t j = 0; j < grants->n; j++)
		if (path_is_under(grants->v[j].path, path) || path_is_under(path, grants->v[j].path))
			return true;
	return g != GROUP_CREDENTIALS && p->mode == CORDON_MODE_WORKSPACE_WRITE && p->workspace &&
	       path_is_under(path, p->workspace);
}

static int prune_missing(struct cordon_profile *p, struct profile_rules *rs, const struct raw_list *raw)
{
	size_t o = 0;
	int r;

	for (size_t i = 0; i < rs->n; i++) {
		struct profile_rule *rule = &rs->v[i];
		struct stat st;

		if (stat(rule->path, &st) == 0) {
			rs->v[o++] = *rule;
			continue;
		}
		for (size_t j = 0; j < raw->n; j++)
			if (strcmp(raw->v[j].spelled, rule->spelled) == 0) {
				r = note_add(p, PROFILE_NOTE_MISSING_PATH, rule->path, &raw->v[j].where,
					     "%s does not exist: skipped", rule->path);
				if (r < 0)
					return r;
				break;
			}
		free(rule->path);
		free(rule->spelled);
		profile_origin_clear(&rule->origin);
	}
	rs->n = o;
	return 0;
}

const struct profile_rule *profile_rules_covering(const struct profile_rules *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (path_is_under(path, rs->v[i].path))
			return &rs->v[i];
	return NULL;
}

bool profile_rules_contain(const struct profile_rules *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].path, path) == 0)
			return true;
	return false;
}

/* The members of a built-in group, canonical. */
int profile_group_members(const struct cordon_profile *p, const char *home, unsigned g, char ***ret)
{
	_cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
	int r;

	if (!out)
		return -ENOMEM;
	switch ((enum builtin_group)g) {
	case GROUP_CREDENTIALS: {
		/* as the policy has them: below HOME and the passwd home, and a
		 * root caller's system secrets */
		_cleanup_free_ char *other = NULL;
		const char *homes[2] = { home, NULL };

		r = policy_other_home(home, &other);
		if (r < 0)
			return r;
		homes[1] = other;
		for (size_t h = 0; h < 2; h++)
			for (size_t i = 0; homes[h] && policy_default_deny_read[i].path; i++) {
				_cleanup_free_ char *j = path_join(homes[h], policy_default_deny_read[i].path), *c = NULL;

				if (!j)
					return -ENOMEM;
				if (cordon_canonicalize(j, &c, NULL) < 0 || strv_contains(out, c))
					continue;
				r = strv_push(&out, c);
				if (r < 0)
					return r;
			}
		for (size_t i = 0; geteuid() == 0 && policy_root_deny_read[i]; i++) {
			r = strv_push(&out, policy_root_deny_read[i]);
			if (r < 0)
				return r;
		}
		break;
	}
	case GROUP_PERSISTENCE:
		for (size_t i = 0; p->workspace && policy_default_protect[i]; i++) {
			_cleanup_free_ char *j = path_join(p->workspace, policy_default_protect[i]), *c = NULL;

			if (!j)
				return -ENOMEM;
			if (cordon_canonicalize(j, &c, NULL) < 0)
				continue;
			r = strv_push(&out, c);
			if (r < 0)
				return r;
		}
		for (size_t i = 0; home && policy_default_protect_home[i]; i++) {
			_cleanup_free_ char *j = path_join(home, policy_default_protect_home[i]), *c = NULL;

			if (!j)
				return -ENOMEM;
			if (cordon_canonicalize(j, &c, NULL) < 0)
				continue;
			r = strv_push(&out, c);
			if (r < 0)
				return r;
		}
		break;
	case GROUP_SYSTEM_WRITE:
		r = strv_extend_strv(&out, system_write_paths);
		if (r < 0)
			return r;
		break;
	case _GROUP_MAX:
	default:
		return -EINVAL;
	}
	*ret = TAKE_PTR(out);
	return 0;
}

/* Is path hidden by a read-deny the profile ends up with? Returns the
 * deciding rule's where (or a static built-in marker). */
static const char *denied_by_credentials(const struct cordon_profile *p, char *const *members, const char *path)
{
	STRV_FOREACH(m, members)
		if (path_is_under(path, *m) && !profile_rules_contain(&p->bypass_credentials, *m) &&
		    !profile_rules_contain(&p->lifted_credentials, *m))
			return *m;
	return NULL;
}

static void members_freep(char **(*m)[_GROUP_MAX])
{
	for (size_t g = 0; g < _GROUP_MAX; g++)
		strv_free((*m)[g]);
}

/* groups.credentials.lift: each named group once (the first naming keeps
 * its origin through extends), and every entry it uncovers, noted. */
static int resolve_lift(struct loader *l, struct cordon_profile *p)
{
	_cleanup_strv_free_ char **names = NULL, **paths = NULL, **groups = NULL;
	int r;

	for (size_t i = 0; i < l->lift.n; i++) {
		if (strv_contains(names, l->lift.v[i].spelled))
			continue;
		r = strv_push(&names, l->lift.v[i].spelled);
		if (r < 0)
			return r;
		r = rules_push(&p->lift_credentials, l->lift.v[i].spelled, l->lift.v[i].spelled, &l->lift.v[i].where);
		if (r < 0)
			return r;
	}
	if (!names)
		return 0;
	r = profile_credential_lift_paths(l->home, names, &paths, &groups);
	if (r < 0)
		return r;
	for (size_t i = 0; paths[i]; i++) {
		const struct raw_entry *raw = NULL;

		for (size_t j = 0; j < l->lift.n && !raw; j++)
			if (strcmp(l->lift.v[j].spelled, groups[i]) == 0)
				raw = &l->lift.v[j];
		r = rules_push(&p->lifted_credentials, paths[i], groups[i], &raw->where);
		if (r < 0)
			return r;
		r = note_add(p, PROFILE_NOTE_LIFT, paths[i], &raw->where,
			     "%s is readable: the credential group %s is lifted", paths[i], groups[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int resolve(struct loader *l, struct cordon_profile *p)
{
	static const struct where builtin = {};
	_cleanup_(members_freep) char **members[_GROUP_MAX] = {};
	struct profile_rules *bypass_out[_GROUP_MAX] = {
		&p->bypass_credentials, &p->bypass_persistence, &p->bypass_system_write,
	};
	int r;

	p->mode = l->mode_set ? l->mode : CORDON_MODE_WORKSPACE_WRITE;
	r = origin_of(l->mode_set ? &l->mode_where : &builtin, &p->mode_origin);
	if (r < 0)
		return r;
	p->net = l->net_set ? l->net : PROFILE_NET_NONE;
	if (l->net_rules_seen && p->net != PROFILE_NET_PROXY)
		return fail(l, -EINVAL, &l->net_rules_where,
			    "host rules apply only through the proxy: they need network.mode \"proxy\" (the mode is \"%s\")",
			    profile_net_to_string(p->net));
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if (l->net_rules[i] && !(p->net_rules[i] = strv_copy((const char *const *)l->net_rules[i])))
			return -ENOMEM;
	r = origin_of(l->net_set ? &l->net_where : &builtin, &p->net_origin);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 3; i++)
		if (l->meta[i]) {
			char **dst = i == 0 ? &p->meta_name : i == 1 ? &p->meta_description : &p->meta_version;

			*dst = strdup(l->meta[i]);
			if (!*dst)
				return -ENOMEM;
		}

	if (l->home && cordon_canonicalize(l->home, &p->home, NULL) < 0)
		p->home = NULL;

	/* The workspace first: $WORKSPACE and relative paths need it. */
	if (l->workspace_given) {
		r = cordon_canonicalize(l->workspace_given, &p->workspace, l->reterr);
		if (r < 0)
			return r;
		r = origin_of(&builtin, &p->workspace_origin);
	} else if (l->ws_spelled) {
		struct raw_entry e = { .spelled = (char *)l->ws_spelled, .where = l->ws_where };
		_cleanup_strv_free_ char **paths = NULL;

		if (l->ws_spelled[0] != '/' && l->ws_spelled[0] != '~' && l->ws_spelled[0] != '$')
			return fail(l, -EINVAL, &l->ws_where, "the workspace must be an absolute path");
		r = expand_entry(l, p, &e, &paths, 0);
		if (r < 0)
			return r;
		r = canonical(l, &l->ws_where, paths[0], &p->workspace);
		if (r < 0)
			return r;
		if (strcmp(p->workspace, "/") == 0)
			return fail(l, -EINVAL, &l->ws_where, "the workspace cannot be '/'");
		p->workspace_set = true;
		r = origin_of(&l->ws_where, &p->workspace_origin);
	} else if (p->mode != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = cordon_canonicalize(".", &p->workspace, l->reterr);
		if (r < 0)
			return r;
		r = origin_of(&builtin, &p->workspace_origin);
	} else
		r = origin_of(&builtin, &p->workspace_origin);
	if (r < 0)
		return r;

	if ((r = resolve_list(l, p, &l->deny_read, LIST_DENY, &p->deny_read)) < 0 ||
	    (r = resolve_list(l, p, &l->read, LIST_READ, &p->read)) < 0 ||
	    (r = resolve_list(l, p, &l->write, LIST_WRITE, &p->write)) < 0 ||
	    (r = resolve_list(l, p, &l->protect, LIST_PROTECT, &p->protect)) < 0 ||
	    (r = resolve_list(l, p, &l->allow_unix, LIST_SOCKET, &p->allow_unix_sockets)) < 0)
		return r;
	for (size_t g = 0; g < _GROUP_MAX; g++) {
		r = resolve_list(l, p, &l->bypass[g], LIST_BYPASS, bypass_out[g]);
		if (r < 0)
			return r;
		/* Only what a check below reads: every member canonicalised is
		 * hundreds of lookups, on every run of a profile without grants. */
		if (!bypass_out[g]->n && !p->write.n && !(g == GROUP_CREDENTIALS && p->read.n))
			continue;
		r = profile_group_members(p, l->home, (unsigned)g, &members[g]);
		if (r < 0)
			return r;
	}

	r = resolve_lift(l, p);
	if (r < 0)
		return r;

	/* Bypass: one member at a time, and it grants nothing by itself. */
	for (size_t g = 0; g < _GROUP_MAX; g++)
		for (size_t i = 0; i < bypass_out[g]->n; i++) {
			const struct profile_rule *b = &bypass_out[g]->v[i];
			const struct raw_entry *raw = NULL;
			const struct profile_rules *grants = g == GROUP_CREDENTIALS ? &p->read : &p->write;
			bool granted = false;

			for (size_t j = 0; j < l->bypass[g].n; j++)
				if (strcmp(l->bypass[g].v[j].spelled, b->spelled) == 0)
					raw = &l->bypass[g].v[j];
			if (!strv_contains(members[g], b->path))
				return fail(l, -EINVAL, raw ? &raw->where : NULL,
					    "%s is not an entry of the built-in group %s", b->path,
					    builtin_group_names[g]);
			granted = bypass_granted(p, g, grants, b->path);
			if (!granted)
				return fail(l, -EINVAL, raw ? &raw->where : NULL,
					    "bypassing %s grants nothing by itself: also list it under filesystem.%s",
					    b->path, g == GROUP_CREDENTIALS ? "read" : "write");
			r = note_add(p, PROFILE_NOTE_BYPASS, b->path, raw ? &raw->where : &builtin,
				     "%s is lifted from the built-in group %s", b->path, builtin_group_names[g]);
			if (r < 0)
				return r;
		}

	/* Deny always wins: a grant under a read-deny is a contradiction. */
	for (size_t i = 0; i < p->read.n; i++) {
		const struct profile_rule *rule = &p->read.v[i];
		const struct profile_rule *d = profile_rules_covering(&p->deny_read, rule->path);
		const char *c = denied_by_credentials(p, members[GROUP_CREDENTIALS], rule->path);
		const struct raw_entry *raw = NULL;

		for (size_t j = 0; j < l->read.n && !raw; j++)
			if (strcmp(l->read.v[j].spelled, rule->spelled) == 0)
				raw = &l->read.v[j];
		if (d)
			return fail(l, -EPERM, raw ? &raw->where : NULL,
				    "%s is under the read-deny %s (%s at %s), and deny always wins", rule->path, d->path,
				    d->origin.file, d->origin.pointer);
		if (c)
			return fail(l, -EPERM, raw ? &raw->where : NULL,
				    "%s is under %s of the built-in group credentials, and deny always wins (lift its group or bypass it under groups.credentials)",
				    rule->path, c);
		r = note_add(p, PROFILE_NOTE_READ_NOOP, rule->path, raw ? &raw->where : &builtin,
			     "%s is readable anyway: the whole system is, except what is denied", rule->path);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < p->write.n; i++) {
		const struct profile_rule *rule = &p->write.v[i];
		const struct profile_rule *d = profile_rules_covering(&p->deny_read, rule->path);
		const char *c = denied_by_credentials(p, members[GROUP_CREDENTIALS], rule->path);
		const struct raw_entry *raw = NULL;

		for (size_t j = 0; j < l->write.n && !raw; j++)
			if (strcmp(l->write.v[j].spelled, rule->spelled) == 0)
				raw = &l->write.v[j];
		if (p->mode != CORDON_MODE_WORKSPACE_WRITE)
			return fail(l, -EINVAL, raw ? &raw->where : NULL,
				    "filesystem.write needs mode workspace-write, not %s", cordon_mode_to_string(p->mode));
		if (d)
			return fail(l, -EPERM, raw ? &raw->where : NULL,
				    "%s is under the read-deny %s (%s at %s), and deny always wins", rule->path, d->path,
				    d->origin.file, d->origin.pointer);
		if (c)
			return fail(l, -EPERM, raw ? &raw->where : NULL,
				    "%s is under %s of the built-in group credentials, and deny always wins", rule->path,
				    c);
		STRV_FOREACH(m, members[GROUP_PERSISTENCE])
			if (path_is_under(rule->path, *m) && !profile_rules_contain(&p->bypass_persistence, *m))
				return fail(l, -EPERM, raw ? &raw->where : NULL,
					    "%s is under %s of the built-in group persistence, which stays read-only: bypass it under groups.persistence to allow this",
					    rule->path, *m);
		d = profile_rules_covering(&p->protect, rule->path);
		if (d)
			return fail(l, -EPERM, raw ? &raw->where : NULL,
				    "%s is under the protected %s (%s at %s), which stays read-only", rule->path, d->path,
				    d->origin.file, d->origin.pointer);
		/* a HOME below a system directory is still the user's */
		if (p->home && path_is_under(rule->path, p->home))
			continue;
		STRV_FOREACH(m, members[GROUP_SYSTEM_WRITE])
			if (path_is_under(rule->path, *m) && !profile_rules_contain(&p->bypass_system_write, *m))
				return fail(l, -EPERM, raw ? &raw->where : NULL,
					    "%s is under %s of the built-in group system_write: bypass it under groups.system_write to allow this",
					    rule->path, *m);
	}
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS) {
		if (l->deny_read.n || l->protect.n)
			return fail(l, -EINVAL, l->deny_read.n ? &l->deny_read.v[0].where : &l->protect.v[0].where,
				    "mode danger-full-access enforces nothing: this rule could not hold");
		if (p->net != PROFILE_NET_HOST && l->net_set)
			return fail(l, -EINVAL, &l->net_where,
				    "mode danger-full-access enforces nothing: network.mode \"%s\" could not hold",
				    profile_net_to_string(p->net));
	}

	if ((r = prune_missing(p, &p->read, &l->read)) < 0 || (r = prune_missing(p, &p->write, &l->write)) < 0 ||
	    (r = prune_missing(p, &p->deny_read, &l->deny_read)) < 0)
		return r;
	/* A lifted entry whose every grant was skipped lifts nothing. */
	for (size_t g = 0; g < _GROUP_MAX; g++) {
		struct profile_rules *rs = bypass_out[g];
		const struct profile_rules *grants = g == GROUP_CREDENTIALS ? &p->read : &p->write;
		size_t o = 0;

		for (size_t i = 0; i < rs->n; i++) {
			if (bypass_granted(p, g, grants, rs->v[i].path)) {
				rs->v[o++] = rs->v[i];
				continue;
			}
			free(rs->v[i].path);
			free(rs->v[i].spelled);
			profile_origin_clear(&rs->v[i].origin);
		}
		rs->n = o;
	}

	/* environment */
	for (size_t i = 0; i < l->allow_vars.n; i++) {
		r = rules_push(&p->allow_vars, l->allow_vars.v[i].spelled, l->allow_vars.v[i].spelled,
			       &l->allow_vars.v[i].where);
		if (r < 0)
			return r;
	}
	if (l->n_vars) {
		p->set_vars = calloc(l->n_vars, sizeof(*p->set_vars));
		if (!p->set_vars)
			return -ENOMEM;
		for (size_t i = 0; i < l->n_vars; i++) {
			struct profile_env_var *v = &p->set_vars[p->n_set_vars];

			v->name = strdup(l->vars[i].name);
			v->value = strdup(l->vars[i].value);
			if (!v->name || !v->value || origin_of(&l->vars[i].where, &v->origin) < 0) {
				free(v->name);
				free(v->value);
				return -ENOMEM;
			}
			p->n_set_vars++;
		}
	}

	p->limits = l->limits;
	memset(p->limits.origin, 0, sizeof(p->limits.origin));
	for (size_t k = 0; k < _PROFILE_LIMIT_MAX; k++)
		if (l->limits.set & (1u << k)) {
			r = origin_of(&l->limit_where[k], &p->limits.origin[k]);
			if (r < 0)
				return r;
		}
	return 0;
}

static void rules_clear(struct profile_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].path);
		free(rs->v[i].spelled);
		profile_origin_clear(&rs->v[i].origin);
	}
	free(rs->v);
	*rs = (struct profile_rules){};
}

struct cordon_profile *profile_free(struct cordon_profile *p)
{
	if (!p)
		return NULL;
	free(p->name);
	free(p->file);
	strv_free(p->chain);
	free(p->meta_name);
	free(p->meta_description);
	free(p->meta_version);
	profile_origin_clear(&p->mode_origin);
	free(p->workspace);
	free(p->home);
	profile_origin_clear(&p->workspace_origin);
	rules_clear(&p->read);
	rules_clear(&p->write);
	rules_clear(&p->deny_read);
	rules_clear(&p->protect);
	rules_clear(&p->allow_unix_sockets);
	rules_clear(&p->bypass_credentials);
	rules_clear(&p->bypass_persistence);
	rules_clear(&p->bypass_system_write);
	rules_clear(&p->lift_credentials);
	rules_clear(&p->lifted_credentials);
	profile_origin_clear(&p->net_origin);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(p->net_rules[i]);
	rules_clear(&p->allow_vars);
	for (size_t i = 0; i < p->n_set_vars; i++) {
		free(p->set_vars[i].name);
		free(p->set_vars[i].value);
		profile_origin_clear(&p->set_vars[i].origin);
	}
	free(p->set_vars);
	for (size_t i = 0; i < _PROFILE_LIMIT_MAX; i++)
		profile_origin_clear(&p->limits.origin[i]);
	for (size_t i = 0; i < p->n_notes; i++) {
		free(p->notes[i].path);
		free(p->notes[i].text);
		profile_origin_clear(&p->notes[i].origin);
	}
	free(p->notes);
	free(p);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)

static int dup_or_env(const char *given, const char *var, char **ret)
{
	const char *v = given ? given : var ? secure_getenv(var) : NULL;

	*ret = NULL;
	if (!v || !v[0])
		return 0;
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

static int loader_init(struct loader *l, const struct profile_env *env, struct cordon_error *reterr)
{
	static const struct profile_env none = {};
	int r;

	if (!env)
		env = &none;
	*l = (struct loader){ .reterr = reterr };
	if ((r = dup_or_env(env->home, "HOME", &l->home)) < 0 ||
	    (r = dup_or_env(env->tmpdir, "TMPDIR", &l->tmpdir)) < 0 ||
	    (r = dup_or_env(env->xdg_config_home, "XDG_CONFIG_HOME", &l->xdg)) < 0 ||
	    (r = dup_or_env(env->workspace, NULL, &l->workspace_given)) < 0)
		return r;
	if (l->home && l->home[0] != '/')
		l->home = (free(l->home), NULL);
	if (!l->tmpdir || l->tmpdir[0] != '/') {
		free(l->tmpdir);
		l->tmpdir = strdup("/tmp");
		if (!l->tmpdir)
			return -ENOMEM;
	}
	if ((!l->xdg || l->xdg[0] != '/')) {
		free(l->xdg);
		l->xdg = l->home ? path_join(l->home, ".config") : NULL;
		if (l->home && !l->xdg)
			return -ENOMEM;
	}
	if (env->user_profile_dir)
		l->user_dir = strdup(env->user_profile_dir);
	else if (l->xdg)
		l->user_dir = path_join(l->xdg, "cordon/profiles");
	l->data_dir = strdup(env->data_profile_dir ? env->data_profile_dir : CORDON_DATADIR "/profiles");
	l->system_gitconfig = strdup(env->system_gitconfig ? env->system_gitconfig : "/etc/gitconfig");
	if ((!l->user_dir && (env->user_profile_dir || l->xdg)) || !l->data_dir || !l->system_gitconfig)
		return -ENOMEM;
	return 0;
}

static int load_common(struct loader *l, struct doc *top, const char *name, struct cordon_profile **ret)
{
	_cleanup_(profile_freep) struct cordon_profile *p = NULL;
	int r;

	r = loader_keep(l, top);
	if (r < 0)
		return r;
	r = read_doc(l, top);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->name = strdup(name);
	p->file = strdup(top->file);
	if (!p->name || !p->file)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_docs; i++) {
		r = strv_push(&p->chain, l->docs[i]->file);
		if (r < 0)
			return r;
	}
	r = resolve(l, p);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

int profile_load_buffer(const char *data, size_t len, const char *file, const struct profile_env *env,
			struct cordon_profile **ret, struct cordon_error *reterr)
{
	_cleanup_free_ char *dir = NULL, *ident = NULL;
	struct loader l;
	struct doc *d = NULL;
	char *slash;
	int r;

	if (!ret || (!data && len) || !file)
		return error_set(reterr, -EINVAL, "no profile to read");
	r = loader_init(&l, env, reterr);
	if (r < 0)
		goto out;
	if (len > PROFILE_MAX_BYTES) {
		r = fail_file(&l, -EFBIG, file, 0, 0, "profile is larger than the 1 MiB limit");
		goto out;
	}
	dir = strdup(file);
	if (!dir) {
		r = -ENOMEM;
		goto out;
	}
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir ? 1 : 0] = '\0';
	if (cordon_canonicalize(file, &ident, NULL) < 0 && !(ident = strdup(file))) {
		r = -ENOMEM;
		goto out;
	}
	r = doc_from_buffer(data ? data : "", len, file, dir, ident, &d);
	if (r < 0)
		goto out;
	r = load_common(&l, d, file, ret);
out:
	loader_clear(&l);
	return r;
}

int profile_load(const char *name, const struct profile_env *env, struct cordon_profile **ret,
		 struct cordon_error *reterr)
{
	struct loader l;
	struct doc *d = NULL;
	int r;

	if (!ret || !name)
		return error_set(reterr, -EINVAL, "no profile name");
	r = loader_init(&l, env, reterr);
	if (r >= 0)
		r = find_doc(&l, name, NULL, NULL, &d);
	if (r >= 0)
		r = load_common(&l, d, name, ret);
	loader_clear(&l);
	return r;
}
