/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a loaded profile turns into: a policy (through the public setters),
 * answers to "why" (naming the deciding rule), and its JSON form.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "cleanup.h"
#include "policy.h"
#include "profile_internal.h"
#include "provider.h"
#include "strv.h"

#define _cleanup_json_ _cleanup_(json_decrefp)

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)

const char *profile_op_to_string(enum profile_op op)
{
	switch (op) {
	case PROFILE_OP_READ:
		return "read";
	case PROFILE_OP_WRITE:
		return "write";
	case PROFILE_OP_EXEC:
		return "exec";
	}
	return "invalid";
}

int profile_op_from_string(const char *s, enum profile_op *ret)
{
	for (int i = PROFILE_OP_READ; i <= PROFILE_OP_EXEC; i++)
		if (s && strcmp(s, profile_op_to_string((enum profile_op)i)) == 0) {
			*ret = (enum profile_op)i;
			return 0;
		}
	return -EINVAL;
}

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

/* ---- apply --------------------------------------------------------------- */

static int fail_rule(struct cordon_error *reterr, int r, const struct profile_origin *o, const struct cordon_error *e)
{
	if (!reterr)
		return r;
	error_set(reterr, r, "%s: at %s: %s", o->file, o->pointer, e->message);
	snprintf(reterr->file, sizeof(reterr->file), "%s", o->file);
	snprintf(reterr->path, sizeof(reterr->path), "%s", o->pointer);
	return r;
}

/* Drop the built-in read-denies named in rs. No public setter removes a
 * default, so this one step edits the policy directly. */
static void undeny(struct cordon_policy *pol, const struct profile_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = 0; j < pol->n_deny; j++)
			if (strcmp(pol->deny[j].path, rs->v[i].path) == 0) {
				free(pol->deny[j].path);
				free(pol->deny[j].absent_at);
				memmove(&pol->deny[j], &pol->deny[j + 1], (pol->n_deny - j - 1) * sizeof(pol->deny[0]));
				pol->n_deny--;
				break;
			}
}

int profile_apply(const struct cordon_profile *p, struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *pol = NULL;
	struct cordon_error e = {};
	int r;

	if (!p || !ret)
		return error_set(reterr, -EINVAL, "no profile to apply");
	r = cordon_policy_new(cordon_mode_to_string(p->mode), p->workspace, &pol, reterr);
	if (r < 0)
		return r;
	r = cordon_policy_set_net(pol, p->net == PROFILE_NET_HOST    ? CORDON_NET_HOST
				       : p->net == PROFILE_NET_PROXY ? CORDON_NET_PROXY
								     : CORDON_NET_NONE);
	if (r < 0)
		return error_set(reterr, r, "cannot set the network mode");
	r = profile_net_apply(p, pol, reterr);
	if (r < 0)
		return r;

	/* Bypassed built-in entries: the loader has checked each is a member
	 * and granted elsewhere. Lifted groups: the loader listed exactly the
	 * entries of the named groups (the profile's own deny_read is added
	 * below, so it still wins). */
	undeny(pol, &p->bypass_credentials);
	undeny(pol, &p->lifted_credentials);
	for (size_t i = 0; i < p->bypass_persistence.n; i++)
		for (size_t j = 0; pol->protect && pol->protect[j]; j++)
			if (strcmp(pol->protect[j], p->bypass_persistence.v[i].path) == 0) {
				size_t n = strv_length(pol->protect);

				free(pol->protect[j]);
				memmove(&pol->protect[j], &pol->protect[j + 1], (n - j) * sizeof(char *));
				break;
			}

	for (size_t i = 0; i < p->deny_read.n; i++) {
		r = cordon_policy_deny_read(pol, p->deny_read.v[i].path, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->deny_read.v[i].origin, &e);
	}
	for (size_t i = 0; i < p->write.n; i++) {
		r = cordon_policy_add_writable(pol, p->write.v[i].path, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->write.v[i].origin, &e);
	}
	/* A write grant that makes shell start-up files writable (HOME, or a
	 * directory above it) keeps them read-only, as the workspace's are. */
	if (p->write.n) {
		_cleanup_strv_free_ char **persist = NULL;

		r = profile_group_members(p, p->home, 1, &persist);
		if (r < 0)
			return r;
		STRV_FOREACH(m, persist) {
			bool lifted = false;

			for (size_t i = 0; i < p->bypass_persistence.n; i++)
				if (strcmp(p->bypass_persistence.v[i].path, *m) == 0)
					lifted = true;
			if (lifted || strchr(*m, '*') || strv_contains(pol->protect, *m))
				continue;
			for (size_t i = 0; i < p->write.n; i++)
				if (path_is_under(*m, p->write.v[i].path)) {
					r = cordon_policy_protect(pol, *m, &e);
					if (r < 0)
						return fail_rule(reterr, r, &p->write.v[i].origin, &e);
					break;
				}
		}
	}
	for (size_t i = 0; i < p->protect.n; i++) {
		r = cordon_policy_protect(pol, p->protect.v[i].path, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->protect.v[i].origin, &e);
	}
	/* The profile's own files are a persistence path: a run that could
	 * rewrite the file the next run loads (build.json in the workspace)
	 * would choose that run's policy. Read-only inside, like .git/hooks
	 * (outside every writable root they are read-only anyway). */
	for (char **f = p->chain; f && *f; f++) {
		_cleanup_free_ char *canon = NULL;
		bool writable = false;

		if (strncmp(*f, "builtin:", 8) == 0 || cordon_canonicalize(*f, &canon, NULL) < 0)
			continue;
		STRV_FOREACH(root, pol->writable_roots)
			writable |= path_is_under(canon, *root);
		if (!writable)
			continue;
		r = cordon_policy_protect(pol, canon, &e);
		if (r < 0)
			return error_set(reterr, r, "cannot keep the profile %s read-only: %s", *f, e.message);
	}
	for (size_t i = 0; i < p->allow_unix_sockets.n; i++) {
		r = cordon_policy_allow_unix_socket(pol, p->allow_unix_sockets.v[i].path, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->allow_unix_sockets.v[i].origin, &e);
	}
	for (size_t i = 0; i < p->allow_vars.n; i++) {
		r = cordon_policy_keep_env(pol, p->allow_vars.v[i].path, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->allow_vars.v[i].origin, &e);
	}
	for (size_t i = 0; i < p->n_set_vars; i++) {
		r = cordon_policy_set_env(pol, p->set_vars[i].name, p->set_vars[i].value, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->set_vars[i].origin, &e);
	}
	*ret = TAKE_PTR(pol);
	return 0;
}

/* ---- why ----------------------------------------------------------------- */

static void decide(struct profile_decision *d, bool allow, const char *file, const char *pointer, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));
static void decide(struct profile_decision *d, bool allow, const char *file, const char *pointer, const char *fmt,
		   ...)
{
	va_list ap;

	d->allow = allow;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "(built-in)");
	snprintf(d->pointer, sizeof(d->pointer), "%s", pointer ? pointer : "");
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

static bool member_covers(const char *member, const char *path)
{
	size_t n = strlen(member);

	if (n > 0 && member[n - 1] == '*')
		return strncmp(path, member, n - 1) == 0;
	return path_is_under(path, member);
}

int profile_why_path(const struct cordon_profile *p, const char *path, enum profile_op op,
		     struct profile_decision *ret)
{
	_cleanup_strv_free_ char **creds = NULL, **persist = NULL;
	_cleanup_free_ char *c = NULL, *joined = NULL;
	struct profile_decision d = {};
	const struct profile_rule *rule;
	int r;

	if (!p || !path || !ret || op > PROFILE_OP_EXEC)
		return -EINVAL;
	if (path[0] != '/' && p->workspace) {
		joined = path_join(p->workspace, path);
		if (!joined)
			return -ENOMEM;
	}
	r = cordon_canonicalize(joined ? joined : path, &c, NULL);
	if (r < 0)
		return r;
	/* the temp roots, as a run would have them */
	r = policy_warm(NULL);
	if (r < 0)
		return r;
	r = profile_group_members(p, p->home, 0, &creds);
	if (r < 0)
		return r;
	r = profile_group_members(p, p->home, 1, &persist);
	if (r < 0)
		return r;

	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS) {
		decide(&d, true, p->mode_origin.file, p->mode_origin.pointer,
		       "mode danger-full-access confines nothing: %s is allowed", c);
		goto done;
	}
	rule = profile_rules_covering(&p->deny_read, c);
	if (rule) {
		decide(&d, false, rule->origin.file, rule->origin.pointer, "%s is hidden by the read-deny %s", c,
		       rule->spelled);
		goto done;
	}
	STRV_FOREACH(m, creds)
		if (path_is_under(c, *m) && !profile_rules_contain(&p->bypass_credentials, *m) &&
		    !profile_rules_contain(&p->lifted_credentials, *m)) {
			decide(&d, false, "(built-in)", "/groups/credentials",
			       "%s is hidden by %s, an entry of the built-in group credentials", c, *m);
			goto done;
		}
	for (size_t i = 0; policy_default_deny_sockets[i]; i++)
		if (path_is_under(c, policy_default_deny_sockets[i])) {
			decide(&d, false, "(built-in)", "",
			       "%s is hidden: %s is a socket or directory that leads out of any sandbox", c,
			       policy_default_deny_sockets[i]);
			goto done;
		}
	if (p->net != PROFILE_NET_HOST)
		for (size_t i = 0; policy_default_deny_services[i]; i++)
			if (path_is_under(c, policy_default_deny_services[i])) {
				decide(&d, false, p->net_origin.file, p->net_origin.pointer,
				       "%s is hidden: local service sockets are hidden while network.mode is none", c);
				goto done;
			}

	if (op == PROFILE_OP_READ || op == PROFILE_OP_EXEC) {
		const char *exec_note = op == PROFILE_OP_EXEC ? " (no execute-only gate yet: what is readable may run)" : "";

		rule = profile_rules_covering(&p->read, c);
		if (rule)
			decide(&d, true, rule->origin.file, rule->origin.pointer, "%s is granted by %s%s", c,
			       rule->spelled, exec_note);
		else if ((rule = profile_rules_covering(&p->lifted_credentials, c)))
			decide(&d, true, rule->origin.file, rule->origin.pointer,
			       "%s is readable: the credential group %s is lifted (its entry %s)%s", c, rule->spelled,
			       rule->path, exec_note);
		else
			decide(&d, true, p->mode_origin.file, p->mode_origin.pointer,
			       "the whole system is readable under mode %s, except what is denied%s",
			       cordon_mode_to_string(p->mode), exec_note);
		goto done;
	}

	if (p->mode == CORDON_MODE_READ_ONLY) {
		decide(&d, false, p->mode_origin.file, p->mode_origin.pointer, "mode read-only writes nothing");
		goto done;
	}
	rule = profile_rules_covering(&p->protect, c);
	if (rule) {
		decide(&d, false, rule->origin.file, rule->origin.pointer, "%s is kept read-only by %s", c,
		       rule->spelled);
		goto done;
	}
	STRV_FOREACH(m, persist)
		if (member_covers(*m, c) && !profile_rules_contain(&p->bypass_persistence, *m)) {
			decide(&d, false, "(built-in)", "/groups/persistence",
			       "%s is kept read-only by %s, an entry of the built-in group persistence", c, *m);
			goto done;
		}
	rule = profile_rules_covering(&p->write, c);
	if (rule) {
		decide(&d, true, rule->origin.file, rule->origin.pointer, "%s is granted by %s", c, rule->spelled);
		goto done;
	}
	if (p->workspace && path_is_under(c, p->workspace)) {
		decide(&d, true, p->workspace_origin.file, p->workspace_origin.pointer,
		       "%s is in the workspace %s", c, p->workspace);
		goto done;
	}
	for (const char *const *t = policy_temp_roots(); t && *t; t++)
		if (path_is_under(c, *t)) {
			decide(&d, true, "(built-in)", "", "%s is in the temp directory %s", c, *t);
			goto done;
		}
	decide(&d, false, p->mode_origin.file, p->mode_origin.pointer,
	       "no write grant covers %s: mode %s writes the workspace, temp and filesystem.write only", c,
	       cordon_mode_to_string(p->mode));
done:
	*ret = d;
	return 0;
}

int profile_why_host(const struct cordon_profile *p, const char *host, unsigned port, struct profile_decision *ret)
{
	struct profile_decision d = {};

	if (!p || !host || !ret || !host[0] || port > 65535)
		return -EINVAL;
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS || p->net == PROFILE_NET_HOST)
		decide(&d, true, p->net_origin.file, p->net_origin.pointer, "network.mode is %s: %.200s port %u is allowed",
		       p->mode == CORDON_MODE_DANGER_FULL_ACCESS ? "unconfined" : "host", host, port);
	else if (p->net == PROFILE_NET_PROXY)
		return profile_why_proxy(p, host, port, ret);
	else
		decide(&d, false, p->net_origin.file, p->net_origin.pointer,
		       "network.mode is none: only the sandbox's own loopback, so %.200s port %u is unreachable", host,
		       port);
	*ret = d;
	return 0;
}

/* ---- JSON ------------------------------------------------------------------ */

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

int profile_to_json(const struct cordon_profile *p, char **ret)
{
	_cleanup_json_ json_t *o = json_object(), *meta = json_object(), *fs = json_object(),
			      *groups = json_object(), *net = json_object(), *env = json_object(),
			      *limits = json_object();
	static const char *const limit_names[] = {
		"timeout", "cpu", "memory", "max_processes", "max_file_size", "max_open_files", "max_output",
	};
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
	for (size_t k = 0; k < ELEMENTSOF(limit_names); k++) {
		const uint64_t v[] = {
			p->limits.timeout_seconds, p->limits.cpu_seconds, p->limits.memory,
			p->limits.max_processes, p->limits.max_file_size, p->limits.max_open_files,
			p->limits.max_output,
		};

		if ((p->limits.set & (1u << k)) && (r = add(limits, limit_names[k], json_integer((json_int_t)v[k]))) < 0)
			return r;
	}
	if ((p->limits.set & (1u << PROFILE_LIMIT_ON_OUTPUT_LIMIT)) &&
	    (r = add(limits, "on_output_limit",
		     json_string(p->limits.on_output_limit == PROFILE_OUTPUT_KILL ? "kill" : "truncate"))) < 0)
		return r;
	if ((p->limits.set & (1u << PROFILE_LIMIT_FALLBACK)) &&
	    (r = add(limits, "limits_fallback", json_string(p->limits.fallback_fail ? "fail" : "warn"))) < 0)
		return r;

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
