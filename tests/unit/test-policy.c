/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "policy.h"
#include "strv.h"

static char home[] = "/tmp/cordon-home-XXXXXX";
static char ws[] = "/tmp/cordon-ws-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(home));
	cr_assert_not_null(mkdtemp(ws));
	setenv("HOME", home, 1);
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", home, ws);
	(void)!system(cmd);
}

TestSuite(policy, .init = setup, .fini = teardown);

static struct cordon_policy *policy_ok(const char *mode, const char *root)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	enum cordon_mode m;
	int r;

	cr_assert_eq(cordon_mode_from_string(mode, &m), 0, "%s", mode);
	r = cordon_policy_new(m, root, &p, &e);

	cr_assert_eq(r, 0, "policy_new(%s, %s) = %d: %s", mode, root, r, e.message);
	return p;
}

Test(policy, unknown_mode_names_the_valid_ones)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_policy_new((enum cordon_mode)7, ws, &p, &e), -EINVAL);
	cr_assert_null(p);
	cr_assert_str_eq(e.message, "unknown mode 7: valid modes are CORDON_MODE_READ_ONLY, "
				    "CORDON_MODE_WORKSPACE_WRITE, CORDON_MODE_DANGER_FULL_ACCESS");
}

Test(policy, root_that_is_slash_is_refused)
{
	const char *roots[] = { "/", "/..", "/tmp/..", "//" };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct cordon_policy *p = NULL;
		struct cordon_error e = {};

		cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, roots[i], &p, &e), -EINVAL, "%s", roots[i]);
		cr_assert(strstr(e.message, "canonicalises to '/'"), "%s", e.message);
	}
}

Test(policy, writable_roots_by_mode)
{
	struct cordon_policy *ro = policy_ok("read-only", ws);
	struct cordon_policy *rw = policy_ok("workspace-write", ws);
	const char *const *r;
	_cleanup_free_ char *real_ws = realpath(ws, NULL);

	cr_assert_null(cordon_writable_roots(ro)[0]);
	r = cordon_writable_roots(rw);
	cr_assert_str_eq(r[0], real_ws);
	cr_assert_str_eq(r[1], "/tmp");
	cr_assert_null(r[2]);
	cordon_policy_free(ro);
	cordon_policy_free(rw);
}

Test(policy, writable_roots_deduplicated)
{
	/* A workspace that is /tmp itself appears once. */
	struct cordon_policy *p = policy_ok("workspace-write", "/tmp");
	cr_assert_str_eq(cordon_writable_roots(p)[0], "/tmp");
	cr_assert_null(cordon_writable_roots(p)[1]);
	cordon_policy_free(p);
}

Test(policy, default_deny_set_resolved_at_build)
{
	char path[512];
	struct cordon_policy *p;
	_cleanup_free_ char *real_home = realpath(home, NULL);
	bool saw_ssh = false, saw_netrc = false, saw_aws = false;

	snprintf(path, sizeof(path), "%s/.ssh", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.netrc", home);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	p = policy_ok("workspace-write", ws);

	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];
		char expect[600];

		snprintf(expect, sizeof(expect), "%s/.ssh", real_home);
		if (strcmp(d->path, expect) == 0) {
			saw_ssh = true;
			cr_assert(d->exists && d->is_dir);
		}
		snprintf(expect, sizeof(expect), "%s/.netrc", real_home);
		if (strcmp(d->path, expect) == 0) {
			saw_netrc = true;
			cr_assert(d->exists && !d->is_dir);
		}
		snprintf(expect, sizeof(expect), "%s/.aws", real_home);
		if (strcmp(d->path, expect) == 0) {
			saw_aws = true;
			cr_assert_not(d->exists);
		}
	}
	cr_assert(saw_ssh && saw_netrc && saw_aws);
	cordon_policy_free(p);
}

Test(policy, env_allow_list_drops_secrets)
{
	struct cordon_policy *p;

	setenv("AWS_SECRET_ACCESS_KEY", "hunter2", 1);
	setenv("GITHUB_TOKEN", "ghp_x", 1);
	setenv("LC_ALL", "C.UTF-8", 1);
	setenv("PATH", "/usr/bin:/bin", 1);
	p = policy_ok("workspace-write", ws);
	cr_assert(strv_contains(p->env, "LC_ALL=C.UTF-8"));
	cr_assert(strv_contains(p->env, "PATH=/usr/bin:/bin"));
	STRV_FOREACH(e, p->env) {
		cr_assert_null(strstr(*e, "hunter2"), "%s leaked", *e);
		cr_assert_null(strstr(*e, "ghp_x"), "%s leaked", *e);
	}
	cordon_policy_free(p);
}

Test(policy, keep_env_and_set_env)
{
	struct cordon_policy *p;
	struct cordon_error e = {};

	setenv("MY_TOOL_A", "1", 1);
	setenv("MY_TOOL_B", "2", 1);
	p = policy_ok("workspace-write", ws);
	cr_assert_eq(cordon_policy_keep_env(p, "MY_TOOL_*", &e), 0);
	cr_assert(strv_contains(p->env, "MY_TOOL_A=1"));
	cr_assert(strv_contains(p->env, "MY_TOOL_B=2"));
	cr_assert_eq(cordon_policy_set_env(p, "FOO", "bar", &e), 0);
	cr_assert_eq(cordon_policy_set_env(p, "FOO", "baz", &e), 0);
	cr_assert(strv_contains(p->env, "FOO=baz"));
	cr_assert_not(strv_contains(p->env, "FOO=bar"));
	cr_assert_eq(cordon_policy_keep_env(p, "1BAD", &e), -EINVAL);
	cordon_policy_free(p);
}

Test(policy, injection_variables_refused)
{
	const char *names[] = { "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "NODE_OPTIONS",
				"PERL5OPT", "BASH_ENV", "BASH_FUNC_x%%" };
	struct cordon_policy *p = policy_ok("workspace-write", ws);

	for (size_t i = 0; i < 6; i++) {
		struct cordon_error e = {};
		cr_assert_eq(cordon_policy_set_env(p, names[i], "x", &e), -EPERM, "%s", names[i]);
		cr_assert(strstr(e.message, names[i]), "%s", e.message);
		cr_assert_eq(cordon_policy_keep_env(p, names[i], &e), -EPERM, "%s", names[i]);
	}
	/* and a glob never sweeps them in */
	setenv("LD_PRELOAD", "/evil.so", 1);
	cr_assert_eq(cordon_policy_keep_env(p, "LD*", NULL), 0);
	cr_assert_eq(cordon_policy_keep_env(p, "*", NULL), 0);
	STRV_FOREACH(e, p->env)
		cr_assert_null(strstr(*e, "LD_PRELOAD"), "%s", *e);
	unsetenv("LD_PRELOAD");
	cordon_policy_free(p);
}

Test(policy, tmpdir_slash_refused)
{
	/* TMPDIR is memoised by the first policy; this runs in its own
	 * Criterion worker process, so it sees a fresh cache. */
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	setenv("TMPDIR", "/", 1);
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &p, &e), -EINVAL);
	cr_assert(strstr(e.message, "TMPDIR"), "%s", e.message);
}

Test(policy, protect_and_require)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_error e = {};
	_cleanup_free_ char *real_ws = realpath(ws, NULL);
	char expect[600];

	cr_assert_eq(cordon_policy_protect(p, "build/out", &e), 0);
	snprintf(expect, sizeof(expect), "%s/build/out", real_ws);
	cr_assert(strv_contains(p->protect, expect));
	snprintf(expect, sizeof(expect), "%s/.git/hooks", real_ws);
	cr_assert(strv_contains(p->protect, expect), "default protected set missing .git/hooks");
	cr_assert_eq(cordon_policy_require(p, "landlock-net", &e), 0);
	cr_assert(p->required & REQUIRE_LANDLOCK_NET);
	cr_assert_eq(cordon_policy_require(p, "landlock-nett", &e), -EINVAL);
	cr_assert(strstr(e.message, "known features"), "%s", e.message);
	cordon_policy_free(p);
}

Test(policy, allow_unix_socket)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_error e = {};
	_cleanup_free_ char *real_ws = realpath(ws, NULL);
	char path[600], expect[600];

	snprintf(path, sizeof(path), "%s/./run/../build.sock", ws);
	snprintf(expect, sizeof(expect), "%s/build.sock", real_ws);
	cr_assert_eq(cordon_policy_allow_unix_socket(p, path, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->allow_unix, expect), "not canonicalised to %s", expect);
	cr_assert_eq(cordon_policy_allow_unix_socket(p, "build.sock", &e), -EINVAL);
	cr_assert(strstr(e.message, "not absolute"), "%s", e.message);
	cr_assert_eq(cordon_policy_allow_unix_socket(p, "/", &e), -EINVAL);
	cordon_policy_free(p);
}

Test(policy, danger_full_access_needs_no_workspace)
{
	struct cordon_policy *p = NULL;

	cr_assert_eq(cordon_policy_new(CORDON_MODE_DANGER_FULL_ACCESS, NULL, &p, NULL), 0);
	cr_assert_null(cordon_policy_workspace(p));
	cordon_policy_free(p);
}

static const struct deny_entry *find_deny(const struct cordon_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_deny; i++)
		if (strcmp(p->deny[i].path, path) == 0)
			return &p->deny[i];
	return NULL;
}

Test(policy, sockets_that_lead_out_are_hidden)
{
	char runtime[512], agent[512];
	struct cordon_policy *p;
	const struct deny_entry *d;
	_cleanup_free_ char *real_home = realpath(home, NULL);

	snprintf(runtime, sizeof(runtime), "%s/run", real_home);
	snprintf(agent, sizeof(agent), "%s/agent.sock", real_home);
	cr_assert_eq(mkdir(runtime, 0700), 0);
	close(open(agent, O_CREAT | O_WRONLY, 0600));
	setenv("XDG_RUNTIME_DIR", runtime, 1);
	setenv("SSH_AUTH_SOCK", agent, 1);
	p = policy_ok("workspace-write", ws);

	d = find_deny(p, runtime);
	cr_assert(d && d->exists && d->is_dir && !d->only_without_net, "XDG_RUNTIME_DIR not hidden");
	d = find_deny(p, agent);
	cr_assert(d && d->exists && !d->is_dir, "SSH_AUTH_SOCK not hidden");
	d = find_deny(p, "/run/docker.sock");
	cr_assert_not_null(d, "the docker socket is not in the deny set");
	cr_assert_not(d->only_without_net);
	/* /var/run is a symlink to /run on Debian: one entry, canonical */
	cr_assert_null(find_deny(p, "/var/run/docker.sock"));
	d = find_deny(p, "/run/postgresql");
	cr_assert(d && d->only_without_net, "database sockets are hidden only without network");

	/* a service socket is hidden under net none, shown under net host */
	struct deny_entry svc = { .path = (char *)"/run/postgresql", .exists = true, .only_without_net = true };
	cr_assert(deny_entry_applies(p, &svc));
	cordon_policy_set_net(p, CORDON_NET_HOST);
	cr_assert_not(deny_entry_applies(p, &svc));
	cordon_policy_free(p);
}

Test(policy, built_in_deny_never_hides_the_workspace)
{
	char inner[512];
	struct cordon_policy *p;
	_cleanup_free_ char *real_home = realpath(home, NULL);

	/* a workspace inside ~/.docker: the default would hide it */
	snprintf(inner, sizeof(inner), "%s/.docker", real_home);
	cr_assert_eq(mkdir(inner, 0700), 0);
	snprintf(inner, sizeof(inner), "%s/.docker/proj", real_home);
	cr_assert_eq(mkdir(inner, 0700), 0);
	p = policy_ok("workspace-write", inner);
	snprintf(inner, sizeof(inner), "%s/.docker", real_home);
	cr_assert_null(find_deny(p, inner));
	/* but an explicit request is kept as given */
	cr_assert_eq(cordon_policy_deny_read(p, inner, NULL), 0);
	cr_assert_not_null(find_deny(p, inner));
	cordon_policy_free(p);
}

Test(policy, add_writable)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_policy *ro = policy_ok("read-only", ws);
	struct cordon_error e = {};
	char ssh[512];
	_cleanup_free_ char *real_home = realpath(home, NULL);

	cr_assert_eq(cordon_policy_add_writable(p, "/var/tmp/cordon-extra-root", &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->writable_roots, "/var/tmp/cordon-extra-root"));
	cr_assert_eq(cordon_policy_add_writable(p, "/", &e), -EINVAL);
	cr_assert_eq(cordon_policy_add_writable(ro, "/var/tmp", &e), -EINVAL);
	cr_assert(strstr(e.message, "read-only"), "%s", e.message);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", real_home);
	cr_assert_eq(mkdir(ssh, 0700), 0);
	cordon_policy_free(p);
	p = policy_ok("workspace-write", ws);
	cr_assert_eq(cordon_policy_add_writable(p, ssh, &e), -EPERM);
	cr_assert(strstr(e.message, "deny always wins"), "%s", e.message);
	cordon_policy_free(p);
	cordon_policy_free(ro);
}

/* Restricted reads: the baseline once, canonical; grants canonical; a
 * missing one recorded and skipped; a built-in entry at or above a grant
 * lifted, an explicit one refusing it. */
Test(policy, restrict_read)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_error e = {};
	_cleanup_free_ char *real_home = realpath(home, NULL);
	char gh[512], ssh[512], missing[512];
	size_t n_deny;

	snprintf(gh, sizeof(gh), "%s/.config/gh", real_home);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", real_home);
	snprintf(missing, sizeof(missing), "%s/nope", real_home);
	cr_assert_eq(mkdir(ssh, 0700), 0);
	cordon_policy_free(p);
	p = policy_ok("workspace-write", ws);
	cr_assert_not(p->read_restricted);
	cr_assert_eq(cordon_policy_restrict_read(p, missing, &e), 0, "%s", e.message);
	cr_assert(p->read_restricted);
	cr_assert(strv_contains(p->read_roots, "/usr"));
	cr_assert(strv_contains(p->read_roots, "/etc"));
	cr_assert(strv_contains(p->read_roots, "/proc"));
	cr_assert_not(strv_contains(p->read_roots, real_home), "HOME is not in the baseline");
	cr_assert_not(strv_contains(p->read_roots, "/var"), "nor /var");
	cr_assert(strv_contains(p->read_missing, missing));
	for (size_t i = 0; p->read_roots[i]; i++)
		for (size_t j = 0; p->read_roots[j]; j++)
			cr_assert(i == j || !path_is_under(p->read_roots[i], p->read_roots[j]),
				  "%s lies below %s: the baseline is deduplicated", p->read_roots[i], p->read_roots[j]);
	cr_assert_eq(cordon_policy_restrict_read(p, "/usr/bin", &e), 0);
	cr_assert_not(strv_contains(p->read_roots, "/usr/bin"), "inside the baseline: nothing to add");

	/* HOME: nothing below it is lifted */
	n_deny = p->n_deny;
	cr_assert_eq(cordon_policy_restrict_read(p, home, &e), 0, "%s", e.message);
	cr_assert_eq(p->n_deny, n_deny);
	/* the store: its entry is lifted (and only that one) */
	{
		char cfg[512];

		snprintf(cfg, sizeof(cfg), "%s/.config", real_home);
		cr_assert_eq(mkdir(cfg, 0755), 0);
		cr_assert_eq(mkdir(gh, 0755), 0);
	}
	cr_assert_eq(cordon_policy_restrict_read(p, gh, &e), 0, "%s", e.message);
	for (size_t i = 0; i < p->n_deny; i++)
		cr_assert_str_neq(p->deny[i].path, gh, "the store's entry is still there");
	cr_assert_lt(p->n_deny, n_deny);
	/* an explicit deny refuses a grant below it */
	cr_assert_eq(cordon_policy_deny_read(p, ssh, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_restrict_read(p, ssh, &e), -EPERM);
	cr_assert_eq(cordon_policy_restrict_read(p, "/", &e), -EINVAL);
	cordon_policy_free(p);

	p = policy_ok("danger-full-access", NULL);
	cr_assert_eq(cordon_policy_restrict_read(p, "/usr", &e), -EINVAL);
	cr_assert_eq(cordon_policy_allow_exec(p, "/usr", &e), -EINVAL);
	cr_assert_eq(cordon_policy_deny_exec(p, "/usr/bin/git", &e), -EINVAL);
	cr_assert_eq(cordon_policy_exec_from_fd(p, true), -EINVAL);
	cordon_policy_free(p);
}

/* A host path below the private /tmp brought back: only there (strictly
 * below /tmp or /dev/shm), canonical, never below a deny entry; a
 * restricted-read grant there brings it back too. */
Test(policy, read_host)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_error e = {};
	char tmpl[] = "/tmp/cordon-test-readhost-XXXXXX", sub[512], link[512];
	char *d = mkdtemp(tmpl);

	cr_assert_not_null(d);
	snprintf(sub, sizeof(sub), "%s/sub", d);
	snprintf(link, sizeof(link), "%s/link", d);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(symlink("sub", link), 0);
	cr_assert_eq(cordon_policy_read_host(p, "/etc", &e), -EINVAL);
	cr_assert(strstr(e.message, "not below /tmp"), "%s", e.message);
	cr_assert_eq(cordon_policy_read_host(p, "/tmp", &e), -EINVAL, "/tmp itself is the private tmpfs");
	/* a link in a temp root is one a sandbox (or another user) could
	 * have made: never followed, the target must be named (grants.t) */
	cr_assert_eq(cordon_policy_read_host(p, link, &e), -EPERM, "%s", e.message);
	cr_assert(strstr(e.message, "symlink"), "%s", e.message);
	cr_assert_eq(cordon_policy_read_host(p, sub, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->read_host, sub), "canonical");
	cr_assert_eq(cordon_policy_deny_read(p, d, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_read_host(p, sub, &e), -EPERM, "deny wins");
	cordon_policy_free(p);

	p = policy_ok("workspace-write", ws);
	cr_assert_eq(cordon_policy_restrict_read(p, sub, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->read_host, sub), "a read grant below /tmp is the host's path");
	cordon_policy_free(p);
	p = policy_ok("danger-full-access", NULL);
	cr_assert_eq(cordon_policy_read_host(p, sub, &e), -EINVAL);
	cordon_policy_free(p);
	unlink(link);
	rmdir(sub);
	rmdir(d);
}

/* The gate and deny-exec: canonical; missing recorded or walked past. */
Test(policy, allow_and_deny_exec)
{
	struct cordon_policy *p = policy_ok("read-only", ws);
	struct cordon_error e = {};
	_cleanup_free_ char *real_ws = realpath(ws, NULL), *real_home = realpath(home, NULL);
	char later[512], below[512], ssh[512];

	cr_assert_not(p->exec_gate);
	cr_assert_eq(cordon_policy_allow_exec(p, "/bin/sh", &e), 0, "%s", e.message);
	cr_assert(p->exec_gate);
	{
		_cleanup_free_ char *sh = realpath("/bin/sh", NULL);

		cr_assert_str_eq(p->exec_roots[0], sh, "canonical");
	}
	snprintf(later, sizeof(later), "%s/later", real_ws);
	cr_assert_eq(cordon_policy_allow_exec(p, later, &e), 0);
	cr_assert(strv_contains(p->exec_missing, later));
	cr_assert_eq(cordon_policy_allow_exec(p, "/", &e), -EINVAL);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", real_home);
	cr_assert_eq(mkdir(ssh, 0700), 0);
	cordon_policy_free(p);
	p = policy_ok("read-only", ws);
	cr_assert_eq(cordon_policy_allow_exec(p, ssh, &e), -EPERM);

	/* deny-exec: existing as is, missing as its first missing component */
	cr_assert_eq(cordon_policy_deny_exec(p, real_ws, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->deny_exec, real_ws));
	snprintf(below, sizeof(below), "%s/a/b/c", real_ws);
	cr_assert_eq(cordon_policy_deny_exec(p, below, &e), 0, "%s", e.message);
	snprintf(below, sizeof(below), "%s/a", real_ws);
	cr_assert(strv_contains(p->deny_exec, below), "%s", below);
	cordon_policy_free(p);
}

/* The tool policy: workspace-write with nothing writable but /tmp, reads
 * restricted, the gate on; add_writable lifts a store's read-deny. */
Test(policy, new_tool)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	_cleanup_free_ char *real_ws = realpath(ws, NULL), *real_home = realpath(home, NULL);
	char cfg[512], gh[512], hosts[512];
	size_t n_deny;
	int fd;

	snprintf(cfg, sizeof(cfg), "%s/.config", real_home);
	snprintf(gh, sizeof(gh), "%s/.config/gh", real_home);
	snprintf(hosts, sizeof(hosts), "%s/.config/gh/hosts.yml", real_home);
	cr_assert_eq(mkdir(cfg, 0755), 0);
	cr_assert_eq(mkdir(gh, 0755), 0);
	fd = open(hosts, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(cordon_policy_new_tool(ws, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_mode(p), CORDON_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cordon_policy_workspace(p), real_ws);
	cr_assert_str_eq(cordon_writable_roots(p)[0], "/tmp");
	cr_assert_null(cordon_writable_roots(p)[1]);
	cr_assert(p->read_restricted);
	cr_assert(p->exec_gate);
	cr_assert_null(p->exec_roots);
	/* the workspace's persistence paths are known, for when it is added */
	{
		char hooks[512];

		snprintf(hooks, sizeof(hooks), "%s/.git/hooks", real_ws);
		cr_assert(strv_contains(p->protect, hooks));
	}
	n_deny = p->n_deny;
	cr_assert_eq(cordon_policy_add_writable(p, hosts, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->writable_roots, hosts));
	cr_assert_lt(p->n_deny, n_deny, "the store's read-deny is lifted");
	cr_assert_eq(cordon_policy_add_writable(p, ws, &e), 0, "%s", e.message);
	cr_assert(strv_contains(p->writable_roots, real_ws));
	cordon_policy_free(p);
}

/* $TMPDIR elsewhere than /tmp: writable under workspace-write, not in a
 * tool's sandbox, where it names the private /tmp instead. (The temp
 * roots are memoised per process: TMPDIR is set before the first policy.) */
Test(policy, new_tool_tmpdir)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	_cleanup_free_ char *real_home = realpath(home, NULL);

	setenv("TMPDIR", real_home, 1);
	p = policy_ok("workspace-write", ws);
	cr_assert(strv_contains(p->writable_roots, real_home), "control: TMPDIR is writable");
	cordon_policy_free(p);
	cr_assert_eq(cordon_policy_new_tool(ws, &p, &e), 0, "%s", e.message);
	cr_assert_str_eq(cordon_writable_roots(p)[0], "/tmp");
	cr_assert_null(cordon_writable_roots(p)[1], "%s", cordon_writable_roots(p)[1]);
	cr_assert(strv_contains(p->env, "TMPDIR=/tmp"));
	unsetenv("TMPDIR");
	cordon_policy_free(p);
}

/* CORDON_NET_MAX_RULES is the cap the policy keeps (the CLI refuses a
 * flag given more often with the same number). */
Test(policy, net_rules_capped_at_the_public_maximum)
{
	struct cordon_policy *p = policy_ok("workspace-write", ws);
	struct cordon_error e = {};
	char rule[64];

	for (int i = 0; i < CORDON_NET_MAX_RULES; i++) {
		snprintf(rule, sizeof(rule), "h%d.example.com", i);
		cr_assert_eq(cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, rule, &e), 0, "%s: %s", rule,
			     e.message);
	}
	cr_expect_eq(cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, "one-more.example.com", &e), -E2BIG);
	cr_expect_not_null(strstr(e.message, "more than 4096"), "%s", e.message);
	/* the cap is per kind */
	cr_expect_eq(cordon_policy_add_net_rule(p, CORDON_NET_DENY_DOMAIN, "one-more.example.com", &e), 0);
	cordon_policy_free(p);
}

/* The setters for canonical paths (what profile_apply uses, the loader
 * having canonicalised each rule once) refuse what the public setters
 * refuse, with the same words, and add the same entries. */
Test(policy, canonical_setters_match_the_public_ones)
{
	struct cordon_policy *a = policy_ok("workspace-write", ws), *b = policy_ok("workspace-write", ws);
	struct cordon_policy *ro = policy_ok("read-only", ws);
	struct cordon_error ea = {}, eb = {};
	char sub[300];

	snprintf(sub, sizeof(sub), "%s/sub", ws);
	cr_assert_eq(mkdir(sub, 0700), 0);

	cr_expect_eq(cordon_policy_protect(a, "/", &ea), policy_protect_canonical(b, "/", &eb));
	cr_expect_str_eq(ea.message, eb.message);
	cr_expect_eq(cordon_policy_add_writable(a, "/", &ea), policy_add_writable_canonical(b, "/", &eb));
	cr_expect_str_eq(ea.message, eb.message);
	cr_expect_eq(cordon_policy_add_writable(a, "/dev/null", &ea), policy_add_writable_canonical(b, "/dev/null", &eb));
	cr_expect_str_eq(ea.message, eb.message);
	cr_expect_eq(cordon_policy_add_writable(ro, sub, &ea), -EINVAL);
	cr_expect_eq(policy_add_writable_canonical(ro, sub, &eb), -EINVAL);
	cr_expect_str_eq(ea.message, eb.message);
	cr_expect_eq(cordon_policy_allow_unix_socket(a, "/", &ea), policy_allow_unix_socket_canonical(b, "/", &eb));
	cr_expect_str_eq(ea.message, eb.message);
	cr_expect_eq(cordon_policy_deny_read(a, "/", &ea), policy_deny_add_canonical(b, "/", &eb));
	cr_expect_str_eq(ea.message, eb.message);

	cr_assert_eq(cordon_policy_add_writable(a, sub, NULL), 0);
	cr_assert_eq(policy_add_writable_canonical(b, sub, NULL), 0);
	cr_assert_eq(cordon_policy_protect(a, sub, NULL), 0);
	cr_assert_eq(policy_protect_canonical(b, sub, NULL), 0);
	cr_assert_eq(cordon_policy_deny_read(a, "/nonexistent/cordon-x", NULL), 0);
	cr_assert_eq(policy_deny_add_canonical(b, "/nonexistent/cordon-x", NULL), 0);
	cr_assert_eq(cordon_policy_allow_unix_socket(a, "/run/cordon-x.sock", NULL), 0);
	cr_assert_eq(policy_allow_unix_socket_canonical(b, "/run/cordon-x.sock", NULL), 0);
	for (size_t i = 0; a->writable_roots[i] || b->writable_roots[i]; i++)
		cr_expect_str_eq(a->writable_roots[i], b->writable_roots[i]);
	for (size_t i = 0; a->protect[i] || b->protect[i]; i++)
		cr_expect_str_eq(a->protect[i], b->protect[i]);
	cr_assert_eq(a->n_deny, b->n_deny);
	for (size_t i = 0; i < a->n_deny; i++) {
		cr_expect_str_eq(a->deny[i].path, b->deny[i].path);
		cr_expect_eq(a->deny[i].explicit_deny, b->deny[i].explicit_deny);
		cr_expect_eq(a->deny[i].exists, b->deny[i].exists);
	}
	cr_expect(strv_contains(b->allow_unix, "/run/cordon-x.sock"));
	cordon_policy_free(a);
	cordon_policy_free(b);
	cordon_policy_free(ro);
}

/* The catalogue is resolved by listing a directory many of its names are
 * asked of (HOME, ~/.config) and by one lstat a name elsewhere (~/.m2,
 * ~/.cargo); either way every entry below HOME must say what is there:
 * exists and is_dir as stat says, and for a missing one, absent_at the
 * first missing component of its canonical path. A directory on the way
 * that is a symlink (~/.m2 here) is resolved to its target. */
Test(policy, catalogue_by_listing_and_by_lstat_agree)
{
	_cleanup_free_ char *real_home = NULL, *m2 = NULL;
	char path[700], target[300];
	struct cordon_policy *p;
	bool saw_m2 = false, saw_cargo = false, saw_gh = false;

	snprintf(path, sizeof(path), "%s/.config", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.config/gh", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.cargo", home);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.cargo/credentials.toml", home);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	/* not in the workspace: a built-in entry never hides that */
	snprintf(target, sizeof(target), "%s/data", home);
	cr_assert_eq(mkdir(target, 0700), 0);
	snprintf(target, sizeof(target), "%s/data/m2-real", home);
	cr_assert_eq(mkdir(target, 0700), 0);
	snprintf(path, sizeof(path), "%s/settings.xml", target);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/.m2", home);
	cr_assert_eq(symlink(target, path), 0);
	real_home = realpath(home, NULL);
	m2 = realpath(target, NULL);
	cr_assert(real_home && m2);

	p = policy_ok("read-only", ws);
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];
		struct stat st;
		bool in_home = strncmp(d->path, real_home, strlen(real_home)) == 0, in_m2 = strncmp(d->path, m2, strlen(m2)) == 0;

		if (!in_home && !in_m2)
			continue;
		if (d->exists) {
			cr_assert_eq(stat(d->path, &st), 0, "%s said to exist", d->path);
			cr_assert_eq(d->is_dir, S_ISDIR(st.st_mode), "%s", d->path);
		} else {
			size_t n;

			cr_assert_neq(lstat(d->path, &st), 0, "%s said to be missing", d->path);
			cr_assert_not_null(d->absent_at, "%s", d->path);
			n = strlen(d->absent_at);
			cr_assert(strncmp(d->path, d->absent_at, n) == 0 && (d->path[n] == '/' || !d->path[n]), "%s at %s",
				  d->path, d->absent_at);
			cr_assert_neq(lstat(d->absent_at, &st), 0, "%s", d->absent_at);
			snprintf(path, sizeof(path), "%.*s", (int)(strrchr(d->absent_at, '/') - d->absent_at), d->absent_at);
			cr_assert_eq(stat(path, &st), 0, "%s", path);
			cr_assert(S_ISDIR(st.st_mode), "%s", path);
		}
		snprintf(path, sizeof(path), "%s/settings.xml", m2);
		saw_m2 |= strcmp(d->path, path) == 0 && d->exists && !d->is_dir;
		snprintf(path, sizeof(path), "%s/.cargo/credentials.toml", real_home);
		saw_cargo |= strcmp(d->path, path) == 0 && d->exists && !d->is_dir;
		snprintf(path, sizeof(path), "%s/.config/gh", real_home);
		saw_gh |= strcmp(d->path, path) == 0 && d->exists && d->is_dir;
	}
	cr_assert(saw_m2 && saw_cargo && saw_gh, "m2 %d cargo %d gh %d", saw_m2, saw_cargo, saw_gh);
	cordon_policy_free(p);
}

/* A directory the list asks many names of (as the sockets' list asks of
 * /run) is listed once, on its first name: what each entry resolves to is
 * what it resolves to alone, with a name there, one not there, a
 * directory, a symlink in it, and a path below an entry. */
Test(policy, paths_resolve_listed_dir_same_as_one_by_one)
{
	char tmpl[] = "/tmp/cordon-busy-XXXXXX", *d = mkdtemp(tmpl), buf[64][512];
	const char *paths[64], *names[] = { "a.sock", "b", "c.sock", "d", "e.sock", "f", "g.sock", "h",
					     "i.sock", "j", "sub/private", "ln/x", "missing/y" };
	struct policy_secret_set all, one;
	size_t n = 0;
	int fd;

	cr_assert_not_null(d);
	snprintf(buf[0], sizeof(buf[0]), "%s/sub", d);
	cr_assert_eq(mkdir(buf[0], 0755), 0);
	snprintf(buf[0], sizeof(buf[0]), "%s/d", d);
	cr_assert_eq(mkdir(buf[0], 0755), 0);
	snprintf(buf[0], sizeof(buf[0]), "%s/ln", d);
	cr_assert_eq(symlink("sub", buf[0]), 0);
	for (const char *const *c = (const char *const[]){ "a.sock", "e.sock", "sub/private", "sub/x", NULL }; *c; c++) {
		snprintf(buf[0], sizeof(buf[0]), "%s/%s", d, *c);
		fd = open(buf[0], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		cr_assert_geq(fd, 0);
		close(fd);
	}
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(buf[n], sizeof(buf[n]), "%s/%s", d, names[i]);
		paths[n] = buf[n];
		n++;
	}
	paths[n] = NULL;
	cr_assert_eq(policy_paths_resolve(paths, &all), 0);
	cr_assert_eq(all.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct policy_secret_state *a = &all.v[i], *o;

		cr_assert_eq(policy_paths_resolve((const char *const[]){ paths[i], NULL }, &one), 0);
		o = &one.v[0];
		cr_assert_eq(a->err, o->err, "%s", paths[i]);
		cr_assert_eq(!a->canon, !o->canon, "%s", paths[i]);
		if (a->canon)
			cr_assert_str_eq(a->canon, o->canon, "%s", paths[i]);
		if (a->known && o->known)
			cr_assert(a->exists == o->exists && a->is_dir == o->is_dir, "%s", paths[i]);
		policy_secret_set_done(&one);
	}
	/* and what is there says so */
	cr_assert(all.v[0].known && all.v[0].exists && !all.v[0].is_dir, "a.sock");
	cr_assert(all.v[1].known && !all.v[1].exists, "b");
	cr_assert(all.v[3].known && all.v[3].exists && all.v[3].is_dir, "d");
	snprintf(buf[0], sizeof(buf[0]), "%s/sub/x", d);
	cr_assert_str_eq(all.v[11].canon, buf[0], "ln/x resolves through the link");
	policy_secret_set_done(&all);
	for (const char *const *c = (const char *const[]){ "a.sock", "e.sock", "sub/private", "sub/x", "ln", NULL }; *c; c++) {
		snprintf(buf[0], sizeof(buf[0]), "%s/%s", d, *c);
		unlink(buf[0]);
	}
	snprintf(buf[0], sizeof(buf[0]), "%s/sub", d);
	rmdir(buf[0]);
	snprintf(buf[0], sizeof(buf[0]), "%s/d", d);
	rmdir(buf[0]);
	rmdir(d);
}
