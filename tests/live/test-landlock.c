/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Landlock, live: every attempt runs in a forked child (the Criterion worker
 * is multi-threaded and Landlock binds the calling thread for good), confined
 * or not, and reports through its exit status: 0 when the attempt succeeded,
 * the errno when it failed, CHILD_SETUP_FAILED when confinement could not be
 * applied. Every denial has an unconfined control making the same attempt.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/landlock.h>
#include <linux/random.h>
#include <sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cleanup.h"
#include "common.h"

/* common.h's live_skip_unless calls cr_fatal, which only Criterion's new
 * assert API (criterion/new/assert.h) defines; the classic one is enough. */
#ifndef cr_fatal
#define cr_fatal(...) cr_assert_fail(__VA_ARGS__)
#endif
#include "landlock.h"
#include "policy.h"
#include "runner.h"

#define CHILD_SETUP_FAILED 200
#define CHILD_WRONG 201 /* an attempt that checks several things found one wrong */

static char tmp[PATH_MAX];

static void setup_tmp(void)
{
	strcpy(tmp, "/tmp/cordon-ll-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void teardown_tmp(void)
{
	if (tmp[0])
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(landlock, .init = setup_tmp, .fini = teardown_tmp);

/* T("a/b") is tmp/a/b, in storage that lives as long as the test (each
 * test runs in its own process). */
static const char *T(const char *rel)
{
	static char pool[128][PATH_MAX];
	static unsigned next;
	char *s;

	cr_assert(next < ELEMENTSOF(pool), "T(): pool exhausted");
	s = pool[next++];

	if (snprintf(s, PATH_MAX, "%s/%s", tmp, rel) >= PATH_MAX)
		cr_assert_fail("path too long");
	return s;
}

static void mkdirs(const char *rel)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s/%s", tmp, rel) >= (int)sizeof(buf))
		cr_assert_fail("path too long");
	for (char *p = buf + strlen(tmp) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
	cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
}

static void plant(const char *rel, const char *content)
{
	FILE *f = fopen(T(rel), "we");

	cr_assert_not_null(f, "create %s: %s", rel, strerror(errno));
	fputs(content, f);
	fclose(f);
}

typedef int (*attempt_fn)(const void *arg);

/* A device node outside /dev without CAP_MKNOD: in a user and mount
 * namespace of its own, the child binds /dev/zero onto the regular file ARG
 * (before any confinement: Landlock forbids mounting). */
static int bind_dev_zero(const char *target)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 || ns_map_ids(uid, gid) < 0)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("/dev/zero", target, NULL, MS_BIND, NULL) < 0)
		return -1;
	return 0;
}

/* Set by a test whose children must bind a device onto this path first. */
static const char *child_bind_dev;

static int child_main(const struct landlock_rules *rules, attempt_fn attempt, const void *arg)
{
	struct landlock_report rep;
	char err[512] = "";

	alarm(5); /* bounded, whatever happens */
	if (child_bind_dev && bind_dev_zero(child_bind_dev) < 0) {
		fprintf(stderr, "bind /dev/zero on %s: %s\n", child_bind_dev, strerror(errno));
		return CHILD_SETUP_FAILED;
	}
	if (rules) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return CHILD_SETUP_FAILED;
		if (landlock_apply(rules, &rep, err, sizeof(err)) < 0) {
			fprintf(stderr, "landlock_apply: %s\n", err);
			return CHILD_SETUP_FAILED;
		}
	}
	return attempt(arg);
}

/* Run ATTEMPT in a forked child confined by RULES (NULL: the unconfined
 * control) and return its exit code. */
static int run(const struct landlock_rules *rules, attempt_fn attempt, const void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(child_main(rules, attempt, arg));
	while (waitpid(pid, &status, 0) < 0)
		cr_assert(errno == EINTR, "waitpid: %s", strerror(errno));
	cr_assert(WIFEXITED(status), "child killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

static void skip_unless_abi(int abi)
{
	live_skip_unless(landlock_get_abi() >= abi, "Landlock ABI %d needed, kernel has %d", abi,
			 landlock_get_abi());
}

static const char *const root_only[] = { "/", NULL };
static const char *const runner_dev[] = { "/dev/null", "/dev/zero", "/dev/tty", "/dev/pts", "/dev/full",
					  "/dev/ptmx", NULL };

/* ---- attempts ---- */

static int try_create(const void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	if (write(fd, "x", 1) != 1)
		return errno;
	close(fd);
	return 0;
}

static int try_write(const void *arg)
{
	int fd = open(arg, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (write(fd, "x", 1) != 1)
		return errno;
	close(fd);
	return 0;
}

static int try_truncate(const void *arg)
{
	return truncate(arg, 0) < 0 ? errno : 0;
}

static int try_read(const void *arg)
{
	char c;
	int fd = open(arg, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (read(fd, &c, 1) < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_list(const void *arg)
{
	DIR *d = opendir(arg);

	if (!d)
		return errno;
	closedir(d);
	return 0;
}

static int run_and_wait(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : CHILD_WRONG;
}

static int try_exec(const void *arg)
{
	return run_and_wait(arg);
}

static int try_system_files(const void *arg)
{
	int r;

	if ((r = try_read("/etc/passwd")) != 0)
		return r;
	if ((r = try_list("/usr/bin")) != 0)
		return r;
	return run_and_wait("/bin/true");
}

/* ioctl(TCGETS): ENOTTY when Landlock lets the ioctl through to a device
 * that is no terminal, EACCES when it does not. */
static int try_tcgets(const void *arg)
{
	struct termios t;
	int fd = open(arg, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (ioctl(fd, TCGETS, &t) < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_urandom_ioctl(const void *arg)
{
	int n, fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (ioctl(fd, RNDGETENTCNT, &n) < 0)
		return errno;
	close(fd);
	return 0;
}

/* A whiteout (char 0:0) needs no CAP_MKNOD, so the control works unprivileged
 * too, and Landlock checks it as MAKE_CHAR like any character device. */
static int try_mknod(const void *arg)
{
	return mknod(arg, S_IFCHR | 0600, makedev(0, 0)) < 0 ? errno : 0;
}


static int try_dev_files(const void *arg)
{
	char name[128], c;
	struct termios t;
	int fd, master, slave;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return errno;
	close(fd);
	fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return errno;
	close(fd);
	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, "x", 1) != -1 || errno != ENOSPC)
		return CHILD_WRONG;
	close(fd);

	/* A terminal: every step is an ioctl on a device. */
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return errno;
	if (grantpt(master) < 0 || unlockpt(master) < 0 || ptsname_r(master, name, sizeof(name)) != 0)
		return errno;
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return errno;
	if (tcgetattr(slave, &t) < 0 || tcsetattr(slave, TCSANOW, &t) < 0 || tcgetattr(master, &t) < 0)
		return errno;
	if (write(slave, "x", 1) != 1)
		return errno;
	close(slave);
	close(master);
	return 0;
}

/* ---- filesystem ---- */

/* struct landlock_ruleset_attr as of ABI 6 (the system header may be older). */
struct probe_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* Whether the kernel accepts a ruleset using the feature ABI ABI added:
 * an independent check of the version number landlock_get_abi() caches. */
static bool kernel_has_abi_feature(int abi)
{
	struct probe_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE };
	long fd;

	switch (abi) {
	case 1:
		break;
	case 2:
		attr.handled_access_fs |= 1ULL << 13; /* REFER */
		break;
	case 3:
		attr.handled_access_fs |= 1ULL << 14; /* TRUNCATE */
		break;
	case 4:
		attr.handled_access_net = 1ULL << 0; /* NET_BIND_TCP */
		break;
	case 5:
		attr.handled_access_fs |= 1ULL << 15; /* IOCTL_DEV */
		break;
	case 6:
		attr.scoped = 1ULL << 1; /* SCOPE_SIGNAL */
		break;
	default:
		cr_assert_fail("no feature probe for ABI %d", abi);
	}
	fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0) {
		cr_assert(errno == EINVAL || errno == E2BIG, "probe ABI %d: %s", abi, strerror(errno));
		return false;
	}
	close((int)fd);
	return true;
}

Test(landlock, abi_detected)
{
	/* The kernel's own answer, asked here, not through the cache. */
	long version = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int abi = landlock_get_abi();

	live_skip_unless(version > 0, "no Landlock here: %s", strerror(errno));
	cr_expect_eq(abi, (int)version, "cached ABI %d, kernel says %ld", abi, version);
	/* Every feature up to the cached ABI works; the next one does not. */
	for (int n = 1; n <= 6; n++)
		cr_expect_eq(kernel_has_abi_feature(n), n <= abi, "ABI %d feature %s, cached ABI %d", n,
			     n <= abi ? "refused" : "accepted", abi);
}

Test(landlock, write_outside_writable_denied)
{
	const char *w[] = { T("w"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w };

	skip_unless_abi(1);
	mkdirs("w");
	mkdirs("out");
	plant("out/existing", "keep");

	cr_expect_eq(run(NULL, try_create, T("out/control")), 0, "control: create outside");
	cr_expect_eq(run(&rules, try_create, T("out/x")), EACCES, "create outside writable");
	cr_expect_eq(access(T("out/x"), F_OK), -1);
	cr_expect_eq(run(&rules, try_create, T("w/x")), 0, "create inside writable");
	cr_expect_eq(run(&rules, try_write, T("out/existing")), EACCES, "write outside writable");
	cr_expect_eq(run(NULL, try_write, T("out/existing")), 0, "control: write outside");
	if (landlock_get_abi() >= 3) {
		cr_expect_eq(run(&rules, try_truncate, T("out/existing")), EACCES, "truncate outside");
		cr_expect_eq(run(NULL, try_truncate, T("out/existing")), 0, "control: truncate outside");
	}
}

Test(landlock, read_and_exec_system_files)
{
	const char *w[] = { T("w"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w };

	skip_unless_abi(1);
	mkdirs("w");
	cr_expect_eq(run(&rules, try_system_files, NULL), 0);
	cr_expect_eq(run(&rules, try_exec, "/bin/true"), 0);
}

Test(landlock, exec_needs_a_rule)
{
	const char *r[] = { "/usr", "/lib", "/lib64", "/etc", NULL };
	struct landlock_rules rules = { .readable = r };

	skip_unless_abi(1);
	mkdirs("bin");
	/* EPERM: protected_hardlinks, when not root (we do not own /bin/true) */
	cr_assert(link("/bin/true", T("bin/true")) == 0 || errno == EXDEV || errno == EPERM, "link: %s",
		  strerror(errno));
	if (access(T("bin/true"), F_OK) < 0) {
		/* another filesystem: copy it */
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "cp /bin/true '%s'", T("bin/true"));
		cr_assert_eq(system(cmd), 0);
	}
	cr_expect_eq(run(NULL, try_exec, T("bin/true")), 0, "control: exec from tmp");
	cr_expect_eq(run(&rules, try_exec, T("bin/true")), CHILD_WRONG, "exec outside readable");
	cr_expect_eq(run(&rules, try_exec, "/usr/bin/true"), 0, "exec inside readable");
}

Test(landlock, dev_files_writable)
{
	struct landlock_rules rules = { .readable = root_only, .writable = runner_dev };

	skip_unless_abi(1);
	cr_expect_eq(run(NULL, try_dev_files, NULL), 0, "control");
	cr_expect_eq(run(&rules, try_dev_files, NULL), 0, "confined: /dev/null, /dev/zero, /dev/full, a pty");
	cr_expect_eq(run(&rules, try_create, T("x")), EACCES, "while the rest stays read-only");
}

Test(landlock, ioctl_dev_only_under_dev)
{
	const char *w[] = { "/dev/null", "/dev/pts", "/dev/ptmx", T("w"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w };

	skip_unless_abi(5);
	mkdirs("w");
	/* w/zero becomes /dev/zero in each child: a device outside /dev that
	 * needs no CAP_MKNOD, so the test runs as any user. */
	plant("w/zero", "");
	child_bind_dev = T("w/zero");
	cr_expect_eq(run(NULL, try_tcgets, T("w/zero")), ENOTTY, "control: ioctl on a device outside /dev");
	cr_expect_eq(run(&rules, try_tcgets, T("w/zero")), EACCES, "ioctl on a device outside /dev");
	child_bind_dev = NULL;
	cr_expect_eq(run(NULL, try_tcgets, T("w/zero")), ENOTTY, "control: the plain file answers ENOTTY too");
	cr_expect_eq(run(&rules, try_tcgets, T("w/zero")), ENOTTY, "ioctl on a regular file in a writable root");
	cr_expect_eq(run(&rules, try_tcgets, "/dev/null"), ENOTTY, "ioctl on /dev/null");
	cr_expect_eq(run(NULL, try_urandom_ioctl, NULL), 0, "control: ioctl on /dev/urandom");
	cr_expect_eq(run(&rules, try_urandom_ioctl, NULL), EACCES, "ioctl on /dev/urandom (read-only)");
	cr_expect_eq(run(NULL, try_mknod, T("w/made")), 0, "control: mknod");
	cr_expect_eq(run(&rules, try_mknod, T("w/made2")), EACCES, "mknod in a writable root");
}

Test(landlock, missing_paths_skipped)
{
	const char *w[] = { T("w"), "/nonexistent/cordon", T("w/file/below-a-file"), NULL };
	const char *d[] = { "/nonexistent/secret", NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w, .deny_read = d };

	skip_unless_abi(1);
	mkdirs("w");
	plant("w/file", "");
	cr_expect_eq(run(&rules, try_create, T("w/x")), 0);
}

/* ---- deny_read ---- */

Test(landlock, deny_read_hides_file)
{
	const char *d[] = { T("r/a/secret"), T("r/d/secretdir"), NULL };
	struct landlock_rules rules = { .readable = root_only, .deny_read = d };

	skip_unless_abi(1);
	mkdirs("r/a");
	mkdirs("r/b");
	mkdirs("r/d/secretdir/sub");
	/* executable, so the exec denial below is Landlock's and not the mode's */
	plant("r/a/secret", "#!/bin/sh\nexit 0\n");
	cr_assert_eq(chmod(T("r/a/secret"), 0755), 0);
	plant("r/a/sibling", "ok");
	plant("r/b/file", "ok");
	plant("r/d/secretdir/key", "k");
	plant("r/d/secretdir/sub/key2", "k");
	plant("r/d/other", "ok");
	cr_assert_eq(symlink("secret", T("r/a/link")), 0);

	cr_expect_eq(run(NULL, try_read, T("r/a/secret")), 0, "control");
	cr_expect_eq(run(NULL, try_read, T("r/a/link")), 0, "control");
	cr_expect_eq(run(NULL, try_exec, T("r/a/secret")), 0, "control: exec");
	cr_expect_eq(run(NULL, try_read, T("r/d/secretdir/key")), 0, "control");
	cr_expect_eq(run(NULL, try_list, T("r/d/secretdir")), 0, "control");
	cr_expect_eq(run(NULL, try_list, T("r/d")), 0, "control");

	cr_expect_eq(run(&rules, try_read, T("r/a/secret")), EACCES, "denied file");
	cr_expect_eq(run(&rules, try_read, T("r/a/link")), EACCES, "denied file through a symlink");
	cr_expect_eq(run(&rules, try_exec, T("r/a/secret")), CHILD_WRONG, "denied file, exec");
	cr_expect_eq(run(&rules, try_read, T("r/d/secretdir/key")), EACCES, "inside a denied dir");
	cr_expect_eq(run(&rules, try_read, T("r/d/secretdir/sub/key2")), EACCES, "deep inside a denied dir");
	cr_expect_eq(run(&rules, try_list, T("r/d/secretdir")), EACCES, "listing a denied dir");

	cr_expect_eq(run(&rules, try_read, T("r/a/sibling")), 0, "sibling of a denied file");
	cr_expect_eq(run(&rules, try_read, T("r/b/file")), 0, "cousin");
	cr_expect_eq(run(&rules, try_read, T("r/d/other")), 0, "sibling of a denied dir");
	cr_expect_eq(run(&rules, try_list, T("r/a")), 0, "parent of a denied file stays listable");
	cr_expect_eq(run(&rules, try_list, T("r/d")), EACCES, "parent of a denied dir is not (documented)");
	cr_expect_eq(run(&rules, try_system_files, NULL), 0, "the rest of the system");
}

/* Denied paths named through a symlinked parent, a chain of them, a ".."
 * and a link as the entry itself: each made canonical (landlock_resolve.c
 * memoises the parents, one lstat a component), so the file the name
 * reaches is the one hidden, and its siblings stay readable. */
Test(landlock, deny_read_through_symlinked_parents)
{
	const char *d[] = { T("r/via2/secret"), T("r/x/../real/secret2"), T("r/via/inner/key"), T("r/real/alias"),
			    T("r/gone/whatever"), NULL };
	struct landlock_rules rules = { .readable = root_only, .deny_read = d };

	skip_unless_abi(1);
	mkdirs("r/real/inner");
	mkdirs("r/x");
	plant("r/real/secret", "s");
	plant("r/real/secret2", "s");
	plant("r/real/inner/key", "k");
	plant("r/real/target", "t");
	plant("r/real/ok", "ok");
	plant("r/real/inner/ok", "ok");
	cr_assert_eq(symlink("real", T("r/via")), 0);
	cr_assert_eq(symlink("via", T("r/via2")), 0);
	cr_assert_eq(symlink("target", T("r/real/alias")), 0);
	cr_assert_eq(symlink("nowhere", T("r/gone")), 0);

	cr_expect_eq(run(NULL, try_read, T("r/real/secret")), 0, "control");
	cr_expect_eq(run(NULL, try_read, T("r/real/secret2")), 0, "control");
	cr_expect_eq(run(NULL, try_read, T("r/real/inner/key")), 0, "control");
	cr_expect_eq(run(NULL, try_read, T("r/real/target")), 0, "control");

	cr_expect_eq(run(&rules, try_read, T("r/real/secret")), EACCES, "named through a chain of two links");
	cr_expect_eq(run(&rules, try_read, T("r/via/secret")), EACCES, "and read through one");
	cr_expect_eq(run(&rules, try_read, T("r/real/secret2")), EACCES, "named with ..");
	cr_expect_eq(run(&rules, try_read, T("r/real/inner/key")), EACCES, "a link two levels up");
	cr_expect_eq(run(&rules, try_read, T("r/real/target")), EACCES, "a link as the entry: its target");
	cr_expect_eq(run(&rules, try_read, T("r/real/ok")), 0, "a sibling");
	cr_expect_eq(run(&rules, try_read, T("r/real/inner/ok")), 0, "a sibling below");
	cr_expect_eq(run(&rules, try_system_files, NULL), 0, "the rest of the system");
}

Test(landlock, deny_read_under_writable)
{
	const char *w[] = { T("w"), NULL };
	const char *d[] = { T("w/.env"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w, .deny_read = d };

	skip_unless_abi(2);
	mkdirs("w/src");
	plant("w/.env", "TOKEN=1");
	plant("w/src/main.c", "int main;");
	plant("w/top", "t");

	cr_expect_eq(run(&rules, try_read, T("w/.env")), EACCES, "denied under a writable root");
	cr_expect_eq(run(&rules, try_write, T("w/.env")), EACCES, "nor writable");
	cr_expect_eq(run(&rules, try_read, T("w/src/main.c")), 0);
	cr_expect_eq(run(&rules, try_write, T("w/src/main.c")), 0);
	cr_expect_eq(run(&rules, try_write, T("w/top")), 0, "existing top-level entries stay writable");
	cr_expect_eq(run(&rules, try_create, T("w/src/new")), 0);
	cr_expect_eq(run(&rules, try_create, T("w/newtop")), EACCES, "new entries in a split dir fail closed");
	cr_expect_eq(run(NULL, try_read, T("w/.env")), 0, "control");
	cr_expect_eq(run(NULL, try_write, T("w/.env")), 0, "control: write");
	cr_expect_eq(run(NULL, try_create, T("w/newtop")), 0, "control: create");
}

/* Confine a child (RULES, or none for the control), then create
 * tmp/CREATE from the parent, then let the child read it. */
static int read_created_after_apply(const struct landlock_rules *rules, const char *create)
{
	int applied[2], created[2], status;
	char c = 0;
	pid_t pid;

	cr_assert_eq(pipe2(applied, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(created, O_CLOEXEC), 0);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct landlock_report rep;
		char err[512];

		alarm(5);
		if (rules && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
			      landlock_apply(rules, &rep, err, sizeof(err)) < 0))
			_exit(CHILD_SETUP_FAILED);
		if (write(applied[1], "a", 1) != 1 || read(created[0], &c, 1) != 1)
			_exit(CHILD_SETUP_FAILED);
		_exit(try_read(T(create)));
	}
	close(applied[1]);
	close(created[0]);
	cr_assert_eq(read(applied[0], &c, 1), 1, "child did not apply");
	plant(create, "new");
	cr_assert_eq(write(created[1], "c", 1), 1);
	while (waitpid(pid, &status, 0) < 0)
		cr_assert(errno == EINTR);
	close(applied[0]);
	close(created[1]);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

Test(landlock, deny_read_new_entries_fail_closed)
{
	const char *d[] = { T("r/secret"), NULL };
	struct landlock_rules rules = { .readable = root_only, .deny_read = d };

	skip_unless_abi(1);
	mkdirs("r/sub");
	plant("r/secret", "s");
	cr_expect_eq(read_created_after_apply(NULL, "r/new"), 0, "control");
	cr_expect_eq(read_created_after_apply(&rules, "r/new2"), EACCES, "new entry in a walked directory");
	cr_expect_eq(read_created_after_apply(&rules, "r/sub/new"), 0, "new entry in a granted subdirectory");
}

static int try_steal(const void *arg)
{
	const char *const *p = arg;

	if (rename(p[0], p[1]) < 0)
		return errno;
	return try_read(p[1]);
}

Test(landlock, deny_read_no_escape_by_rename)
{
	const char *w[] = { T("w"), NULL };
	const char *d[] = { T("w/keys/id"), NULL };
	const char *paths[] = { T("w/keys/id"), T("w/src/id"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w, .deny_read = d };
	int r;

	skip_unless_abi(2);
	mkdirs("w/keys");
	mkdirs("w/src");
	plant("w/keys/id", "secret");

	r = run(&rules, try_steal, paths);
	cr_expect(r == EXDEV || r == EACCES, "moving a denied file into a readable dir: %d", r);
	cr_expect_eq(access(T("w/keys/id"), F_OK), 0, "still where it was");
	cr_expect_eq(run(NULL, try_steal, paths), 0, "control");
}

Test(landlock, writable_beneath_denied_wins)
{
	const char *w[] = { T("x/w"), NULL };
	const char *d[] = { T("x"), NULL };
	struct landlock_rules rules = { .readable = root_only, .writable = w, .deny_read = d };

	skip_unless_abi(1);
	mkdirs("x/w");
	plant("x/other", "o");
	cr_expect_eq(run(NULL, try_read, T("x/other")), 0, "control");
	cr_expect_eq(run(&rules, try_read, T("x/other")), EACCES);
	cr_expect_eq(run(&rules, try_create, T("x/w/f")), 0);
	cr_expect_eq(run(&rules, try_read, T("x/w/f")), 0);
}

struct cap_case {
	struct landlock_rules rules;
	char after[PATH_MAX]; /* created once the apply has failed */
};

static int try_apply_expect_e2big(const void *arg)
{
	const struct cap_case *c = arg;
	struct landlock_report rep;
	char err[1024] = "", bound[32];
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_SETUP_FAILED;
	r = landlock_apply(&c->rules, &rep, err, sizeof(err));
	snprintf(bound, sizeof(bound), "more than %d rules", LANDLOCK_MAX_RULES);
	/* refused, saying what to do */
	if (r != -E2BIG || !strstr(err, bound) || !strstr(err, "subdirectories")) {
		fprintf(stderr, "landlock_apply: %d %s\n", r, err);
		return CHILD_WRONG;
	}
	/* nothing was enforced */
	return try_create(c->after);
}

/* A directory of n empty files f0..f(n-1) (tmpfs makes tens of thousands
 * in well under a second; /tmp may be a disk), f0 holding a secret; its
 * path in dir (a "/dev/shm/cordon-ll-XXXXXX" to fill). */
static const char *crowded_dir(char *dir, int n)
{
	const char *base = mkdtemp(dir);
	int dfd;

	cr_assert_not_null(base, "mkdtemp: %s", strerror(errno));
	dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	for (int i = 0; i < n; i++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "f%d", i);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		cr_assert(fd >= 0);
		if (i == 0)
			cr_assert_eq(write(fd, "secret", 6), 6);
		close(fd);
	}
	close(dfd);
	return base;
}

Test(landlock, deny_read_rule_cap)
{
	char dir[] = "/dev/shm/cordon-ll-XXXXXX", secret[PATH_MAX];
	const char *d[] = { secret, NULL };
	struct cap_case c = { .rules = { .readable = root_only, .deny_read = d } };
	const char *base;

	skip_unless_abi(1);
	base = crowded_dir(dir, LANDLOCK_MAX_RULES + 1);
	cr_assert(snprintf(secret, sizeof(secret), "%s/f0", base) < (int)sizeof(secret));
	cr_assert(snprintf(c.after, sizeof(c.after), "%s", T("after")) < (int)sizeof(c.after));
	cr_expect_eq(run(NULL, try_apply_expect_e2big, &c), 0);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A crowded directory on the split path, with more entries than the old
 * cap (4096) and a light-isolation HOME or /var/tmp may hold: the launch
 * works, the hidden file stays hidden, its siblings readable. */
Test(landlock, deny_read_in_crowded_directory)
{
	char dir[] = "/dev/shm/cordon-ll-XXXXXX", secret[PATH_MAX], sibling[PATH_MAX];
	const char *d[] = { secret, NULL };
	struct landlock_rules rules = { .readable = root_only, .deny_read = d };
	const char *base;

	skip_unless_abi(1);
	base = crowded_dir(dir, 10000);
	cr_assert(snprintf(secret, sizeof(secret), "%s/f0", base) < (int)sizeof(secret));
	cr_assert(snprintf(sibling, sizeof(sibling), "%s/f9999", base) < (int)sizeof(sibling));
	cr_expect_eq(run(NULL, try_read, secret), 0, "control: unconfined, the file is readable");
	cr_expect_eq(run(&rules, try_read, secret), EACCES, "10,000 entries: the denied one is hidden");
	cr_expect_eq(run(&rules, try_read, sibling), 0, "... and a sibling stays readable");
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- network ---- */

static int listen_tcp(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(s >= 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(s, 16), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return s;
}

static int try_connect_tcp(const void *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(*(const int *)arg) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return errno;
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return errno;
	close(s);
	return 0;
}

static int try_bind_tcp(const void *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return errno;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return errno;
	close(s);
	return 0;
}

Test(landlock, deny_tcp_connect)
{
	struct landlock_rules rules = { .readable = root_only, .deny_tcp = true };
	int port, s;

	skip_unless_abi(4);
	s = listen_tcp(&port);
	cr_expect_eq(run(NULL, try_connect_tcp, &port), 0, "control");
	cr_expect_eq(run(&rules, try_connect_tcp, &port), EACCES);
	close(s);
}

Test(landlock, deny_tcp_bind)
{
	struct landlock_rules rules = { .readable = root_only, .deny_tcp = true };

	skip_unless_abi(4);
	cr_expect_eq(run(NULL, try_bind_tcp, NULL), 0, "control");
	cr_expect_eq(run(&rules, try_bind_tcp, NULL), EACCES);
}

/* ---- scoping ---- */

static int try_kill(const void *arg)
{
	return kill(*(const pid_t *)arg, SIGCONT) < 0 ? errno : 0;
}

static int try_kill_own_child(const void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (kill(pid, SIGKILL) < 0)
		return errno;
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? 0 : CHILD_WRONG;
}

Test(landlock, scope_signal)
{
	struct landlock_rules rules = { .readable = root_only, .scope = true };
	pid_t outside;

	skip_unless_abi(6);
	outside = fork();
	cr_assert(outside >= 0);
	if (outside == 0) {
		alarm(10);
		for (;;)
			pause();
	}
	cr_expect_eq(run(NULL, try_kill, &outside), 0, "control");
	cr_expect_eq(run(&rules, try_kill, &outside), EPERM, "signal a process outside the sandbox");
	cr_expect_eq(run(&rules, try_kill_own_child, NULL), 0, "signal its own child");
	kill(outside, SIGKILL);
	waitpid(outside, NULL, 0);
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, strlen(name));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static int try_connect_abstract(const void *arg)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, arg);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return errno;
	if (connect(s, (struct sockaddr *)&a, len) < 0)
		return errno;
	close(s);
	return 0;
}

static int try_abstract_inside(const void *arg)
{
	struct sockaddr_un a;
	char name[64];
	socklen_t len;
	int l, s;

	snprintf(name, sizeof(name), "cordon-ll-inside-%d", getpid());
	len = abstract_addr(&a, name);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, len) < 0 || listen(l, 1) < 0)
		return errno;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, len) < 0)
		return errno;
	return 0;
}

Test(landlock, scope_abstract_unix)
{
	struct landlock_rules rules = { .readable = root_only, .scope = true };
	struct sockaddr_un a;
	char name[64];
	socklen_t len;
	int l;

	skip_unless_abi(6);
	snprintf(name, sizeof(name), "cordon-ll-test-%d", getpid());
	len = abstract_addr(&a, name);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(l >= 0);
	cr_assert_eq(bind(l, (struct sockaddr *)&a, len), 0, "bind: %s", strerror(errno));
	cr_assert_eq(listen(l, 16), 0);

	cr_expect_eq(run(NULL, try_connect_abstract, name), 0, "control");
	cr_expect_eq(run(&rules, try_connect_abstract, name), EPERM, "abstract socket outside the sandbox");
	cr_expect_eq(run(&rules, try_abstract_inside, NULL), 0, "its own abstract socket");
	close(l);
}

/* ---- ABI degradation ---- */

struct degrade_case {
	struct landlock_rules rules;
	const char *outside; /* a file to create after the apply */
	int port;
};

/* A required feature the (capped) kernel lacks: -EOPNOTSUPP, and nothing is
 * enforced afterwards. */
static int try_required_missing(const void *arg)
{
	const struct degrade_case *c = arg;
	struct landlock_report rep = { .abi = -1 };
	char err[512] = "";
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_SETUP_FAILED;
	r = landlock_apply(&c->rules, &rep, err, sizeof(err));
	if (r != -EOPNOTSUPP || err[0] == '\0' || rep.abi != -1) {
		fprintf(stderr, "landlock_apply: %d %s\n", r, err);
		return CHILD_WRONG;
	}
	return try_create(c->outside);
}

Test(landlock, required_missing_applies_nothing)
{
	const char *w[] = { T("w"), NULL };
	struct degrade_case net = {
		.rules = { .readable = root_only, .writable = w, .deny_tcp = true,
			   .required = REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_NET, .test_abi_cap = 3 },
		.outside = T("out/a"),
	};
	struct degrade_case scope = {
		.rules = { .readable = root_only, .writable = w, .scope = true,
			   .required = REQUIRE_LANDLOCK_SCOPE, .test_abi_cap = 5 },
		.outside = T("out/b"),
	};
	struct degrade_case none = {
		.rules = { .readable = root_only, .writable = w, .required = REQUIRE_LANDLOCK,
			   .test_abi_cap = -1 },
		.outside = T("out/c"),
	};
	struct landlock_rules uncapped = net.rules;

	skip_unless_abi(1);
	mkdirs("w");
	mkdirs("out");
	uncapped.test_abi_cap = 0;
	uncapped.required = REQUIRE_LANDLOCK;
	uncapped.deny_tcp = false;
	cr_expect_eq(run(&uncapped, try_create, T("out/d")), EACCES, "control: these rules do confine");
	cr_expect_eq(run(NULL, try_required_missing, &net), 0, "landlock-net required at ABI 3");
	cr_expect_eq(run(NULL, try_required_missing, &scope), 0, "landlock-scope required at ABI 5");
	cr_expect_eq(run(NULL, try_required_missing, &none), 0, "landlock required, unavailable");
}

/* Not required: dropped, reported, and the rest still enforced. */
static int try_optional_missing(const void *arg)
{
	const struct degrade_case *c = arg;
	struct landlock_report rep;
	char err[512] = "";
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_SETUP_FAILED;
	r = landlock_apply(&c->rules, &rep, err, sizeof(err));
	if (r != 0 || rep.abi != 3 || !rep.fs || rep.net || rep.scope ||
	    !strstr(rep.missing, "landlock-net (ABI 4)") || !strstr(rep.missing, "landlock-scope (ABI 6)") ||
	    !strstr(rep.missing, "landlock-ioctl-dev (ABI 5)") || strstr(rep.missing, "truncate")) {
		fprintf(stderr, "landlock_apply: %d %s; abi %d missing '%s'\n", r, err, rep.abi, rep.missing);
		return CHILD_WRONG;
	}
	if (try_create(c->outside) != EACCES)
		return CHILD_WRONG;
	return try_connect_tcp(&c->port);
}

static int try_full_report(const void *arg)
{
	const struct degrade_case *c = arg;
	struct landlock_report rep;
	char err[512] = "";

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return CHILD_SETUP_FAILED;
	if (landlock_apply(&c->rules, &rep, err, sizeof(err)) != 0 || rep.abi != landlock_get_abi() || !rep.fs ||
	    !rep.net || !rep.scope || rep.missing[0] != '\0') {
		fprintf(stderr, "landlock_apply: %s; abi %d missing '%s'\n", err, rep.abi, rep.missing);
		return CHILD_WRONG;
	}
	return try_connect_tcp(&c->port);
}

Test(landlock, optional_missing_degrades)
{
	const char *w[] = { T("w"), NULL };
	struct degrade_case c = {
		.rules = { .readable = root_only, .writable = w, .deny_tcp = true, .scope = true,
			   .required = REQUIRE_LANDLOCK, .test_abi_cap = 3 },
		.outside = T("out/a"),
	};
	int s;

	skip_unless_abi(6);
	mkdirs("w");
	mkdirs("out");
	s = listen_tcp(&c.port);
	cr_expect_eq(run(NULL, try_optional_missing, &c), 0, "net dropped at ABI 3, fs still enforced");
	c.rules.test_abi_cap = 0;
	cr_expect_eq(run(NULL, try_full_report, &c), EACCES, "control: uncapped, the same rules deny TCP");
	close(s);
}
