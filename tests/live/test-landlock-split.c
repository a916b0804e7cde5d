/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Init's Landlock ruleset built in two halves (landlock_split.c): the
 * runner's from the host's tree while init mounts, init's from the
 * sandbox's tree at and beneath the paths it mounted on. Each case runs in
 * a forked child with a user and mount namespace of its own, which builds
 * the halves around its own mounts as the runner and init do, then
 * confines itself and makes every attempt; the same attempts under the
 * ruleset built whole after the mounts (as init alone built it) must give
 * exactly the same answers. The runner's half alone must not: the control
 * shows the mounted paths depend on init's half.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#ifndef cr_fatal
#define cr_fatal(...) cr_assert_fail(__VA_ARGS__)
#endif
#include "landlock.h"
#include "msgbuf.h"
#include "msgframe.h"
#include "runner.h"

static char tmp[PATH_MAX];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void setup_tmp(void)
{
	strcpy(tmp, "/tmp/cordon-llsplit-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown_tmp(void)
{
	if (tmp[0])
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(landlock_split, .init = setup_tmp, .fini = teardown_tmp);

static char *P(const char *rel)
{
	char *s;

	cr_assert(asprintf(&s, "%s/%s", tmp, rel) > 0);
	return s;
}

static void plant(const char *rel, const char *content)
{
	char *path = P(rel), *slash;
	FILE *f;

	for (slash = strchr(path + strlen(tmp) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	if (content) {
		f = fopen(path, "we");
		cr_assert_not_null(f, "create %s: %s", path, strerror(errno));
		fputs(content, f);
		fclose(f);
	} else
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	free(path);
}

enum mode { WHOLE, SPLIT, HOST_ONLY };

enum {
	A_READ_PLAIN,       /* a/f: beside nothing denied */
	A_READ_DENIED,      /* sec/s: beneath a denied directory */
	A_READ_DENIED_DEEP, /* cfg/gh/t: beneath a denied directory in a walked one */
	A_READ_SIBLING,     /* cfg/ok/u: beside it */
	A_READ_MOUNTED,     /* mnt/y: a file of a tmpfs mounted on an inside path */
	A_READ_MOUNTED_WALKED, /* cfg/mnt2/z: the same, in a walked directory */
	A_WRITE_ROOT,       /* wr/new: a writable root bound back onto itself */
	A_LIST_WALKED,      /* cfg: a walked directory, listed */
	A_WRITE_READONLY,   /* a/new: a readable root only */
	A_READ_COVERED,     /* mnt/h: the host's file under the tmpfs */
	A_N,
};

static bool read_ok(const char *rel)
{
	char *path = P(rel), c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, &c, 1) == 1;

	if (fd >= 0)
		close(fd);
	free(path);
	return ok;
}

static uint32_t attempts(void)
{
	uint32_t m = 0;
	char *path;
	int fd;

	m |= (uint32_t)read_ok("a/f") << A_READ_PLAIN;
	m |= (uint32_t)read_ok("sec/s") << A_READ_DENIED;
	m |= (uint32_t)read_ok("cfg/gh/t") << A_READ_DENIED_DEEP;
	m |= (uint32_t)read_ok("cfg/ok/u") << A_READ_SIBLING;
	m |= (uint32_t)read_ok("mnt/y") << A_READ_MOUNTED;
	m |= (uint32_t)read_ok("cfg/mnt2/z") << A_READ_MOUNTED_WALKED;
	m |= (uint32_t)read_ok("mnt/h") << A_READ_COVERED;
	path = P("wr/new");
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	m |= (uint32_t)(fd >= 0) << A_WRITE_ROOT;
	if (fd >= 0)
		close(fd);
	free(path);
	path = P("a/new");
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	m |= (uint32_t)(fd >= 0) << A_WRITE_READONLY;
	if (fd >= 0)
		close(fd);
	free(path);
	path = P("cfg");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m |= (uint32_t)(fd >= 0) << A_LIST_WALKED;
	if (fd >= 0)
		close(fd);
	free(path);
	return m;
}

/* A user and mount namespace of its own, its ids mapped as init maps
 * them (ns_map_ids), its mounts private. */
static int map_self(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 || ns_map_ids(uid, gid) < 0)
		return -1;
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* What init mounts, here: a tmpfs with a file of its own on two inside
 * paths, and the writable root bound onto itself. */
static int mount_inside(void)
{
	char *mnt = P("mnt"), *mnt2 = P("cfg/mnt2"), *wr = P("wr"), *y = P("mnt/y"), *z = P("cfg/mnt2/z");
	int fd, r = 0;

	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") < 0 || mount("tmpfs", mnt2, "tmpfs", 0, "size=64k") < 0 ||
	    mount(wr, wr, NULL, MS_BIND, NULL) < 0)
		r = -1;
	if (r == 0 && ((fd = open(y, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 || write(fd, "y", 1) != 1))
		r = -1;
	else if (r == 0)
		close(fd);
	if (r == 0 && ((fd = open(z, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 || write(fd, "z", 1) != 1))
		r = -1;
	else if (r == 0)
		close(fd);
	free(mnt);
	free(mnt2);
	free(wr);
	free(y);
	free(z);
	return r;
}

static int child(enum mode mode, int out)
{
	char *readable[] = { P("."), NULL }, *writable[] = { P("wr"), NULL };
	char *deny[] = { P("sec"), P("cfg/gh"), NULL };
	char *inside[] = { P("mnt"), P("cfg/mnt2"), P("wr"), NULL };
	struct landlock_rules rules = {
		.readable = (const char *const *)readable,
		.writable = (const char *const *)writable,
		.deny_read = (const char *const *)deny,
		.list_walked = true,
		.scope = true,
	};
	struct landlock_report rep;
	char err[512] = "";
	int fd = -1;
	uint32_t m;

	/* realpath of ".": tmp itself, canonical */
	readable[0] = realpath(readable[0], NULL);
	if (!readable[0] || map_self() < 0)
		return 2;
	if (mode != WHOLE) {
		rules.part = LANDLOCK_HOST;
		rules.inside = (const char *const *)inside;
		if (landlock_prepare(&rules, &rep, &fd, err, sizeof(err)) < 0) {
			fprintf(stderr, "host part: %s\n", err);
			return 3;
		}
	}
	if (mount_inside() < 0)
		return 4;
	if (mode == SPLIT) {
		rules.part = LANDLOCK_INSIDE;
		rules.ruleset_fd = fd;
		rules.rules_before = rep.rules;
		fd = -1;
	} else if (mode == WHOLE)
		rules.part = LANDLOCK_WHOLE;
	if (mode != HOST_ONLY && landlock_prepare(&rules, &rep, &fd, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", mode == SPLIT ? "inside part" : "whole", err);
		return 5;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || landlock_restrict(fd, err, sizeof(err)) < 0)
		return 6;
	m = attempts();
	return write(out, &m, sizeof(m)) == (ssize_t)sizeof(m) ? 0 : 7;
}

static uint32_t run(enum mode mode)
{
	int p[2], status;
	uint32_t m = 0;
	pid_t pid;

	cr_assert(pipe2(p, O_CLOEXEC) == 0);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		alarm(10);
		_exit(child(mode, p[1]));
	}
	close(p[1]);
	cr_assert(waitpid(pid, &status, 0) == pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mode %d: child status %#x", mode, status);
	cr_assert(read(p[0], &m, sizeof(m)) == (ssize_t)sizeof(m));
	close(p[0]);
	return m;
}

static void tree(void)
{
	plant("a/f", "f");
	plant("sec/s", "s");
	plant("cfg/gh/t", "t");
	plant("cfg/ok/u", "u");
	plant("cfg/mnt2", NULL);
	plant("mnt/h", "h");
	plant("wr", NULL);
}

#define BIT(a) (1u << (a))

Test(landlock_split, halves_give_what_the_whole_gives)
{
	uint32_t unconfined, whole, split, host;

	live_skip_unless(landlock_get_abi() >= 1, "no Landlock");
	tree();
	/* control: the same attempts unconfined read everything */
	unconfined = attempts();
	cr_assert(unconfined & BIT(A_READ_DENIED) && unconfined & BIT(A_READ_DENIED_DEEP), "control: %#x", unconfined);

	whole = run(WHOLE);
	split = run(SPLIT);
	host = run(HOST_ONLY);
	cr_assert_eq(split, whole, "split %#x, whole %#x", split, whole);
	/* what each answer is, so that equal answers are the right ones */
	cr_assert_eq(whole, BIT(A_READ_PLAIN) | BIT(A_READ_SIBLING) | BIT(A_READ_MOUNTED) | BIT(A_READ_MOUNTED_WALKED) |
				    BIT(A_WRITE_ROOT) | BIT(A_LIST_WALKED),
		     "whole %#x", whole);
	/* the runner's half alone leaves out exactly what init mounted */
	cr_assert_eq(host, whole & ~(BIT(A_READ_MOUNTED) | BIT(A_READ_MOUNTED_WALKED) | BIT(A_WRITE_ROOT)),
		     "host only %#x", host);
}

/* A frame as the runner writes it (landlock_split.c): TYPE, BODY, with
 * a ruleset fd (here any fd) or none; or RAW bytes (len) written as they
 * are; then init's take. */
static bool take_frame(uint16_t type, const struct msgbuf *body, bool with_fd, const void *raw, size_t len,
		       struct landlock_rules *r)
{
	struct exec_ctx x = { .split_fd = { -1, -1 } };
	int sv[2], fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	bool took;

	cr_assert(fd >= 0);
	cr_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	if (raw)
		cr_assert(write(sv[0], raw, len) == (ssize_t)len);
	else if (type)
		cr_assert(msg_frame_write(sv[0], type, body, with_fd ? &fd : NULL, with_fd ? 1 : 0) >= 0);
	close(sv[0]);
	close(fd);
	x.split_fd[1] = sv[1];
	*r = (struct landlock_rules){ .readable = (const char *const[]){ "/", NULL } };
	took = landlock_split_take(&x, r);
	cr_assert_eq(x.split_fd[1], -1, "init's end is closed either way");
	cr_assert_not_null(r->readable, "the caller's rules are kept");
	if (took) {
		cr_assert(r->ruleset_fd >= 0);
		close(r->ruleset_fd);
		landlock_split_release(&x, r);
	} else
		cr_assert(r->part == LANDLOCK_WHOLE && !r->inside && !r->denied);
	return took;
}

static char *own_mountinfo(size_t *len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *buf = NULL;
	size_t cap = 0;

	cr_assert_not_null(f);
	cr_assert(getdelim(&buf, &cap, '\0', f) > 0);
	*len = strlen(buf);
	fclose(f);
	return buf;
}

/* The half's body: 7 rules, inside /m, denied FLAGS PATH, mountinfo MI
 * (and TRAIL bytes more when trail). */
static struct msgbuf *body(uint8_t flags, const char *path, const char *mi, size_t mi_len, bool trail)
{
	struct msgbuf *b = msgbuf_new(1u << 20);
	char *inside[] = { "/m", NULL };

	cr_assert_not_null(b);
	cr_assert(msgbuf_put_u32(b, 7) >= 0 && msgbuf_put_strv(b, inside, 8, 64) >= 0 && msgbuf_put_u32(b, 1) >= 0 &&
		  msgbuf_put_u8(b, flags) >= 0 && msgbuf_put_cstring(b, path) >= 0 &&
		  msgbuf_put_string(b, mi, mi_len, 0) >= 0);
	if (trail)
		cr_assert(msgbuf_put_u8(b, 0) >= 0);
	return b;
}

/* A half with body b (freed), as take_frame takes it. */
static bool take_half(struct msgbuf *b, struct landlock_rules *r)
{
	bool took = take_frame(LANDLOCK_SPLIT_HALF, b, true, NULL, 0, r);

	msgbuf_free(b);
	return took;
}

Test(landlock_split, a_message_init_cannot_read_makes_it_build_the_whole)
{
	struct landlock_rules r;
	size_t mi_len;
	char *mi = own_mountinfo(&mi_len);
	struct msgbuf *good = body(1, "/a", mi, mi_len, false), *bad;
	static const uint8_t cut[5] = { 0xc7, 1, 0, 1, 1 };

	/* a good one: this process's own table as the host's */
	cr_assert(take_frame(LANDLOCK_SPLIT_HALF, good, true, NULL, 0, &r));
	/* the same without its ruleset */
	cr_assert_not(take_frame(LANDLOCK_SPLIT_HALF, good, false, NULL, 0, &r));
	/* the runner's word: build the whole */
	cr_assert_not(take_frame(LANDLOCK_SPLIT_WHOLE, NULL, false, NULL, 0, &r));
	/* a type no runner sends */
	cr_assert_not(take_frame(9, good, true, NULL, 0, &r));
	/* a flag no runner writes; a relative path; bytes after the table */
	cr_assert_not(take_half(body(9, "/a", mi, mi_len, false), &r));
	cr_assert_not(take_half(body(1, "a", mi, mi_len, false), &r));
	cr_assert_not(take_half(body(1, "/a", mi, mi_len, true), &r));
	/* a body cut short: no table */
	bad = msgbuf_new(64);
	cr_assert(msgbuf_put_u32(bad, 7) >= 0);
	cr_assert_not(take_half(bad, &r));
	/* a header cut short; no message at all (the runner ended) */
	cr_assert_not(take_frame(0, NULL, false, cut, sizeof(cut), &r));
	cr_assert_not(take_frame(0, NULL, false, NULL, 0, &r));
	cr_assert(take_frame(LANDLOCK_SPLIT_HALF, good, true, NULL, 0, &r), "control: the good frame is still good");
	msgbuf_free(good);
	free(mi);
}

Test(landlock_split, a_mount_the_host_table_does_not_show_makes_init_build_the_whole)
{
	struct landlock_rules r;
	size_t mi_len, kept = 0;
	char *mi = own_mountinfo(&mi_len), *less = calloc(1, mi_len + 1);
	bool dropped = false;

	/* this process's table without its /proc: a mount of another device
	 * the runner did not see, on no inside path */
	cr_assert_not_null(less);
	for (char *line = mi, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert_not_null(end);
		if (!dropped && strstr(line, " /proc ") && strstr(line, " /proc ") < end) {
			dropped = true;
			continue;
		}
		memcpy(less + kept, line, (size_t)(end - line) + 1);
		kept += (size_t)(end - line) + 1;
	}
	cr_assert(dropped, "this process has a /proc");
	cr_assert_not(take_half(body(1, "/a", less, kept, false), &r));
	/* control: the whole table */
	cr_assert(take_half(body(1, "/a", mi, mi_len, false), &r));
	free(less);
	free(mi);
}
