/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential catalogue below a home, canonical, with what exists of
 * it. The catalogue lives in a few directories (HOME, ~/.config,
 * ~/.local/share, and the passwd home): each is listed once and the
 * catalogue intersected with the listings, instead of walking some 140
 * candidate paths one lstat at a time (most do not exist, so most lookups
 * failed). A name that is a symlink, or whose type the listing does not
 * say, is walked as before (canonicalize_at).
 *
 * A listing is not free either: on ext4 even a one-block directory is read
 * through its hash tree, so listing /etc (some 150 entries) for the one
 * name /etc/cordon cost about 80 us where an lstat costs 1. A directory is
 * therefore listed only once LIST_AFTER different names have been asked of
 * it; the names asked before that, and every name in a directory asked
 * fewer, are looked at with one lstat each (statmemo.h), which says the
 * same: there, of which type, or not (ENOENT). HOME and ~/.config, which
 * the catalogue's own paths ask some 90 and 45 names of, are known before
 * any is asked (mark_busy) and listed on the first.
 *
 * A session start reads the catalogue up to three times (the profile's
 * group checks, a credential lift, the policy's read-deny set); a memo
 * carried from the profile's load to the first policy built from it
 * (profile_api.c) lets the later readers take the first one's result.
 * Only within that span: a catalogue resolved at start is not trusted for
 * a policy built later, after the home may have changed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "dirlist.h"
#include "fnv.h"
#include "path.h"
#include "policy.h"
#include "statmemo.h"
#include "strarena.h"

#define MEMO_HOMES 2         /* HOME and the passwd home */
#define LISTED_MAX 32        /* directories listed for one home */
#define LISTING_MAX 65536    /* entries read of one directory; beyond, walk */
#define LIST_AFTER 8         /* different names asked of a directory before it is listed */

/* One directory's entries, read once: the names in one block, not one
 * allocation each, and unsorted. A lookup compares lengths first, so it
 * costs a few instructions an entry; a directory gets a handful of lookups
 * (/tmp, with hundreds of entries, one or two), where sorting cost more. */
struct listing {
	char *path;             /* canonical */
	bool listed;            /* read: err, n, v and names say what is there */
	bool busy;              /* the catalogue asks it LIST_AFTER names or more: listed at once */
	unsigned n_asked;       /* until then: the different names asked, */
	uint64_t asked[LIST_AFTER - 1]; /* by their hashes (a collision only lists later) */
	int err;                /* 0, or why it could not be listed (-errno) */
	size_t n;
	struct listed {
		uint32_t off;       /* the name is names + off, len bytes */
		uint16_t len;
		unsigned char type; /* DT_* */
	} *v;
	char *names;
};

struct lister {
	size_t n;
	struct listing d[LISTED_MAX];
	struct strarena *strs; /* where the states' strings go */
};

struct policy_secret_memo {
	size_t n;                                  /* entries in the catalogue */
	char *home[MEMO_HOMES];                    /* NULL: slot free */
	struct policy_secret_set st[MEMO_HOMES];   /* n each; v NULL: not resolved (yet, or it failed) */
};

/* The memo the current thread's session start uses, or NULL. */
static _Thread_local struct policy_secret_memo *active;

size_t policy_secret_count(void)
{
	size_t n = 0;

	while (policy_default_deny_read[n].path)
		n++;
	return n;
}

void policy_secret_set_done(struct policy_secret_set *s)
{
	free(s->v);
	strarena_free(&s->strs);
	*s = (struct policy_secret_set){};
}

/* s, empty, with room for n states. */
static int set_init(struct policy_secret_set *s, size_t n)
{
	*s = (struct policy_secret_set){ .n = n, .v = calloc(n ? n : 1, sizeof(*s->v)) };
	return s->v ? 0 : -ENOMEM;
}

int policy_secret_memo_new(struct policy_secret_memo **ret)
{
	struct policy_secret_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->n = policy_secret_count();
	*ret = m;
	return 0;
}

struct policy_secret_memo *policy_secret_memo_free(struct policy_secret_memo *m)
{
	if (!m)
		return NULL;
	for (size_t h = 0; h < MEMO_HOMES; h++) {
		policy_secret_set_done(&m->st[h]);
		free(m->home[h]);
	}
	free(m);
	return NULL;
}

struct policy_secret_memo *policy_secret_memo_use(struct policy_secret_memo *m)
{
	struct policy_secret_memo *prev = active;

	active = m;
	return prev;
}

static void lister_done(struct lister *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->d[i].v);
		free(l->d[i].names);
		free(l->d[i].path);
	}
	l->n = 0;
}

struct list_into {
	struct listing *d;
	size_t cap, names_len, names_cap;
};

static int list_one(const char *name, unsigned char type, void *data)
{
	struct list_into *li = data;
	struct listing *d = li->d;
	size_t len = strlen(name);

	/* at most 65,536 names of at most 255 bytes: offsets fit 32 bits */
	if (d->n >= LISTING_MAX || len > NAME_MAX)
		return -E2BIG;
	if (d->n == li->cap) {
		size_t nc = li->cap ? li->cap * 2 : 64;
		struct listed *g = reallocarray(d->v, nc, sizeof(*g));

		if (!g)
			return -ENOMEM;
		d->v = g;
		li->cap = nc;
	}
	if (li->names_len + len > li->names_cap) {
		size_t nc = li->names_cap ? li->names_cap * 2 : 2048;
		char *g;

		while (nc < li->names_len + len)
			nc *= 2;
		g = realloc(d->names, nc);
		if (!g)
			return -ENOMEM;
		d->names = g;
		li->names_cap = nc;
	}
	memcpy(d->names + li->names_len, name, len);
	d->v[d->n++] = (struct listed){ .off = (uint32_t)li->names_len, .len = (uint16_t)len, .type = type };
	li->names_len += len;
	return 0;
}

/* Read dir's entries into d (d->path set). */
static int list_dir(struct listing *d)
{
	struct list_into li = { .d = d };

	return dirlist_path(d->path, O_NOFOLLOW, list_one, &li);
}

/* The directory path (canonical, len bytes), not listed yet the first
 * time it is asked for; NULL when there is no room left (the caller walks
 * instead). */
static struct listing *lister_get(struct lister *l, const char *path, size_t len)
{
	struct listing *d;

	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->d[i].path) == len && strncmp(l->d[i].path, path, len) == 0)
			return &l->d[i];
	if (l->n >= LISTED_MAX)
		return NULL;
	d = &l->d[l->n];
	*d = (struct listing){ .path = strndup(path, len) };
	if (!d->path)
		return NULL;
	l->n++;
	return d;
}

/* The type of name (len bytes) in d, or -1 when it is not there. */
static int listed_type(const struct listing *d, const char *name, size_t len)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].len == len && memcmp(d->names + d->v[i].off, name, len) == 0)
			return d->v[i].type;
	return -1;
}

/* Whether name (len bytes) is the LIST_AFTER-th different name asked of
 * d, which is then worth listing; else it is noted as asked. */
static bool worth_listing(struct listing *d, const char *name, size_t len)
{
	uint64_t h = fnv1a_bytes(name, len);

	for (unsigned i = 0; i < d->n_asked; i++)
		if (d->asked[i] == h)
			return false;
	if (d->n_asked + 1 >= LIST_AFTER)
		return true;
	d->asked[d->n_asked++] = h;
	return false;
}

/* The type of the entry at path (NUL-terminated there) by one lstat, as a
 * listing would give it: DT_*, -1 when it is not there, -2 when the look
 * failed otherwise (the caller walks, as for a listing that failed). */
static int looked_type(const char *path)
{
	struct stat st;
	int r = statmemo_lstat(path, &st);

	if (r == -ENOENT)
		return -1;
	if (r < 0)
		return -2;
	return IFTODT(st.st_mode);
}

/* The walk, as before: canonicalize_at, then what exists of the result
 * is left to the reader (known stays false). */
static int resolve_walked(struct lister *l, const char *home, const char *rel, struct policy_secret_state *st)
{
	_cleanup_free_ char *canon = NULL;
	struct cordon_error e = {};
	int r = canonicalize_at(home, rel, &canon, &e);

	if (r < 0) {
		st->err = r;
		st->canon = NULL;
		return 0;
	}
	st->canon = strarena_dup(l->strs, canon);
	return st->canon ? 0 : -ENOMEM;
}

static int resolve_listed_hops(struct lister *l, const char *home, const char *rel, struct policy_secret_state *st,
			       unsigned hops);

/* A directory on the way that is a symlink (/var/run -> /run): read once,
 * and the rest resolved from its target by the listings (which the walk
 * would then have repeated a stat at a time). LINK is the link's path
 * (LEN bytes of it), REST what follows it. A target with "." or "..", or
 * too many links in a row: walked as before. */
static int follow_listed(struct lister *l, const char *home, const char *rel, const char *link, size_t len,
			 const char *rest, struct policy_secret_state *st, unsigned hops)
{
	_cleanup_free_ char *at = strndup(link, len), *next = NULL;
	char target[PATH_MAX];
	const char *slash;
	ssize_t n;

	if (!at)
		return -ENOMEM;
	n = hops < 8 ? statmemo_readlink(at, target, sizeof(target)) : -1;
	if (n <= 0)
		return resolve_walked(l, home, rel, st);
	slash = strrchr(at, '/');
	if (target[0] == '/' ? asprintf(&next, "%s/%s", target, rest) < 0 :
			       asprintf(&next, "%.*s/%s/%s", (int)(slash - at), at, target, rest) < 0)
		return -ENOMEM;
	if (!path_is_plain_absolute(next))
		return resolve_walked(l, home, rel, st);
	return resolve_listed_hops(l, "/", next + 1, st, hops + 1);
}

/* Entry rel below home (canonical) from the listings: its canonical path,
 * whether it exists and, when not, its first missing component. A
 * directory on the way that is a symlink is followed (follow_listed); a
 * last component that is one, an unknown type or a listing that failed:
 * walked as before. */
static int resolve_listed(struct lister *l, const char *home, const char *rel, struct policy_secret_state *st)
{
	return resolve_listed_hops(l, home, rel, st, 0);
}

static int resolve_listed_hops(struct lister *l, const char *home, const char *rel, struct policy_secret_state *st,
			       unsigned hops)
{
	char *path;
	size_t base = strcmp(home, "/") == 0 ? 1 : strlen(home) + 1; /* where rel starts in path */
	size_t dirlen = base == 1 ? 1 : base - 1;
	const char *comp = rel;
	size_t rl = strlen(rel);

	/* home, a '/' unless home is "/", rel: built in the arena, where it
	 * stays as the entry's canonical path (this runs for each of some 160
	 * catalogue entries; a walk leaves its bytes unused there) */
	path = strarena_alloc(l->strs, base + rl + 1);
	if (!path)
		return -ENOMEM;
	memcpy(path, home, base - 1);
	path[base - 1] = '/';
	memcpy(path + base, rel, rl + 1);
	for (;;) {
		size_t clen = strcspn(comp, "/");
		bool last = comp[clen] == '\0';
		struct listing *d = lister_get(l, path, dirlen);
		int type;

		if (!d || clen == 0)
			return resolve_walked(l, home, rel, st);
		if (!d->listed && (d->busy || worth_listing(d, comp, clen))) {
			d->err = list_dir(d);
			d->listed = true;
		}
		if (d->listed) {
			/* not listable (a home with search but not read
			 * permission): the walk says what is there, or that it
			 * is out of reach */
			if (d->err < 0)
				return resolve_walked(l, home, rel, st);
			type = listed_type(d, comp, clen);
		} else {
			size_t end = base + (size_t)(comp - rel) + clen;
			char was = path[end];

			path[end] = '\0';
			type = looked_type(path);
			path[end] = was;
			if (type == -2)
				return resolve_walked(l, home, rel, st);
		}
		if (type < 0) {
			/* not there: the tail is kept verbatim (no link to follow) */
			st->known = true;
			st->absent_at = strarena_ndup(l->strs, path, base + (size_t)(comp - rel) + clen);
			if (!st->absent_at)
				return -ENOMEM;
			st->canon = path;
			return 0;
		}
		if (type == DT_LNK && !last)
			return follow_listed(l, home, rel, path, base + (size_t)(comp - rel) + clen, comp + clen + 1, st,
					     hops);
		if (type == DT_LNK || type == DT_UNKNOWN || (!last && type != DT_DIR))
			return resolve_walked(l, home, rel, st);
		if (last) {
			st->known = true;
			st->exists = true;
			st->is_dir = type == DT_DIR;
			st->canon = path;
			return 0;
		}
		dirlen = base + (size_t)(comp - rel) + clen;
		comp += clen + 1;
	}
}

/* The directories below a base that a list of paths (relative to it)
 * asks LIST_AFTER different names or more (HOME itself and ~/.config for
 * the catalogue, /run for the sockets' list), marked busy in a lister:
 * listed on their first name instead of after LIST_AFTER - 1 lstats that
 * the listing then repeats. Counted on the paths as written: a link on
 * the way is still followed by the resolution (a mark there is never
 * used), and a directory that is not there is never reached, so never
 * listed. */
struct busy {
	size_t n;
	struct {
		const char *dir; /* the path's first len bytes, below the base */
		size_t len;
		unsigned n;
		uint64_t names[LIST_AFTER];
	} b[LISTED_MAX];
};

static void busy_count(struct busy *b, const char *rel)
{
	for (const char *c = rel; *c;) {
		size_t clen = strcspn(c, "/"), len = c == rel ? 0 : (size_t)(c - rel) - 1, k;
		uint64_t h = fnv1a_bytes(c, clen);

		for (k = 0; k < b->n && !(b->b[k].len == len && strncmp(b->b[k].dir, rel, len) == 0); k++)
			;
		if (k == b->n && b->n < LISTED_MAX)
			b->b[b->n++] = (typeof(b->b[0])){ .dir = rel, .len = len };
		if (k < b->n && b->b[k].n < LIST_AFTER) {
			unsigned j;

			for (j = 0; j < b->b[k].n && b->b[k].names[j] != h; j++)
				;
			if (j == b->b[k].n)
				b->b[k].names[b->b[k].n++] = h;
		}
		if (!c[clen])
			break;
		c += clen + 1;
	}
}

static void busy_mark(const struct busy *b, struct lister *l, const char *base)
{
	size_t bl = strlen(base);

	for (size_t k = 0; k < b->n; k++) {
		_cleanup_free_ char *dir = NULL;
		struct listing *d;

		if (b->b[k].n < LIST_AFTER)
			continue;
		if (b->b[k].len == 0 ? !(dir = strdup(base))
				     : asprintf(&dir, "%s%s%.*s", strcmp(base, "/") == 0 ? "" : base, "/",
						(int)b->b[k].len, b->b[k].dir) < 0)
			return; /* only slower */
		d = lister_get(l, dir, b->b[k].len == 0 ? bl : strlen(dir));
		if (d)
			d->busy = true;
	}
}

static void mark_busy(struct lister *l, const char *home)
{
	struct busy b;

	b.n = 0;
	for (size_t i = 0; policy_default_deny_read[i].path; i++)
		busy_count(&b, policy_default_deny_read[i].path);
	busy_mark(&b, l, home);
}

/* The whole catalogue below home, by listing, into set (empty). */
static int resolve_home(const char *home, struct policy_secret_set *set)
{
	struct lister l = { .strs = &set->strs };
	size_t n = policy_secret_count();
	int r = set_init(set, n);

	mark_busy(&l, home);

	for (size_t i = 0; r >= 0 && i < n; i++)
		r = resolve_listed(&l, home, policy_default_deny_read[i].path, &set->v[i]);
	lister_done(&l);
	if (r < 0)
		policy_secret_set_done(set);
	return r;
}

/* The memo's resolution of home: resolved now if it is not there yet.
 * NULL without a memo, or when it has no room (the caller resolves). */
static const struct policy_secret_state *memo_states(struct policy_secret_memo *m, const char *home)
{
	for (size_t h = 0; m && h < MEMO_HOMES; h++) {
		if (m->home[h] && strcmp(m->home[h], home) == 0)
			return m->st[h].v;
		if (!m->home[h]) {
			m->home[h] = strdup(home);
			if (!m->home[h] || resolve_home(home, &m->st[h]) < 0) {
				free(m->home[h]);
				m->home[h] = NULL;
				return NULL;
			}
			return m->st[h].v;
		}
	}
	return NULL;
}

int policy_secrets_resolve(const char *home, struct policy_secret_set *owned, const struct policy_secret_state **ret)
{
	const struct policy_secret_state *memo = memo_states(active, home);
	int r;

	*owned = (struct policy_secret_set){};
	if (memo) {
		/* read in place: no copy of the memo's some 300 strings */
		*ret = memo;
		return 0;
	}
	r = resolve_home(home, owned);
	if (r < 0)
		return r;
	*ret = owned->v;
	return 0;
}

int policy_paths_resolve(const char *const *paths, struct policy_secret_set *ret)
{
	struct policy_secret_set set;
	struct lister l = { .strs = &set.strs };
	struct busy b;
	size_t n = 0;
	int r;

	b.n = 0;
	while (paths[n]) {
		if (paths[n][0] == '/')
			busy_count(&b, paths[n] + 1);
		n++;
	}
	r = set_init(&set, n);
	busy_mark(&b, &l, "/");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = paths[i][0] == '/' && paths[i][1] ? resolve_listed(&l, "/", paths[i] + 1, &set.v[i]) : -EINVAL;
	lister_done(&l);
	if (r < 0) {
		policy_secret_set_done(&set);
		return r;
	}
	*ret = set;
	return 0;
}

int policy_secret_canonical(const char *home, size_t i, char **ret, struct cordon_error *reterr)
{
	const struct policy_secret_state *memo = memo_states(active, home);
	char *c;

	if (!memo)
		return canonicalize_at(home, policy_default_deny_read[i].path, ret, reterr);
	if (memo[i].err < 0 || !memo[i].canon)
		/* the failure again, with its words */
		return canonicalize_at(home, policy_default_deny_read[i].path, ret, reterr);
	c = strdup(memo[i].canon);
	if (!c)
		return -ENOMEM;
	*ret = c;
	return 0;
}
