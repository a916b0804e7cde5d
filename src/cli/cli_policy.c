/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From the command line to a confined value, shared by run, confine and
 * explain: the profile, the flags on top of it, the backend.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "path.h"
#include "strv.h"

#define say cli_say
#define fail cli_fail

/* Load NAME the way run does: --profile P, or the embedded default. */
int cli_load_named(const char *name, const char *workspace, bool embedded, bool inspect,
		   struct cordon_profile_handle **ret)
{
	const struct cordon_profile_opts o = { .workspace = workspace, .builtin_only = embedded };
	struct cordon_error e = {};
	int r;

	r = inspect ? cordon_profile_load_inspect(name, &o, ret, &e) : cordon_profile_load(name, &o, ret, &e);
	if (r < 0) {
		cli_note_origin(&e);
		say("%s", e.message[0] ? e.message : strerror(-r));
	}
	return r;
}

/* A limit the runner cannot live with: the message names the profile key. */
static int too_few(const struct cordon_profile_handle *p, enum cordon_limit l, const char *key, uint64_t value,
		   const char *need, char *err, size_t errlen)
{
	struct cordon_origin o = {};

	(void)cordon_profile_limit_origin(p, l, &o);
	return fail(err, errlen, "%s: at %s: limits.%s %" PRIu64 " is too few: %s", o.file, o.pointer, key, value,
		    need);
}

/* A zero field of the profile's limits is one it leaves unset. */
int cli_apply_profile_limits(struct cli_args *a, const struct cordon_profile_handle *p, char *err, size_t errlen)
{
	struct cordon_profile_limits l;

	cordon_profile_limits(p, &l);
	if (l.timeout_ms && !a->timeout_ms)
		a->timeout_ms = (int)l.timeout_ms; /* at most a week: fits */
	if (l.limits.cpu_seconds && !a->limits.cpu_seconds) {
		a->limits.cpu_seconds = l.limits.cpu_seconds;
		a->limits_set = true;
	}
	if (l.limits.memory && !a->limits.memory) {
		a->limits.memory = l.limits.memory;
		a->limits_set = true;
	}
	if (l.limits.processes && !a->limits.processes) {
		/* the runner and its init count too (as for --max-processes) */
		if (l.limits.processes < 4)
			return too_few(p, CORDON_LIMIT_PROCESSES, "max_processes", l.limits.processes,
				       "the runner itself needs 4; give at least 4", err, errlen);
		a->limits.processes = l.limits.processes;
		a->limits_set = true;
	}
	if (l.limits.file_size && !a->limits.file_size) {
		a->limits.file_size = l.limits.file_size;
		a->limits_set = true;
	}
	if (l.limits.open_files && !a->limits.open_files) {
		/* below 16 the runner cannot set the sandbox up */
		if (l.limits.open_files < 16)
			return too_few(p, CORDON_LIMIT_OPEN_FILES, "max_open_files", l.limits.open_files,
				       "the runner needs 16 to set the sandbox up; give at least 16", err, errlen);
		a->limits.open_files = l.limits.open_files;
		a->limits_set = true;
	}
	if (l.max_output && !a->max_output_set) {
		a->max_output = l.max_output;
		a->max_output_set = true;
	}
	if (l.output_terminate_set && !a->output_action_set)
		a->output_terminate = l.output_terminate;
	if (l.fallback_set && !a->fallback_set)
		a->limits.fallback_fail = l.limits.fallback_fail;
	return 0;
}

/* --profile P, else the embedded default: never a file, so what runs without
 * --profile is exactly what is compiled in. */
int cli_load_profile(const struct cli_args *a, struct cordon_profile_handle **ret)
{
	return cli_load_named(a->profile ?: "default", a->workspace, !a->profile, false, ret);
}

int cli_load_merged(const struct cli_args *a, struct cordon_profile_handle **ret_prof, struct cli_args *ret_merged)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
	char err[512];
	int r;

	r = cli_load_profile(a, &prof);
	if (r < 0)
		return r;
	*ret_merged = *a; /* the vectors stay a's */
	r = cli_apply_profile_limits(ret_merged, prof, err, sizeof(err));
	if (r < 0) {
		say("%s", err);
		return r;
	}
	*ret_prof = TAKE_PTR(prof);
	return 0;
}

/* Without a network nothing outside answers, so a tool's retries only wait:
 * npm retries a failed resolution for 70 s (fetch-retries 2, backoff 10 s
 * then 60 s). Unless the caller set it (environment, --setenv, profile). */
static int quiet_retries(const struct cli_args *a, const struct cordon_profile_handle *prof,
			 struct cordon_policy *p, struct cordon_error *e)
{
	static const char name[] = "npm_config_fetch_retries";

	if (cordon_policy_net(p) != CORDON_NET_NONE || cordon_policy_mode(p) == CORDON_MODE_DANGER_FULL_ACCESS ||
	    getenv(name))
		return 0;
	STRV_FOREACH(s, a->setenv)
		if (strncmp(*s, name, sizeof(name) - 1) == 0 && (*s)[sizeof(name) - 1] == '=')
			return 0;
	for (const char *const *s = cordon_profile_list(prof, CORDON_PROFILE_ENV_SET); *s; s++)
		if (strncmp(*s, name, sizeof(name) - 1) == 0 && (*s)[sizeof(name) - 1] == '=')
			return 0;
	return cordon_policy_set_env(p, name, "0", e);
}

/* danger-full-access runs the command as it is, with the host's network: a
 * network stated beside it could not hold. Refused, as inside one profile
 * (where mode and network.mode together are a load error): --net other than
 * host, or the profile's network.mode "proxy" under --mode. The library
 * refuses proxy with that mode whatever the front end (confine.c). */
static int refuse_danger_with_net(const struct cli_args *a, const struct cordon_profile_handle *prof,
				  const struct cordon_policy *p)
{
	struct cordon_origin o = {};

	if (cordon_policy_mode(p) != CORDON_MODE_DANGER_FULL_ACCESS)
		return 0;
	if (a->net_set && a->net != CORDON_NET_HOST) {
		say("--net %s with mode danger-full-access: that mode enforces nothing, so the command would run "
		    "with the host's network; refused (drop one of them)",
		    cordon_net_to_string(a->net));
		return -EINVAL;
	}
	cordon_profile_net_origin(prof, &o);
	if (!a->net_set && cordon_policy_net(p) == CORDON_NET_PROXY) {
		say("%s%s%s: network.mode \"proxy\" with --mode danger-full-access: that mode enforces nothing, so the "
		    "command would run with the host's network; refused",
		    o.file ? o.file : "the profile", o.pointer ? " at " : "", o.pointer ? o.pointer : "");
		return -EINVAL;
	}
	return 0;
}

/* The profile, then the flags on top: scalars replace, lists add. */
/* A session under command_policies, as `cordon run` would build it (the
 * broker, no controlled binary executable), for what only looks at the
 * policy (confine, explain, why): the supervisor itself is not needed to
 * know it. */
static int tools_session_policy(const struct cli_args *a, struct cordon_policy *p)
{
	struct cordon_profile_opts po = { .workspace = a->workspace };
	struct cordon_profile_handle *h = NULL;
	struct cordon_toolbox *box = NULL;
	_cleanup_free_ char *shim = NULL;
	struct cordon_error e = {};
	int r;

	r = cordon_shim_path(&shim);
	if (r < 0) {
		say("the tool sandbox needs cordon-shim (beside cordon, or CORDON_SHIM): %s", strerror(-r));
		return r;
	}
	r = cordon_profile_load(a->profile, &po, &h, &e);
	if (r >= 0)
		r = cordon_toolbox_new(h, getenv("PATH"), cordon_writable_roots(p), shim, &box, &e);
	if (r >= 0)
		r = cordon_toolbox_session_policy(box, p, &e);
	if (r < 0)
		say("the tool sandbox: %s", e.message);
	cordon_toolbox_free(box);
	cordon_profile_free(h);
	return r;
}

int cli_build_policy(const struct cli_args *a, const struct cordon_profile_handle *prof, struct cordon_policy **ret)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	int r;

	r = cordon_profile_policy_home(prof, a->mode_set ? &a->mode : NULL, a->home_set ? &a->home : NULL, &p, &e);
	if (r < 0) {
		say("%s", e.message);
		return r;
	}
	r = cli_check_workspace(a, prof, cordon_policy_workspace(p), cordon_policy_mode(p));
	if (r < 0)
		return r;
	if (a->net_set)
		cordon_policy_set_net(p, a->net);
	r = refuse_danger_with_net(a, prof, p);
	if (r < 0)
		return r;
	r = quiet_retries(a, prof, p, &e);
	if (r < 0)
		goto bad;
	if (a->isolation_set)
		cordon_policy_set_isolation(p, a->isolation);
	STRV_FOREACH(s, a->deny_read)
		if ((r = cordon_policy_deny_read(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->read_host)
		if ((r = cordon_policy_read_host(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->protect)
		if ((r = cordon_policy_protect(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->allow_unix)
		if ((r = cordon_policy_allow_unix_socket(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->keep_env)
		if ((r = cordon_policy_keep_env(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->setenv) {
		_cleanup_free_ char *name = strndup(*s, strcspn(*s, "="));
		if (!name)
			return -ENOMEM;
		if ((r = cordon_policy_set_env(p, name, *s + strlen(name) + 1, &e)) < 0)
			goto bad;
	}
	STRV_FOREACH(s, a->require)
		if ((r = cordon_policy_require(p, *s, &e)) < 0)
			goto bad;
	if ((r = cli_net_apply(a, p)) < 0)
		return r;
	/* the run's note: HOME cannot be hidden from a workspace that holds it */
	if (cordon_policy_home_policy(p) == CORDON_HOME_ALLOWLIST && cordon_policy_home(p) &&
	    cordon_policy_workspace(p) && path_is_under(cordon_policy_home(p), cordon_policy_workspace(p)))
		say("note: the HOME allowlist does not apply to %s: the workspace %s holds it, and a directory cannot "
		    "be hidden from itself; the credential catalogue applies there (cordon why --path says so too)",
		    cordon_policy_home(p), cordon_policy_workspace(p));
	/* last: the tool sandbox's session sees the writable roots as they are */
	if (a->session && (r = cli_supervisor()->session->session_policy(a->session, p)) < 0)
		return r;
	if (!a->session && cordon_profile_tools(prof) && (r = tools_session_policy(a, p)) < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
bad:
	say("%s", e.message);
	return r;
}

int cli_select_backend(const struct cli_args *a, struct cordon_backend_info *ret)
{
	int r;

	if (a->backend_set)
		cordon_pin_backend(a->backend);
	r = cordon_backend_select(CORDON_SELECT_DISK_CACHE, ret);
	if (r == -EINVAL)
		say("CORDON_BACKEND='%s' is not a backend: valid backends are native, bwrap, seatbelt, unavailable",
		    getenv("CORDON_BACKEND") ?: "");
	else if (r < 0)
		say("cannot select a sandbox backend: %s", strerror(-r));
	return r;
}

/* Policy -> backend -> confined, or a message, a negative code and which
 * step refused (a kind for cli_refuse). */
int cli_confine_from_args(const struct cli_args *a, const struct cordon_profile_handle *prof,
			  struct cordon_backend_info *ret_info, struct cordon_confined **ret, const char **ret_kind)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_UNAVAILABLE };
	struct cordon_error e = {};
	int r;

	*ret_kind = "policy";
	r = cli_build_policy(a, prof, &p);
	if (r < 0)
		return r;
	if (cordon_policy_mode(p) != CORDON_MODE_DANGER_FULL_ACCESS) {
		*ret_kind = "unavailable";
		r = cli_select_backend(a, &info);
		if (r < 0)
			return r;
	}
	r = cordon_confine_with(&info, (const char *const *)a->command, p, ret, &e);
	if (r < 0) {
		/* a feature the policy requires that this backend cannot give */
		*ret_kind = r == CORDON_SANDBOX_UNAVAILABLE ? "unavailable" : r == -EOPNOTSUPP ? "require" : "policy";
		say("%s", e.message[0] ? e.message : strerror(-r));
		return r;
	}
	if (ret_info)
		*ret_info = info;
	return 0;
}
