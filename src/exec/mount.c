/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount steps, applied by pid 1 in the new mount namespace, in the
 * plan's order:
 *
 *   - every writable root is cloned (open_tree) while the tree is still the
 *     host's, then / is made read-only recursively, and the clones are moved
 *     back onto their paths with nosuid,nodev: nothing outside a writable root
 *     can change, not its contents and not its modes, times or xattrs, which
 *     Landlock does not mediate; a root caller holds no power over host files
 *     either, because the mounts refuse, not the permission bits;
 *   - /dev is a tmpfs of our own with a few nodes bound in, a fresh devpts
 *     instance and /dev/shm, then read-only: no other terminal, console or
 *     disk of the host is reachable by name (the tmpfs itself is nodev:
 *     each node is a bind with its own flags); the stand-ins of hidden
 *     paths lie in it, below the devpts;
 *   - /tmp, /dev/shm, /run (and /var/run where it is a directory) are private,
 *     size-capped tmpfs; writable roots below them are bound back in;
 *   - pins, read-only protections and read-deny overlays inside that tree;
 *   - a fresh /proc.
 *
 * Every place a mount is taken from or put on is resolved once, with no
 * symlink on the way (pathfd.h), and the mount goes through that fd: a
 * directory swapped for a symlink since the plan was made is refused,
 * never followed. The plan's paths are canonical; where a symlink is
 * followed by design (a --deny-read path, an ancestor of a --protect
 * path; protect.c canonicalises the protected paths), it is followed
 * once, by canonicalising, and the result resolved so.
 *
 * Mounts made here never propagate back: a mount namespace owned by a new
 * user namespace turns shared mounts into slaves when it is copied. The new
 * mount API (open_tree, move_mount, mount_setattr: Linux 5.12) is required;
 * Landlock, which the runner requires too, came later (5.13), so a kernel
 * without it refuses before this point is reached.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "broker_proto.h"
#include "mount_fd.h"
#include "path.h"
#include "pathfd.h"
#include "policy.h"
#include "runner.h"
#include "steps.h"


/* Size caps: a private tmpfs must not be able to eat the host's memory. */
#define TMP_OPTIONS "mode=1777,size=25%"
#define RUN_OPTIONS "mode=0755,size=16m,nr_inodes=4096"
#define DEV_OPTIONS "mode=0755,size=64k,nr_inodes=64"

/* The nodes of the sandbox's /dev, bound from the host's. */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty", NULL };
static const struct {
	const char *name, *target;
} dev_links[] = {
	{ "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
	{ "ptmx", "pts/ptmx" },
};

/* Copy path[0..len) into buf (PATH_MAX); the plan keeps prefixes unterminated. */
static const char *step_path(const struct step *s, char *buf)
{
	if (s->len >= PATH_MAX)
		exec_die(step_name(s->kind), "path too long");
	memcpy(buf, s->path, s->len);
	buf[s->len] = '\0';
	return buf;
}

/* A path that by design may name a symlink (a --deny-read path, hidden as
 * Landlock resolves it; an ancestor of a --protect path, pinned where it
 * leads as a bind mount did): resolved with no symlink on the way, or
 * else canonicalised once and that resolved so (a swap in between is
 * -ELOOP). *linked: path itself is a symlink. */
static int open_followed(const char *path, bool *linked)
{
	_cleanup_free_ char *real = NULL;
	int at = path_open_nofollow(AT_FDCWD, path, 0);
	struct stat st;

	*linked = false;
	if (at != -ELOOP)
		return at;
	*linked = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	return path_open_nofollow(AT_FDCWD, real, 0);
}

static bool done_already(const struct exec_ctx *x, size_t upto, const char *path)
{
	for (size_t i = 0; i < x->n_targets && x->targets[i].step < upto; i++)
		if (strcmp(x->targets[i].path, path) == 0)
			return true;
	return false;
}

/* The writable roots bound back onto the read-only root: those outside
 * every private directory and not below another such root. */
static bool rebinds(const struct plan *p, size_t i)
{
	const char *w = p->write[i];

	if (plan_in_private_dir(w, strlen(w), false))
		return false;
	for (size_t j = 0; p->write[j]; j++) {
		size_t n = strlen(p->write[j]);

		if (j != i && !plan_in_private_dir(p->write[j], n, false) && strncmp(w, p->write[j], n) == 0 &&
		    w[n] == '/')
			return false;
	}
	return true;
}

#define HELD_HOST_MAX (EXEC_MAX_LIST + 2)

/* Taken before / turns read-only: clones of what the sandbox may write. */
struct held_trees {
	int *root;      /* per p->write[i]: its clone, or -1 */
	int *back;      /* per plan step: a BIND_BACK's clone, or -1 */
	int *exec;      /* the execute-only gate: per exec_place(), its clone, or -1 */
	size_t n_exec;
	int dev[8];     /* per dev_nodes[i] */
	int resolv;     /* /etc/resolv.conf's target when it lies in /run (--net host) */
	char resolv_path[PATH_MAX];
	/* host paths a private tmpfs would hide that the run needs, read-only:
	 * the working directory, the command's binary, --read-host */
	struct held_host {
		const char *path;
		int fd;
		bool dir;
	} host[HELD_HOST_MAX];
	size_t n_host;
};

/* A host path strictly below a private tmpfs and in no writable root bound
 * back there (a read-only run started in /tmp/x, a --read-host grant, the
 * command's binary below /tmp): it comes back, read-only. The private
 * tmpfs itself (--write /tmp) is no host root. */
static bool host_needs_binding(const struct plan *p, const char *path)
{
	size_t n = strlen(path);

	if (!path[0] || path[0] != '/' || !plan_in_private_dir(path, n, true))
		return false;
	for (size_t i = 0; p->write[i]; i++) {
		size_t m = strlen(p->write[i]);

		if (plan_in_private_dir(p->write[i], m, false) && !plan_in_private_dir(p->write[i], m, true))
			continue;
		if (path_is_under(path, p->write[i]) > 0)
			return false;
	}
	return true;
}

/* The i-th place the execute-only gate binds back executable: the library
 * directories, then the --exec paths. */
static size_t n_library_dirs(void)
{
	size_t n = 0;

	while (policy_library_dirs[n])
		n++;
	return n;
}

static const char *exec_place(const struct plan *p, size_t i)
{
	size_t n = n_library_dirs();

	return i < n ? policy_library_dirs[i] : p->landlock.exec[i - n];
}

/* Executable places are taken from the host's tree before / turns
 * read-only and noexec, read-only themselves. Skipped: what a private
 * tmpfs covers, what lies in a writable root (its own mount decides:
 * plan_noexec) and what an earlier place already brings. A place that
 * is missing or a symlink (/lib -> usr/lib) is skipped too: it stays
 * noexec (fail closed), and a library directory's target is in the list. */
static void hold_exec_places(const struct plan *p, struct held_trees *h)
{
	while (p->landlock.exec && p->landlock.exec[h->n_exec])
		h->n_exec++;
	h->n_exec += n_library_dirs();
	h->exec = calloc(h->n_exec, sizeof(int));
	if (!h->exec)
		exec_die("mount", "out of memory");
	for (size_t i = 0; i < h->n_exec; i++) {
		const char *e = exec_place(p, i);
		bool skip = plan_in_private_dir(e, strlen(e), false);
		int fd, r;

		h->exec[i] = -1;
		for (size_t w = 0; !skip && p->write[w]; w++)
			skip = path_is_under(e, p->write[w]);
		for (size_t j = 0; !skip && j < i; j++)
			skip = h->exec[j] >= 0 && path_is_under(e, exec_place(p, j));
		if (skip)
			continue;
		fd = mount_clone_tree(e, true, false);
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
			continue;
		r = fd < 0 ? fd : mount_set_attr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0);
		if (r < 0) {
			errno = -r;
			exec_die("read-only root", "%s: cannot keep it executable: %m", e);
		}
		h->exec[i] = fd;
	}
}

/* Take path's tree now (no symlink on the way), to put back read-only
 * once its private tmpfs is on; missing: nothing to bring back. */
static void hold_host(const struct plan *p, struct held_trees *h, const char *path, const char *why)
{
	_cleanup_close_ int at = -1;
	struct stat st;
	int fd;

	if (h->n_host >= HELD_HOST_MAX)
		exec_die("read host", "too many paths to bring back");
	for (size_t i = 0; i < h->n_host; i++)
		if (strcmp(h->host[i].path, path) == 0)
			return;
	at = path_open_nofollow(AT_FDCWD, path, 0);
	if (at == -ENOENT || at == -ENOTDIR || at == -EACCES)
		return;
	fd = at < 0 ? at : fstat(at, &st) < 0 ? -errno : mount_clone_at(at, true, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
									   (plan_noexec(p, path) ? MOUNT_ATTR_NOEXEC : 0));
	if (fd < 0) {
		errno = -fd;
		exec_die("read host", "%s: cannot bring %s back: %m", path, why);
	}
	h->host[h->n_host++] = (struct held_host){ .path = path, .fd = fd, .dir = S_ISDIR(st.st_mode) };
}

static int held_host_cmp(const void *a, const void *b)
{
	const struct held_host *x = a, *y = b;
	size_t m = strlen(x->path), n = strlen(y->path);

	return m < n ? -1 : m > n; /* an ancestor before what lies below it */
}

static void hold_trees(struct exec_ctx *x, struct held_trees *h)
{
	const struct plan *p = x->plan;
	char buf[PATH_MAX];
	size_t n_write = 0;
	int fd;

	while (p->write[n_write])
		n_write++;
	h->root = calloc(n_write + 1, sizeof(int));
	h->back = calloc(p->n_steps + 1, sizeof(int));
	if (!h->root || !h->back)
		exec_die("mount", "out of memory");
	for (size_t i = 0; i < n_write; i++) {
		h->root[i] = -1;
		if (!rebinds(p, i))
			continue;
		fd = mount_clone_tree(p->write[i], true, plan_noexec(p, p->write[i]));
		if (fd == -ENOENT)
			continue; /* does not exist: nothing to write there */
		if (fd < 0) {
			errno = -fd;
			exec_die("read-only root", "%s: cannot take the writable root: %m%s", p->write[i],
			    fd == -ENOSYS ? " (the runner needs open_tree and mount_setattr, Linux 5.12)" : "");
		}
		h->root[i] = fd;
	}
	for (size_t i = 0; i < p->n_steps; i++) {
		h->back[i] = -1;
		if (p->steps[i].kind != STEP_BIND_BACK)
			continue;
		fd = mount_clone_tree(step_path(&p->steps[i], buf), true, plan_noexec(p, buf));
		if (fd < 0 && fd != -ENOENT) {
			errno = -fd;
			exec_die("bind back", "%s: %m", buf);
		}
		h->back[i] = fd;
	}
	for (size_t i = 0; dev_nodes[i]; i++) {
		snprintf(buf, sizeof(buf), "/dev/%s", dev_nodes[i]);
		h->dev[i] = (int)syscall(__NR_open_tree, AT_FDCWD, buf, OPEN_TREE_CLONE | O_CLOEXEC);
		if (h->dev[i] < 0 && errno != ENOENT)
			exec_die("dev", "%s: %m", buf);
	}
	if (p->landlock.exec_gate)
		hold_exec_places(p, h);
	/* The shim is run in the sandbox from its own bind in the sealed
	 * shim directory (broker.c), taken now: the private tmpfs on /tmp or
	 * /run would hide a build or install below them. */
	if (p->shim_path && p->broker_fd >= 0) {
		struct stat st;

		x->shim_fd = path_open_nofollow(AT_FDCWD, p->shim_path, 0);
		if (x->shim_fd < 0) {
			errno = -x->shim_fd;
			exec_die("broker", "the shim %s: %m", p->shim_path);
		}
		if (fstat(x->shim_fd, &st) < 0 || !S_ISREG(st.st_mode))
			exec_die("broker", "the shim %s is not a regular file", p->shim_path);
	}
	h->n_host = 0;
	if (host_needs_binding(p, x->cwd))
		hold_host(p, h, x->cwd, "the working directory");
	if (p->command && p->command[0] && p->exec_fd < 0 && host_needs_binding(p, p->command[0]))
		hold_host(p, h, p->command[0], "the command");
	for (size_t i = 0; p->read_host && p->read_host[i]; i++)
		if (host_needs_binding(p, p->read_host[i]))
			hold_host(p, h, p->read_host[i], "a --read-host path");
	qsort(h->host, h->n_host, sizeof(h->host[0]), held_host_cmp);
	/* Name resolution with the host's network may go through a file in
	 * /run (systemd-resolved's stub): bring that one file back, read-only. */
	h->resolv = -1;
	if (p->net == CORDON_NET_HOST && realpath("/etc/resolv.conf", h->resolv_path) &&
	    strncmp(h->resolv_path, "/run/", 5) == 0) {
		_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, h->resolv_path, 0);

		h->resolv = at < 0 ? at : mount_clone_at(at, false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (h->resolv < 0) {
			errno = -h->resolv;
			exec_die("tmpfs", "%s: %m", h->resolv_path);
		}
	}
}

static void apply_ro_root(const struct plan *p, struct held_trees *h)
{
	/* under the execute-only gate nothing maps executable but what is
	 * bound back below: not a binary outside the closure through the
	 * loader, not a file another sandbox of the session wrote */
	int r = mount_set_attr(AT_FDCWD, "/", AT_RECURSIVE,
			 MOUNT_ATTR_RDONLY | (p->landlock.exec_gate ? MOUNT_ATTR_NOEXEC : 0), 0);

	if (r < 0) {
		errno = -r;
		exec_die("read-only root", "cannot make / read-only: %m");
	}
	for (size_t i = 0; i < h->n_exec; i++) {
		if (h->exec[i] < 0)
			continue;
		r = mount_attach_tree(h->exec[i], exec_place(p, i));
		if (r < 0) {
			errno = -r;
			exec_die("read-only root", "%s: cannot bind it back executable: %m", exec_place(p, i));
		}
		close(h->exec[i]);
		h->exec[i] = -1;
	}
	for (size_t i = 0; p->write[i]; i++) {
		if (h->root[i] < 0)
			continue;
		r = mount_attach_tree(h->root[i], p->write[i]);
		if (r < 0) {
			errno = -r;
			exec_die("read-only root", "%s: cannot bind the writable root back: %m", p->write[i]);
		}
		close(h->root[i]);
		h->root[i] = -1;
	}
}

/* The /dev tmpfs holds no device node of its own (each node is a bind of
 * the host's, a mount with its own flags): nodev too. With hides to make
 * (standins), an empty directory "d" and an empty file "f", both mode 000,
 * are made in /dev/pts before the devpts goes on, out of sight below it;
 * returned is the O_PATH fd of that directory, else -1. Then /dev turns
 * read-only (its shm and pts are mounts of their own and stay writable),
 * so every clone of a stand-in is read-only, nosuid, nodev and noexec. */
static int apply_dev(struct held_trees *h, bool standins)
{
	_cleanup_close_ int dev = -1, pts = -1;
	char path[64];
	int r;

	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, DEV_OPTIONS) < 0)
		exec_die("dev", "cannot mount a tmpfs on /dev: %m");
	/* The fresh tmpfs is init's alone: each node's mount point is made
	 * and the node moved onto it by name below one fd of it (3 calls a
	 * node, not 11 walking from / each time). */
	dev = path_open_nofollow(AT_FDCWD, "/dev", O_DIRECTORY);
	if (dev < 0) {
		errno = -dev;
		exec_die("dev", "cannot open the new /dev: %m");
	}
	for (size_t i = 0; dev_nodes[i]; i++) {
		_cleanup_close_ int held = TAKE_FD(h->dev[i]);

		if (held < 0)
			continue;
		r = mknodat(dev, dev_nodes[i], S_IFREG | 0644, 0) < 0 ? -errno : mount_attach_name(held, dev, dev_nodes[i]);
		if (r < 0) {
			errno = -r;
			exec_die("dev", "/dev/%s: %m", dev_nodes[i]);
		}
	}
	if (mkdirat(dev, "pts", 0755) < 0 || mkdirat(dev, "shm", 01777) < 0)
		exec_die("dev", "cannot make /dev/pts and /dev/shm: %m");
	if (standins) {
		pts = path_open_nofollow(dev, "pts", O_DIRECTORY);
		if (pts < 0 || mkdirat(pts, "d", 0) < 0 || mknodat(pts, "f", S_IFREG, 0) < 0)
			exec_die("hide", "cannot make the stand-ins: %s", strerror(pts < 0 ? -pts : errno));
	}
	/* A devpts of our own: only the sandbox's terminals are in it. */
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") < 0)
		exec_die("dev", "cannot mount a fresh devpts on /dev/pts: %m");
	for (size_t i = 0; i < ELEMENTSOF(dev_links); i++) {
		snprintf(path, sizeof(path), "/dev/%s", dev_links[i].name);
		if (symlink(dev_links[i].target, path) < 0)
			exec_die("dev", "%s: %m", path);
	}
	/* Nothing new appears in /dev once it is set up. */
	r = mount_set_attr(dev, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0);
	if (r < 0)
		exec_die("dev", "cannot make /dev read-only: %s", strerror(-r));
	return TAKE_FD(pts);
}

static void apply_tmpfs(const struct plan *p, const char *path, struct held_trees *h)
{
	bool run = strcmp(path, "/run") == 0 || strcmp(path, "/var/run") == 0;
	_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, path, O_NOFOLLOW);
	char target[32];
	struct stat st;
	int r;

	/* /var/run is a symlink to /run nearly everywhere: nothing to do. */
	if (at < 0 || fstat(at, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (strcmp(path, "/var/run") == 0)
			return;
		if (at == -ELOOP)
			exec_die("tmpfs", "%s: a symbolic link on the way: nothing to mount a private tmpfs on", path);
		exec_die("tmpfs", "%s: missing, or not a directory: nothing to mount a private tmpfs on", path);
	}
	/* onto the directory just looked at, whatever its path names now */
	snprintf(target, sizeof(target), "/proc/self/fd/%d", at);
	if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | (plan_noexec(p, path) ? MS_NOEXEC : 0),
		  run ? RUN_OPTIONS : TMP_OPTIONS) < 0)
		exec_die("tmpfs", "%s: %m", path);
	if (strcmp(path, "/run") == 0 && h->resolv >= 0) {
		r = mount_attach_held(&h->resolv, h->resolv_path, false);
		if (r < 0) {
			errno = -r;
			exec_die("tmpfs", "%s: cannot bind it back: %m", h->resolv_path);
		}
	}
}

/* The private tmpfs dirs that are no writable root turn read-only (only
 * the tmpfs itself: roots bound back below it keep their own mounts), so
 * the mounts alone fence writes there, for init too (it performs the
 * creation gate's calls). */
static void seal_private_dirs(const struct plan *p)
{
	for (size_t i = 0; p->private_tmp && plan_private_dirs[i]; i++) {
		const char *d = plan_private_dirs[i];
		bool writable = false;
		_cleanup_close_ int at = -1;
		struct stat st;
		int r;

		for (size_t j = 0; p->landlock.writable && p->landlock.writable[j]; j++) {
			const char *w = p->landlock.writable[j];
			size_t m = strlen(w);

			/* the dir is writable, or lies below a writable root */
			writable |= strncmp(d, w, m) == 0 && (d[m] == '\0' || d[m] == '/' || m == 1);
		}
		if (writable || (at = path_open_nofollow(AT_FDCWD, d, O_NOFOLLOW)) < 0 || fstat(at, &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		r = mount_set_attr(at, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0);
		if (r < 0)
			exec_die("tmpfs", "%s: cannot make it read-only: %s", d, strerror(-r));
	}
}

static int attach_tree_clone(int dfd, const char *name, int at)
{
	_cleanup_close_ int fd = (int)syscall(__NR_open_tree, dfd, name, OPEN_TREE_CLONE | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return mount_attach_at(fd, at);
}

/* Bind target read-only onto itself. A writable root below it (a cache
 * the profile names below a protected HOME dot-entry) is taken first, as
 * it is, and put back on top: it stays writable. */
static void protect_target(const struct plan *p, const char *target)
{
	size_t tl = strlen(target), n = 0;
	_cleanup_close_ int at = -1, tree = -1;
	int r;

	for (size_t w = 0; p->write[w]; w++)
		n++;
	int keep[n ? n : 1];

	for (size_t w = 0; w < n; w++) {
		keep[w] = -1;
		if (strncmp(p->write[w], target, tl) != 0 || p->write[w][tl] != '/')
			continue;
		keep[w] = mount_clone_tree(p->write[w], true, plan_noexec(p, p->write[w]));
		if (keep[w] < 0 && keep[w] != -ENOENT)
			exec_die("protect", "%s: cannot keep it writable below %s: %s", p->write[w], target, strerror(-keep[w]));
	}
	/* protect.c canonicalised it: a symlink on the way now is -ELOOP */
	at = path_open_nofollow(AT_FDCWD, target, 0);
	tree = at < 0 ? at : mount_clone_at(at, true, 0);
	r = tree < 0 ? tree : mount_attach_at(tree, at);
	if (r < 0) {
		errno = -r;
		exec_die("protect", "%s: %m", target);
	}
	/* the bind just made, read-only with every mount below it */
	r = mount_set_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0);
	if (r < 0)
		exec_die("protect", "%s: cannot make it read-only: %s", target, strerror(-r));
	for (size_t w = 0; w < n; w++) {
		if (keep[w] < 0)
			continue;
		r = mount_attach_tree(keep[w], p->write[w]);
		close(keep[w]);
		if (r < 0)
			exec_die("protect", "%s: cannot keep it writable below %s: %s", p->write[w], target, strerror(-r));
	}
}

/* Each deny-exec path (a controlled binary in the session, another
 * sandbox's writable root) bound onto itself noexec, as it is otherwise:
 * Landlock withholds execve, the mount refuses the loader and
 * mmap(PROT_EXEC). Missing: nothing to map (its creation is the host's). */
static void noexec_denied(const struct plan *p)
{
	for (size_t i = 0; p->landlock.deny_exec && p->landlock.deny_exec[i]; i++) {
		const char *d = p->landlock.deny_exec[i];
		_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, d, 0), tree = -1;
		int r;

		if (at == -ENOENT || at == -ENOTDIR || at == -EACCES)
			continue;
		tree = at < 0 ? at : mount_clone_at(at, true, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		r = tree < 0 ? tree : mount_attach_at(tree, at);
		if (r < 0) {
			errno = -r;
			exec_die("deny-exec", "%s: cannot mount it noexec: %m", d);
		}
	}
}

/* What the mount steps share while mount_apply walks them. */
struct mount_state {
	struct held_trees h;
	int standins;           /* the directory of the stand-ins for hidden paths (apply_dev), or -1 */
	size_t target;          /* the next of x->targets (protect.c) to bind */
};

void mount_ro_root(struct exec_ctx *x, size_t i)
{
	apply_ro_root(x->plan, &x->mounts->h);
}

void mount_dev(struct exec_ctx *x, size_t i)
{
	bool hides = false;

	for (size_t k = i + 1; k < x->plan->n_steps; k++)
		hides |= x->plan->steps[k].kind == STEP_HIDE;
	x->mounts->standins = apply_dev(&x->mounts->h, hides);
}

void mount_tmpfs(struct exec_ctx *x, size_t i)
{
	const struct plan *p = x->plan;
	char buf[PATH_MAX];
	const char *path = step_path(&p->steps[i], buf);

	apply_tmpfs(p, path, &x->mounts->h);
	/* the host paths the run needs below it, read-only, before the roots
	 * bound back there (which may lie below them) go on top */
	for (size_t k = 0; k < x->mounts->h.n_host; k++) {
		struct held_host *hh = &x->mounts->h.host[k];
		int r;

		if (hh->fd < 0 || path_is_under(hh->path, path) <= 0)
			continue;
		r = mount_attach_held(&hh->fd, hh->path, hh->dir);
		if (r < 0) {
			errno = -r;
			exec_die("read host", "%s: cannot bring it back: %m", hh->path);
		}
	}
	/* made now, while /run is writable: sealed below */
	if (p->broker_fd >= 0 && strcmp(path, "/run") == 0 && mkdir(BROKER_DIR, 0755) < 0)
		exec_die("broker", "mkdir %s: %m", BROKER_DIR);
}

void mount_bind_back(struct exec_ctx *x, size_t i)
{
	int *held = &x->mounts->h.back[i];
	char buf[PATH_MAX];
	const char *path;
	struct stat st;
	int r;

	if (*held < 0)
		return; /* does not exist: nothing to bind */
	path = step_path(&x->plan->steps[i], buf);
	if (fstat(*held, &st) < 0)
		exec_die("bind back", "%s: %m", path);
	r = mount_attach_held(held, path, S_ISDIR(st.st_mode));
	if (r < 0) {
		errno = -r;
		exec_die("bind back", "%s: %m", path);
	}
}

void mount_pin(struct exec_ctx *x, size_t i)
{
	char buf[PATH_MAX];
	const char *path = step_path(&x->plan->steps[i], buf);
	_cleanup_close_ int at = -1, tree = -1;
	struct stat st;
	bool linked;
	int r;

	at = open_followed(path, &linked);
	/* Missing: nothing to rename (its creation is gated). */
	if (at == -ENOENT || at == -ENOTDIR)
		return;
	if (at < 0)
		r = at;
	else if (fstat(at, &st) < 0)
		r = -errno;
	else if ((tree = mount_clone_at(at, true, 0)) < 0)
		r = tree;
	else
		r = mount_attach_at(tree, at);
	if (r < 0) {
		errno = -r;
		exec_die("pin", "%s: %m", path);
	}
	/* A file on the way to a protected path (a worktree's .git:
	 * "gitdir: ..." says where git's hooks and config are) is itself
	 * what git reads: read-only, not just pinned (and so is what a
	 * symlink there leads to). */
	if ((linked || !S_ISDIR(st.st_mode)) &&
	    (r = mount_set_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0)) < 0)
		exec_die("pin", "%s: cannot make it read-only: %s", path, strerror(-r));
}

void mount_protect(struct exec_ctx *x, size_t i)
{
	size_t *t = &x->mounts->target;

	for (; *t < x->n_targets && x->targets[*t].step == i; (*t)++) {
		const char *target = x->targets[*t].path;

		if (done_already(x, i, target))
			continue;
		protect_target(x->plan, target);
	}
}

void mount_hide(struct exec_ctx *x, size_t i)
{
	char buf[PATH_MAX];
	const char *path = step_path(&x->plan->steps[i], buf);
	_cleanup_close_ int at = -1;
	struct stat st;
	bool linked;
	int r;

	at = open_followed(path, &linked);
	r = at < 0 ? at : fstat(at, &st) < 0 ? -errno : 0;
	if (r < 0) {
		/* Nothing there (or unreachable): nothing to hide. */
		if (r == -ENOENT || r == -ENOTDIR || r == -EACCES)
			return;
		errno = -r;
		exec_die("hide", "%s: %m", path);
	}
	/* An empty, read-only, mode-000 stand-in (apply_dev): opening it
	 * fails with EACCES, a denial a person (and classify) can read. */
	if (x->mounts->standins < 0)
		exec_die("hide", "%s: no stand-in to hide it with", path);
	r = attach_tree_clone(x->mounts->standins, S_ISDIR(st.st_mode) ? "d" : "f", at);
	if (r < 0) {
		errno = -r;
		exec_die("hide", "%s: %m", path);
	}
}

void mount_proc(struct exec_ctx *x, size_t i)
{
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		exec_die("proc", "cannot mount a fresh /proc: %m");
}


void mount_apply(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	struct mount_state m = { .standins = -1 };

	/* what exists is bound below, what is missing is gated (protect.c) */
	if (protect_prepare(x) < 0)
		exec_die_said("protect");
	hold_trees(x, &m.h);

	x->mounts = &m;
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step_ops *o = step_ops(p->steps[i].kind);

		if (o->stage == STAGE_MOUNT)
			o->apply(x, i);
	}
	x->mounts = NULL;
	if (m.standins >= 0)
		close(m.standins);
	for (size_t k = 0; k < m.h.n_host; k++)
		if (m.h.host[k].fd >= 0)
			exec_die("read host", "%s: no private tmpfs to bring it back into", m.h.host[k].path);
	noexec_denied(p);
	seal_private_dirs(p);
	free(m.h.root);
	free(m.h.back);
	free(m.h.exec);
}
