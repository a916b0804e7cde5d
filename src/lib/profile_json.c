/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A loaded profile as JSON: no extends, paths expanded, sorted keys; it
 * loads back to the same profile (what `cordon profile show` prints).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "profile_internal.h"
#include "tools.h"

#define _cleanup_json_ _cleanup_(json_decrefp)

const char *profile_net_to_string(enum profile_net n)
{
	switch (n) {
	case PROFILE_NET_NONE:
		return "none";
	case PROFILE_NET_HOST:
		return "host";
	case PROFILE_NET_PROXY:
		return "proxy";
	}
	return "invalid";
}

static int add(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -EINVAL; /* json_string refuses invalid UTF-8 */
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

static int add_rules(json_t *o, const char *key, const struct profile_rules *rs)
{
	_cleanup_json_ json_t *a = NULL;

	if (rs->n == 0)
		return 0;
	a = json_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n; i++) {
		json_t *s = json_string(rs->v[i].path);

		if (!s)
			return -EINVAL;
		if (json_array_append_new(a, s) < 0)
			return -ENOMEM;
	}
	return add(o, key, TAKE_PTR(a));
}

/* lift: the group names (NULL for groups that have none). */
static int add_bypass(json_t *groups, const char *name, const struct profile_rules *rs,
		      const struct profile_rules *lift)
{
	_cleanup_json_ json_t *g = NULL;
	int r;

	if (rs->n == 0 && (!lift || lift->n == 0))
		return 0;
	g = json_object();
	if (!g)
		return -ENOMEM;
	r = add_rules(g, "bypass", rs);
	if (r < 0)
		return r;
	if (lift && (r = add_rules(g, "lift", lift)) < 0)
		return r;
	return add(groups, name, TAKE_PTR(g));
}

static int add_nonempty(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_size(v) == 0) {
		json_decref(v);
		return 0;
	}
	return add(o, key, v);
}

int profile_limits_json(const struct profile_limits *l, json_t *limits)
{
	/* the loader's names: the numeric limits come first, in this order */
	const char *const *limit_names = profile_known_keys("limits");
	const uint64_t values[] = {
		l->timeout_seconds, l->cpu_seconds, l->memory, l->max_processes,
		l->max_file_size, l->max_open_files, l->max_output,
	};
	int r;

	for (size_t k = 0; k <= PROFILE_LIMIT_MAX_OUTPUT; k++)
		if ((l->set & (1u << k)) && (r = add(limits, limit_names[k], json_integer((json_int_t)values[k]))) < 0)
			return r;
	if ((l->set & (1u << PROFILE_LIMIT_ON_OUTPUT_LIMIT)) &&
	    (r = add(limits, "on_output_limit",
		     json_string(l->on_output_limit == PROFILE_OUTPUT_KILL ? "kill" : "truncate"))) < 0)
		return r;
	if ((l->set & (1u << PROFILE_LIMIT_FALLBACK)) &&
	    (r = add(limits, "limits_fallback", json_string(l->fallback_fail ? "fail" : "warn"))) < 0)
		return r;
	return 0;
}

int profile_to_json(const struct cordon_profile *p, char **ret)
{
	_cleanup_json_ json_t *o = json_object(), *meta = json_object(), *fs = json_object(),
			      *groups = json_object(), *net = json_object(), *env = json_object(),
			      *limits = json_object();
	char *s;
	int r = 0;

	if (!p || !ret)
		return -EINVAL;
	if (!o || !meta || !fs || !groups || !net || !env || !limits)
		return -ENOMEM;
	if ((p->meta_name && (r = add(meta, "name", json_string(p->meta_name))) < 0) ||
	    (p->meta_description && (r = add(meta, "description", json_string(p->meta_description))) < 0) ||
	    (p->meta_version && (r = add(meta, "version", json_string(p->meta_version))) < 0))
		return r;
	if ((r = add(o, "mode", json_string(cordon_mode_to_string(p->mode)))) < 0)
		return r;
	if (p->workspace_set && (r = add(o, "workspace", json_string(p->workspace))) < 0)
		return r;
	if ((r = add_rules(fs, "read", &p->read)) < 0 || (r = add_rules(fs, "write", &p->write)) < 0 ||
	    (r = add_rules(fs, "deny_read", &p->deny_read)) < 0 || (r = add_rules(fs, "protect", &p->protect)) < 0)
		return r;
	if ((r = add_bypass(groups, "credentials", &p->bypass_credentials, &p->lift_credentials)) < 0 ||
	    (r = add_bypass(groups, "persistence", &p->bypass_persistence, NULL)) < 0 ||
	    (r = add_bypass(groups, "system_write", &p->bypass_system_write, NULL)) < 0)
		return r;
	/* danger-full-access confines no network: stating a mode would be
	 * false, and the loader refuses one beside it */
	if (p->mode != CORDON_MODE_DANGER_FULL_ACCESS &&
	    (r = add(net, "mode", json_string(profile_net_to_string(p->net)))) < 0)
		return r;
	if (p->allow_unix_sockets.n && (r = add_rules(net, "allow_unix_sockets", &p->allow_unix_sockets)) < 0)
		return r;
	if ((r = profile_net_json(p, net)) < 0)
		return r;
	if ((r = add_rules(env, "allow_vars", &p->allow_vars)) < 0)
		return r;
	if (p->n_set_vars) {
		json_t *sv = json_object();

		if (!sv)
			return -ENOMEM;
		if ((r = add(env, "set_vars", sv)) < 0)
			return r;
		for (size_t i = 0; i < p->n_set_vars; i++)
			if ((r = add(sv, p->set_vars[i].name, json_string(p->set_vars[i].value))) < 0)
				return r;
	}
	if ((r = profile_limits_json(&p->limits, limits)) < 0)
		return r;
	if (p->tools) {
		json_t *tools = NULL;

		if ((r = tools_to_json(p->tools, &tools)) < 0 || (r = add(o, "command_policies", tools)) < 0)
			return r;
	}

	if ((r = add_nonempty(o, "meta", TAKE_PTR(meta))) < 0 || (r = add_nonempty(o, "filesystem", TAKE_PTR(fs))) < 0 ||
	    (r = add_nonempty(o, "groups", TAKE_PTR(groups))) < 0 || (r = add_nonempty(o, "network", TAKE_PTR(net))) < 0 ||
	    (r = add_nonempty(o, "environment", TAKE_PTR(env))) < 0 ||
	    (r = add_nonempty(o, "limits", TAKE_PTR(limits))) < 0)
		return r;
	s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}
