/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HOME allowlist (cordon_policy_set_home): which directories are
 * hidden (HOME, the passwd home, other users' homes, XDG_*_HOME outside
 * HOME) and what comes back below them (the built-in grants that exist,
 * the targets of granted symlinks that stay in HOME and in no catalogue
 * entry, and cordon_policy_grant_home's). Resolved when set; the native
 * provider (native.c) spells it out for the runner.
 *
 * Configuration that may carry a credential is granted as a filtered copy
 * (home_filter.h), made by the runner in the sandbox's own HOME: git's
 * global config (extraHeader, userinfo in url.*.insteadOf, include.path and
 * credential.* removed), ~/.npmrc (_authToken, _auth, per-registry keys),
 * cargo's config (token, credential-provider) and go's env (GOAUTH,
 * userinfo in GOPROXY). A filtered file that is a symlink, or under light
 * isolation (no mount namespace to put the copy in), stays hidden.
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
#include "error.h"
#include "path.h"
#include "pathfd.h"
#include "policy.h"
#include "provider.h"
#include "statmemo.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

static const struct home_default {
	const char *path;
	bool filtered;
} home_defaults[] = {
	/* toolchains and their caches, by name (never ~/.cache whole) */
	{ ".cargo/bin" }, { ".cargo/registry" }, { ".cargo/git" }, { ".rustup" },
	{ ".nvm" }, { ".volta" }, { ".bun/bin" }, { ".deno/bin" },
	{ ".pyenv" }, { ".local/bin" }, { ".local/lib" },
	{ ".npm/_cacache" }, { ".cache/yarn" }, { ".yarn/berry/cache" }, { ".local/share/pnpm" }, { ".cache/pnpm" },
	{ ".cache/pip" }, { ".cache/uv" }, { ".local/share/uv" }, { ".cache/pypoetry" },
	{ ".m2/repository" }, { ".gradle/caches" }, { ".gradle/wrapper" }, { ".sdkman/candidates" },
	{ "go/pkg" }, { "go/bin" }, { ".cache/go-build" }, { ".ghcup/bin" },
	{ ".local/share/mise/installs" }, { ".local/share/mise/shims" }, { ".asdf/installs" }, { ".asdf/shims" },
	/* configuration that holds no secret */
	{ ".config/nvim" }, { ".vimrc" }, { ".vim" }, { ".inputrc" }, { ".editorconfig" },
	/* configuration that may: a filtered copy */
	{ ".gitconfig", true }, { ".config/git/config", true }, { ".config/git/ignore" },
	{ ".cargo/config.toml", true }, { ".cargo/config", true }, { ".npmrc", true }, { ".config/go/env", true },
	{ NULL },
};

/* Granted directories whose symlinks may lead elsewhere in HOME (pipx,
 * mise and asdf shims, cargo-installed links): looked at one level deep. */
#define LINK_SCAN_MAX 256

/* Directories that are never hidden whole, whatever XDG_* says. */
static const char *const never_hidden[] = { "/tmp", "/dev", "/run", "/proc", "/sys", "/usr", "/etc", "/bin",
					    "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL };

const char *policy_home_default_grant(const char *home, const char *c, bool *ret_filtered)
{
	size_t n = home ? strlen(home) : 0;

	if (!home || !path_is_under(c, home) || c[n] != '/')
		return NULL;
	for (size_t i = 0; home_defaults[i].path; i++)
		if (path_is_under_n(c + n + 1, strlen(c + n + 1), home_defaults[i].path)) {
			if (ret_filtered)
				*ret_filtered = home_defaults[i].filtered;
			return home_defaults[i].path;
		}
	return NULL;
}

bool policy_home_catalogue(const char *home, const char *c)
{
	size_t n = strlen(home);

	if (!path_is_under(c, home) || strcmp(c, home) == 0)
		return strcmp(c, home) == 0 || path_is_under(home, c); /* HOME, or above it: holds them all */
	for (size_t i = 0; policy_default_deny_read[i].path; i++) {
		const char *e = policy_default_deny_read[i].path;
		const char *rel = c + n + 1;

		if (path_is_under_n(rel, strlen(rel), e) || path_is_under_n(e, strlen(e), rel))
			return true;
	}
	return false;
}

bool policy_home_applies(const struct cordon_policy *p, const char *h)
{
	if (p->workspace && path_is_under(h, p->workspace))
		return false;
	STRV_FOREACH(w, p->writable_roots)
		if (path_is_under(h, *w))
			return false;
	return true;
}

const char *policy_home_hiding(const struct cordon_policy *p, const char *c)
{
	if (p->home_policy != CORDON_HOME_ALLOWLIST)
		return NULL;
	STRV_FOREACH(h, p->home_hidden)
		if (path_is_under(c, *h) && policy_home_applies(p, *h))
			return *h;
	return NULL;
}

static bool related_to_any(const char *c, char *const *dirs)
{
	STRV_FOREACH(d, dirs)
		if (path_is_under(c, *d) || path_is_under(*d, c))
			return true;
	return false;
}

/* A home directory hidden: where it leads when it is a symlink (a
 * /home/NAME that points at /data/NAME), never a system directory. */
static int hide(struct cordon_policy *p, const char *path)
{
	_cleanup_free_ char *c = NULL;
	struct stat st;

	/* canonical as realpath(3) has it (a missing path fails the stat),
	 * through the launch's memo: /home, /root are looked at already */
	if (cordon_canonicalize(path, &c, NULL) < 0 || strcmp(c, "/") == 0 || statmemo_stat(c, &st) < 0 ||
	    !S_ISDIR(st.st_mode) || related_to_any(c, p->home_hidden))
		return 0;
	for (size_t k = 0; never_hidden[k]; k++)
		if (path_is_under(c, never_hidden[k]) || path_is_under(never_hidden[k], c))
			return 0;
	return strv_push_unique(&p->home_hidden, c);
}

/* Each directory in dir (one level), as dir/NAME, hidden. */
static int hide_entries(struct cordon_policy *p, const char *dir, const char *suffix)
{
	_cleanup_(closedirp) DIR *d = opendir(dir);
	struct dirent *de;
	int r;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *c = NULL;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN))
			continue;
		if (asprintf(&c, "%s/%s%s", dir, de->d_name, suffix) < 0)
			return -ENOMEM;
		if ((r = hide(p, c)) < 0)
			return r;
	}
	return 0;
}

static int hide_xdg(struct cordon_policy *p)
{
	static const char *const vars[] = { "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
					    NULL };

	for (size_t i = 0; vars[i]; i++) {
		const char *v = secure_getenv(vars[i]);
		int r;

		if (!v || v[0] != '/')
			continue;
		if ((r = hide(p, v)) < 0)
			return r;
	}
	return 0;
}

/* The grant of a link's target t, or NULL: t itself, or the prefix of a
 * tool whose bin/ it lies in (a venv, an installed version). */
static char *link_grant(const char *home, const char *t)
{
	_cleanup_free_ char *parent = path_dirname(t);
	const char *base = parent ? strrchr(parent, '/') : NULL;
	char *g;

	if (!parent)
		return NULL;
	g = base && strcmp(base, "/bin") == 0 ? path_dirname(parent) : strdup(t);
	if (g && (strcmp(g, home) == 0 || !path_is_under(g, home) || policy_home_catalogue(home, g))) {
		free(g);
		return NULL;
	}
	return g;
}

/* What a link whose canonical target is t brings back (see
 * policy_home_link_target). */
static int canonical_target_grant(const char *home, const char *t, bool in_bin, char **ret)
{
	struct stat st;

	*ret = NULL;
	if (!t || !path_is_under(t, home))
		return 0;
	/* a link in a bin or shims directory brings back a program, never
	 * a configuration file that happens to be linked there */
	if (in_bin && (stat(t, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)))
		return 0;
	*ret = link_grant(home, t);
	return 0;
}

/* link's canonical target as realpath(3) gives it, in one readlink and
 * one open for the common case (an absolute target with no ".", ".." or
 * symlink on the way: openat2 refuses a symlink, and then realpath walks);
 * NULL when it leads nowhere. */
static char *link_canonical(const char *link)
{
	char target[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	int fd;

	if (n <= 0)
		return realpath(link, NULL);
	target[n] = '\0';
	if (!path_is_plain_absolute(target))
		return realpath(link, NULL);
	fd = path_open_nofollow(AT_FDCWD, target, 0);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return NULL;
	if (fd < 0)
		return realpath(link, NULL);
	close(fd);
	return strdup(target);
}

int policy_home_link_target(const char *home, const char *link, bool in_bin, char **ret)
{
	_cleanup_free_ char *t = link_canonical(link);

	return canonical_target_grant(home, t, in_bin, ret);
}

/* A granted symlink: made again; its target granted when it stays in
 * HOME and in no catalogue entry. */
static int grant_link(struct cordon_policy *p, const char *home, const char *c, bool make)
{
	_cleanup_free_ char *g = NULL;
	int r;

	if (make && (r = strv_push_unique(&p->home_links, c)) < 0)
		return r;
	if ((r = policy_home_link_target(home, c, !make, &g)) < 0)
		return r;
	return g ? strv_push_unique(&p->home_grants, g) : 0;
}

/* The links in a granted bin or shims directory (one level). A link to a
 * sibling by its bare name (rustup's, mise's and asdf's shims: a dozen
 * links to one program) is resolved once per target name: the directory
 * is canonicalised once and the sibling looked at once, instead of a
 * realpath walk of HOME's components per link. */
static int scan_links(struct cordon_policy *p, const char *home, const char *dir)
{
	_cleanup_(closedirp) DIR *d = opendir(dir);
	_cleanup_strv_free_ char **seen = NULL;
	_cleanup_free_ char *cdir = NULL;
	struct dirent *de;
	size_t n = 0;
	int r;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n++ < LINK_SCAN_MAX) {
		_cleanup_free_ char *c = NULL;
		char target[NAME_MAX + 1];
		ssize_t len;
		struct stat st;

		if (de->d_type != DT_LNK)
			continue;
		len = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (len > 0 && !memchr(target, '/', (size_t)len) && strcmp((target[len] = 0, target), ".") != 0 &&
		    strcmp(target, "..") != 0) {
			if (strv_contains(seen, target))
				continue; /* granted (or not) when first seen */
			if ((r = strv_push(&seen, target)) < 0)
				return r;
			/* a sibling that is no link itself: its canonical
			 * path is the directory's, then its name */
			if (fstatat(dirfd(d), target, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode)) {
				if (!cdir && cordon_canonicalize(dir, &cdir, NULL) < 0)
					return 0;
				_cleanup_free_ char *g = NULL;

				if (!(c = path_join(cdir, target)))
					return -ENOMEM;
				if ((r = canonical_target_grant(home, c, true, &g)) < 0 ||
				    (g && (r = strv_push_unique(&p->home_grants, g)) < 0))
					return r;
				continue;
			}
		}
		if (!(c = path_join(dir, de->d_name)))
			return -ENOMEM;
		if ((r = grant_link(p, home, c, false)) < 0)
			return r;
	}
	return 0;
}

/* HOME's names, listed once, each with its d_type: a default whose first
 * name is not among them costs no lstat, and one that is that name alone
 * is typed by the listing. NULL (and every default looked at) when HOME
 * cannot be listed or holds more than HOME_NAMES_MAX names. */
#define HOME_NAMES_MAX 4096

struct home_names {
	size_t n;
	char **name;
	unsigned char *type;
};

static void home_names_free(struct home_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	free(l->type);
	*l = (struct home_names){};
}

static bool home_names_list(const char *home, struct home_names *ret)
{
	_cleanup_(closedirp) DIR *d = opendir(home);
	struct home_names l = {};
	size_t cap = 0;
	struct dirent *de;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (l.n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			char **nn;
			unsigned char *nt;

			if (ncap > HOME_NAMES_MAX || !(nn = reallocarray(l.name, ncap, sizeof(*nn))))
				goto fail;
			l.name = nn;
			if (!(nt = reallocarray(l.type, ncap, sizeof(*nt))))
				goto fail;
			l.type = nt;
			cap = ncap;
		}
		if (!(l.name[l.n] = strdup(de->d_name)))
			goto fail;
		l.type[l.n++] = de->d_type;
	}
	*ret = l;
	return true;
fail:
	home_names_free(&l);
	return false;
}

/* The default rel below HOME: absent (false), or present with its lstat
 * (from the listing when rel is one name and the listing typed it). */
static bool default_present(const struct home_names *l, const char *c, const char *rel, struct stat *st)
{
	size_t first = strcspn(rel, "/");

	for (size_t i = 0; l->name && i < l->n; i++) {
		if (strlen(l->name[i]) != first || memcmp(l->name[i], rel, first) != 0)
			continue;
		if (rel[first] == '\0' && (l->type[i] == DT_DIR || l->type[i] == DT_REG || l->type[i] == DT_LNK)) {
			*st = (struct stat){ .st_mode = l->type[i] == DT_DIR ? S_IFDIR :
							l->type[i] == DT_REG ? S_IFREG : S_IFLNK };
			return true;
		}
		return lstat(c, st) == 0;
	}
	return !l->name && lstat(c, st) == 0;
}

static int grant_defaults(struct cordon_policy *p, const char *home)
{
	_cleanup_(home_names_free) struct home_names names = {};

	home_names_list(home, &names);
	for (size_t i = 0; home_defaults[i].path; i++) {
		_cleanup_free_ char *c = path_join(home, home_defaults[i].path);
		const char *base;
		struct stat st;
		int r;

		if (!c)
			return -ENOMEM;
		if (!default_present(&names, c, home_defaults[i].path, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			if (!home_defaults[i].filtered && (r = grant_link(p, home, c, true)) < 0)
				return r;
			continue;
		}
		if (home_defaults[i].filtered) {
			if (S_ISREG(st.st_mode) && (r = strv_push_unique(&p->home_filtered, c)) < 0)
				return r;
			continue;
		}
		if ((r = strv_push_unique(&p->home_grants, c)) < 0)
			return r;
		base = strrchr(c, '/') + 1;
		if (S_ISDIR(st.st_mode) && (strcmp(base, "bin") == 0 || strcmp(base, "shims") == 0) &&
		    (r = scan_links(p, home, c)) < 0)
			return r;
	}
	return 0;
}

static int home_resolve(struct cordon_policy *p)
{
	_cleanup_free_ char *other = NULL;
	int r;

	if (!p->home)
		return 0;
	/* a policy built for the allowlist has looked the passwd home up */
	if (p->home_catalogue_lazy) {
		if (p->home_other && !(other = strdup(p->home_other)))
			return -ENOMEM;
	} else if ((r = policy_other_home(p->home, &other)) < 0)
		return r;
	if ((r = strv_push_unique(&p->home_hidden, p->home)) < 0 || (other && (r = hide(p, other)) < 0))
		return r;
	if ((r = grant_defaults(p, p->home)) < 0 || (other && (r = grant_defaults(p, other)) < 0))
		return r;
	/* other users' homes: hidden whole, nothing granted there */
	if ((r = hide_entries(p, "/home", "")) < 0 || (r = hide(p, "/root")) < 0 ||
	    (r = hide_entries(p, "/mnt", "/Users")) < 0)
		return r;
	return hide_xdg(p);
}

static int cover_below(struct cordon_policy *p, const char *home, const char *canon, struct cordon_error *reterr)
{
	int r;

	if (!home || strcmp(home, "/") == 0 || !(path_is_under(canon, home) || path_is_under(home, canon)))
		return 0;
	for (size_t i = 0; policy_default_deny_read[i].path; i++) {
		const char *e = policy_default_deny_read[i].path;
		_cleanup_free_ char *lex = path_join(home, e), *c = NULL;

		if (!lex)
			return -ENOMEM;
		/* at, below or above the grant; the rest of HOME is hidden whole */
		if (!path_is_under(lex, canon) && !path_is_under(canon, lex))
			continue;
		r = policy_secret_canonical(home, i, &c, reterr);
		if (r == -ENOENT || r == -ENOTDIR)
			continue;
		if (r < 0 || (r = policy_deny_add(p, c, DENY_DEFAULT, reterr)) < 0)
			return r;
	}
	return 0;
}

int policy_home_cover(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	int r;

	if (!p->home_catalogue_lazy || !canon)
		return 0;
	if ((r = cover_below(p, p->home, canon, reterr)) < 0)
		return r;
	return p->home_other ? cover_below(p, p->home_other, canon, reterr) : 0;
}

/* The whole catalogue, as cordon_policy_new resolves it: a policy built
 * for the allowlist turned back to the catalogue. */
static int resolve_whole_catalogue(struct cordon_policy *p, struct cordon_error *reterr)
{
	int r;

	if (!p->home_catalogue_lazy)
		return 0;
	p->home_catalogue_lazy = false;
	r = policy_deny_home_secrets(p, p->home, reterr);
	if (r == 0 && p->home_other)
		r = policy_deny_home_secrets(p, p->home_other, reterr);
	return r;
}

CORDON_API int cordon_policy_set_home(struct cordon_policy *p, enum cordon_home h, struct cordon_error *reterr)
{
	int r;

	if (!p || (h != CORDON_HOME_CATALOGUE && h != CORDON_HOME_ALLOWLIST))
		return error_set(reterr, -EINVAL, "home: not a HOME policy (catalogue or allowlist)");
	if (h == p->home_policy)
		return 0;
	p->home_policy = h;
	p->home_hidden = strv_free(p->home_hidden);
	p->home_links = strv_free(p->home_links);
	p->home_filtered = strv_free(p->home_filtered);
	if (h == CORDON_HOME_CATALOGUE || p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return resolve_whole_catalogue(p, reterr);
	r = home_resolve(p);
	if (r < 0)
		return error_set(reterr, r, "home allowlist: cannot resolve HOME's grants: %s", strerror(-r));
	STRV_FOREACH(g, p->home_grants)
		if ((r = policy_home_cover(p, *g, reterr)) < 0)
			return r;
	return 0;
}

CORDON_API enum cordon_home cordon_policy_home_policy(const struct cordon_policy *p)
{
	return p ? p->home_policy : CORDON_HOME_CATALOGUE;
}

CORDON_API int cordon_policy_grant_home(struct cordon_policy *p, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	if (!p || !path)
		return error_set(reterr, -EINVAL, "home grant: no path");
	r = cordon_canonicalize(path, &canon, reterr);
	if (r < 0)
		return r;
	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "home grant: '/' is everything");
	for (size_t i = 0; i < p->n_deny; i++)
		if (p->deny[i].explicit_deny && path_is_under(canon, p->deny[i].path))
			return error_set(reterr, -EPERM, "'%s' is hidden by the read-deny entry '%s', and deny always wins",
					 canon, p->deny[i].path);
	if (strv_length(p->home_grants) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many HOME grants (at most %d)", POLICY_MAX_ENTRIES);
	if ((r = policy_home_cover(p, canon, reterr)) < 0)
		return r;
	return strv_push_unique(&p->home_grants, canon);
}

/* c lies strictly below an applying hidden directory. */
static bool below_hidden(const struct cordon_policy *p, const char *c)
{
	const char *h = policy_home_hiding(p, c);

	return h && strcmp(h, c) != 0;
}

/* What the runner binds back: the grants, and every writable, readable
 * or executable root, the workspace, below a hidden directory. */
static const char *const *const *grant_lists(const struct cordon_policy *p, const char *const *ws,
					     const char *const *(*ret)[6])
{
	(*ret)[0] = (const char *const *)p->home_grants;
	(*ret)[1] = (const char *const *)p->writable_roots;
	(*ret)[2] = ws;
	(*ret)[3] = (const char *const *)(p->read_restricted ? p->read_roots : NULL);
	(*ret)[4] = (const char *const *)p->exec_roots;
	(*ret)[5] = NULL;
	return *ret;
}

bool policy_home_granted(const struct cordon_policy *p, const char *c)
{
	const char *ws[] = { p->workspace, NULL };
	const char *const *lists[6];

	grant_lists(p, p->workspace ? ws : NULL, &lists);
	for (size_t l = 0; l < 5; l++)
		for (const char *const *g = lists[l]; g && *g; g++)
			if (below_hidden(p, *g) && path_is_under(c, *g))
				return true;
	return false;
}

bool policy_home_hides(const struct cordon_policy *p, const char *d)
{
	return policy_home_hiding(p, d) && !policy_home_granted(p, d);
}

/* c is at or below an entry the caller denied: deny wins over every
 * built-in grant, link and filtered copy. */
static bool explicitly_denied(const struct cordon_policy *p, const char *c)
{
	for (size_t i = 0; i < p->n_deny; i++)
		if (p->deny[i].explicit_deny && path_is_under(c, p->deny[i].path))
			return true;
	return false;
}

void policy_home_add_flags(struct strv_builder *sb, const struct cordon_policy *p, bool light)
{
	const char *ws[] = { p->workspace, NULL };
	const char *const *lists[6];

	if (p->home_policy != CORDON_HOME_ALLOWLIST)
		return;
	STRV_FOREACH(h, p->home_hidden)
		if (policy_home_applies(p, *h))
			strvb_add_many(sb, "--home-hide", *h, NULL);
	grant_lists(p, p->workspace ? ws : NULL, &lists);
	for (size_t l = 0; l < 5; l++)
		for (const char *const *g = lists[l]; g && *g; g++)
			if (below_hidden(p, *g) && !explicitly_denied(p, *g))
				strvb_add_many(sb, "--home-grant", *g, NULL);
	/* no mount namespace under light: Landlock alone, which needs no
	 * link made again and has no place for a copy */
	if (light)
		return;
	STRV_FOREACH(l, p->home_links)
		if (below_hidden(p, *l) && !policy_home_granted(p, *l) && !explicitly_denied(p, *l))
			strvb_add_many(sb, "--home-link", *l, NULL);
	STRV_FOREACH(f, p->home_filtered)
		if (below_hidden(p, *f) && !policy_home_granted(p, *f) && !explicitly_denied(p, *f))
			strvb_add_many(sb, "--home-filtered", *f, NULL);
}
