/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Resolve once, no symlink on the way; removal through the parent's fd. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathfd.h"

static char dir[] = "/tmp/cordon-pathfd-XXXXXX";
static char buf[4][PATH_MAX];

/* dir/rel, in one of four buffers (so a call can take several) */
static const char *P(int k, const char *rel)
{
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	/* real/sub/file, other/sub/file, and link -> other */
	cr_assert_eq(mkdir(P(0, "real"), 0755), 0);
	cr_assert_eq(mkdir(P(0, "real/sub"), 0755), 0);
	cr_assert_eq(close(creat(P(0, "real/sub/file"), 0644)), 0);
	cr_assert_eq(mkdir(P(0, "other"), 0755), 0);
	cr_assert_eq(mkdir(P(0, "other/sub"), 0755), 0);
	cr_assert_eq(close(creat(P(0, "other/sub/file"), 0644)), 0);
	cr_assert_eq(symlink("other", P(0, "link")), 0);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(pathfd, .init = setup, .fini = teardown);

/* fd names the same inode as path does */
static void assert_same(int fd, const char *path)
{
	struct stat a, b;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(-fd));
	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(lstat(path, &b), 0);
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "%s: another inode", path);
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	close(fd);
}

/* openat2 and its stand-in answer alike */
static int (*const openers[])(int, const char *, int) = { path_open_nofollow, path_open_walk };

Test(pathfd, a_real_path_opens_as_itself)
{
	for (size_t i = 0; i < 2; i++) {
		assert_same(openers[i](AT_FDCWD, P(0, "real/sub"), O_DIRECTORY), P(1, "real/sub"));
		assert_same(openers[i](AT_FDCWD, P(0, "real/sub/file"), 0), P(1, "real/sub/file"));
		assert_same(openers[i](AT_FDCWD, "/", O_DIRECTORY), "/");
		/* relative to a directory fd */
		int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		cr_assert_geq(d, 0);
		assert_same(openers[i](d, "real/sub/file", 0), P(1, "real/sub/file"));
		close(d);
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "real/missing"), 0), -ENOENT);
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "real/sub/file"), O_DIRECTORY), -ENOTDIR);
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "real/sub/file/x"), 0), -ENOTDIR);
	}
}

Test(pathfd, a_symlink_on_the_way_is_refused)
{
	/* control: the kernel's own lookup goes through it */
	cr_assert_eq(access(P(0, "link/sub/file"), F_OK), 0);
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "link/sub/file"), 0), -ELOOP, "opener %zu", i);
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "link/sub"), O_DIRECTORY | O_NOFOLLOW), -ELOOP);
		/* the last component: refused, or opened as the link itself */
		cr_assert_eq(openers[i](AT_FDCWD, P(0, "link"), 0), -ELOOP);
		int fd = openers[i](AT_FDCWD, P(0, "link"), O_NOFOLLOW);
		struct stat st;

		cr_assert_geq(fd, 0);
		cr_assert_eq(fstat(fd, &st), 0);
		cr_assert(S_ISLNK(st.st_mode), "the link itself, not other/");
		close(fd);
	}
	/* a /proc magic link is a symlink too */
	cr_assert_eq(path_open_nofollow(AT_FDCWD, "/proc/self/cwd", O_DIRECTORY), -ELOOP);
	cr_assert_eq(path_open_walk(AT_FDCWD, "/proc/self/cwd", O_DIRECTORY), -ELOOP);
}

Test(pathfd, the_parent_and_the_name)
{
	char name[NAME_MAX + 1];

	assert_same(path_open_parent(P(0, "real/sub/file"), name), P(1, "real/sub"));
	cr_assert_str_eq(name, "file");
	assert_same(path_open_parent(P(0, "real/sub/"), name), P(1, "real"));
	cr_assert_str_eq(name, "sub");
	assert_same(path_open_parent("/tmp", name), "/");
	cr_assert_str_eq(name, "tmp");
	cr_assert_eq(path_open_parent(P(0, "link/sub/file"), name), -ELOOP);
	/* the last component may be a link: it is the name, not followed */
	assert_same(path_open_parent(P(0, "link"), name), dir);
	cr_assert_str_eq(name, "link");
	cr_assert_eq(path_open_parent("/", name), -EINVAL);
	cr_assert_eq(path_open_parent("", name), -EINVAL);
	cr_assert_eq(path_open_parent(P(0, "real/.."), name), -EINVAL);
}

Test(pathfd, removes_what_it_was_asked_to)
{
	struct stat st;

	cr_assert_eq(path_remove(P(0, "real/sub/file"), 0), 0);
	cr_assert_eq(lstat(P(0, "real/sub/file"), &st), -1);
	cr_assert_eq(path_remove(P(0, "real/sub"), AT_REMOVEDIR), 0);
	cr_assert_eq(lstat(P(0, "real/sub"), &st), -1);
	/* the wrong kind is left alone */
	cr_assert_eq(path_remove(P(0, "other/sub"), 0), -EISDIR);
	cr_assert_eq(path_remove(P(0, "other/sub/file"), AT_REMOVEDIR), -ENOTDIR);
	cr_assert_eq(path_remove(P(0, "real/sub"), AT_REMOVEDIR), -ENOENT);
	/* a link is removed itself, never what it points at */
	cr_assert_eq(path_remove(P(0, "link"), AT_REMOVEDIR), -ENOTDIR);
	cr_assert_eq(path_remove(P(0, "link"), 0), 0);
	cr_assert_eq(lstat(P(0, "link"), &st), -1);
	cr_assert_eq(stat(P(0, "other/sub/file"), &st), 0);
}

/* Cleanup after the parent of what it removes was swapped for a symlink
 * (a directory renamed away, a link to another put in its place): nothing
 * at the link's target goes; the path-based removal it replaces would
 * have removed it. */
Test(pathfd, cleanup_after_a_parent_became_a_symlink_removes_nothing_elsewhere)
{
	struct stat st;

	cr_assert_eq(rename(P(0, "real"), P(1, "real.moved")), 0);
	cr_assert_eq(symlink("other", P(0, "real")), 0);
	cr_assert_eq(path_remove(P(0, "real/sub/file"), 0), -ELOOP);
	cr_assert_eq(stat(P(0, "other/sub/file"), &st), 0, "the symlink's target was removed");
	cr_assert_eq(path_remove(P(0, "real/sub/file"), 0), -ELOOP);
	cr_assert_eq(unlink(P(0, "other/sub/file")), 0);
	cr_assert_eq(path_remove(P(0, "real/sub"), AT_REMOVEDIR), -ELOOP);
	cr_assert_eq(stat(P(0, "other/sub"), &st), 0, "the symlink's target was removed");
	/* control: unlink(2) and rmdir(2) by path would have gone there */
	cr_assert_eq(rmdir(P(0, "real/sub")), 0);
	cr_assert_eq(stat(P(0, "other/sub"), &st), -1);
	/* and the moved directory is untouched */
	cr_assert_eq(stat(P(0, "real.moved/sub/file"), &st), 0);
}

Test(pathfd, components_one_at_a_time)
{
	const char *c = "//a//bc/", *long_name;
	char name[NAME_MAX + 1], big[NAME_MAX + 3];
	bool last = true;

	cr_assert_eq(path_next_component(&c, name, &last), 1);
	cr_assert_str_eq(name, "a");
	cr_assert_not(last);
	cr_assert_eq(path_next_component(&c, name, &last), 1);
	cr_assert_str_eq(name, "bc");
	cr_assert(last);
	cr_assert_eq(path_next_component(&c, name, &last), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	long_name = big;
	cr_assert_eq(path_next_component(&long_name, name, &last), -ENAMETOOLONG);
}
