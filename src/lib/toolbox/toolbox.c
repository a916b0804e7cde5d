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
 * Its network, environment and limits are the edge's sandbox's. The launch
 * builds that policy, the limits and run options from the sandbox
 * (cordon_launch_new_tool); the toolbox adds only what is its own.
 *
 * A tool's inputs are the tool's: its HOME is a private directory of its
 * own for each caller (cordon_toolbox_set_homes), made outside every
 * sandbox and writable by it alone, with TMPDIR its private /tmp and XDG_* below that HOME; the
 * files of the real HOME its policy names (home_files) are links there to
 * the real ones, which it may read and nothing more. From its caller it
 * takes only the variables allow_vars names, never one the supervisor
 * keeps for itself (a webhook's key), and never a value leading where a
 * sandbox of the session can write (tool_env.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "broker_proto.h"
#include "canon.h"
#include "cleanup.h"
#include "dirat.h"
#include "error.h"
#include "exec_closure.h"
#include "launch.h"
#include "path.h"
#include "policy.h"
#include "strv.h"
#include "tool_env.h"
#include "toolbox_creds.h"
#include "toolbox_opener.h"
#include "toolbox_writable.h"
#include "tools.h"

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
	/* every root a sandbox of the session can write: the session's, every
	 * edge's fs_write and fs_write_file, the tools' homes */
	char **caller_writable;
	char **withheld; /* the supervisor's own variables: in no sandbox */
	char *homes;     /* the tools' private HOMEs, one directory each; NULL: not set */
	struct toolbox_creds *creds; /* phantoms, what credentials withhold and hide */
	char *url_opener;  /* open_urls: the host's opener (toolbox_opener.c); NULL: none */
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
	/* its URL opener, only with open_urls (the supervisor's open_url.c
	 * decides each URL) */
	if (tools_open_urls(b->tools, caller)) {
		static const char *const openers[] = { BROKER_OPENER_NAMES };

		for (size_t i = 0; i < sizeof(openers) / sizeof(openers[0]); i++)
			if ((r = strv_push_unique(&v, openers[i])) < 0)
				return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

/* cordon's own binaries (the shim every sandbox runs, the runner and the
 * supervisor the host runs unconfined) inside a root the session can
 * write: refused, or the session could rewrite what the host later runs.
 * The private /tmp and /dev/shm are the sandbox's own, not the host's
 * (a root below them is bound from the host, and counts). */
static int check_own_binary(const char *what, const char *path, const char *const *writable,
			    struct cordon_error *reterr)
{
	static const char *const private_dirs[] = { "/tmp", "/dev/shm", NULL };
	_cleanup_free_ char *canon = NULL;

	if (!path || path[0] != '/' || cordon_canonicalize(path, &canon, NULL) < 0)
		return 0;
	for (size_t i = 0; writable && writable[i]; i++) {
		_cleanup_free_ char *w = NULL;
		bool is_private = false;

		if (writable[i][0] != '/' || cordon_canonicalize(writable[i], &w, NULL) < 0)
			continue;
		for (size_t j = 0; private_dirs[j]; j++)
			is_private |= strcmp(w, private_dirs[j]) == 0;
		if (!is_private && path_is_under(canon, w) > 0)
			return error_set(reterr, -EPERM,
					 "cordon's %s %s lies in %s, which the session can write (it could rewrite what "
					 "the host runs later): install or build cordon outside every writable root",
					 what, canon, w);
	}
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
	strv_free(b->caller_writable);
	strv_free(b->withheld);
	toolbox_creds_free(b->creds);
	free(b->homes);
	free(b->workspace);
	free(b->shim_path);
	free(b->url_opener);
	free(b->search_path);
	free(b);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_toolbox *, cordon_toolbox_free)

/* The k-th caller: 0 the session, then every command. */
static const char *caller_at(const struct cordon_toolbox *b, size_t k)
{
	return k ? b->cmds[k - 1].name : CORDON_TOOLS_SESSION;
}

/* Each edge that reaches command: its caller's index k and its sandbox sb. */
#define EACH_EDGE_SANDBOX(b, command, k, sb)    \
	for (size_t k = 0; k <= (b)->n_cmds; k++) \
		if (cordon_tools_sandbox((b)->tools, caller_at((b), k), (command), &(sb)) >= 0)

/* Nothing a tool maps executable may be writable by any sandbox of the
 * session: each command's execute closure (the binary, its loader and
 * libraries, a script's interpreters), every edge's exec grants, the shim;
 * nor may a writable root lie in a library directory. Refused at start,
 * naming the path. b->caller_writable is what any sandbox can write. */
static int check_unwritable(struct cordon_toolbox *b, struct cordon_error *reterr)
{
	char *const *all = b->caller_writable;
	struct cordon_tool_sandbox sb;
	char what[128];
	int r;

	r = toolbox_check_library_dirs(all, reterr);
	if (r >= 0)
		r = toolbox_check_unwritable(all, "the shim", b->shim_path, reterr);
	for (size_t i = 0; r >= 0 && i < b->n_cmds; i++) {
		snprintf(what, sizeof(what), "%s's execute closure", b->cmds[i].name);
		STRV_FOREACH(f, b->cmds[i].closure)
			if ((r = toolbox_check_unwritable(all, what, *f, reterr)) < 0)
				return r;
		snprintf(what, sizeof(what), "%s's module search path", b->cmds[i].name);
		r = toolbox_check_module_places(all, what, b->cmds[i].exe, b->cmds[i].closure, reterr);
		if (r < 0)
			return r;
		snprintf(what, sizeof(what), "%s's exec_paths", b->cmds[i].name);
		/* on every edge: the session's and each command's */
		EACH_EDGE_SANDBOX(b, b->cmds[i].name, k, sb)
			for (const char *const *e = sb.exec_paths; r >= 0 && e && *e; e++)
				r = toolbox_check_unwritable(all, what, *e, reterr);
	}
	return r;
}

/* What no caller may hand a tool: the supervisor's own secrets (every
 * webhook's two keys). */
static int withheld_of(struct cordon_toolbox *b)
{
	const char *const *backends = cordon_tools_backend_names(b->tools);
	int r;

	if (!(b->withheld = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; backends && backends[i]; i++) {
		struct cordon_approval_backend ab;

		if (cordon_tools_backend(b->tools, backends[i], &ab) < 0)
			continue;
		/* both keys: the one that signs requests, the one answers are checked with */
		if (ab.secret_env && (r = strv_push_unique(&b->withheld, ab.secret_env)) < 0)
			return r;
		if (ab.answer_secret_env && (r = strv_push_unique(&b->withheld, ab.answer_secret_env)) < 0)
			return r;
	}
	return 0;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(struct exec_closure *, exec_closure_free)

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
	{
		char self[PATH_MAX];
		ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[l > 0 ? l : 0] = '\0';
		if ((r = check_own_binary("shim", b->shim_path, session_writable, reterr)) < 0 ||
		    (r = check_own_binary("runner", cordon_runner_path(), session_writable, reterr)) < 0 ||
		    (r = check_own_binary("supervisor", self, session_writable, reterr)) < 0)
			return r;
	}
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
	/* what any sandbox of the session can write, once: nothing a tool
	 * maps may lie there, and no value a caller passes may lead there */
	r = toolbox_all_writable(b->tools, session_writable, &b->caller_writable);
	if (r < 0)
		return r;
	r = check_unwritable(b, reterr);
	if (r < 0)
		return r;
	/* only a session where some sandbox may open URLs looks for an opener */
	for (size_t k = 0; k <= b->n_cmds; k++)
		if (tools_open_urls(t, caller_at(b, k))) {
			r = toolbox_url_opener(b->search_path, b->caller_writable, &b->url_opener, reterr);
			if (r < 0)
				return r;
			break;
		}
	r = shims_of(b, CORDON_TOOLS_SESSION, true, &b->shims[0]);
	for (size_t i = 0; r >= 0 && i < b->n_cmds; i++)
		r = shims_of(b, b->cmds[i].name, false, &b->shims[1 + i]);
	if (r < 0)
		return r;
	r = withheld_of(b);
	if (r < 0)
		return r;
	r = toolbox_creds_new(t, &b->creds, reterr);
	if (r < 0)
		return r;
	r = strv_extend_strv(&b->withheld, (const char *const *)toolbox_creds_withheld(b->creds));
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

CORDON_API const char *cordon_toolbox_url_opener(const struct cordon_toolbox *b)
{
	return b ? b->url_opener : NULL;
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

/* What the edge's private HOME (homes/COMMAND/CALLER: one per sandbox the
 * command may run in, so what one caller makes it leave there never steers
 * it for another) gives its policy: the directory writable, HOME, TMPDIR
 * and XDG_* set (whatever the supervisor's own are), the real files
 * home_files names readable (the links to them are in the HOME), every
 * other HOME hidden, the supervisor's variables gone. */
static int tool_home_policy(const struct cordon_toolbox *b, const struct toolbox_cmd *cmd, const char *caller,
			    const struct cordon_tool_sandbox *sb, struct cordon_policy *p, struct cordon_error *reterr)
{
	static const struct {
		const char *name, *below;
	} xdg[] = {
		{ "XDG_CONFIG_HOME", ".config" },
		{ "XDG_CACHE_HOME", ".cache" },
		{ "XDG_DATA_HOME", ".local/share" },
		{ "XDG_STATE_HOME", ".local/state" },
	};
	_cleanup_free_ char *home = NULL, *real_home = NULL, *mine = NULL;
	struct cordon_tool_sandbox other_sb;
	int r;

	if (!b->homes)
		return error_set(reterr, -EINVAL, "no private HOME for %s (cordon_toolbox_set_homes)", cmd->name);
	if (!(mine = path_join(b->homes, cmd->name)) || !(home = path_join(mine, caller)))
		return -ENOMEM;
	r = cordon_policy_add_writable(p, home, reterr);
	if (r < 0)
		return r;
	if ((r = cordon_policy_set_env(p, "HOME", home, reterr)) < 0 ||
	    (r = cordon_policy_set_env(p, "TMPDIR", "/tmp", reterr)) < 0)
		return r;
	for (size_t i = 0; i < sizeof(xdg) / sizeof(xdg[0]); i++) {
		_cleanup_free_ char *v = path_join(home, xdg[i].below);

		if (!v)
			return -ENOMEM;
		if ((r = cordon_policy_set_env(p, xdg[i].name, v, reterr)) < 0)
			return r;
	}
	r = policy_resolve_home(&real_home);
	for (const char *const *f = sb->home_files; r >= 0 && *f; f++) {
		_cleanup_free_ char *real = path_join(real_home, *f), *canon = NULL;
		struct stat st;

		if (!real)
			return -ENOMEM;
		if (cordon_canonicalize(real, &canon, NULL) < 0 || stat(canon, &st) < 0)
			continue; /* not there: no link was made either */
		r = cordon_policy_restrict_read(p, canon, reterr);
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < b->n_cmds; i++) {
		_cleanup_free_ char *other = NULL;

		if (&b->cmds[i] == cmd)
			continue;
		if (!(other = path_join(b->homes, b->cmds[i].name)))
			return -ENOMEM;
		if ((r = cordon_policy_deny_read(p, other, reterr)) < 0)
			return r;
	}
	EACH_EDGE_SANDBOX(b, cmd->name, k, other_sb) {
		_cleanup_free_ char *other = NULL;

		if (strcmp(caller_at(b, k), caller) == 0)
			continue;
		if (!(other = path_join(mine, caller_at(b, k))))
			return -ENOMEM;
		if ((r = cordon_policy_deny_read(p, other, reterr)) < 0)
			return r;
	}
	for (char **w = b->withheld; *w; w++)
		if ((r = cordon_policy_withhold_env(p, *w, reterr)) < 0)
			return r;
	return 0;
}

/* What the toolbox adds to a tool's policy after its sandbox's own part
 * (cordon_launch_new_tool builds that): its private HOME, its phantoms,
 * what the session hides. */
struct tool_finish {
	const struct cordon_toolbox *b;
	const struct toolbox_cmd *cmd;
	const char *caller;
	const struct cordon_tool_sandbox *sb;
};

static int tool_finish_policy(void *userdata, struct cordon_policy *p, struct cordon_error *reterr)
{
	const struct tool_finish *f = userdata;
	int r;

	r = tool_home_policy(f->b, f->cmd, f->caller, f->sb, p, reterr);
	if (r < 0)
		return r;
	/* its phantoms, after every withheld variable went (a phantom's name
	 * is withheld from the others) */
	r = toolbox_creds_apply(f->b->creds, f->cmd->name, p, reterr);
	if (r < 0)
		return r;
	/* BROWSER: the opener shim, for tools that look there first */
	if (tools_open_urls(f->b->tools, f->cmd->name) &&
	    (r = cordon_policy_set_env(p, "BROWSER", BROKER_OPENER_PATH, reterr)) < 0)
		return r;
	/* last: no grant above reaches into it */
	for (char **s = f->b->hidden; s && *s; s++)
		if ((r = cordon_policy_deny_read(p, *s, reterr)) < 0)
			return r;
	for (char *const *s = toolbox_creds_hidden(f->b->creds); s && *s; s++)
		if ((r = cordon_policy_deny_read(p, *s, reterr)) < 0)
			return r;
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
	{
		struct tool_finish f = { .b = b, .cmd = cmd, .caller = caller, .sb = &sb };
		struct cordon_launch_tool_opts o = CORDON_LAUNCH_TOOL_OPTS_INIT;

		o.workspace = b->workspace;
		o.executable = cmd->exe;
		o.exec_closure = (const char *const *)cmd->closure;
		o.shim_path = b->shim_path;
		o.shims = cordon_toolbox_shims(b, cmd->name);
		o.withheld_env = (const char *const *)b->withheld;
		o.finish_policy = tool_finish_policy;
		o.finish_userdata = &f;
		r = cordon_launch_new_tool(&sb, &o, &l, &e);
	}
	if (r < 0)
		return error_set(reterr, r, "%s's sandbox: %s", command, e.message);
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
				       const char *const *envp, char ***ret, struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
	struct cordon_tool_sandbox sb;
	int r;

	if (!b || !ret)
		return error_set(reterr, -EINVAL, "no toolbox");
	if (!v)
		return -ENOMEM;
	r = cordon_tools_sandbox(b->tools, caller, command, &sb);
	if (r < 0)
		return error_set(reterr, r, "%s may not call %s", caller, command);
	for (size_t i = 0; envp && envp[i]; i++) {
		size_t nl = strcspn(envp[i], "=");
		char name[257], what[256];

		if (envp[i][nl] != '=' || nl == 0 || nl >= sizeof(name))
			continue;
		memcpy(name, envp[i], nl);
		name[nl] = '\0';
		/* only what the policy names, one by one; never HOME, TMPDIR,
		 * XDG_* (the tool's own), CORDON_SANDBOX* or the proxy
		 * variables (cordon's: its values win) nor the supervisor's
		 * variables */
		if (!strv_contains((char **)sb.allow_vars, name) || env_name_is_injection(name) ||
		    env_name_is_tool_owned(name) || env_name_is_cordon_owned(name) || env_name_is_proxy(name) ||
		    strv_contains(b->withheld, name))
			continue;
		for (char **e = v; *e; e++)
			if (strncmp(*e, envp[i], nl + 1) == 0)
				return error_set(reterr, -EINVAL, "%s is set twice: a call says each variable once",
						 name);
		if (tool_env_value_reaches(envp[i] + nl + 1, (const char *const *)b->caller_writable, what,
					   sizeof(what)))
			return error_set(reterr, -EACCES,
					 "%s leads to %s, where a sandbox of this session can write (or to the "
					 "caller's own files): a tool never loads what its callers could have written",
					 name, what);
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
	if (r >= 0 && tools_open_urls(b->tools, CORDON_TOOLS_SESSION))
		r = cordon_policy_set_env(p, "BROWSER", BROKER_OPENER_PATH, reterr);
	/* the session reaches a controlled binary only through its shim */
	for (size_t i = 0; r >= 0 && i < b->n_cmds; i++)
		r = cordon_policy_deny_exec(p, b->cmds[i].exe, reterr);
	for (char **h = b->hidden; r >= 0 && h && *h; h++)
		r = cordon_policy_deny_read(p, *h, reterr);
	/* the tools' HOMEs are theirs; the supervisor's variables its own */
	if (r >= 0 && b->homes)
		r = cordon_policy_deny_read(p, b->homes, reterr);
	for (char **w = b->withheld; r >= 0 && w && *w; w++)
		r = cordon_policy_withhold_env(p, *w, reterr);
	/* the credentials' files are the supervisor's; the session's own
	 * phantoms are set after its withheld variables went */
	for (char *const *h = toolbox_creds_hidden(b->creds); r >= 0 && *h; h++)
		r = cordon_policy_deny_read(p, *h, reterr);
	if (r >= 0)
		r = toolbox_creds_apply(b->creds, CORDON_TOOLS_SESSION, p, reterr);
	return r;
}

const struct toolbox_creds *cordon_toolbox_creds(const struct cordon_toolbox *b)
{
	return b ? b->creds : NULL;
}

CORDON_API int cordon_toolbox_withhold_env(struct cordon_toolbox *b, const char *name, struct cordon_error *reterr)
{
	if (!b || !name || !env_name_valid(name, false))
		return error_set(reterr, -EINVAL, "'%s' is not a variable name", name ? name : "(null)");
	/* launches built before would still pass it: fail closed */
	if (b->n_edges)
		return error_set(reterr, -EBUSY, "%s: withheld after a tool's sandbox was built", name);
	return strv_push_unique(&b->withheld, name);
}

/* dirfd/rel's parent directories made (0700, never through a link), the
 * parent opened; *ret_name points at rel's last component. */
static int open_parent_made(int dirfd, const char *rel, const char **ret_name)
{
	const char *slash = strrchr(rel, '/');
	int fd = dir_make_open_at(dirfd, rel, slash ? (size_t)(slash - rel) : 0, 0700);

	if (fd >= 0)
		*ret_name = slash ? slash + 1 : rel;
	return fd;
}

/* An open directory's new subdirectory (0700), opened. */
static int make_dir(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0700) < 0)
		return -errno;
	dirfd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return dirfd < 0 ? -errno : dirfd;
}

/* command's private HOMEs in homefd's directory, one per caller that
 * reaches it: made, each with a link to every real file its edge's
 * sandbox names in home_files. */
static int make_home(struct cordon_toolbox *b, int homesfd, const struct toolbox_cmd *cmd, const char *real_home,
		     struct cordon_error *reterr)
{
	_cleanup_close_ int mine = make_dir(homesfd, cmd->name);
	struct cordon_tool_sandbox sb;

	if (mine < 0)
		return error_set(reterr, mine, "cannot make %s/%s: %s", b->homes, cmd->name, strerror(-mine));
	EACH_EDGE_SANDBOX(b, cmd->name, k, sb) {
		_cleanup_close_ int home = make_dir(mine, caller_at(b, k));

		if (home < 0)
			return error_set(reterr, home, "cannot make %s/%s/%s: %s", b->homes, cmd->name,
					 caller_at(b, k), strerror(-home));
		for (const char *const *f = sb.home_files; *f; f++) {
			_cleanup_free_ char *real = path_join(real_home, *f), *canon = NULL;
			_cleanup_close_ int parent = -1;
			const char *name = NULL;
			struct stat st;

			if (!real)
				return -ENOMEM;
			if (cordon_canonicalize(real, &canon, NULL) < 0 || stat(canon, &st) < 0)
				continue; /* a file HOME does not have: none in the tool's either */
			/* a dotfile linked into a workspace: a sandbox chooses it */
			if (path_under_any(canon, (const char *const *)b->caller_writable))
				return error_set(reterr, -EPERM,
						 "%s's home_files: %s is %s, where a sandbox of the session can write",
						 cmd->name, *f, canon);
			parent = open_parent_made(home, *f, &name);
			if (parent < 0)
				return error_set(reterr, parent, "%s's HOME: cannot make the way to %s: %s", cmd->name,
						 *f, strerror(-parent));
			if (symlinkat(canon, parent, name) < 0 && errno != EEXIST)
				return error_set(reterr, -errno, "%s's HOME: cannot link %s: %m", cmd->name, *f);
		}
	}
	return 0;
}

CORDON_API int cordon_toolbox_set_homes(struct cordon_toolbox *b, const char *dir, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL, *real_home = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!b || !dir || b->homes)
		return error_set(reterr, -EINVAL, "no toolbox, no directory, or the homes are set already");
	r = cordon_canonicalize(dir, &canon, reterr);
	if (r < 0)
		return r;
	/* a sandbox that could write there would choose what a tool reads */
	for (char **w = b->caller_writable; *w; w++)
		if (path_is_under(canon, *w) || path_is_under(*w, canon))
			return error_set(reterr, -EPERM,
					 "the tools' private homes would be in %s, which a sandbox of the session can "
					 "write (%s)", canon, *w);
	fd = open(canon, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return error_set(reterr, -errno, "%s: %m", canon);
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return error_set(reterr, -EPERM, "%s must be the supervisor's own, mode 0700", canon);
	r = policy_resolve_home(&real_home);
	if (r < 0)
		return error_set(reterr, r, "cannot resolve HOME");
	b->homes = TAKE_PTR(canon);
	for (size_t i = 0; i < b->n_cmds; i++) {
		r = make_home(b, fd, &b->cmds[i], real_home, reterr);
		if (r < 0) {
			free(b->homes);
			b->homes = NULL;
			return r;
		}
	}
	return strv_push_unique(&b->caller_writable, b->homes);
}
