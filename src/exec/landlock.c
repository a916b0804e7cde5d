/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "dirlist.h"
#include "errbuf.h"
#include "landlock.h"
#include "landlock_internal.h"
#include "pathfd.h"
#include "policy.h"
#include "probe.h"

/* The system header may predate Landlock ABI 2..7 (Debian 12 ships Linux 6.1's). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* struct landlock_ruleset_attr as of ABI 6. The system header may only have
 * handled_access_fs, so we carry our own. Any kernel accepts the larger size
 * as long as the fields it does not know are zero, which the ABI switch in
 * landlock_apply guarantees. */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Every filesystem right up to ABI 7. */
#define FS_ALL                                                                                   \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	 LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |                           \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                         \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |                          \
	 LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE |  \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* The only rights the kernel accepts on a rule for a non-directory. */
#define FS_FILE                                                                                  \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Never granted to writable roots: a device node made there would open the
 * device itself; IOCTL_DEV is added back for roots under /dev only. */
#define FS_WRITE_NEVER \
	(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define NET_ALL (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define SCOPE_ALL (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)


/* The one cache this module keeps: asked once per process, by whichever
 * thread comes first. */
int landlock_get_abi(void)
{
	return cordon_landlock_abi(); /* the one query, memoised (lib/kernel.c) */
}

/* Which denied entries a walk honours. */
enum {
	HONOUR_READ = 1u << 0, /* deny_read: every right withheld */
	HONOUR_EXEC = 1u << 1, /* deny_exec: EXECUTE withheld */
};

/* The fds of the walk's granted entries, closed together: opened one after
 * another, they are mostly consecutive, and one close_range takes a run of
 * them (/etc alone is ~140 entries: 140 closes become a few). One batch for
 * the whole walk, not one per level, and emptied at once when an open finds
 * no free fd: the walk never holds more than its own path's directories
 * beside it, so a low RLIMIT_NOFILE does not fail a launch. */
struct fd_batch {
	int fd[64];
	size_t n;
};

static void batch_flush(struct fd_batch *fb)
{
	/* ascending (insertion sort: nearly sorted already), then runs */
	for (size_t i = 1; i < fb->n; i++)
		for (size_t k = i; k > 0 && fb->fd[k - 1] > fb->fd[k]; k--) {
			int t = fb->fd[k];

			fb->fd[k] = fb->fd[k - 1];
			fb->fd[k - 1] = t;
		}
	for (size_t i = 0; i < fb->n;) {
		size_t k = i;

		while (k + 1 < fb->n && fb->fd[k + 1] == fb->fd[k] + 1)
			k++;
		if (k == i)
			close(fb->fd[i]);
		else
			(void)close_range((unsigned)fb->fd[i], (unsigned)fb->fd[k], 0);
		i = k + 1;
	}
	fb->n = 0;
}

static inline void batch_flushp(struct fd_batch *fb)
{
	batch_flush(fb);
}

static void batch_add(struct fd_batch *fb, int fd)
{
	if (fb->n == ELEMENTSOF(fb->fd))
		batch_flush(fb);
	fb->fd[fb->n++] = fd;
}

struct builder {
	struct landlock_held *held;
	size_t n_held;
	int ruleset_fd;
	uint64_t handled_fs;
	unsigned n_rules;
	const struct denied *denied;
	size_t n_denied;
	bool list_walked;
	enum landlock_part part;   /* which rules this build adds (landlock.h) */
	const char *const *inside; /* with a part: where the sandbox's inodes differ */
	struct fd_batch *done; /* granted entries' fds, to close */
	char *err;
	size_t errlen;
};

static bool path_under(const char *path, const char *ancestor)
{
	return strcmp(path, ancestor) != 0 && path_is_under(path, ancestor);
}

static bool path_under_dev(const char *path)
{
	return strcmp(path, "/dev") == 0 || strncmp(path, "/dev/", 5) == 0;
}

static bool honoured(const struct denied *d, unsigned honour)
{
	return honour & (d->exec_only ? HONOUR_EXEC : HONOUR_READ);
}

static uint64_t withheld_by(const struct denied *d)
{
	return d->exec_only ? LANDLOCK_ACCESS_FS_EXECUTE : ~(uint64_t)0;
}

/* type: the entry's S_IFMT when the caller knows it (readdir's d_type,
 * from the same directory the fd was opened in), or 0 to fstat. */
static int add_fd_rule_typed(struct builder *b, int fd, mode_t type, uint64_t allowed, const char *path,
			     const char *name)
{
	struct landlock_path_beneath_attr attr = {};
	struct stat st;

	if (!type) {
		if (fstat(fd, &st) < 0)
			return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot stat %s%s%s: %s", path,
				    name ? "/" : "", name ? name : "", strerror(errno));
		type = st.st_mode & S_IFMT;
	}
	if (type == S_IFLNK)
		return 0; /* only reachable from a walked directory: see grant */
	if (type != S_IFDIR)
		allowed &= FS_FILE;
	allowed &= b->handled_fs;
	if (allowed == 0)
		return 0;
	if (b->n_rules >= LANDLOCK_MAX_RULES)
		return errbuf_set(b->err, b->errlen, -E2BIG,
			    "landlock: more than %d rules needed: a hidden path (deny_read or deny_exec) splits a "
			    "directory with too many entries near %s, and each entry beside it is granted one by one; "
			    "move that directory's entries into subdirectories, or make the readable root above it "
			    "narrower",
			    LANDLOCK_MAX_RULES, path);
	attr.allowed_access = allowed;
	attr.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, b->ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) < 0)
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot add a rule for %s%s%s: %s", path,
			    name ? "/" : "", name ? name : "", strerror(errno));
	b->n_rules++;
	return 0;
}

static int add_fd_rule(struct builder *b, int fd, uint64_t allowed, const char *path, const char *name)
{
	return add_fd_rule_typed(b, fd, 0, allowed, path, name);
}

/* A denied path strictly beneath the directory being walked, seen from
 * there: the next component of its path (name, len) and whether that is
 * its last. grant() collects these once per directory, so that each entry
 * of the listing is matched against the few denied paths below that
 * directory, not against the whole list (/etc has ~140 entries, the list
 * ~200 paths). */
struct below {
	const struct denied *d;
	const char *name;
	size_t len;
	bool last;
};

enum entry_kind {
	ENTRY_GRANT,   /* nothing honoured is denied at or under it */
	ENTRY_HIDDEN,  /* what it is given is withheld from it entirely */
	ENTRY_WALK,    /* a denied path, or on the way to one: grant() it */
};

/* An entry NAME of the walked directory that is to be given SPLIT; BELOW
 * holds the honoured denied paths beneath that directory. */
static enum entry_kind classify_entry(const struct below *below, size_t n_below, const char *name, uint64_t split)
{
	uint64_t at = 0;
	bool deeper = false;
	size_t n = strlen(name);

	for (size_t i = 0; i < n_below; i++) {
		if (below[i].len != n || memcmp(below[i].name, name, n) != 0)
			continue;
		if (below[i].last)
			at |= withheld_by(below[i].d);
		else
			deeper = true;
	}
	if ((split & ~at) == 0)
		return ENTRY_HIDDEN; /* a denied ancestor hides every denied path beneath it */
	return at || deeper ? ENTRY_WALK : ENTRY_GRANT;
}

static int join_path(const char *dir, const char *name, char **ret)
{
	char *s;

	if (asprintf(&s, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name) < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static mode_t dtype_to_mode(unsigned char t)
{
	return t == DT_DIR ? S_IFDIR : t == DT_LNK ? S_IFLNK : t == DT_UNKNOWN ? 0 : S_IFREG;
}

static int grant(struct builder *b, int fd, bool listable, mode_t type, const char *path, uint64_t allowed,
		 unsigned honour);

/* An entry of a walked directory to walk on: a directory is opened for
 * reading right away (its rule and its listing then share one fd); what is
 * no directory now, or cannot be read, as O_PATH. O_NOFOLLOW: a symlink
 * here must not carry our rights to its target (which may be the denied
 * path). */
static int open_entry(int dfd, const char *name, unsigned char d_type, bool walk, bool *ret_listable)
{
	int fd;

	*ret_listable = false;
	if (walk && d_type == DT_DIR) {
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			*ret_listable = true;
			return fd;
		}
		if (errno == ENOENT)
			return -errno;
	}
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One listing of grant_entries: what each entry is decided against, and
 * the first failure (already reported into b->err). */
struct entries_walk {
	struct builder *b;
	int dfd;
	const char *dir;
	uint64_t split;
	unsigned honour;
	const struct below *below;
	size_t n_below;
	bool inside_below; /* an inside path lies beneath dir */
	int r;
};

static int grant_entry(const char *name, unsigned char d_type, void *data)
{
	struct entries_walk *w = data;
	struct builder *b = w->b;
	_cleanup_free_ char *child = NULL;
	enum entry_kind kind = classify_entry(w->below, w->n_below, name, w->split);
	bool efd_listable;
	int efd, r;

	/* A symlink gets no rule (what it points at is granted or not on its
	 * own): no need to open it. /usr/bin is a quarter links. */
	if (kind == ENTRY_HIDDEN || (kind == ENTRY_GRANT && d_type == DT_LNK))
		return 0;
	/* The host part leaves an entry init mounts on to init; init adds
	 * only those, and walks on towards them (the host part granted the
	 * rest, on the same inodes). */
	if (b->part == LANDLOCK_HOST && w->inside_below && landlock_inside_entry(b->inside, w->dir, name))
		return 0;
	if (b->part == LANDLOCK_INSIDE && kind == ENTRY_GRANT && !landlock_inside_entry(b->inside, w->dir, name))
		return 0;
	efd = open_entry(w->dfd, name, d_type, kind == ENTRY_WALK, &efd_listable);
	if (efd == -EMFILE && b->done->n > 0) {
		batch_flush(b->done);
		efd = open_entry(w->dfd, name, d_type, kind == ENTRY_WALK, &efd_listable);
	}
	if (efd < 0) {
		if (efd == -ENOENT)
			return 0; /* removed since it was listed */
		return (w->r = errbuf_set(b->err, b->errlen, efd, "landlock: cannot open %s/%s: %s", w->dir, name,
					  strerror(-efd)));
	}
	if (kind == ENTRY_WALK) {
		r = join_path(w->dir, name, &child);
		if (r < 0) {
			close(efd);
			return (w->r = errbuf_set(b->err, b->errlen, r, "landlock: out of memory"));
		}
		r = grant(b, efd, efd_listable, dtype_to_mode(d_type), child, w->split, w->honour);
		return r < 0 ? (w->r = r) : 0;
	}
	/* d_type saves an fstat per entry; O_PATH|O_NOFOLLOW opened this very
	 * entry, and a swap since makes at worst a rule on what the name is
	 * now (a directory's rights on a file are refused by the kernel: then
	 * we look again) */
	r = add_fd_rule_typed(b, efd, dtype_to_mode(d_type), w->split, w->dir, name);
	if (r == -EINVAL)
		r = add_fd_rule(b, efd, w->split, w->dir, name);
	batch_add(b->done, efd);
	return r < 0 ? (w->r = r) : 0;
}

/* The entries of DIR (open as FD; LISTABLE: open for reading, else O_PATH),
 * each given SPLIT, or walked on; BELOW the honoured denied paths beneath
 * DIR. Listed with dirlist_fd (getdents64 on one fd: no fdopendir, its
 * fstat and two fcntl), and no second open when the walk opened DIR for
 * reading. */
static int grant_entries(struct builder *b, int fd, bool listable, const char *dir, uint64_t split,
			 unsigned honour, const struct below *below, size_t n_below)
{
	struct entries_walk w = { b, fd, dir, split, honour, below, n_below, false, 0 };
	_cleanup_close_ int owned = -1;
	int r;

	if (b->part != LANDLOCK_WHOLE)
		w.inside_below = landlock_inside_below(b->inside, dir);
	/* init's part lists nothing: the entries it adds are the inside
	 * paths' own names, looked up one by one */
	if (b->part == LANDLOCK_INSIDE)
		return landlock_inside_names(b->inside, dir, grant_entry, &w) < 0 ? w.r : 0;

	if (!listable) {
		owned = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (owned < 0)
			return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot list %s: %s", dir,
					  strerror(errno));
		w.dfd = owned;
	}
	r = dirlist_fd(w.dfd, grant_entry, &w);
	if (r < 0 && w.r == 0) /* the listing's own failure */
		return errbuf_set(b->err, b->errlen, r, "landlock: cannot list %s: %s", dir, strerror(-r));
	return r < 0 ? r : 0;
}

/* Grant ALLOWED on PATH (canonical, open as FD, taken over: with O_PATH,
 * or LISTABLE, for reading; TYPE its S_IFMT or 0), minus what the honoured denied paths withhold at
 * and beneath it: see landlock.h. What nothing beneath withholds is one
 * rule on PATH; what something does is given entry by entry on the way
 * down. */
static int grant(struct builder *b, int fd, bool listable, mode_t type, const char *path, uint64_t allowed,
		 unsigned honour)
{
	if (b->part == LANDLOCK_INSIDE && landlock_inside_at(b->inside, path)) {
		int r;

		/* beneath an inside path, every rule is init's */
		b->part = LANDLOCK_WHOLE;
		r = grant(b, fd, listable, type, path, allowed, honour);
		b->part = LANDLOCK_INSIDE;
		return r;
	}
	if (b->part == LANDLOCK_INSIDE && !landlock_inside_below(b->inside, path)) {
		close(fd); /* the host part's alone */
		return 0;
	}

	_cleanup_close_ int owned = fd;
	_cleanup_free_ struct below *below = NULL;
	uint64_t at = 0, withheld_below = 0, split, direct;
	size_t n_below = 0, plen = strlen(path);
	bool dir_below = false;

	for (size_t i = 0; i < b->n_denied; i++) {
		const struct denied *d = &b->denied[i];
		const char *c;
		size_t len;

		if (!honoured(d, honour))
			continue;
		if (strcmp(d->path, path) == 0) {
			at |= withheld_by(d);
			continue;
		}
		if (!path_under(d->path, path))
			continue;
		withheld_below |= withheld_by(d);
		dir_below |= d->is_dir && !d->exec_only;
		if (!below && !(below = calloc(b->n_denied, sizeof(*below))))
			return errbuf_set(b->err, b->errlen, -ENOMEM, "landlock: out of memory");
		c = path_first_below(d->path, plen, &len);
		below[n_below++] = (struct below){
			.d = d,
			.name = c,
			.len = len,
			.last = c[len] == '\0',
		};
	}
	allowed &= ~at & b->handled_fs;
	if (allowed == 0)
		return 0;
	split = allowed & withheld_below;
	/* on the way to an inside path, the host part gave PATH its rule */
	if (!split)
		return b->part == LANDLOCK_INSIDE ? 0 : add_fd_rule_typed(b, fd, type, allowed, path, NULL);

	/* READ_DIR on PATH reaches every directory beneath it, denied ones
	 * included; a denied file is unaffected by it. */
	direct = allowed & ~split;
	if ((split & LANDLOCK_ACCESS_FS_READ_DIR) && (b->list_walked || !dir_below))
		direct |= LANDLOCK_ACCESS_FS_READ_DIR;
	if (direct && b->part != LANDLOCK_INSIDE) {
		int r = add_fd_rule_typed(b, fd, S_IFDIR, direct, path, NULL);

		if (r < 0)
			return r;
	}
	return grant_entries(b, fd, listable, path, split, honour, below, n_below);
}

/* path is absolute with no empty, "." or ".." component and no trailing
 * slash: resolved with no symlink on the way, it is its own canonical
 * form */
static bool lexically_canonical(const char *path)
{
	if (path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	for (const char *c = path; *c; c++)
		if (*c == '/' && (c[1] == '/' || c[1] == '\0' || (c[1] == '.' && (c[2] == '/' || c[2] == '\0')) ||
				  (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0'))))
			return false;
	return true;
}

/* root's fd taken from the held ones (see struct landlock_held), or -1. */
static int take_held(struct builder *b, const char *root, mode_t *ret_type)
{
	for (size_t i = 0; i < b->n_held; i++) {
		struct landlock_held *h = &b->held[i];
		int fd;

		if (h->fd < 0 || strcmp(h->path, root) != 0)
			continue;
		for (size_t k = 0; k < b->n_denied; k++) {
			const char *d = b->denied[k].path;

			if (!b->denied[k].exec_only && strcmp(d, h->under) != 0 &&
			    (strcmp(d, root) == 0 || path_is_under(root, d)))
				return -1; /* hidden by another step since: by path */
		}
		fd = h->fd;
		h->fd = -1;
		*ret_type = h->dir ? S_IFDIR : 0;
		return fd;
	}
	return -1;
}

static int add_root(struct builder *b, const char *root, uint64_t allowed)
{
	_cleanup_free_ char *canon = NULL;
	unsigned honour = HONOUR_READ | HONOUR_EXEC;
	mode_t type = 0;
	bool inits;
	int fd = take_held(b, root, &type);

	if (fd >= 0 && !(canon = strdup(root))) {
		close(fd);
		return errbuf_set(b->err, b->errlen, -ENOMEM, "landlock: out of memory");
	}

	/* A root opened with no symlink on the way is canonical as written:
	 * one openat2 instead of realpath(3)'s readlink per component (a
	 * HOME grant is three or four deep); a symlink on the way (-ELOOP)
	 * takes the realpath below. Opened as a directory first, which most
	 * roots are: then its rule needs no fstat for its type. */
	if (!canon && lexically_canonical(root)) {
		fd = path_open_nofollow(AT_FDCWD, root, O_DIRECTORY);
		if (fd >= 0)
			type = S_IFDIR;
		else if (fd == -ENOTDIR)
			fd = path_open_nofollow(AT_FDCWD, root, 0);
		if (fd == -ENOENT || fd == -ENOTDIR)
			return 0;
		if (fd >= 0 && !(canon = strdup(root))) {
			close(fd);
			return errbuf_set(b->err, b->errlen, -ENOMEM, "landlock: out of memory");
		}
		if (fd < 0)
			fd = -1;
	}
	if (!canon)
		canon = realpath(root, NULL);
	if (!canon) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot resolve %s: %s", root, strerror(errno));
	}
	if (path_under_dev(canon))
		allowed |= LANDLOCK_ACCESS_FS_IOCTL_DEV;

	for (size_t i = 0; i < b->n_denied; i++)
		if (!b->denied[i].exec_only && strcmp(b->denied[i].path, canon) == 0) {
			if (fd >= 0)
				close(fd);
			return 0; /* denied as a whole */
		}
	/* Full isolation hides by mount inside writable roots too; splitting
	 * one for deny_read would forbid creating anything directly in it
	 * (HOME as the workspace could not get a new file). A deny_exec walk
	 * withholds EXECUTE only: creating stays possible. */
	if (b->list_walked && (allowed & LANDLOCK_ACCESS_FS_MAKE_REG))
		honour = HONOUR_EXEC;
	/* a root init mounts on, or beneath one or beneath a hidden path (a
	 * hide mounts there; one at it was refused above), is init's alone */
	inits = b->part != LANDLOCK_WHOLE &&
		(landlock_inside_at(b->inside, canon) || denied_hides(b->denied, b->n_denied, canon));
	if (b->part == LANDLOCK_HOST && inits) {
		if (fd >= 0)
			close(fd);
		return 0;
	}

	if (fd < 0)
		fd = open(canon, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s: %s", canon, strerror(errno));
	}
	if (b->part == LANDLOCK_INSIDE && inits) {
		int r;

		b->part = LANDLOCK_WHOLE;
		r = grant(b, fd, false, type, canon, allowed, honour);
		b->part = LANDLOCK_INSIDE;
		return r;
	}
	return grant(b, fd, false, type, canon, allowed, honour);
}

/* The file the command runs from (--exec-fd): it is what the caller
 * checked and opened, so it may be read and executed whatever its path is
 * now; but a --deny-exec path naming the same file is a contradiction. */
static int add_exec_fd(struct builder *b, int exec_fd)
{
	struct stat st, dst;

	if (fstat(exec_fd, &st) < 0)
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot stat the --exec-fd file: %s",
			    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errbuf_set(b->err, b->errlen, -EACCES, "landlock: the --exec-fd file is not a regular file");
	for (size_t i = 0; i < b->n_denied; i++)
		if (b->denied[i].exec_only && stat(b->denied[i].path, &dst) == 0 && dst.st_dev == st.st_dev &&
		    dst.st_ino == st.st_ino)
			return errbuf_set(b->err, b->errlen, -EPERM,
				    "landlock: the --exec-fd file is %s, which --deny-exec names", b->denied[i].path);
	return add_fd_rule_typed(b, exec_fd, S_IFREG, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE,
				 "the --exec-fd file", NULL);
}

static void append_missing(char *buf, size_t size, const char *what)
{
	size_t used = strlen(buf);

	snprintf(buf + used, size - used, "%s%s", used ? ", " : "", what);
}

int landlock_prepare(const struct landlock_rules *r, struct landlock_report *rep, int *ret_fd, char *err,
		     size_t errlen)
{
	struct landlock_report report = {};
	struct ruleset_attr attr = {};
	struct denied *denied = NULL;
	size_t n_denied = 0;
	uint64_t fs = FS_ALL, net = NET_ALL, scoped = SCOPE_ALL, gated;
	_cleanup_close_ int ruleset_fd = -1;
	_cleanup_(batch_flushp) struct fd_batch done = { .n = 0 };
	struct builder b;
	int abi, k;

	if (!r || !rep)
		return errbuf_set(err, errlen, -EINVAL, "landlock: no rules or no report");
	/* init's part goes on in the host part's ruleset (made with the same
	 * attributes: the same plan, the same kernel), taken over here */
	if (r->part == LANDLOCK_INSIDE)
		ruleset_fd = r->ruleset_fd;

	abi = landlock_get_abi();
	if (r->test_abi_cap < 0)
		abi = 0;
	else if (r->test_abi_cap > 0 && abi > r->test_abi_cap)
		abi = r->test_abi_cap;

	/* Take away what this ABI lacks, as the kernel's
	 * samples/landlock/sandboxer.c does. */
	switch (abi) {
	case 0:
		fs = net = scoped = 0;
		break;
	case 1:
		/* Without REFER, reparenting is always denied: stricter, not weaker. */
		fs &= ~LANDLOCK_ACCESS_FS_REFER;
		__attribute__((fallthrough));
	case 2:
		fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		__attribute__((fallthrough));
	case 3:
		net = 0;
		__attribute__((fallthrough));
	case 4:
		fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		__attribute__((fallthrough));
	case 5:
		scoped = 0;
		__attribute__((fallthrough));
	case 6:
		/* ABI 7 adds only audit-logging flags for
		 * landlock_restrict_self(); we use the defaults. */
		__attribute__((fallthrough));
	case 7:
		break;
	default:
		/* Newer ABIs keep everything we know of. */
		break;
	}

	/* Required features first, so that a refusal applies nothing. */
	if ((r->required & REQUIRE_LANDLOCK) && fs == 0)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "landlock is required but the kernel does not offer it (unsupported or disabled)");
	if ((r->required & REQUIRE_LANDLOCK_NET) && net == 0)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "landlock-net is required but the kernel's Landlock ABI is %d (needs 4)", abi);
	if ((r->required & REQUIRE_LANDLOCK_SCOPE) && scoped == 0)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "landlock-scope is required but the kernel's Landlock ABI is %d (needs 6): without a "
			    "network namespace of the sandbox's own (--net host, light isolation) it alone keeps "
			    "the host's abstract unix sockets out; use --net none or proxy",
			    abi);

	/* What only Landlock gives is never dropped, asked for or not. */
	if (fs == 0 && (r->exec_gate || (r->deny_exec && r->deny_exec[0])))
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "the execute-only gate and deny-exec need Landlock, which the kernel does not offer");

	report.abi = abi;
	if (abi == 0) {
		append_missing(report.missing, sizeof(report.missing), "landlock");
		*rep = report;
		*ret_fd = -1;
		return 0;
	}
	if (!(fs & LANDLOCK_ACCESS_FS_TRUNCATE))
		append_missing(report.missing, sizeof(report.missing), "landlock-truncate (ABI 3)");
	if (r->deny_tcp && net == 0)
		append_missing(report.missing, sizeof(report.missing), "landlock-net (ABI 4)");
	if (!(fs & LANDLOCK_ACCESS_FS_IOCTL_DEV))
		append_missing(report.missing, sizeof(report.missing), "landlock-ioctl-dev (ABI 5)");
	if (r->scope && scoped == 0)
		append_missing(report.missing, sizeof(report.missing), "landlock-scope (ABI 6)");
	if (!r->deny_tcp)
		net = 0;
	if (!r->scope)
		scoped = 0;

	attr.handled_access_fs = fs;
	attr.handled_access_net = net;
	attr.scoped = scoped;
	if (r->part != LANDLOCK_INSIDE)
		ruleset_fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset_fd < 0)
		return errbuf_set(err, errlen, r->part == LANDLOCK_INSIDE ? -EBADF : -errno,
				  "landlock: cannot create a ruleset: %s", r->part == LANDLOCK_INSIDE ? "none handed over" : strerror(errno));

	if (r->denied) {
		denied = (struct denied *)r->denied; /* the caller's: never freed here */
		n_denied = r->n_denied;
	} else {
		k = landlock_resolve_denied(r, &denied, &n_denied, err, errlen);
		if (k < 0)
			return k;
	}

	b = (struct builder){
		.held = r->held,
		.n_held = r->n_held,
		.ruleset_fd = ruleset_fd,
		.handled_fs = fs,
		.denied = denied,
		.n_denied = n_denied,
		.list_walked = r->list_walked,
		.part = r->part,
		.inside = r->inside,
		.n_rules = r->part == LANDLOCK_INSIDE ? r->rules_before : 0,
		.done = &done,
		.err = err,
		.errlen = errlen,
	};
	/* The gate: EXECUTE only where it is granted by name. */
	gated = r->exec_gate ? LANDLOCK_ACCESS_FS_EXECUTE : 0;
	for (size_t i = 0; k >= 0 && r->readable && r->readable[i]; i++)
		k = add_root(&b, r->readable[i], FS_READ & ~gated);
	for (size_t i = 0; k >= 0 && r->writable && r->writable[i]; i++)
		k = add_root(&b, r->writable[i], FS_ALL & ~FS_WRITE_NEVER & ~gated);
	for (size_t i = 0; k >= 0 && r->exec_gate && r->exec && r->exec[i]; i++)
		k = add_root(&b, r->exec[i], FS_READ);
	if (k >= 0 && r->exec_gate && r->shim_dir)
		k = add_root(&b, r->shim_dir, FS_READ);
	if (k >= 0 && r->exec_fd > 2 && r->part != LANDLOCK_INSIDE)
		k = add_exec_fd(&b, r->exec_fd);
	if (!r->denied)
		denied_free(denied, n_denied);
	if (k < 0)
		return k;

	report.fs = true;
	report.net = net != 0;
	report.scope = scoped != 0;
	report.rules = b.n_rules;
	*rep = report;
	*ret_fd = TAKE_FD(ruleset_fd);
	return 0;
}

int landlock_restrict(int ruleset_fd, char *err, size_t errlen)
{
	int k;

	if (ruleset_fd < 0)
		return 0; /* no Landlock here, as the report says */
	if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0) < 0) {
		k = -errno;
		return errbuf_set(err, errlen, k, "landlock: cannot enforce the ruleset: %s%s", strerror(-k),
			    k == -EPERM ? " (no_new_privs must be set first)" : "");
	}
	return 0;
}

int landlock_prepare_layer(int *ret_fd, char *err, size_t errlen)
{
	struct ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK };
	int abi = landlock_get_abi(), fd;

	if (abi < 1)
		return errbuf_set(err, errlen, -EOPNOTSUPP, "landlock: no Landlock to nest a domain in");
	if (abi >= 6)
		attr.scoped = SCOPE_ALL;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return errbuf_set(err, errlen, -errno, "landlock: cannot create a ruleset: %s", strerror(errno));
	*ret_fd = fd;
	return 0;
}

int landlock_apply(const struct landlock_rules *r, struct landlock_report *rep, char *err, size_t errlen)
{
	struct landlock_report report;
	_cleanup_close_ int fd = -1;
	int k;

	k = landlock_prepare(r, &report, &fd, err, errlen);
	if (k < 0)
		return k;
	k = landlock_restrict(fd, err, errlen);
	if (k < 0)
		return k;
	*rep = report;
	return 0;
}
