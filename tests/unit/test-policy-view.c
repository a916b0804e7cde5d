/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A built policy read back (cordon_policy_isolation, _home, _read_deny,
 * _write_gate, _list): what `cordon profile show --effective` prints. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"

static char root[] = "/tmp/cordon-view-XXXXXX";
static char ws[64], home[64], cache[128], secret[64], missing[64];

static void setup(void)
{
	char p[300];

	cr_assert_not_null(mkdtemp(root));
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(cache, sizeof(cache), "%s/.cache/tool", home);
	snprintf(secret, sizeof(secret), "%s/secret", root);
	snprintf(missing, sizeof(missing), "%s/gone/deeper", root);
	cr_assert_eq(mkdir(ws, 0700), 0);
	cr_assert_eq(mkdir(home, 0700), 0);
	snprintf(p, sizeof(p), "%s/.cache", home);
	cr_assert_eq(mkdir(p, 0700), 0);
	cr_assert_eq(mkdir(cache, 0700), 0);
	cr_assert_eq(mkdir(secret, 0700), 0);
	setenv("HOME", home, 1);
	setenv("CORDON_VIEW_KEEP", "1", 1);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)!system(cmd);
}

TestSuite(policy_view, .init = setup, .fini = teardown);

static bool has(char **v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static char **list(const struct cordon_policy *p, enum cordon_policy_list which)
{
	char **v = NULL;

	cr_assert_eq(cordon_policy_list(p, which, &v), 0);
	cr_assert_not_null(v);
	return v;
}

static struct cordon_policy *new_policy(const char *mode)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	enum cordon_mode m;

	cr_assert_eq(cordon_mode_from_string(mode, &m), 0, "%s", mode);
	cr_assert_eq(cordon_policy_new(m, ws, &p, &e), 0, "%s", e.message);
	return p;
}

Test(policy_view, scalars_as_set)
{
	struct cordon_policy *p = new_policy("workspace-write");

	cr_expect_eq(cordon_policy_isolation(p), CORDON_ISOLATION_FULL);
	cr_expect_str_eq(cordon_policy_home(p), home);
	cr_expect(cordon_policy_write_gate(p));
	cr_assert_eq(cordon_policy_set_isolation(p, CORDON_ISOLATION_LIGHT), 0);
	cr_expect_eq(cordon_policy_isolation(p), CORDON_ISOLATION_LIGHT);
	cr_expect_not(cordon_policy_write_gate(p), "light isolation has no write gate");
	cordon_policy_free(p);

	p = new_policy("read-only");
	cr_expect_not(cordon_policy_write_gate(p), "read-only has nothing to gate");
	cordon_policy_free(p);
}

Test(policy_view, read_deny_entries_and_where_they_are_hidden)
{
	struct cordon_policy *p = new_policy("workspace-write");
	struct cordon_read_deny d;
	bool saw_secret = false, saw_missing = false;
	char first_missing[300];
	size_t n = 0;

	snprintf(first_missing, sizeof(first_missing), "%s/gone", root);
	cr_assert_eq(cordon_policy_deny_read(p, secret, NULL), 0);
	cr_assert_eq(cordon_policy_deny_read(p, missing, NULL), 0);
	for (; cordon_policy_read_deny(p, n, &d) == 0; n++) {
		if (strcmp(d.path, secret) == 0) {
			saw_secret = true;
			cr_expect(d.exists);
			cr_expect_str_eq(d.hidden_at, secret);
			cr_expect_not(d.only_without_network);
		}
		if (strcmp(d.path, missing) == 0) {
			saw_missing = true;
			cr_expect_not(d.exists);
			cr_expect_str_eq(d.hidden_at, first_missing, "a missing entry is hidden from its first missing component");
		}
	}
	cr_expect(saw_secret);
	cr_expect(saw_missing);
	cr_expect_eq(cordon_policy_read_deny(p, n, &d), -ENOENT);
	cr_expect_eq(cordon_policy_read_deny(p, n + 100, &d), -ENOENT);
	cordon_policy_free(p);
}

Test(policy_view, lists_are_copies_of_what_the_policy_holds)
{
	struct cordon_policy *p = new_policy("workspace-write");
	char prot[300], **v;

	snprintf(prot, sizeof(prot), "%s/keep.txt", ws);
	cr_assert_eq(cordon_policy_protect(p, "keep.txt", NULL), 0);
	cr_assert_eq(cordon_policy_allow_unix_socket(p, "/run/some.sock", NULL), 0);
	cr_assert_eq(cordon_policy_set_env(p, "VIEW_SET", "x y", NULL), 0);
	cr_assert_eq(cordon_policy_keep_env(p, "CORDON_VIEW_KEEP", NULL), 0);
	cr_assert_eq(cordon_policy_add_writable(p, cache, NULL), 0);

	v = list(p, CORDON_POLICY_PROTECTED);
	cr_expect(has(v, prot), "the relative protect, joined to the workspace");
	cr_expect_not(has(v, "/run/some.sock"));
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_UNIX_SOCKETS);
	cr_expect(has(v, "/run/some.sock"));
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_ENV);
	cr_expect(has(v, "VIEW_SET=x y"));
	cr_expect(has(v, "CORDON_VIEW_KEEP=1"));
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_KEEP_ENV);
	cr_expect(has(v, "CORDON_VIEW_KEEP"));
	cr_expect_not(has(v, "VIEW_SET"));
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_GATE_NAMES);
	cr_expect(has(v, ".envrc"));
	cr_expect_not(has(v, ".git/hooks"), "a path is no rule by name");
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_GATE_LIFTED);
	cr_expect(has(v, cache), "a writable root in a HOME dot-entry is a tool's cache");
	cr_expect_not(has(v, ws));
	cordon_strv_free(v);

	/* without the write gate: no names, and no cache roots lifted */
	cr_assert_eq(cordon_policy_set_isolation(p, CORDON_ISOLATION_LIGHT), 0);
	v = list(p, CORDON_POLICY_GATE_NAMES);
	cr_expect_null(v[0]);
	cordon_strv_free(v);
	v = list(p, CORDON_POLICY_GATE_LIFTED);
	cr_expect_not(has(v, cache));
	cordon_strv_free(v);

	v = NULL;
	cr_expect_eq(cordon_policy_list(p, _CORDON_POLICY_LIST_MAX, &v), -EINVAL);
	cr_expect_eq(cordon_policy_list(p, (enum cordon_policy_list)-1, &v), -EINVAL);
	cr_expect_null(v);
	cordon_policy_free(p);
}
