/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The rules by name of the native runner's write gate (src/exec/
 * gate_rules.h), pure, so `cordon why` and the runner say the same thing.
 * rel is a path below a writable root, without a leading '/'.
 */

#include <stdbool.h>
#include <stddef.h>

/* An entry of names (entries with a '/' are skipped; one ending in '*' is
 * a prefix) is a component of rel, not below a node_modules directory:
 * the matching name, or NULL. */
const char *protect_match_names(const char *const *names, const char *rel);

/* rel is a .git entry, or what makes git run code inside one (config,
 * config.worktree, commondir, gitdir, hooks, info; not below objects,
 * refs, logs): a reason, or NULL. */
const char *protect_match_git(const char *rel);
/* What a repository's .git needs to stay one (HEAD, objects, refs right
 * below a .git): never removed or moved away, or git's discovery passes
 * over the broken .git and takes its directory, which a sandbox can fill
 * freely, for a bare repository with a config of its choosing. */
const char *protect_match_git_keep(const char *rel);

/* rel is a git directory's config or config.worktree below a .git (its
 * own, a submodule's in modules/, a worktree's): what the write gate
 * installs only as its own validated copy, never writes as asked. */
bool protect_git_config_name(const char *rel);
/* rel's last component is .git. */
bool protect_git_entry_name(const char *rel);
/* name[0..len) is what makes git run code in a git directory (config,
 * config.worktree, commondir, gitdir, hooks, info). */
bool protect_git_code_name(const char *name, size_t len);

/* What the runner puts in the command's environment under --protect-git
 * (src/exec/env.c), and `profile show --effective` shows: git's own "no
 * templates", so git init and clone make no hooks/ (the gate refuses it). */
#define PROTECT_GIT_ENV "GIT_TEMPLATE_DIR="
