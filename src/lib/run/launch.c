/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_launch: a profile plus a front end's overrides, built once into a
 * policy, a backend, merged limits (checked once) and run options. This is
 * the merge `cordon run` used to do by hand in the CLI (profile limits under
 * the flags, a shallow copy of the profile to drop writes on a mode change,
 * the policy set one setter at a time), kept in one place so the supervisor
 * does not copy it. A tool's launch (launch_tool.c) shares its checks of the
 * limits and its end (launch_finish).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "creds.h"
#include "error.h"
#include "statmemo.h"
#include "launch.h"
#include "opts_size.h"
#include "policy.h"
#include "probe.h"
#include "profile.h"
#include "profile_api.h"
#include "provider.h"
#include "strv.h"
#include "tools.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile_handle *, cordon_profile_free)

CORDON_API struct cordon_launch *cordon_launch_free(struct cordon_launch *l)
{
	if (!l)
		return NULL;
	cordon_policy_free(l->policy);
	free(l);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_launch *, cordon_launch_free)

/* A set value of limit l outside its range (cordon_limit_range): refused,
 * naming the key and the range. */
static int check_range(enum cordon_limit l, uint64_t v, struct cordon_error *reterr)
{
	const struct cordon_limit_range *r = cordon_limit_range(l);

	if (!v || (v >= r->min && v <= r->max))
		return 0;
	return error_set(reterr, -EINVAL, "%s: %" PRIu64 " is not from %" PRIu64 " to %" PRIu64 "%s%s", r->key, v,
			 r->min, r->max, r->min_why[0] ? ": " : "", r->min_why);
}

/* A profile's (or a tool sandbox's) count under a run's minimum, which the
 * profile's own grammar allows: refused, naming where it was set (at may
 * be NULL). */
int launch_check_enough(enum cordon_limit l, uint64_t v, const struct profile_origin *at,
			struct cordon_error *reterr)
{
	const struct cordon_limit_range *r = cordon_limit_range(l);

	if (!v || v >= r->min)
		return 0;
	if (!at)
		return error_set(reterr, -EINVAL, "limits.%s %" PRIu64 " is too few: %s", r->key, v, r->min_why);
	return error_set(reterr, -EINVAL, "%s: at %s: limits.%s %" PRIu64 " is too few: %s; give at least %" PRIu64,
			 at->file, at->pointer, r->key, v, r->min_why, r->min);
}

/* The overrides' values, checked against the one table of ranges. */
static int check_overrides(const struct cordon_launch_opts *o, struct cordon_error *reterr)
{
	const struct cordon_limits *l = &o->limits;
	int r;

	if (o->timeout_ms < 0)
		return error_set(reterr, -EINVAL, "timeout: %d ms is not between 1 ms and one week", o->timeout_ms);
	if ((r = check_range(CORDON_LIMIT_TIMEOUT, (uint64_t)o->timeout_ms, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_OUTPUT, o->max_output, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_CPU, l->cpu_seconds, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_MEMORY, l->memory, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_PROCESSES, l->processes, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_FILE_SIZE, l->file_size, reterr)) < 0 ||
	    (r = check_range(CORDON_LIMIT_OPEN_FILES, l->open_files, reterr)) < 0)
		return r;
	if (o->mode_set && (unsigned)o->mode > CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EINVAL,
				 "mode: unknown mode %d: valid modes are CORDON_MODE_READ_ONLY, CORDON_MODE_WORKSPACE_WRITE, "
				 "CORDON_MODE_DANGER_FULL_ACCESS",
				 (int)o->mode);
	return 0;
}

#define HAS_LIMIT(l, k) (((l)->set & (1u << PROFILE_LIMIT_##k)) != 0)

/* The profile's limits under the overrides (an override wins). */
static int merge_limits(struct cordon_launch *l, const struct cordon_profile *p, const struct cordon_launch_opts *o,
			struct cordon_error *reterr)
{
	const struct profile_limits *pl = &p->limits;
	struct cordon_limits m = o->limits;
	int r;

	l->timeout_ms = o->timeout_ms;
	if (!l->timeout_ms && HAS_LIMIT(pl, TIMEOUT))
		l->timeout_ms = (int)(pl->timeout_seconds * 1000); /* at most a week: fits */
	l->max_output = o->max_output;
	if (!l->max_output && HAS_LIMIT(pl, MAX_OUTPUT))
		l->max_output = pl->max_output;
	l->output_terminate = o->output_terminate_set ? o->output_terminate
			      : HAS_LIMIT(pl, ON_OUTPUT_LIMIT) && pl->on_output_limit == PROFILE_OUTPUT_KILL;
	if (!o->fallback_set)
		m.fallback_fail = HAS_LIMIT(pl, FALLBACK) && pl->fallback_fail;

	if (!m.cpu_seconds && HAS_LIMIT(pl, CPU))
		m.cpu_seconds = pl->cpu_seconds;
	if (!m.memory && HAS_LIMIT(pl, MEMORY))
		m.memory = pl->memory;
	if (!m.processes && HAS_LIMIT(pl, MAX_PROCESSES)) {
		r = launch_check_enough(CORDON_LIMIT_PROCESSES, pl->max_processes, &pl->origin[PROFILE_LIMIT_MAX_PROCESSES],
				 reterr);
		if (r < 0)
			return r;
		m.processes = pl->max_processes;
	}
	if (!m.file_size && HAS_LIMIT(pl, MAX_FILE_SIZE))
		m.file_size = pl->max_file_size;
	if (!m.open_files && HAS_LIMIT(pl, MAX_OPEN_FILES)) {
		r = launch_check_enough(CORDON_LIMIT_OPEN_FILES, pl->max_open_files, &pl->origin[PROFILE_LIMIT_MAX_OPEN_FILES],
				 reterr);
		if (r < 0)
			return r;
		m.open_files = pl->max_open_files;
	}
	l->limits = m;
	l->limits_set = m.cpu_seconds || m.memory || m.processes || m.file_size || m.open_files;
	return 0;
}

/* A read grant can only be a no-op (the whole system is readable) or a
 * contradiction (it is under a read-deny, and deny wins): refuse those. */
static int check_read(const struct cordon_policy *pol, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	r = policy_canonicalize_grant(pol, path, &canon, reterr);
	if (r < 0)
		return r;
	for (size_t i = 0; i < pol->n_deny; i++) {
		const char *d = deny_entry_native_path(pol, &pol->deny[i]);

		if ((d && path_is_under(canon, d)) || path_is_under(canon, pol->deny[i].path))
			return error_set(reterr, -EPERM, "read %s: it is under the read-deny %s, and deny always wins",
					 canon, pol->deny[i].path);
	}
	return 0;
}

/* NAME=... in a NAME=VALUE list. */
static bool names(const char *const *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *const *s = list; s && *s; s++)
		if (strncmp(*s, name, n) == 0 && (*s)[n] == '=')
			return true;
	return false;
}

/* Without a network nothing outside answers, so a tool's retries only wait:
 * npm retries a failed resolution for 70 s (fetch-retries 2, backoff 10 s
 * then 60 s). Unless the caller set it (environment, set_env, profile). */
static int quiet_retries(const struct cordon_profile_handle *h, const struct cordon_launch_opts *o,
			 struct cordon_policy *p, struct cordon_error *e)
{
	static const char name[] = "npm_config_fetch_retries";

	if (cordon_policy_net(p) != CORDON_NET_NONE || cordon_policy_mode(p) == CORDON_MODE_DANGER_FULL_ACCESS ||
	    getenv(name) || names(o->set_env, name) || names(cordon_profile_list(h, CORDON_PROFILE_ENV_SET), name))
		return 0;
	return cordon_policy_set_env(p, name, "0", e);
}

/* The profile, then the overrides on top: scalars replace, lists add. */
static int build_policy(const struct cordon_profile_handle *h, const struct cordon_launch_opts *o,
			struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	const struct cordon_profile *prof = profile_handle_profile(h);
	struct cordon_error e = {};
	const char *what = NULL;
	bool on_proxy;
	int r;

	r = profile_handle_policy_home(h, o->mode_set ? &o->mode : NULL, o->home_set ? &o->home : NULL, &p,
				       reterr); /* checked above */
	if (r < 0)
		return r;
	if (o->net_set && (r = cordon_policy_set_net(p, o->net)) < 0)
		return error_set(reterr, r, "net: not a network setting");
	if (o->isolation_set && (r = cordon_policy_set_isolation(p, o->isolation)) < 0)
		return error_set(reterr, r, "isolation: not an isolation setting");
#define EACH(list, name, call)                                   \
	for (const char *const *s = (list); s && *s; s++)         \
		if ((r = (call)) < 0) {                          \
			what = name;                             \
			goto bad;                                \
		}
	EACH(o->write, "write", cordon_policy_add_writable(p, *s, &e));
	EACH(o->deny_read, "deny_read", cordon_policy_deny_read(p, *s, &e));
	EACH(o->deny_exec, "deny_exec", cordon_policy_deny_exec(p, *s, &e));
	EACH(o->protect, "protect", cordon_policy_protect(p, *s, &e));
	EACH(o->allow_unix_sockets, "allow_unix_socket", cordon_policy_allow_unix_socket(p, *s, &e));
	EACH(o->keep_env, "keep_env", cordon_policy_keep_env(p, *s, &e));
	EACH(o->require, "require", cordon_policy_require(p, *s, &e));
	EACH(o->allow_domains, "allow_domains", cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, *s, &e));
	EACH(o->deny_domains, "deny_domains", cordon_policy_add_net_rule(p, CORDON_NET_DENY_DOMAIN, *s, &e));
	EACH(o->allow_addresses, "allow_addresses", cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_ADDRESS, *s, &e));
	/* host rules hold only through the proxy (as the CLI's flags) */
	if (((o->allow_domains && o->allow_domains[0]) || (o->deny_domains && o->deny_domains[0]) ||
	     (o->allow_addresses && o->allow_addresses[0])) &&
	    cordon_policy_net(p) != CORDON_NET_PROXY && cordon_policy_net(p) != CORDON_NET_ALLOW)
		return error_set(reterr, -EINVAL,
				 "allow_domains, deny_domains and allow_addresses need the network proxy (net proxy or "
				 "a profile's network.mode \"proxy\")");
	on_proxy = cordon_policy_net(p) == CORDON_NET_PROXY;
	for (const char *const *s = o->set_env; s && *s; s++) {
		const char *eq = strchr(*s, '=');
		_cleanup_free_ char *name = NULL;

		if (!eq || eq == *s)
			return error_set(reterr, -EINVAL, "set_env: expected NAME=VALUE, got '%s'", *s);
		name = strndup(*s, (size_t)(eq - *s));
		if (!name)
			return -ENOMEM;
		/* the profile's set_vars were checked at load; the caller's too */
		if ((prof->tools && (r = tool_creds_check_trust_var(prof->tools->creds, CORDON_TOOLS_SESSION, name,
								     &e)) < 0) ||
		    (prof->tools && on_proxy &&
		     (r = tool_creds_check_trust_var_intercepted(prof->tools->creds, CORDON_TOOLS_SESSION, name, &e)) < 0) ||
		    (r = cordon_policy_set_env(p, name, eq + 1, &e)) < 0) {
			what = "set_env";
			goto bad;
		}
	}
	/* the profile's own set_vars, when the caller put a session with
	 * credentials on the proxy (the loader checked them only against the
	 * profile's own network): its proxy intercepts, as for a consumer */
	for (const char *const *s = cordon_profile_list(h, CORDON_PROFILE_ENV_SET);
	     prof->tools && on_proxy && o->net_set && s && *s; s++) {
		char name[256];
		size_t nl = strcspn(*s, "=");

		snprintf(name, sizeof(name), "%.*s", (int)(nl < sizeof(name) ? nl : sizeof(name) - 1), *s);
		if ((r = tool_creds_check_trust_var_intercepted(prof->tools->creds, CORDON_TOOLS_SESSION, name, &e)) < 0) {
			what = "net";
			goto bad;
		}
	}
	EACH(o->read_host, "read_host", cordon_policy_read_host(p, *s, &e));
	if (o->quiet_offline_retries && (r = quiet_retries(h, o, p, &e)) < 0) {
		what = "set_env";
		goto bad;
	}
	/* last: a deny the overrides added wins over their read grants too */
	EACH(o->read, "read", check_read(p, *s, &e));
#undef EACH
	if (o->finish_policy && (r = o->finish_policy(o->finish_userdata, p, reterr)) < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
bad:
	return error_set(reterr, r, "%s: %s", what, e.message[0] ? e.message : strerror(-r));
}

/* The backend (o's, else the selected one) and the one check of the
 * limits. */
static int backend_and_limits(struct cordon_launch *l, const struct cordon_launch_opts *o,
			      enum cordon_launch_stage *stage, struct cordon_error *reterr)
{
	int r;

	*stage = CORDON_LAUNCH_STAGE_BACKEND;
	l->backend = (struct cordon_backend_info){ .backend = CORDON_BACKEND_UNAVAILABLE };
	if (o->inspect_only) {
		/* shown, never run: nothing probed, nothing checked */
		l->inspect_only = true;
		return o->backend_set ? probe_backend_info(o->backend, &l->backend) : 0;
	}
	if (cordon_policy_mode(l->policy) != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = o->backend_set ? probe_backend_info(o->backend, &l->backend)
				   : cordon_backend_select(CORDON_SELECT_DISK_CACHE, &l->backend);
		if (r == -EINVAL && !o->backend_set)
			return error_set(reterr, r,
					 "CORDON_BACKEND='%s' is not a backend: valid backends are native, bwrap, seatbelt, unavailable",
					 secure_getenv("CORDON_BACKEND") ?: "");
		if (r < 0)
			return error_set(reterr, r, "cannot select a sandbox backend: %s", strerror(-r));
		/* light isolation needs no user namespace: the native runner
		 * takes it whatever the probe found (confine.c), unless a
		 * backend was pinned */
		if (l->backend.backend == CORDON_BACKEND_UNAVAILABLE &&
		    (o->backend_set || cordon_policy_isolation(l->policy) != CORDON_ISOLATION_LIGHT))
			return confine_refuse_unavailable(l->policy, &l->backend, reterr);
	}

	/* Limits that cannot be enforced are refused before anything runs;
	 * this is the one check (cordon_spawn does not repeat it). */
	*stage = CORDON_LAUNCH_STAGE_LIMITS;
	return cordon_limits_check(l->limits_set ? &l->limits : NULL, NULL, &l->plan, reterr);
}

/* What every launch ends with: its backend, the limits' check, and, for a
 * backend other than the native runner (or a launch only shown), what it
 * needs to know of the protected paths that a policy built inside
 * cordon_launch_new left for now (policy_protect_notes_defer): the native
 * runner looks at those paths itself, at run time. */
int launch_finish(struct cordon_launch *l, const struct cordon_launch_opts *o, enum cordon_launch_stage *stage,
		  struct cordon_error *reterr)
{
	int r = backend_and_limits(l, o, stage, reterr);

	if (r >= 0 && (l->backend.backend != CORDON_BACKEND_NATIVE || l->inspect_only) &&
	    (r = policy_protect_notes_finish(l->policy)) < 0)
		return error_set(reterr, r, "cannot look at the protected paths: %s", strerror(-r));
	return r;
}

static int launch_build(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *o,
			enum cordon_launch_stage *stage, struct cordon_launch **ret, struct cordon_error *reterr);

CORDON_API int cordon_launch_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				 struct cordon_launch **ret, struct cordon_error *reterr)
{
	struct cordon_launch_opts taken;
	const struct cordon_launch_opts *o = &taken;
	enum cordon_launch_stage stage = CORDON_LAUNCH_STAGE_OPTIONS;
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the launch");
	r = opts_take(opts, CORDON_LAUNCH_OPTS_SIZE_1, &taken, sizeof(taken), "cordon_launch_opts", reterr);
	if (r < 0)
		return r;
	/* each path the build looks at, once (statmemo.h); what only bwrap
	 * needs to know of the protected paths, once the backend is known */
	bool memo = statmemo_open();
	bool defer = policy_protect_notes_defer(true);
	r = launch_build(profile, o, &stage, ret, reterr);
	policy_protect_notes_defer(defer);
	statmemo_close(memo);
	if (r < 0 && o->failed_stage)
		*o->failed_stage = stage;
	return r;
}

/* cordon_launch_new past its opts: *stage says how far it went. */
static int launch_build(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *o,
			enum cordon_launch_stage *stage, struct cordon_launch **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = NULL;
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *own = NULL;
	const struct cordon_profile *prof;
	int r;

	/* what was loaded only to be looked at (command_policies kept) is
	 * never run */
	if (profile && profile_handle_inspect_only(profile))
		return error_set(reterr, -EOPNOTSUPP, "profile %s was loaded for inspection only: it cannot be run",
				 cordon_profile_name(profile));
	/* a session under command_policies without its supervisor would run
	 * every controlled tool directly, with none of their policy: never */
	if (profile && cordon_profile_tools(profile) && !o->finish_policy)
		return error_set(reterr, -EOPNOTSUPP,
				 "profile %s has command_policies: only the tool sandbox's supervisor runs it (`cordon run "
				 "--profile`)",
				 cordon_profile_name(profile));
	r = check_overrides(o, reterr);
	if (r < 0)
		return r;
	*stage = CORDON_LAUNCH_STAGE_PROFILE;
	/* $WORKSPACE and the default workspace expand at load: another
	 * workspace is another load of the same profile. */
	if (!profile) {
		struct cordon_profile_opts po = { .workspace = o->workspace, .builtin_only = true };

		r = cordon_profile_load(NULL, &po, &own, reterr);
		if (r < 0)
			return r;
		profile = own;
	} else if (o->workspace && !(profile_handle_workspace_asked(profile) &&
				     strcmp(profile_handle_workspace_asked(profile), o->workspace) == 0)) {
		r = profile_handle_reload(profile, o->workspace, &own, reterr);
		if (r < 0)
			return r;
		profile = own;
	}
	prof = profile_handle_profile(profile);

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	r = merge_limits(l, prof, o, reterr);
	if (r < 0)
		return r;
	*stage = CORDON_LAUNCH_STAGE_POLICY;
	r = build_policy(profile, o, &l->policy, reterr);
	if (r < 0)
		return r;

	r = launch_finish(l, o, stage, reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

CORDON_API const struct cordon_policy *cordon_launch_policy(const struct cordon_launch *l)
{
	return l ? l->policy : NULL;
}

CORDON_API const struct cordon_backend_info *cordon_launch_backend(const struct cordon_launch *l)
{
	return l ? &l->backend : NULL;
}

CORDON_API const struct cordon_limits *cordon_launch_limits(const struct cordon_launch *l)
{
	return l && l->limits_set ? &l->limits : NULL;
}

CORDON_API const struct cordon_limits_plan *cordon_launch_limits_plan(const struct cordon_launch *l)
{
	return l ? &l->plan : NULL;
}

CORDON_API void cordon_launch_run_opts(const struct cordon_launch *l, struct cordon_run_opts *o)
{
	if (!l || !o)
		return;
	o->timeout_ms = l->timeout_ms;
	o->max_output = (size_t)l->max_output;
	o->output_terminate = l->output_terminate;
	o->limits = cordon_launch_limits(l);
}

CORDON_API int cordon_launch_confine(const struct cordon_launch *l, const char *const *argv,
				     struct cordon_confined **ret, struct cordon_error *reterr)
{
	if (!l)
		return error_set(reterr, -EINVAL, "no launch");
	if (l->inspect_only)
		return error_set(reterr, -EOPNOTSUPP, "this launch was built to be shown (inspect_only): it cannot be run");
	return cordon_confine_with(&l->backend, argv, l->policy, ret, reterr);
}

/* A tool sandbox's limits (public shape, no origins) onto l, checked as
 * a profile's are in merge_limits: the same minimums (launch_check_enough,
 * processes then open files), the timeout within the table's range. */
int launch_take_limits(struct cordon_launch *l, const struct cordon_profile_limits *pl, struct cordon_error *reterr)
{
	struct cordon_limits m = pl->limits;
	int r;

	r = launch_check_enough(CORDON_LIMIT_PROCESSES, m.processes, NULL, reterr);
	if (r < 0 || (r = launch_check_enough(CORDON_LIMIT_OPEN_FILES, m.open_files, NULL, reterr)) < 0)
		return r;
	if (pl->timeout_ms > cordon_limit_range(CORDON_LIMIT_TIMEOUT)->max)
		return error_set(reterr, -EINVAL, "limits.timeout is over a week");
	m.fallback_fail = pl->fallback_set && pl->limits.fallback_fail;
	l->timeout_ms = (int)pl->timeout_ms;
	l->max_output = pl->max_output;
	l->output_terminate = pl->output_terminate_set && pl->output_terminate;
	l->limits = m;
	l->limits_set = m.cpu_seconds || m.memory || m.processes || m.file_size || m.open_files;
	return 0;
}

/* A launch around a policy built already (taken, freed on failure too),
 * with limits in the public shape: a credential capture's sandbox. */
int launch_new_from_policy(struct cordon_policy *p, const struct cordon_profile_limits *pl, struct cordon_launch **ret,
			   struct cordon_error *reterr)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = calloc(1, sizeof(*l));
	const struct cordon_launch_opts none = {};
	enum cordon_launch_stage stage;
	int r;

	if (!l) {
		cordon_policy_free(p);
		return -ENOMEM;
	}
	l->policy = p;
	r = launch_take_limits(l, pl, reterr);
	if (r < 0)
		return r;
	r = launch_finish(l, &none, &stage, reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

CORDON_API int cordon_launch_why_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				     struct cordon_why **ret)
{
	struct cordon_why_opts w = CORDON_WHY_OPTS_INIT;
	struct cordon_launch_opts o;
	int r;

	r = opts_take(opts, CORDON_LAUNCH_OPTS_SIZE_1, &o, sizeof(o), "cordon_launch_opts", NULL);
	if (r < 0)
		return r;
	w.mode_set = o.mode_set;
	w.mode = o.mode;
	w.net_set = o.net_set;
	w.net = o.net;
	w.light = o.isolation_set && o.isolation == CORDON_ISOLATION_LIGHT;
	w.deny_read = o.deny_read;
	w.protect = o.protect;
	w.net_rules[CORDON_NET_ALLOW_DOMAIN] = o.allow_domains;
	w.net_rules[CORDON_NET_DENY_DOMAIN] = o.deny_domains;
	w.net_rules[CORDON_NET_ALLOW_ADDRESS] = o.allow_addresses;
	w.read_host = o.read_host;
	w.home_set = o.home_set;
	w.home = o.home;
	return cordon_why_new(profile, &w, ret);
}
