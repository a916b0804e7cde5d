/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_launch: a profile plus a front end's overrides, built once into a
 * policy, a backend, merged limits (checked once) and run options. This is
 * the merge `cordon run` used to do by hand in the CLI (profile limits under
 * the flags, a shallow copy of the profile to drop writes on a mode change,
 * the policy set one setter at a time), kept in one place so the supervisor
 * does not copy it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "launch.h"
#include "opts_size.h"
#include "policy.h"
#include "probe.h"
#include "profile.h"
#include "profile_api.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile_handle *, cordon_profile_free)

#define LAUNCH_MAX_SECONDS (7u * 24 * 3600)
#define LAUNCH_MAX_BYTES (1ull << 40)
#define LAUNCH_MAX_OUTPUT (1ull << 30)

CORDON_API struct cordon_launch *cordon_launch_free(struct cordon_launch *l)
{
	if (!l)
		return NULL;
	cordon_policy_free(l->policy);
	free(l);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_launch *, cordon_launch_free)

static bool in_range(uint64_t v, uint64_t min, uint64_t max)
{
	return v >= min && v <= max;
}

/* The overrides' values, checked as the CLI's flags are. */
static int check_overrides(const struct cordon_launch_opts *o, struct cordon_error *reterr)
{
	const struct cordon_limits *l = &o->limits;

	if (o->timeout_ms < 0 || (uint64_t)o->timeout_ms > LAUNCH_MAX_SECONDS * 1000ull)
		return error_set(reterr, -EINVAL, "timeout: %d ms is not between 1 ms and one week", o->timeout_ms);
	if (o->max_output > LAUNCH_MAX_OUTPUT)
		return error_set(reterr, -EINVAL, "max_output: %" PRIu64 " bytes is over 1G", o->max_output);
	if (l->cpu_seconds && !in_range(l->cpu_seconds, 1, LAUNCH_MAX_SECONDS))
		return error_set(reterr, -EINVAL, "cpu: %" PRIu64 " s is not from 1 to 604800", l->cpu_seconds);
	if (l->memory && !in_range(l->memory, 1ull << 20, LAUNCH_MAX_BYTES))
		return error_set(reterr, -EINVAL, "memory: %" PRIu64 " bytes is not between 1M and 1T", l->memory);
	/* the runner and its init count too */
	if (l->processes && !in_range(l->processes, 4, 4194304))
		return error_set(reterr, -EINVAL, "max_processes: %" PRIu64 " is not from 4 to 4194304", l->processes);
	if (l->file_size && !in_range(l->file_size, 1, LAUNCH_MAX_BYTES))
		return error_set(reterr, -EINVAL, "max_file_size: %" PRIu64 " bytes is over 1T", l->file_size);
	/* below 16 the runner cannot set the sandbox up */
	if (l->open_files && !in_range(l->open_files, 16, 1048576))
		return error_set(reterr, -EINVAL, "max_open_files: %" PRIu64 " is not from 16 to 1048576", l->open_files);
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
		const struct profile_origin *at = &pl->origin[PROFILE_LIMIT_MAX_PROCESSES];

		if (pl->max_processes < 4)
			return error_set(reterr, -EINVAL,
					 "%s: at %s: limits.max_processes %" PRIu64
					 " is too few: the runner itself needs 4; give at least 4",
					 at->file, at->pointer, pl->max_processes);
		m.processes = pl->max_processes;
	}
	if (!m.file_size && HAS_LIMIT(pl, MAX_FILE_SIZE))
		m.file_size = pl->max_file_size;
	if (!m.open_files && HAS_LIMIT(pl, MAX_OPEN_FILES)) {
		const struct profile_origin *at = &pl->origin[PROFILE_LIMIT_MAX_OPEN_FILES];

		if (pl->max_open_files < 16)
			return error_set(reterr, -EINVAL,
					 "%s: at %s: limits.max_open_files %" PRIu64
					 " is too few: the runner needs 16 to set the sandbox up; give at least 16",
					 at->file, at->pointer, pl->max_open_files);
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

/* The profile, then the overrides on top: scalars replace, lists add. */
static int build_policy(const struct cordon_profile_handle *h, const struct cordon_launch_opts *o,
			struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	const char *what = NULL;
	int r;

	r = profile_handle_policy(h, o->mode_set ? &o->mode : NULL, &p, reterr); /* checked above */
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
	    cordon_policy_net(p) != CORDON_NET_PROXY)
		return error_set(reterr, -EINVAL,
				 "allow_domains, deny_domains and allow_addresses need the network proxy (net proxy or "
				 "a profile's network.mode \"proxy\")");
	for (const char *const *s = o->set_env; s && *s; s++) {
		const char *eq = strchr(*s, '=');
		_cleanup_free_ char *name = NULL;

		if (!eq || eq == *s)
			return error_set(reterr, -EINVAL, "set_env: expected NAME=VALUE, got '%s'", *s);
		name = strndup(*s, (size_t)(eq - *s));
		if (!name)
			return -ENOMEM;
		if ((r = cordon_policy_set_env(p, name, eq + 1, &e)) < 0) {
			what = "set_env";
			goto bad;
		}
	}
	/* last: a deny the overrides added wins over their read grants too */
	EACH(o->read, "read", check_read(p, *s, &e));
#undef EACH
	*ret = TAKE_PTR(p);
	return 0;
bad:
	return error_set(reterr, r, "%s: %s", what, e.message[0] ? e.message : strerror(-r));
}

/* The backend (o's, else the selected one) and the one check of the
 * limits: what every launch ends with. */
static int launch_finish(struct cordon_launch *l, const struct cordon_launch_opts *o, struct cordon_error *reterr)
{
	int r;

	l->backend = (struct cordon_backend_info){ .backend = CORDON_BACKEND_UNAVAILABLE };
	if (cordon_policy_mode(l->policy) != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = o->backend_set ? probe_backend_info(o->backend, &l->backend)
				   : cordon_backend_select(CORDON_SELECT_DISK_CACHE, &l->backend);
		if (r == -EINVAL && !o->backend_set)
			return error_set(reterr, r,
					 "CORDON_BACKEND='%s' is not a backend: valid backends are native, bwrap, seatbelt, unavailable",
					 secure_getenv("CORDON_BACKEND") ?: "");
		if (r < 0)
			return error_set(reterr, r, "cannot select a sandbox backend: %s", strerror(-r));
		if (l->backend.backend == CORDON_BACKEND_UNAVAILABLE)
			return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE,
					 "no sandbox backend can enforce this policy here; nothing was run");
	}

	/* Limits that cannot be enforced are refused before anything runs;
	 * this is the one check (cordon_spawn does not repeat it). */
	return cordon_limits_check(l->limits_set ? &l->limits : NULL, NULL, &l->plan, reterr);
}

CORDON_API int cordon_launch_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				 struct cordon_launch **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = NULL;
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *own = NULL;
	struct cordon_launch_opts taken;
	const struct cordon_launch_opts *o = &taken;
	const struct cordon_profile *prof;
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the launch");
	r = opts_take(opts, CORDON_LAUNCH_OPTS_SIZE_1, &taken, sizeof(taken), "cordon_launch_opts", reterr);
	if (r < 0)
		return r;
	/* what was loaded only to be looked at (command_policies kept) is
	 * never run */
	if (profile && profile_handle_inspect_only(profile))
		return error_set(reterr, -EOPNOTSUPP, "profile %s was loaded for inspection only: it cannot be run",
				 cordon_profile_name(profile));
	/* a session under command_policies without its supervisor would run
	 * every controlled tool directly, with none of their policy: never */
	if (profile && cordon_profile_tools(profile))
		return error_set(reterr, -EOPNOTSUPP,
				 "profile %s has command_policies: only the tool sandbox's supervisor runs it (`cordon run "
				 "--profile`)",
				 cordon_profile_name(profile));
	r = check_overrides(o, reterr);
	if (r < 0)
		return r;
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
	r = build_policy(profile, o, &l->policy, reterr);
	if (r < 0)
		return r;

	r = launch_finish(l, o, reterr);
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
	return cordon_confine_with(&l->backend, argv, l->policy, ret, reterr);
}

/* A tool's launch (toolbox.c): a policy built already (taken, freed on
 * failure too), with the tool sandbox's limits, checked as a profile's
 * are. */
int launch_new_from_policy(struct cordon_policy *p, const struct cordon_profile_limits *pl, struct cordon_launch **ret,
			   struct cordon_error *reterr)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = calloc(1, sizeof(*l));
	const struct cordon_launch_opts none = {};
	struct cordon_limits m = pl->limits;

	if (!l) {
		cordon_policy_free(p);
		return -ENOMEM;
	}
	l->policy = p;
	if (m.processes && m.processes < 4)
		return error_set(reterr, -EINVAL, "limits.max_processes %" PRIu64 " is too few: the runner itself needs 4",
				 m.processes);
	if (m.open_files && m.open_files < 16)
		return error_set(reterr, -EINVAL,
				 "limits.max_open_files %" PRIu64 " is too few: the runner needs 16 to set the sandbox up",
				 m.open_files);
	if (pl->timeout_ms > LAUNCH_MAX_SECONDS * 1000ull)
		return error_set(reterr, -EINVAL, "limits.timeout is over a week");
	m.fallback_fail = pl->fallback_set && pl->limits.fallback_fail;
	l->timeout_ms = (int)pl->timeout_ms;
	l->max_output = pl->max_output;
	l->output_terminate = pl->output_terminate_set && pl->output_terminate;
	l->limits = m;
	l->limits_set = m.cpu_seconds || m.memory || m.processes || m.file_size || m.open_files;
	int r = launch_finish(l, &none, reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}
