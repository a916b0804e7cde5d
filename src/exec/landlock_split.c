/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Init's Landlock ruleset, built in two halves at once. In full isolation
 * init builds the command's ruleset after its mounts, and the walk towards
 * the hidden paths (an open and a rule for each entry beside them in /,
 * /etc, HOME...) was the longest step of a launch. Rules attach to inodes,
 * and the sandbox's tree is the host's except where init mounts something
 * (its /dev, /proc, private /tmp and /run, HOME, the roots bound back, the
 * protections, hides and shims): the "inside" paths. So the runner, still
 * in the host's mount namespace, adds every rule but those at or beneath an
 * inside path while init makes its mounts, and hands init the ruleset over
 * a socket; init adds the rest from its own tree (landlock.c, enum
 * landlock_part). The rules are the ones init alone would have added.
 *
 * The runner's half is an optimisation, never a decision: when it cannot
 * build it (any failure, e.g. a directory the runner may not list and init,
 * with its user namespace, may), it says so and init builds the whole
 * ruleset as before, failing with its own words where that fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "landlock.h"
#include "landlock_internal.h"
#include "path.h"
#include "pathfd.h"
#include "runner.h"
#include "strv.h"
#include "unix_gate.h"

/* What the runner says: its half is in the ruleset passed beside (whole
 * 0, with the rules it added), or init is to build the whole (1). After
 * the header, what both halves decide by, as the runner found it, so that
 * they decide alike: the denied paths resolved (a flag byte and the path,
 * NUL-terminated, each) and the inside paths (NUL-terminated); then the
 * host's mount table as the runner saw it (mountinfo bytes of it), which
 * init checks its own mounts against (mounts_kept). */
struct split_msg {
	uint32_t whole;
	uint32_t rules;
	uint32_t n_denied;
	uint32_t n_inside;
	uint32_t bytes;
	uint32_t mountinfo;
};

#define SPLIT_BYTES_MAX (128 * 1024) /* beyond it, init builds the whole */
#define MOUNTINFO_MAX (256 * 1024)
#define DENIED_DIR 1u
#define DENIED_EXEC_ONLY 2u

bool landlock_inside_at(const char *const *inside, const char *path)
{
	return path_under_any(path, inside);
}

bool landlock_inside_below(const char *const *inside, const char *path)
{
	for (size_t i = 0; inside && inside[i]; i++)
		if (strcmp(path, inside[i]) != 0 && path_is_under(inside[i], path) > 0)
			return true;
	return false;
}

/* The first component of PATH beneath DIR (PATH strictly beneath it). */
static const char *name_below(const char *path, const char *dir, size_t *ret_len)
{
	const char *c = path + strlen(dir), *slash;

	if (*c == '/')
		c++;
	slash = strchr(c, '/');
	*ret_len = slash ? (size_t)(slash - c) : strlen(c);
	return c;
}

bool landlock_inside_entry(const char *const *inside, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);

	/* no inside path is that long: none is at it */
	return n > 0 && (size_t)n < sizeof(path) && landlock_inside_at(inside, path);
}

int landlock_inside_names(const char *const *inside, const char *dir,
			  int (*cb)(const char *name, unsigned char d_type, void *data), void *data)
{
	for (size_t i = 0; inside && inside[i]; i++) {
		char name[NAME_MAX + 1];
		const char *c;
		size_t len;
		bool seen = false;

		if (strcmp(inside[i], dir) == 0 || path_is_under(inside[i], dir) <= 0)
			continue;
		c = name_below(inside[i], dir, &len);
		if (len == 0 || len > NAME_MAX)
			continue; /* no such entry can exist */
		for (size_t k = 0; k < i && !seen; k++) {
			const char *o;
			size_t olen;

			if (strcmp(inside[k], dir) == 0 || path_is_under(inside[k], dir) <= 0)
				continue;
			o = name_below(inside[k], dir, &olen);
			seen = olen == len && memcmp(o, c, len) == 0;
		}
		if (seen)
			continue;
		memcpy(name, c, len);
		name[len] = '\0';
		int r = cb(name, DT_UNKNOWN, data);

		if (r < 0)
			return r;
	}
	return 0;
}

static int inside_push(char ***v, size_t *n, const char *path, size_t len)
{
	char **nv, *s = strndup(path, len);

	if (!s)
		return -ENOMEM;
	nv = reallocarray(*v, *n + 2, sizeof(**v));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

/* Whether a step's mount leaves a different inode at its path. Not the
 * read-only root (the host's tree, inode for inode), the writable roots
 * bound back, the pins and the protections (each its own directory or
 * file bound onto itself, or, missing, nothing mounted), nor the hides (a
 * denied path: no rule at it in either tree, and a root beneath one is
 * init's, landlock.c). Every other kind does: a kind added later must be
 * placed here (-Wswitch-enum). */
static bool step_changes_inode(enum step_kind k)
{
	switch (k) {
	case STEP_RO_ROOT:
	case STEP_BIND_BACK:
	case STEP_PIN:
	case STEP_PROTECT:
	case STEP_HIDE:
		return false;
	case STEP_DEV:
	case STEP_TMPFS:
	case STEP_HOME:
	case STEP_PROC:
	case STEP_TRUST:
	case STEP_BROKER: /* the shims bound into its directory */
		return true;
	/* no path, or none mounted on: still counted, should one come */
	case STEP_NAMESPACES:
	case STEP_MAP_IDS:
	case STEP_LOOPBACK:
	case STEP_PROXY:
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
		return true;
	}
	return true;
}

/* Every path a step of the plan mounts a different inode on, as written
 * and canonical: the walk's paths are canonical, the steps' as the policy
 * wrote them (/var/run is /run on most systems). */
static int inside_paths(const struct plan *p, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	size_t n = 0, raw;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->n_steps; i++)
		if (p->steps[i].path && step_changes_inode(p->steps[i].kind))
			r = inside_push(&v, &n, p->steps[i].path,
					p->steps[i].len ? p->steps[i].len : strlen(p->steps[i].path));
	raw = n;
	for (size_t i = 0; r >= 0 && i < raw; i++) {
		_cleanup_free_ char *canon = NULL;
		bool under = false;
		int fd;

		/* beneath another: covered by it */
		for (size_t k = 0; k < raw && !under; k++)
			under = k != i && path_is_under(v[i], v[k]) > 0 && strcmp(v[i], v[k]) != 0;
		if (under)
			continue;
		/* no symlink on the way (as far as it exists): canonical as
		 * written, one openat2 instead of a readlink per component */
		if (path_is_plain_absolute(v[i])) {
			fd = path_open_nofollow(AT_FDCWD, v[i], 0);
			if (fd >= 0)
				close(fd);
			if (fd >= 0 || fd == -ENOENT)
				continue;
		}
		if (!(canon = realpath(v[i], NULL)) || strcmp(canon, v[i]) == 0)
			continue;
		r = inside_push(&v, &n, canon, strlen(canon));
	}
	if (r < 0)
		return r;
	if (!v && !(v = calloc(1, sizeof(*v)))) /* an empty list, not none */
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/* One line of a mountinfo: its device, root and mount point (escaped as
 * the kernel writes them: no escape holds a '/', so paths compare alike). */
struct mnt {
	const char *dev, *root, *mp;
	size_t dev_len, root_len, mp_len;
};

static size_t mnt_parse(char *text, size_t len, struct mnt *v, size_t max)
{
	size_t n = 0;

	for (char *line = text, *end; line < text + len && n < max; line = end + 1) {
		const char *f[5];
		size_t fl[5], k = 0;
		char *c = line;

		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			end = text + len;
		while (k < 5 && c < end) {
			char *sp = memchr(c, ' ', (size_t)(end - c));

			f[k] = c;
			fl[k++] = (size_t)((sp ? sp : end) - c);
			c = sp ? sp + 1 : end;
		}
		if (k == 5)
			v[n++] = (struct mnt){ f[2], f[3], f[4], fl[2], fl[3], fl[4] };
	}
	return n;
}

/* At most this many lines (one more than its newlines). */
static size_t lines(const char *text, size_t len)
{
	size_t n = 1;

	for (const char *c = text; (c = memchr(c, '\n', (size_t)(text + len - c))); c++)
		n++;
	return n;
}

static bool seq(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && memcmp(a, b, al) == 0;
}

/* P (pl) at or beneath M (ml), component by component. */
static bool mnt_under(const char *p, size_t pl, const char *m, size_t ml)
{
	if (ml == 1 && m[0] == '/')
		return pl > 0 && p[0] == '/';
	return pl >= ml && memcmp(p, m, ml) == 0 && (pl == ml || p[ml] == '/');
}

/* The mount point unescaped (\ooo), or false when it does not fit. */
static bool mnt_unescape(const struct mnt *o, char out[PATH_MAX])
{
	size_t k = 0;

	for (size_t i = 0; i < o->mp_len; i++) {
		if (k + 1 >= PATH_MAX)
			return false;
		if (o->mp[i] == '\\' && i + 3 < o->mp_len && o->mp[i + 1] >= '0' && o->mp[i + 1] <= '3' &&
		    o->mp[i + 2] >= '0' && o->mp[i + 2] <= '7' && o->mp[i + 3] >= '0' && o->mp[i + 3] <= '7') {
			out[k++] = (char)(((o->mp[i + 1] - '0') << 6) | ((o->mp[i + 2] - '0') << 3) | (o->mp[i + 3] - '0'));
			i += 3;
		} else
			out[k++] = o->mp[i];
	}
	out[k] = '\0';
	return true;
}

/* Does O show at its mount point what the host's table shows there: the
 * same device, and the root the host's topmost mount covering that path
 * has there? (A copy of a host mount, a writable root, pin or protection
 * bound onto itself.) */
static bool mnt_transparent(const struct mnt *o, const struct mnt *h, size_t nh)
{
	const struct mnt *best = NULL;
	const char *rest;
	size_t rest_len, base_len;

	for (size_t i = 0; i < nh; i++)
		if (mnt_under(o->mp, o->mp_len, h[i].mp, h[i].mp_len) && (!best || h[i].mp_len >= best->mp_len))
			best = &h[i];
	if (!best || !seq(o->dev, o->dev_len, best->dev, best->dev_len))
		return false;
	rest = o->mp + (best->mp_len == 1 ? 0 : best->mp_len);
	rest_len = o->mp_len - (size_t)(rest - o->mp);
	base_len = best->root_len == 1 ? 0 : best->root_len;
	if (rest_len == 0 && base_len == 0)
		return seq(o->root, o->root_len, "/", 1);
	return o->root_len == base_len + rest_len && memcmp(o->root, best->root, base_len) == 0 &&
	       memcmp(o->root + base_len, rest, rest_len) == 0;
}

/* Init's mounts left every inode the runner's half granted in place: each
 * mount of init's table is the host's (a copy), shows what the host shows
 * at its path, or lies at or beneath an inside path (init's half) or a
 * hidden path (no rule either way). A mount made by a step the inside
 * list does not know of fails this, and init builds the whole ruleset:
 * the list saves time, this check keeps the rules right. */
static bool mounts_kept(char *host, size_t hlen, char *own, size_t olen, const struct landlock_rules *r)
{
	_cleanup_free_ struct mnt *h = NULL, *o = NULL;
	size_t nh, no, hmax, omax;

	hmax = lines(host, hlen);
	omax = lines(own, olen);
	h = calloc(hmax, sizeof(*h));
	o = calloc(omax, sizeof(*o));
	if (!h || !o)
		return false;
	nh = mnt_parse(host, hlen, h, hmax);
	no = mnt_parse(own, olen, o, omax);
	for (size_t i = 0; i < no; i++) {
		char mp[PATH_MAX];
		bool copy = false, hidden = false;

		for (size_t k = 0; k < nh && !copy; k++)
			copy = seq(o[i].mp, o[i].mp_len, h[k].mp, h[k].mp_len) &&
			       seq(o[i].dev, o[i].dev_len, h[k].dev, h[k].dev_len) &&
			       seq(o[i].root, o[i].root_len, h[k].root, h[k].root_len);
		if (copy || mnt_transparent(&o[i], h, nh))
			continue;
		if (!mnt_unescape(&o[i], mp))
			return false;
		if (landlock_inside_at(r->inside, mp))
			continue;
		for (size_t k = 0; k < r->n_denied && !hidden; k++)
			hidden = !r->denied[k].exec_only && path_is_under(mp, r->denied[k].path);
		if (!hidden)
			return false;
	}
	return true;
}

void landlock_split_start(struct exec_ctx *x)
{
	int sv[2];

	x->split_fd[0] = x->split_fd[1] = -1;
	x->ll_inside = NULL;
	/* only where init builds the command's ruleset (the gates) */
	if (x->plan->isolation != CORDON_ISOLATION_FULL || !exec_gates(x) || landlock_get_abi() < 1)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return; /* init builds the whole */
	x->split_fd[0] = sv[0];
	x->split_fd[1] = sv[1];
}

/* The lists after the header, into a buffer of their own; NULL when they
 * do not fit SPLIT_BYTES_MAX or memory runs out. */
static char *pack(const struct denied *d, size_t n, char *const *inside, size_t *ret_bytes)
{
	size_t bytes = 0, at = 0;
	char *buf;

	for (size_t i = 0; i < n; i++)
		bytes += 2 + strlen(d[i].path);
	for (size_t i = 0; inside[i]; i++)
		bytes += 1 + strlen(inside[i]);
	if (bytes > SPLIT_BYTES_MAX || !(buf = malloc(bytes ? bytes : 1)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(d[i].path) + 1;

		buf[at++] = (char)((d[i].is_dir ? DENIED_DIR : 0) | (d[i].exec_only ? DENIED_EXEC_ONLY : 0));
		memcpy(buf + at, d[i].path, len);
		at += len;
	}
	for (size_t i = 0; inside[i]; i++) {
		size_t len = strlen(inside[i]) + 1;

		memcpy(buf + at, inside[i], len);
		at += len;
	}
	*ret_bytes = bytes;
	return buf;
}

/* The next absolute path of BUF[*at..bytes), NUL-terminated, copied. */
static char *next_path(const char *buf, size_t bytes, size_t *at)
{
	const char *end = *at < bytes ? memchr(buf + *at, '\0', bytes - *at) : NULL;
	char *s;

	if (!end || buf[*at] != '/' || !(s = strdup(buf + *at)))
		return NULL;
	*at = (size_t)(end - buf) + 1;
	return s;
}

/* What pack made, read back: -EBADMSG for anything else. */
static int unpack(const char *buf, size_t bytes, size_t n, size_t n_inside, struct denied **ret,
		  char ***ret_inside)
{
	struct denied *d = calloc(n ? n : 1, sizeof(*d));
	_cleanup_strv_free_ char **inside = calloc(n_inside + 1, sizeof(*inside));
	size_t at = 0, i, k = 0;

	if (!d || !inside) {
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < n && at < bytes; i++) {
		unsigned flags = (unsigned char)buf[at++];

		if ((flags & ~(DENIED_DIR | DENIED_EXEC_ONLY)) || !(d[i].path = next_path(buf, bytes, &at)))
			break;
		d[i].is_dir = flags & DENIED_DIR;
		d[i].exec_only = flags & DENIED_EXEC_ONLY;
	}
	for (k = 0; i == n && k < n_inside; k++)
		if (!(inside[k] = next_path(buf, bytes, &at)))
			break;
	if (i < n || k < n_inside || at != bytes) {
		denied_free(d, i);
		return -EBADMSG;
	}
	*ret = d;
	*ret_inside = TAKE_PTR(inside);
	return 0;
}

void landlock_split_runner(struct exec_ctx *x)
{
	struct landlock_rules rules = x->plan->landlock;
	struct landlock_report rep;
	struct split_msg m = { .whole = 1 };
	char err[512], cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov[3] = { { .iov_base = &m, .iov_len = sizeof(m) } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 1 };
	_cleanup_strv_free_ char **inside = NULL;
	struct denied *denied = NULL;
	size_t n_denied = 0, bytes = 0, mi_len = 0;
	_cleanup_free_ char *packed = NULL, *mountinfo = NULL;
	int fd = -1;

	if (x->split_fd[0] < 0)
		return;
	close(x->split_fd[1]);
	x->split_fd[1] = -1;
	rules.part = LANDLOCK_HOST;
	rules.held = NULL;
	rules.n_held = 0;
	if (inside_paths(x->plan, &inside) == 0 &&
	    read_file_capped("/proc/self/mountinfo", MOUNTINFO_MAX, false, &mountinfo, &mi_len) == 0 &&
	    landlock_resolve_denied(&rules, &denied, &n_denied, err, sizeof(err)) == 0 &&
	    (packed = pack(denied, n_denied, inside, &bytes))) {
		rules.inside = (const char *const *)inside;
		rules.denied = denied;
		rules.n_denied = n_denied;
	}
	if (rules.denied && landlock_prepare(&rules, &rep, &fd, err, sizeof(err)) == 0 && fd >= 0) {
		struct cmsghdr *c;

		m = (struct split_msg){ .whole = 0, .rules = rep.rules, .n_denied = (uint32_t)n_denied,
					.n_inside = (uint32_t)strv_length(inside), .bytes = (uint32_t)bytes,
					.mountinfo = (uint32_t)mi_len };
		iov[1] = (struct iovec){ .iov_base = packed, .iov_len = bytes };
		iov[2] = (struct iovec){ .iov_base = mountinfo, .iov_len = mi_len };
		mh.msg_iovlen = 3;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* init gone: its end is closed, and the wait that follows says why */
	while (sendmsg(x->split_fd[0], &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	if (fd >= 0)
		close(fd);
	denied_free(denied, n_denied);
	close(x->split_fd[0]);
	x->split_fd[0] = -1;
}

void landlock_split_init_start(struct exec_ctx *x)
{
	if (x->split_fd[0] >= 0)
		close(x->split_fd[0]);
	x->split_fd[0] = -1;
}

bool landlock_split_take(struct exec_ctx *x, struct landlock_rules *rules)
{
	/* one byte more than the most a runner sends: a longer message shows
	 * (init is one thread; untouched, the pages cost nothing) */
	static char packed[SPLIT_BYTES_MAX + MOUNTINFO_MAX + 1];
	struct split_msg m = {};
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov[2] = { { .iov_base = &m, .iov_len = sizeof(m) } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct denied *denied = NULL;
	_cleanup_free_ char *own = NULL;
	size_t own_len = 0;
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	if (x->split_fd[1] < 0)
		return false;
	/* init's own table, read while the runner may still be at its half
	 * (every mount of init's is made by now: this is the command's
	 * ruleset, built last) */
	(void)read_file_capped("/proc/self/mountinfo", MOUNTINFO_MAX, false, &own, &own_len); /* else NULL */
	iov[1] = (struct iovec){ .iov_base = packed, .iov_len = sizeof(packed) };
	while ((n = recvmsg(x->split_fd[1], &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	close(x->split_fd[1]);
	x->split_fd[1] = -1;
	for (c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (n < (ssize_t)sizeof(m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || m.whole || fd < 0 ||
	    m.bytes > SPLIT_BYTES_MAX || m.mountinfo > MOUNTINFO_MAX ||
	    (size_t)n != sizeof(m) + m.bytes + m.mountinfo ||
	    (uint64_t)m.n_denied * 3 + (uint64_t)m.n_inside * 2 > m.bytes ||
	    unpack(packed, m.bytes, m.n_denied, m.n_inside, &denied, &x->ll_inside) < 0) {
		if (fd >= 0)
			close(fd);
		return false; /* init builds the whole */
	}
	rules->part = LANDLOCK_INSIDE;
	rules->inside = (const char *const *)x->ll_inside;
	rules->ruleset_fd = fd;
	rules->rules_before = m.rules;
	rules->denied = denied;
	rules->n_denied = m.n_denied;
	if (!own || !mounts_kept(packed + m.bytes, m.mountinfo, own, own_len, rules)) {
		landlock_split_release(x, rules);
		close(fd);
		rules->part = LANDLOCK_WHOLE;
		rules->inside = NULL;
		rules->ruleset_fd = -1;
		rules->rules_before = 0;
		return false; /* init builds the whole */
	}
	return true;
}

void landlock_split_release(struct exec_ctx *x, struct landlock_rules *rules)
{
	if (rules->part == LANDLOCK_INSIDE)
		denied_free((struct denied *)rules->denied, rules->n_denied);
	rules->denied = NULL;
	rules->n_denied = 0;
	strv_free(x->ll_inside);
	x->ll_inside = NULL;
}
