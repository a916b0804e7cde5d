/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bwrap provider's argv is exact by what the host lacks: reviewed here
 * string by string. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "policy.h"
#include "provider.h"
#include "strv.h"

static char home[] = "/tmp/cordon-bwhome-XXXXXX";
static char ws[] = "/tmp/cordon-bwws-XXXXXX";

static void setup(void)
{
	char p[512];
	FILE *f;

	cr_assert_not_null(mkdtemp(home));
	cr_assert_not_null(mkdtemp(ws));
	snprintf(p, sizeof(p), "%s/.ssh", home);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/.netrc", home);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fclose(f);
	/* A fixed, small environment so the argv is predictable. */
	clearenv();
	setenv("HOME", home, 1);
	setenv("PATH", "/usr/bin:/bin", 1);
}

/* ws/NAME holding CONTENT (NULL: empty) */
static void ws_file(const char *name, const char *content)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ws, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	if (content)
		fputs(content, f);
	fclose(f);
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", home, ws);
	(void)!system(cmd);
}

TestSuite(bwrap, .init = setup, .fini = teardown);

static char *joined(char **v)
{
	size_t n = 1;
	char *s, *o;

	STRV_FOREACH(a, v)
		n += strlen(*a) + 1;
	s = o = malloc(n);
	STRV_FOREACH(a, v)
		o += sprintf(o, "%s%s", o == s ? "" : " ", *a);
	*o = '\0';
	return s;
}

#define RUNNER "/opt/cordon/bin/cordon"

/* A policy as the tests want it: only the deny entries under our HOME
 * (which system sockets exist depends on the machine; test-policy checks
 * that set). */
static struct cordon_policy *policy(const char *mode, enum cordon_net net, bool root)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	size_t kept = 0;

	enum cordon_mode m;

	cr_assert_eq(cordon_mode_from_string(mode, &m), 0, "%s", mode);
	cr_assert_eq(cordon_policy_new(m, ws, &p, &e), 0, "%s", e.message);
	cordon_policy_set_net(p, net);
	p->caller_is_root = root;
	/* the dropped entries' strings stay in p->deny_strs until the free */
	for (size_t i = 0; i < p->n_deny; i++)
		if (strncmp(p->deny[i].path, "/tmp/", 5) == 0)
			p->deny[kept++] = p->deny[i];
	p->n_deny = kept;
	return p;
}

static char *confine_policy(struct cordon_policy *p, unsigned lacks)
{
	/* The info claims grade full: confine must say partial anyway. */
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL, .lacks = lacks };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "touch", "x", NULL };
	char *s;

	snprintf(b.path, sizeof(b.path), "/usr/bin/bwrap");
	cordon_set_runner_path(RUNNER);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "%s", e.message);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_BWRAP);
	cr_assert_eq(c->grade, CORDON_GRADE_PARTIAL);
	s = joined(c->argv);
	cordon_confined_free(c);
	return s;
}

static char *confine_str(const char *mode, enum cordon_net net, unsigned lacks, bool root)
{
	struct cordon_policy *p = policy(mode, net, root);
	char *s = confine_policy(p, lacks);

	cordon_policy_free(p);
	return s;
}

static void expect(const char *got, const char *fmt)
{
	_cleanup_free_ char *rh = realpath(home, NULL), *rw = realpath(ws, NULL);
	char want[8192];

	/* fmt has %1$s for the workspace and %2$s for home */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(want, sizeof(want), fmt, rw, rh);
#pragma GCC diagnostic pop
	cr_assert_str_eq(got, want);
}

#define BASE "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent --new-session"
#define TMP " --size 1073741824 --tmpfs /tmp --size 1048576 --tmpfs /run"
/* The environment is bwrap's own (c->envp), never in its argv. */
#define ENV " --json-status-fd 3"
#define DENY " --perms 0000 --tmpfs %2$s/.ssh --remount-ro %2$s/.ssh --ro-bind /dev/null %2$s/.netrc"
/* The default protected set, sorted, .git pinned before what is below it;
 * .cordon* (a prefix pattern) matches nothing in the empty workspace.
 * PROTECT_HEAD and PROTECT_TAIL are split where ".cordon" would sort. */
#define PROTECT_HEAD \
	" --ro-bind-try %1$s/.amazonq %1$s/.amazonq --ro-bind-try %1$s/.claude %1$s/.claude" \
	" --ro-bind-try %1$s/.codex %1$s/.codex --ro-bind-try %1$s/.continue %1$s/.continue"
#define PROTECT_TAIL \
	" --ro-bind-try %1$s/.cursor %1$s/.cursor" \
	" --ro-bind-try %1$s/.devcontainer %1$s/.devcontainer --ro-bind-try %1$s/.envrc %1$s/.envrc" \
	" --ro-bind-try %1$s/.gemini %1$s/.gemini --bind-try %1$s/.git %1$s/.git" \
	" --ro-bind-try %1$s/.git/commondir %1$s/.git/commondir" \
	" --ro-bind-try %1$s/.git/config %1$s/.git/config" \
	" --ro-bind-try %1$s/.git/config.worktree %1$s/.git/config.worktree" \
	" --ro-bind-try %1$s/.git/hooks %1$s/.git/hooks --ro-bind-try %1$s/.githooks %1$s/.githooks" \
	" --ro-bind-try %1$s/.gitmodules %1$s/.gitmodules --ro-bind-try %1$s/.husky %1$s/.husky" \
	" --ro-bind-try %1$s/.idea %1$s/.idea --ro-bind-try %1$s/.mcp.json %1$s/.mcp.json" \
	" --ro-bind-try %1$s/.npmrc %1$s/.npmrc --ro-bind-try %1$s/.roo %1$s/.roo" \
	" --ro-bind-try %1$s/.vscode %1$s/.vscode --ro-bind-try %1$s/.windsurf %1$s/.windsurf" \
	" --ro-bind-try %1$s/.yarnrc %1$s/.yarnrc --ro-bind-try %1$s/.yarnrc.yml %1$s/.yarnrc.yml"
#define PROTECT PROTECT_HEAD PROTECT_TAIL
/* The same where .git is a file: read-only itself, nothing bound below it. */
#define PROTECT_GITFILE PROTECT_HEAD \
	" --ro-bind-try %1$s/.cursor %1$s/.cursor" \
	" --ro-bind-try %1$s/.devcontainer %1$s/.devcontainer --ro-bind-try %1$s/.envrc %1$s/.envrc" \
	" --ro-bind-try %1$s/.gemini %1$s/.gemini --ro-bind-try %1$s/.git %1$s/.git" \
	" --ro-bind-try %1$s/.githooks %1$s/.githooks" \
	" --ro-bind-try %1$s/.gitmodules %1$s/.gitmodules --ro-bind-try %1$s/.husky %1$s/.husky" \
	" --ro-bind-try %1$s/.idea %1$s/.idea --ro-bind-try %1$s/.mcp.json %1$s/.mcp.json" \
	" --ro-bind-try %1$s/.npmrc %1$s/.npmrc --ro-bind-try %1$s/.roo %1$s/.roo" \
	" --ro-bind-try %1$s/.vscode %1$s/.vscode --ro-bind-try %1$s/.windsurf %1$s/.windsurf" \
	" --ro-bind-try %1$s/.yarnrc %1$s/.yarnrc --ro-bind-try %1$s/.yarnrc.yml %1$s/.yarnrc.yml"
#define NESTED_WS " -- " RUNNER " exec --status-fd 4 --isolation light --net none --write %1$s --write /tmp --write /dev/shm --"

Test(bwrap, workspace_write_net_none_nests_the_runner_and_protects)
{
	_cleanup_free_ char *s = confine_str("workspace-write", CORDON_NET_NONE, 0, false);
	expect(s, BASE TMP " --unshare-net --bind %1$s %1$s" PROTECT DENY ENV NESTED_WS " touch x");
}

Test(bwrap, read_only_net_host_still_gets_private_tmp_and_run)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_HOST, 0, false);
	/* the workspace is below /tmp here: bound back, read-only */
	expect(s, BASE TMP " --ro-bind-try %1$s %1$s" DENY ENV " -- " RUNNER " exec --status-fd 4 --isolation light --net host -- touch x");
}

Test(bwrap, lacking_namespaces_drops_dev_proc_and_pidns_together)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_NONE, CORDON_LACKS_NAMESPACES, false);
	expect(s, "/usr/bin/bwrap --ro-bind / / --die-with-parent --new-session" TMP " --unshare-net --ro-bind-try %1$s %1$s" DENY ENV
		  " -- " RUNNER " exec --status-fd 4 --isolation light --net none -- touch x");
}

Test(bwrap, lacking_the_runner_runs_bwrap_alone)
{
	_cleanup_free_ char *s = confine_str("workspace-write", CORDON_NET_NONE, CORDON_LACKS_RUNNER, false);
	expect(s, BASE TMP " --unshare-net --bind %1$s %1$s" PROTECT DENY ENV " -- touch x");
}

Test(bwrap, root_caller_gets_user_namespace_and_no_caps)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_NONE, 0, true);
	expect(s, BASE " --unshare-user --cap-drop ALL" TMP " --unshare-net --ro-bind-try %1$s %1$s" DENY ENV
		  " -- " RUNNER " exec --status-fd 4 --isolation light --net none -- touch x");
}

/* Every ancestor below the workspace is pinned, shallow first; nothing is
 * bound below a read-only bind; a path outside the writable roots is
 * read-only already; one in the private /tmp is not the host's. */
Test(bwrap, pins_ancestors_and_skips_what_needs_no_bind)
{
	struct cordon_policy *p = policy("workspace-write", CORDON_NET_NONE, false);
	_cleanup_free_ char *s = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_policy_protect(p, "a/b/c", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_protect(p, "x/y/z", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_protect(p, "x", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_protect(p, "x-y", &e), 0, "%s", e.message); /* sorts between x and x/y */
	cr_assert_eq(cordon_policy_protect(p, "/etc/passwd", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_protect(p, "/tmp/cordon-not-the-hosts/hooks", &e), 0, "%s", e.message);
	s = confine_policy(p, 0);
	expect(s, BASE TMP " --unshare-net --bind %1$s %1$s" PROTECT
		  " --bind-try %1$s/a %1$s/a --bind-try %1$s/a/b %1$s/a/b --ro-bind-try %1$s/a/b/c %1$s/a/b/c"
		  " --ro-bind-try %1$s/x %1$s/x --ro-bind-try %1$s/x-y %1$s/x-y" DENY ENV NESTED_WS " touch x");
	cordon_policy_free(p);
}

/* A worktree's .git is a file naming the git directory: kept read-only
 * itself (its content chooses the hooks git runs), nothing bound below it
 * (bwrap would stop on ENOTDIR). */
Test(bwrap, git_file_is_protected_and_nothing_bound_below_it)
{
	struct cordon_policy *p;
	_cleanup_free_ char *s = NULL;

	ws_file(".git", "gitdir: /elsewhere/.git/worktrees/x\n");
	p = policy("workspace-write", CORDON_NET_NONE, false);
	s = confine_policy(p, 0);
	expect(s, BASE TMP " --unshare-net --bind %1$s %1$s" PROTECT_GITFILE DENY ENV NESTED_WS " touch x");
	cordon_policy_free(p);
}

/* A symlinked persistence path cannot be kept by a bind (it follows the
 * link; the link itself could be replaced): refused, never half-protected. */
Test(bwrap, symlinked_protected_path_refused)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	char link[512];
	struct cordon_policy *p;

	snprintf(link, sizeof(link), "%s/.envrc", ws);
	cr_assert_eq(symlink("real-envrc", link), 0);
	p = policy("workspace-write", CORDON_NET_NONE, false);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, ".envrc read-only: it is a symlink"), "%s", e.message);
	cr_assert_null(c);
	cordon_policy_free(p);

	/* read-only mode binds nothing there: it runs */
	p = policy("read-only", CORDON_NET_NONE, false);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "%s", e.message);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* A prefix pattern covers the entries that exist when the policy is built. */
Test(bwrap, prefix_pattern_covers_existing_entries)
{
	char path[512];
	struct cordon_policy *p;
	_cleanup_free_ char *s = NULL;

	ws_file(".cordon.json", NULL);
	snprintf(path, sizeof(path), "%s/.cordon", ws);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/not-cordon", ws);
	cr_assert_eq(mkdir(path, 0755), 0);
	p = policy("workspace-write", CORDON_NET_NONE, false);
	s = confine_policy(p, 0);
	expect(s, BASE TMP " --unshare-net --bind %1$s %1$s" PROTECT_HEAD
		  " --ro-bind-try %1$s/.cordon %1$s/.cordon --ro-bind-try %1$s/.cordon.json %1$s/.cordon.json"
		  PROTECT_TAIL DENY ENV NESTED_WS " touch x");
	cordon_policy_free(p);
}

/* Names the policy passes besides the built-in allow-list travel to the
 * runner by name (--keep-env), never by value. */
Test(bwrap, runner_keeps_the_policys_variables_by_name)
{
	struct cordon_policy *p = policy("read-only", CORDON_NET_NONE, false);
	_cleanup_free_ char *s = NULL;

	cr_assert_eq(cordon_policy_set_env(p, "CORDON_TEST_VAR", "v1", NULL), 0);
	setenv("MYAPP_TOKEN", "t1", 1);
	cr_assert_eq(cordon_policy_keep_env(p, "MYAPP_*", NULL), 0);
	s = confine_policy(p, 0);
	cr_assert(strstr(s, " -- " RUNNER " exec --status-fd 4 --isolation light --net none --keep-env MYAPP_* --keep-env CORDON_TEST_VAR -- touch x"), "%s", s);
	cr_assert_null(strstr(strstr(s, RUNNER), "v1"), "a value in the runner's argv: %s", s);
	cordon_policy_free(p);
	unsetenv("MYAPP_TOKEN");
}

/* Required Landlock and seccomp go to the nested runner, which refuses
 * without them; bwrap gives the namespaces itself. */
Test(bwrap, requirements_travel_to_the_runner)
{
	struct cordon_policy *p = policy("read-only", CORDON_NET_NONE, false);
	_cleanup_free_ char *s = NULL;

	cr_assert_eq(cordon_policy_require(p, "seccomp", NULL), 0);
	cr_assert_eq(cordon_policy_require(p, "landlock-net", NULL), 0);
	cr_assert_eq(cordon_policy_require(p, "pidns", NULL), 0);
	s = confine_policy(p, 0);
	cr_assert(strstr(s, " exec --status-fd 4 --isolation light --net none --require landlock-net --require seccomp -- touch x"),
		  "%s", s);
	cordon_policy_free(p);
}

Test(bwrap, requirements_refused_when_missing)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .lacks = CORDON_LACKS_RUNNER };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	static const char *const runner_features[] = { "landlock", "landlock-net", "landlock-scope", "seccomp" };

	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, ws, &p, NULL), 0);
		cr_assert_eq(cordon_policy_require(p, runner_features[i], NULL), 0);
		cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP, "%s", runner_features[i]);
		cr_assert(strstr(e.message, "Landlock and seccomp"), "%s", e.message);
		cr_assert_null(c);
		/* the same policy with the runner nesting is accepted */
		b.lacks = 0;
		cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "%s", e.message);
		c = cordon_confined_free(c);
		b.lacks = CORDON_LACKS_RUNNER;
		p = cordon_policy_free(p);
	}

	b.lacks = CORDON_LACKS_NAMESPACES;
	cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, ws, &p, NULL), 0);
	cr_assert_eq(cordon_policy_require(p, "pidns", NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, "pid namespace"), "%s", e.message);
	cordon_policy_free(p);
}

Test(bwrap, gaps_are_named)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP };
	char buf[512];

	cr_assert_gt(cordon_backend_gaps(&b, buf, sizeof(buf)), 0);
	cr_assert(strstr(buf, "host unix sockets outside /run are reachable"), "%s", buf);
	cr_assert(strstr(buf, "persistence paths that do not exist yet"), "%s", buf);
	cr_assert_null(strstr(buf, "seccomp"), "%s", buf);
	cr_assert_null(strstr(buf, "pid namespace"), "%s", buf);

	b.lacks = CORDON_LACKS_RUNNER | CORDON_LACKS_NAMESPACES;
	(void)cordon_backend_gaps(&b, buf, sizeof(buf));
	cr_assert(strstr(buf, "no Landlock and no seccomp"), "%s", buf);
	cr_assert(strstr(buf, "no fresh /dev, /proc or pid namespace"), "%s", buf);

	/* the native runner's reasons come from its probe */
	b.backend = CORDON_BACKEND_NATIVE;
	cr_assert_eq(cordon_backend_gaps(&b, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
}

Test(bwrap, signatures)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, ws, &p, NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, NULL), 0);
	cr_assert_str_eq(c->fatal_signatures[0], "bwrap: ");
	cr_assert_str_eq(c->fatal_signatures[1], "cordon: "); /* the nested runner's own failures */
	cr_assert_null(c->fatal_signatures[2]);
	cr_assert_str_eq(c->denial_signatures[0], "read-only file system");
	cr_assert_str_eq(c->denial_signatures[1], "permission denied");
	cr_assert_str_eq(c->denial_signatures[2], "operation not permitted");
	cr_assert_str_eq(c->denial_signatures[3], "device or resource busy"); /* a pinned mount point */
	cr_assert_null(c->denial_signatures[4]);
	cordon_confined_free(c);

	/* bwrap alone: no runner lines to expect */
	b.lacks = CORDON_LACKS_RUNNER;
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, NULL), 0);
	cr_assert_str_eq(c->fatal_signatures[0], "bwrap: ");
	cr_assert_null(c->fatal_signatures[1]);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* bwrap is started with exactly the filtered environment, values and all,
 * and none of it is in its command line; its status records come on fd 3. */
Test(bwrap, environment_travels_as_envp)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const char *argv[] = { "true", NULL };
	_cleanup_free_ char *home_entry = NULL;

	setenv("GH_TOKEN", "ghp_secret_value", 1);
	setenv("UNLISTED", "not-passed", 1);
	cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, ws, &p, NULL), 0);
	cr_assert_eq(cordon_policy_keep_env(p, "GH_TOKEN", NULL), 0);
	cr_assert_eq(cordon_policy_set_env(p, "API_KEY", "sk-set-value", NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, NULL), 0);
	cr_assert_eq(asprintf(&home_entry, "HOME=%s", home) > 0, 1);

	STRV_FOREACH(a, c->argv) {
		cr_assert_null(strstr(*a, "ghp_secret_value"), "kept value in argv: %s", *a);
		cr_assert_null(strstr(*a, "sk-set-value"), "set value in argv: %s", *a);
		cr_assert_str_neq(*a, "--setenv");
		cr_assert_str_neq(*a, "--clearenv");
	}
	cr_assert_not_null(c->envp);
	cr_assert_eq(strv_length(c->envp), 6, "PATH, HOME, GH_TOKEN, API_KEY, CORDON_SANDBOX(_MODE): %zu",
		     strv_length(c->envp));
	cr_assert(strv_contains(c->envp, "CORDON_SANDBOX=1"));
	cr_assert(strv_contains(c->envp, "PATH=/usr/bin:/bin"));
	cr_assert(strv_contains(c->envp, home_entry));
	cr_assert(strv_contains(c->envp, "GH_TOKEN=ghp_secret_value"));
	cr_assert(strv_contains(c->envp, "API_KEY=sk-set-value"));
	cr_assert_eq(c->status_fd, 3);
	/* the runner nests: its records come one fd up, into the same pipe */
	cr_assert_eq(c->status_format, CORDON_STATUS_BWRAP_NESTED);
	cordon_confined_free(c);
	cordon_policy_free(p);
	unsetenv("GH_TOKEN");
	unsetenv("UNLISTED");
}

Test(bwrap, light_isolation_is_the_native_runners)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL, .pinned = true };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, ws, &p, NULL), 0);
	cordon_policy_set_isolation(p, CORDON_ISOLATION_LIGHT);
	/* pinned: bwrap has no light mode */
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EINVAL);
	/* picked by the probe for full isolation: light is the native runner's, graded partial */
	b.pinned = false;
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "%s", e.message);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NATIVE);
	cr_assert_eq(c->grade, CORDON_GRADE_PARTIAL);
	cordon_confined_free(c);
	c = NULL;
	cr_assert_null(c);
	cordon_policy_free(p);
}

/* bwrap has no Landlock of its own and its nested runner is light: each of
 * the tool sandbox's mechanisms is refused, and named; the same policy
 * without it is accepted (the control). */
Test(bwrap, tool_sandbox_mechanisms_are_refused)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .path = "/usr/bin/bwrap" };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	static const char *const names[] = { "restricted reads", "the execute-only gate", "deny-exec",
					     "running the command from an fd" };

	for (int i = 0; i < 4; i++) {
		struct cordon_policy *p = NULL;

		cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &p, NULL), 0);
		cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "control: %s", e.message);
		c = cordon_confined_free(c);
		switch (i) {
		case 0: cr_assert_eq(cordon_policy_restrict_read(p, "/usr", &e), 0, "%s", e.message); break;
		case 1: cr_assert_eq(cordon_policy_allow_exec(p, "/usr", &e), 0, "%s", e.message); break;
		case 2: cr_assert_eq(cordon_policy_deny_exec(p, "/usr/bin", &e), 0, "%s", e.message); break;
		default: cr_assert_eq(cordon_policy_exec_from_fd(p, true), 0); break;
		}
		cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP, "%s", names[i]);
		cr_assert(strstr(e.message, names[i]), "%s", e.message);
		cr_assert(strstr(e.message, "needs the native runner"), "%s", e.message);
		cr_assert_null(c);
		cordon_policy_free(p);
	}
}

/* A launch for the native runner skips what only bwrap needs to know of
 * the protected paths (the runner looks itself, at run time); a launch for
 * bwrap takes it, so bwrap keeps refusing a symlinked persistence path and
 * keeps a worktree's .git file read-only. The native launch's policy is
 * refused by bwrap rather than run with those notes missing. */
static struct cordon_launch *launch_for(enum cordon_backend backend)
{
	struct cordon_launch_opts o = { .backend_set = true, .backend = backend, .workspace = ws };
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_launch_new(NULL, &o, &l, &e), 0, "%s", e.message);
	return l;
}

Test(bwrap, native_launch_skips_the_notes_bwrap_launch_takes_them)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };
	const struct cordon_policy *p;
	struct cordon_launch *l;
	char path[600], canon_ws[512];
	char *cw = NULL;

	ws_file(".git", "gitdir: /elsewhere/.git/worktrees/x\n");
	ws_file(".cordon.json", NULL);
	snprintf(path, sizeof(path), "%s/.envrc", ws);
	cr_assert_eq(symlink("real-envrc", path), 0);
	cr_assert_eq(cordon_canonicalize(ws, &cw, NULL), 0);
	snprintf(canon_ws, sizeof(canon_ws), "%s", cw);
	free(cw);

	/* native: nothing noted, and bwrap will not take the policy */
	l = launch_for(CORDON_BACKEND_NATIVE);
	p = cordon_launch_policy(l);
	cr_assert(p->protect_notes_deferred);
	cr_assert_null(p->protect_files);
	cr_assert_null(p->protect_links);
	cr_assert_null(p->protect_expanded);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EINVAL);
	cr_assert(strstr(e.message, "built for the native runner"), "%s", e.message);
	cr_assert_null(c);
	cordon_launch_free(l);

	/* bwrap: all three noted, and the symlink refused as for any policy */
	l = launch_for(CORDON_BACKEND_BWRAP);
	p = cordon_launch_policy(l);
	cr_assert(!p->protect_notes_deferred);
	snprintf(path, sizeof(path), "%s/.git", canon_ws);
	cr_assert(strv_contains(p->protect_files, path), "%s", path);
	snprintf(path, sizeof(path), "%s/.envrc", canon_ws);
	cr_assert(strv_contains(p->protect_links, path), "%s", path);
	snprintf(path, sizeof(path), "%s/.cordon.json", canon_ws);
	cr_assert(strv_contains(p->protect_expanded, path), "%s", path);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, ".envrc read-only: it is a symlink"), "%s", e.message);
	cordon_launch_free(l);
}
