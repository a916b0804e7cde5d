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
#include "errbuf.h"
#include "landlock.h"
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

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

static void roots_free(char **v);
static inline void roots_freep(char ***v)
{
	roots_free(*v);
}

/* The one cache this module keeps: asked once per process, by whichever
 * thread comes first. */
int landlock_get_abi(void)
{
	return kernel_landlock_abi(); /* the one query, memoised (lib/kernel.c) */
}

/* A denied path, canonical. */
struct denied {
	char *path;
	bool is_dir;
};

struct builder {
	int ruleset_fd;
	uint64_t handled_fs;
	unsigned n_rules;
	const struct denied *denied;
	size_t n_denied;
	bool list_walked;
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
		return 0; /* only reachable from a walked directory: see hide_beneath */
	if (type != S_IFDIR)
		allowed &= FS_FILE;
	allowed &= b->handled_fs;
	if (allowed == 0)
		return 0;
	if (b->n_rules >= LANDLOCK_MAX_RULES)
		return errbuf_set(b->err, b->errlen, -E2BIG,
			    "landlock: more than %d rules needed (deny_read splits a directory with too many entries near %s)",
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

/* If the denied path D lies strictly beneath DIR, the next component of D
 * after DIR (length in *len) and whether it is D's last. NULL otherwise. */
static const char *next_component(const char *d, const char *dir, size_t *len, bool *last)
{
	const char *p, *slash;

	if (!path_under(d, dir))
		return NULL;
	p = d + strlen(dir);
	if (*p == '/')
		p++;
	slash = strchr(p, '/');
	*len = slash ? (size_t)(slash - p) : strlen(p);
	*last = !slash;
	return p;
}

enum entry_kind {
	ENTRY_GRANT,   /* nothing denied at or under it */
	ENTRY_HIDDEN,  /* a denied path */
	ENTRY_WALK,    /* an ancestor of a denied path */
};

static enum entry_kind classify_entry(const struct builder *b, const char *dir, const char *name)
{
	enum entry_kind kind = ENTRY_GRANT;
	size_t n = strlen(name), len;
	const char *c;
	bool last;

	for (size_t i = 0; i < b->n_denied; i++) {
		c = next_component(b->denied[i].path, dir, &len, &last);
		if (!c || len != n || strncmp(c, name, n) != 0)
			continue;
		if (last)
			return ENTRY_HIDDEN; /* a denied ancestor hides every denied path beneath it */
		kind = ENTRY_WALK;
	}
	return kind;
}

static int join_path(const char *dir, const char *name, char **ret)
{
	char *s;

	if (asprintf(&s, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name) < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* Grant ALLOWED on DIR (open as DFD, taken over) minus the denied paths
 * beneath it: see the deny_read comment in landlock.h. */
static int hide_beneath(struct builder *b, int dfd, const char *dir, uint64_t allowed)
{
	_cleanup_(closedirp) DIR *d = NULL;
	_cleanup_close_ int self_fd = -1;
	bool denied_dir_below = false;
	struct dirent *de;
	int r;

	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return errbuf_set(b->err, b->errlen, r, "landlock: cannot list %s: %s", dir, strerror(-r));
	}

	for (size_t i = 0; !b->list_walked && i < b->n_denied; i++)
		if (b->denied[i].is_dir && path_under(b->denied[i].path, dir))
			denied_dir_below = true;

	for (;;) {
		_cleanup_close_ int fd = -1;
		enum entry_kind kind;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno != 0)
				return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot list %s: %s", dir,
					    strerror(errno));
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;

		kind = classify_entry(b, dir, de->d_name);
		switch (kind) {
		case ENTRY_HIDDEN:
			continue;
		case ENTRY_WALK: {
			_cleanup_free_ char *child = NULL;

			/* O_NOFOLLOW: the denied path was canonical when we
			 * resolved it; if a symlink has appeared since, refuse. */
			fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s/%s: %s",
					    dir, de->d_name, strerror(errno));
			r = join_path(dir, de->d_name, &child);
			if (r < 0)
				return errbuf_set(b->err, b->errlen, r, "landlock: out of memory");
			r = hide_beneath(b, TAKE_FD(fd), child, allowed);
			if (r < 0)
				return r;
			continue;
		}
		case ENTRY_GRANT:
			break;
		}

		/* O_NOFOLLOW: a symlink here must not carry our rights to
		 * its target (which may be the denied path). */
		fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* removed since readdir */
			return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s/%s: %s", dir,
				    de->d_name, strerror(errno));
		}
		/* d_type saves an fstat per entry; O_PATH|O_NOFOLLOW opened
		 * this very entry, and a swap since makes at worst a rule on
		 * what the name is now (a directory's rights on a file are
		 * refused by the kernel: then we look again) */
		r = add_fd_rule_typed(b, fd,
				      de->d_type == DT_DIR ? S_IFDIR : de->d_type == DT_LNK ? S_IFLNK
							  : de->d_type == DT_UNKNOWN ? 0 : S_IFREG,
				      allowed, dir, de->d_name);
		if (r == -EINVAL)
			r = add_fd_rule(b, fd, allowed, dir, de->d_name);
		if (r < 0)
			return r;
	}

	/* READ_DIR on DIR reaches every directory beneath it, denied ones
	 * included; a denied file is unaffected by it. */
	if (denied_dir_below || !(allowed & LANDLOCK_ACCESS_FS_READ_DIR))
		return 0;
	self_fd = openat(dirfd(d), ".", O_PATH | O_CLOEXEC);
	if (self_fd < 0)
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s: %s", dir, strerror(errno));
	return add_fd_rule(b, self_fd, LANDLOCK_ACCESS_FS_READ_DIR, dir, NULL);
}

static int add_root(struct builder *b, const char *root, uint64_t allowed)
{
	_cleanup_free_ char *canon = NULL;
	_cleanup_close_ int fd = -1;
	bool split = false;

	canon = realpath(root, NULL);
	if (!canon) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot resolve %s: %s", root, strerror(errno));
	}
	if (path_under_dev(canon))
		allowed |= LANDLOCK_ACCESS_FS_IOCTL_DEV;

	for (size_t i = 0; i < b->n_denied; i++) {
		if (strcmp(b->denied[i].path, canon) == 0)
			return 0; /* denied as a whole */
		if (path_under(b->denied[i].path, canon))
			split = true;
	}
	/* Full isolation hides by mount inside writable roots too; splitting
	 * one would forbid creating anything directly in it (HOME as the
	 * workspace could not get a new file). */
	if (b->list_walked && (allowed & LANDLOCK_ACCESS_FS_MAKE_REG))
		split = false;

	if (!split) {
		fd = open(canon, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				return 0;
			return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s: %s", canon,
				    strerror(errno));
		}
		return add_fd_rule(b, fd, allowed, canon, NULL);
	}

	fd = open(canon, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errbuf_set(b->err, b->errlen, -errno, "landlock: cannot open %s to hide what it contains: %s",
			    canon, strerror(errno));
	return hide_beneath(b, TAKE_FD(fd), canon, allowed);
}

static void denied_free(struct denied *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		free(d[i].path);
	free(d);
}

/* A deny_read path that does not exist: the canonical parent (it exists)
 * joined with its name. -ENOENT when the parent is missing too (then the
 * policy named a shorter path for it), -ENOTDIR below a file. */
static int resolve_absent(const char *path, char **ret)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *parent = NULL, *canon = NULL;
	char *joined;

	if (!slash || slash[1] == '\0')
		return -ENOENT;
	parent = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	if (!parent)
		return -ENOMEM;
	canon = realpath(parent, NULL);
	if (!canon)
		return -errno;
	if (asprintf(&joined, "%s%s%s", canon, strcmp(canon, "/") == 0 ? "" : "/", slash + 1) < 0)
		return -ENOMEM;
	*ret = joined;
	return 0;
}

/* Canonicalise deny_read; a path that does not exist is hidden by name in
 * its parent (resolve_absent). */
/* Resolving every deny_read path with realpath(3) costs a lstat and a
 * readlink per component: with the credential catalogue that was a
 * thousand syscalls a launch. The paths share a few parents (HOME,
 * ~/.config, ...): each parent is resolved once, and the entry itself is
 * looked at with one lstat (realpath only when it is a symlink). */
#define PARENT_CACHE_MAX 256

struct parent_cache {
	size_t n;
	struct {
		char *raw;      /* the parent as written */
		char *canon;    /* realpath of it, or NULL */
		int err;        /* why not (-errno) */
	} v[PARENT_CACHE_MAX];
};

static void parent_cache_done(struct parent_cache *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		free(pc->v[i].raw);
		free(pc->v[i].canon);
	}
	pc->n = 0;
}

/* The canonical parent of path (absolute), memoised; -errno if it has none. */
static int cached_parent(struct parent_cache *pc, const char *path, const char **ret)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash == path ? 1 : (size_t)(slash - path);
	char *raw, *canon;
	int err = 0;

	for (size_t i = 0; i < pc->n; i++)
		if (strlen(pc->v[i].raw) == len && strncmp(pc->v[i].raw, path, len) == 0) {
			*ret = pc->v[i].canon;
			return pc->v[i].err;
		}
	if (pc->n >= PARENT_CACHE_MAX)
		return -E2BIG; /* the caller resolves without the cache */
	raw = strndup(path, len);
	if (!raw)
		return -ENOMEM;
	canon = realpath(raw, NULL);
	if (!canon)
		err = -errno;
	pc->v[pc->n].raw = raw;
	pc->v[pc->n].canon = canon;
	pc->v[pc->n].err = err;
	pc->n++;
	*ret = canon;
	return err;
}

/* A deny_read path resolved as realpath would (ENOENT: absent, then the
 * canonical parent joined with its name, as resolve_absent gives). */
static int resolve_cached(struct parent_cache *pc, const char *path, char **ret, bool *ret_absent)
{
	const char *parent = NULL, *base = strrchr(path, '/') + 1;
	struct stat st;
	char *joined;
	int r;

	if (path[0] != '/' || !base[0] || strcmp(path, "/") == 0)
		return (*ret = realpath(path, NULL)) ? 0 : -errno;
	r = cached_parent(pc, path, &parent);
	if (r == -E2BIG) {
		/* realpath(3) as ever, then the absent case as resolve_absent */
		if ((*ret = realpath(path, NULL)))
			return 0;
		if (errno != ENOENT)
			return -errno;
		r = resolve_absent(path, ret);
		if (r == 0)
			*ret_absent = true;
		return r;
	}
	if (r < 0)
		return r;
	if (asprintf(&joined, "%s%s%s", parent, strcmp(parent, "/") == 0 ? "" : "/", base) < 0)
		return -ENOMEM;
	if (lstat(joined, &st) < 0) {
		r = -errno;
		if (r == -ENOENT) {
			*ret_absent = true;
			*ret = joined;
			return 0;
		}
		free(joined);
		return r;
	}
	if (S_ISLNK(st.st_mode)) {
		char *canon = realpath(joined, NULL);

		r = canon ? 0 : -errno;
		free(joined);
		if (r == -ENOENT)
			return resolve_absent(path, ret) == 0 ? (*ret_absent = true, 0) : -ENOENT;
		if (r < 0)
			return r;
		joined = canon;
	}
	*ret = joined;
	return 0;
}

/* The writable roots, canonical: only the ones that exist. */
static char **canonical_roots(const char *const *list)
{
	size_t n = 0, k = 0;
	char **v;

	while (list && list[n])
		n++;
	v = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++)
		if ((v[k] = realpath(list[i], NULL)))
			k++;
	return v;
}

static void roots_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int resolve_denied(const char *const *list, const char *const *writable_list, struct denied **ret,
			  size_t *ret_n, char *err, size_t errlen)
{
	_cleanup_(roots_freep) char **writable = NULL;
	struct denied *d = NULL;
	size_t n = 0, cap = 0;
	struct stat st;

	struct parent_cache pc = {};

	for (size_t i = 0; list && list[i]; i++) {
		bool absent = false;
		char *canon = NULL;
		int r0 = resolve_cached(&pc, list[i], &canon, &absent);

		if (r0 < 0) {
			int r = r0;

			/* EACCES: below a hidden directory (mode 000), out of
			 * the command's reach as much as ours */
			if (r == -ENOENT || r == -ENOTDIR || r == -EACCES)
				continue;
			if (r < 0) {
				denied_free(d, n), parent_cache_done(&pc);
				return errbuf_set(err, errlen, r, "landlock: cannot resolve deny_read path %s: %s",
					    list[i], strerror(-r));
			}
		}
		if (absent && !writable && !(writable = canonical_roots(writable_list))) {
			free(canon);
			denied_free(d, n), parent_cache_done(&pc);
			return errbuf_set(err, errlen, -ENOMEM, "landlock: out of memory");
		}
		if (absent && path_under_any(canon, (const char *const *)writable)) {
			/* a writable root may create any name: nothing to omit there */
			free(canon);
			continue;
		}
		if (absent)
			st.st_mode = S_IFDIR; /* unknown: the stricter reading */
		else if (stat(canon, &st) < 0) {
			int r = -errno;

			free(canon);
			denied_free(d, n), parent_cache_done(&pc);
			return errbuf_set(err, errlen, r, "landlock: cannot stat deny_read path %s: %s", list[i],
				    strerror(-r));
		}
		if (n == cap) {
			struct denied *grown;

			cap = cap ? cap * 2 : 8;
			grown = reallocarray(d, cap, sizeof(*d));
			if (!grown) {
				free(canon);
				denied_free(d, n), parent_cache_done(&pc);
				return errbuf_set(err, errlen, -ENOMEM, "landlock: out of memory");
			}
			d = grown;
		}
		d[n].path = canon;
		d[n].is_dir = S_ISDIR(st.st_mode);
		n++;
	}
	parent_cache_done(&pc);
	*ret = d;
	*ret_n = n;
	return 0;
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
	uint64_t fs = FS_ALL, net = NET_ALL, scoped = SCOPE_ALL;
	_cleanup_close_ int ruleset_fd = -1;
	struct builder b;
	int abi, k;

	if (!r || !rep)
		return errbuf_set(err, errlen, -EINVAL, "landlock: no rules or no report");

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
			    "landlock-scope is required but the kernel's Landlock ABI is %d (needs 6)", abi);

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
	ruleset_fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset_fd < 0)
		return errbuf_set(err, errlen, -errno, "landlock: cannot create a ruleset: %s", strerror(errno));

	k = resolve_denied(r->deny_read, r->writable, &denied, &n_denied, err, errlen);
	if (k < 0)
		return k;

	b = (struct builder){
		.ruleset_fd = ruleset_fd,
		.handled_fs = fs,
		.denied = denied,
		.n_denied = n_denied,
		.list_walked = r->list_walked,
		.err = err,
		.errlen = errlen,
	};
	for (size_t i = 0; k >= 0 && r->readable && r->readable[i]; i++)
		k = add_root(&b, r->readable[i], FS_READ);
	for (size_t i = 0; k >= 0 && r->writable && r->writable[i]; i++)
		k = add_root(&b, r->writable[i], FS_ALL & ~FS_WRITE_NEVER);
	denied_free(denied, n_denied);
	if (k < 0)
		return k;

	report.fs = true;
	report.net = net != 0;
	report.scope = scoped != 0;
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
