/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "common.h"
#include "policy.h"
#include "profile.h"
#include "spell.h"
#include "profile_internal.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
#define _cleanup_profile_ _cleanup_(profile_freep)
#define _cleanup_policy_ _cleanup_(cordon_policy_freep)

/* Fixed, non-existent places: messages in the corpora stay byte-exact. */
static const struct profile_env corpus_env = {
	.workspace = "/nonexistent/cordon-ws",
	.home = "/nonexistent/cordon-home",
	.tmpdir = "/tmp",
	.xdg_config_home = "/nonexistent/cordon-home/.config",
	.user_profile_dir = "",
	.data_profile_dir = "",
	.system_gitconfig = "",
};

static const char *srcdir(void)
{
	const char *s = getenv("CORDON_SRCDIR");

	return s ? s : ".";
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	buf = calloc(1, 2 * 1024 * 1024);
	if (buf)
		n = fread(buf, 1, 2 * 1024 * 1024 - 1, f);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* Below /var/tmp: a HOME or workspace below /tmp is hidden by the
 * sandbox's private /tmp, and why says so before any rule these tests ask
 * about. */
static char *make_tmpdir(void)
{
	return test_tmpdir("/var/tmp", "cordon-profile");
}

static char *join(const char *a, const char *b)
{
	char *r = path_join(a, b);

	cr_assert_not_null(r);
	return r;
}

static int dir_json_files(const char *dir, char ***ret)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;

	cr_assert_not_null(d, "cannot open %s", dir);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 5 && strcmp(de->d_name + n - 5, ".json") == 0)
			cr_assert_eq(strv_push(&v, de->d_name), 0);
	}
	closedir(d);
	*ret = v;
	return (int)strv_length(v);
}

/* ---- corpora ---------------------------------------------------------- */

Test(profile, invalid_corpus_exact_errors)
{
	_cleanup_free_ char *dir = join(srcdir(), "tests/data/profiles/invalid");
	_cleanup_strv_free_ char **files = NULL;
	bool regen = getenv("CORDON_REGEN_EXPECTED") != NULL;
	int n = dir_json_files(dir, &files);

	cr_assert_geq(n, 25, "only %d invalid profiles", n);
	cr_assert_eq(chdir(dir), 0);
	STRV_FOREACH(f, files) {
		_cleanup_profile_ struct cordon_profile *p = NULL;
		struct cordon_error e = {};
		char expected_path[PATH_MAX];
		_cleanup_free_ char *expected = NULL;
		int r;

		r = profile_load(*f, &corpus_env, &p, &e);
		cr_expect_lt(r, 0, "%s loaded but must be refused", *f);
		cr_expect_null(p);
		snprintf(expected_path, sizeof(expected_path), "%.*s.expected", (int)(strlen(*f) - 5), *f);
		if (regen) {
			FILE *o = fopen(expected_path, "we");

			fprintf(o, "%s\n", e.message);
			fclose(o);
			continue;
		}
		expected = read_all(expected_path);
		cr_assert_not_null(expected, "%s has no .expected", *f);
		if (expected[0] && expected[strlen(expected) - 1] == '\n')
			expected[strlen(expected) - 1] = '\0';
		cr_expect_str_eq(e.message, expected, "%s", *f);
		/* every refusal of a file's content says where */
		cr_expect_str_neq(e.file, "", "%s: no file in the error", *f);
	}
}

Test(profile, every_expected_has_a_profile)
{
	_cleanup_free_ char *dir = join(srcdir(), "tests/data/profiles/invalid");
	DIR *d = opendir(dir);
	struct dirent *de;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char json[PATH_MAX];

		if (n < 9 || strcmp(de->d_name + n - 9, ".expected") != 0)
			continue;
		snprintf(json, sizeof(json), "%s/%.*s.json", dir, (int)(n - 9), de->d_name);
		cr_expect_eq(access(json, F_OK), 0, "%s has no profile", de->d_name);
	}
	closedir(d);
}

/* The same, loaded to be looked at: command_policies is kept (the load
 * for a run refuses it until the supervisor enforces it). */
static const struct profile_env inspect_env = {
	.workspace = "/nonexistent/cordon-ws",
	.home = "/nonexistent/cordon-home",
	.tmpdir = "/tmp",
	.xdg_config_home = "/nonexistent/cordon-home/.config",
	.user_profile_dir = "",
	.data_profile_dir = "",
	.system_gitconfig = "",
	.inspect = true,
};

Test(profile, valid_corpus_round_trips)
{
	_cleanup_free_ char *dir = join(srcdir(), "tests/data/profiles/valid");
	_cleanup_strv_free_ char **files = NULL;
	int n = dir_json_files(dir, &files);

	cr_assert_geq(n, 8);
	cr_assert_eq(chdir(dir), 0);
	STRV_FOREACH(f, files) {
		_cleanup_profile_ struct cordon_profile *p = NULL, *p2 = NULL;
		_cleanup_free_ char *s = NULL, *s2 = NULL;
		struct cordon_error e = {};
		int r;

		r = profile_load(*f, &inspect_env, &p, &e);
		cr_assert_eq(r, 0, "%s: %s", *f, e.message);
		cr_assert_eq(profile_to_json(p, &s), 0);
		r = profile_load_buffer(s, strlen(s), "round-trip.json", &inspect_env, &p2, &e);
		cr_assert_eq(r, 0, "%s written back does not load: %s\n%s", *f, e.message, s);
		cr_assert_eq(profile_to_json(p2, &s2), 0);
		cr_expect_str_eq(s, s2, "%s does not round-trip", *f);
	}
}

Test(profile, builtins_load_and_apply)
{
	const char *const *names = profile_builtin_names();
	char cwd[PATH_MAX];
	size_t n = 0;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	for (; names[n]; n++) {
		_cleanup_profile_ struct cordon_profile *p = NULL;
		_cleanup_policy_ struct cordon_policy *pol = NULL;
		struct profile_env env = { .workspace = cwd, .user_profile_dir = "", .data_profile_dir = "" };
		struct cordon_error e = {};

		cr_assert_eq(profile_load(names[n], &env, &p, &e), 0, "%s: %s", names[n], e.message);
		cr_expect_str_eq(p->meta_name, names[n]);
		cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s: %s", names[n], e.message);
	}
	cr_expect_eq(n, 11);
}

/* ---- errors --------------------------------------------------------------- */

Test(profile, error_fields_and_did_you_mean)
{
	const char *text = "{\n  \"filesystem\": {\n    \"read\": [],\n    \"wirte\": []\n  }\n}\n";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "p.json", &corpus_env, &p, &e), -EINVAL);
	cr_expect_str_eq(e.file, "p.json");
	cr_expect_eq(e.line, 4);
	cr_expect_eq(e.column, 5);
	cr_expect_str_eq(e.path, "/filesystem/wirte");
	cr_expect_str_eq(e.message, "p.json:4:5: at /filesystem/wirte: unknown key \"wirte\", did you mean \"write\"?");
}

Test(profile, pointer_escapes_and_array_positions)
{
	const char *text = "{\"groups\": {\"a~b\": [\"/x\"], \"c/d\": 1}}";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_lt(profile_load_buffer(text, strlen(text), "p.json", &corpus_env, &p, &e), 0);
	cr_expect_str_eq(e.path, "/groups/a~0b");
	cr_expect_eq(e.column, 13);
}

/* A value after an object that holds a nested one, written with spaces
 * ("{ "a": ["/x"] }"): the position walk once took "[" after a space for
 * a scalar and lost its place. */
Test(profile, position_after_nested_values_with_spaces)
{
	const char *text = "{\n  \"groups\": { \"a\": [ \"/x\" ], \"b\": [ \"/y\" ] },\n  \"network\": { \"mode\": \"bad\" }\n}\n";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "p.json", &corpus_env, &p, &e), -EINVAL);
	cr_expect_str_eq(e.message, "p.json:3:24: at /network/mode: \"bad\" is not a network mode: use none, host, proxy or allow");
}

Test(profile, raw_nul_byte_refused_with_position)
{
	const char text[] = "{\n  \"mode\": \"read-only\"\0}";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, sizeof(text) - 1, "p.json", &corpus_env, &p, &e), -EINVAL);
	cr_expect_str_eq(e.message, "p.json:2:22: NUL byte in profile");
}

/* A buffer may come without a file name: its directory is then ".", which
 * once went into a copy of the (empty) name, one byte too small (ASan
 * builds see that). */
Test(profile, buffer_without_file_name)
{
	const char text[] = "{\"mode\": \"read-only\"}";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, sizeof(text) - 1, "", &corpus_env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(p->file, "");
	cr_expect_eq(p->mode, CORDON_MODE_READ_ONLY);
}

Test(profile, size_cap)
{
	size_t n = PROFILE_MAX_BYTES + 1;
	_cleanup_free_ char *big = malloc(n);
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *file = join(dir, "big.json");
	struct cordon_error e = {};
	FILE *f;

	cr_assert_not_null(big);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	cr_expect_eq(profile_load_buffer(big, n, "big.json", &corpus_env, &p, &e), -EFBIG);
	cr_expect_str_eq(e.message, "big.json: profile is larger than the 1 MiB limit");
	/* exactly at the cap is fine */
	big[n - 2] = '}';
	cr_expect_eq(profile_load_buffer(big, n - 1, "big.json", &corpus_env, &p, &e), 0, "%s", e.message);
	p = profile_free(p);

	f = fopen(file, "we");
	fwrite(big, 1, n, f);
	fclose(f);
	cr_expect_eq(profile_load(file, &corpus_env, &p, &e), -EFBIG);
}

Test(profile, rule_cap)
{
	size_t cap = 32 + 12 * (PROFILE_MAX_RULES + 1);
	_cleanup_free_ char *text = malloc(cap);
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	size_t o;

	o = (size_t)sprintf(text, "{\"filesystem\":{\"protect\":[");
	for (int i = 0; i <= PROFILE_MAX_RULES; i++)
		o += (size_t)sprintf(text + o, "%s\"/x%d\"", i ? "," : "", i);
	o += (size_t)sprintf(text + o, "]}}");
	cr_assert_lt(o, cap);
	cr_expect_eq(profile_load_buffer(text, o, "many.json", &corpus_env, &p, &e), -E2BIG);
	cr_expect_str_eq(e.path, "/filesystem/protect/4096");
	cr_expect(strstr(e.message, "more than 4096 rules") != NULL, "%s", e.message);
}

Test(profile, path_length_cap)
{
	_cleanup_free_ char *text = malloc(PATH_MAX + 64);
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	size_t o = (size_t)sprintf(text, "{\"filesystem\":{\"protect\":[\"/");

	memset(text + o, 'a', PATH_MAX);
	o += PATH_MAX;
	o += (size_t)sprintf(text + o, "\"]}}");
	cr_expect_eq(profile_load_buffer(text, o, "long.json", &corpus_env, &p, &e), -ENAMETOOLONG);
	cr_expect_str_eq(e.path, "/filesystem/protect/0");
}

Test(profile, expanded_path_length_cap)
{
	/* short as written, too long once $HOME is put in front */
	_cleanup_free_ char *home = malloc(PATH_MAX);
	_cleanup_free_ char *text = malloc(PATH_MAX + 64);
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};
	size_t o;

	home[0] = '/';
	memset(home + 1, 'h', PATH_MAX - 200);
	home[PATH_MAX - 199] = '\0';
	env.home = home;
	o = (size_t)sprintf(text, "{\"filesystem\":{\"protect\":[\"$HOME/");
	memset(text + o, 'a', 300);
	o += 300;
	o += (size_t)sprintf(text + o, "\"]}}");
	cr_expect_eq(profile_load_buffer(text, o, "long.json", &env, &p, &e), -ENAMETOOLONG, "%s", e.message);
}

/* ---- extends --------------------------------------------------------------- */

Test(profile, merge_lists_append_scalars_override)
{
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *parent = join(dir, "parent.json"), *child = join(dir, "child.json");
	_cleanup_free_ char *ws = join(dir, "ws");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};

	cr_assert_eq(mkdir(ws, 0755), 0);
	env.workspace = ws;
	test_write_file(parent, "{\"mode\": \"read-only\", \"network\": {\"mode\": \"host\"},\n"
			   " \"meta\": {\"name\": \"parent\", \"version\": \"1\"},\n"
			   " \"filesystem\": {\"protect\": [\"$WORKSPACE/a\"]},\n"
			   " \"environment\": {\"allow_vars\": [\"A\"], \"set_vars\": {\"X\": \"parent\", \"Y\": \"p\"}},\n"
			   " \"limits\": {\"timeout\": 10, \"cpu\": 5}}\n");
	test_write_file(child, "{\"extends\": \"parent.json\", \"mode\": \"workspace-write\",\n"
			  " \"meta\": {\"name\": \"child\"},\n"
			  " \"filesystem\": {\"protect\": [\"$WORKSPACE/b\"]},\n"
			  " \"environment\": {\"allow_vars\": [\"B\"], \"set_vars\": {\"X\": \"child\"}},\n"
			  " \"limits\": {\"timeout\": 20}}\n");
	cr_assert_eq(profile_load(child, &env, &p, &e), 0, "%s", e.message);
	/* scalars: the child wins; what it does not set, the parent keeps */
	cr_expect_eq(p->mode, CORDON_MODE_WORKSPACE_WRITE);
	cr_expect_eq(p->net, PROFILE_NET_HOST);
	cr_expect_str_eq(p->meta_name, "child");
	cr_expect_str_eq(p->meta_version, "1");
	cr_expect_eq(p->limits.timeout_seconds, 20);
	cr_expect_eq(p->limits.cpu_seconds, 5);
	cr_expect_str_eq(p->limits.origin[PROFILE_LIMIT_TIMEOUT].file, child);
	cr_expect_str_eq(p->limits.origin[PROFILE_LIMIT_CPU].file, parent);
	/* lists: parent first, then child */
	cr_assert_eq(p->protect.n, 2);
	cr_expect(strstr(p->protect.v[0].path, "/ws/a") != NULL);
	cr_expect(strstr(p->protect.v[1].path, "/ws/b") != NULL);
	cr_expect_str_eq(p->protect.v[0].origin.file, parent);
	cr_expect_str_eq(p->protect.v[0].origin.pointer, "/filesystem/protect/0");
	cr_assert_eq(p->allow_vars.n, 2);
	cr_expect_str_eq(p->allow_vars.v[0].path, "A");
	cr_expect_str_eq(p->allow_vars.v[1].path, "B");
	cr_assert_eq(p->n_set_vars, 2);
	cr_expect_str_eq(p->set_vars[0].name, "X");
	cr_expect_str_eq(p->set_vars[0].value, "child");
	cr_expect_str_eq(p->set_vars[1].value, "p");
	cr_assert_not_null(p->chain);
	cr_expect_str_eq(p->chain[0], child);
	cr_expect_str_eq(p->chain[1], parent);
	cr_expect_null(p->chain[2]);
}

Test(profile, merge_deny_always_wins)
{
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *parent = join(dir, "parent.json"), *child = join(dir, "child.json");
	_cleanup_free_ char *child2 = join(dir, "child2.json"), *ws = join(dir, "ws");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};

	cr_assert_eq(mkdir(ws, 0755), 0);
	env.workspace = ws;
	test_write_file(parent, "{\"filesystem\": {\"deny_read\": [\"$WORKSPACE/secret\"]}}\n");
	/* a child cannot grant under its parent's deny, for writing or reading */
	test_write_file(child, "{\"extends\": \"parent.json\",\n \"filesystem\": {\"write\": [\"$WORKSPACE/secret/out\"]}}\n");
	test_write_file(child2, "{\"extends\": \"parent.json\",\n \"filesystem\": {\"read\": [\"$WORKSPACE/secret\"]}}\n");
	cr_expect_eq(profile_load(child, &env, &p, &e), -EPERM);
	cr_expect(strstr(e.message, "and deny always wins") != NULL, "%s", e.message);
	cr_expect_str_eq(e.file, child);
	cr_expect_str_eq(e.path, "/filesystem/write/0");
	cr_expect(strstr(e.message, "parent.json at /filesystem/deny_read/0") != NULL, "%s", e.message);
	cr_expect_eq(profile_load(child2, &env, &p, &e), -EPERM);
	cr_expect_str_eq(e.path, "/filesystem/read/0");
	/* nor the other way around: a child's deny beats the parent's grant */
	test_write_file(parent, "{\"filesystem\": {\"write\": [\"$WORKSPACE/secret/out\"]}}\n");
	test_write_file(child, "{\"extends\": \"parent.json\",\n \"filesystem\": {\"deny_read\": [\"$WORKSPACE/secret\"]}}\n");
	cr_expect_eq(profile_load(child, &env, &p, &e), -EPERM);
	cr_expect_str_eq(e.file, parent);
}

Test(profile, extends_cycle_names_the_chain)
{
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *a = join(dir, "a.json"), *b = join(dir, "b.json"), *c = join(dir, "c.json");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	char expected[PATH_MAX * 4];

	test_write_file(a, "{\"extends\": \"b.json\"}\n");
	test_write_file(b, "{\"extends\": \"c.json\"}\n");
	test_write_file(c, "{\"mode\": \"read-only\",\n \"extends\": \"a.json\"}\n");
	cr_assert_eq(profile_load(a, &corpus_env, &p, &e), -ELOOP);
	snprintf(expected, sizeof(expected), "%s:2:13: at /extends: extends cycle: %s -> %s -> %s -> %s", c, a, b, c, a);
	cr_expect_str_eq(e.message, expected);
}

static void write_chain(const char *dir, int n)
{
	for (int i = 0; i < n; i++) {
		char name[PATH_MAX], text[128];

		snprintf(name, sizeof(name), "%s/p%d.json", dir, i);
		if (i == n - 1)
			snprintf(text, sizeof(text), "{\"extends\": \"read-only\", \"limits\": {\"cpu\": %d}}\n", i + 1);
		else
			snprintf(text, sizeof(text), "{\"extends\": \"p%d.json\", \"limits\": {\"cpu\": %d}}\n", i + 1, i + 1);
		test_write_file(name, text);
	}
}

Test(profile, extends_depth_cap)
{
	_cleanup_free_ char *ok = make_tmpdir(), *deep = make_tmpdir();
	_cleanup_free_ char *ok0 = join(ok, "p0.json"), *deep0 = join(deep, "p0.json");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	/* 15 files + the built-in read-only = 16 profiles: allowed */
	write_chain(ok, 15);
	cr_assert_eq(profile_load(ok0, &corpus_env, &p, &e), 0, "%s", e.message);
	cr_expect_eq(p->mode, CORDON_MODE_READ_ONLY);
	cr_expect_eq(p->limits.cpu_seconds, 1);
	cr_expect_eq(strv_length(p->chain), 16);
	p = profile_free(p);
	write_chain(deep, 16);
	cr_expect_eq(profile_load(deep0, &corpus_env, &p, &e), -ELOOP);
	cr_expect(strstr(e.message, "extends chain is deeper than 16 profiles") != NULL, "%s", e.message);
}

Test(profile, builtin_cannot_be_extended_by_path_from_builtin)
{
	/* and a built-in name found in the user directory wins over the built-in */
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *mine = join(dir, "default.json");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};

	test_write_file(mine, "{\"meta\": {\"name\": \"mine\"}, \"extends\": \"read-only\"}\n");
	env.user_profile_dir = dir;
	cr_assert_eq(profile_load("default", &env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(p->meta_name, "mine");
	cr_expect_str_eq(p->file, mine);
	cr_expect_eq(p->mode, CORDON_MODE_READ_ONLY);
}

Test(profile, lookup_order)
{
	_cleanup_free_ char *user = make_tmpdir(), *data = make_tmpdir();
	_cleanup_free_ char *u = join(user, "x.json"), *d = join(data, "x.json"), *d2 = join(data, "y.json");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};

	env.user_profile_dir = user;
	env.data_profile_dir = data;
	test_write_file(u, "{\"meta\": {\"name\": \"user\"}}");
	test_write_file(d, "{\"meta\": {\"name\": \"data\"}}");
	test_write_file(d2, "{\"meta\": {\"name\": \"data-y\"}}");
	cr_assert_eq(profile_load("x", &env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(p->meta_name, "user");
	p = profile_free(p);
	cr_assert_eq(profile_load("y", &env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(p->meta_name, "data-y");
	p = profile_free(p);
	cr_assert_eq(profile_load("git", &env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(p->file, "builtin:git");
	p = profile_free(p);
	cr_expect_eq(profile_load("nothing-like-it", &env, &p, &e), -ENOENT);
	cr_expect_str_eq(e.message, "nothing-like-it: no profile by that name (not in the user or installed profile "
				    "directories, not built in)");
	/* did you mean: a built-in's name, or one in the user's directory */
	cr_expect_eq(profile_load("nope", &env, &p, &e), -ENOENT);
	cr_expect_str_eq(e.message, "nope: no profile by that name, did you mean \"node\"?");
	cr_expect_eq(profile_load("yy", &env, &p, &e), -ENOENT);
	cr_expect_str_eq(e.message, "yy: no profile by that name, did you mean \"y\"?");
	cr_expect_eq(profile_load(u, &env, &p, &e), 0, "a path is read as a path");
}

/* ---- tokens ------------------------------------------------------------------ */

static bool rules_have(const struct profile_rules *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].path, path) == 0)
			return true;
	return false;
}

Test(profile, tokens_expand_and_git_config_is_global_only)
{
	_cleanup_free_ char *tmp = make_tmpdir();
	_cleanup_free_ char *home = NULL, *ws = NULL, *xdg = NULL, *t = NULL, *etc = NULL;
	_cleanup_free_ char *inc = NULL, *inc2 = NULL, *gc = NULL, *xgc = NULL, *sysc = NULL, *repo = NULL;
	_cleanup_free_ char *text = NULL, *x = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = {};
	struct cordon_error e = {};
	char buf[PATH_MAX * 2];

	cr_assert_eq(cordon_canonicalize(tmp, &x, NULL), 0);
	home = join(x, "home");
	ws = join(x, "ws");
	xdg = join(x, "xdg");
	t = join(x, "t");
	etc = join(x, "etc");
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(xdg, 0755), 0);
	cr_assert_eq(mkdir(t, 0755), 0);
	cr_assert_eq(mkdir(etc, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/git", xdg);
	cr_assert_eq(mkdir(buf, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/.git", ws);
	cr_assert_eq(mkdir(buf, 0755), 0);

	gc = join(home, ".gitconfig");
	inc = join(home, "extra.gitconfig");
	inc2 = join(home, "deeper.inc");
	xgc = join(xdg, "git/config");
	sysc = join(etc, "gitconfig");
	repo = join(ws, ".git/config");
	test_write_file(gc, "[user]\n\tname = Someone\n[include]\n\tpath = extra.gitconfig\n");
	test_write_file(inc, "# included\n[Core]\n\thooksPath = ~/hooks ; comment\n[include]\n\tpath = \"~/deeper.inc\"\n");
	test_write_file(inc2, "[core]\n\thookspath = /srv/global-hooks\n");
	test_write_file(xgc, "[core]\n\teditor = vi\n");
	test_write_file(sysc, "[core]\n\thooksPath = /etc/system-hooks\n");
	/* the repository's own config must never be read */
	snprintf(buf, sizeof(buf), "[core]\n\thooksPath = /evil/hooks\n[include]\n\tpath = %s/evil.inc\n", ws);
	test_write_file(repo, buf);
	snprintf(buf, sizeof(buf), "%s/evil.inc", ws);
	test_write_file(buf, "[core]\n\thooksPath = /evil/included\n");

	env.workspace = ws;
	env.home = home;
	env.tmpdir = t;
	env.xdg_config_home = xdg;
	env.user_profile_dir = "";
	env.data_profile_dir = "";
	env.system_gitconfig = sysc;
	text = strdup("{\"filesystem\": {\"protect\": [\"@git:config-files\", \"@git:hooks-path\",\n"
		      " \"$WORKSPACE/p\", \"$HOME/h\", \"$TMPDIR/t\", \"$XDG_CONFIG_HOME/x\", \"~\", \"~/tilde\", \"rel/path\"]}}");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "tok.json", &env, &p, &e), 0, "%s", e.message);

	cr_expect(rules_have(&p->protect, gc));
	cr_expect(rules_have(&p->protect, inc));
	cr_expect(rules_have(&p->protect, inc2));
	cr_expect(rules_have(&p->protect, xgc));
	cr_expect(rules_have(&p->protect, sysc));
	cr_expect(!rules_have(&p->protect, repo), "repository-local config must not be named");
	snprintf(buf, sizeof(buf), "%s/hooks", home);
	cr_expect(rules_have(&p->protect, buf), "hooksPath from an included file");
	cr_expect(rules_have(&p->protect, "/srv/global-hooks"), "hooksPath from a nested include");
	cr_expect(rules_have(&p->protect, "/etc/system-hooks"), "hooksPath from the system config");
	cr_expect(!rules_have(&p->protect, "/evil/hooks"));
	cr_expect(!rules_have(&p->protect, "/evil/included"));
	for (size_t i = 0; i < p->protect.n; i++)
		cr_expect(strncmp(p->protect.v[i].path, "/evil", 5) != 0, "%s", p->protect.v[i].path);

	snprintf(buf, sizeof(buf), "%s/p", ws);
	cr_expect(rules_have(&p->protect, buf));
	snprintf(buf, sizeof(buf), "%s/h", home);
	cr_expect(rules_have(&p->protect, buf));
	snprintf(buf, sizeof(buf), "%s/t", t);
	cr_expect(rules_have(&p->protect, buf));
	snprintf(buf, sizeof(buf), "%s/x", xdg);
	cr_expect(rules_have(&p->protect, buf));
	cr_expect(rules_have(&p->protect, home));
	snprintf(buf, sizeof(buf), "%s/tilde", home);
	cr_expect(rules_have(&p->protect, buf));
	snprintf(buf, sizeof(buf), "%s/rel/path", ws);
	cr_expect(rules_have(&p->protect, buf));
	/* the origin of an expanded token is the token's own entry */
	for (size_t i = 0; i < p->protect.n; i++)
		if (strcmp(p->protect.v[i].path, inc2) == 0) {
			cr_expect_str_eq(p->protect.v[i].spelled, "@git:config-files");
			cr_expect_str_eq(p->protect.v[i].origin.pointer, "/filesystem/protect/0");
		}
}

Test(profile, git_include_depth_is_capped)
{
	_cleanup_free_ char *home = make_tmpdir();
	_cleanup_free_ char *x = NULL;
	struct git_paths g = {};
	char buf[PATH_MAX * 2];

	cr_assert_eq(cordon_canonicalize(home, &x, NULL), 0);
	/* .gitconfig includes itself: must end */
	snprintf(buf, sizeof(buf), "%s/.gitconfig", x);
	test_write_file(buf, "[include]\npath = ~/.gitconfig\n[core]\nhooksPath = /h\n");
	cr_assert_eq(git_paths_read(x, NULL, "", &g), 0);
	cr_expect_eq(strv_length(g.hooks_paths), 1);
	git_paths_clear(&g);
}

Test(profile, missing_paths_and_read_noops_are_reported)
{
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *ws = NULL, *text = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env env = corpus_env;
	struct cordon_error e = {};
	size_t missing = 0, noop = 0;

	cr_assert_eq(cordon_canonicalize(dir, &ws, NULL), 0);
	env.workspace = ws;
	text = strdup("{\"filesystem\": {\"read\": [\"/usr\", \"$WORKSPACE/nope\"],\n"
		      " \"write\": [\"$WORKSPACE/gone\", \"$WORKSPACE\"], \"deny_read\": [\"/nonexistent/x\"],\n"
		      " \"protect\": [\"$WORKSPACE/later\"]}}");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "m.json", &env, &p, &e), 0, "%s", e.message);
	for (size_t i = 0; i < p->n_notes; i++) {
		if (p->notes[i].kind == PROFILE_NOTE_MISSING_PATH)
			missing++;
		if (p->notes[i].kind == PROFILE_NOTE_READ_NOOP)
			noop++;
	}
	cr_expect_eq(missing, 3); /* read nope, write gone, deny_read x */
	cr_expect_eq(noop, 2);
	cr_expect_eq(p->read.n, 1);
	/* a missing write grant stays: the policy makes it (below the
	 * workspace or HOME) or refuses it, never skips it */
	cr_expect_eq(p->write.n, 2);
	cr_expect_eq(p->deny_read.n, 0);
	cr_expect_eq(p->protect.n, 1, "a protect rule holds for a path created later");
}

Test(profile, limits_are_handed_over)
{
	const char *text = "{\"limits\": {\"timeout\": \"5m\", \"cpu\": 60, \"memory\": \"512M\", \"max_processes\": 64,"
			   " \"max_file_size\": \"1G\", \"max_open_files\": 256, \"max_output\": \"64k\","
			   " \"on_output_limit\": \"kill\", \"limits_fallback\": \"fail\"}}";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "l.json", &corpus_env, &p, &e), 0, "%s", e.message);
	cr_expect_eq(p->limits.set, (1u << _PROFILE_LIMIT_MAX) - 1);
	cr_expect_eq(p->limits.timeout_seconds, 300);
	cr_expect_eq(p->limits.cpu_seconds, 60);
	cr_expect_eq(p->limits.memory, 512ull << 20);
	cr_expect_eq(p->limits.max_processes, 64);
	cr_expect_eq(p->limits.max_file_size, 1ull << 30);
	cr_expect_eq(p->limits.max_open_files, 256);
	cr_expect_eq(p->limits.max_output, 64 << 10);
	cr_expect_eq(p->limits.on_output_limit, PROFILE_OUTPUT_KILL);
	cr_expect(p->limits.fallback_fail);
	cr_expect_str_eq(p->limits.origin[PROFILE_LIMIT_MEMORY].pointer, "/limits/memory");
}

/* ---- apply -------------------------------------------------------------------- */

static void assert_strv_same(char **a, char **b, const char *what)
{
	size_t na = strv_length(a), nb = strv_length(b);

	cr_assert_eq(na, nb, "%s: %zu vs %zu entries", what, na, nb);
	for (size_t i = 0; i < na; i++)
		cr_expect_str_eq(a[i], b[i], "%s[%zu]", what, i);
}

static void assert_policies_equal(const struct cordon_policy *a, const struct cordon_policy *b)
{
	cr_expect_eq(a->mode, b->mode);
	cr_expect_eq(a->net, b->net);
	cr_expect_eq(a->isolation, b->isolation);
	cr_expect_str_eq(a->workspace, b->workspace);
	if (a->home || b->home)
		cr_expect_str_eq(a->home, b->home);
	assert_strv_same(a->writable_roots, b->writable_roots, "writable_roots");
	cr_assert_eq(a->n_deny, b->n_deny);
	for (size_t i = 0; i < a->n_deny; i++) {
		cr_expect_str_eq(a->deny[i].path, b->deny[i].path);
		cr_expect_eq(a->deny[i].exists, b->deny[i].exists);
		cr_expect_eq(a->deny[i].is_dir, b->deny[i].is_dir);
		cr_expect_eq(a->deny[i].only_without_net, b->deny[i].only_without_net);
	}
	assert_strv_same(a->protect, b->protect, "protect");
	assert_strv_same(a->env, b->env, "env");
	assert_strv_same(a->keep_env, b->keep_env, "keep_env");
	cr_expect_eq(a->required, b->required);
	cr_expect_eq(a->caller_is_root, b->caller_is_root);
}

Test(profile, default_profile_is_exactly_the_default_policy)
{
	_cleanup_free_ char *ws = make_tmpdir();
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_policy_ struct cordon_policy *from_profile = NULL, *plain = NULL;
	struct profile_env env = { .workspace = ws, .user_profile_dir = "", .data_profile_dir = "" };
	struct cordon_error e = {};

	cr_assert_eq(profile_load("default", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_apply(p, &from_profile, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &plain, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_set_net(plain, CORDON_NET_NONE), 0);
	assert_policies_equal(from_profile, plain);
	cr_expect_eq(p->n_notes, 0);
}

Test(profile, apply_builds_the_policy)
{
	_cleanup_free_ char *tmp = make_tmpdir();
	_cleanup_free_ char *ws = NULL, *home = NULL, *gh = NULL, *build = NULL, *secret = NULL, *text = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_policy_ struct cordon_policy *pol = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "" };
	struct cordon_error e = {};
	char buf[PATH_MAX];
	bool gh_denied = false, secret_denied = false;

	cr_assert_eq(cordon_canonicalize(tmp, &ws, NULL), 0);
	home = join(ws, "home");
	gh = join(home, ".config/gh");
	build = join(ws, "build");
	secret = join(ws, "secret");
	cr_assert_eq(mkdir(home, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/.config", home);
	cr_assert_eq(mkdir(buf, 0755), 0);
	cr_assert_eq(mkdir(gh, 0755), 0);
	cr_assert_eq(mkdir(build, 0755), 0);
	cr_assert_eq(mkdir(secret, 0755), 0);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	cr_assert_eq(setenv("CORDON_TEST_KEEP", "kept", 1), 0);
	env.workspace = ws;

	text = strdup("{\"filesystem\": {\"read\": [\"~/.config/gh\"], \"write\": [\"$WORKSPACE/build\"],"
		      " \"deny_read\": [\"$WORKSPACE/secret\"], \"protect\": [\"$WORKSPACE/Makefile\"]},"
		      " \"groups\": {\"credentials\": {\"bypass\": [\"~/.config/gh\"]}},"
		      " \"network\": {\"mode\": \"host\"},"
		      " \"environment\": {\"allow_vars\": [\"CORDON_TEST_*\"], \"set_vars\": {\"CI\": \"1\"}}}");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "a.json", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_expect_eq(pol->net, CORDON_NET_HOST);
	cr_expect(strv_contains(pol->writable_roots, build));
	for (size_t i = 0; i < pol->n_deny; i++) {
		if (strcmp(pol->deny[i].path, gh) == 0)
			gh_denied = true;
		if (strcmp(pol->deny[i].path, secret) == 0)
			secret_denied = true;
	}
	cr_expect(!gh_denied, "a bypassed credential entry is not denied");
	cr_expect(secret_denied);
	snprintf(buf, sizeof(buf), "%s/Makefile", ws);
	cr_expect(strv_contains(pol->protect, buf));
	cr_expect(strv_contains(pol->keep_env, "CORDON_TEST_*"));
	cr_expect(strv_contains(pol->env, "CORDON_TEST_KEEP=kept"));
	cr_expect(strv_contains(pol->env, "CI=1"));
}

/* ---- why ------------------------------------------------------------------------- */

Test(profile, why_names_the_deciding_rule)
{
	_cleanup_free_ char *tmp = make_tmpdir();
	_cleanup_free_ char *ws = NULL, *home = NULL, *text = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL, *ro = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "" };
	struct profile_decision d;
	struct cordon_error e = {};
	char buf[PATH_MAX];

	cr_assert_eq(cordon_canonicalize(tmp, &ws, NULL), 0);
	home = join(ws, "home");
	cr_assert_eq(mkdir(home, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/out", ws);
	cr_assert_eq(mkdir(buf, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/cache", home);
	cr_assert_eq(mkdir(buf, 0755), 0);
	env.workspace = ws;
	env.home = home;
	text = strdup("{\n \"filesystem\": {\n  \"write\": [\"~/cache\"],\n  \"deny_read\": [\"$WORKSPACE/out\"],\n"
		      "  \"protect\": [\"$WORKSPACE/Makefile\"]\n }\n}\n");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "why.json", &env, &p, &e), 0, "%s", e.message);

	snprintf(buf, sizeof(buf), "%s/out/x", ws);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.file, "why.json");
	cr_expect_str_eq(d.pointer, "/filesystem/deny_read/0");

	snprintf(buf, sizeof(buf), "%s/cache/f", home);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_WRITE, &d), 0);
	cr_expect(d.allow);
	cr_expect_str_eq(d.pointer, "/filesystem/write/0");

	cr_assert_eq(profile_why_path(p, "Makefile", PROFILE_OP_WRITE, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.pointer, "/filesystem/protect/0");

	cr_assert_eq(profile_why_path(p, "src/main.c", PROFILE_OP_WRITE, &d), 0);
	cr_expect(d.allow, "%s", d.reason);
	cr_expect(strstr(d.reason, "in the workspace") != NULL, "%s", d.reason);

	cr_assert_eq(profile_why_path(p, ".git/hooks/pre-commit", PROFILE_OP_WRITE, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.pointer, "/groups/persistence");

	snprintf(buf, sizeof(buf), "%s/.ssh/id_ed25519", home);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.file, "(built-in)");
	cr_expect_str_eq(d.pointer, "/groups/credentials");

	cr_assert_eq(profile_why_path(p, "/usr/bin/env", PROFILE_OP_EXEC, &d), 0);
	cr_expect(d.allow);
	cr_assert_eq(profile_why_path(p, "/usr/bin/env", PROFILE_OP_WRITE, &d), 0);
	cr_expect(!d.allow);

	cr_assert_eq(profile_why_host(p, "example.com", 443, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.file, "(built-in)");

	/* read-only decides by its mode rule, in the file that set it */
	cr_assert_eq(profile_load("read-only", &env, &ro, &e), 0, "%s", e.message);
	cr_assert_eq(profile_why_path(ro, "src/main.c", PROFILE_OP_WRITE, &d), 0);
	cr_expect(!d.allow);
	cr_expect_str_eq(d.file, "builtin:read-only");
	cr_expect_str_eq(d.pointer, "/mode");
}

Test(profile, why_host_follows_network_mode)
{
	const char *text = "{\"network\": {\"mode\": \"host\"}}";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_decision d;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "n.json", &corpus_env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_why_host(p, "example.com", 443, &d), 0);
	cr_expect(d.allow);
	cr_expect_str_eq(d.file, "n.json");
	cr_expect_str_eq(d.pointer, "/network/mode");
	cr_expect_eq(profile_why_host(p, "", 443, &d), -EINVAL);
}

/* ---- schema ---------------------------------------------------------------------- */

static void assert_properties_match(json_t *schema_obj, const char *section)
{
	const char *const *known = profile_known_keys(section);
	json_t *props = json_object_get(schema_obj, "properties");
	size_t n = 0;

	cr_assert_not_null(props, "schema section '%s' has no properties", section);
	cr_expect(json_is_false(json_object_get(schema_obj, "additionalProperties")),
		  "schema section '%s' must refuse unknown keys", section);
	for (; known[n]; n++)
		cr_expect_not_null(json_object_get(props, known[n]), "schema '%s' lacks %s", section, known[n]);
	cr_expect_eq(json_object_size(props), n, "schema '%s' names keys the loader does not know", section);
}

static json_t *resolve_ref(json_t *root, json_t *node)
{
	const char *ref = json_string_value(json_object_get(node, "$ref"));

	if (!ref)
		return node;
	cr_assert(strncmp(ref, "#/$defs/", 8) == 0, "%s", ref);
	return json_object_get(json_object_get(root, "$defs"), ref + 8);
}

Test(profile, schema_names_exactly_the_loaders_keys)
{
	_cleanup_free_ char *path = join(srcdir(), "share/cordon/profile.schema.json");
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	json_t *props;
	const char *sections[] = { "meta", "filesystem", "network", "environment", "limits" };

	cr_assert_not_null(root, "%s: %s", path, jerr.text);
	cr_expect_str_eq(json_string_value(json_object_get(root, "$schema")),
			 "https://json-schema.org/draft/2020-12/schema");
	assert_properties_match(root, "");
	props = json_object_get(root, "properties");
	for (size_t i = 0; i < ELEMENTSOF(sections); i++)
		assert_properties_match(resolve_ref(root, json_object_get(props, sections[i])), sections[i]);
	/* groups: the built-in names are properties, anything else a user group */
	{
		json_t *g = resolve_ref(root, json_object_get(props, "groups"));
		json_t *gp = json_object_get(g, "properties");
		const char *const *known = profile_known_keys("groups");
		size_t n = 0;

		for (; known[n]; n++)
			cr_expect_not_null(json_object_get(gp, known[n]), "groups lacks %s", known[n]);
		cr_expect_eq(json_object_size(gp), n);
	}
	/* command_policies: each of its objects names exactly the loader's keys */
	{
		static const struct {
			const char *section, *def;
		} tools[] = {
			{ "command_policies", "command_policies" }, { "command", "tool_command" },
			{ "sandbox", "tool_sandbox" },		    { "invocation_policy", "invocation_policy" },
			{ "rule", "command_rule" },
		};
		json_t *defs = json_object_get(root, "$defs");

		for (size_t i = 0; i < ELEMENTSOF(tools); i++) {
			json_t *def = json_object_get(defs, tools[i].def);

			cr_assert_not_null(def, "the schema has no $defs/%s", tools[i].def);
			assert_properties_match(def, tools[i].section);
		}
	}
	/* groups.credentials.lift: exactly the credential groups the loader takes */
	{
		json_t *g = resolve_ref(root, json_object_get(props, "groups"));
		json_t *c = json_object_get(json_object_get(g, "properties"), "credentials");
		json_t *lift = json_object_get(json_object_get(c, "properties"), "lift");
		json_t *en = json_object_get(json_object_get(lift, "items"), "enum");
		const char *names[32];
		size_t n = profile_credential_groups(names, ELEMENTSOF(names));

		cr_assert(json_is_array(en), "the schema has no enum for groups.credentials.lift");
		cr_expect_eq(json_array_size(en), n);
		for (size_t i = 0; i < n && i < json_array_size(en); i++)
			cr_expect_str_eq(json_string_value(json_array_get(en, i)), names[i]);
	}
	json_decref(root);
}

Test(profile, writable_home_keeps_startup_files_read_only)
{
	_cleanup_free_ char *tmp = make_tmpdir();
	_cleanup_free_ char *base = NULL, *home = NULL, *ws = NULL, *bashrc = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_policy_ struct cordon_policy *pol = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "" };
	struct cordon_error e = {};
	const char *text = "{\"filesystem\": {\"write\": [\"~\"]}}";

	cr_assert_eq(cordon_canonicalize(tmp, &base, NULL), 0);
	home = join(base, "home");
	ws = join(base, "ws");
	bashrc = join(home, ".bashrc");
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	env.workspace = ws;
	cr_assert_eq(profile_load_buffer(text, strlen(text), "h.json", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_expect(strv_contains(pol->writable_roots, home));
	cr_expect(strv_contains(pol->protect, bashrc), "~/.bashrc must stay read-only when ~ is writable");
}

Test(profile, sizes)
{
	uint64_t v;

	cr_expect_eq(profile_parse_size("64M", &v), 0);
	cr_expect_eq(v, 64ull << 20);
	cr_expect_eq(profile_parse_size("10k", &v), 0);
	cr_expect_eq(v, 10240);
	cr_expect_eq(profile_parse_size("2GiB", &v), 0);
	cr_expect_eq(v, 2ull << 30);
	cr_expect_eq(profile_parse_size("5", &v), 0);
	cr_expect_eq(v, 5);
	cr_expect_eq(profile_parse_size("99999999999T", &v), -ERANGE);
	cr_expect_eq(profile_parse_size("1Q", &v), -EINVAL);
	cr_expect_eq(profile_parse_size("-1", &v), -EINVAL);
	cr_expect_eq(profile_parse_size("", &v), -EINVAL);
	cr_expect_eq(profile_parse_size("1MX", &v), -EINVAL);
}

Test(profile, edit_distance)
{
	cr_expect_eq(edit_distance("write", "wirte", 2), 2);
	cr_expect_eq(edit_distance("write", "write", 2), 0);
	cr_expect_eq(edit_distance("banana", "mode", 2), 3);
	cr_expect_eq(edit_distance("deny_red", "deny_read", 2), 1);
}

Test(profile, extends_a_fifo_does_not_hang, .timeout = 10)
{
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *fifo = join(dir, "fifo.json"), *top = join(dir, "top.json");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	test_write_file(top, "{\"extends\": \"fifo.json\"}");
	cr_expect_eq(profile_load(top, &corpus_env, &p, &e), -EINVAL);
	cr_expect(strstr(e.message, "cannot read") != NULL, "%s", e.message);
	cr_expect_eq(profile_load(fifo, &corpus_env, &p, &e), -EINVAL);
}

/* ---- credential groups lifted by name --------------------------------------------- */

static bool policy_denies(const struct cordon_policy *pol, const char *path)
{
	for (size_t i = 0; i < pol->n_deny; i++)
		if (strcmp(pol->deny[i].path, path) == 0)
			return true;
	return false;
}

/* A home under a fresh canonical temp directory, HOME pointing at it. */
static char *make_home(char **ret_ws)
{
	_cleanup_free_ char *tmp = make_tmpdir(), *base = NULL;
	char *home;

	cr_assert_eq(cordon_canonicalize(tmp, &base, NULL), 0);
	home = join(base, "home");
	*ret_ws = join(base, "ws");
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(*ret_ws, 0755), 0);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	return home;
}

Test(profile, lift_uncovers_exactly_the_named_groups)
{
	_cleanup_free_ char *ws = NULL, *home = make_home(&ws), *text = NULL, *json = NULL;
	_cleanup_free_ char *aws = join(home, ".aws"), *amazonq = join(home, ".aws/amazonq"), *ssh = join(home, ".ssh");
	_cleanup_free_ char *npmrc = join(home, ".npmrc"), *gcloud = join(home, ".config/gcloud");
	_cleanup_profile_ struct cordon_profile *p = NULL, *def = NULL;
	_cleanup_policy_ struct cordon_policy *pol = NULL, *defpol = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "", .workspace = ws, .home = home };
	struct profile_decision d;
	struct cordon_error e = {};
	char buf[PATH_MAX];
	size_t lift_notes = 0;

	cr_assert_eq(mkdir(aws, 0700), 0);
	cr_assert_eq(mkdir(amazonq, 0700), 0);
	cr_assert_eq(mkdir(ssh, 0700), 0);
	/* no read grant: naming the group is the grant */
	text = strdup("{\n \"groups\": {\n  \"credentials\": {\"lift\": [\"cloud\"]}\n }\n}\n");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(p->lift_credentials.n, 1);
	cr_expect_str_eq(p->lift_credentials.v[0].path, "cloud");
	cr_expect(profile_rules_contain(&p->lifted_credentials, aws));
	cr_expect(profile_rules_contain(&p->lifted_credentials, gcloud), "a lift covers entries that do not exist yet");
	cr_expect(!profile_rules_contain(&p->lifted_credentials, amazonq), "~/.aws/amazonq is agents, not cloud");
	cr_expect(!profile_rules_contain(&p->lifted_credentials, ssh));
	for (size_t i = 0; i < p->lifted_credentials.n; i++) {
		cr_expect_str_eq(p->lifted_credentials.v[i].spelled, "cloud");
		cr_expect_str_eq(p->lifted_credentials.v[i].origin.pointer, "/groups/credentials/lift/0");
	}
	for (size_t i = 0; i < p->n_notes; i++)
		lift_notes += p->notes[i].kind == PROFILE_NOTE_LIFT;
	cr_expect_eq(lift_notes, p->lifted_credentials.n, "profile show lists every lifted entry");

	/* the policy: cloud's entries gone, everything else as in the default */
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_assert_eq(profile_load("default", &env, &def, &e), 0, "%s", e.message);
	cr_assert_eq(profile_apply(def, &defpol, &e), 0, "%s", e.message);
	cr_expect(policy_denies(defpol, aws), "control: the default hides ~/.aws");
	cr_expect(!policy_denies(pol, aws));
	cr_expect(!policy_denies(pol, gcloud));
	cr_expect(policy_denies(pol, amazonq));
	cr_expect(policy_denies(pol, ssh));
	cr_expect(policy_denies(pol, npmrc));
	for (size_t i = 0; i < defpol->n_deny; i++)
		if (!profile_rules_contain(&p->lifted_credentials, defpol->deny[i].path))
			cr_expect(policy_denies(pol, defpol->deny[i].path), "%s lost", defpol->deny[i].path);

	/* why names the lift */
	snprintf(buf, sizeof(buf), "%s/config", aws);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(d.allow, "%s", d.reason);
	cr_expect_str_eq(d.file, "lift.json");
	cr_expect_str_eq(d.pointer, "/groups/credentials/lift/0");
	cr_expect(strstr(d.reason, "credential group cloud is lifted") != NULL, "%s", d.reason);
	cr_assert_eq(profile_why_path(def, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow, "control: the default denies %s", buf);
	snprintf(buf, sizeof(buf), "%s/token", amazonq);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow, "%s", d.reason);
	snprintf(buf, sizeof(buf), "%s/id_ed25519", ssh);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow);

	/* a read grant below a lifted entry is no contradiction any more */
	free(text);
	text = strdup("{\"groups\": {\"credentials\": {\"lift\": [\"cloud\"]}}, \"filesystem\": {\"read\": [\"~/.aws\"]}}");
	profile_free(TAKE_PTR(p));
	cr_expect_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), 0, "%s", e.message);
	free(text);
	text = strdup("{\"groups\": {\"credentials\": {\"lift\": [\"cloud\"]}}, \"filesystem\": {\"read\": [\"~/.ssh\"]}}");
	profile_free(TAKE_PTR(p));
	cr_expect_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), -EPERM);

	/* the JSON form says lift, and loads back to it */
	free(text);
	text = strdup("{\"groups\": {\"credentials\": {\"lift\": [\"registries\", \"cloud\", \"registries\"]}}}");
	cr_assert_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_to_json(p, &json), 0);
	cr_expect(strstr(json, "\"lift\": [\n        \"registries\",\n        \"cloud\"\n      ]") != NULL, "%s", json);
}

Test(profile, lift_never_uncovers_an_entry_of_another_group)
{
	_cleanup_free_ char *ws = NULL, *home = make_home(&ws);
	_cleanup_free_ char *aws = join(home, ".aws"), *ssh = join(home, ".ssh");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_policy_ struct cordon_policy *pol = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "", .workspace = ws, .home = home };
	const char *text = "{\"groups\": {\"credentials\": {\"lift\": [\"cloud\"]}}}";
	struct profile_decision d;
	struct cordon_error e = {};
	char buf[PATH_MAX];

	/* ~/.aws is a symlink onto ~/.ssh: lifting cloud must not show the keys */
	cr_assert_eq(mkdir(ssh, 0700), 0);
	cr_assert_eq(symlink(".ssh", aws), 0);
	cr_assert_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), 0, "%s", e.message);
	cr_expect(!profile_rules_contain(&p->lifted_credentials, ssh));
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_expect(policy_denies(pol, ssh), "~/.ssh stays hidden behind a lifted ~/.aws symlink");
	snprintf(buf, sizeof(buf), "%s/id_ed25519", aws);
	cr_assert_eq(profile_why_path(p, buf, PROFILE_OP_READ, &d), 0);
	cr_expect(!d.allow, "%s", d.reason);
}

Test(profile, lift_merges_through_extends)
{
	_cleanup_free_ char *ws = NULL, *home = make_home(&ws);
	_cleanup_free_ char *dir = make_tmpdir();
	_cleanup_free_ char *parent = join(dir, "parent.json"), *child = join(dir, "child.json");
	_cleanup_free_ char *aws = join(home, ".aws"), *npmrc = join(home, ".npmrc"), *ssh = join(home, ".ssh");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_policy_ struct cordon_policy *pol = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "", .workspace = ws, .home = home };
	struct cordon_error e = {};

	test_write_file(parent, "{\"extends\": \"workspace-write\",\n \"groups\": {\"credentials\": {\"lift\": [\"cloud\"]}}}\n");
	test_write_file(child, "{\"extends\": \"parent.json\",\n"
			  " \"groups\": {\"credentials\": {\"lift\": [\"registries\", \"cloud\"]}}}\n");
	cr_assert_eq(profile_load(child, &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(p->lift_credentials.n, 2);
	cr_expect_str_eq(p->lift_credentials.v[0].path, "cloud");
	cr_expect_str_eq(p->lift_credentials.v[0].origin.file, parent);
	cr_expect_str_eq(p->lift_credentials.v[1].path, "registries");
	cr_expect_str_eq(p->lift_credentials.v[1].origin.file, child);
	cr_expect_str_eq(p->lift_credentials.v[1].origin.pointer, "/groups/credentials/lift/0");
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_expect(!policy_denies(pol, aws));
	cr_expect(!policy_denies(pol, npmrc));
	cr_expect(policy_denies(pol, ssh));
	/* a child's deny_read still wins over its parent's lift */
	test_write_file(child, "{\"extends\": \"parent.json\",\n \"filesystem\": {\"deny_read\": [\"~/.aws\"]}}\n");
	profile_free(TAKE_PTR(p));
	cordon_policy_free(TAKE_PTR(pol));
	cr_assert_eq(mkdir(aws, 0700), 0);
	cr_assert_eq(profile_load(child, &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_apply(p, &pol, &e), 0, "%s", e.message);
	cr_expect(policy_denies(pol, aws));
}

Test(profile, lift_names_are_checked_with_did_you_mean)
{
	const char *text = "{\n  \"groups\": {\n    \"credentials\": {\"lift\": [\"cloud\", \"regsitries\"]}\n  }\n}\n";
	const char *names[32];
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	size_t n = profile_credential_groups(names, ELEMENTSOF(names));

	cr_assert_eq(profile_load_buffer(text, strlen(text), "p.json", &corpus_env, &p, &e), -EINVAL);
	cr_expect_str_eq(e.file, "p.json");
	cr_expect_eq(e.line, 3);
	cr_expect_eq(e.column, 39);
	cr_expect_str_eq(e.path, "/groups/credentials/lift/1");
	cr_expect_str_eq(e.message, "p.json:3:39: at /groups/credentials/lift/1: no credential group \"regsitries\", "
				    "did you mean \"registries\"?");
	/* every group of the catalogue, and the root caller's "system" */
	cr_expect_eq(n, 11);
	cr_expect_str_eq(names[0], "ssh");
	cr_expect_str_eq(names[n - 1], "system");
	cr_expect_null(names[n]);
	for (size_t i = 0; policy_default_deny_read[i].path; i++) {
		bool found = false;

		for (size_t k = 0; k < n; k++)
			found |= strcmp(names[k], policy_default_deny_read[i].group) == 0;
		cr_expect(found, "%s missing", policy_default_deny_read[i].group);
	}
}

Test(profile, lift_covers_the_passwd_home_and_system_only_when_named)
{
	_cleanup_free_ char *ws = NULL, *home = make_home(&ws);
	_cleanup_profile_ struct cordon_profile *p = NULL, *sys = NULL;
	struct profile_env env = { .user_profile_dir = "", .data_profile_dir = "", .workspace = ws, .home = home };
	const char *text = "{\"groups\": {\"credentials\": {\"lift\": [\"cloud\"]}}}";
	const char *text_sys = "{\"groups\": {\"credentials\": {\"lift\": [\"system\"]}}}";
	struct passwd *pw = getpwuid(getuid());
	_cleanup_free_ char *pw_aws = NULL, *pw_canon = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "lift.json", &env, &p, &e), 0, "%s", e.message);
	/* the passwd home too, when HOME points elsewhere, as the policy has it */
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && strcmp(pw->pw_dir, "/") != 0) {
		pw_aws = join(pw->pw_dir, ".aws");
		if (cordon_canonicalize(pw_aws, &pw_canon, NULL) == 0)
			cr_expect(profile_rules_contain(&p->lifted_credentials, pw_canon), "%s not lifted", pw_canon);
	}
	cr_expect(!profile_rules_contain(&p->lifted_credentials, "/etc/shadow"), "cloud does not lift system");
	cr_assert_eq(profile_load_buffer(text_sys, strlen(text_sys), "sys.json", &env, &sys, &e), 0, "%s", e.message);
	/* a root caller's secrets are only there to lift for root */
	cr_expect_eq(profile_rules_contain(&sys->lifted_credentials, "/etc/shadow"), geteuid() == 0);
	for (size_t i = 0; i < sys->lifted_credentials.n; i++)
		cr_expect(strncmp(sys->lifted_credentials.v[i].path, "/etc/", 5) == 0, "%s",
			  sys->lifted_credentials.v[i].path);
}
