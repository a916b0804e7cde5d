/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bwrap provider's argv is exact by grade: reviewed here string by string. */
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

static char *confine_str(const char *mode, enum cordon_net net, enum cordon_grade grade, bool root)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = grade };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "touch", "x", NULL };
	char *s;

	snprintf(b.path, sizeof(b.path), "/usr/bin/bwrap");
	cr_assert_eq(cordon_policy_new(mode, ws, &p, &e), 0, "%s", e.message);
	cordon_policy_set_net(p, net);
	p->caller_is_root = root;
	/* Keep only the entries under our HOME: which system sockets exist
	 * depends on the machine (test-policy checks that set). */
	size_t kept = 0;
	for (size_t i = 0; i < p->n_deny; i++) {
		if (strncmp(p->deny[i].path, "/tmp/", 5) == 0)
			p->deny[kept++] = p->deny[i];
		else
			free(p->deny[i].path);
	}
	p->n_deny = kept;
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0, "%s", e.message);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_BWRAP);
	s = joined(c->argv);
	cordon_confined_free(c);
	cordon_policy_free(p);
	return s;
}

static void expect(const char *got, const char *fmt)
{
	_cleanup_free_ char *rh = realpath(home, NULL), *rw = realpath(ws, NULL);
	char want[4096];

	/* fmt has %1$s for the workspace and %2$s for home */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(want, sizeof(want), fmt, rw, rh);
#pragma GCC diagnostic pop
	cr_assert_str_eq(got, want);
}

/* The environment is bwrap's own (c->envp), never in its argv. */
#define ENV " --json-status-fd 3"
#define DENY " --perms 0000 --tmpfs %2$s/.ssh --remount-ro %2$s/.ssh --ro-bind /dev/null %2$s/.netrc"

Test(bwrap, full_workspace_write_net_none)
{
	_cleanup_free_ char *s = confine_str("workspace-write", CORDON_NET_NONE, CORDON_GRADE_FULL, false);
	expect(s, "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent --new-session"
		  " --unshare-net --tmpfs /tmp --bind %1$s %1$s" DENY ENV " -- touch x");
}

Test(bwrap, full_read_only_net_host)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_HOST, CORDON_GRADE_FULL, false);
	expect(s, "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent --new-session"
		  DENY ENV " -- touch x");
}

Test(bwrap, partial_drops_dev_proc_and_pidns_together)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_NONE, CORDON_GRADE_PARTIAL, false);
	expect(s, "/usr/bin/bwrap --ro-bind / / --die-with-parent --new-session --unshare-net" DENY ENV " -- touch x");
}

Test(bwrap, root_caller_gets_user_namespace_and_no_caps)
{
	_cleanup_free_ char *s = confine_str("read-only", CORDON_NET_NONE, CORDON_GRADE_FULL, true);
	expect(s, "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent --new-session"
		  " --unshare-user --cap-drop ALL --unshare-net" DENY ENV " -- touch x");
}

Test(bwrap, signatures)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_policy_new("read-only", ws, &p, NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, NULL), 0);
	cr_assert_str_eq(c->fatal_signatures[0], "bwrap: ");
	cr_assert_null(c->fatal_signatures[1]);
	cr_assert_str_eq(c->denial_signatures[0], "read-only file system");
	cr_assert_str_eq(c->denial_signatures[1], "permission denied");
	cr_assert_str_eq(c->denial_signatures[2], "operation not permitted");
	cr_assert_null(c->denial_signatures[3]);
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
	cr_assert_eq(cordon_policy_new("read-only", ws, &p, NULL), 0);
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
	cr_assert_eq(strv_length(c->envp), 4, "PATH, HOME, GH_TOKEN, API_KEY: %zu", strv_length(c->envp));
	cr_assert(strv_contains(c->envp, "PATH=/usr/bin:/bin"));
	cr_assert(strv_contains(c->envp, home_entry));
	cr_assert(strv_contains(c->envp, "GH_TOKEN=ghp_secret_value"));
	cr_assert(strv_contains(c->envp, "API_KEY=sk-set-value"));
	cr_assert_eq(c->status_fd, 3);
	cr_assert_eq(c->status_format, CORDON_STATUS_BWRAP_JSON);
	cordon_confined_free(c);
	cordon_policy_free(p);
	unsetenv("GH_TOKEN");
	unsetenv("UNLISTED");
}

Test(bwrap, light_isolation_and_landlock_requirements_refused)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL, .pinned = true };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_policy_new("read-only", ws, &p, NULL), 0);
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
	cordon_policy_set_isolation(p, CORDON_ISOLATION_FULL);
	cordon_policy_require(p, "landlock", NULL);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, "Landlock"), "%s", e.message);
	cr_assert_null(c);
	cordon_policy_free(p);
}
