/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The native provider's command line, string for string. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "provider.h"
#include "strv.h"

static const struct cordon_backend_info info = {
	.backend = CORDON_BACKEND_NATIVE,
	.grade = CORDON_GRADE_PARTIAL,
	.path = "/usr/bin/cordon",
};

static char *writable[] = { "/ws", "/tmp", NULL };
static char *no_roots[] = { NULL };
static struct deny_entry deny[] = {
	{ .path = "/home/u/.ssh", .exists = true, .is_dir = true },
	{ .path = "/home/u/.aws", .exists = false },
	{ .path = "/home/u/.netrc", .exists = true, .is_dir = false },
};
static char *protect[] = { "/ws/.git/hooks", "/ws/.cordon*", NULL };
static char *keep[] = { "GH_TOKEN", NULL };
static char *env[16];

static struct cordon_policy policy(enum cordon_mode mode)
{
	return (struct cordon_policy){
		.mode = mode,
		.net = CORDON_NET_NONE,
		.isolation = CORDON_ISOLATION_FULL,
		.workspace = "/ws",
		.home = "/home/u",
		.writable_roots = mode == CORDON_MODE_READ_ONLY ? no_roots : writable,
		.deny = deny,
		.n_deny = 3,
		.protect = protect,
		.env = env,
		.keep_env = keep,
	};
}

static struct cordon_confined *confine(const struct cordon_policy *p, int *ret)
{
	static const char *const argv[] = { "git", "status", NULL };
	struct cordon_confined *c = calloc(1, sizeof(*c));
	struct cordon_error e = {};

	cr_assert_not_null(c);
	*ret = provider_native.confine(&info, argv, p, c, &e);
	return c;
}

static void assert_argv(char **got, const char *const *want)
{
	size_t i = 0;

	for (; want[i]; i++) {
		cr_assert_not_null(got[i], "argv ends early at %zu, want '%s'", i, want[i]);
		cr_assert_str_eq(got[i], want[i], "argv[%zu]", i);
	}
	cr_assert_null(got[i], "argv too long at %zu: '%s'", i, got[i]);
}

/* The environment: one variable that matches ours now (travels by name),
 * one allow-listed that differs (must be set), one set by the policy. */
static void setup_env(void)
{
	setenv("LANG", "C.UTF-8", 1);
	setenv("TZ", "UTC", 1);
	setenv("GH_TOKEN", "ghp_live_value", 1);
	env[0] = "LANG=C.UTF-8";
	env[1] = "TZ=Europe/Paris";
	env[2] = "GH_TOKEN=ghp_live_value";
	env[3] = "CI=1";
	env[4] = NULL;
}

Test(native_confine, workspace_write_full, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	struct cordon_confined *c;
	int r;

	p.required = REQUIRE_LANDLOCK_NET | REQUIRE_PIDNS;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	assert_argv(c->argv, (const char *const[]){
		"/usr/bin/cordon", "exec", "--status-fd", "3", "--isolation", "full", "--net", "none",
		"--write", "/ws", "--write", "/tmp", "--private-tmp",
		"--deny-read", "/home/u/.ssh", "--deny-read", "/home/u/.netrc",
		"--protect", "/ws/.git/hooks", "--protect", "/ws/.cordon*",
		/* the write gate's rules by name, at any depth below /ws */
		"--protect-git",
		"--protect-name", ".gitmodules",
		"--protect-name", ".husky",
		"--protect-name", ".githooks",
		"--protect-name", ".envrc",
		"--protect-name", ".vscode",
		"--protect-name", ".idea",
		"--protect-name", ".devcontainer",
		"--protect-name", ".mcp.json",
		"--protect-name", ".claude",
		"--protect-name", ".codex",
		"--protect-name", ".cursor",
		"--protect-name", ".gemini",
		"--protect-name", ".continue",
		"--protect-name", ".windsurf",
		"--protect-name", ".roo",
		"--protect-name", ".amazonq",
		"--protect-name", ".npmrc",
		"--protect-name", ".yarnrc",
		"--protect-name", ".yarnrc.yml",
		"--protect-name", ".cordon*",
		"--keep-env", "GH_TOKEN",
		"--setenv", "CI",
		"--require", "landlock-net", "--require", "pidns",
		"--", "git", "status", NULL });
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NATIVE);
	cr_assert_eq(c->grade, CORDON_GRADE_PARTIAL, "the grade comes from the backend info");
	/* runner failures come back on fd 3, never from the text */
	cr_assert_eq(c->status_fd, 3);
	cr_assert_eq(c->status_format, CORDON_STATUS_CORDON);
	/* started with exactly the policy's environment: values travel there */
	assert_argv(c->envp, (const char *const[]){ "LANG=C.UTF-8", "TZ=Europe/Paris", "GH_TOKEN=ghp_live_value",
						    "CI=1", NULL });
	assert_argv(c->fatal_signatures, (const char *const[]){ "cordon: ", NULL });
	assert_argv(c->denial_signatures, (const char *const[]){ "permission denied", "operation not permitted",
								"read-only file system",
								"device or resource busy", "cordon-proxy: refused ", NULL });
	/* the runner never falls back, so it has no warning to pass over */
	assert_argv(c->informational_lines, (const char *const[]){ NULL });
	cordon_confined_free(c);
}

/* An allowed unix socket reaches the runner as a flag (full or light: the
 * runner knows where it gates). */
Test(native_confine, allow_unix_socket, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY);
	char *socks[] = { "/var/tmp/build.sock", NULL };
	struct cordon_confined *c;
	bool seen = false;
	int r;

	p.allow_unix = socks;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	for (size_t i = 0; c->argv[i] && c->argv[i + 1]; i++)
		if (strcmp(c->argv[i], "--allow-unix-socket") == 0 && strcmp(c->argv[i + 1], socks[0]) == 0)
			seen = true;
	cr_assert(seen, "no --allow-unix-socket %s in the runner's argv", socks[0]);
	cordon_confined_free(c);
}

Test(native_confine, secrets_travel_by_name, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	struct cordon_confined *c;
	int r;

	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	for (char **a = c->argv; *a; a++) {
		cr_assert_null(strstr(*a, "ghp_live_value"), "a kept value leaked into argv: %s", *a);
		cr_assert_null(strchr(*a, '='), "a NAME=VALUE in argv: %s", *a);
	}
	cr_assert(strv_contains(c->envp, "GH_TOKEN=ghp_live_value"));
	cr_assert(strv_contains(c->envp, "CI=1"));
	cordon_confined_free(c);

	/* changed since the snapshot: the snapshot still travels, in envp */
	setenv("GH_TOKEN", "rotated", 1);
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	for (char **a = c->argv; *a; a++)
		cr_assert_null(strstr(*a, "ghp_live_value"), "a kept value leaked into argv: %s", *a);
	cr_assert(strv_contains(c->envp, "GH_TOKEN=ghp_live_value"));
	cr_assert_not(strv_contains(c->envp, "GH_TOKEN=rotated"));
	cordon_confined_free(c);
}

Test(native_confine, read_only, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY);
	struct cordon_confined *c;
	int r;

	p.net = CORDON_NET_HOST;
	p.env = NULL;
	p.keep_env = NULL;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	/* nothing writable, nothing to protect; /tmp is private all the same */
	assert_argv(c->argv, (const char *const[]){
		"/usr/bin/cordon", "exec", "--status-fd", "3", "--isolation", "full", "--net", "host", "--private-tmp",
		"--deny-read", "/home/u/.ssh", "--deny-read", "/home/u/.netrc",
		"--", "git", "status", NULL });
	cordon_confined_free(c);
}

Test(native_confine, light, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	struct cordon_confined *c;
	int r;

	p.isolation = CORDON_ISOLATION_LIGHT;
	p.env = NULL;
	p.keep_env = NULL;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	/* no mount namespace: no private /tmp, no --protect; hiding by Landlock */
	assert_argv(c->argv, (const char *const[]){
		"/usr/bin/cordon", "exec", "--status-fd", "3", "--isolation", "light", "--net", "none",
		"--write", "/ws", "--write", "/tmp",
		"--deny-read", "/home/u/.ssh", "--deny-read", "/home/u/.netrc",
		"--", "git", "status", NULL });
	cordon_confined_free(c);

	p.required = REQUIRE_NETNS;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);
}

Test(native_confine, refusals, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	struct cordon_confined *c;
	int r;

	p.net = CORDON_NET_HOST;
	p.required = REQUIRE_NETNS;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);

	p = policy(CORDON_MODE_DANGER_FULL_ACCESS);
	c = confine(&p, &r);
	cr_assert_eq(r, -EINVAL);
	cordon_confined_free(c);
}

/* --net proxy: the runner is told the mode and every rule, in order. */
Test(native_confine, net_proxy, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY);
	char *allow[] = { "*.example.com", "api.example.org:443", NULL }, *denyd[] = { "bad.example.com", NULL },
	     *addrs[] = { "10.0.0.0/8", NULL };
	struct cordon_confined *c;
	size_t k = 0;
	int r;

	p.net = CORDON_NET_PROXY;
	p.net_rules[CORDON_NET_ALLOW_DOMAIN] = allow;
	p.net_rules[CORDON_NET_DENY_DOMAIN] = denyd;
	p.net_rules[CORDON_NET_ALLOW_ADDRESS] = addrs;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	while (c->argv[k] && strcmp(c->argv[k], "--net") != 0)
		k++;
	cr_assert_not_null(c->argv[k]);
	{
		static const char *const want[] = { "--net", "proxy", "--allow-domain", "*.example.com",
						    "--allow-domain", "api.example.org:443", "--deny-domain",
						    "bad.example.com", "--allow-address", "10.0.0.0/8" };

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			cr_assert_not_null(c->argv[k + i], "argv ends early at %zu", k + i);
			cr_assert_str_eq(c->argv[k + i], want[i]);
		}
	}
	cordon_confined_free(c);

	/* light isolation has no network namespace of its own: refused */
	p.isolation = CORDON_ISOLATION_LIGHT;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);
}

Test(native_confine, broker_flags_and_fd)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	static char *shims[] = { "git", "gh", NULL };
	struct cordon_confined *c;
	char *joined;
	int r;

	p.shim_path = "/usr/libexec/cordon/cordon-shim";
	p.shims = shims;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	{
		size_t len = 0;
		FILE *m = open_memstream(&joined, &len);

		for (size_t i = 0; c->argv[i]; i++)
			fprintf(m, "%s ", c->argv[i]);
		fclose(m);
	}
	cr_assert(strstr(joined, " --broker-fd 5 --shim-path /usr/libexec/cordon/cordon-shim --shim git --shim gh "),
		  "%s", joined);
	cr_assert_eq(c->broker_fd, 5);
	cr_assert_eq(c->status_fd, 3);
	free(joined);
	cordon_confined_free(c);

	/* no broker: no fd wanted */
	p.shim_path = NULL;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	cr_assert_leq(c->broker_fd, 2);
	cordon_confined_free(c);

	/* light isolation has no /run of its own */
	p.shim_path = "/usr/libexec/cordon/cordon-shim";
	p.isolation = CORDON_ISOLATION_LIGHT;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);
}

/* Restricted reads spell out the whole readable list (the baseline the
 * policy resolved, then /dev as the isolation has it); the gate and
 * deny-exec follow; running from an fd asks for fd 4. Only the read-deny
 * entries something readable reaches are passed. */
Test(native_confine, restricted_reads_gate_deny_exec_and_exec_fd, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE);
	char *reads[] = { "/usr", "/etc", "/proc", "/home/u/.config/gh", NULL };
	char *execs[] = { "/usr/bin/git", "/usr/lib/x86_64-linux-gnu", NULL };
	char *deny_exec[] = { "/usr/bin/gh", NULL };
	struct cordon_confined *c;
	int r;

	p.env = NULL;
	p.keep_env = NULL;
	p.read_restricted = true;
	p.read_roots = reads;
	p.exec_gate = true;
	p.exec_roots = execs;
	p.deny_exec = deny_exec;
	p.exec_from_fd = true;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	assert_argv(c->argv, (const char *const[]){
		"/usr/bin/cordon", "exec", "--status-fd", "3", "--isolation", "full", "--net", "none",
		"--write", "/ws", "--write", "/tmp", "--private-tmp",
		"--read", "/usr", "--read", "/etc", "--read", "/proc", "--read", "/home/u/.config/gh",
		"--read", "/dev",
		"--exec-gate", "--exec", "/usr/bin/git", "--exec", "/usr/lib/x86_64-linux-gnu",
		"--deny-exec", "/usr/bin/gh",
		"--exec-fd", "4",
		/* ~/.ssh and ~/.netrc: nothing readable reaches them */
		"--protect", "/ws/.git/hooks", "--protect", "/ws/.cordon*",
		"--protect-git",
		"--protect-name", ".gitmodules", "--protect-name", ".husky", "--protect-name", ".githooks",
		"--protect-name", ".envrc", "--protect-name", ".vscode", "--protect-name", ".idea",
		"--protect-name", ".devcontainer", "--protect-name", ".mcp.json", "--protect-name", ".claude",
		"--protect-name", ".codex", "--protect-name", ".cursor", "--protect-name", ".gemini",
		"--protect-name", ".continue", "--protect-name", ".windsurf", "--protect-name", ".roo",
		"--protect-name", ".amazonq", "--protect-name", ".npmrc", "--protect-name", ".yarnrc",
		"--protect-name", ".yarnrc.yml", "--protect-name", ".cordon*",
		"--", "git", "status", NULL });
	cr_assert_eq(c->exec_fd, 4);
	cordon_confined_free(c);

	/* a read grant at or above a read-deny entry keeps it passed */
	reads[3] = "/home/u";
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	{
		bool ssh = false;

		for (size_t i = 0; c->argv[i]; i++)
			ssh |= strcmp(c->argv[i], "/home/u/.ssh") == 0 && strcmp(c->argv[i - 1], "--deny-read") == 0;
		cr_assert(ssh, "granting HOME keeps ~/.ssh hidden");
	}
	cordon_confined_free(c);

	/* light isolation: the harmless /dev nodes only; the gate refused */
	p.isolation = CORDON_ISOLATION_LIGHT;
	p.exec_gate = false;
	p.deny_exec = NULL;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	{
		size_t k = 0;

		while (c->argv[k] && strcmp(c->argv[k], "/dev/null") != 0)
			k++;
		cr_assert_not_null(c->argv[k], "/dev/null is readable under light");
		for (size_t i = 0; c->argv[i]; i++)
			cr_assert_str_neq(c->argv[i], "/dev", "the host's whole /dev under light");
	}
	cordon_confined_free(c);
	p.exec_gate = true;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);
	p.exec_gate = false;
	p.deny_exec = deny_exec;
	c = confine(&p, &r);
	cr_assert_eq(r, -EOPNOTSUPP);
	cordon_confined_free(c);
}

/* The gate alone, with nothing granted: --exec-gate and no --exec. */
Test(native_confine, the_gate_with_nothing_granted, .init = setup_env)
{
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY);
	struct cordon_confined *c;
	int r;

	p.env = NULL;
	p.keep_env = NULL;
	p.exec_gate = true;
	c = confine(&p, &r);
	cr_assert_eq(r, 0);
	assert_argv(c->argv, (const char *const[]){
		"/usr/bin/cordon", "exec", "--status-fd", "3", "--isolation", "full", "--net", "none", "--private-tmp",
		"--exec-gate",
		"--deny-read", "/home/u/.ssh", "--deny-read", "/home/u/.netrc",
		"--", "git", "status", NULL });
	cr_assert_eq(c->exec_fd, -1);
	cordon_confined_free(c);
}
