/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deciding with a profile's command_policies (cordon.h documents the
 * rules): which edges exist (the session reaches every command, a command
 * its can_use; from.CALLER "deny" closes one; a command calling itself runs
 * directly in the sandbox it has, never through an edge), which policy and
 * sandbox an edge has (from.CALLER's, else the command's), and what one
 * invocation gets: deny, then approve, then allow rules, then the default.
 * Pure: reads the compiled data and the caller's arguments, nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "strv.h"
#include "text.h"
#include "tools.h"

#define COMMANDS_POINTER "/command_policies/commands"

/* d says action, decided at pl (NULL: by no rule of the profile; pointer
 * then names what was looked in) plus suffix, for the reason fmt. */
static void decided(struct cordon_tool_decision *d, enum cordon_tool_action action, const struct tool_place *pl,
		    const char *pointer, const char *suffix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void decided(struct cordon_tool_decision *d, enum cordon_tool_action action, const struct tool_place *pl,
		    const char *pointer, const char *suffix, const char *fmt, ...)
{
	va_list ap;

	*d = (struct cordon_tool_decision){ .action = action };
	snprintf(d->rule, sizeof(d->rule), "%s%s", pl ? pl->pointer : pointer, suffix);
	if (pl) {
		text_copy(d->file, sizeof(d->file), pl->file);
		d->line = pl->line;
	}
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

/* ---- edges ---------------------------------------------------------------- */

/* The command an edge reaches and the caller's from entry (NULL: none),
 * or 0 with *deny filled when the edge does not exist (-ENOENT: a name is
 * unknown, -EPERM: can_use or from.CALLER "deny"). */
static int edge(const struct cordon_tools *t, const char *caller, const char *command,
		const struct tool_command **ret_command, const struct tool_from **ret_from,
		struct cordon_tool_decision *deny)
{
	const struct tool_command *c = tools_command(t, command), *from_cmd = NULL;
	const struct tool_from *f;

	if (!c) {
		decided(deny, CORDON_TOOL_DENY, NULL, COMMANDS_POINTER, "", "%.100s is not a command under command_policies",
			command);
		return -ENOENT;
	}
	if (strcmp(caller, command) == 0) {
		/* its own binary runs in its sandbox directly: through the broker
		 * it would get the edge's sandbox, maybe wider than the one its
		 * caller gave it */
		decided(deny, CORDON_TOOL_DENY, &c->place, NULL, "",
			"%s calls itself directly, in the sandbox it runs in; never through the broker", command);
		return -EPERM;
	}
	if (strcmp(caller, CORDON_TOOLS_SESSION) != 0) {
		from_cmd = tools_command(t, caller);
		if (!from_cmd) {
			decided(deny, CORDON_TOOL_DENY, NULL, COMMANDS_POINTER, "",
				"no caller %.100s: neither the session nor a command under command_policies", caller);
			return -ENOENT;
		}
		if (!strv_contains(from_cmd->can_use, command)) {
			decided(deny, CORDON_TOOL_DENY, &from_cmd->place, NULL, "/can_use",
				"%s may not call %s: it is not in %s's can_use", caller, command, caller);
			return -EPERM;
		}
	}
	f = tool_command_from(c, caller);
	if (f && f->deny) {
		decided(deny, CORDON_TOOL_DENY, &f->place, NULL, "", "%s may not call %s: from.%s is \"deny\"",
			caller, command, caller);
		return -EPERM;
	}
	*ret_command = c;
	*ret_from = f;
	return 0;
}

/* ---- matching -------------------------------------------------------------- */

static bool argv_has(const char *const *argv, size_t argc, const char *word)
{
	for (size_t i = 0; i < argc; i++)
		if (strcmp(argv[i], word) == 0)
			return true;
	return false;
}

static bool argv_matches(enum tool_argv_match kind, char *const *words, const char *const *argv, size_t argc)
{
	size_t n = strv_length(words);

	switch (kind) {
	case TOOL_ARGV_EXACT:
		if (n != argc)
			return false;
		__attribute__((__fallthrough__));
	case TOOL_ARGV_PREFIX:
		if (n > argc)
			return false;
		for (size_t i = 0; i < n; i++)
			if (strcmp(words[i], argv[i]) != 0)
				return false;
		return true;
	case TOOL_ARGV_CONTAINS:
		for (size_t i = 0; i < n; i++)
			if (!argv_has(argv, argc, words[i]))
				return false;
		return true;
	case _TOOL_ARGV_MATCHES:
		break;
	}
	return false;
}

/* NAME's value in envp, as getenv has it (the first NAME= entry); NULL
 * when unset. */
static const char *env_value(const char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

static bool rule_matches(const struct tool_rule *rule, const char *const *argv, size_t argc,
			 const char *const *envp)
{
	for (size_t k = 0; k < _TOOL_ARGV_MATCHES; k++)
		if (rule->argv[k] && !argv_matches((enum tool_argv_match)k, rule->argv[k], argv, argc))
			return false;
	for (size_t i = 0; i < rule->n_env; i++) {
		const char *v = env_value(envp, rule->env[i].name);

		if (!v || !strv_contains(rule->env[i].values, v))
			return false;
	}
	return true;
}

/* ---- deciding -------------------------------------------------------------- */

static int env_name_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
	int r = memcmp(x, y, nx < ny ? nx : ny);

	return r ? r : (nx > ny) - (nx < ny);
}

/* A name envp sets twice, or NULL: a tool would see one value and the
 * policy might check another. Its name is copied to name[size]. */
static bool env_twice(const char *const *envp, char *name, size_t size)
{
	_cleanup_free_ const char **v = NULL;
	size_t n = 0, k = 0;

	while (envp && envp[n])
		n++;
	if (n < 2)
		return false;
	v = malloc(n * sizeof(*v));
	if (!v) {
		text_copy(name, size, "(out of memory)");
		return true; /* fail closed */
	}
	for (size_t i = 0; i < n; i++)
		if (strchr(envp[i], '='))
			v[k++] = envp[i]; /* "NAME" alone sets nothing */
	n = k;
	qsort(v, n, sizeof(*v), env_name_cmp);
	for (size_t i = 1; i < n; i++)
		if (env_name_cmp(&v[i - 1], &v[i]) == 0) {
			snprintf(name, size, "%.*s", (int)strcspn(v[i], "="), v[i]);
			return true;
		}
	return false;
}

CORDON_API int cordon_tools_decide(const struct cordon_tools *t, const char *caller, const char *command,
				   const char *const *argv, const char *const *envp, struct cordon_tool_decision *ret)
{
	static const char *const no_args[] = { NULL };
	const struct tool_command *c;
	const struct tool_from *f;
	const struct tool_policy *pol;
	struct cordon_tool_decision d;
	char name[128];
	size_t argc = 0;

	if (!t || !caller || !command || !ret)
		return -EINVAL;
	if (!argv)
		argv = no_args;
	while (argv[argc])
		argc++;
	if (edge(t, caller, command, &c, &f, &d) < 0) {
		*ret = d;
		return 0;
	}
	if (env_twice(envp, name, sizeof(name))) {
		decided(&d, CORDON_TOOL_DENY, &c->place, NULL, "",
			"%s is set twice in the caller's environment: a call says each variable once", name);
		*ret = d;
		return 0;
	}
	pol = f && f->policy ? f->policy : c->policy;
	if (!pol) {
		decided(&d, CORDON_TOOL_ALLOW, &c->place, NULL, "", "%s has no invocation_policy: every call is allowed",
			command);
		*ret = d;
		return 0;
	}
	for (size_t i = 0; i < pol->n_rules; i++) {
		const struct tool_rule *rule = &pol->rules[i];

		if (!rule_matches(rule, argv, argc, envp))
			continue;
		if (rule->reason)
			decided(&d, rule->action, &rule->place, NULL, "", "%s", rule->reason);
		else
			decided(&d, rule->action, &rule->place, NULL, "", "the call matches this %s rule",
				cordon_tool_action_to_string(rule->action));
		if (rule->action == CORDON_TOOL_APPROVE)
			text_copy(d.backend, sizeof(d.backend), rule->backend ? rule->backend : pol->backend);
		*ret = d;
		return 0;
	}
	decided(&d, pol->default_action, &pol->default_place, NULL, "",
		"no rule matches: the invocation_policy's default is %s",
		cordon_tool_action_to_string(pol->default_action));
	if (pol->default_action == CORDON_TOOL_APPROVE)
		text_copy(d.backend, sizeof(d.backend), pol->backend);
	*ret = d;
	return 0;
}

/* ---- the edge's sandbox ------------------------------------------------------ */

CORDON_API int cordon_tools_sandbox(const struct cordon_tools *t, const char *caller, const char *command,
				    struct cordon_tool_sandbox *ret)
{
	const struct tool_command *c;
	const struct tool_from *f;
	const struct tool_sandbox *sb;
	struct cordon_tool_decision d;
	int r;

	if (!t || !caller || !command || !ret)
		return -EINVAL;
	r = edge(t, caller, command, &c, &f, &d);
	if (r < 0)
		return r;
	sb = f && f->sandbox ? f->sandbox : c->sandbox ? c->sandbox : &t->empty;
	*ret = (struct cordon_tool_sandbox){
		.fs_read = (const char *const *)sb->paths[TOOL_FS_READ],
		.fs_write = (const char *const *)sb->paths[TOOL_FS_WRITE],
		.fs_read_file = (const char *const *)sb->paths[TOOL_FS_READ_FILE],
		.fs_write_file = (const char *const *)sb->paths[TOOL_FS_WRITE_FILE],
		.exec_paths = (const char *const *)sb->paths[TOOL_EXEC_PATHS],
		.net_set = sb->net_set,
		.net = profile_net_to_public(sb->net),
		.allow_domains = (const char *const *)sb->net_rules[CORDON_NET_ALLOW_DOMAIN],
		.deny_domains = (const char *const *)sb->net_rules[CORDON_NET_DENY_DOMAIN],
		.allow_addresses = (const char *const *)sb->net_rules[CORDON_NET_ALLOW_ADDRESS],
		.allow_vars = (const char *const *)sb->allow_vars,
		.set_vars = (const char *const *)sb->set_vars,
		.home_files = (const char *const *)sb->home_files,
		.stdout_max = sb->stdio[TOOL_STDOUT].set ? sb->stdio[TOOL_STDOUT].max_bytes : 0,
		.stderr_max = sb->stdio[TOOL_STDERR].set ? sb->stdio[TOOL_STDERR].max_bytes : 0,
		.stdout_terminate = sb->stdio[TOOL_STDOUT].terminate,
		.stderr_terminate = sb->stdio[TOOL_STDERR].terminate,
	};
	profile_limits_to_public(&sb->limits, &ret->limits);
	return 0;
}
