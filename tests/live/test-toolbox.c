/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The toolbox (cordon_toolbox_*, cordon.h): a session's tools resolved from
 * a real profile on disk, what the session's policy and each tool's launch
 * hand the runner (read off the confined argv), the edges a profile
 * refuses, and what cordon_toolbox_hide hides from every one of them. Live:
 * a tool's launch needs the native backend, which the probe must find.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "tests/common.h"

static char base[] = "/var/tmp/cordon-toolbox-XXXXXX";
static char ws[256], tool[256], other[256], hidden[256], prof[256], homes[256];
static char *canon_tool, *canon_hidden;

static void copy_true(const char *to)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s' && chmod 755 '%s'", to, to);
	cr_assert_eq(system(cmd), 0);
}

static void setup(void)
{
	char text[2048];
	struct cordon_error e = {};
	const char *cordon = getenv("CORDON");

	/* the runner the toolbox's launches use: the built one */
	cr_assert_not_null(cordon, "CORDON (the built cordon) must be set");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	cr_assert_not_null(mkdtemp(base));
	chmod(base, 0755);
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(tool, sizeof(tool), "%s/ctool", base);
	snprintf(other, sizeof(other), "%s/cother", base);
	snprintf(hidden, sizeof(hidden), "%s/state", base);
	snprintf(prof, sizeof(prof), "%s/p.json", base);
	snprintf(homes, sizeof(homes), "%s/homes", base);
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(hidden, 0700), 0);
	cr_assert_eq(mkdir(homes, 0700), 0);
	copy_true(tool);
	copy_true(other);
	snprintf(text, sizeof(text),
		 "{ \"workspace\": \"%s\", \"command_policies\": { \"commands\": {\n"
		 "  \"ctool\": { \"executable\": \"%s\", \"sandbox\": { \"fs_read\": [\"%s\"],\n"
		 "               \"environment\": { \"allow_vars\": [\"KUBECONFIG\", \"LANG2\"] } },\n"
		 "             \"can_use\": [\"cother\"] },\n"
		 "  \"cother\": { \"executable\": \"%s\", \"sandbox\": { \"fs_read\": [\"%s\"] },\n"
		 "              \"from\": { \"session\": \"deny\" } } } } }\n",
		 ws, tool, base, other, base);
	test_write_file(prof, text);
	cr_assert_eq(cordon_canonicalize(tool, &canon_tool, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_canonicalize(hidden, &canon_hidden, &e), 0, "%s", e.message);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
	free(canon_tool);
	free(canon_hidden);
}

TestSuite(toolbox, .init = setup, .fini = teardown);

static bool has_pair(const struct cordon_confined *c, const char *flag, const char *value)
{
	for (size_t i = 1; c->argv[i]; i++)
		if (strcmp(c->argv[i - 1], flag) == 0 && strcmp(c->argv[i], value) == 0)
			return true;
	return false;
}

static struct cordon_toolbox *open_box(struct cordon_profile_handle **ret_h)
{
	struct cordon_profile_opts po = { .workspace = ws };
	const char *writable[] = { ws, NULL };
	struct cordon_toolbox *b = NULL;
	struct cordon_error e = {};
	struct cordon_backend_info bi;

	live_skip_unless(cordon_backend_select(0, &bi) == 0 && bi.backend == CORDON_BACKEND_NATIVE,
			 "no native backend here: a tool's sandbox needs it");
	cr_assert_eq(cordon_profile_load(prof, &po, ret_h, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_toolbox_new(*ret_h, "/usr/bin:/bin", writable, "/bin/true", &b, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_toolbox_set_homes(b, homes, &e), 0, "%s", e.message);
	return b;
}

Test(toolbox, resolves_and_lists_what_each_caller_reaches)
{
	struct cordon_profile_handle *h = NULL;
	struct cordon_toolbox *b = open_box(&h);
	const char *const *shims = cordon_toolbox_shims(b, CORDON_TOOLS_SESSION);

	cr_expect_str_eq(cordon_toolbox_executable(b, "ctool"), canon_tool);
	cr_expect_null(cordon_toolbox_executable(b, "nope"));
	/* cother says from.session: deny: the session gets no shim for it */
	cr_assert_not_null(shims);
	cr_expect_str_eq(shims[0], "ctool");
	cr_expect_null(shims[1]);
	cordon_toolbox_free(b);
	cordon_profile_free(h);
}

Test(toolbox, session_policy_and_tool_launch)
{
	struct cordon_profile_handle *h = NULL;
	struct cordon_toolbox *b = open_box(&h);
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const struct cordon_launch *l = NULL;
	struct cordon_error e = {};
	struct cordon_backend_info bi;
	const char *argv[] = { "true", NULL };

	cr_assert_eq(cordon_backend_select(0, &bi), 0);
	/* before the hide: the tool's fs_read covers the state directory */
	cr_assert_eq(cordon_toolbox_launch(b, CORDON_TOOLS_SESSION, "ctool", &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_expect(has_pair(c, "--exec", canon_tool), "the tool's own binary is in its gate");
	cr_expect(!has_pair(c, "--deny-read", canon_hidden));
	cordon_confined_free(c);
	c = NULL;

	cr_assert_eq(cordon_toolbox_hide(b, hidden, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_toolbox_hide(NULL, hidden, &e), -EINVAL);

	/* the session: the shim, the tool's binary never directly, the hidden dir */
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_toolbox_session_policy(b, p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_confine_with(&bi, argv, p, &c, &e), 0, "%s", e.message);
	cr_expect(has_pair(c, "--deny-exec", canon_tool), "no --deny-exec %s", canon_tool);
	cr_expect(has_pair(c, "--deny-read", canon_hidden), "no --deny-read %s", canon_hidden);
	cr_expect(has_pair(c, "--shim", "ctool"));
	cr_expect(!has_pair(c, "--shim", "cother"));
	cordon_confined_free(c);
	c = NULL;
	cordon_policy_free(p);

	/* another edge, launched after the hide: hidden too, despite fs_read */
	cr_assert_eq(cordon_toolbox_launch(b, "ctool", "cother", &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_expect(has_pair(c, "--deny-read", canon_hidden), "a tool launched after the hide still reads it");
	cordon_confined_free(c);

	/* refused edges: from.session deny, an unknown command, a command
	 * calling itself through the broker */
	cr_expect_lt(cordon_toolbox_launch(b, "ctool", "ctool", &l, &e), 0);
	cr_expect_lt(cordon_toolbox_launch(b, CORDON_TOOLS_SESSION, "cother", &l, &e), 0);
	cr_expect_lt(cordon_toolbox_launch(b, CORDON_TOOLS_SESSION, "nope", &l, &e), 0);
	cordon_toolbox_free(b);
	cordon_profile_free(h);
}

static bool has_env(const struct cordon_confined *c, const char *entry)
{
	for (size_t i = 0; c->envp && c->envp[i]; i++)
		if (strcmp(c->envp[i], entry) == 0)
			return true;
	return false;
}

/* Each edge's HOME is its own: writable there, HOME, TMPDIR and XDG_* set to
 * it whatever the supervisor's are, hidden from the session; the homes
 * refused where the session could write; a caller's value that leads there,
 * into the workspace or to its own fds refused, naming the variable. */
Test(toolbox, private_homes_and_what_a_caller_may_pass)
{
	struct cordon_profile_handle *h = NULL;
	struct cordon_toolbox *b = open_box(&h), *b2 = NULL;
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const struct cordon_launch *l = NULL;
	struct cordon_error e = {};
	struct cordon_backend_info bi;
	const char *argv[] = { "true", NULL };
	const char *writable[] = { ws, NULL };
	char home[600], entry[700], inws[300], ok_val[300];
	char *canon_homes = NULL;
	char **env = NULL;

	cr_assert_eq(cordon_backend_select(0, &bi), 0);
	cr_assert_eq(cordon_canonicalize(homes, &canon_homes, &e), 0, "%s", e.message);
	snprintf(home, sizeof(home), "%s/ctool/session", canon_homes);
	cr_assert_eq(access(home, F_OK), 0, "%s was not made", home);
	setenv("XDG_CONFIG_HOME", "/somewhere/else", 1);
	cr_assert_eq(cordon_toolbox_launch(b, CORDON_TOOLS_SESSION, "ctool", &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_confine(l, argv, &c, &e), 0, "%s", e.message);
	cr_expect(has_pair(c, "--write", home), "its HOME is not writable");
	snprintf(entry, sizeof(entry), "HOME=%s", home);
	cr_expect(has_env(c, entry), "no %s", entry);
	cr_expect(has_env(c, "TMPDIR=/tmp"));
	snprintf(entry, sizeof(entry), "XDG_CONFIG_HOME=%s/.config", home);
	cr_expect(has_env(c, entry), "no %s", entry);
	cordon_confined_free(c);
	c = NULL;
	unsetenv("XDG_CONFIG_HOME");

	/* the session never sees them */
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_toolbox_session_policy(b, p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_confine_with(&bi, argv, p, &c, &e), 0, "%s", e.message);
	cr_expect(has_pair(c, "--deny-read", canon_homes), "the session reads the tools' homes");
	cordon_confined_free(c);
	cordon_policy_free(p);

	/* what a caller passes (ctool's allow_vars: KUBECONFIG) */
	snprintf(inws, sizeof(inws), "KUBECONFIG=%s/k", ws);
	snprintf(ok_val, sizeof(ok_val), "KUBECONFIG=%s/k", hidden);
	{
		const char *bad[] = { inws, NULL }, *good[] = { ok_val, "LANG=C", "HOME=/x", NULL };
		char mine[700];
		const char *into_home[] = { mine, NULL }, *dev[] = { "KUBECONFIG=/dev/stdin", NULL };

		snprintf(mine, sizeof(mine), "KUBECONFIG=%s/cother/ctool/x", canon_homes);
		cr_expect_eq(cordon_toolbox_call_env(b, CORDON_TOOLS_SESSION, "ctool", bad, &env, &e), -EACCES);
		cr_expect(strstr(e.message, "KUBECONFIG leads to") != NULL, "%s", e.message);
		cr_expect_eq(cordon_toolbox_call_env(b, CORDON_TOOLS_SESSION, "ctool", into_home, &env, &e), -EACCES,
			     "a value into a tool's HOME");
		cr_expect_eq(cordon_toolbox_call_env(b, CORDON_TOOLS_SESSION, "ctool", dev, &env, &e), -EACCES);
		/* control: outside every root, passed; unnamed and HOME dropped */
		cr_assert_eq(cordon_toolbox_call_env(b, CORDON_TOOLS_SESSION, "ctool", good, &env, &e), 0, "%s",
			     e.message);
		cr_expect_str_eq(env[0], ok_val);
		cr_expect_null(env[1]);
		cordon_strv_free(env);
	}

	/* homes where the session writes: refused */
	cr_assert_eq(cordon_toolbox_new(h, "/usr/bin:/bin", writable, "/bin/true", &b2, &e), 0, "%s", e.message);
	cr_expect_eq(cordon_toolbox_set_homes(b2, ws, &e), -EPERM);
	cr_expect_lt(cordon_toolbox_launch(b2, CORDON_TOOLS_SESSION, "ctool", &l, &e), 0, "a launch without homes");
	cordon_toolbox_free(b2);
	cordon_toolbox_free(b);
	cordon_profile_free(h);
	free(canon_homes);
}
