/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From the command line to a launch, shared by run, confine, explain, why
 * and profile show --effective: the profile, and the flag table's values as
 * cordon_launch_opts. The library merges them (cordon_launch_new): nothing
 * is merged here; the CLI's own checks come in as the launch's
 * finish_policy.
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
	/* a pack's profile (issue 24): cordon-supervisor verifies packs */
	if (r == -ENOPKG && !cli_supervisor()) {
		(void)cli_exec_supervisor("a pack's profile");
		return r;
	}
	if (r < 0) {
		cli_note_origin(&e);
		say("%s", e.message[0] ? e.message : strerror(-r));
	}
	return r;
}

/* --profile P, else the embedded default: never a file, so what runs without
 * --profile is exactly what is compiled in. */
int cli_load_profile(const struct cli_args *a, struct cordon_profile_handle **ret)
{
	return cli_load_named(a->profile ?: "default", a->workspace, !a->profile, false, ret);
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
	if (!a->net_set && (cordon_policy_net(p) == CORDON_NET_PROXY || cordon_policy_net(p) == CORDON_NET_ALLOW)) {
		say("%s%s%s: network.mode \"%s\" with --mode danger-full-access: that mode enforces nothing, so the "
		    "command would run with the host's network; refused",
		    o.file ? o.file : "the profile", o.pointer ? " at " : "", o.pointer ? o.pointer : "",
		    cordon_net_to_string(cordon_policy_net(p)));
		return -EINVAL;
	}
	return 0;
}

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

/* What the CLI adds to a launch's policy, last (the launch's
 * finish_policy): its checks of the workspace and of danger-full-access
 * with a network, and the tool sandbox's session. Each says why itself. */
struct finish {
	const struct cli_args *a;
	const struct cordon_profile_handle *prof;
};

/* --insecure-local DIR (issue 24): an unsigned pack a sandbox of this
 * session could write would choose the next run's policy: refused when DIR
 * is in a writable root, or holds one, of the run or of any tool sandbox
 * (every edge's fs_write and fs_write_file under command_policies). */
static int insecure_local_meets(const char *dir, const char *root, const char *what)
{
	_cleanup_free_ char *c = NULL;

	if (!root || root[0] != '/')
		return 0;
	if (cordon_canonicalize(root, &c, NULL) >= 0)
		root = c; /* missing: its tail as written */
	if (!path_is_under(dir, root) && !path_is_under(root, dir))
		return 0;
	say("--insecure-local %s: refused: %s %s %s (a sandbox could change the policy of the next run)", dir,
	    path_is_under(dir, root) ? "it is inside" : "it holds", what, root);
	return -EPERM;
}

static int insecure_local_in_tool_writes(const char *dir, const struct cordon_tools *t)
{
	const char *const *names = cordon_tools_commands(t);
	struct cordon_tool_sandbox sb;
	char what[200];
	int r = 0;

	for (size_t c = 0; names && names[c]; c++)
		for (size_t k = 0; r >= 0 && (k == 0 || names[k - 1]); k++) {
			const char *caller = k == 0 ? CORDON_TOOLS_SESSION : names[k - 1];

			if (cordon_tools_sandbox(t, caller, names[c], &sb) < 0)
				continue; /* no such edge */
			snprintf(what, sizeof(what), "a write grant of %s's sandbox (called by %s):", names[c], caller);
			for (const char *const *w = sb.fs_write; r >= 0 && w && *w; w++)
				r = insecure_local_meets(dir, *w, what);
			for (const char *const *w = sb.fs_write_file; r >= 0 && w && *w; w++)
				r = insecure_local_meets(dir, *w, what);
		}
	return r;
}

static int refuse_insecure_local_in_writable(const struct cli_args *a, const struct cordon_profile_handle *prof,
					     const struct cordon_policy *p)
{
	_cleanup_free_ char *dir = NULL;
	const char *const *roots = cordon_writable_roots(p);
	const struct cordon_tools *t = prof ? cordon_profile_tools(prof) : NULL;
	int r = 0;

	if (!a->insecure_local)
		return 0;
	dir = realpath(a->insecure_local, NULL);
	if (!dir) {
		say("--insecure-local %s: %s", a->insecure_local, strerror(errno));
		return -errno;
	}
	for (; r >= 0 && roots && *roots; roots++)
		r = insecure_local_meets(dir, *roots, "the writable root");
	if (r >= 0 && t)
		r = insecure_local_in_tool_writes(dir, t);
	return r;
}

static int finish_policy(void *userdata, struct cordon_policy *p, struct cordon_error *reterr)
{
	const struct finish *f = userdata;
	int r;

	(void)reterr; /* every refusal here is said, in the command line's words */
	r = cli_check_workspace(f->a, f->prof, cordon_policy_workspace(p), cordon_policy_mode(p));
	if (r < 0)
		return r;
	r = refuse_danger_with_net(f->a, f->prof, p);
	if (r < 0)
		return r;
	r = refuse_insecure_local_in_writable(f->a, f->prof, p);
	if (r < 0)
		return r;
	/* the run's note: HOME cannot be hidden from a workspace that holds it */
	if (cordon_policy_home_policy(p) == CORDON_HOME_ALLOWLIST && cordon_policy_home(p) &&
	    cordon_policy_workspace(p) && path_is_under(cordon_policy_home(p), cordon_policy_workspace(p)))
		say("note: the HOME allowlist does not apply to %s: the workspace %s holds it, and a directory cannot "
		    "be hidden from itself; the credential catalogue applies there (cordon why --path says so too)",
		    cordon_policy_home(p), cordon_policy_workspace(p));
	/* last: the tool sandbox's session sees the writable roots as they are */
	if (f->a->session)
		return cli_supervisor()->session->session_policy(f->a->session, p);
	if (cordon_profile_tools(f->prof))
		return tools_session_policy(f->a, p);
	return 0;
}

/* The launch's option keys as the flags that set them, so a refusal names
 * what was typed. */
static const struct {
	const char *key;
	const char *flag;
} option_flags[] = {
	{ "deny_read", "--deny-read" },
	{ "read_host", "--read" },
	{ "protect", "--protect" },
	{ "allow_unix_socket", "--allow-unix-socket" },
	{ "keep_env", "--keep-env" },
	{ "set_env", "--setenv" },
	{ "require", "--require" },
	{ "allow_domains", "--allow-domain" },
	{ "deny_domains", "--deny-domain" },
	{ "allow_addresses", "--allow-address" },
};

static void say_launch_error(const struct cordon_error *e)
{
	for (size_t i = 0; i < ELEMENTSOF(option_flags); i++) {
		size_t n = strlen(option_flags[i].key);

		if (strncmp(e->message, option_flags[i].key, n) == 0 && e->message[n] == ':') {
			say("%s%s", option_flags[i].flag, e->message + n);
			return;
		}
	}
	say("%s", e->message);
}

static const char *stage_kind(enum cordon_launch_stage s)
{
	switch (s) {
	case CORDON_LAUNCH_STAGE_PROFILE:
		return "profile";
	case CORDON_LAUNCH_STAGE_BACKEND:
		return "unavailable";
	case CORDON_LAUNCH_STAGE_LIMITS:
		return "limits";
	case CORDON_LAUNCH_STAGE_OPTIONS:
	case CORDON_LAUNCH_STAGE_POLICY:
		break;
	}
	return "policy";
}

int cli_launch(const struct cli_args *a, const struct cordon_profile_handle *prof, bool inspect,
	       struct cordon_launch **ret, const char **ret_kind)
{
	struct finish f = { .a = a, .prof = prof };
	enum cordon_launch_stage stage = CORDON_LAUNCH_STAGE_POLICY;
	struct cordon_launch_opts o;
	struct cordon_error e = {};
	int r;

	cli_launch_opts(a, &o);
	o.quiet_offline_retries = true;
	o.finish_policy = finish_policy;
	o.finish_userdata = &f;
	o.failed_stage = &stage;
	o.inspect_only = inspect;

	r = cordon_launch_new(prof, &o, ret, &e);
	if (r < 0) {
		if (e.message[0])
			say_launch_error(&e);
		else if (stage != CORDON_LAUNCH_STAGE_POLICY) /* finish_policy says its own */
			say("%s", strerror(-r));
		*ret_kind = stage_kind(stage);
	}
	return r;
}

void cli_args_from_launch(const struct cli_args *a, const struct cordon_launch *l, struct cli_args *ret)
{
	const struct cordon_limits *lim = cordon_launch_limits(l);
	struct cordon_run_opts o = {};

	cordon_launch_run_opts(l, &o);
	*ret = *a; /* the vectors stay a's */
	ret->timeout_ms = o.timeout_ms;
	ret->max_output = o.max_output;
	ret->max_output_set = o.max_output != 0;
	ret->output_terminate = o.output_terminate;
	ret->limits = lim ? *lim : (struct cordon_limits){ .fallback_fail = a->limits.fallback_fail };
	ret->limits_set = lim != NULL;
}

int cli_build_policy(const struct cli_args *a, const struct cordon_profile_handle *prof,
		     struct cordon_launch **ret)
{
	const char *kind;

	return cli_launch(a, prof, true, ret, &kind);
}

int cli_confine_launch(const struct cordon_launch *l, const struct cli_args *a, struct cordon_confined **ret,
		       const char **ret_kind)
{
	struct cordon_error e = {};
	int r;

	r = cordon_launch_confine(l, (const char *const *)a->command, ret, &e);
	if (r < 0) {
		/* a feature the policy requires that this backend cannot give */
		*ret_kind = r == CORDON_SANDBOX_UNAVAILABLE ? "unavailable" : r == -EOPNOTSUPP ? "require" : "policy";
		say("%s", e.message[0] ? e.message : strerror(-r));
	}
	return r;
}
