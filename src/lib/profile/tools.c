/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A profile's compiled command_policies: how its parts are let go, how
 * commands and backends are found (both arrays sorted by name), and the
 * public accessors that only read them. Deciding is tools_decide.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "creds.h"
#include "strv.h"
#include "tools.h"

static char *const empty_list[] = { NULL };

/* ---- lifetime ------------------------------------------------------------- */

int tool_sandbox_init(struct tool_sandbox *sb)
{
	*sb = (struct tool_sandbox){};
	for (size_t i = 0; i < _TOOL_PATH_LISTS; i++)
		if (!(sb->paths[i] = calloc(1, sizeof(char *))))
			goto oom;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if (!(sb->net_rules[i] = calloc(1, sizeof(char *))))
			goto oom;
	sb->allow_vars = calloc(1, sizeof(char *));
	sb->set_vars = calloc(1, sizeof(char *));
	sb->home_files = calloc(1, sizeof(char *));
	if (!sb->allow_vars || !sb->set_vars || !sb->home_files)
		goto oom;
	return 0;
oom:
	tool_sandbox_clear(sb);
	return -ENOMEM;
}

struct tool_open_urls *tool_open_urls_free(struct tool_open_urls *o)
{
	if (!o)
		return NULL;
	strv_free(o->origins);
	strv_free(o->path_prefixes);
	free(o->backend);
	tool_place_clear(&o->place);
	free(o);
	return NULL;
}

void tool_sandbox_clear(struct tool_sandbox *sb)
{
	for (size_t i = 0; i < _TOOL_PATH_LISTS; i++)
		strv_free(sb->paths[i]);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(sb->net_rules[i]);
	strv_free(sb->allow_vars);
	strv_free(sb->set_vars);
	strv_free(sb->home_files);
	tool_open_urls_free(sb->open_urls);
	tool_place_clear(&sb->place);
	*sb = (struct tool_sandbox){};
}

struct tool_sandbox *tool_sandbox_free(struct tool_sandbox *sb)
{
	if (sb) {
		tool_sandbox_clear(sb);
		free(sb);
	}
	return NULL;
}

static void tool_rule_clear(struct tool_rule *rule)
{
	for (size_t i = 0; i < _TOOL_ARGV_MATCHES; i++)
		strv_free(rule->argv[i]);
	for (size_t i = 0; i < rule->n_env; i++) {
		free(rule->env[i].name);
		strv_free(rule->env[i].values);
	}
	free(rule->env);
	free(rule->reason);
	free(rule->backend);
	tool_place_clear(&rule->place);
}

struct tool_policy *tool_policy_free(struct tool_policy *pol)
{
	if (!pol)
		return NULL;
	for (size_t i = 0; i < pol->n_rules; i++)
		tool_rule_clear(&pol->rules[i]);
	free(pol->rules);
	free(pol->backend);
	tool_place_clear(&pol->place);
	tool_place_clear(&pol->default_place);
	free(pol);
	return NULL;
}

void tool_command_clear(struct tool_command *c)
{
	free(c->name);
	free(c->executable);
	tool_sandbox_free(c->sandbox);
	tool_policy_free(c->policy);
	strv_free(c->can_use);
	strv_free(c->secret_flags);
	for (size_t i = 0; i < c->n_from; i++) {
		free(c->from[i].caller);
		tool_sandbox_free(c->from[i].sandbox);
		tool_policy_free(c->from[i].policy);
		tool_place_clear(&c->from[i].place);
	}
	free(c->from);
	tool_place_clear(&c->place);
	*c = (struct tool_command){};
}

void tool_backend_clear(struct tool_backend *b)
{
	free(b->name);
	free(b->url);
	free(b->secret_env);
	free(b->answer_secret_env);
	strv_free(b->members);
	tool_place_clear(&b->place);
	*b = (struct tool_backend){};
}

struct cordon_tools *tools_free(struct cordon_tools *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_commands; i++)
		tool_command_clear(&t->commands[i]);
	free(t->commands);
	free(t->names); /* the commands' own strings */
	free(t->backend_names); /* the backends' */
	for (size_t i = 0; i < t->n_backends; i++)
		tool_backend_clear(&t->backends[i]);
	free(t->backends);
	tool_sandbox_clear(&t->empty);
	tool_creds_free(t->creds);
	tool_open_urls_free(t->session_open_urls);
	free(t);
	return NULL;
}

/* ---- lookups ------------------------------------------------------------------ */

static int cmp_command(const void *key, const void *elem)
{
	return strcmp(key, ((const struct tool_command *)elem)->name);
}

static int cmp_backend(const void *key, const void *elem)
{
	return strcmp(key, ((const struct tool_backend *)elem)->name);
}

const struct tool_command *tools_command(const struct cordon_tools *t, const char *name)
{
	if (!t || !name)
		return NULL;
	return bsearch(name, t->commands, t->n_commands, sizeof(*t->commands), cmp_command);
}

const struct tool_backend *tools_backend(const struct cordon_tools *t, const char *name)
{
	if (!t || !name)
		return NULL;
	return bsearch(name, t->backends, t->n_backends, sizeof(*t->backends), cmp_backend);
}

const struct tool_from *tool_command_from(const struct tool_command *c, const char *caller)
{
	for (size_t i = 0; i < c->n_from; i++)
		if (strcmp(c->from[i].caller, caller) == 0)
			return &c->from[i];
	return NULL;
}

const struct tool_open_urls *tools_open_urls(const struct cordon_tools *t, const char *caller)
{
	const struct tool_command *c;

	if (!t || !caller)
		return NULL;
	if (strcmp(caller, CORDON_TOOLS_SESSION) == 0)
		return t->session_open_urls;
	c = tools_command(t, caller);
	return c && c->sandbox ? c->sandbox->open_urls : NULL;
}

/* ---- the public accessors ------------------------------------------------------- */

CORDON_API const char *const *cordon_tools_commands(const struct cordon_tools *t)
{
	return (const char *const *)(t ? t->names : empty_list);
}

CORDON_API const char *cordon_tools_executable(const struct cordon_tools *t, const char *command)
{
	const struct tool_command *c = tools_command(t, command);

	if (!c)
		return NULL;
	return c->executable ? c->executable : c->name;
}

CORDON_API const char *const *cordon_tools_can_use(const struct cordon_tools *t, const char *command)
{
	const struct tool_command *c = tools_command(t, command);

	return c ? (const char *const *)c->can_use : NULL;
}

CORDON_API const char *const *cordon_tools_secret_flags(const struct cordon_tools *t, const char *command)
{
	const struct tool_command *c = t && command ? tools_command(t, command) : NULL;

	return c ? (const char *const *)c->secret_flags : NULL;
}

CORDON_API int cordon_tools_backend(const struct cordon_tools *t, const char *name,
				    struct cordon_approval_backend *ret)
{
	const struct tool_backend *b;

	if (!t || !name || !ret)
		return -EINVAL;
	b = tools_backend(t, name);
	if (!b)
		return -ENOENT;
	*ret = (struct cordon_approval_backend){
		.name = b->name,
		.type = b->type,
		.timeout_ms = b->timeout_secs * 1000u,
		.default_allow = b->default_allow,
		.url = b->url,
		.secret_env = b->secret_env,
		.chain_all = b->chain_all,
		.members = b->type == CORDON_APPROVAL_CHAIN ? (const char *const *)b->members : NULL,
		.answer_secret_env = b->answer_secret_env,
	};
	return 0;
}

CORDON_API const char *const *cordon_tools_backend_names(const struct cordon_tools *t)
{
	return (const char *const *)(t && t->backend_names ? t->backend_names : empty_list);
}

CORDON_API const char *cordon_tool_action_to_string(enum cordon_tool_action a)
{
	switch (a) {
	case CORDON_TOOL_ALLOW:
		return "allow";
	case CORDON_TOOL_DENY:
		return "deny";
	case CORDON_TOOL_APPROVE:
		return "approve";
	}
	return "invalid";
}
