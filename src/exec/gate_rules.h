/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write gate's rules (create_gate.h is the gate). Mounts protect what
 * exists at start, and a host rename detaches them: git's lock-file rename
 * on `git config`, an editor's atomic save, a `git init` or `mkdir .vscode`
 * on the host while a run goes on. So the gate also decides by name, on the
 * path a call resolves to at the time of the call:
 *
 *   - literal protections (--protect PATH, PATH may end in '*'): PATH and
 *     everything below it;
 *   - names (--protect-name NAME): an entry called NAME, and everything
 *     below it, at any depth below a writable root (except below a
 *     node_modules directory: a package manager's third-party trees);
 *   - git (--protect-git): in every directory called .git at any depth,
 *     the entries that make git run code or read it from elsewhere
 *     (config, config.worktree, commondir, gitdir, hooks, info, also in
 *     modules/ and worktrees/), and the .git entry itself (a gitdir: file
 *     could point git anywhere; an empty directory may be made:
 *     gate_rules_git_mkdir); never objects, refs or logs, which git
 *     writes in normal work. The same in a directory git takes for a
 *     repository by what it holds (HEAD, objects, refs: a bare one), and
 *     no commondir anywhere (it makes git read another directory's
 *     config).
 *
 *   - hidden paths (--deny-read inside a writable root: HOME as the
 *     workspace holds ~/.git-credentials): no call reads, writes, links or
 *     moves them, and when one is a file or does not exist yet (a store the
 *     host makes during the run) every open is decided, reads too.
 *
 * A path is taken relative to the longest writable root holding it; a
 * longer root below a protection carves it out (a cache the profile
 * names below a protected HOME dot-entry), and so does --unprotect.
 *
 * No scan of the tree is made at start: the check runs per call, on the
 * path, so its cost does not grow with the depth or size of the tree, and
 * entries made after start (by the host or the run) are covered alike.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct plan;

struct gate_root {
	char *path;             /* as given (--write) */
	size_t len;
	dev_t dev;              /* at start: found again by inode if the host renames it */
	ino_t ino;
};

struct gate_path {
	size_t root;            /* index into roots */
	char *rel;              /* below it, no leading '/'; "" is the root itself */
	bool prefix;            /* the last component is a prefix ("…/.cordon*") */
};

struct gate_rules {
	struct gate_root *roots;
	size_t n_roots;
	const char *const *names;       /* NULL-terminated, or NULL */
	bool git;
	struct gate_path *lits, *carve, *hides;
	size_t n_lits, n_carve, n_hides;
	bool read_gate;         /* a hidden file, or a missing hidden path, inside a writable root: every open is decided */
};

/* From the plan's writable roots, --protect, --protect-name, --protect-git
 * and --unprotect (roots that do not exist are skipped). absent (NULL: not
 * known) says, per plan step, that a protected path's first component below
 * its root was missing from the root's listing (protect.c's list_roots):
 * nothing there is a symlink to follow, so it is not looked at again. */
int gate_rules_init(struct gate_rules *g, const struct plan *p, bool (*ephemeral)(const struct plan *, const char *),
		    const bool *absent);
void gate_rules_done(struct gate_rules *g);
bool gate_rules_active(const struct gate_rules *g);

/* Pure: the rule that protects rel (below root), or NULL. holder: also
 * when rel holds a literal protection (a rename of its ancestor would
 * carry it away). */
const char *gate_rules_match(const struct gate_rules *g, size_t root, const char *rel, bool holder);

/* The root holding the absolute path (the longest by name; else by
 * inode, after a host rename): its index, and *rel the rest. -1: none. */
int gate_rules_root(const struct gate_rules *g, const char *path, const char **rel);

/* Is the absolute path at or below a --deny-read path inside a writable
 * root? (The mount standing in for it there detaches when the host
 * renames over it; the gate's decision by name does not.) */
bool gate_rules_hidden(const struct gate_rules *g, const char *path);

/* Both: the rule protecting the absolute path, or NULL. */
const char *gate_rules_check(const struct gate_rules *g, const char *path, bool holder);
/* May path be removed or moved away? As gate_rules_check (holder), and
 * never what keeps a .git a repository (protect_match_git_keep). */
const char *gate_rules_check_removal(const struct gate_rules *g, const char *path);

/* With --protect-git: is the absolute path a git directory's config or
 * config.worktree (below a .git, or in a directory holding HEAD, objects
 * and refs: a bare repository) that no rule but git's
 * protects? Then the gate installs a validated copy (gate_git.h) instead
 * of refusing the rename. */
bool gate_rules_git_config(const struct gate_rules *g, const char *path);
/* With --protect-git: may a directory .git be made at path (nothing but
 * the .git entry rule refuses it)? An empty directory runs nothing, and
 * what goes in it is decided by name. */
bool gate_rules_git_mkdir(const struct gate_rules *g, const char *path);
