/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Init's Landlock ruleset, built in two halves at once. In full isolation
 * init builds the command's ruleset after its mounts, and the walk towards
 * the hidden paths (an open and a rule for each entry beside them in /,
 * /etc, HOME...) was the longest step of a launch. Rules attach to inodes,
 * and the sandbox's tree is the host's except where init mounts a
 * different inode (its /dev, /proc, private /tmp and /run, HOME's tmpfs,
 * the trust overlay, the broker's shims): the "inside" paths. So the
 * runner, still in the host's mount namespace, adds every rule but those at
 * or beneath an inside path while init makes its mounts, and hands init the
 * ruleset over a socket; init adds the rest from its own tree (landlock.c,
 * enum landlock_part). The rules are the ones init alone would have added.
 * The list of inside paths only saves time: before it takes the runner's
 * half, init checks every mount of its own against the host's table
 * (mounts_kept), and one the list does not cover makes it build the whole.
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
#include "msgbuf.h"
#include "msgframe.h"
#include "path.h"
#include "pathfd.h"
#include "runner.h"
#include "strv.h"
#include "unix_gate.h"

/* The one frame the runner sends init (msgframe.h, on a stream
 * socketpair): LANDLOCK_SPLIT_HALF with the ruleset's fd, or
 * LANDLOCK_SPLIT_WHOLE (no body, no fd): init is to build the whole.
 * The half's body is what both halves decide by, as the runner found it,
 * so that they decide alike:
 *   u32 the rules the runner added;
 *   strv the inside paths;
 *   u32 n, then n times: u8 flags (DENIED_*), string path: the denied
 *     paths resolved;
 *   string the host's mountinfo, which init checks its own mounts
 *     against (mounts_kept). */
#define SPLIT_PATHS_MAX 65536
#define SPLIT_BODY_MAX MSG_FRAME_MAX /* a frame's most: more is a failure, and init builds the whole */
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
		c = path_first_below(inside[i], strlen(dir), &len);
		if (len == 0 || len > NAME_MAX)
			continue; /* no such entry can exist */
		for (size_t k = 0; k < i && !seen; k++) {
			const char *o;
			size_t olen;

			if (strcmp(inside[k], dir) == 0 || path_is_under(inside[k], dir) <= 0)
				continue;
			o = path_first_below(inside[k], strlen(dir), &olen);
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
	size_t raw;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->n_steps; i++)
		if (p->steps[i].path && step_changes_inode(p->steps[i].kind))
			r = strv_consume(&v, strndup(p->steps[i].path, p->steps[i].len ? p->steps[i].len
										 : strlen(p->steps[i].path)));
	raw = strv_length(v);
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
		r = strv_consume(&v, TAKE_PTR(canon));
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

static size_t mnt_parse(const char *text, size_t len, struct mnt *v, size_t max)
{
	size_t n = 0;

	for (const char *line = text, *end; line < text + len && n < max; line = end + 1) {
		const char *f[5];
		size_t fl[5], k = 0;
		const char *c = line;

		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			end = text + len;
		while (k < 5 && c < end) {
			const char *sp = memchr(c, ' ', (size_t)(end - c));

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
static bool mounts_kept(const char *host, size_t hlen, const char *own, size_t olen, const struct landlock_rules *r)
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
		bool copy = false;

		for (size_t k = 0; k < nh && !copy; k++)
			copy = seq(o[i].mp, o[i].mp_len, h[k].mp, h[k].mp_len) &&
			       seq(o[i].dev, o[i].dev_len, h[k].dev, h[k].dev_len) &&
			       seq(o[i].root, o[i].root_len, h[k].root, h[k].root_len);
		if (copy || mnt_transparent(&o[i], h, nh))
			continue;
		if (!mnt_unescape(&o[i], mp))
			return false;
		if (!landlock_inside_at(r->inside, mp) && !denied_hides(r->denied, r->n_denied, mp))
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
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return; /* init builds the whole */
	x->split_fd[0] = sv[0];
	x->split_fd[1] = sv[1];
}

/* The half's body (see LANDLOCK_SPLIT_HALF above). */
static int body_put(struct msgbuf *b, unsigned rules, char *const *inside, const struct denied *d, size_t n,
		    const char *mountinfo, size_t mi_len)
{
	int r = msgbuf_put_u32(b, rules);

	if (r >= 0)
		r = msgbuf_put_strv(b, inside, SPLIT_PATHS_MAX, PATH_MAX);
	if (r >= 0)
		r = n > SPLIT_PATHS_MAX ? -E2BIG : msgbuf_put_u32(b, (uint32_t)n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		r = msgbuf_put_u8(b, (uint8_t)((d[i].is_dir ? DENIED_DIR : 0) | (d[i].exec_only ? DENIED_EXEC_ONLY : 0)));
		if (r >= 0)
			r = msgbuf_put_cstring(b, d[i].path);
	}
	if (r >= 0)
		r = msgbuf_put_string(b, mountinfo, mi_len, 0);
	return r;
}

/* The half's body read back: -EBADMSG (or msgbuf's word) for anything
 * else, and nothing kept. *ret_mountinfo points into B. */
static int body_get(struct msgbuf *b, uint32_t *ret_rules, char ***ret_inside, struct denied **ret_denied,
		    size_t *ret_n, const uint8_t **ret_mountinfo, size_t *ret_mi_len)
{
	char **inside = NULL;
	struct denied *d = NULL;
	uint32_t rules, n = 0, i = 0;
	const uint8_t *mi;
	size_t mi_len;
	int r = msgbuf_get_u32(b, &rules);

	if (r >= 0)
		r = msgbuf_get_strv(b, SPLIT_PATHS_MAX, PATH_MAX, &inside);
	if (r >= 0)
		r = msgbuf_get_u32(b, &n);
	if (r >= 0 && (n > SPLIT_PATHS_MAX || n > msgbuf_len(b) / 6)) /* a flag, a length, a '/' each */
		r = -E2BIG;
	if (r >= 0 && !(d = calloc(n ? n : 1, sizeof(*d))))
		r = -ENOMEM;
	for (i = 0; r >= 0 && i < n; i++) {
		uint8_t flags;

		r = msgbuf_get_u8(b, &flags);
		if (r >= 0 && (flags & ~(DENIED_DIR | DENIED_EXEC_ONLY)))
			r = -EBADMSG;
		if (r >= 0)
			r = msgbuf_get_string(b, PATH_MAX, MSGBUF_NO_NUL, &d[i].path, NULL);
		if (r < 0)
			break;
		if (d[i].path[0] != '/') {
			i++; /* freed with the rest */
			r = -EBADMSG;
			break;
		}
		d[i].is_dir = flags & DENIED_DIR;
		d[i].exec_only = flags & DENIED_EXEC_ONLY;
	}
	for (size_t k = 0; r >= 0 && inside[k]; k++)
		if (inside[k][0] != '/')
			r = -EBADMSG;
	if (r >= 0)
		r = msgbuf_get_string_direct(b, MOUNTINFO_MAX, 0, &mi, &mi_len);
	if (r >= 0 && msgbuf_len(b) != 0)
		r = -EBADMSG; /* nothing after it */
	if (r < 0) {
		msgbuf_strv_free(inside);
		if (d)
			denied_free(d, i);
		return r;
	}
	*ret_rules = rules;
	*ret_inside = inside;
	*ret_denied = d;
	*ret_n = n;
	*ret_mountinfo = mi;
	*ret_mi_len = mi_len;
	return 0;
}

void landlock_split_runner(struct exec_ctx *x)
{
	struct landlock_rules rules = x->plan->landlock;
	struct landlock_report rep;
	char err[512];
	_cleanup_strv_free_ char **inside = NULL;
	_cleanup_(msgbuf_freep) struct msgbuf *body = NULL;
	_cleanup_free_ char *mountinfo = NULL;
	struct denied *denied = NULL;
	size_t n_denied = 0, mi_len = 0;
	bool half = false;
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
	    landlock_resolve_denied(&rules, &denied, &n_denied, err, sizeof(err)) == 0) {
		rules.inside = (const char *const *)inside;
		rules.denied = denied;
		rules.n_denied = n_denied;
		half = landlock_prepare(&rules, &rep, &fd, err, sizeof(err)) == 0 && fd >= 0 &&
		       (body = msgbuf_new(SPLIT_BODY_MAX)) &&
		       body_put(body, rep.rules, inside, denied, n_denied, mountinfo, mi_len) >= 0;
	}
	/* init gone: the write fails, and the wait that follows says why */
	(void)msg_frame_write(x->split_fd[0], half ? LANDLOCK_SPLIT_HALF : LANDLOCK_SPLIT_WHOLE, half ? body : NULL,
			      half ? &fd : NULL, half ? 1 : 0);
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
	_cleanup_free_ char *own = NULL;
	struct msg_frame f = {};
	struct denied *denied = NULL;
	const uint8_t *mi = NULL;
	size_t own_len = 0, mi_len = 0, n_denied = 0;
	uint32_t before = 0;
	int r;

	if (x->split_fd[1] < 0)
		return false;
	/* init's own table, read while the runner may still be at its half
	 * (every mount of init's is made by now: this is the command's
	 * ruleset, built last) */
	(void)read_file_capped("/proc/self/mountinfo", MOUNTINFO_MAX, false, &own, &own_len); /* else NULL */
	r = msg_frame_read(x->split_fd[1], SPLIT_BODY_MAX, &f);
	close(x->split_fd[1]);
	x->split_fd[1] = -1;
	if (r != 1 || f.type != LANDLOCK_SPLIT_HALF || f.nfds != 1 || !f.body ||
	    body_get(f.body, &before, &x->ll_inside, &denied, &n_denied, &mi, &mi_len) < 0) {
		msg_frame_done(&f);
		return false; /* init builds the whole */
	}
	rules->part = LANDLOCK_INSIDE;
	rules->inside = (const char *const *)x->ll_inside;
	rules->ruleset_fd = f.fds[0];
	rules->rules_before = before;
	rules->denied = denied;
	rules->n_denied = n_denied;
	if (!own || !mounts_kept((const char *)mi, mi_len, own, own_len, rules)) {
		landlock_split_release(x, rules);
		rules->part = LANDLOCK_WHOLE;
		rules->inside = NULL;
		rules->ruleset_fd = -1;
		rules->rules_before = 0;
		msg_frame_done(&f); /* closes the ruleset */
		return false; /* init builds the whole */
	}
	f.fds[0] = -1; /* the caller's now */
	msg_frame_done(&f);
	return true;
}

void landlock_split_release(struct exec_ctx *x, struct landlock_rules *rules)
{
	if (rules->part == LANDLOCK_INSIDE)
		denied_free((struct denied *)rules->denied, rules->n_denied);
	rules->denied = NULL;
	rules->n_denied = 0;
	msgbuf_strv_free(x->ll_inside);
	x->ll_inside = NULL;
}
