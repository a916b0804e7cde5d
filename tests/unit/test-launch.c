/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_launch, used as a front end would: through cordon.h only. The
 * backend is given (native, unprobed), so nothing here spawns. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "cordon/cordon.h"

static char ws[PATH_MAX], ws2[PATH_MAX], canon_ws[PATH_MAX], canon_ws2[PATH_MAX], file[PATH_MAX + 32],
	build[PATH_MAX + 32];

static void canon(const char *in, char *out)
{
	char *c = NULL;

	cr_assert_eq(cordon_canonicalize(in, &c, NULL), 0);
	snprintf(out, PATH_MAX, "%s", c);
	free(c);
}

static void write_profile(const char *text)
{
	FILE *f = fopen(file, "we");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void setup(void)
{
	char *d = test_tmpdir("/tmp", "cordon-launch"), *d2 = test_tmpdir("/tmp", "cordon-launch2");

	snprintf(ws, sizeof(ws), "%s", d);
	snprintf(ws2, sizeof(ws2), "%s", d2);
	free(d);
	free(d2);
	canon(ws, canon_ws);
	canon(ws2, canon_ws2);
	snprintf(file, sizeof(file), "%s/p.json", ws);
	snprintf(build, sizeof(build), "%s/build", ws);
	cr_assert_eq(mkdir(build, 0755), 0);
	write_profile("{ \"mode\": \"workspace-write\",\n"
		      "  \"filesystem\": { \"write\": [\"$WORKSPACE/build\"] },\n"
		      "  \"environment\": { \"set_vars\": { \"FROM_PROFILE\": \"1\" } },\n"
		      "  \"limits\": { \"timeout\": \"30s\", \"max_open_files\": 64, \"max_output\": 8192,\n"
		      "              \"on_output_limit\": \"kill\" } }\n");
}

static void teardown(void)
{
	unlink(file);
	rmdir(build);
	rmdir(ws);
	rmdir(ws2);
}

TestSuite(launch, .init = setup, .fini = teardown);

static struct cordon_profile_handle *load(const char *workspace)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts po = { .workspace = workspace };
	struct cordon_error e = {};

	cr_assert_eq(cordon_profile_load(file, &po, &p, &e), 0, "%s", e.message);
	return p;
}

static bool has(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

Test(launch, profile_alone_gives_policy_limits_and_run_options)
{
	struct cordon_profile_handle *p = load(ws);
	struct cordon_launch_opts o = { .backend_set = true, .backend = CORDON_BACKEND_NATIVE };
	struct cordon_launch *l = NULL;
	struct cordon_run_opts ro = { .cwd = "/", .passthrough = true };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cordon_profile_free(p); /* the launch does not keep it */
	const struct cordon_policy *pol = cordon_launch_policy(l);
	cr_assert_eq(cordon_policy_mode(pol), CORDON_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cordon_policy_workspace(pol), canon_ws);
	cr_assert(has(cordon_writable_roots(pol), canon_ws));
	cr_assert_eq(cordon_launch_backend(l)->backend, CORDON_BACKEND_NATIVE);

	cr_assert_not_null(cordon_launch_limits(l));
	cr_assert_eq(cordon_launch_limits(l)->open_files, 64);
	cordon_launch_run_opts(l, &ro);
	cr_assert_eq(ro.timeout_ms, 30000);
	cr_assert_eq(ro.max_output, 8192);
	cr_assert(ro.output_terminate);
	cr_assert_eq(ro.limits, cordon_launch_limits(l));
	cr_assert_str_eq(ro.cwd, "/", "the caller's own fields stay");
	cr_assert(ro.passthrough);

	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NATIVE);
	cr_assert_str_eq(c->argv[0], cordon_runner_path());
	cr_assert(has((const char *const *)c->envp, "FROM_PROFILE=1"));
	/* values travel in the environment, never in argv */
	for (char **a = c->argv; *a; a++)
		cr_assert_null(strstr(*a, "FROM_PROFILE=1"), "argv carries %s", *a);
	cordon_confined_free(c);
	cordon_launch_free(l);
}

Test(launch, overrides_replace_scalars_and_add_to_lists)
{
	struct cordon_profile_handle *p = load(ws);
	const char *setenv_[] = { "FROM_LAUNCH=2", NULL };
	const char *write_[] = { ws2, NULL };
	struct cordon_launch_opts o = {
		.backend_set = true, .backend = CORDON_BACKEND_NATIVE,
		.net_set = true, .net = CORDON_NET_HOST,
		.set_env = setenv_, .write = write_,
		.timeout_ms = 5000,
		.output_terminate_set = true, .output_terminate = false,
		.limits = { .open_files = 32 },
	};
	struct cordon_launch *l = NULL;
	struct cordon_run_opts ro = {};
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	const struct cordon_policy *pol = cordon_launch_policy(l);
	cr_assert_eq(cordon_policy_net(pol), CORDON_NET_HOST);
	cr_assert(has(cordon_writable_roots(pol), canon_ws2));
	cordon_launch_run_opts(l, &ro);
	cr_assert_eq(ro.timeout_ms, 5000, "the override wins");
	cr_assert_eq(ro.max_output, 8192, "the profile fills what is not overridden");
	cr_assert(!ro.output_terminate);
	cr_assert_eq(cordon_launch_limits(l)->open_files, 32);
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_assert(has((const char *const *)c->envp, "FROM_LAUNCH=2"));
	cr_assert(has((const char *const *)c->envp, "FROM_PROFILE=1"));
	cordon_confined_free(c);
	cordon_launch_free(l);
	cordon_profile_free(p);
}

Test(launch, mode_and_workspace_overrides)
{
	struct cordon_profile_handle *p = load(ws);
	struct cordon_launch_opts o = { .backend_set = true, .backend = CORDON_BACKEND_NATIVE, .mode_set = true, .mode = CORDON_MODE_READ_ONLY };
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	/* read-only drops the profile's write grants instead of refusing them */
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_mode(cordon_launch_policy(l)), CORDON_MODE_READ_ONLY);
	cr_assert_eq(count(cordon_writable_roots(cordon_launch_policy(l))), 0);
	l = cordon_launch_free(l);

	/* another workspace: the profile is loaded again for it */
	o = (struct cordon_launch_opts){ .backend_set = true, .backend = CORDON_BACKEND_NATIVE, .workspace = ws2 };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_str_eq(cordon_policy_workspace(cordon_launch_policy(l)), canon_ws2);
	cr_assert(!has(cordon_writable_roots(cordon_launch_policy(l)), canon_ws));
	l = cordon_launch_free(l);

	/* no profile: the embedded default */
	cr_assert_eq(cordon_launch_new(NULL, &o, &l, &e), 0, "%s", e.message);
	cr_assert_str_eq(cordon_policy_workspace(cordon_launch_policy(l)), canon_ws2);
	cr_assert_null(cordon_launch_limits(l));
	cordon_launch_free(l);
	cordon_profile_free(p);
}

Test(launch, refusals)
{
	struct cordon_profile_handle *p = load(ws);
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};
	const char *ssh_read[] = { NULL, NULL };
	const char *inject[] = { "LD_PRELOAD=/tmp/x.so", NULL };
	const char *ok_read[] = { "/usr", NULL };
	char ssh[PATH_MAX + 32];
	struct cordon_launch_opts o;

#define NATIVE .backend_set = true, .backend = CORDON_BACKEND_NATIVE
	o = (struct cordon_launch_opts){ NATIVE, .limits = { .processes = 3 } };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert_not_null(strstr(e.message, "max_processes"), "%s", e.message);
	o = (struct cordon_launch_opts){ NATIVE, .limits = { .open_files = 8 } };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	o = (struct cordon_launch_opts){ NATIVE, .limits = { .memory = 4096 } };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	o = (struct cordon_launch_opts){ NATIVE, .timeout_ms = -1 };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	o = (struct cordon_launch_opts){ NATIVE, .mode_set = true, .mode = (enum cordon_mode)42 };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	o = (struct cordon_launch_opts){ NATIVE, .set_env = inject };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EPERM);
	cr_assert_not_null(strstr(e.message, "set_env"), "%s", e.message);

	/* a read grant under a read-deny (the override's own here) is refused:
	 * deny always wins; one elsewhere is accepted (readable anyway) */
	snprintf(ssh, sizeof(ssh), "%s/build/keys", ws);
	ssh_read[0] = ssh;
	const char *deny[] = { build, NULL };
	o = (struct cordon_launch_opts){ NATIVE, .deny_read = deny, .read = ssh_read };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EPERM);
	cr_assert_not_null(strstr(e.message, "deny"), "%s", e.message);
	o = (struct cordon_launch_opts){ NATIVE, .read = ok_read };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	l = cordon_launch_free(l);

	/* nothing can enforce: refused at once, not at the first spawn */
	o = (struct cordon_launch_opts){ .backend_set = true, .backend = CORDON_BACKEND_UNAVAILABLE };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), CORDON_SANDBOX_UNAVAILABLE);
	cr_assert_null(l);
	cordon_profile_free(p);
}

/* network.mode "proxy": the launch's policy has the profile's host rules
 * and the overrides' on top; rules without the proxy are refused. */
Test(launch, proxy_rules_reach_the_policy)
{
	struct cordon_profile_handle *p = NULL, *plain = load(ws);
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};
	struct cordon_confined *c = NULL;
	const char *more[] = { "api.example.org", NULL };
	const char *addr[] = { "192.168.0.0/16", NULL };
	const char *argv[] = { "true", NULL };
	struct cordon_launch_opts o = { .backend_set = true, .backend = CORDON_BACKEND_NATIVE,
					.allow_domains = more, .allow_addresses = addr };
	bool flag = false;

	write_profile("{ \"network\": { \"mode\": \"proxy\", \"allow_domains\": [\"example.com\"],\n"
		      "  \"deny_domains\": [\"bad.example.com\"] } }\n");
	cr_assert_eq(cordon_profile_load(file, NULL, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	const struct cordon_policy *pol = cordon_launch_policy(l);
	cr_assert_eq(cordon_policy_net(pol), CORDON_NET_PROXY);
	cr_assert(has(cordon_policy_net_rules(pol, CORDON_NET_ALLOW_DOMAIN), "example.com"));
	cr_assert(has(cordon_policy_net_rules(pol, CORDON_NET_ALLOW_DOMAIN), "api.example.org"));
	cr_assert(has(cordon_policy_net_rules(pol, CORDON_NET_DENY_DOMAIN), "bad.example.com"));
	cr_assert(has(cordon_policy_net_rules(pol, CORDON_NET_ALLOW_ADDRESS), "192.168.0.0/16"));
	/* and on to the runner's command line */
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	for (size_t i = 0; c->argv[i] && c->argv[i + 1]; i++)
		if (strcmp(c->argv[i], "--deny-domain") == 0 && strcmp(c->argv[i + 1], "bad.example.com") == 0)
			flag = true;
	cr_assert(flag, "the runner is told --deny-domain bad.example.com");
	cordon_confined_free(c);
	l = cordon_launch_free(l);

	/* the profile's network replaced by host: the override's rules cannot hold */
	o.net_set = true;
	o.net = CORDON_NET_HOST;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert_null(l);
	/* nor beside a profile whose network is none */
	o.net_set = false;
	cr_assert_eq(cordon_launch_new(plain, &o, &l, &e), -EINVAL);
	cr_assert_not_null(strstr(e.message, "proxy"), "%s", e.message);
	cordon_profile_free(p);
	cordon_profile_free(plain);
}

Test(launch, profile_limit_too_small_names_its_key)
{
	struct cordon_profile_handle *p;
	struct cordon_launch_opts o = { NATIVE };
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	write_profile("{ \"limits\": { \"max_open_files\": 8 } }\n");
	p = load(ws);
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert_not_null(strstr(e.message, "/limits/max_open_files"), "%s", e.message);
	/* the override wins, so the profile's value is never used */
	o.limits.open_files = 32;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cordon_launch_free(l);
	cordon_profile_free(p);
}

/* deny_exec reaches the policy and the runner's argv; "/" is refused and
 * named. */
Test(launch, deny_exec)
{
	struct cordon_profile_handle *p = load(ws);
	const char *deny_exec[] = { ws2, NULL }, *bad[] = { "/", NULL };
	struct cordon_launch_opts o = { .backend_set = true, .backend = CORDON_BACKEND_NATIVE, .deny_exec = deny_exec };
	struct cordon_launch *l = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	bool found = false;

	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	for (size_t i = 1; c->argv[i]; i++)
		found |= strcmp(c->argv[i - 1], "--deny-exec") == 0 && strcmp(c->argv[i], canon_ws2) == 0;
	cr_assert(found, "no --deny-exec %s", canon_ws2);
	cordon_confined_free(c);
	cordon_launch_free(l);

	o.deny_exec = bad;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert(strstr(e.message, "deny_exec"), "%s", e.message);
	cordon_profile_free(p);
}

/* cordon_run_opts carries its size: a zeroed struct is the first release's
 * layout, a caller that knows more fields than this library is refused
 * unless they are zero, and a size below the first release's is refused. */
Test(launch, run_opts_carry_their_size)
{
	struct {
		struct cordon_run_opts o;
		uint64_t later_field;
	} newer = { .o = { .size = sizeof(newer) }, .later_field = 1 };
	struct cordon_run_opts old = { .timeout_ms = 1000 }, tiny = { .size = 4 }, now = CORDON_RUN_OPTS_INIT;
	struct cordon_child *c = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_spawn_confined(NULL, &newer.o, NULL, &c, &e), -E2BIG, "%s", e.message);
	cr_assert(strstr(e.message, "does not know"), "%s", e.message);
	newer.later_field = 0;
	/* past the size check: refused for what it runs (nothing), not its size */
	cr_assert_eq(cordon_spawn_confined(NULL, &newer.o, NULL, &c, &e), -EINVAL);
	cr_assert(strstr(e.message, "nothing to run"), "%s", e.message);
	cr_assert_eq(cordon_spawn_confined(NULL, &old, NULL, &c, &e), -EINVAL);
	cr_assert(strstr(e.message, "nothing to run"), "%s", e.message);
	cr_assert_eq(cordon_spawn_confined(NULL, &now, NULL, &c, &e), -EINVAL);
	cr_assert(strstr(e.message, "nothing to run"), "%s", e.message);
	cr_assert_eq(cordon_spawn_confined(NULL, &tiny, NULL, &c, &e), -EINVAL);
	cr_assert(strstr(e.message, "smaller than the first release"), "%s", e.message);
	cr_assert_eq(now.size, sizeof(struct cordon_run_opts));
	/* today's fields are the second release's (up to the trailing
	 * padding): the first's and credentials_fd */
	cr_assert_leq(sizeof(struct cordon_run_opts) - CORDON_RUN_OPTS_SIZE_2, sizeof(void *) - 1);
	cr_assert_gt(CORDON_RUN_OPTS_SIZE_2, CORDON_RUN_OPTS_SIZE_1);
}

/* The other options structs a caller fills carry their size the same way. */
Test(launch, launch_why_and_profile_opts_carry_their_size)
{
	struct {
		struct cordon_launch_opts o;
		uint64_t later_field;
	} launch = { .o = { .size = sizeof(launch) }, .later_field = 1 };
	struct {
		struct cordon_profile_opts o;
		uint64_t later_field;
	} prof = { .o = { .size = sizeof(prof) }, .later_field = 1 };
	struct {
		struct cordon_why_opts o;
		uint64_t later_field;
	} why = { .o = { .size = sizeof(why) }, .later_field = 1 };
	const struct cordon_profile_opts now = CORDON_PROFILE_OPTS_INIT, old = {}, tiny = { .size = 2 };
	struct cordon_profile_handle *h = NULL;
	struct cordon_launch *l = NULL;
	struct cordon_why *w = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_profile_load("read-only", &prof.o, &h, &e), -E2BIG, "%s", e.message);
	cr_assert_eq(cordon_profile_load("read-only", &tiny, &h, &e), -EINVAL, "%s", e.message);
	cr_assert_eq(cordon_profile_load("read-only", &old, &h, &e), 0, "%s", e.message);
	cordon_profile_free(h);
	prof.later_field = 0;
	cr_assert_eq(cordon_profile_load("read-only", &prof.o, &h, &e), 0, "%s", e.message);
	cordon_profile_free(h);
	cr_assert_eq(cordon_profile_load("read-only", &now, &h, &e), 0, "%s", e.message);

	cr_assert_eq(cordon_launch_new(h, &launch.o, &l, &e), -E2BIG, "%s", e.message);
	cr_assert(strstr(e.message, "cordon_launch_opts"), "%s", e.message);
	cr_assert_null(l);
	cr_assert_eq(cordon_why_new(h, &why.o, &w), -E2BIG);
	cr_assert_null(w);
	why.later_field = 0;
	cr_assert_eq(cordon_why_new(h, &why.o, &w), 0);
	cordon_why_free(w);
	cordon_profile_free(h);
}

static int finish_calls;

static int finish_adds(void *userdata, struct cordon_policy *p, struct cordon_error *reterr)
{
	finish_calls++;
	return cordon_policy_set_env(p, "FROM_FINISH", userdata, reterr);
}

static int finish_refuses(void *userdata, struct cordon_policy *p, struct cordon_error *reterr)
{
	(void)userdata, (void)p;
	snprintf(reterr->message, sizeof(reterr->message), "the front end says no");
	return -EPERM;
}

static bool env_has(const struct cordon_policy *p, const char *entry)
{
	char **v = NULL;
	bool found;

	cr_assert_eq(cordon_policy_list(p, CORDON_POLICY_ENV, &v), 0);
	found = has((const char *const *)v, entry);
	cordon_strv_free(v);
	return found;
}

/* What the CLI's road needs of a launch (the second release's fields):
 * its own part of the policy last, where a refusal came from, the offline
 * retries quieted, and a launch that is only shown. */
Test(launch, front_end_options)
{
	struct cordon_profile_handle *p = load(ws);
	enum cordon_launch_stage stage = CORDON_LAUNCH_STAGE_OPTIONS;
	struct cordon_launch *l = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	const char *npm_set[] = { "npm_config_fetch_retries=5", NULL };
	struct cordon_launch_opts o = { .size = sizeof(o), NATIVE, .finish_policy = finish_adds,
					.finish_userdata = "yes", .quiet_offline_retries = true };

	/* finish_policy runs once, on the policy with the overrides on it */
	finish_calls = 0;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_eq(finish_calls, 1);
	cr_assert(env_has(cordon_launch_policy(l), "FROM_FINISH=yes"));
	/* the profile has no network: a tool's retries would only wait */
	cr_assert(env_has(cordon_launch_policy(l), "npm_config_fetch_retries=0"));
	l = cordon_launch_free(l);
	/* a value the caller set is kept; without the option nothing is added */
	o.set_env = npm_set;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert(env_has(cordon_launch_policy(l), "npm_config_fetch_retries=5"));
	cr_assert(!env_has(cordon_launch_policy(l), "npm_config_fetch_retries=0"));
	l = cordon_launch_free(l);
	o = (struct cordon_launch_opts){ .size = sizeof(o), NATIVE };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert(!env_has(cordon_launch_policy(l), "npm_config_fetch_retries=0"));
	l = cordon_launch_free(l);

	/* a refusal says which step made it */
	o = (struct cordon_launch_opts){ .size = sizeof(o), NATIVE, .finish_policy = finish_refuses,
					 .failed_stage = &stage };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EPERM);
	cr_assert_eq(stage, CORDON_LAUNCH_STAGE_POLICY);
	cr_assert_str_eq(e.message, "the front end says no");
	o = (struct cordon_launch_opts){ .size = sizeof(o), NATIVE, .limits = { .processes = 3 }, .failed_stage = &stage };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert_eq(stage, CORDON_LAUNCH_STAGE_OPTIONS);
	o = (struct cordon_launch_opts){ .size = sizeof(o), .backend_set = true, .backend = CORDON_BACKEND_UNAVAILABLE,
					 .failed_stage = &stage };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), CORDON_SANDBOX_UNAVAILABLE);
	cr_assert_eq(stage, CORDON_LAUNCH_STAGE_BACKEND);
	cr_assert_not_null(strstr(e.message, "nothing was run"), "%s", e.message);

	/* shown, never run: built even where nothing could enforce it, and
	 * its confine (so cordon_spawn) refuses */
	o = (struct cordon_launch_opts){ .size = sizeof(o), .backend_set = true, .backend = CORDON_BACKEND_UNAVAILABLE,
					 .inspect_only = true };
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_limits(l)->open_files, 64, "the limits are merged all the same");
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), -EOPNOTSUPP);
	cr_assert_null(c);
	l = cordon_launch_free(l);

	/* the limits' minimums are the library's one table */
	cr_assert_eq(cordon_limit_range(CORDON_LIMIT_PROCESSES)->min, 4);
	cr_assert_str_eq(cordon_limit_range(CORDON_LIMIT_OPEN_FILES)->key, "max_open_files");
	cr_assert_null(cordon_limit_range(CORDON_LIMIT_NONE));
	cr_assert_null(cordon_limit_range(_CORDON_LIMIT_MAX));
	cordon_profile_free(p);
}

/* `cordon why` from the same launch options a run takes: the overrides
 * that decide access are the launch's (one set of options, two views). */
Test(launch, why_from_launch_opts)
{
	struct cordon_profile_handle *p = load(ws);
	const char *deny[] = { build, NULL };
	struct cordon_launch_opts o = { .size = sizeof(o), .deny_read = deny, .mode_set = true,
					.mode = CORDON_MODE_READ_ONLY, .net_set = true, .net = CORDON_NET_HOST };
	struct cordon_why *w = NULL;
	struct cordon_why_decision d;
	char inside[PATH_MAX + 64];

	snprintf(inside, sizeof(inside), "%s/x", build);
	cr_assert_eq(cordon_launch_why_new(p, &o, &w), 0);
	cr_assert_eq(cordon_why_mode(w), CORDON_MODE_READ_ONLY);
	cr_assert_eq(cordon_why_net(w), CORDON_NET_HOST);
	cr_assert_eq(cordon_why_path(w, inside, CORDON_OP_READ, &d), 0);
	cr_assert(!d.allow, "the launch's deny_read decides: %s", d.reason);
	cordon_why_free(w);
	cordon_profile_free(p);
}

/* A tool's launch (cordon_launch_new_tool) is built from its command
 * policy's sandbox: the sandbox the compiled profile gives for an edge
 * goes in as it is, and the launch makes the policy (the grants, the
 * execute-only gate open for the closure only, the environment), the
 * limits and the run options, then the caller's finish_policy on top. */
struct finish_seen {
	int calls;
	const struct cordon_policy *p;
};

static int note_finish(void *userdata, struct cordon_policy *p, struct cordon_error *reterr)
{
	struct finish_seen *s = userdata;

	s->calls++;
	s->p = p;
	return cordon_policy_set_env(p, "FROM_FINISH", "1", reterr);
}

static int pair_count(const struct cordon_confined *c, const char *flag, const char *value)
{
	int n = 0;

	for (size_t i = 1; c->argv[i]; i++)
		n += strcmp(c->argv[i - 1], flag) == 0 && strcmp(c->argv[i], value) == 0;
	return n;
}

static struct cordon_profile_handle *load_tool(const char *limits, struct cordon_tool_sandbox *sb)
{
	char text[2048];
	struct cordon_profile_handle *p;

	snprintf(text, sizeof(text),
		 "{ \"command_policies\": { \"commands\": {\n"
		 "  \"ctool\": { \"executable\": \"/bin/true\", \"sandbox\": {\n"
		 "     \"fs_read\": [\"$WORKSPACE\"], \"fs_write\": [\"$WORKSPACE/build\"],\n"
		 "     \"environment\": { \"set_vars\": { \"TOOLVAR\": \"1\" } },\n"
		 "     \"limits\": %s } } } } }\n",
		 limits);
	write_profile(text);
	p = load(ws);
	cr_assert_not_null(cordon_profile_tools(p));
	cr_assert_eq(cordon_tools_sandbox(cordon_profile_tools(p), CORDON_TOOLS_SESSION, "ctool", sb), 0);
	return p;
}

Test(launch, tool_launch_is_built_from_its_sandbox)
{
	struct cordon_tool_sandbox sb;
	struct cordon_profile_handle *p = load_tool("{ \"timeout\": \"5s\", \"max_open_files\": 64 }", &sb);
	struct cordon_launch_tool_opts o = CORDON_LAUNCH_TOOL_OPTS_INIT;
	struct finish_seen seen = {};
	struct cordon_launch *l = NULL;
	struct cordon_run_opts ro = { .cwd = "/" };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	char *exe = NULL, build_canon[PATH_MAX + 32];
	const char *closure[2] = { NULL, NULL }, *argv[] = { "true", NULL };

	cr_assert_eq(cordon_canonicalize("/bin/true", &exe, NULL), 0);
	closure[0] = exe;
	snprintf(build_canon, sizeof(build_canon), "%s/build", canon_ws);
	o.workspace = cordon_profile_workspace(p);
	o.executable = exe;
	o.exec_closure = closure;
	o.backend_set = true;
	o.backend = CORDON_BACKEND_NATIVE;
	o.finish_policy = note_finish;
	o.finish_userdata = &seen;
	cr_assert_eq(cordon_launch_new_tool(&sb, &o, &l, &e), 0, "%s", e.message);
	/* finish_policy ran once, on the very policy the launch keeps */
	cr_assert_eq(seen.calls, 1);
	cr_assert_eq(seen.p, cordon_launch_policy(l));
	cr_assert_eq(cordon_launch_backend(l)->backend, CORDON_BACKEND_NATIVE);
	/* the sandbox's limits, as a profile's become the run's */
	cordon_launch_run_opts(l, &ro);
	cr_assert_eq(ro.timeout_ms, 5000);
	cr_assert_not_null(cordon_launch_limits(l));
	cr_assert_eq(cordon_launch_limits(l)->open_files, 64);
	cr_assert(has(cordon_writable_roots(cordon_launch_policy(l)), build_canon));

	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_expect_eq(pair_count(c, "--exec", exe), 1, "the closure is executable, once");
	cr_expect(has((const char *const *)c->envp, "TOOLVAR=1"));
	cr_expect(has((const char *const *)c->envp, "PYTHONSAFEPATH=1"));
	cr_expect(has((const char *const *)c->envp, "FROM_FINISH=1"));
	cordon_confined_free(c);
	cordon_launch_free(l);

	/* anything but the native runner cannot hold a tool's gate */
	o.backend = CORDON_BACKEND_BWRAP;
	l = NULL;
	cr_assert_eq(cordon_launch_new_tool(&sb, &o, &l, &e), -EOPNOTSUPP);
	cr_assert_null(l);
	cr_assert_not_null(strstr(e.message, "needs the native runner"), "%s", e.message);
	/* no sandbox, no launch */
	cr_assert_eq(cordon_launch_new_tool(NULL, &o, &l, &e), -EINVAL);
	free(exe);
	cordon_profile_free(p);
}

/* A count under what a run needs is refused on the tool's road with the
 * profile road's words (one check, one table), before any policy is
 * built. */
Test(launch, tool_limit_too_small_is_refused_as_a_profiles)
{
	struct cordon_tool_sandbox sb;
	struct cordon_profile_handle *p;
	struct cordon_launch_tool_opts o = CORDON_LAUNCH_TOOL_OPTS_INIT;
	struct cordon_launch_opts po = { NATIVE };
	struct finish_seen seen = {};
	enum cordon_launch_stage stage = CORDON_LAUNCH_STAGE_OPTIONS;
	struct cordon_launch *l = NULL;
	struct cordon_error e = {}, pe = {};
	static const char *const cases[][2] = {
		{ "{ \"max_processes\": 2 }", "limits.max_processes 2 is too few: the runner itself needs 4" },
		{ "{ \"max_open_files\": 8 }", "limits.max_open_files 8 is too few: the runner needs 16" },
	};

	o.backend_set = true;
	o.backend = CORDON_BACKEND_NATIVE;
	o.finish_policy = note_finish;
	o.finish_userdata = &seen;
	o.failed_stage = &stage;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];

		p = load_tool(cases[i][0], &sb);
		o.workspace = cordon_profile_workspace(p);
		cr_assert_eq(cordon_launch_new_tool(&sb, &o, &l, &e), -EINVAL);
		cr_assert_eq(stage, CORDON_LAUNCH_STAGE_PROFILE);
		cr_assert_eq(seen.calls, 0, "no policy was built");
		cr_assert_not_null(strstr(e.message, cases[i][1]), "%s", e.message);
		cordon_profile_free(p);

		/* the same value at a profile's top level, on cordon_launch_new */
		snprintf(text, sizeof(text), "{ \"limits\": %s }\n", cases[i][0]);
		write_profile(text);
		p = load(ws);
		cr_assert_eq(cordon_launch_new(p, &po, &l, &pe), -EINVAL);
		cr_assert_not_null(strstr(pe.message, e.message), "profile road: %s; tool road: %s", pe.message,
				   e.message);
		cordon_profile_free(p);
	}
}
