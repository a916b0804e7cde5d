/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the bwrap provider needs to know about the protected paths, read
 * when a path is added to the policy (its confine may not touch the
 * filesystem): which non-directories and symlinks lie on the way, and
 * which entries a prefix pattern matches. The native runner decides all of
 * this itself, at run time: a launch defers the notes until its backend is
 * known and takes them only for another (policy_protect_notes_finish).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "dirlist.h"
#include "git_config.h"
#include "policy.h"
#include "statmemo.h"
#include "strv.h"

/* A cap on what one directory listing adds (policy.c caps each list alike). */
#define PROTECT_MAX_EXPANDED 4096

/* Note the first existing non-directory on the way to path, or a symlink
 * on the way or at its end. Nothing can be created below a file, and the
 * bwrap provider keeps the file read-only instead of failing on ENOTDIR; a
 * symlink it cannot keep (a bind follows it), so it refuses. */
static int note_protect_file(struct cordon_policy *p, const char *path)
{
	_cleanup_free_ char *prefix = strdup(path);
	struct stat st;

	if (!prefix)
		return -ENOMEM;
	for (char *c = prefix + 1;; c++) {
		bool last = *c == '\0';

		if (!last && *c != '/')
			continue;
		*c = '\0';
		if (!last && strv_contains(p->protect_dirs_seen, prefix)) {
			*c = '/';
			continue;
		}
		if (statmemo_lstat(prefix, &st) < 0)
			return 0;
		if (S_ISLNK(st.st_mode))
			return strv_push_unique(&p->protect_links, prefix);
		if (last)
			return 0;
		if (!S_ISDIR(st.st_mode))
			return strv_push_unique(&p->protect_files, prefix);
		if (strv_length(p->protect_dirs_seen) < POLICY_MAX_ENTRIES)
			(void)strv_push_unique(&p->protect_dirs_seen, prefix); /* a failure only costs a lstat later */
		*c = '/';
	}
}

/* A prefix pattern ("DIR/.cordon*"): list the entries of DIR that match
 * now, each noted like a protected path. Those made later are not listed. */
struct pattern_walk {
	struct cordon_policy *p;
	const char *dir, *prefix;
	size_t plen;
	int err; /* the first failure of ours, which stops the listing */
};

static int note_protect_match(const char *name, unsigned char type, void *data)
{
	struct pattern_walk *w = data;
	char *path;
	int r;

	(void)type;
	if (strncmp(name, w->prefix, w->plen) != 0)
		return 0;
	if (strv_length(w->p->protect_expanded) >= PROTECT_MAX_EXPANDED)
		return (w->err = -E2BIG);
	path = path_join(w->dir, name);
	if (!path)
		return (w->err = -ENOMEM);
	r = strv_consume(&w->p->protect_expanded, path);
	if (r >= 0)
		r = note_protect_file(w->p, path);
	return r < 0 ? (w->err = r) : 0;
}

static int note_protect_pattern(struct cordon_policy *p, const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	_cleanup_free_ char *dir = slash ? strndup(pattern, slash == pattern ? 1 : (size_t)(slash - pattern)) : NULL;
	struct pattern_walk w = { .p = p, .dir = dir, .prefix = slash ? slash + 1 : NULL,
				  .plen = slash ? strlen(slash + 1) - 1 : 0 /* without the '*' */ };

	if (!dir)
		return slash ? -ENOMEM : 0;
	/* nothing there yet, or a listing that failed part-way: what it did
	 * not show was not there to protect, as before */
	(void)dirlist_path(dir, 0, note_protect_match, &w);
	return w.err;
}

/* Set by cordon_launch_new around its build: the policies built then
 * leave the notes to policy_protect_notes_finish. */
static _Thread_local bool defer_notes;

bool policy_protect_notes_defer(bool on)
{
	bool prev = defer_notes;

	defer_notes = on;
	return prev;
}

bool policy_protect_notes_deferring(void)
{
	return defer_notes;
}

int policy_protect_notes_finish(struct cordon_policy *p)
{
	int r;

	if (!p->protect_notes_deferred)
		return 0;
	p->protect_notes_deferred = false;
	STRV_FOREACH(prot, p->protect)
		if ((r = policy_note_protect(p, *prot)) < 0)
			return r;
	return 0;
}

int policy_note_protect(struct cordon_policy *p, const char *path)
{
	size_t n = strlen(path);

	if (p->protect_notes_deferred)
		return 0;
	return n && path[n - 1] == '*' ? note_protect_pattern(p, path) : note_protect_file(p, path);
}

/*
 * Persistence where a writable root reaches the user's HOME or PATH: the
 * shell start-up files and every HOME dot-entry (no new one either: no
 * ~/.ssh, ~/.kube, ~/.gitconfig made when absent; a cache the profile
 * names below one is a writable root of its own and stays writable), and
 * every PATH directory below the root (a program planted there runs when
 * the user types its name). Idempotent; called when a root is added.
 */
int policy_protect_reach(struct cordon_policy *p, const char *root)
{
	_cleanup_free_ char *path_copy = NULL;
	const char *env;
	char *save = NULL;
	int r;

	/* the sandbox's /tmp is its own: what lies below is gone with it */
	if (p->mode != CORDON_MODE_WORKSPACE_WRITE || strcmp(root, "/tmp") == 0)
		return 0;
	if (p->home && path_is_under(p->home, root))
		for (size_t i = 0; policy_default_protect_home[i]; i++) {
			_cleanup_free_ char *m = path_join(p->home, policy_default_protect_home[i]);

			if (!m)
				return -ENOMEM;
			if (strv_contains(p->protect, m) || strv_contains(p->unprotect, m))
				continue;
			if ((r = strv_push_unique(&p->protect, m)) < 0 || (r = policy_note_protect(p, m)) < 0)
				return r;
		}
	env = secure_getenv("PATH");
	if (!env || !(path_copy = strdup(env)))
		return env ? -ENOMEM : 0;
	for (char *d = strtok_r(path_copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *canon = NULL;

		/* relative entries name no fixed place; the root itself cannot
		 * be kept read-only and stay a root */
		if (d[0] != '/' || cordon_canonicalize(d, &canon, NULL) < 0 || strcmp(canon, root) == 0 ||
		    !path_is_under(canon, root) || strv_contains(p->protect, canon) ||
		    strv_contains(p->unprotect, canon))
			continue;
		if (strv_length(p->protect) >= POLICY_MAX_ENTRIES)
			return -E2BIG;
		if ((r = strv_push_unique(&p->protect, canon)) < 0 || (r = policy_note_protect(p, canon)) < 0)
			return r;
	}
	return 0;
}

/*
 * Where git takes its hooks and configuration from for the workspace's repository (found
 * upward from the workspace, a linked worktree's common config included)
 * and from the user's and the system's config: a core.hooksPath
 * (`scripts/hooks`, husky's `.husky`) inside a writable root is where a
 * planted file runs on the host's next `git commit`. Each one below a
 * writable root is protected like .git/hooks. Read from the files, never
 * by running git.
 */
int policy_protect_hooks_paths(struct cordon_policy *p)
{
	struct git_paths g = {};
	const char *xdg = secure_getenv("XDG_CONFIG_HOME");
	int r;

	if (p->mode != CORDON_MODE_WORKSPACE_WRITE || !p->workspace)
		return 0;
	r = git_paths_read_repo(p->home, xdg, "/etc/gitconfig", p->workspace, &g);
	if (r < 0)
		return r;
	/* and a file the configuration includes (include.path, includeIf)
	 * that a run could write: it can set core.fsmonitor as well */
	STRV_FOREACH(f, g.config_files)
		if ((r = strv_push_unique(&g.hooks_paths, *f)) < 0)
			goto done;
	STRV_FOREACH(h, g.hooks_paths) {
		_cleanup_free_ char *canon = NULL;
		bool writable = false;

		if (cordon_canonicalize(*h, &canon, NULL) < 0)
			continue;
		STRV_FOREACH(root, p->writable_roots)
			writable |= strcmp(*root, "/tmp") != 0 && path_is_under(canon, *root);
		if (!writable || strv_contains(p->protect, canon) || strv_contains(p->unprotect, canon))
			continue;
		if (strv_length(p->protect) >= POLICY_MAX_ENTRIES) {
			r = -E2BIG;
			break;
		}
		if ((r = strv_push_unique(&p->protect, canon)) < 0 || (r = policy_note_protect(p, canon)) < 0)
			break;
	}
done:
	git_paths_clear(&g);
	return r < 0 ? r : 0;
}

/*
 * A writable root inside a HOME dot-entry (~/.npm, ~/.cargo, ~/.cache/pip)
 * is a tool's cache: it holds third-party trees (a cargo git checkout has
 * a .git), and nobody opens a folder or enters a directory there, so the
 * write gate applies no rule by name inside it (native.c passes it as
 * --unprotect; `why` and `profile show --effective` say the same).
 */
bool policy_home_cache_root(const char *home, const char *root)
{
	size_t hl = home ? strlen(home) : 0;

	return hl > 1 && strncmp(root, home, hl) == 0 && root[hl] == '/' && root[hl + 1] == '.';
}
