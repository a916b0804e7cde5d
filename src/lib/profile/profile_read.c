/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading one profile document into the loader's raw state: the top level,
 * meta, mode, workspace, filesystem, groups and network (the sections about
 * what runs are in profile_read_run.c). Pure: JSON in, raw lists out, every
 * value with its where; only extends reads another file (profile_find.c).
 * Each object is a table of its keys for read_object().
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read.h"
#include "profile_read_creds.h"
#include "profile_read_invocation.h"
#include "profile_read_run.h"
#include "profile_read_sandbox.h"
#include "profile_read_tools.h"
#include "profile_open_urls.h"
#include "profile_read_values.h"
#include "strv.h"

#define META_MAX 4096

/* A list of paths into the raw_list at k->offset; k->arg: "@name" allowed. */
static int read_paths_at(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_paths(l, w, v, k->arg, LOADER_FIELD(l, k, struct raw_list));
}

/* ---- meta, mode ---------------------------------------------------------- */

/* A string of at most k->arg bytes, kept at k->offset. */
static int read_string_at(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, (size_t)k->arg, &s);

	if (r < 0)
		return r;
	*LOADER_FIELD(l, k, const char *) = s;
	return 0;
}

static const char *const meta_keys[] = { "name", "description", "version", NULL };
static const struct loader_key meta_readers[] = {
	{ read_string_at, offsetof(struct loader, meta[0]), 128 },
	{ read_string_at, offsetof(struct loader, meta[1]), META_MAX },
	{ read_string_at, offsetof(struct loader, meta[2]), 128 },
};
static const struct loader_object meta_object = { meta_keys, meta_readers };

static int read_mode(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (cordon_mode_from_string(s, &l->mode) < 0) {
		static const char *const modes[] = { "read-only", "workspace-write", "danger-full-access", NULL };
		const char *best = loader_closest(s, modes);

		if (best)
			return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a mode, did you mean \"%s\"?", s, best);
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\" is not a mode: use read-only, workspace-write or danger-full-access", s);
	}
	l->mode_set = true;
	l->mode_where = *w;
	return 0;
}

static int read_home(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (cordon_home_from_string(s, &l->home_policy) < 0)
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a HOME policy: use catalogue or allowlist", s);
	l->home_policy_set = true;
	l->home_policy_where = *w;
	return 0;
}

static int read_schema(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;

	return loader_get_string(l, w, v, 4096, &s);
}

static int read_workspace(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, PATH_MAX - 1, &s);

	if (r < 0)
		return r;
	if (!s[0])
		return loader_fail(l, -EINVAL, w, "a path must not be empty");
	if (strncmp(s, "$WORKSPACE", 10) == 0 || s[0] == '@')
		return loader_fail(l, -EINVAL, w, "the workspace cannot be defined by \"%.100s\"", s);
	if (s[0] != '/' && s[0] != '~' && s[0] != '$')
		return loader_fail(l, -EINVAL, w, "the workspace must be an absolute path, not \"%.100s\"", s);
	l->ws_spelled = s;
	l->ws_where = *w;
	return 0;
}

/* ---- filesystem ------------------------------------------------------------ */

static int read_fs_exec(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_list ignored = {};
	int r = loader_read_paths(l, w, v, true, &ignored);

	raw_list_clear(&ignored);
	if (r < 0)
		return r;
	return loader_fail(l, -EOPNOTSUPP, w,
			   "filesystem.exec (an execute-only gate for the whole session) is not supported: the session "
			   "may execute what it can read, except command_policies' executables; a tool under "
			   "command_policies gets an execute-only gate of its own (its sandbox's exec_paths)");
}

static const char *const fs_keys[] = { "read", "write", "deny_read", "protect", "exec", NULL };
static const struct loader_key fs_readers[] = {
	{ read_paths_at, offsetof(struct loader, read), true },
	{ read_paths_at, offsetof(struct loader, write), true },
	{ read_paths_at, offsetof(struct loader, deny_read), true },
	{ read_paths_at, offsetof(struct loader, protect), true },
	{ read_fs_exec },
};
static const struct loader_object fs_object = { fs_keys, fs_readers };

/* ---- groups ------------------------------------------------------------------ */

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
static int check_credential_group(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	const char *names[32];
	size_t n = profile_credential_groups(names, ELEMENTSOF(names));

	for (size_t g = 0; g < n; g++)
		if (strcmp(names[g], s) == 0)
			return 0;
	return loader_fail_unknown(l, -EINVAL, w, "no credential group", "groups", s, names, n);
}

static int read_lift(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_list(l, w, v, "an array of credential group names", 64, check_credential_group, 0,
				&l->lift);
}

/* A built-in group takes its bypass (no "@name" there: list paths), and
 * credentials its lift too. */
static const char *const bypass_keys[] = { "bypass", NULL };
static const char *const credentials_keys[] = { "bypass", "lift", NULL };
static const struct loader_key builtin_group_readers[_GROUP_MAX][2] = {
	[GROUP_CREDENTIALS] = { { read_paths_at, offsetof(struct loader, bypass[GROUP_CREDENTIALS]), false },
				{ read_lift } },
	[GROUP_PERSISTENCE] = { { read_paths_at, offsetof(struct loader, bypass[GROUP_PERSISTENCE]), false } },
	[GROUP_SYSTEM_WRITE] = { { read_paths_at, offsetof(struct loader, bypass[GROUP_SYSTEM_WRITE]), false } },
};

/* One member of groups: a built-in group's body, or a group of paths the
 * profile names (lists add across extends). */
static int read_group(struct loader *l, const struct where *wk, const struct where *wm, const char *key, json_t *m,
		      void *ctx)
{
	struct raw_group *grp = NULL;
	size_t g;

	if (!group_name_valid(key))
		return loader_fail(l, -EINVAL, wk,
				   "group name \"%.100s\" must be 1 to 64 lower-case letters, digits, '_' or '-'", key);
	for (g = 0; g < _GROUP_MAX; g++)
		if (strcmp(builtin_group_names[g], key) == 0)
			break;
	if (g < _GROUP_MAX) {
		const struct loader_object body = {
			g == GROUP_CREDENTIALS ? credentials_keys : bypass_keys,
			builtin_group_readers[g],
		};

		if (!json_is_object(m))
			return loader_fail(l, -EINVAL, wm, "\"%s\" is a built-in group: it takes {%s}, not %s", key,
					   g == GROUP_CREDENTIALS ? "\"bypass\": [paths], \"lift\": [group names]"
								  : "\"bypass\": [paths]",
					   json_type_name(m));
		return loader_read_object(l, wm, m, &body);
	}
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
	return loader_read_paths(l, wm, m, false, &grp->paths);
}

static int read_groups(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_members(l, w, v, read_group, NULL);
}

/* ---- network ------------------------------------------------------------------ */

static int read_net_mode(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = loader_get_net_mode(l, w, v, &l->net);

	if (r < 0)
		return r;
	l->net_set = true;
	l->net_where = *w;
	return 0;
}

/* allow_domains, deny_domains, allow_addresses: the proxy's host rules
 * (k->arg: enum cordon_net_rule; checked in profile_net.c); lists add.
 * Whether the mode is proxy is checked once resolved. */
static int read_net_rules(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	enum cordon_net_rule kind = (enum cordon_net_rule)k->arg;
	int r = loader_read_net_rules(l, w, v, kind, &l->net_rules[kind]);

	if (r < 0)
		return r;
	if (!l->net_rules_seen) {
		l->net_rules_seen = true;
		l->net_rules_where = *w;
	}
	return 0;
}

/* host sockets the runner's unix gate admits; lists add */
static int read_unix_sockets(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	size_t i;
	json_t *e;

	if (json_is_array(v))
		json_array_foreach(v, i, e)
			if (json_is_string(e) && json_string_value(e)[0] == '@') {
				struct where we = where_child(w, NULL, i);

				return loader_fail(l, -EINVAL, &we, "a socket is a path, not \"%.100s\"",
						   json_string_value(e));
			}
	return loader_read_paths(l, w, v, false, &l->allow_unix);
}

static const char *const net_keys[] = { "mode", "allow_domains", "deny_domains", "allow_unix_sockets",
					"allow_addresses", NULL };
static const struct loader_key net_readers[] = {
	{ read_net_mode },
	{ read_net_rules, .arg = CORDON_NET_ALLOW_DOMAIN, .type = JSON_ARRAY, .what = "an array of domain names" },
	{ read_net_rules, .arg = CORDON_NET_DENY_DOMAIN, .type = JSON_ARRAY, .what = "an array of domain names" },
	{ read_unix_sockets },
	{ read_net_rules, .arg = CORDON_NET_ALLOW_ADDRESS, .type = JSON_ARRAY, .what = "an array of addresses" },
};
static const struct loader_object net_object = { net_keys, net_readers };

/* ---- the document ---------------------------------------------------------------- */

static int read_extends(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct doc *parent = NULL;
	const char *name;
	int r;

	r = loader_get_string(l, w, v, PATH_MAX - 1, &name);
	if (r < 0)
		return r;
	if (!name[0])
		return loader_fail(l, -EINVAL, w, "extends must name a profile");
	if (l->depth >= PROFILE_MAX_EXTENDS_DEPTH)
		return loader_fail(l, -ELOOP, w, "extends chain is deeper than %d profiles", PROFILE_MAX_EXTENDS_DEPTH);
	r = l->find(l, name, w->doc, w, &parent);
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
			return loader_fail(l, -ELOOP, w, "extends cycle: %s", chain);
		}
	return loader_read_doc(l, parent);
}

/* extends is read first (with this document on the stack, for cycles): the
 * parent's values are what this one's override and add to. */
static int read_extends_of(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r;

	l->stack[l->depth++] = w->doc;
	r = read_extends(l, w, v, k);
	l->depth--;
	return r;
}

static const char *const top_keys[] = {
	"$schema", "extends", "meta", "mode", "workspace", "filesystem", "groups", "network", "environment",
	"limits", "command_policies", "credentials", "credential_capture", "home", "open_urls", NULL,
};
static const struct loader_key top_readers[] = {
	{ read_schema },
	{ read_extends_of, .first = true },
	{ loader_read_nested, .object = &meta_object },
	{ read_mode },
	{ read_workspace },
	{ loader_read_nested, .object = &fs_object },
	{ read_groups },
	{ loader_read_nested, .object = &net_object },
	{ loader_read_nested, .object = &loader_environment_object },
	{ loader_read_nested, .object = &loader_limits_object },
	{ loader_read_command_policies },
	{ loader_read_credentials, .type = JSON_OBJECT, .what = "an object of NAME: credential" },
	{ loader_read_credential_capture, .type = JSON_OBJECT, .what = "an object of NAME: capture" },
	{ read_home },
	{ loader_read_session_open_urls },
};
static const struct loader_object top_object = { top_keys, top_readers, .ordered = true };

const char *const *profile_known_keys(const char *section)
{
	static const struct {
		const char *section;
		const char *const *keys;
	} sections[] = {
		{ "meta", meta_keys },
		{ "filesystem", fs_keys },
		{ "network", net_keys },
		{ "environment", loader_environment_keys },
		{ "limits", loader_limit_keys },
		{ "groups", builtin_group_names },
		{ "command_policies", loader_tools_keys },
		{ "command", loader_command_keys },
		{ "sandbox", loader_sandbox_keys },
		{ "invocation_policy", loader_invocation_keys },
		{ "rule", loader_rule_keys },
		{ "credential", loader_cred_keys },
	};

	if (!section || !section[0])
		return top_keys;
	for (size_t i = 0; i < ELEMENTSOF(sections); i++)
		if (strcmp(section, sections[i].section) == 0)
			return sections[i].keys;
	return NULL;
}

int loader_read_doc(struct loader *l, struct doc *d)
{
	struct where root = { .doc = d };
	json_error_t jerr;
	const char *nul;

	if (d->len > PROFILE_MAX_BYTES)
		return loader_fail_file(l, -EFBIG, d->file, 0, 0, "profile is larger than the 1 MiB limit");
	nul = memchr(d->text, '\0', d->len);
	if (nul) {
		int line, column;

		json_position_of(d->text, nul, &line, &column);
		return loader_fail_file(l, -EINVAL, d->file, line, column, "NUL byte in profile");
	}
	d->root = json_loadb(d->text, d->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!d->root)
		return loader_fail_file(l, -EINVAL, d->file, jerr.line > 0 ? jerr.line : 1,
					jerr.column > 0 ? jerr.column : 1, "invalid JSON: %s", jerr.text);
	if (!json_is_object(d->root))
		return loader_fail(l, -EINVAL, &root, "a profile is a JSON object, not %s", json_type_name(d->root));
	return loader_read_object(l, &root, d->root, &top_object);
}
