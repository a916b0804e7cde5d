/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A loaded profile as JSON: no extends, paths expanded, sorted keys; it
 * loads back to the same profile (what `cordon profile show` prints).
 * Its command_policies likewise: paths expanded and canonical, every rule
 * in its list in order, every from entry in the {"sandbox",
 * "invocation_policy"} form (an empty sandbox written bare would read as
 * nothing at all).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "creds.h"
#include "profile_internal.h"
#include "tools.h"

#define _cleanup_json_ _cleanup_(json_decrefp)

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

/* ---- command_policies ----------------------------------------------------- */

static int append(json_t *a, json_t *v)
{
	if (!v)
		return -EINVAL;
	return json_array_append_new(a, v) < 0 ? -ENOMEM : 0;
}

static json_t *strv_json(char *const *v)
{
	_cleanup_json_ json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; v && v[i]; i++)
		if (append(a, json_string(v[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

/* A list under key, unless it is empty. */
static int add_list(json_t *o, const char *key, char *const *v)
{
	if (!v || !v[0])
		return 0;
	return add(o, key, strv_json(v));
}

static int add_object(json_t *o, const char *key, json_t *v, bool keep_empty)
{
	if (!v)
		return -ENOMEM;
	if (!keep_empty && json_object_size(v) == 0) {
		json_decref(v);
		return 0;
	}
	return add(o, key, v);
}

/* ---- open_urls ---------------------------------------------------------------- */

static json_t *open_urls_json(const struct tool_open_urls *u)
{
	_cleanup_json_ json_t *o = json_object();
	json_t *ports = json_array();

	/* add() and json_object_set_new take the value, on failure too */
	if (!o || add(o, "allow_localhost_ports", ports) < 0)
		return NULL;
	for (size_t i = 0; i < u->n_ports; i++)
		if (json_array_append_new(ports, json_integer(u->ports[i])) < 0)
			return NULL;
	if (!u->n_ports)
		(void)json_object_del(o, "allow_localhost_ports");
	if (add_list(o, "allow_origins", u->origins) < 0 || add_list(o, "path_prefixes", u->path_prefixes) < 0 ||
	    add(o, "approve", json_boolean(u->approve)) < 0 ||
	    (u->backend && add(o, "backend", json_string(u->backend)) < 0) ||
	    add(o, "rate_per_minute", json_integer(u->rate_per_minute)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* ---- sandbox ---------------------------------------------------------------- */

static int sandbox_json(const struct tool_sandbox *sb, json_t **ret)
{
	static const char *const net_keys[PROFILE_NET_RULE_KINDS] = {
		[CORDON_NET_ALLOW_DOMAIN] = "allow_domains",
		[CORDON_NET_DENY_DOMAIN] = "deny_domains",
		[CORDON_NET_ALLOW_ADDRESS] = "allow_addresses",
	};
	static const char *const stream_keys[_TOOL_STREAMS] = { [TOOL_STDOUT] = "stdout", [TOOL_STDERR] = "stderr" };
	_cleanup_json_ json_t *o = json_object(), *net = json_object(), *env = json_object(), *limits = json_object(),
			      *stdio = json_object(), *set = json_object();
	int r;

	if (!o || !net || !env || !limits || !stdio || !set)
		return -ENOMEM;
	for (size_t i = 0; i < _TOOL_PATH_LISTS; i++)
		if ((r = add_list(o, tool_path_list_names[i], sb->paths[i])) < 0)
			return r;
	if (sb->net_set && (r = add(net, "mode", json_string(profile_net_to_string(sb->net)))) < 0)
		return r;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if ((r = add_list(net, net_keys[i], sb->net_rules[i])) < 0)
			return r;
	if ((r = add_list(env, "allow_vars", sb->allow_vars)) < 0)
		return r;
	if ((r = add_list(o, "home_files", sb->home_files)) < 0)
		return r;
	if (sb->open_urls && (r = add(o, "open_urls", open_urls_json(sb->open_urls))) < 0)
		return r;
	for (size_t i = 0; sb->set_vars[i]; i++) {
		const char *eq = strchr(sb->set_vars[i], '=');
		_cleanup_free_ char *name = strndup(sb->set_vars[i], (size_t)(eq - sb->set_vars[i]));

		if (!name)
			return -ENOMEM;
		if ((r = add(set, name, json_string(eq + 1))) < 0)
			return r;
	}
	if ((r = add_object(env, "set_vars", TAKE_PTR(set), false)) < 0)
		return r;
	if ((r = profile_limits_json(&sb->limits, limits)) < 0)
		return r;
	for (size_t i = 0; i < _TOOL_STREAMS; i++)
		if (sb->stdio[i].set &&
		    (r = add(stdio, stream_keys[i],
			     json_pack("{s:I,s:s}", "max_bytes", (json_int_t)sb->stdio[i].max_bytes, "on_limit",
				       sb->stdio[i].terminate ? "terminate" : "truncate"))) < 0)
			return r;
	if ((r = add_object(o, "network", TAKE_PTR(net), false)) < 0 ||
	    (r = add_object(o, "environment", TAKE_PTR(env), false)) < 0 ||
	    (r = add_object(o, "limits", TAKE_PTR(limits), false)) < 0 ||
	    (r = add_object(o, "stdio", TAKE_PTR(stdio), false)) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

/* ---- invocation policy ---------------------------------------------------------- */

static int rule_json(const struct tool_rule *rule, json_t **ret)
{
	_cleanup_json_ json_t *o = json_object(), *argv = json_object(), *env = json_object();
	int r;

	if (!o || !argv || !env)
		return -ENOMEM;
	for (size_t k = 0; k < _TOOL_ARGV_MATCHES; k++)
		if (rule->argv[k] && (r = add(argv, tool_argv_match_names[k], strv_json(rule->argv[k]))) < 0)
			return r;
	for (size_t i = 0; i < rule->n_env; i++) {
		const struct tool_env_match *em = &rule->env[i];
		json_t *m = em->one_of ? json_pack("{s:o}", "one_of", strv_json(em->values))
				       : json_pack("{s:s}", "equals", em->values[0]);

		if ((r = add(env, em->name, m)) < 0)
			return r;
	}
	if ((r = add_object(o, "argv", TAKE_PTR(argv), false)) < 0 ||
	    (r = add_object(o, "env", TAKE_PTR(env), false)) < 0)
		return r;
	if (rule->reason && (r = add(o, "reason", json_string(rule->reason))) < 0)
		return r;
	if (rule->backend && (r = add(o, "backend", json_string(rule->backend))) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

/* The rules of one action, in order, under its name; nothing if none. */
static int add_action_rules(json_t *o, const struct tool_policy *pol, enum cordon_tool_action action)
{
	_cleanup_json_ json_t *a = json_array();
	int r;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < pol->n_rules; i++) {
		json_t *rule = NULL;

		if (pol->rules[i].action != action)
			continue;
		if ((r = rule_json(&pol->rules[i], &rule)) < 0 || (r = append(a, rule)) < 0)
			return r;
	}
	if (json_array_size(a) == 0)
		return 0;
	return add(o, cordon_tool_action_to_string(action), TAKE_PTR(a));
}

static int policy_json(const struct tool_policy *pol, json_t **ret)
{
	_cleanup_json_ json_t *o = json_object();
	int r;

	if (!o)
		return -ENOMEM;
	if ((r = add(o, "default", json_string(cordon_tool_action_to_string(pol->default_action)))) < 0)
		return r;
	if (pol->backend && (r = add(o, "backend", json_string(pol->backend))) < 0)
		return r;
	if ((r = add_action_rules(o, pol, CORDON_TOOL_DENY)) < 0 || (r = add_action_rules(o, pol, CORDON_TOOL_APPROVE)) < 0 ||
	    (r = add_action_rules(o, pol, CORDON_TOOL_ALLOW)) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

/* ---- commands and backends ------------------------------------------------------ */

static int from_json(const struct tool_from *f, json_t **ret)
{
	_cleanup_json_ json_t *o = NULL;
	json_t *part = NULL;
	int r;

	if (f->deny) {
		*ret = json_string("deny");
		return *ret ? 0 : -ENOMEM;
	}
	o = json_object();
	if (!o)
		return -ENOMEM;
	if (f->sandbox && ((r = sandbox_json(f->sandbox, &part)) < 0 || (r = add(o, "sandbox", part)) < 0))
		return r;
	if (f->policy && ((r = policy_json(f->policy, &part)) < 0 || (r = add(o, "invocation_policy", part)) < 0))
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

static int command_json(const struct tool_command *c, json_t **ret)
{
	_cleanup_json_ json_t *o = json_object(), *from = json_object();
	json_t *part = NULL;
	int r;

	if (!o || !from)
		return -ENOMEM;
	if (c->executable && (r = add(o, "executable", json_string(c->executable))) < 0)
		return r;
	if (c->sandbox && ((r = sandbox_json(c->sandbox, &part)) < 0 || (r = add(o, "sandbox", part)) < 0))
		return r;
	if (c->policy && ((r = policy_json(c->policy, &part)) < 0 || (r = add(o, "invocation_policy", part)) < 0))
		return r;
	if (c->secret_flags && c->secret_flags[0] && (r = add_list(o, "secret_flags", c->secret_flags)) < 0)
		return r;
	if ((r = add_list(o, "can_use", c->can_use)) < 0)
		return r;
	for (size_t i = 0; i < c->n_from; i++)
		if ((r = from_json(&c->from[i], &part)) < 0 || (r = add(from, c->from[i].caller, part)) < 0)
			return r;
	if ((r = add_object(o, "from", TAKE_PTR(from), false)) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

static json_t *backend_json(const struct tool_backend *b)
{
	switch (b->type) {
	case CORDON_APPROVAL_TERMINAL:
		return json_pack("{s:s,s:I,s:s}", "type", "terminal", "timeout_secs", (json_int_t)b->timeout_secs,
				 "default", b->default_allow ? "allow" : "deny");
	case CORDON_APPROVAL_WEBHOOK:
		return json_pack("{s:s,s:s,s:s,s:s,s:I}", "type", "webhook", "url", b->url, "secret_env", b->secret_env,
				 "answer_secret_env", b->answer_secret_env, "timeout_secs", (json_int_t)b->timeout_secs);
	case CORDON_APPROVAL_CHAIN:
		return json_pack("{s:s,s:s,s:o}", "type", "chain", "mode", b->chain_all ? "all" : "any", "backends",
				 strv_json(b->members));
	}
	return NULL;
}

int tools_to_json(const struct cordon_tools *t, json_t **ret)
{
	_cleanup_json_ json_t *o = json_object(), *commands = json_object(), *backends = json_object();
	int r;

	if (!o || !commands || !backends)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_backends; i++)
		if ((r = add(backends, t->backends[i].name, backend_json(&t->backends[i]))) < 0)
			return r;
	for (size_t i = 0; i < t->n_commands; i++) {
		json_t *c = NULL;

		if ((r = command_json(&t->commands[i], &c)) < 0 || (r = add(commands, t->commands[i].name, c)) < 0)
			return r;
	}
	if ((r = add_object(o, "approval_backends", TAKE_PTR(backends), false)) < 0 ||
	    (r = add_object(o, "commands", TAKE_PTR(commands), true)) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

/* ---- the profile ---------------------------------------------------------- */

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
	/* only when set: the catalogue is what every profile had before */
	if (p->home_policy != CORDON_HOME_CATALOGUE &&
	    (r = add(o, "home", json_string(cordon_home_to_string(p->home_policy)))) < 0)
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
	if (p->tools && p->tools->n_commands) {
		json_t *tools = NULL;

		if ((r = tools_to_json(p->tools, &tools)) < 0 || (r = add(o, "command_policies", tools)) < 0)
			return r;
	}
	if (p->tools && p->tools->session_open_urls &&
	    (r = add(o, "open_urls", open_urls_json(p->tools->session_open_urls))) < 0)
		return r;
	/* never a value (there is none here), never a phantom (made per session) */
	if (p->tools && p->tools->creds) {
		json_t *creds = NULL, *captures = NULL;

		if ((r = tool_creds_to_json(p->tools->creds, &creds, &captures)) < 0)
			return r;
		if ((r = add(o, "credentials", creds)) < 0) {
			json_decref(captures);
			return r;
		}
		if ((r = add_nonempty(o, "credential_capture", captures)) < 0)
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
