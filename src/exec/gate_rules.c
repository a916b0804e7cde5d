/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's rules by name (see gate_rules.h): built once in init,
 * then asked per gated call with the path the call resolved to.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "gate_rules.h"
#include "plan.h"
#include "protect_names.h"

/* rel at or below base (component-wise); base's last component a prefix
 * when prefix. */
static bool at_or_below(const char *rel, const char *base, bool prefix)
{
	size_t bl = strlen(base);

	if (bl == 0)
		return true;
	if (prefix) {
		const char *slash = strrchr(base, '/');
		size_t dl = slash ? (size_t)(slash - base) + 1 : 0, pl = bl - dl;

		if (strncmp(rel, base, dl) != 0)
			return false;
		return strncmp(rel + dl, base + dl, pl) == 0;
	}
	return strncmp(rel, base, bl) == 0 && (rel[bl] == '\0' || rel[bl] == '/');
}

/* base (a literal protection) strictly below rel. */
static bool holds(const char *rel, const char *base)
{
	size_t rl = strlen(rel);

	if (rl == 0)
		return false; /* the root itself: mounted, a rename of it fails */
	return strncmp(base, rel, rl) == 0 && base[rl] == '/';
}

/* git_install: the caller installs a validated copy (a git config) or
 * makes an empty .git directory, so the git rule by name and the literal
 * protections of git's code entries (the catalogue's .git/config) step
 * aside; every other rule holds. */
static const char *match(const struct gate_rules *g, size_t root, const char *rel, bool holder, bool git_install)
{
	const char *why = NULL;

	for (size_t i = 0; i < g->n_lits; i++) {
		const struct gate_path *l = &g->lits[i];

		if (l->root != root)
			continue;
		if (git_install && g->git && protect_match_git(l->rel) && !protect_git_entry_name(l->rel))
			continue;
		if (at_or_below(rel, l->rel, l->prefix))
			return "a protected path";
		if (holder && holds(rel, l->rel))
			return "a directory holding a protected path";
	}
	/* --unprotect lifts the rules by name, never a literal protection */
	for (size_t i = 0; i < g->n_carve; i++)
		if (g->carve[i].root == root && at_or_below(rel, g->carve[i].rel, false))
			return NULL;
	why = protect_match_names(g->names, rel);
	if (!why && g->git && !git_install)
		why = protect_match_git(rel);
	return why;
}

const char *gate_rules_match(const struct gate_rules *g, size_t root, const char *rel, bool holder)
{
	return match(g, root, rel, holder, false);
}

/* Does the directory path[0..len) hold what makes git take it for a git
 * directory (HEAD, and objects and refs or a commondir)? */
static bool git_dir_at(const char *path, size_t len)
{
	static const char *const marks[] = { "HEAD", "objects", "refs", "commondir" };
	char buf[PATH_MAX];
	bool has[4];
	int fd;

	if (len >= sizeof(buf))
		return true; /* fail closed */
	memcpy(buf, path, len);
	buf[len] = '\0';
	fd = open(len ? buf : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false; /* no directory: nothing git finds there */
	for (size_t i = 0; i < 4; i++) {
		struct stat st;

		has[i] = fstatat(fd, marks[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
	}
	close(fd);
	return has[0] && ((has[1] && has[2]) || has[3]);
}

/* A bare repository (or a git directory by any other name) git finds at
 * an ancestor of path below its root: its code entries are git's code as
 * in a .git. skip_last: the last component is not looked at. */
static const char *bare_match(const char *path, size_t root_len, bool skip_last)
{
	for (size_t k = root_len; path[k];) {
		size_t start = k + (path[k] == '/'), n = strcspn(path + start, "/");

		if (skip_last && !path[start + n])
			break;
		if (protect_git_code_name(path + start, n) && git_dir_at(path, k))
			return "what makes git run code in a repository git finds there (HEAD, objects, refs)";
		k = start + n;
	}
	return NULL;
}

/* The longest root holding path by name, and *rel the rest; -1: none. */
static int root_by_name(const struct gate_rules *g, const char *path, const char **rel)
{
	int best = -1;

	for (size_t i = 0; i < g->n_roots; i++)
		if (path_is_under(path, g->roots[i].path) &&
		    (best < 0 || g->roots[i].len > g->roots[(size_t)best].len))
			best = (int)i;
	if (best >= 0) {
		const char *r = path + g->roots[(size_t)best].len;

		*rel = r + (*r == '/');
	}
	return best;
}

int gate_rules_root(const struct gate_rules *g, const char *path, const char **rel)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	int best = root_by_name(g, path, rel);

	if (best >= 0)
		return best;
	/* Not by name: a root the host renamed meanwhile, found by inode. */
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, path, len + 1);
	for (size_t k = len; k > 0; k--) {
		struct stat st;

		if (k != len && buf[k] != '/')
			continue;
		buf[k] = '\0';
		if (stat(buf, &st) == 0)
			for (size_t i = 0; i < g->n_roots; i++)
				if (g->roots[i].dev == st.st_dev && g->roots[i].ino == st.st_ino) {
					*rel = path + k + (path[k] == '/');
					return (int)i;
				}
	}
	return -1;
}

bool gate_rules_hidden(const struct gate_rules *g, const char *path)
{
	const char *rel;
	int root;

	if (g->n_hides == 0)
		return false;
	root = gate_rules_root(g, path, &rel);
	if (root < 0)
		return false;
	for (size_t i = 0; i < g->n_hides; i++)
		if (g->hides[i].root == (size_t)root && at_or_below(rel, g->hides[i].rel, false))
			return true;
	return false;
}

const char *gate_rules_check(const struct gate_rules *g, const char *path, bool holder)
{
	const char *rel, *why;
	int root = gate_rules_root(g, path, &rel);

	if (root < 0)
		return NULL;
	why = gate_rules_match(g, (size_t)root, rel, holder);
	if (!why && g->git)
		why = bare_match(path, (size_t)(rel - path) - (rel > path && rel[-1] == '/'), false);
	return why;
}

/* rel without its last component, in buf. */
static const char *parent_rel(const char *rel, char *buf, size_t size)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (n >= size)
		return NULL;
	memcpy(buf, rel, n);
	buf[n] = '\0';
	return buf;
}

bool gate_rules_git_config(const struct gate_rules *g, const char *path)
{
	const char *rel, *last = strrchr(path, '/'), *prel;
	char pbuf[PATH_MAX];
	int root;

	if (!g->git || !last || (strcmp(last, "/config") != 0 && strcmp(last, "/config.worktree") != 0))
		return false;
	root = gate_rules_root(g, path, &rel);
	if (root < 0 || gate_rules_hidden(g, path) || match(g, (size_t)root, rel, false, true))
		return false;
	if (bare_match(path, (size_t)(rel - path) - (rel > path && rel[-1] == '/'), true))
		return false;
	if (protect_git_config_name(rel))
		return true;
	/* a bare repository (one being made is settled when it becomes
	 * one: gate_git_making), with no git code on the way */
	prel = parent_rel(rel, pbuf, sizeof(pbuf));
	return prel && !protect_match_git(prel) && git_dir_at(path, (size_t)(last - path));
}

bool gate_rules_git_mkdir(const struct gate_rules *g, const char *path)
{
	const char *rel, *prel;
	char pbuf[PATH_MAX];
	int root;

	if (!g->git)
		return false;
	root = gate_rules_root(g, path, &rel);
	if (root < 0 || !protect_git_entry_name(rel) || gate_rules_hidden(g, path) ||
	    match(g, (size_t)root, rel, false, true))
		return false;
	prel = parent_rel(rel, pbuf, sizeof(pbuf));
	return prel && !protect_match_git(prel) &&
	       !bare_match(path, (size_t)(rel - path) - (rel > path && rel[-1] == '/'), false);
}

const char *gate_rules_check_removal(const struct gate_rules *g, const char *path)
{
	const char *rel, *why;
	int root = gate_rules_root(g, path, &rel);

	if (root < 0)
		return NULL;
	why = gate_rules_match(g, (size_t)root, rel, true);
	if (!why && g->git)
		why = protect_match_git_keep(rel);
	return why;
}

static int add_path(const struct gate_rules *g, struct gate_path **v, size_t *n, const char *path)
{
	size_t len = strlen(path);
	bool prefix = len && path[len - 1] == '*';
	const char *rel;
	struct gate_path *nv;
	int root;

	/* by name only: at start the roots are where the plan says */
	root = root_by_name(g, path, &rel);
	if (root < 0)
		return 0; /* outside every writable root: read-only anyway */
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct gate_path){ .root = (size_t)root, .prefix = prefix, .rel = strndup(rel, strlen(rel) - prefix) };
	if (!nv[*n].rel)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* path with every symlink resolved (what does not exist yet kept as
 * written below the deepest existing ancestor), in buf. */
static bool resolve_real(const char *path, char *buf, size_t size)
{
	char tmp[PATH_MAX], *at;
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return false;
	memcpy(tmp, path, len + 1);
	for (;;) {
		char real[PATH_MAX];

		if (realpath(tmp, real)) {
			int n = snprintf(buf, size, "%s%s", real, path + strlen(tmp));

			return n > 0 && (size_t)n < size;
		}
		if (errno != ENOENT || !(at = strrchr(tmp, '/')) || at == tmp)
			return false;
		*at = '\0';
	}
}

/* The protected paths share a few parents (the workspace, its .git): each
 * one's resolution is kept, and each path costs one lstat of its own name,
 * or none where the listing of its root showed it missing. */
#define PARENT_SLOTS 4

struct parent_real {
	struct {
		char dir[PATH_MAX];
		char real[PATH_MAX];
		bool set, ok;
	} slot[PARENT_SLOTS];
	unsigned next; /* the slot a new parent takes */
};

/* The parent dir (dl bytes of path) resolved, or NULL when it cannot be. */
static const char *parent_resolved(struct parent_real *m, const char *path, size_t dl)
{
	unsigned k;

	for (k = 0; k < PARENT_SLOTS; k++)
		if (m->slot[k].set && strncmp(m->slot[k].dir, path, dl) == 0 && m->slot[k].dir[dl] == '\0')
			return m->slot[k].ok ? m->slot[k].real : NULL;
	k = m->next++ % PARENT_SLOTS;
	memcpy(m->slot[k].dir, path, dl);
	m->slot[k].dir[dl] = '\0';
	m->slot[k].set = true;
	m->slot[k].ok = resolve_real(m->slot[k].dir, m->slot[k].real, sizeof(m->slot[k].real));
	return m->slot[k].ok ? m->slot[k].real : NULL;
}

/* resolve_real(path), when that is elsewhere than path. missing: the
 * caller knows nothing is at path's name (no link to follow there). */
static bool resolved_elsewhere(struct parent_real *m, const char *path, bool missing, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;
	const char *real;
	struct stat st;
	int n;

	if (!slash || dl == 0 || dl >= sizeof(m->slot[0].dir) || !slash[1])
		return resolve_real(path, buf, size) && strcmp(buf, path) != 0;
	real = parent_resolved(m, path, dl);
	if (!real)
		return false;
	n = snprintf(buf, size, "%s/%s", real, slash + 1);
	if (n <= 0 || (size_t)n >= size)
		return false;
	if (!missing && (lstat(buf, &st) < 0 ? errno != ENOENT : S_ISLNK(st.st_mode))) {
		/* a link at the name itself (or a lookup error): walk it all */
		if (!resolve_real(path, buf, size))
			return false;
	}
	return strcmp(buf, path) != 0;
}

/* A hidden path, for the gate when it lies below a writable root. */
static int add_hide(struct gate_rules *g, const char *path, bool said_absent)
{
	size_t before = g->n_hides;
	struct stat st;
	int r;

	if (strlen(path) >= PATH_MAX)
		return 0;
	if ((r = add_path(g, &g->hides, &g->n_hides, path)) < 0)
		return r;
	/* a directory's stand-in holds unless the host replaces the whole
	 * directory; a file is replaced by every atomic save (and what is
	 * absent has no stand-in at all) */
	if (g->n_hides > before && (said_absent || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
		g->read_gate = true;
	return 0;
}

int gate_rules_init(struct gate_rules *g, const struct plan *p, bool (*ephemeral)(const struct plan *, const char *),
		    const bool *absent)
{
	size_t n = 0;
	int r;

	*g = (struct gate_rules){ .names = p->protect_names, .git = p->protect_git };
	for (size_t i = 0; p->write && p->write[i]; i++)
		n++;
	g->roots = calloc(n ? n : 1, sizeof(*g->roots));
	if (!g->roots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (ephemeral(p, p->write[i]) || stat(p->write[i], &st) < 0)
			continue; /* gone with the sandbox, or nothing there to write */
		g->roots[g->n_roots++] = (struct gate_root){
			.path = (char *)p->write[i], .len = strlen(p->write[i]), .dev = st.st_dev, .ino = st.st_ino,
		};
	}
	_cleanup_free_ struct parent_real *parent = calloc(1, sizeof(*parent));

	if (!parent)
		return -ENOMEM;

	for (size_t i = 0; i < p->n_steps; i++) {
		char path[PATH_MAX], real[PATH_MAX];

		if (p->steps[i].kind != STEP_PROTECT || p->steps[i].len >= sizeof(path))
			continue;
		memcpy(path, p->steps[i].path, p->steps[i].len);
		path[p->steps[i].len] = '\0';
		if ((r = add_path(g, &g->lits, &g->n_lits, path)) < 0)
			return r;
		/* through a symlink (at it or on the way): where it leads is
		 * protected too, and the link itself stays protected by name */
		if (!strchr(path, '*') && resolved_elsewhere(parent, path, absent && absent[i], real, sizeof(real)) &&
		    (r = add_path(g, &g->lits, &g->n_lits, real)) < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_steps; i++) {
		char path[PATH_MAX];

		if (p->steps[i].kind != STEP_HIDE || p->steps[i].len >= sizeof(path))
			continue;
		memcpy(path, p->steps[i].path, p->steps[i].len);
		path[p->steps[i].len] = '\0';
		if ((r = add_hide(g, path, false)) < 0)
			return r;
	}
	for (size_t i = 0; p->landlock.deny_absent && p->landlock.deny_absent[i]; i++)
		if ((r = add_hide(g, p->landlock.deny_absent[i], true)) < 0)
			return r;
	for (size_t i = 0; p->unprotect && p->unprotect[i]; i++)
		if ((r = add_path(g, &g->carve, &g->n_carve, p->unprotect[i])) < 0)
			return r;
	return 0;
}

bool gate_rules_active(const struct gate_rules *g)
{
	return g->n_roots > 0 && (g->n_lits > 0 || g->n_hides > 0 || g->git || (g->names && g->names[0]));
}

void gate_rules_done(struct gate_rules *g)
{
	for (size_t i = 0; i < g->n_lits; i++)
		free(g->lits[i].rel);
	for (size_t i = 0; i < g->n_carve; i++)
		free(g->carve[i].rel);
	for (size_t i = 0; i < g->n_hides; i++)
		free(g->hides[i].rel);
	free(g->hides);
	free(g->lits);
	free(g->carve);
	free(g->roots);
	*g = (struct gate_rules){};
}
