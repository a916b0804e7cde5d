/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount steps, applied by pid 1 in the new mount namespace. Only what
 * the policy needs is mounted; the rest of the tree is the host's, and
 * Landlock keeps it read-only. Mounts made here never propagate back: a
 * mount namespace owned by a new user namespace turns shared mounts into
 * slaves when it is copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "runner.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

struct mount_attr_v0 {
	__u64 attr_set;
	__u64 attr_clr;
	__u64 propagation;
	__u64 userns_fd;
};

/* Copy path[0..len) into buf (PATH_MAX); the plan keeps prefixes unterminated. */
static const char *step_path(const struct step *s, char *buf)
{
	if (s->len >= PATH_MAX)
		die(step_name(s->kind), "path too long");
	memcpy(buf, s->path, s->len);
	buf[s->len] = '\0';
	return buf;
}

static void fd_path(char *buf, size_t n, int fd)
{
	snprintf(buf, n, "/proc/self/fd/%d", fd);
}

/* Read-only, with every mount below it. mount_setattr changes just that
 * flag; the old remount needs the flags the kernel locked on the mount
 * (nosuid, nodev, ...) repeated, or it fails in a user namespace. */
static int make_readonly(const char *path)
{
	struct mount_attr_v0 attr = { .attr_set = MOUNT_ATTR_RDONLY };
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
	struct statvfs sv;

	if (syscall(__NR_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	if (statvfs(path, &sv) < 0)
		return -errno;
	flags |= (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (sv.f_flag & ST_NODEV ? MS_NODEV : 0) |
		 (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) | (sv.f_flag & ST_NOATIME ? MS_NOATIME : 0) |
		 (sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0) | (sv.f_flag & ST_RELATIME ? MS_RELATIME : 0);
	if (mount(NULL, path, NULL, flags, NULL) < 0)
		return -errno;
	return 0;
}

/* mkdir -p below a fresh tmpfs; the last component is a directory or, for
 * a file being bound back, an empty file. */
static int make_mount_point(const char *path, bool dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *c = buf + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*c = '/';
	}
	if (dir)
		return mkdir(buf, 0755) < 0 && errno != EEXIST ? -errno : 0;
	int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool done_already(const struct exec_ctx *x, size_t upto, const char *path)
{
	for (size_t i = 0; i < x->n_targets && x->targets[i].step < upto; i++)
		if (strcmp(x->targets[i].path, path) == 0)
			return true;
	return false;
}

void mount_apply(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	_cleanup_free_ int *back_fd = calloc(p->n_steps + 1, sizeof(int));
	int hide_dir_fd = -1;
	char buf[PATH_MAX], src[64];
	size_t t = 0;
	int r;

	if (!back_fd)
		die("mount", "out of memory");
	/* The roots to bind back must be opened before the tmpfs hides them. */
	for (size_t i = 0; i < p->n_steps; i++) {
		back_fd[i] = -1;
		if (p->steps[i].kind != STEP_BIND_BACK)
			continue;
		back_fd[i] = open(step_path(&p->steps[i], buf), O_PATH | O_CLOEXEC);
		if (back_fd[i] < 0 && errno != ENOENT)
			die("bind back", "%s: %m", buf);
	}

	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i];
		const char *path;
		struct stat st;

		switch (s->kind) {
		case STEP_TMPFS:
			path = step_path(s, buf);
			if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
				die("tmpfs", "%s: %m", path);
			break;

		case STEP_BIND_BACK:
			if (back_fd[i] < 0)
				break; /* does not exist: nothing to bind */
			path = step_path(s, buf);
			if (fstat(back_fd[i], &st) < 0)
				die("bind back", "%s: %m", path);
			r = make_mount_point(path, S_ISDIR(st.st_mode));
			if (r < 0)
				die("bind back", "%s: cannot make the mount point: %s", path, strerror(-r));
			fd_path(src, sizeof(src), back_fd[i]);
			if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) < 0)
				die("bind back", "%s: %m", path);
			close(back_fd[i]);
			break;

		case STEP_PIN:
			path = step_path(s, buf);
			if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0) {
				/* Missing, or below a stub: nothing to rename. */
				if (errno == ENOENT || errno == ENOTDIR)
					break;
				die("pin", "%s: %m", path);
			}
			break;

		case STEP_PROTECT:
			for (; t < x->n_targets && x->targets[t].step == i; t++) {
				const char *target = x->targets[t].path;

				if (done_already(x, i, target))
					continue;
				if (mount(target, target, NULL, MS_BIND | MS_REC, NULL) < 0)
					die("protect", "%s: %m", target);
				r = make_readonly(target);
				if (r < 0)
					die("protect", "%s: cannot make it read-only: %s", target, strerror(-r));
			}
			break;

		case STEP_HIDE:
			path = step_path(s, buf);
			if (stat(path, &st) < 0) {
				/* Nothing there (or unreachable): nothing to hide. */
				if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
					break;
				die("hide", "%s: %m", path);
			}
			if (!S_ISDIR(st.st_mode)) {
				/* Reads see an empty file; Landlock refuses writes. */
				if (mount("/dev/null", path, NULL, MS_BIND, NULL) < 0)
					die("hide", "%s: %m", path);
				break;
			}
			if (hide_dir_fd >= 0) {
				/* One read-only, mode-000 tmpfs serves every hidden directory. */
				fd_path(src, sizeof(src), hide_dir_fd);
				if (mount(src, path, NULL, MS_BIND, NULL) < 0)
					die("hide", "%s: %m", path);
				break;
			}
			if (mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
				  "mode=000,size=4k,nr_inodes=1") < 0)
				die("hide", "%s: %m", path);
			hide_dir_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (hide_dir_fd < 0)
				die("hide", "%s: %m", path);
			break;

		case STEP_PROC:
			if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
				die("proc", "cannot mount a fresh /proc: %m");
			break;

		case STEP_NAMESPACES:
		case STEP_MAP_IDS:
		case STEP_LOOPBACK:
		case STEP_CHDIR:
		case STEP_INIT:
		case STEP_SETSID:
		case STEP_PDEATHSIG:
		case STEP_RLIMIT_CORE:
		case STEP_CLOSE_FDS:
		case STEP_ENV:
		case STEP_DROP_CAPS:
		case STEP_NO_NEW_PRIVS:
		case STEP_LANDLOCK:
		case STEP_SECCOMP:
		case STEP_EXEC:
		case _STEP_MAX:
			break;
		}
	}
	if (hide_dir_fd >= 0)
		close(hide_dir_fd);
}
