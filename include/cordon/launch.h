/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: a launch (a profile plus overrides, checked once) and a session's
 * toolbox.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/profile.h"
#include "cordon/run.h"
#include "cordon/tools.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Launch ---------------------------------------------------------------
 *
 * One launch = a profile plus a front end's overrides, turned once, in the
 * library, into everything a run needs: the policy, the backend, the merged
 * limits (checked here, once) and the run options. A front end (the CLI,
 * the supervisor) fills cordon_launch_opts from its flags or messages and
 * never merges by hand. Overrides follow the CLI's rule: scalars replace the
 * profile's, lists add to it. Immutable once built: confining and spawning
 * through it only read it, from any thread. The caller owns it and frees it
 * with cordon_launch_free.
 */
struct cordon_launch;

/* Which step of cordon_launch_new refused (cordon_launch_opts.failed_stage):
 * what a front end reports as the kind of a refusal. */
enum cordon_launch_stage {
	CORDON_LAUNCH_STAGE_OPTIONS,      /* an override's value, or the opts themselves */
	CORDON_LAUNCH_STAGE_PROFILE,      /* the profile (loading it again, its limits under a run) */
	CORDON_LAUNCH_STAGE_POLICY,       /* the policy: an override, or finish_policy */
	CORDON_LAUNCH_STAGE_BACKEND,      /* no backend here, or none that can enforce the policy */
	CORDON_LAUNCH_STAGE_LIMITS,       /* limits that cannot be enforced here */
};

struct cordon_launch_opts {
	/* sizeof this struct as the caller knew it (..._INIT sets it); 0: the
	 * first release's fields. As cordon_run_opts.size: a field added later
	 * is read only from callers whose size covers it. */
	size_t size;
	bool mode_set;                    /* else the profile's mode */
	enum cordon_mode mode;            /* a mode other than workspace-write drops the
					   * profile's write grants */
	const char *workspace;            /* NULL: the profile's; else the profile is loaded again
					   * with it ($WORKSPACE tokens expand at load) */
	bool net_set;
	enum cordon_net net;
	bool isolation_set;
	enum cordon_isolation isolation;
	/* Use this backend unprobed, for this launch only (nothing
	 * process-wide is pinned); else cordon_backend_select with the disk
	 * cache. Ignored under danger-full-access. */
	bool backend_set;
	enum cordon_backend backend;
	/* Lists added to the profile's: NULL-terminated, each may be NULL. */
	const char *const *read;          /* refused (-EPERM) at or under a read-deny: deny wins;
					   * anything else is readable anyway */
	const char *const *write;         /* cordon_policy_add_writable */
	const char *const *deny_read;     /* cordon_policy_deny_read */
	const char *const *deny_exec;     /* cordon_policy_deny_exec */
	const char *const *protect;       /* cordon_policy_protect */
	const char *const *allow_unix_sockets;
	const char *const *keep_env;      /* names or PREFIX* */
	const char *const *set_env;       /* NAME=VALUE; injection variables are refused */
	const char *const *require;       /* cordon_policy_require feature names */
	/* cordon_policy_add_net_rule: CORDON_NET_ALLOW_DOMAIN, _DENY_DOMAIN,
	 * _ALLOW_ADDRESS; refused (-EINVAL) unless the network is proxy */
	const char *const *allow_domains;
	const char *const *deny_domains;
	const char *const *allow_addresses;
	/* Limits: a set (non-zero) value replaces the profile's. */
	int timeout_ms;                   /* 1 .. one week */
	uint64_t max_output;              /* 1 .. 1 GiB */
	bool output_terminate_set;
	bool output_terminate;
	bool fallback_set;                /* limits.fallback_fail holds the choice */
	struct cordon_limits limits;      /* cpu 1..604800 s, memory 1M..1T, processes 4..4194304,
					   * file_size 1..1T, open_files 16..1048576 */
	/* Since the second release (read only from callers whose size covers them): */
	const char *const *read_host;     /* cordon_policy_read_host: host paths below /tmp brought back */
	/* With no network (and a mode that enforces one), a tool's network
	 * retries only wait: npm_config_fetch_retries=0 in the environment,
	 * unless set_env, the profile or the caller's environment sets it. */
	bool quiet_offline_retries;
	/* Called last, on the policy with every override on it: a front end's
	 * own part, such as its checks of the workspace or the tool sandbox's
	 * session (cordon_toolbox_session_policy). 0, or a -errno with reterr
	 * filled (the launch is refused). With it, a profile with
	 * command_policies is accepted: the caller runs its supervisor and
	 * finish_policy puts the session on the policy. */
	int (*finish_policy)(void *userdata, struct cordon_policy *p, struct cordon_error *reterr);
	void *finish_userdata;
	/* On failure, where the refusal came from (may be NULL). */
	enum cordon_launch_stage *failed_stage;
	/* To be shown, never run (what `cordon explain` and `profile show
	 * --effective` print): no backend is selected (backend_set's is
	 * taken as given) and the limits are merged but not checked; the
	 * launch's confine, and so cordon_spawn, refuse it (-EOPNOTSUPP). */
	bool inspect_only;
	/* What is readable below HOME (CORDON_HOME_CATALOGUE: everything but
	 * the credential catalogue; CORDON_HOME_ALLOWLIST: only what is
	 * granted); else the profile's. */
	bool home_set;
	enum cordon_home home;
	/* new fields go here, at the end */
};
#define CORDON_LAUNCH_OPTS_SIZE_1 \
	(offsetof(struct cordon_launch_opts, limits) + sizeof(((struct cordon_launch_opts *)0)->limits))
#define CORDON_LAUNCH_OPTS_INIT { .size = sizeof(struct cordon_launch_opts) }

/* profile: NULL means the embedded "default" (never a file). opts may be
 * NULL. Refuses what cannot run: a bad override (-EINVAL, naming it), a
 * rule against a deny (-EPERM), limits that cannot be enforced here or
 * only by a weaker mechanism under limits_fallback "fail" (-EOPNOTSUPP),
 * no backend that can enforce the policy (CORDON_SANDBOX_UNAVAILABLE). The
 * profile is not kept: the caller may free it at once. */
CORDON_API int cordon_launch_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				 struct cordon_launch **ret, struct cordon_error *reterr);
CORDON_API struct cordon_launch *cordon_launch_free(struct cordon_launch *l);

/* What the launch was built into; owned by it, valid while it lives. */
CORDON_API const struct cordon_policy *cordon_launch_policy(const struct cordon_launch *l);
CORDON_API const struct cordon_backend_info *cordon_launch_backend(const struct cordon_launch *l);
/* The merged resource limits; NULL when none is set. */
CORDON_API const struct cordon_limits *cordon_launch_limits(const struct cordon_launch *l);
/* How each limit will be enforced (plan->warning: what is weaker, or ""). */
CORDON_API const struct cordon_limits_plan *cordon_launch_limits_plan(const struct cordon_launch *l);
/* Write the launch's run options into *o (timeout_ms, max_output,
 * output_terminate, limits, pointing into the launch); the caller's own
 * fields (cwd, passthrough, stop, runner_main, ...) are left as they are.
 * A max_output of 0 means none was set (cordon_run's default). */
CORDON_API void cordon_launch_run_opts(const struct cordon_launch *l, struct cordon_run_opts *o);
/* `cordon why` for the launch opts would make: the profile with the
 * overrides that decide access on top (mode, net, isolation light,
 * deny_read, protect, the host rules, read_host), each decision naming its
 * rule; cordon_why_new with those fields. A front end fills one
 * cordon_launch_opts for both. Errors as cordon_why_new's. */
struct cordon_why;
CORDON_API int cordon_launch_why_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				     struct cordon_why **ret);
/* cordon_confine_with(the launch's backend, argv, the launch's policy). Pure. */
CORDON_API int cordon_launch_confine(const struct cordon_launch *l, const char *const *argv,
				     struct cordon_confined **ret, struct cordon_error *reterr);

/* ---- A tool's launch: from its command policy's sandbox -------------------
 *
 * The input form of a controlled command's launch: the edge's compiled
 * sandbox (cordon_tools_sandbox: fs_read, fs_write, exec_paths, network,
 * environment, limits) plus what the caller resolved once for the command
 * (its executable and execute closure, the shims it may call). The launch
 * builds the tool's policy (cordon_policy_new_tool, then the sandbox's
 * grants in one fixed order), its limits (checked as a profile's are, with
 * the same table, cordon_limit_range, and in the same order as
 * cordon_launch_new: limits, policy, backend, what the limits need) and its
 * run options. The toolbox (cordon_toolbox_launch) builds every tool's
 * launch through it and adds only what is the toolbox's in finish_policy.
 */
struct cordon_launch_tool_opts {
	size_t size;                      /* CORDON_LAUNCH_TOOL_OPTS_INIT sets it */
	const char *workspace;            /* the profile's (cordon_profile_workspace) */
	const char *executable;           /* canonical; run from the fd its caller checks
					   * (cordon_policy_exec_from_fd), never by path */
	const char *const *exec_closure;  /* executable in the gate: the binary, its loader,
					   * libraries, a script's interpreters */
	const char *shim_path;            /* with shims non-empty: the broker and its shim */
	const char *const *shims;         /* the commands this tool may call */
	const char *const *withheld_env;  /* never passed, whatever allow_vars says */
	/* As cordon_launch_opts': this launch's backend, unprobed; else the
	 * selected one. Anything but native is refused (the execute-only
	 * gate and the broker are the native runner's). */
	bool backend_set;
	enum cordon_backend backend;
	/* Called on the policy after the sandbox's own part (PYTHONSAFEPATH
	 * last of it): the caller's (the toolbox: the tool's private HOME, its
	 * phantoms, what the session hides). */
	int (*finish_policy)(void *userdata, struct cordon_policy *p, struct cordon_error *reterr);
	void *finish_userdata;
	enum cordon_launch_stage *failed_stage;
	/* new fields go here, at the end */
};
#define CORDON_LAUNCH_TOOL_OPTS_INIT { .size = sizeof(struct cordon_launch_tool_opts) }

/* sb: the edge's sandbox (owned by the caller, not kept). Refuses a limit
 * under what a run needs (-EINVAL, the message cordon_launch_new gives a
 * profile's, without the place), a grant a setter refuses, a backend other
 * than native (-EOPNOTSUPP), limits that cannot be enforced here. */
CORDON_API int cordon_launch_new_tool(const struct cordon_tool_sandbox *sb, const struct cordon_launch_tool_opts *opts,
				      struct cordon_launch **ret, struct cordon_error *reterr);

/* ---- Toolbox: a session's tools, ready to launch ---------------------------
 *
 * What the supervisor starts a session with: every controlled command's
 * executable resolved once (cordon_tools_resolve on path_env, never from
 * one of session_writable), what executing it needs (its ELF and #!
 * closure, computed once per session, memoised), and each caller ->
 * command edge's launch, built on first use (cordon_launch_new_tool, from
 * the edge's sandbox) and kept: the tool's own sandbox
 * (cordon_policy_new_tool): reads restricted to the baseline and
 * fs_read, writes to fs_write, the execute-only gate open for the tool's
 * closure, exec_paths and the shim only, the binary run from the fd the
 * caller opens (cordon_policy_exec_from_fd), the edge's network,
 * environment and limits, and a broker of its own when it may call other
 * tools. Native runner only. Not thread-safe: one thread (the
 * supervisor's loop) uses it. The profile must outlive it.
 */
struct cordon_toolbox;

/* -ENOENT (with reterr naming it) when a command's executable cannot be
 * found or a library it needs is missing: the session does not start. */
CORDON_API int cordon_toolbox_new(const struct cordon_profile_handle *profile, const char *path_env,
				  const char *const *session_writable, const char *shim_path,
				  struct cordon_toolbox **ret, struct cordon_error *reterr);
CORDON_API struct cordon_toolbox *cordon_toolbox_free(struct cordon_toolbox *b);
/* The command's executable, canonical; NULL for an unknown command. */
CORDON_API const char *cordon_toolbox_executable(const struct cordon_toolbox *b, const char *command);
/* The commands caller's sandbox has shims for (the session: every command
 * it reaches; a command: its can_use that it reaches). NULL-terminated. */
CORDON_API const char *const *cordon_toolbox_shims(const struct cordon_toolbox *b, const char *caller);
/* The host's URL opener when some sandbox has open_urls (found and checked
 * at start: CORDON_BROWSER, else xdg-open on the search path), canonical;
 * NULL: none (the supervisor prints the URL instead). */
CORDON_API const char *cordon_toolbox_url_opener(const struct cordon_toolbox *b);
/* The edge's launch; owned by the toolbox. */
CORDON_API int cordon_toolbox_launch(struct cordon_toolbox *b, const char *caller, const char *command,
				     const struct cordon_launch **ret, struct cordon_error *reterr);
/* The session's policy under the toolbox: the broker with a shim for
 * every command the session reaches (cordon_policy_set_broker), no
 * controlled binary executable directly (cordon_policy_deny_exec), what
 * cordon_toolbox_hide named and the tools' homes hidden, and the withheld
 * variables gone from its environment. */
CORDON_API int cordon_toolbox_session_policy(const struct cordon_toolbox *b, struct cordon_policy *p,
					     struct cordon_error *reterr);
/* Hide path (a file or a tree) from the session and from every tool's
 * sandbox launched after this: the supervisor's own state (its audit
 * log) is no sandbox's to read, whatever a profile grants. */
CORDON_API int cordon_toolbox_hide(struct cordon_toolbox *b, const char *path, struct cordon_error *reterr);
/* The caller's NAME=VALUE entries the edge's environment.allow_vars names
 * (never an injection variable, HOME, TMPDIR, XDG_* or one withheld), for
 * cordon_run_opts.env. -EACCES (reterr naming the variable and the path)
 * when a value leads where a sandbox of the session can write (any of
 * their writable roots, the tools' homes) or to the caller's own files
 * through /proc or /dev; -EINVAL for a name set twice. *ret is
 * NULL-terminated; free it with cordon_strv_free. */
CORDON_API int cordon_toolbox_call_env(const struct cordon_toolbox *b, const char *caller, const char *command,
				       const char *const *envp, char ***ret, struct cordon_error *reterr);
/* The tools' private HOMEs: dir (the supervisor's, mode 0700, outside
 * every root a sandbox of the session writes; one per session) gets a
 * directory per edge, COMMAND/CALLER (what one caller makes a tool leave
 * there never steers it for another), with a link to each file of the real
 * HOME the edge's sandbox names in home_files (read-only to it). Every
 * launch then has HOME there (writable by that edge's tool alone, hidden
 * from the session and every other), TMPDIR=/tmp (its private one) and XDG_CONFIG_HOME,
 * XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME below that HOME. A launch
 * without it is refused. Once, before any launch. */
CORDON_API int cordon_toolbox_set_homes(struct cordon_toolbox *b, const char *dir, struct cordon_error *reterr);
/* A variable of the supervisor's own (a key it read): in no sandbox, the
 * session's (cordon_toolbox_session_policy) and every tool's, whatever a
 * profile passes. Every approval backend's secret_env is withheld from the
 * start. -EBUSY once a tool's launch is built. */
CORDON_API int cordon_toolbox_withhold_env(struct cordon_toolbox *b, const char *name, struct cordon_error *reterr);

#ifdef __cplusplus
}
#endif
