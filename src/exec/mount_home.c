/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HOME allowlist's mount step (STEP_HOME), applied by pid 1 after the
 * read-only root and the writable roots are in place: a HOME (or another
 * user's home, or an XDG directory outside HOME) is covered by an empty
 * tmpfs, so the names, sizes and times of what it holds are gone, and
 * only what is granted comes back on it:
 *
 *   - each --home-grant below it, cloned from the tree as it is at that
 *     moment (a writable workspace stays writable, the rest is read-only)
 *     and moved onto a mount point made in the tmpfs;
 *   - each --home-link, a symlink made again with the host's target (what
 *     it leads to is granted or not on its own);
 *   - each --home-filtered file, a copy without its credential-bearing
 *     lines (home_filter.h), read here from the host's file before the
 *     tmpfs hides it: it exists only in this mount namespace's memory.
 *
 * Then the tmpfs turns read-only: nothing is made in HOME during the run,
 * and a file the host makes there meanwhile is on the host's HOME, which
 * the sandbox no longer sees. Landlock withholds every right on the tmpfs
 * itself (plan.c puts each hidden directory among its deny_read paths),
 * with read rules on the grants: the second layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "home_filter.h"
#include "mount_fd.h"
#include "path.h"
#include "pathfd.h"
#include "runner.h"
#include "steps.h"

#define HOME_OPTIONS_FMT "mode=%04o,size=16m,nr_inodes=16384"
#define HOME_HELD_MAX (3 * EXEC_MAX_LIST)

struct home_held {
	const char *path;
	enum { HELD_TREE, HELD_LINK, HELD_COPY } kind;
	int fd;           /* HELD_TREE: the clone */
	int src;          /* HELD_TREE: what was cloned (O_PATH), for its Landlock rule */
	bool late;        /* HELD_TREE: flags of its own, attached once the tmpfs has its flags */
	bool dir;
	char *data;       /* HELD_LINK: the target; HELD_COPY: the filtered bytes */
	size_t len;
};

/* path lies strictly below another grant under the same home: that one's
 * clone brings it along. */
static bool strictly_below(const char *path, const char *dir)
{
	return strcmp(path, dir) != 0 && path_is_under(path, dir);
}

static bool below_other_grant(const struct plan *p, const char *home, const char *path)
{
	for (size_t i = 0; p->home_grant && p->home_grant[i]; i++)
		if (strictly_below(p->home_grant[i], home) && strictly_below(path, p->home_grant[i]))
			return true;
	return false;
}

/* path was taken already (a grant named twice: a built-in cache a
 * profile also makes writable) */
static bool held_already(const struct home_held *held, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(held[i].path, path) == 0)
			return true;
	return false;
}

static bool in_writable_root(const struct plan *p, const char *path)
{
	return path_under_any(path, p->write);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* a writable root lies strictly below path: a recursive read-only on
 * path's clone would take its writes away */
static bool writable_below(const struct plan *p, const char *path)
{
	for (const char *const *w = p->write; w && *w; w++)
		if (strictly_below(*w, path))
			return true;
	return false;
}

/* Most grants below home are read-only as a whole and equally executable:
 * those are cloned bare and get their flags with the tmpfs's, in one call
 * over the whole tmpfs (read-only, nosuid, nodev, and noexec when the
 * first such grant is), instead of one call per clone. The rest (a
 * writable workspace below HOME, a writable root below a grant, another
 * noexec) keep flags of their own, set on the clone, and are attached
 * after that call. */
static bool grant_bare(const struct plan *p, const char *path, bool noexec)
{
	return !in_writable_root(p, path) && !writable_below(p, path) && plan_noexec(p, path) == noexec;
}

static bool bare_noexec(const struct plan *p, const char *home)
{
	for (size_t k = 0; p->home_grant && p->home_grant[k]; k++)
		if (strictly_below(p->home_grant[k], home) && !in_writable_root(p, p->home_grant[k]) &&
		    !writable_below(p, p->home_grant[k]))
			return plan_noexec(p, p->home_grant[k]);
	return false;
}

static void hold_grant(const struct plan *p, const char *path, bool bare, struct home_held *h)
{
	/* a directory in one call; a file is the rarer second try */
	bool dir = true, ro = !in_writable_root(p, path), ro_all = ro && !writable_below(p, path);
	_cleanup_close_ int at = path_open_nofollow(AT_FDCWD, path, O_DIRECTORY);
	int fd, r;

	h->fd = h->src = -1;
	if (at == -ENOTDIR) {
		dir = false;
		at = path_open_nofollow(AT_FDCWD, path, 0);
	}
	if (at == -ENOENT || at == -ENOTDIR || at == -EACCES)
		return; /* nothing there now: nothing to bring back */
	/* read-only unless a writable root holds it: with no writable root
	 * below it, on the whole clone in the same call as nosuid,nodev
	 * (what lies below is read-only already: the read-only root's); with
	 * one (~/go/pkg/mod in ~/go/pkg), on the clone's own mount only, so
	 * the writable root keeps its own flags */
	fd = at < 0 ? at :
	     bare   ? mount_clone_at(at, true, 0) :
		     mount_clone_at(at, true,
				    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (plan_noexec(p, path) ? MOUNT_ATTR_NOEXEC : 0) |
					    (ro_all ? MOUNT_ATTR_RDONLY : 0));
	if (fd < 0) {
		errno = -fd;
		exec_die("home", "%s: cannot take the grant: %m", path);
	}
	if (ro && !ro_all && (r = mount_set_attr(fd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0)) < 0)
		exec_die("home", "%s: cannot make the grant read-only: %s", path, strerror(-r));
	h->fd = fd;
	h->src = TAKE_FD(at);
	h->dir = dir;
	h->late = !bare;
}

/* The grant's fd kept for its Landlock rule (struct landlock_held), or
 * closed when there is no room. */
static void keep_for_landlock(struct exec_ctx *x, const char *home, struct home_held *h)
{
	struct landlock_held *v;
	char *path, *under;

	if (h->src < 0)
		return;
	v = reallocarray(x->held, x->n_held + 1, sizeof(*v));
	path = strdup(h->path);
	under = strdup(home);
	if (!v || !path || !under)
		exec_die("home", "out of memory");
	x->held = v;
	x->held[x->n_held++] = (struct landlock_held){ .path = path, .under = under, .fd = TAKE_FD(h->src), .dir = h->dir };
}

static void hold_link(const char *path, struct home_held *h)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return; /* gone, or no link any more: nothing made */
	target[n] = '\0';
	h->data = strdup(target);
	if (!h->data)
		exec_die("home", "out of memory");
}

static void hold_copy(const char *path, struct home_held *h)
{
	_cleanup_free_ char *raw = NULL;
	size_t len = 0;
	int r = read_file_capped(path, HOME_FILTER_MAX, true, &raw, &len);

	if (r < 0)
		return; /* missing, too big or no regular file: it stays hidden */
	r = home_filter(raw, len, home_filter_is_git(path), &h->data, &h->len);
	if (r < 0)
		exec_die("home", "%s: cannot filter it: %s", path, strerror(-r));
}

/* The directories made in the tmpfs so far, each with its O_PATH fd:
 * every grant's place is made from its parent's fd, each directory once,
 * never by a walk from "/" (the tmpfs is new and only this step writes
 * in it; each name is made, then opened with no symlink followed). */
struct home_dirs {
	int top;          /* the tmpfs's root: HOME */
	size_t n, cap;
	struct home_dir {
		char *rel;
		int fd;
	} *d;
};

static int dir_fd(struct home_dirs *m, const char *rel, size_t len)
{
	const char *slash;
	int parent, fd;
	char *name;

	if (len == 0)
		return m->top;
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->d[i].rel) == len && memcmp(m->d[i].rel, rel, len) == 0)
			return m->d[i].fd;
	slash = memrchr(rel, '/', len);
	parent = dir_fd(m, rel, slash ? (size_t)(slash - rel) : 0);
	name = strndup(slash ? slash + 1 : rel, len - (slash ? (size_t)(slash - rel) + 1 : 0));
	if (!name)
		exec_die("home", "out of memory");
	if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
		exec_die("home", "%.*s: cannot make its place: %m", (int)len, rel);
	fd = path_open_nofollow(parent, name, O_DIRECTORY);
	free(name);
	if (fd < 0) {
		errno = -fd;
		exec_die("home", "%.*s: cannot open its place: %m", (int)len, rel);
	}
	if (m->n == m->cap) {
		struct home_dir *d = reallocarray(m->d, m->cap ? 2 * m->cap : 32, sizeof(*d));

		if (!d)
			exec_die("home", "out of memory");
		m->d = d;
		m->cap = m->cap ? 2 * m->cap : 32;
	}
	if (!(m->d[m->n].rel = strndup(rel, len)))
		exec_die("home", "out of memory");
	m->d[m->n++].fd = fd;
	return fd;
}

static void dirs_free(struct home_dirs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->d[i].rel);
		close(m->d[i].fd);
	}
	free(m->d);
}

/* the fd of the directory path's last name goes in (made if need be),
 * and that name */
static int place_of(struct home_dirs *m, const char *home, const char *path, const char **ret_name)
{
	const char *rel = path + strlen(home) + 1, *slash = strrchr(rel, '/');

	*ret_name = slash ? slash + 1 : rel;
	return dir_fd(m, rel, slash ? (size_t)(slash - rel) : 0);
}

/* The directories made below the tmpfs's root for the trees, by their
 * path relative to it: each made once. */
struct made {
	char **rel;
	size_t n, cap;
};

/* The place of tree h (made, with the directories on its way): relative
 * to the tmpfs's root top, which holds nothing but directories and the
 * trees bound so far while the trees are placed (links and copies come
 * after them, and a grant below another grant is that one's), so no
 * symlink lies on the way. */
static void make_place(struct made *md, int top, const char *rel, const struct home_held *h)
{
	for (const char *c = strchr(rel, '/'); c; c = strchr(c + 1, '/')) {
		size_t len = (size_t)(c - rel);
		bool done = false;
		char *d;

		for (size_t i = 0; i < md->n && !done; i++)
			done = strlen(md->rel[i]) == len && memcmp(md->rel[i], rel, len) == 0;
		if (done)
			continue;
		if (!(d = strndup(rel, len)))
			exec_die("home", "out of memory");
		if (mkdirat(top, d, 0755) < 0 && errno != EEXIST)
			exec_die("home", "%s: cannot make its place: %m", h->path);
		if (md->n == md->cap) {
			char **v = reallocarray(md->rel, md->cap ? 2 * md->cap : 16, sizeof(*v));

			if (!v)
				exec_die("home", "out of memory");
			md->rel = v;
			md->cap = md->cap ? 2 * md->cap : 16;
		}
		md->rel[md->n++] = d;
	}
	if (h->dir) {
		if (mkdirat(top, rel, 0755) < 0 && errno != EEXIST)
			exec_die("home", "%s: cannot make its place: %m", h->path);
	} else {
		int fd = openat(top, rel, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

		if (fd < 0)
			exec_die("home", "%s: cannot make its place: %m", h->path);
		close(fd);
	}
}

static void made_free(struct made *md)
{
	for (size_t i = 0; i < md->n; i++)
		free(md->rel[i]);
	free(md->rel);
}

/* A tree bound back on its place (rel, below top). A late one's place is
 * opened with no symlink on the way: links were made since. */
static void attach_tree(int top, const char *rel, struct home_held *h)
{
	_cleanup_close_ int held = TAKE_FD(h->fd);
	int r;

	if (h->late) {
		_cleanup_close_ int at = path_open_nofollow(top, rel, h->dir ? O_DIRECTORY : 0);

		r = at < 0 ? at : mount_attach_at(held, at);
	} else
		r = mount_attach_name(held, top, rel);
	if (r < 0) {
		errno = -r;
		exec_die("home", "%s: cannot bind it back: %m", h->path);
	}
}

static void put_back(struct home_dirs *m, struct made *md, const char *home, struct home_held *h)
{
	const char *name;
	int dir;

	if (h->kind == HELD_TREE ? h->fd < 0 : !h->data)
		return;
	if (h->kind == HELD_TREE) {
		const char *rel = h->path + strlen(home) + 1;

		make_place(md, m->top, rel, h);
		if (!h->late)
			attach_tree(m->top, rel, h);
		return;
	}
	dir = place_of(m, home, h->path, &name);
	if (h->kind == HELD_LINK) {
		if (symlinkat(h->data, dir, name) < 0 && errno != EEXIST)
			exec_die("home", "%s: cannot make the link again: %m", h->path);
		return;
	}
	/* an O_PATH fd serves as the directory of openat */
	_cleanup_close_ int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0 || write_all(fd, h->data, h->len) < 0)
		exec_die("home", "%s: cannot write the filtered copy: %m", h->path);
}

void mount_home(struct exec_ctx *x, size_t i)
{
	const struct plan *p = x->plan;
	const struct step *s = &p->steps[i];
	_cleanup_free_ char *home = strndup(s->path, s->len);
	_cleanup_free_ struct home_held *held = NULL;
	struct home_dirs dirs = {};
	_cleanup_close_ int at = -1, top = -1;
	char target[64], options[64];
	size_t n = 0;
	struct stat st;
	struct made made = {};
	bool noexec, bare = false;
	int r;

	if (!home)
		exec_die("home", "out of memory");
	noexec = bare_noexec(p, home);
	at = path_open_nofollow(AT_FDCWD, home, 0);
	if (at == -ENOENT || at == -ENOTDIR || at == -EACCES)
		return; /* nothing there: nothing to hide */
	if (at < 0 || fstat(at, &st) < 0 || !S_ISDIR(st.st_mode))
		exec_die("home", "%s: not a directory to hide", home);
	held = calloc(HOME_HELD_MAX, sizeof(*held));
	if (!held)
		exec_die("home", "out of memory");
	/* everything taken while the host's HOME is still in view */
	for (size_t k = 0; p->home_grant && p->home_grant[k] && n < HOME_HELD_MAX; k++)
		if (strictly_below(p->home_grant[k], home) && !below_other_grant(p, home, p->home_grant[k]) &&
		    !held_already(held, n, p->home_grant[k])) {
			held[n] = (struct home_held){ .path = p->home_grant[k], .kind = HELD_TREE };
			hold_grant(p, p->home_grant[k], grant_bare(p, p->home_grant[k], noexec), &held[n++]);
		}
	for (size_t k = 0; p->home_link && p->home_link[k] && n < HOME_HELD_MAX; k++)
		if (strictly_below(p->home_link[k], home) && !below_other_grant(p, home, p->home_link[k])) {
			held[n] = (struct home_held){ .path = p->home_link[k], .kind = HELD_LINK, .fd = -1 };
			hold_link(p->home_link[k], &held[n++]);
		}
	for (size_t k = 0; p->home_filtered && p->home_filtered[k] && n < HOME_HELD_MAX; k++)
		if (strictly_below(p->home_filtered[k], home) && !below_other_grant(p, home, p->home_filtered[k])) {
			held[n] = (struct home_held){ .path = p->home_filtered[k], .kind = HELD_COPY, .fd = -1 };
			hold_copy(p->home_filtered[k], &held[n++]);
		}

	snprintf(target, sizeof(target), "/proc/self/fd/%d", at);
	snprintf(options, sizeof(options), HOME_OPTIONS_FMT, (unsigned)(st.st_mode & 07777));
	if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0)
		exec_die("home", "%s: cannot cover it with a tmpfs: %m", home);
	top = path_open_nofollow(AT_FDCWD, home, O_DIRECTORY);
	if (top < 0) {
		errno = -top;
		exec_die("home", "%s: cannot open its tmpfs: %m", home);
	}
	dirs.top = top;
	for (size_t k = 0; k < n; k++) {
		bare |= held[k].kind == HELD_TREE && held[k].fd >= 0 && !held[k].late;
		put_back(&dirs, &made, home, &held[k]);
		if (held[k].kind == HELD_TREE)
			keep_for_landlock(x, home, &held[k]);
		free(held[k].data);
	}
	dirs_free(&dirs);
	/* the tmpfs itself read-only; the grants keep their own mounts, or,
	 * taken bare, get the same flags in the same call */
	r = bare ? mount_set_attr(top, "", AT_EMPTY_PATH | AT_RECURSIVE,
				  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					  (noexec ? MOUNT_ATTR_NOEXEC : 0),
				  0) :
		   mount_set_attr(top, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0);
	if (r < 0)
		exec_die("home", "%s: cannot make it read-only: %s", home, strerror(-r));
	for (size_t k = 0; k < n; k++)
		if (held[k].kind == HELD_TREE && held[k].fd >= 0)
			attach_tree(top, held[k].path + strlen(home) + 1, &held[k]);
	made_free(&made);
}
