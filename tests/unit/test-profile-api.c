/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public profile API, used as a front end would: through cordon.h only. */
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

static char ws[PATH_MAX], canon_ws[PATH_MAX], file[PATH_MAX + 32];

static void setup(void)
{
	char *c = NULL;

	char *d = test_tmpdir("/tmp", "cordon-profile-api");

	snprintf(ws, sizeof(ws), "%s", d);
	free(d);
	cr_assert_eq(cordon_canonicalize(ws, &c, NULL), 0);
	snprintf(canon_ws, sizeof(canon_ws), "%s", c);
	free(c);
	snprintf(file, sizeof(file), "%s/p.json", ws);
}

static void teardown(void)
{
	unlink(file);
	rmdir(ws);
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static bool has(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

TestSuite(profile_api, .init = setup, .fini = teardown);

Test(profile_api, default_is_the_embedded_one)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws };
	struct cordon_error e = {};

	cr_assert_eq(cordon_profile_load(NULL, &o, &p, &e), 0, "%s", e.message);
	cr_assert_str_eq(cordon_profile_name(p), "default");
	cr_assert_str_eq(cordon_profile_file(p), "builtin:default");
	cr_assert_eq(cordon_profile_mode(p), CORDON_MODE_WORKSPACE_WRITE);
	cr_assert_eq(cordon_profile_net(p), CORDON_NET_NONE);
	cr_assert_str_eq(cordon_profile_workspace(p), canon_ws);
	cr_assert_not_null(cordon_profile_description(p));
	/* every list is a vector, empty or not; an unknown one is NULL */
	for (int i = 0; i < _CORDON_PROFILE_LIST_MAX; i++)
		cr_assert_not_null(cordon_profile_list(p, (enum cordon_profile_list)i));
	cr_assert_null(cordon_profile_list(p, _CORDON_PROFILE_LIST_MAX));
	cr_assert_eq(count(cordon_profile_list(p, CORDON_PROFILE_WRITE)), 0);
	cordon_profile_free(p);
}

Test(profile_api, a_file_gives_its_lists_and_limits)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws };
	struct cordon_profile_limits l;
	struct cordon_error e = {};
	char build[PATH_MAX + 16], secret[PATH_MAX + 16];
	char *json = NULL;

	snprintf(build, sizeof(build), "%s/build", ws);
	cr_assert_eq(mkdir(build, 0755), 0);
	snprintf(secret, sizeof(secret), "%s/secret", ws);
	cr_assert_eq(mkdir(secret, 0700), 0);
	test_write_file(file, "{ \"mode\": \"workspace-write\",\n"
			 "  \"filesystem\": { \"write\": [\"$WORKSPACE/build\"], \"deny_read\": [\"$WORKSPACE/secret\"] },\n"
			 "  \"network\": { \"mode\": \"host\" },\n"
			 "  \"environment\": { \"allow_vars\": [\"CARGO_*\"], \"set_vars\": { \"CI\": \"1\" } },\n"
			 "  \"limits\": { \"timeout\": \"2m\", \"memory\": \"64M\", \"max_processes\": 32,\n"
			 "              \"max_output\": 4096, \"on_output_limit\": \"kill\", \"limits_fallback\": \"fail\" } }\n");
	cr_assert_eq(cordon_profile_load(file, &o, &p, &e), 0, "%s", e.message);
	cr_assert_str_eq(cordon_profile_file(p), file);
	cr_assert_eq(cordon_profile_net(p), CORDON_NET_HOST);
	snprintf(build, sizeof(build), "%s/build", canon_ws);
	snprintf(secret, sizeof(secret), "%s/secret", canon_ws);
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_WRITE), build));
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_DENY_READ), secret));
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_ENV_ALLOW), "CARGO_*"));
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_ENV_SET), "CI=1"));

	cordon_profile_limits(p, &l);
	cr_assert_eq(l.timeout_ms, 120000);
	cr_assert_eq(l.limits.memory, 64u << 20);
	cr_assert_eq(l.limits.processes, 32);
	cr_assert_eq(l.limits.cpu_seconds, 0, "unset stays zero");
	cr_assert_eq(l.max_output, 4096);
	cr_assert(l.output_terminate_set && l.output_terminate);
	cr_assert(l.fallback_set && l.limits.fallback_fail);

	cr_assert_eq(cordon_profile_to_json(p, &json), 0);
	cr_assert_not_null(strstr(json, "\"host\""));
	free(json);
	cordon_profile_free(p);
	snprintf(build, sizeof(build), "%s/build", ws);
	rmdir(build);
	snprintf(secret, sizeof(secret), "%s/secret", ws);
	rmdir(secret);
}

Test(profile_api, refusals)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws, .builtin_only = true };
	struct cordon_error e = {};

	cr_assert_eq(cordon_profile_load("no-such-profile-anywhere", NULL, &p, &e), -ENOENT);
	cr_assert_null(p);
	/* builtin_only never reads a file, even one that is there */
	test_write_file(file, "{ \"mode\": \"read-only\" }\n");
	cr_assert_eq(cordon_profile_load(file, &o, &p, &e), -EINVAL);
	cr_assert_null(p);
	cr_assert_eq(cordon_profile_load("default", &o, &p, &e), 0, "%s", e.message);
	p = cordon_profile_free(p);
	/* command_policies loads, and only the supervisor runs it: a launch
	 * of it (which would run every controlled tool directly) is refused */
	test_write_file(file, "{ \"command_policies\": { \"commands\": { \"git\": {} } } }\n");
	cr_assert_eq(cordon_profile_load(file, NULL, &p, &e), 0, "%s", e.message);
	cr_assert_not_null(cordon_profile_tools(p));
	{
		struct cordon_launch *l = NULL;

		cr_assert_eq(cordon_launch_new(p, NULL, &l, &e), -EOPNOTSUPP);
		cr_assert_null(l);
		cr_assert_not_null(strstr(e.message, "only the tool sandbox's supervisor runs it"), "%s", e.message);
	}
	p = cordon_profile_free(p);
	/* host rules hold only through the proxy: refused beside mode none */
	test_write_file(file, "{ \"network\": { \"allow_domains\": [\"example.com\"] } }\n");
	cr_assert_eq(cordon_profile_load(file, NULL, &p, &e), -EINVAL);
	cr_assert_null(p);
	cr_assert_not_null(strstr(e.message, "proxy"), "%s", e.message);
	cr_assert_null(cordon_profile_free(NULL));
}

Test(profile_api, network_proxy_and_its_rules)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_error e = {};

	test_write_file(file, "{ \"network\": { \"mode\": \"proxy\", \"allow_domains\": [\"example.com\", \"*.pkg.dev:443\"],\n"
			 "  \"deny_domains\": [\"bad.example.com\"], \"allow_addresses\": [\"10.0.0.0/8\"] } }\n");
	cr_assert_eq(cordon_profile_load(file, NULL, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_profile_net(p), CORDON_NET_PROXY);
	cr_assert_eq(count(cordon_profile_list(p, CORDON_PROFILE_ALLOW_DOMAINS)), 2);
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_ALLOW_DOMAINS), "*.pkg.dev:443"));
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_DENY_DOMAINS), "bad.example.com"));
	cr_assert(has(cordon_profile_list(p, CORDON_PROFILE_ALLOW_ADDRESSES), "10.0.0.0/8"));
	cordon_profile_free(p);

	/* no rules: the lists are empty, not NULL */
	test_write_file(file, "{ \"network\": { \"mode\": \"proxy\" } }\n");
	cr_assert_eq(cordon_profile_load(file, NULL, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_profile_net(p), CORDON_NET_PROXY);
	cr_assert_not_null(cordon_profile_list(p, CORDON_PROFILE_ALLOW_DOMAINS));
	cr_assert_eq(count(cordon_profile_list(p, CORDON_PROFILE_ALLOW_DOMAINS)), 0);
	cordon_profile_free(p);
}

/* What the CLI reads of a profile, through the handle: a profile handed
 * over as bytes, its chain, a limit's origin, its policy under another
 * mode. */
Test(profile_api, a_buffer_loads_and_says_where_values_came_from)
{
	static const char text[] = "{\"extends\": \"default\", \"limits\": {\"max_processes\": 50}, "
				   "\"filesystem\": {\"write\": [\"$WORKSPACE/not-there\"]}}";
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws };
	struct cordon_policy *pol = NULL;
	struct cordon_profile_note note;
	struct cordon_origin org;
	struct cordon_error e = {};
	const char *const *chain;

	cr_assert_eq(cordon_profile_load_buffer(text, strlen(text), "given.json", &o, &p, &e), 0, "%s", e.message);
	chain = cordon_profile_chain(p);
	cr_assert_eq(count(chain), 2);
	cr_assert_str_eq(chain[0], "given.json");
	cr_assert_str_eq(chain[1], "builtin:default");
	cr_assert_eq(cordon_profile_limit_origin(p, CORDON_LIMIT_PROCESSES, &org), 0);
	cr_assert_str_eq(org.file, "given.json");
	cr_assert_str_eq(org.pointer, "/limits/max_processes");
	cr_assert_eq(cordon_profile_limit_origin(p, CORDON_LIMIT_NONE, &org), -EINVAL);
	cr_assert(!cordon_profile_workspace_given(p));
	/* the grant of a path that is not there is skipped, and said */
	cr_assert_eq(cordon_profile_n_notes(p), 1);
	cr_assert_eq(cordon_profile_note(p, 0, &note), 0);
	cr_assert_str_eq(note.kind, "missing_path");
	cr_assert_str_eq(note.origin.pointer, "/filesystem/write/0");
	cr_assert_eq(cordon_profile_note(p, 1, &note), -ERANGE);
	/* the write grant is the policy's in workspace-write, gone in read-only */
	cr_assert_eq(cordon_profile_policy(p, NULL, &pol, &e), 0, "%s", e.message);
	cr_assert(has(cordon_writable_roots(pol), canon_ws));
	cordon_policy_free(pol);
	cr_assert_eq(cordon_profile_policy(p, &(enum cordon_mode){ CORDON_MODE_READ_ONLY }, &pol, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_mode(pol), CORDON_MODE_READ_ONLY);
	cr_assert(!has(cordon_writable_roots(pol), canon_ws));
	cordon_policy_free(pol);
	cr_assert_eq(cordon_profile_policy(p, &(enum cordon_mode){ (enum cordon_mode)42 }, &pol, &e), -EINVAL);
	cordon_profile_free(p);
	/* no bytes at all is a profile error, not a crash */
	cr_assert_lt(cordon_profile_load_buffer("", 0, "empty.json", &o, &p, &e), 0);
}

/* cordon why's view: the profile with a run's overrides on top; each
 * denial beside the same question without the override, allowed. */
Test(profile_api, why_sees_the_overrides_and_names_them)
{
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws };
	const char *const deny[] = { "secret", NULL };
	struct cordon_why *plain = NULL, *over = NULL;
	struct cordon_why_decision d;
	struct cordon_origin org;
	char path[PATH_MAX + 16];
	enum cordon_op op;

	cr_assert_eq(cordon_profile_load(NULL, &o, &p, NULL), 0);
	snprintf(path, sizeof(path), "%s/secret", canon_ws);
	cr_assert_eq(cordon_why_new(p, NULL, &plain), 0);
	cr_assert_eq(cordon_why_new(p,
				    &(struct cordon_why_opts){ .mode_set = true, .mode = CORDON_MODE_READ_ONLY, .net_set = true,
							       .net = CORDON_NET_HOST, .deny_read = deny },
				    &over),
		     0);
	cr_assert_eq(cordon_why_path(plain, path, CORDON_OP_READ, &d), 0);
	cr_assert(d.allow, "%s", d.reason);
	cr_assert_eq(cordon_why_path(over, path, CORDON_OP_READ, &d), 0);
	cr_assert(!d.allow, "%s", d.reason);
	cr_assert_str_eq(d.file, "(command line)");
	cr_assert_str_eq(d.pointer, "--deny-read");
	/* --mode read-only: the workspace is no longer writable */
	cr_assert_eq(cordon_why_path(plain, canon_ws, CORDON_OP_WRITE, &d), 0);
	cr_assert(d.allow, "%s", d.reason);
	cr_assert_eq(cordon_why_path(over, canon_ws, CORDON_OP_WRITE, &d), 0);
	cr_assert(!d.allow, "%s", d.reason);
	cr_assert_eq(cordon_why_mode(over), CORDON_MODE_READ_ONLY);
	/* --net host: a host the plain profile refuses is allowed */
	cr_assert_eq(cordon_why_host(plain, "example.com", 443, &d), 0);
	cr_assert(!d.allow, "%s", d.reason);
	cr_assert_eq(cordon_why_host(over, "example.com", 443, &d), 0);
	cr_assert(d.allow, "%s", d.reason);
	cr_assert_eq(cordon_why_net(over), CORDON_NET_HOST);
	cordon_why_net_origin(over, &org);
	cr_assert_str_eq(org.pointer, "--net");
	cr_assert_eq(cordon_op_from_string("exec", &op), 0);
	cr_assert_eq(op, CORDON_OP_EXEC);
	cr_assert_str_eq(cordon_op_to_string(CORDON_OP_WRITE), "write");
	cr_assert_eq(cordon_op_from_string("frob", &op), -EINVAL);
	cordon_why_free(plain);
	cordon_why_free(over);
	cordon_profile_free(p);
}

static bool denies(const struct cordon_policy *pol, const char *path)
{
	struct cordon_read_deny d;

	for (size_t i = 0; cordon_policy_read_deny(pol, i, &d) == 0; i++)
		if (strcmp(d.path, path) == 0)
			return true;
	return false;
}

/* The credential catalogue is resolved once at a session's start: the
 * load's resolution (a write grant makes the loader check the groups)
 * serves the first policy built from the handle, and only that one. The
 * home's ~/.ssh turned into a symlink after the load tells them apart. */
Test(profile_api, the_catalogue_the_load_resolved_serves_the_first_policy_only)
{
	static const char text[] = "{\"extends\": \"default\", \"filesystem\": {\"write\": [\"$WORKSPACE/out\"]}}";
	char home[PATH_MAX + 16], ssh[PATH_MAX + 32], keys[PATH_MAX + 32], out[PATH_MAX + 32], *canon_home = NULL;
	struct cordon_profile_handle *p = NULL;
	struct cordon_profile_opts o = { .workspace = ws };
	struct cordon_policy *first = NULL, *second = NULL;
	struct cordon_error e = {};

	snprintf(home, sizeof(home), "%s/home", ws);
	snprintf(out, sizeof(out), "%s/out", ws);
	cr_assert_eq(mkdir(home, 0700), 0);
	cr_assert_eq(mkdir(out, 0700), 0);
	cr_assert_eq(cordon_canonicalize(home, &canon_home, NULL), 0);
	cr_assert_eq(setenv("HOME", canon_home, 1), 0);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", canon_home);
	snprintf(keys, sizeof(keys), "%s/keys", canon_home);
	cr_assert_eq(cordon_profile_load_buffer(text, strlen(text), "w.json", &o, &p, &e), 0, "%s", e.message);
	/* after the load: ~/.ssh now leads to ~/keys */
	cr_assert_eq(mkdir(keys, 0700), 0);
	cr_assert_eq(symlink(keys, ssh), 0);
	cr_assert_eq(cordon_profile_policy(p, NULL, &first, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_profile_policy(p, NULL, &second, &e), 0, "%s", e.message);
	/* the first took the load's ~/.ssh; the second resolved it again */
	cr_assert(denies(first, ssh) && !denies(first, keys));
	cr_assert(denies(second, keys) && !denies(second, ssh));
	cordon_policy_free(first);
	cordon_policy_free(second);
	cordon_profile_free(p);
	unlink(ssh);
	rmdir(keys);
	rmdir(home);
	rmdir(out);
	free(canon_home);
}
