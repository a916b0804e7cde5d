/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compiling command_policies once every file of the extends chain is read:
 * the names a policy uses are checked against each other (can_use, from's
 * callers and the edges they stand for, the approval backends rules name,
 * chain members, chain cycles), sandbox paths are expanded with the final
 * workspace and HOME (the filesystem section's tokens; @git:config-files
 * and @git:hooks-path name the global and system configuration only) and
 * canonicalised, and everything is copied into struct cordon_tools, which
 * the profile owns. Each piece keeps where it was written (file, JSON
 * pointer, line) for decisions to name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"
#include "cleanup.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_resolve.h"
#include "profile_resolve_tools.h"
#include "profile_open_urls.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_tools *, tools_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct tool_sandbox *, tool_sandbox_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct tool_policy *, tool_policy_free)

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

/* The names of the raw commands or backends, for did-you-mean. */
static int raw_names(struct loader *l, bool backends, const char ***ret, size_t *ret_n)
{
	size_t n = backends ? l->tools.n_backends : l->tools.n_commands;
	const char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = backends ? l->tools.backends[i].name : l->tools.commands[i].name;
	*ret = v;
	*ret_n = n;
	return 0;
}

const struct raw_command *raw_command(const struct loader *l, const char *name)
{
	for (size_t i = 0; i < l->tools.n_commands; i++)
		if (strcmp(l->tools.commands[i].name, name) == 0)
			return &l->tools.commands[i];
	return NULL;
}

static const struct raw_backend *raw_backend(const struct loader *l, const char *name)
{
	for (size_t i = 0; i < l->tools.n_backends; i++)
		if (strcmp(l->tools.backends[i].name, name) == 0)
			return &l->tools.backends[i];
	return NULL;
}

/* name must be one of the commands (or, for a backend, of the backends). */
static int check_exists(struct loader *l, const struct where *w, bool backend, const char *name, const char *what)
{
	_cleanup_free_ const char **names = NULL;
	size_t n;
	int r;

	if (backend ? !!raw_backend(l, name) : !!raw_command(l, name))
		return 0;
	r = raw_names(l, backend, &names, &n);
	if (r < 0)
		return r;
	if (n == 0)
		return loader_fail(l, -EINVAL, w, "%s \"%.100s\": command_policies.%s defines none", what, name,
				   backend ? "approval_backends" : "commands");
	return loader_fail_unknown(l, -EINVAL, w, what, backend ? "backends" : "commands", name, names, n);
}

/* ---- approval backends ----------------------------------------------------- */

static size_t raw_backend_index(const struct loader *l, const char *name)
{
	return (size_t)(raw_backend(l, name) - l->tools.backends);
}

/* Depth-first from backend i (color: 0 not seen, 1 on the path, 2 done;
 * path[0..depth) the chains that led here): a member on the path closes
 * a cycle, named at that member. */
static int chain_walk(struct loader *l, size_t i, unsigned char *color, size_t *path, size_t depth)
{
	const struct raw_backend *b = &l->tools.backends[i];
	int r;

	color[i] = 1;
	path[depth] = i;
	for (size_t m = 0; m < b->members.n; m++) {
		size_t j = raw_backend_index(l, b->members.v[m].spelled);

		if (color[j] == 1) {
			char chain[300] = "";
			size_t o = 0, from = 0;

			while (path[from] != j)
				from++;
			for (size_t k = from; k <= depth; k++) {
				o += (size_t)snprintf(chain + o, sizeof(chain) - o, "%s -> ", l->tools.backends[path[k]].name);
				if (o >= sizeof(chain))
					o = sizeof(chain) - 1;
			}
			snprintf(chain + o, sizeof(chain) - o, "%s", l->tools.backends[j].name);
			return loader_fail(l, -ELOOP, &b->members.v[m].where, "approval chain cycle: %s", chain);
		}
		if (color[j] == 0 && (r = chain_walk(l, j, color, path, depth + 1)) < 0)
			return r;
	}
	color[i] = 2;
	return 0;
}

/* Every chain member is a backend, and no chain reaches itself. */
static int check_chains(struct loader *l)
{
	const struct raw_tools *rt = &l->tools;
	_cleanup_free_ unsigned char *color = calloc(rt->n_backends ?: 1, 1);
	_cleanup_free_ size_t *path = calloc(rt->n_backends ?: 1, sizeof(*path));
	int r;

	if (!color || !path)
		return -ENOMEM;
	for (size_t i = 0; i < rt->n_backends; i++)
		for (size_t m = 0; m < rt->backends[i].members.n; m++) {
			const struct raw_entry *e = &rt->backends[i].members.v[m];

			r = check_exists(l, &e->where, true, e->spelled, "no approval backend");
			if (r < 0)
				return r;
		}
	for (size_t i = 0; i < rt->n_backends; i++)
		if (color[i] == 0 && (r = chain_walk(l, i, color, path, 0)) < 0)
			return r;
	return 0;
}

static int compile_backend(const struct raw_backend *rb, struct tool_backend *b)
{
	int r;

	*b = (struct tool_backend){
		.type = rb->type,
		.timeout_secs = rb->timeout_secs,
		.default_allow = rb->type == CORDON_APPROVAL_TERMINAL && rb->default_allow,
		.chain_all = rb->chain_all,
	};
	if (!(b->name = strdup(rb->name)) || (rb->url && !(b->url = strdup(rb->url))) ||
	    (rb->secret_env && !(b->secret_env = strdup(rb->secret_env))) ||
	    (rb->answer_secret_env && !(b->answer_secret_env = strdup(rb->answer_secret_env))) ||
	    !(b->members = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < rb->members.n; i++)
		if ((r = strv_push(&b->members, rb->members.v[i].spelled)) < 0)
			return r;
	return place_of(&rb->where, &b->place);
}

/* ---- sandboxes ------------------------------------------------------------- */

static int compile_paths(struct loader *l, struct cordon_profile *p, const struct raw_list *in, bool write,
			 char ***out)
{
	int r;

	for (size_t i = 0; i < in->n; i++) {
		_cleanup_strv_free_ char **paths = NULL;

		r = loader_expand_entry(l, p, &in->v[i], &paths);
		if (r < 0)
			return r;
		if (!paths[0] && in->v[i].spelled[0] == '@') {
			r = profile_note_add(p, PROFILE_NOTE_EMPTY_TOKEN, NULL, &in->v[i].where, "%s names no path here",
					     in->v[i].spelled);
			if (r < 0)
				return r;
		}
		STRV_FOREACH(x, paths) {
			_cleanup_free_ char *c = NULL;

			/* a tool's grants never follow a link a sandbox could have made */
			r = loader_canonical_grant(l, &in->v[i].where, *x, &c);
			if (r < 0)
				return r;
			if (write && strcmp(c, "/") == 0)
				return loader_fail(l, -EINVAL, &in->v[i].where, "\"%.100s\" is the whole filesystem",
						   in->v[i].spelled);
			r = loader_count_rule(l, &in->v[i].where);
			if (r < 0)
				return r;
			r = strv_push_unique(out, c);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* open_urls compiled, its approval backend one that exists. */
static int open_urls_checked(struct loader *l, const struct raw_open_urls *ro, struct tool_open_urls **ret)
{
	int r;

	if (ro->approve && (r = check_exists(l, &ro->backend_where, true, ro->backend, "no approval backend")) < 0)
		return r;
	return open_urls_compile(ro, ret);
}

static int compile_sandbox(struct loader *l, struct cordon_profile *p, const struct raw_sandbox *rs,
			   struct tool_sandbox **ret)
{
	_cleanup_(tool_sandbox_freep) struct tool_sandbox *sb = calloc(1, sizeof(*sb));
	int r;

	if (!sb)
		return -ENOMEM;
	r = tool_sandbox_init(sb);
	if (r < 0)
		return r;
	for (size_t i = 0; i < _TOOL_PATH_LISTS; i++) {
		r = compile_paths(l, p, &rs->paths[i], i == TOOL_FS_WRITE || i == TOOL_FS_WRITE_FILE, &sb->paths[i]);
		if (r < 0)
			return r;
	}
	sb->net_set = rs->net_set;
	sb->net = rs->net;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if ((r = strv_extend_strv(&sb->net_rules[i], (const char *const *)rs->net_rules[i])) < 0)
			return r;
	for (size_t i = 0; i < rs->run.allow_vars.n; i++)
		if ((r = strv_push_unique(&sb->allow_vars, rs->run.allow_vars.v[i].spelled)) < 0)
			return r;
	for (size_t i = 0; i < rs->home_files.n; i++)
		if ((r = strv_push_unique(&sb->home_files, rs->home_files.v[i].spelled)) < 0)
			return r;
	for (size_t i = 0; i < rs->run.n_vars; i++) {
		char *e = NULL;

		if (asprintf(&e, "%s=%s", rs->run.vars[i].name, rs->run.vars[i].value) < 0)
			return -ENOMEM;
		if ((r = strv_consume(&sb->set_vars, e)) < 0)
			return r;
	}
	sb->limits = rs->run.limits;
	memcpy(sb->stdio, rs->stdio, sizeof(sb->stdio));
	if (rs->open_urls && (r = open_urls_checked(l, rs->open_urls, &sb->open_urls)) < 0)
		return r;
	r = place_of(&rs->where, &sb->place);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(sb);
	return 0;
}

/* ---- invocation policies --------------------------------------------------------- */

/* A checked JSON array of strings, as a vector. */
static int words_of(const json_t *a, char ***ret)
{
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
	size_t i;
	json_t *e;
	int r;

	if (!v)
		return -ENOMEM;
	json_array_foreach(a, i, e)
		if ((r = strv_push(&v, json_string_value(e))) < 0)
			return r;
	*ret = TAKE_PTR(v);
	return 0;
}

static int compile_env(const json_t *env, struct tool_rule *rule)
{
	const char *name;
	json_t *m;
	int r;

	rule->env = calloc(json_object_size(env), sizeof(*rule->env));
	if (!rule->env)
		return -ENOMEM;
	json_object_foreach((json_t *)env, name, m) {
		struct tool_env_match *em = &rule->env[rule->n_env++];
		json_t *eq = json_object_get(m, "equals");

		em->name = strdup(name);
		if (!em->name)
			return -ENOMEM;
		em->one_of = !eq;
		if (eq) {
			if ((r = strv_push(&em->values, json_string_value(eq))) < 0)
				return r;
		} else if ((r = words_of(json_object_get(m, "one_of"), &em->values)) < 0)
			return r;
	}
	return 0;
}

static int compile_rule(struct loader *l, const struct raw_rule *rr, enum cordon_tool_action action,
			struct tool_rule *rule)
{
	int r;

	rule->action = action;
	if (rr->backend && (r = check_exists(l, &rr->backend_where, true, rr->backend, "no approval backend")) < 0)
		return r;
	for (size_t k = 0; k < _TOOL_ARGV_MATCHES; k++)
		if (rr->argv[k] && (r = words_of(rr->argv[k], &rule->argv[k])) < 0)
			return r;
	if (rr->env && (r = compile_env(rr->env, rule)) < 0)
		return r;
	if ((rr->reason && !(rule->reason = strdup(rr->reason))) || (rr->backend && !(rule->backend = strdup(rr->backend))))
		return -ENOMEM;
	return place_of(&rr->where, &rule->place);
}

static int compile_policy(struct loader *l, const struct raw_policy *rp, struct tool_policy **ret)
{
	static const enum cordon_tool_action order[] = { CORDON_TOOL_DENY, CORDON_TOOL_APPROVE, CORDON_TOOL_ALLOW };
	_cleanup_(tool_policy_freep) struct tool_policy *pol = calloc(1, sizeof(*pol));
	size_t n = 0;
	int r;

	if (!pol)
		return -ENOMEM;
	if (rp->backend && (r = check_exists(l, &rp->backend_where, true, rp->backend, "no approval backend")) < 0)
		return r;
	pol->default_action = rp->default_action;
	if (rp->backend && !(pol->backend = strdup(rp->backend)))
		return -ENOMEM;
	for (size_t a = 0; a < ELEMENTSOF(order); a++)
		n += rp->n_rules[order[a]];
	pol->rules = calloc(n ?: 1, sizeof(*pol->rules));
	if (!pol->rules)
		return -ENOMEM;
	for (size_t a = 0; a < ELEMENTSOF(order); a++)
		for (size_t i = 0; i < rp->n_rules[order[a]]; i++) {
			r = compile_rule(l, &rp->rules[order[a]][i], order[a], &pol->rules[pol->n_rules++]);
			if (r < 0)
				return r;
		}
	if ((r = place_of(&rp->where, &pol->place)) < 0 || (r = place_of(&rp->default_where, &pol->default_place)) < 0)
		return r;
	*ret = TAKE_PTR(pol);
	return 0;
}

/* ---- commands ------------------------------------------------------------------ */

static int compile_from(struct loader *l, struct cordon_profile *p, const struct raw_command *rc,
			const struct raw_from *rf, struct tool_from *f)
{
	int r;

	if (strcmp(rf->caller, CORDON_TOOLS_SESSION) != 0) {
		const struct raw_command *caller;

		r = check_exists(l, &rf->key_where, false, rf->caller, "no command");
		if (r < 0)
			return r;
		caller = raw_command(l, rf->caller);
		if (caller != rc) {
			bool listed = false;

			for (size_t i = 0; i < caller->can_use.n; i++)
				listed |= strcmp(caller->can_use.v[i].spelled, rc->name) == 0;
			if (!listed)
				return loader_fail(l, -EINVAL, &rf->key_where,
						   "%s cannot call %s (%s is not in %s's can_use): this entry would "
						   "never apply",
						   rf->caller, rc->name, rc->name, rf->caller);
		}
	}
	f->caller = strdup(rf->caller);
	if (!f->caller)
		return -ENOMEM;
	f->deny = rf->deny;
	/* the URL endpoint is the command's, whoever calls it */
	if (rf->sandbox && rf->sandbox->open_urls)
		return loader_fail(l, -EINVAL, &rf->sandbox->open_urls->where,
				   "open_urls belongs in %s's own sandbox (commands.%s.sandbox), not in a caller's",
				   rc->name, rc->name);
	if (rf->sandbox && (r = compile_sandbox(l, p, rf->sandbox, &f->sandbox)) < 0)
		return r;
	if (rf->policy && (r = compile_policy(l, rf->policy, &f->policy)) < 0)
		return r;
	return place_of(&rf->where, &f->place);
}

static int compile_command(struct loader *l, struct cordon_profile *p, const struct raw_command *rc,
			   struct tool_command *c)
{
	int r;

	/* those names are the URL opener a sandbox with open_urls has */
	if (broker_name_is_opener(rc->name))
		return loader_fail(l, -EINVAL, &rc->key_where,
				   "a command may not be named %s: xdg-open, open and sensible-browser are the "
				   "sandbox's URL opener (open_urls)", rc->name);
	if (!(c->name = strdup(rc->name)) || (rc->executable && !(c->executable = strdup(rc->executable))) ||
	    !(c->can_use = calloc(1, sizeof(char *))) || !(c->secret_flags = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < rc->secret_flags.n; i++)
		if ((r = strv_push_unique(&c->secret_flags, rc->secret_flags.v[i].spelled)) < 0)
			return r;
	for (size_t i = 0; i < rc->can_use.n; i++) {
		r = check_exists(l, &rc->can_use.v[i].where, false, rc->can_use.v[i].spelled, "no command");
		if (r < 0)
			return r;
		r = strv_push_unique(&c->can_use, rc->can_use.v[i].spelled);
		if (r < 0)
			return r;
	}
	if (rc->sandbox && (r = compile_sandbox(l, p, rc->sandbox, &c->sandbox)) < 0)
		return r;
	if (rc->policy && (r = compile_policy(l, rc->policy, &c->policy)) < 0)
		return r;
	c->from = calloc(rc->n_from ?: 1, sizeof(*c->from));
	if (!c->from)
		return -ENOMEM;
	for (size_t i = 0; i < rc->n_from; i++) {
		r = compile_from(l, p, rc, &rc->from[i], &c->from[c->n_from++]);
		if (r < 0)
			return r;
	}
	return place_of(&rc->where, &c->place);
}

/* ---- the whole -------------------------------------------------------------------- */

static int cmp_commands(const void *a, const void *b)
{
	return strcmp(((const struct tool_command *)a)->name, ((const struct tool_command *)b)->name);
}

static int cmp_backends(const void *a, const void *b)
{
	return strcmp(((const struct tool_backend *)a)->name, ((const struct tool_backend *)b)->name);
}

int loader_resolve_tools(struct loader *l, struct cordon_profile *p)
{
	const struct raw_tools *rt = &l->tools;
	_cleanup_(tools_freep) struct cordon_tools *t = NULL;
	int r;

	if (!rt->seen && rt->session_open_urls)
		return loader_fail(l, -EINVAL, &rt->session_open_urls->where,
				   "open_urls needs command_policies: the supervisor that opens URLs runs only for a "
				   "profile with controlled commands");
	if (!rt->seen)
		return 0;
	if (rt->n_commands == 0)
		return loader_fail(l, -EINVAL, &rt->where,
				   "command_policies names no command: list the tools it governs under \"commands\"");
	/* nothing confines the session there: it could run every tool itself */
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return loader_fail(l, -EINVAL, &rt->where,
				   "mode danger-full-access enforces nothing: command_policies could not hold");
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	r = tool_sandbox_init(&t->empty);
	if (r < 0)
		return r;
	t->backends = calloc(rt->n_backends ?: 1, sizeof(*t->backends));
	t->commands = calloc(rt->n_commands, sizeof(*t->commands));
	t->names = calloc(rt->n_commands + 1, sizeof(*t->names));
	t->backend_names = calloc(rt->n_backends + 1, sizeof(*t->backend_names));
	if (!t->backends || !t->commands || !t->names || !t->backend_names)
		return -ENOMEM;
	r = check_chains(l);
	if (r < 0)
		return r;
	for (size_t i = 0; i < rt->n_backends; i++) {
		r = compile_backend(&rt->backends[i], &t->backends[t->n_backends++]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < rt->n_commands; i++) {
		r = compile_command(l, p, &rt->commands[i], &t->commands[t->n_commands++]);
		if (r < 0)
			return r;
	}
	if (rt->session_open_urls && (r = open_urls_checked(l, rt->session_open_urls, &t->session_open_urls)) < 0)
		return r;
	qsort(t->backends, t->n_backends, sizeof(*t->backends), cmp_backends);
	qsort(t->commands, t->n_commands, sizeof(*t->commands), cmp_commands);
	for (size_t i = 0; i < t->n_commands; i++)
		t->names[i] = t->commands[i].name;
	for (size_t i = 0; i < t->n_backends; i++)
		t->backend_names[i] = t->backends[i].name;
	p->tools = TAKE_PTR(t);
	return 0;
}
