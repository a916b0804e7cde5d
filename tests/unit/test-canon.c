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
#include "statmemo.h"

static char dir[] = "/tmp/cordon-canon-XXXXXX";
static char *real_dir;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	real_dir = realpath(dir, NULL);
	cr_assert_not_null(real_dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
	free(real_dir);
}

static char *at(const char *rel)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, rel);
	return buf[i];
}

static char *canon_ok(const char *p)
{
	char *out = NULL;
	struct cordon_error e = {};
	int r = cordon_canonicalize(p, &out, &e);

	cr_assert_eq(r, 0, "canonicalize(%s) = %d: %s", p, r, e.message);
	return out;
}

TestSuite(canon, .init = setup, .fini = teardown);

Test(canon, plain_directory)
{
	_cleanup_free_ char *c = canon_ok(dir);
	cr_assert_str_eq(c, real_dir);
}

Test(canon, symlink_followed_component_by_component)
{
	_cleanup_free_ char *c = NULL;
	char expect[600];

	cr_assert_eq(mkdir(at("real"), 0700), 0);
	cr_assert_eq(mkdir(at("real/sub"), 0700), 0);
	cr_assert_eq(symlink("real", at("link")), 0);
	c = canon_ok(at("link/sub"));
	snprintf(expect, sizeof(expect), "%s/real/sub", real_dir);
	cr_assert_str_eq(c, expect);
}

Test(canon, dotdot_applies_to_the_resolved_prefix)
{
	_cleanup_free_ char *c = NULL;
	char expect[600];

	/* link -> real/sub; link/.. is real, not the directory holding link */
	cr_assert_eq(mkdir(at("real"), 0700), 0);
	cr_assert_eq(mkdir(at("real/sub"), 0700), 0);
	cr_assert_eq(symlink("real/sub", at("link")), 0);
	c = canon_ok(at("link/.."));
	snprintf(expect, sizeof(expect), "%s/real", real_dir);
	cr_assert_str_eq(c, expect);
}

Test(canon, missing_tail_kept_verbatim)
{
	_cleanup_free_ char *c = NULL;
	char expect[600];

	cr_assert_eq(symlink(".", at("self")), 0);
	c = canon_ok(at("self/not/yet/there"));
	snprintf(expect, sizeof(expect), "%s/not/yet/there", real_dir);
	cr_assert_str_eq(c, expect);
}

Test(canon, symlink_loop_is_a_clear_error)
{
	char *out = NULL;
	struct cordon_error e = {};

	cr_assert_eq(symlink("b", at("a")), 0);
	cr_assert_eq(symlink("a", at("b")), 0);
	cr_assert_eq(cordon_canonicalize(at("a"), &out, &e), -ELOOP);
	cr_assert_null(out);
	cr_assert(strstr(e.message, "too many symbolic links (more than 40)"), "%s", e.message);
}

Test(canon, forty_hops_allowed_forty_one_refused)
{
	char name[32], target[32];
	char *out = NULL;
	struct cordon_error e = {};

	cr_assert_eq(mkdir(at("end"), 0700), 0);
	/* l0 -> l1 -> ... -> l40 -> end: 41 links from l0, 40 from l1 */
	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		if (i == 40)
			snprintf(target, sizeof(target), "end");
		else
			snprintf(target, sizeof(target), "l%d", i + 1);
		cr_assert_eq(symlink(target, at(name)), 0);
	}
	free(canon_ok(at("l1")));
	cr_assert_eq(cordon_canonicalize(at("l0"), &out, &e), -ELOOP);
}

Test(canon, nul_byte_refused)
{
	char *out = NULL;
	struct cordon_error e = {};

	cr_assert_eq(canonicalize_n("/tmp\0/etc", 9, &out, &e), -EINVAL);
	cr_assert(strstr(e.message, "NUL"), "%s", e.message);
}

Test(canon, root_and_dotdot_of_root)
{
	_cleanup_free_ char *a = canon_ok("/..");
	_cleanup_free_ char *b = canon_ok("/../../.");
	cr_assert_str_eq(a, "/");
	cr_assert_str_eq(b, "/");
}

Test(canon, relative_path_uses_cwd)
{
	_cleanup_free_ char *c = NULL;
	char cwd[4096];

	cr_assert_eq(chdir(dir), 0);
	c = canon_ok("x/./y//z");
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(strncmp(c, cwd, strlen(cwd)), 0);
	cr_assert(strstr(c, "/x/y/z"));
}

Test(canon, path_helpers)
{
	_cleanup_free_ char *j = path_join("/a/", "/b");
	cr_assert_str_eq(j, "/a/b");
	cr_assert(path_is_under("/a/b", "/a"));
	cr_assert(path_is_under("/a", "/a"));
	cr_assert_not(path_is_under("/ab", "/a"));
	cr_assert(path_is_under("/x", "/"));
}

/* A grant never follows a link inside a root a sandbox could write: in the
 * last component, in the middle, before a "..", refused naming the link;
 * a link outside every root, and a root reached through none, are fine. */
Test(canon, grant_refuses_a_link_inside_a_root)
{
	char ws[600], out[700], expect[600];
	const char *roots[] = { ws, NULL };
	const char *const *const lists[] = { roots, NULL };
	struct cordon_error e = {};
	char *c = NULL;

	cr_assert_eq(mkdir(at("ws"), 0700), 0);
	cr_assert_eq(mkdir(at("secret"), 0700), 0);
	cr_assert_eq(mkdir(at("secret/x"), 0700), 0);
	cr_assert_eq(mkdir(at("elsewhere"), 0700), 0);
	cr_assert_eq(symlink(at("secret"), at("ws/build")), 0);
	cr_assert_eq(symlink(at("elsewhere"), at("syslink")), 0);
	snprintf(ws, sizeof(ws), "%s/ws", real_dir);

	const char *refused[] = { "ws/build", "ws/build/x", "ws/build/../secret", "ws/build/missing/y" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		e = (struct cordon_error){};
		cr_assert_eq(canonicalize_grant(at(refused[i]), lists, &c, &e), -EPERM, "%s", refused[i]);
		cr_assert_null(c);
		snprintf(out, sizeof(out), "the symlink %s/build", ws);
		cr_assert(strstr(e.message, out), "%s: %s", refused[i], e.message);
	}
	/* controls: a link outside the roots, a plain path inside, no roots */
	cr_assert_eq(canonicalize_grant(at("syslink"), lists, &c, &e), 0, "%s", e.message);
	snprintf(expect, sizeof(expect), "%s/elsewhere", real_dir);
	cr_assert_str_eq(c, expect);
	free(c);
	cr_assert_eq(canonicalize_grant(at("ws"), lists, &c, &e), 0, "%s", e.message);
	cr_assert_str_eq(c, ws);
	free(c);
	cr_assert_eq(canonicalize_grant(at("ws/build"), NULL, &c, &e), 0, "%s", e.message);
	free(c);
}

/* statmemo: within one open memo a path is looked at once; the answer is
 * kept (even when the file goes meanwhile), and nothing is kept past it. */
Test(statmemo, one_look_per_path_while_open, .init = setup, .fini = teardown)
{
	struct stat st;
	char buf[64];
	bool opened;
	int fd;

	fd = open(at("f"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(symlink("f", at("l")), 0);

	opened = statmemo_open();
	cr_assert(opened);
	cr_assert_not(statmemo_open(), "a second open nests into the first");
	cr_assert_eq(statmemo_lstat(at("f"), &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(statmemo_lstat(at("gone"), &st), -ENOENT);
	cr_assert_eq(statmemo_lstat(at("l"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(statmemo_readlink(at("l"), buf, sizeof(buf)), 1);
	cr_assert_str_eq(buf, "f");
	cr_assert_eq(statmemo_readlink(at("l"), buf, 1), -EINVAL);
	cr_assert_eq(statmemo_readlink(at("l"), buf, 2), 1);
	cr_assert_eq(symlink("abc", at("l3")), 0);
	cr_assert_eq(statmemo_readlink(at("l3"), buf, 3), -ENAMETOOLONG);
	cr_assert_eq(statmemo_readlink(at("l3"), buf, 4), 3);

	/* the host changes: the open memo keeps the first answers */
	cr_assert_eq(unlink(at("f")), 0);
	cr_assert_eq(rename(at("l"), at("gone")), 0);
	cr_assert_eq(statmemo_lstat(at("f"), &st), 0);
	cr_assert_eq(statmemo_lstat(at("gone"), &st), -ENOENT);
	cr_assert_eq(statmemo_readlink(at("l"), buf, sizeof(buf)), 1);
	/* stat of a kept symlink is never taken from its lstat */
	cr_assert_eq(statmemo_stat(at("l"), &st), -ENOENT);
	statmemo_close(opened);

	/* closed: each call asks the kernel */
	cr_assert_eq(statmemo_lstat(at("f"), &st), -ENOENT);
	cr_assert_eq(statmemo_lstat(at("gone"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(statmemo_readlink(at("l"), buf, sizeof(buf)), -ENOENT);
}

/* canonicalisation inside an open memo gives what it gives outside */
Test(statmemo, canon_same_inside, .init = setup, .fini = teardown)
{
	_cleanup_free_ char *outside = NULL, *inside = NULL, *again = NULL;
	bool opened;

	cr_assert_eq(mkdir(at("d"), 0700), 0);
	cr_assert_eq(symlink("d", at("s")), 0);
	outside = canon_ok(at("s/x/y"));
	opened = statmemo_open();
	inside = canon_ok(at("s/x/y"));
	again = canon_ok(at("s/x/y"));
	statmemo_close(opened);
	cr_assert_str_eq(inside, outside);
	cr_assert_str_eq(again, outside);
}
