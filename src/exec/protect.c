/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --protect, the runner's half (before the clone): decide what init binds
 * read-only for each protected path.
 *
 *   - It exists: the path itself.
 *   - It does not: nothing can be mounted on a name that does not exist, and
 *     only a mount can stop the name being created inside a writable
 *     directory. So the first missing component is created on the host as a
 *     *stub* and bound read-only (bound: it cannot be removed or renamed
 *     either). Stubs must not show up in `git status` or `git add -A` inside
 *     the sandbox, must never make a writer hang, and must be cheap to make
 *     and remove on every run:
 *       - an intermediate component, or a name that is a directory (.git,
 *         hooks, .vscode, .idea, ...): an empty 0555 directory, with the
 *         xattr user.cordon.stub (git ignores empty directories);
 *       - a file name (.bashrc, .mcp.json, .gitmodules, ...): a 0444 socket
 *         node (mknod S_IFSOCK, no listener): git ignores it, opening it
 *         fails at once with ENXIO, and unlinking it costs a tenth of an
 *         rmdir on ext4. A socket cannot carry a user xattr; its mode is
 *         its marker (nobody keeps a 0444 socket named .bashrc);
 *       - a known file inside .git (.git/config): an empty 0444 file with
 *         the xattr (git reads .git/config and fails on a socket).
 *   - PREFIX*: every existing entry with that prefix (nothing is stubbed:
 *     the names are unknown).
 *
 * Stubs are removed when the run ends so they do not litter the workspace.
 * Several runs may share a workspace, and unlinking a name that is a mount
 * point in another namespace silently detaches that mount, so a stub is
 * only removed by a runner that can take an exclusive flock on the writable
 * root: every runner holds a shared one on it for as long as its sandbox
 * lives. A stub left behind (a concurrent run, or a killed runner) keeps its
 * xattr and is removed by the next run that finds it and gets the lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "runner.h"

#define STUB_XATTR "user.cordon.stub"
#define MAX_TARGETS (4 * EXEC_MAX_LIST)
#define MAX_SYMLINK_HOPS 8

enum stub_kind {
	STUB_DIR,
	STUB_FILE,
	STUB_SOCKET,
};

static bool name_in(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

/* The stub for the missing component path (the protected path itself when
 * last). */
static enum stub_kind stub_kind_for(const char *path, bool last)
{
	static const char *const dirs[] = { ".git", "hooks", ".vscode", ".idea", ".cordon", ".config", ".github", NULL };
	static const char *const git_files[] = { "config", "HEAD", "packed-refs", NULL };
	const char *base = strrchr(path, '/') + 1;

	if (!last || name_in(base, dirs))
		return STUB_DIR;
	if (strstr(path, "/.git/"))
		return name_in(base, git_files) ? STUB_FILE : STUB_DIR;
	return STUB_SOCKET;
}

static bool looks_like_stub(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return st->st_size == 0 && (st->st_mode & 07777) == 0444;
	if (S_ISDIR(st->st_mode))
		return (st->st_mode & 07777) == 0555 && st->st_nlink <= 2;
	if (S_ISSOCK(st->st_mode))
		return (st->st_mode & 07777) == 0444;
	return false;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The longest --write root holding path, or NULL. */
static const char *root_of(const struct plan *p, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; p->write[i]; i++)
		if (under(path, p->write[i]) && (!best || strlen(p->write[i]) > strlen(best)))
			best = p->write[i];
	return best;
}

/* Below the private tmpfs and not bound back: gone with the sandbox, so
 * there is nothing worth protecting. */
static bool ephemeral(const struct plan *p, const char *path)
{
	if (!p->private_tmp || (!under(path, "/tmp") && !under(path, "/dev/shm")))
		return false;
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].kind == STEP_BIND_BACK && p->steps[i].len < PATH_MAX) {
			char b[PATH_MAX];

			memcpy(b, p->steps[i].path, p->steps[i].len);
			b[p->steps[i].len] = '\0';
			if (under(path, b))
				return false;
		}
	return true;
}

static int lock_root(struct exec_ctx *x, const char *root)
{
	int fd;

	for (size_t i = 0; i < x->n_locks; i++)
		if (strcmp(x->lock_roots[i], root) == 0)
			return (int)i;
	if (x->n_locks >= sizeof(x->locks) / sizeof(x->locks[0]))
		return -E2BIG;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_SH) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	x->locks[x->n_locks] = fd;
	x->lock_roots[x->n_locks] = root;
	return (int)x->n_locks++;
}

static int add_target(struct exec_ctx *x, size_t step, const char *path)
{
	char *c;

	if (x->n_targets >= MAX_TARGETS)
		return -E2BIG;
	c = strdup(path);
	if (!c)
		return -ENOMEM;
	x->targets[x->n_targets++] = (struct protect_target){ .step = step, .path = c };
	return 0;
}

static int add_stub(struct exec_ctx *x, const char *path, const struct stat *st, bool created, int lock)
{
	struct stub *ns = realloc(x->stubs, (x->n_stubs + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	x->stubs = ns;
	ns[x->n_stubs] = (struct stub){ .path = strdup(path), .dev = st->st_dev, .ino = st->st_ino,
					.created = created, .lock = lock };
	if (!ns[x->n_stubs].path)
		return -ENOMEM;
	x->n_stubs++;
	return 0;
}

/* Create the stub at path (absent a moment ago). 0 and *st on success;
 * -EEXIST if someone else just made it; any failure after creating it
 * removes it again. */
static int make_stub(const char *path, enum stub_kind kind, struct stat *st)
{
	_cleanup_close_ int fd = -1;
	bool dir = kind == STUB_DIR;
	int r;

	if (kind == STUB_SOCKET) {
		if (mknod(path, S_IFSOCK | 0444, 0) < 0)
			return -errno;
		if (lstat(path, st) < 0 || ((st->st_mode & 07777) != 0444 &&
					    (fchmodat(AT_FDCWD, path, 0444, 0) < 0 || lstat(path, st) < 0))) {
			r = -errno;
			(void)unlink(path);
			return r == -EACCES || r == -EPERM || r == -EROFS || r == -EEXIST ? -EIO : r;
		}
		return 0;
	}

	/* writable to us until the marker is on it */
	if (dir) {
		if (mkdir(path, 0700) < 0)
			return -errno;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		if (dir)
			(void)rmdir(path);
		return r;
	}
	if ((fsetxattr(fd, STUB_XATTR, "1", 1, 0) < 0 && errno != ENOTSUP && errno != EOPNOTSUPP) ||
	    fchmod(fd, dir ? 0555 : 0444) < 0 || fstat(fd, st) < 0) {
		r = -errno;
		if (dir)
			(void)rmdir(path);
		else
			(void)unlink(path);
		/* not "cannot create": it was created, so this is a failure */
		return r == -EACCES || r == -EPERM || r == -EROFS || r == -EEXIST ? -EIO : r;
	}
	return 0;
}

/* Resolve one protected path (no '*'). */
static int resolve_one(struct exec_ctx *x, size_t step, const char *path, unsigned hops)
{
	const struct plan *p = x->plan;
	const char *root = root_of(p, path);
	char prefix[PATH_MAX];
	struct stat st;
	size_t n = strlen(path), rl;
	int lock, r;

	if (!root || ephemeral(p, path))
		return 0;
	if (n >= sizeof(prefix))
		return -ENAMETOOLONG;
	lock = lock_root(x, root);
	if (lock < 0)
		return lock;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode) && stat(path, &st) < 0)
			return errno == ENOENT ? -ELOOP : -errno; /* dangling: cannot bind it */
		if (looks_like_stub(&st)) {
			r = add_stub(x, path, &st, false, lock);
			if (r < 0)
				return r;
		}
		return add_target(x, step, path);
	}
	if (errno == ENOTDIR || errno == EACCES)
		return 0; /* below a file, or out of reach: it cannot be created there either */
	if (errno != ENOENT)
		return -errno;

	/* Walk down from the root to the first missing component. */
	rl = strlen(root);
	memcpy(prefix, path, n + 1);
	for (size_t k = rl == 1 ? 1 : rl + 1; k <= n; k++) {
		bool last = k == n;

		if (!last && path[k] != '/')
			continue;
		prefix[k] = '\0';
		if (lstat(prefix, &st) == 0) {
			if (S_ISDIR(st.st_mode) && looks_like_stub(&st)) {
				/* an ancestor is a stub: it stands for everything below */
				r = add_stub(x, prefix, &st, false, lock);
				return r < 0 ? r : add_target(x, step, prefix);
			}
			if (S_ISLNK(st.st_mode)) {
				/* Follow it only into a writable root, where a stub is harmless. */
				char *real = realpath(prefix, NULL), joined[PATH_MAX];

				if (!real || !root_of(p, real) || hops >= MAX_SYMLINK_HOPS) {
					free(real);
					return 0;
				}
				r = snprintf(joined, sizeof(joined), "%s%s", real, path + k);
				free(real);
				if (r < 0 || (size_t)r >= sizeof(joined))
					return -ENAMETOOLONG;
				return resolve_one(x, step, joined, hops + 1);
			}
			if (!S_ISDIR(st.st_mode))
				return 0;
			prefix[k] = path[k];
			continue;
		}
		if (errno != ENOENT)
			return errno == EACCES || errno == ENOTDIR ? 0 : -errno;

		r = make_stub(prefix, stub_kind_for(prefix, last), &st);
		if (r == -EEXIST && lstat(prefix, &st) == 0)
			return add_target(x, step, prefix); /* a concurrent run made it */
		if (r == -EACCES || r == -EPERM || r == -EROFS)
			return 0; /* we cannot create it, so neither can the sandbox */
		if (r < 0)
			return r;
		r = add_stub(x, prefix, &st, true, lock);
		return r < 0 ? r : add_target(x, step, prefix);
	}
	return 0;
}

/* PREFIX*: the existing entries of the parent that start with PREFIX. */
static int resolve_prefix(struct exec_ctx *x, size_t step, const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	size_t dl = (size_t)(slash - pattern), pl = strlen(slash + 1) - 1;
	char dir[PATH_MAX], entry[PATH_MAX];
	DIR *d;
	int r = 0;

	if (dl >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, pattern, dl);
	dir[dl ? dl : 1] = '\0';
	if (dl == 0)
		dir[0] = '/';
	d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
	for (struct dirent *de; (de = readdir(d));) {
		if (strncmp(de->d_name, slash + 1, pl) != 0 || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(entry, sizeof(entry), "%s/%s", dl ? dir : "", de->d_name) >= sizeof(entry)) {
			r = -ENAMETOOLONG;
			break;
		}
		r = resolve_one(x, step, entry, 0);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int protect_prepare(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < p->n_steps; i++)
		n += p->steps[i].kind == STEP_PROTECT;
	if (n == 0)
		return 0;
	x->targets = calloc(MAX_TARGETS, sizeof(*x->targets));
	if (!x->targets)
		return -ENOMEM;

	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i];
		char path[PATH_MAX];

		if (s->kind != STEP_PROTECT)
			continue;
		if (s->len >= sizeof(path))
			return -ENAMETOOLONG;
		memcpy(path, s->path, s->len);
		path[s->len] = '\0';
		r = path[s->len - 1] == '*' ? resolve_prefix(x, i, path) : resolve_one(x, i, path, 0);
		if (r < 0) {
			say("protect", "%s: %s", path,
			    r == -ELOOP ? "a dangling symlink cannot be kept read-only" : strerror(-r));
			return r;
		}
	}
	return 0;
}

static bool is_marked(const char *path, const struct stat *st)
{
	char v[4];

	if (S_ISSOCK(st->st_mode))
		return true; /* a 0444 socket: its mode is the marker */
	return lgetxattr(path, STUB_XATTR, v, sizeof(v)) > 0;
}

void protect_cleanup(struct exec_ctx *x)
{
	for (size_t l = 0; l < x->n_locks; l++) {
		bool any = false;

		for (size_t i = 0; i < x->n_stubs; i++)
			any |= x->stubs[i].lock == (int)l;
		/* Someone else's sandbox may stand on these stubs: leave them. */
		if (!any || flock(x->locks[l], LOCK_EX | LOCK_NB) < 0)
			continue;
		/* deepest first, so a stub directory is empty of stubs when removed */
		for (size_t i = x->n_stubs; i-- > 0;) {
			const struct stub *s = &x->stubs[i];
			struct stat st;

			if (s->lock != (int)l || lstat(s->path, &st) < 0 || st.st_dev != s->dev ||
			    st.st_ino != s->ino || !looks_like_stub(&st))
				continue;
			if (!s->created && !is_marked(s->path, &st))
				continue;
			if (S_ISDIR(st.st_mode))
				(void)rmdir(s->path);
			else
				(void)unlink(s->path);
		}
	}
	for (size_t l = 0; l < x->n_locks; l++)
		close(x->locks[l]);
	x->n_locks = 0;
}
