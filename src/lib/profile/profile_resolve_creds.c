/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compiling credentials and credential_capture once every file of the
 * extends chain is read: each consumer of grant_to a command that
 * command_policies defines (and whose network is not "none": a credential
 * never silently widens a tool's network), each cmd://NAME a capture,
 * each approve rule's backend an approval backend, no consumer holding two
 * phantoms under one variable, no consumer's set_vars naming a trust
 * variable cordon sets for it; paths expanded. The result lives in the
 * profile's struct cordon_tools (made empty when the profile has no
 * command_policies): a profile with credentials is always a session of the
 * tool sandbox's supervisor, which holds the values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "creds.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_resolve.h"
#include "profile_resolve_creds.h"
#include "profile_resolve_tools.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct tool_creds *, tool_creds_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_tools *, tools_free)

static int place_of(const struct where *w, struct tool_place *ret)
{
	struct profile_origin o = {};
	int column, r = where_origin(w, &o);

	if (r < 0)
		return r;
	*ret = (struct tool_place){ .file = o.file, .pointer = o.pointer };
	where_position(w, &ret->line, &column);
	return 0;
}

static const struct raw_capture *raw_capture_named(const struct loader *l, const char *name)
{
	for (size_t i = 0; i < l->creds.n_captures; i++)
		if (strcmp(l->creds.captures[i].name, name) == 0)
			return &l->creds.captures[i];
	return NULL;
}

/* One path spelled in a profile (~, tokens) as one absolute path. */
static int expand_one(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e, char **ret)
{
	_cleanup_strv_free_ char **paths = NULL;
	int r = loader_expand_entry(l, p, e, &paths);

	if (r < 0)
		return r;
	if (strv_length(paths) != 1)
		return loader_fail(l, -EINVAL, &e->where, "\"%.100s\" is not one path", e->spelled);
	*ret = strdup(paths[0]);
	return *ret ? 0 : -ENOMEM;
}

/* A consumer "cmd.NAME": NAME a command, whose network (its own sandbox's
 * and every caller's) is not written "none". */
static int check_consumer(struct loader *l, const struct raw_cred *rc, const struct raw_entry *g)
{
	const struct raw_command *c;
	const char *name = g->spelled + 4;

	if (strcmp(g->spelled, CORDON_TOOLS_SESSION) == 0)
		return 0;
	c = raw_command(l, name);
	if (!c) {
		_cleanup_free_ const char **names = calloc(l->tools.n_commands + 1, sizeof(*names));

		if (!names)
			return -ENOMEM;
		if (l->tools.n_commands == 0)
			return loader_fail(l, -EINVAL, &g->where,
					   "cmd.%.100s: command_policies.commands defines no command", name);
		for (size_t i = 0; i < l->tools.n_commands; i++)
			names[i] = l->tools.commands[i].name;
		return loader_fail_unknown(l, -EINVAL, &g->where, "grant_to names no command", "commands", name, names,
					   l->tools.n_commands);
	}
	if (c->sandbox && c->sandbox->net_set && c->sandbox->net == PROFILE_NET_NONE)
		return loader_fail(l, -EINVAL, &g->where,
				   "credential %s is granted to %s, whose sandbox says network \"none\" (%s): a "
				   "credential does not widen a tool's network silently; give it network \"proxy\" or "
				   "take the grant away",
				   rc->name, name, "its own sandbox");
	for (size_t i = 0; i < c->n_from; i++)
		if (c->from[i].sandbox && c->from[i].sandbox->net_set && c->from[i].sandbox->net == PROFILE_NET_NONE)
			return loader_fail(l, -EINVAL, &g->where,
					   "credential %s is granted to %s, whose sandbox from %s says network \"none\": a "
					   "credential does not widen a tool's network silently; give it network \"proxy\" "
					   "or take the grant away",
					   rc->name, name, c->from[i].caller);
	return 0;
}

static bool backend_defined(const struct loader *l, const char *name)
{
	for (size_t i = 0; i < l->tools.n_backends; i++)
		if (strcmp(l->tools.backends[i].name, name) == 0)
			return true;
	return false;
}

static int cmp_rule_action(const void *a, const void *b)
{
	const struct cred_rule *x = a, *y = b;

	/* deny, approve, allow: the order they are tried */
	return (int)x->action - (int)y->action;
}

static int compile_cred(struct loader *l, struct cordon_profile *p, const struct raw_cred *rc, struct tool_cred *c)
{
	struct cordon_error why;
	int r;

	if (!(c->name = strdup(rc->name)) || !(c->hosts = calloc(1, sizeof(char *))) ||
	    !(c->grant_to = calloc(1, sizeof(char *))))
		return -ENOMEM;
	c->source = (enum cred_source)rc->source;
	if (c->source == CRED_SOURCE_FILE) {
		struct raw_entry e = { .spelled = (char *)rc->source_ref, .where = rc->source_where };

		if ((r = expand_one(l, p, &e, &c->source_ref)) < 0)
			return r;
	} else if (!(c->source_ref = strdup(rc->source_ref)))
		return -ENOMEM;
	if (c->source == CRED_SOURCE_CMD && !raw_capture_named(l, rc->source_ref)) {
		if (l->creds.n_captures == 0)
			return loader_fail(l, -EINVAL, &rc->source_where,
					   "cmd://%.100s: credential_capture defines no capture", rc->source_ref);
		{
			_cleanup_free_ const char **names = calloc(l->creds.n_captures + 1, sizeof(*names));

			if (!names)
				return -ENOMEM;
			for (size_t i = 0; i < l->creds.n_captures; i++)
				names[i] = l->creds.captures[i].name;
			return loader_fail_unknown(l, -EINVAL, &rc->source_where, "cmd:// names no capture", "captures",
						   rc->source_ref, names, l->creds.n_captures);
		}
	}
	for (size_t i = 0; i < rc->hosts.n; i++)
		if ((r = strv_push_unique(&c->hosts, rc->hosts.v[i].spelled)) < 0)
			return r;
	for (size_t i = 0; i < rc->grant_to.n; i++) {
		if ((r = check_consumer(l, rc, &rc->grant_to.v[i])) < 0)
			return r;
		if ((r = strv_push_unique(&c->grant_to, rc->grant_to.v[i].spelled)) < 0)
			return r;
	}
	c->inject = (enum cred_inject)rc->inject;
	if (!(c->inject_name = strdup(rc->inject_name)) || (rc->format && !(c->format = strdup(rc->format))) ||
	    !(c->phantom_env = strdup(rc->phantom_env)))
		return -ENOMEM;
	if (env_name_is_tool_owned(c->phantom_env) || env_name_is_cordon_owned(c->phantom_env) ||
	    env_name_is_injection(c->phantom_env) || env_name_is_proxy(c->phantom_env))
		return loader_fail(l, -EINVAL, &rc->phantom_where,
				   "phantom.env %s is a variable cordon or the loader owns: name another", c->phantom_env);
	r = cred_shape_parse(rc->phantom_shape, &c->shape, &why);
	if (r < 0)
		return r == -ENOMEM ? r : loader_fail(l, r, &rc->phantom_where, "%s", why.message);
	c->policy.set = rc->policy_set;
	c->policy.default_action = rc->policy_set ? (enum cred_action)rc->policy_default : CRED_ALLOW;
	if (rc->policy_set && (r = place_of(&rc->policy_where, &c->policy.place)) < 0)
		return r;
	c->policy.rules = calloc(rc->n_rules ?: 1, sizeof(*c->policy.rules));
	if (!c->policy.rules)
		return -ENOMEM;
	for (size_t i = 0; i < rc->n_rules; i++) {
		const struct raw_cred_rule *rr = &rc->rules[i];
		struct cred_rule *cr = &c->policy.rules[c->policy.n_rules++];

		cr->action = (enum cred_action)rr->action;
		if (rr->backend && !backend_defined(l, rr->backend))
			return loader_fail(l, -EINVAL, &rr->backend_where,
					   "backend \"%.100s\": command_policies.approval_backends defines no such backend",
					   rr->backend);
		if (!(cr->method = strdup(rr->method)) || !(cr->path = strdup(rr->path)) ||
		    (rr->reason && !(cr->reason = strdup(rr->reason))) || (rr->backend && !(cr->backend = strdup(rr->backend))))
			return -ENOMEM;
		if ((r = place_of(&rr->where, &cr->place)) < 0)
			return r;
	}
	/* stable: within an action, the order written */
	for (size_t i = 1; i < c->policy.n_rules; i++)
		for (size_t j = i; j > 0 && cmp_rule_action(&c->policy.rules[j - 1], &c->policy.rules[j]) > 0; j--) {
			struct cred_rule t = c->policy.rules[j];

			c->policy.rules[j] = c->policy.rules[j - 1];
			c->policy.rules[j - 1] = t;
		}
	if (rc->tls[RAW_TLS_CA].spelled && (r = expand_one(l, p, &rc->tls[RAW_TLS_CA], &c->tls_ca)) < 0)
		return r;
	if (rc->tls[RAW_TLS_CERT].spelled && ((r = expand_one(l, p, &rc->tls[RAW_TLS_CERT], &c->tls_client_cert)) < 0 ||
					      (r = expand_one(l, p, &rc->tls[RAW_TLS_KEY], &c->tls_client_key)) < 0))
		return r;
	return place_of(&rc->where, &c->place);
}

static int compile_capture(struct loader *l, struct cordon_profile *p, const struct raw_capture *rc,
			   struct tool_capture *c)
{
	int r;

	if (!(c->name = strdup(rc->name)) || !(c->command = calloc(1, sizeof(char *))) ||
	    !(c->read = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < rc->command.n; i++)
		if ((r = strv_push(&c->command, rc->command.v[i].spelled)) < 0)
			return r;
	c->timeout_usec = rc->timeout_usec;
	c->ttl_usec = rc->ttl_usec;
	for (size_t i = 0; i < rc->read.n; i++) {
		_cleanup_free_ char *path = NULL;

		if ((r = expand_one(l, p, &rc->read.v[i], &path)) < 0)
			return r;
		if ((r = strv_push_unique(&c->read, path)) < 0)
			return r;
	}
	c->net = rc->net_set ? rc->net : PROFILE_NET_NONE;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++) {
		if (!(c->net_rules[i] = calloc(1, sizeof(char *))))
			return -ENOMEM;
		if ((r = strv_extend_strv(&c->net_rules[i], (const char *const *)rc->net_rules[i])) < 0)
			return r;
	}
	return place_of(&rc->where, &c->place);
}

/* Two credentials granted to one consumer under one variable: which
 * phantom would it see? */
static int check_phantom_vars(struct loader *l, const struct tool_creds *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		for (size_t j = 0; j < i; j++) {
			if (strcmp(cs->v[i].phantom_env, cs->v[j].phantom_env) != 0)
				continue;
			for (char **g = cs->v[i].grant_to; *g; g++)
				if (strv_contains(cs->v[j].grant_to, *g))
					return loader_fail(l, -EINVAL, &l->creds.v[i].phantom_where,
							   "credentials %s and %s both give %s the variable %s: one "
							   "variable, one phantom",
							   cs->v[j].name, cs->v[i].name, *g, cs->v[i].phantom_env);
		}
	return 0;
}

/* A set_vars of a consumer of rc naming a trust variable: cordon would
 * replace it at run time (exec/trust.h), and the user would think their
 * bundle in force. */
static int check_trust_vars_of(struct loader *l, const struct raw_cred *rc, const char *consumer,
			       const struct raw_run *run)
{
	for (size_t i = 0; i < run->n_vars; i++)
		if (env_name_is_trust(run->vars[i].name))
			return loader_fail(l, -EPERM, &run->vars[i].where, CRED_TRUST_VAR_REFUSED, run->vars[i].name,
					   consumer, run->vars[i].name, rc->name, run->vars[i].name);
	return 0;
}

/* Each consumer's set_vars (the session's, a command's own sandbox's and
 * each of its per-caller sandboxes'): no trust variable. */
static int check_trust_vars(struct loader *l, const struct raw_cred *rc)
{
	int r;

	for (size_t i = 0; i < rc->grant_to.n; i++) {
		const char *g = rc->grant_to.v[i].spelled;
		const struct raw_command *c;

		if (strcmp(g, CORDON_TOOLS_SESSION) == 0) {
			if ((r = check_trust_vars_of(l, rc, g, &l->top)) < 0)
				return r;
			continue;
		}
		c = raw_command(l, g + 4);
		if (!c)
			continue; /* check_consumer refused it */
		if (c->sandbox && (r = check_trust_vars_of(l, rc, g, &c->sandbox->run)) < 0)
			return r;
		for (size_t j = 0; j < c->n_from; j++)
			if (c->from[j].sandbox && (r = check_trust_vars_of(l, rc, g, &c->from[j].sandbox->run)) < 0)
				return r;
	}
	return 0;
}

static int check_intercepted_vars_of(struct loader *l, const char *cred, const char *who,
				     const struct raw_sandbox *sb)
{
	if (!sb || !sb->net_set || sb->net != PROFILE_NET_PROXY)
		return 0; /* not on the proxy (unset reads as none) */
	for (size_t i = 0; i < sb->run.n_vars; i++)
		if (env_name_is_trust(sb->run.vars[i].name))
			return loader_fail(l, -EPERM, &sb->run.vars[i].where, CRED_TRUST_VAR_INTERCEPTED,
					   sb->run.vars[i].name, who, cred, sb->run.vars[i].name, sb->run.vars[i].name);
	return 0;
}

/* A sandbox that is no consumer but is on the proxy, in a profile with
 * credentials: its proxy intercepts their hosts (toolbox_creds_intercepted),
 * so the runner replaces its trust variables as a consumer's. The
 * consumers were checked first (check_trust_vars), with their reason. */
static int check_trust_vars_intercepted(struct loader *l, const char *cred)
{
	char who[256];
	int r;

	if (l->net_set && l->net == PROFILE_NET_PROXY)
		for (size_t i = 0; i < l->top.n_vars; i++)
			if (env_name_is_trust(l->top.vars[i].name))
				return loader_fail(l, -EPERM, &l->top.vars[i].where, CRED_TRUST_VAR_INTERCEPTED,
						   l->top.vars[i].name, CORDON_TOOLS_SESSION, cred, l->top.vars[i].name,
						   l->top.vars[i].name);
	for (size_t i = 0; i < l->tools.n_commands; i++) {
		const struct raw_command *c = &l->tools.commands[i];

		snprintf(who, sizeof(who), "cmd.%s", c->name);
		if ((r = check_intercepted_vars_of(l, cred, who, c->sandbox)) < 0)
			return r;
		for (size_t j = 0; j < c->n_from; j++)
			if ((r = check_intercepted_vars_of(l, cred, who, c->from[j].sandbox)) < 0)
				return r;
	}
	return 0;
}

static int cmp_creds(const void *a, const void *b)
{
	return strcmp(((const struct tool_cred *)a)->name, ((const struct tool_cred *)b)->name);
}

static int cmp_captures(const void *a, const void *b)
{
	return strcmp(((const struct tool_capture *)a)->name, ((const struct tool_capture *)b)->name);
}

/* command_policies with no command: what a profile with credentials and no
 * tools of its own runs as (the supervisor holds the values). */
static int tools_empty(struct cordon_tools **ret)
{
	_cleanup_(tools_freep) struct cordon_tools *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	r = tool_sandbox_init(&t->empty);
	if (r < 0)
		return r;
	t->commands = calloc(1, sizeof(*t->commands));
	t->backends = calloc(1, sizeof(*t->backends));
	t->names = calloc(1, sizeof(*t->names));
	t->backend_names = calloc(1, sizeof(*t->backend_names));
	if (!t->commands || !t->backends || !t->names || !t->backend_names)
		return -ENOMEM;
	*ret = TAKE_PTR(t);
	return 0;
}

int loader_resolve_creds(struct loader *l, struct cordon_profile *p)
{
	const struct raw_creds *rc = &l->creds;
	_cleanup_(tool_creds_freep) struct tool_creds *cs = NULL;
	int r;

	if (!rc->seen && !rc->captures_seen)
		return 0;
	if (rc->n == 0 && rc->captures_seen)
		return loader_fail(l, -EINVAL, &rc->captures_where,
				   "credential_capture without credentials: a capture is a credential's cmd:// source");
	if (rc->n == 0)
		return 0;
	/* nothing confines the session there: it could read every source */
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return loader_fail(l, -EINVAL, &rc->where,
				   "mode danger-full-access enforces nothing: credentials could not be kept out of it");
	cs = calloc(1, sizeof(*cs));
	if (!cs || !(cs->v = calloc(rc->n, sizeof(*cs->v))) ||
	    !(cs->captures = calloc(rc->n_captures ?: 1, sizeof(*cs->captures))))
		return -ENOMEM;
	for (size_t i = 0; i < rc->n; i++) {
		r = compile_cred(l, p, &rc->v[i], &cs->v[cs->n++]);
		if (r < 0)
			return r;
		r = check_trust_vars(l, &rc->v[i]);
		if (r < 0)
			return r;
	}
	r = check_trust_vars_intercepted(l, rc->v[0].name);
	if (r < 0)
		return r;
	for (size_t i = 0; i < rc->n_captures; i++) {
		bool used = false;

		for (size_t j = 0; j < rc->n; j++)
			used |= rc->v[j].source == CRED_SOURCE_CMD && strcmp(rc->v[j].source_ref, rc->captures[i].name) == 0;
		if (!used)
			return loader_fail(l, -EINVAL, &rc->captures[i].key_where,
					   "capture %s is no credential's source (cmd://%s)", rc->captures[i].name,
					   rc->captures[i].name);
		r = compile_capture(l, p, &rc->captures[i], &cs->captures[cs->n_captures++]);
		if (r < 0)
			return r;
	}
	r = check_phantom_vars(l, cs);
	if (r < 0)
		return r;
	qsort(cs->v, cs->n, sizeof(*cs->v), cmp_creds);
	qsort(cs->captures, cs->n_captures, sizeof(*cs->captures), cmp_captures);
	if (!p->tools && (r = tools_empty(&p->tools)) < 0)
		return r;
	p->tools->creds = TAKE_PTR(cs);
	return 0;
}
