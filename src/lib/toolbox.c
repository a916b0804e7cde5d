/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's tools, ready to launch (cordon_toolbox, cordon.h): every
 * controlled command's executable resolved once, at session start, with
 * what executing it needs (its execute-closure, memoised across the
 * session), and each caller -> command edge's launch built on first use
 * and kept: the tool's own sandbox, from the profile's command_policies.
 *
 * A tool's sandbox (cordon_policy_new_tool): nothing writable but what
 * fs_write grants (and its private /tmp), nothing readable but the
 * system's baseline and what fs_read grants, nothing executable: the
 * binary runs from the fd the supervisor checked (exec_from_fd) and may
 * execute only its closure (the loader, its libraries, a script's
 * interpreters), exec_paths and, when it may call other tools, the shim.
 * Its network, environment and limits are the edge's sandbox's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "cleanup.h"
#include "exec_closure.h"
#include "launch.h"
#include "policy.h"
#include "provider.h"
#include "strv.h"

struct toolbox_cmd {
	char *name;
	char *exe;       /* canonical */
	char **closure;  /* what executing it needs (exe included) */
};

struct toolbox_edge {
	char *caller, *command;
	struct cordon_launch *launch;
};

struct cordon_toolbox {
	const struct cordon_tools *tools;
	char *workspace;
	char *shim_path;
	char *search_path;
	struct toolbox_cmd *cmds;
	size_t n_cmds;
	struct toolbox_edge *edges;
	size_t n_edges, cap_edges;
	/* the shims each caller gets: [0] the session, [1 + i] command i */
	char ***shims;
	char **hidden;   /* cordon_toolbox_hide: canonical */
};

static const struct toolbox_cmd *find_cmd(const struct cordon_toolbox *b, const char *name)
{
	for (size_t i = 0; name && i < b->n_cmds; i++)
		if (strcmp(b->cmds[i].name, name) == 0)
			return &b->cmds[i];
	return NULL;
}

/* Does the edge caller -> command exist (can_use, from.CALLER not "deny")? */
static bool edge_exists(const struct cordon_tools *t, const char *caller, const char *command)
{
	struct cordon_tool_sandbox sb;

	return cordon_tools_sandbox(t, caller, command, &sb) >= 0;
}

/* What caller may call, which its sandbox gets a shim for: the session
 * every command it reaches; a command its can_use that it reaches (itself
 * runs directly: its own binary is executable in its sandbox). */
static int shims_of(const struct cordon_toolbox *b, const char *caller, bool session, char ***ret)
{
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
	const char *const *names = session ? cordon_tools_commands(b->tools) : cordon_tools_can_use(b->tools, caller);
	int r;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; names && names[i]; i++) {
		if (!session && strcmp(names[i], caller) == 0)
			continue;
		if (!edge_exists(b->tools, caller, names[i]))
			continue;
		r = strv_push_unique(&v, names[i]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

CORDON_API struct cordon_toolbox *cordon_toolbox_free(struct cordon_toolbox *b)
{
	if (!b)
		return NULL;
	for (size_t i = 0; i < b->n_cmds; i++) {
		free(b->cmds[i].name);
		free(b->cmds[i].exe);
		strv_free(b->cmds[i].closure);
	}
	free(b->cmds);
	for (size_t i = 0; i < b->n_edges; i++) {
		free(b->edges[i].caller);
		free(b->edges[i].command);
		cordon_launch_free(b->edges[i].launch);
	}
	free(b->edges);
	if (b->shims)
		for (size_t i = 0; i <= b->n_cmds; i++)
			strv_free(b->shims[i]);
	free(b->shims);
	strv_free(b->hidden);
	free(b->workspace);
	free(b->shim_path);
	free(b->search_path);
	free(b);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_toolbox *, cordon_toolbox_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct exec_closure *, exec_closure_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)

CORDON_API int cordon_toolbox_new(const struct cordon_profile_handle *profile, const char *path_env,
				  const char *const *session_writable, const char *shim_path,
				  struct cordon_toolbox **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_toolbox_freep) struct cordon_toolbox *b = NULL;
	_cleanup_(exec_closure_freep) struct exec_closure *closure = NULL;
	const struct cordon_tools *t = profile ? cordon_profile_tools(profile) : NULL;
	const char *const *names;
	const char *ws;
	size_t n = 0;
	int r;

	if (!t || !shim_path || !ret)
		return error_set(reterr, -EINVAL, "no command_policies, or no shim");
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->tools = t;
	ws = cordon_profile_workspace(profile);
	r = cordon_canonicalize(shim_path, &b->shim_path, reterr);
	if (r < 0)
		return r;
	if ((ws && !(b->workspace = strdup(ws))) ||
	    !(b->search_path = strdup(path_env && path_env[0] ? path_env : EXEC_CLOSURE_DEFAULT_PATH)))
		return -ENOMEM;
	names = cordon_tools_commands(t);
	while (names[n])
		n++;
	b->cmds = calloc(n ? n : 1, sizeof(*b->cmds));
	b->shims = calloc(n + 1, sizeof(*b->shims));
	if (!b->cmds || !b->shims)
		return -ENOMEM;
	r = exec_closure_new(&closure);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct toolbox_cmd *c = &b->cmds[b->n_cmds];
		const char *const *missing;
		size_t n_missing_before = strv_length((char **)exec_closure_missing(closure));
		struct cordon_error e = {};

		if (!(c->name = strdup(names[i])))
			return -ENOMEM;
		b->n_cmds++;
		r = cordon_tools_resolve(t, names[i], b->search_path, session_writable, &c->exe, &e);
		if (r < 0)
			return error_set(reterr, r, "%s: %s", names[i], e.message);
		r = exec_closure_of(closure, c->exe, b->search_path, &c->closure, &e);
		if (r < 0)
			return error_set(reterr, r, "%s: %s", names[i], e.message);
		/* a tool that could not start is refused now, not at its first call */
		missing = exec_closure_missing(closure);
		if (strv_length((char **)missing) > n_missing_before)
			return error_set(reterr, -ENOENT, "%s: %s cannot run: %s is missing", names[i], c->exe,
					 missing[n_missing_before]);
	}
	r = shims_of(b, CORDON_TOOLS_SESSION, true, &b->shims[0]);
	for (size_t i = 0; r >= 0 && i < b->n_cmds; i++)
		r = shims_of(b, b->cmds[i].name, false, &b->shims[1 + i]);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(b);
	return 0;
}

CORDON_API const char *cordon_toolbox_executable(const struct cordon_toolbox *b, const char *command)
{
	const struct toolbox_cmd *c = b ? find_cmd(b, command) : NULL;

	return c ? c->exe : NULL;
}

CORDON_API const char *const *cordon_toolbox_shims(const struct cordon_toolbox *b, const char *caller)
{
	if (!b || !caller)
		return NULL;
	if (strcmp(caller, CORDON_TOOLS_SESSION) == 0)
		return (const char *const *)b->shims[0];
	for (size_t i = 0; i < b->n_cmds; i++)
		if (strcmp(b->cmds[i].name, caller) == 0)
			return (const char *const *)b->shims[1 + i];
	return NULL;
}

/* The edge's sandbox as a policy. */
static int tool_policy(const struct cordon_toolbox *b, const struct toolbox_cmd *cmd, const char *caller,
		       const struct cordon_tool_sandbox *sb, struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	const char *const *shims = cordon_toolbox_shims(b, cmd->name);
	int r;

#define EACH(list, call)                                 \
	for (const char *const *s = (list); s && *s; s++) \
		if ((r = (call)) < 0)                    \
			return r;
	r = cordon_policy_new_tool(b->workspace, &p, reterr);
	if (r < 0)
		return r;
	EACH(sb->fs_read, cordon_policy_restrict_read(p, *s, reterr));
	EACH(sb->fs_read_file, cordon_policy_restrict_read(p, *s, reterr));
	EACH(sb->fs_write, cordon_policy_add_writable(p, *s, reterr));
	EACH(sb->fs_write_file, cordon_policy_add_writable(p, *s, reterr));
	/* the binary itself runs from the fd the supervisor checked; what
	 * running it needs is executable, nothing else */
	r = cordon_policy_exec_from_fd(p, true);
	if (r < 0)
		return error_set(reterr, r, "cannot run %s from an fd", cmd->exe);
	EACH((const char *const *)cmd->closure, cordon_policy_allow_exec(p, *s, reterr));
	EACH(sb->exec_paths, cordon_policy_allow_exec(p, *s, reterr));
	if (shims && shims[0]) {
		r = cordon_policy_allow_exec(p, b->shim_path, reterr);
		if (r < 0)
			return r;
		r = cordon_policy_set_broker(p, b->shim_path, shims, reterr);
		if (r < 0)
			return r;
	}
	if (sb->net_set && (r = cordon_policy_set_net(p, sb->net)) < 0)
		return error_set(reterr, r, "network: not a network setting");
	EACH(sb->allow_domains, cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, *s, reterr));
	EACH(sb->deny_domains, cordon_policy_add_net_rule(p, CORDON_NET_DENY_DOMAIN, *s, reterr));
	EACH(sb->allow_addresses, cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_ADDRESS, *s, reterr));
	for (const char *const *s = sb->allow_vars; s && *s; s++) {
		/* an injection name is never passed, whatever pattern says so */
		r = cordon_policy_keep_env(p, *s, reterr);
		if (r < 0 && r != -EPERM)
			return r;
	}
	for (const char *const *s = sb->set_vars; s && *s; s++) {
		_cleanup_free_ char *name = strndup(*s, strcspn(*s, "="));

		if (!name)
			return -ENOMEM;
		r = cordon_policy_set_env(p, name, *s + strlen(name) + 1, reterr);
		if (r < 0)
			return r;
	}
	/* last: no grant above reaches into it */
	EACH((const char *const *)b->hidden, cordon_policy_deny_read(p, *s, reterr));
#undef EACH
	(void)caller;
	*ret = TAKE_PTR(p);
	return 0;
}

CORDON_API int cordon_toolbox_hide(struct cordon_toolbox *b, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	if (!b || !path)
		return error_set(reterr, -EINVAL, "nothing to hide");
	r = cordon_canonicalize(path, &canon, reterr);
	if (r < 0)
		return r;
	if (strv_length(b->hidden) >= 16)
		return error_set(reterr, -E2BIG, "too many hidden paths");
	if (!b->hidden && !(b->hidden = calloc(1, sizeof(char *))))
		return -ENOMEM;
	return strv_push_unique(&b->hidden, canon);
}

CORDON_API int cordon_toolbox_launch(struct cordon_toolbox *b, const char *caller, const char *command,
				     const struct cordon_launch **ret, struct cordon_error *reterr)
{
	const struct toolbox_cmd *cmd = b ? find_cmd(b, command) : NULL;
	struct cordon_tool_sandbox sb;
	struct cordon_policy *p = NULL;
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};
	int r;

	if (!cmd || !caller || !ret)
		return error_set(reterr, -ENOENT, "%s is not a command under policy", command ? command : "(null)");
	for (size_t i = 0; i < b->n_edges; i++)
		if (strcmp(b->edges[i].caller, caller) == 0 && strcmp(b->edges[i].command, command) == 0) {
			*ret = b->edges[i].launch;
			return 0;
		}
	r = cordon_tools_sandbox(b->tools, caller, command, &sb);
	if (r < 0)
		return error_set(reterr, r, "%s may not call %s", caller, command);
	r = tool_policy(b, cmd, caller, &sb, &p, &e);
	if (r < 0)
		return error_set(reterr, r, "%s's sandbox: %s", command, e.message);
	r = launch_new_from_policy(p, &sb.limits, &l, &e);
	if (r < 0)
		return error_set(reterr, r, "%s's sandbox: %s", command, e.message);
	/* a tool's sandbox is the native runner's, in full isolation: nothing
	 * less holds its gate */
	if (cordon_launch_backend(l)->backend != CORDON_BACKEND_NATIVE) {
		cordon_launch_free(l);
		return error_set(reterr, -EOPNOTSUPP,
				 "%s's sandbox needs the native runner (the execute-only gate, the broker); the "
				 "selected backend is %s",
				 command, cordon_backend_to_string(cordon_launch_backend(l)->backend));
	}
	if (b->n_edges == b->cap_edges) {
		size_t cap = b->cap_edges ? 2 * b->cap_edges : 8;
		struct toolbox_edge *v = realloc(b->edges, cap * sizeof(*v));

		if (!v) {
			cordon_launch_free(l);
			return -ENOMEM;
		}
		b->edges = v;
		b->cap_edges = cap;
	}
	b->edges[b->n_edges] = (struct toolbox_edge){ .caller = strdup(caller), .command = strdup(command), .launch = l };
	if (!b->edges[b->n_edges].caller || !b->edges[b->n_edges].command) {
		free(b->edges[b->n_edges].caller);
		free(b->edges[b->n_edges].command);
		cordon_launch_free(l);
		return -ENOMEM;
	}
	b->n_edges++;
	*ret = l;
	return 0;
}

CORDON_API int cordon_toolbox_call_env(const struct cordon_toolbox *b, const char *caller, const char *command,
				       const char *const *envp, char ***ret)
{
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
	struct cordon_tool_sandbox sb;
	int r;

	if (!b || !ret)
		return -EINVAL;
	if (!v)
		return -ENOMEM;
	r = cordon_tools_sandbox(b->tools, caller, command, &sb);
	if (r < 0)
		return r;
	for (size_t i = 0; envp && envp[i]; i++) {
		size_t nl = strcspn(envp[i], "=");
		char name[257];

		if (envp[i][nl] != '=' || nl == 0 || nl >= sizeof(name))
			continue;
		memcpy(name, envp[i], nl);
		name[nl] = '\0';
		if (env_name_is_injection(name) || env_name_is_cordon_owned(name) ||
		    !env_name_matches_any(sb.allow_vars, name))
			continue;
		r = strv_push(&v, envp[i]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

CORDON_API int cordon_toolbox_session_policy(const struct cordon_toolbox *b, struct cordon_policy *p,
					     struct cordon_error *reterr)
{
	int r;

	if (!b || !p)
		return error_set(reterr, -EINVAL, "no toolbox or no policy");
	r = cordon_policy_set_broker(p, b->shim_path, cordon_toolbox_shims(b, CORDON_TOOLS_SESSION), reterr);
	/* the session reaches a controlled binary only through its shim */
	for (size_t i = 0; r >= 0 && i < b->n_cmds; i++)
		r = cordon_policy_deny_exec(p, b->cmds[i].exe, reterr);
	for (char **h = b->hidden; r >= 0 && h && *h; h++)
		r = cordon_policy_deny_read(p, *h, reterr);
	return r;
}
