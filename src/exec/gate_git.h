/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write gate's git repositories (gate_git.c): a repository's config
 * is code the host's git runs later, so it is never written as asked. When
 * a candidate (git's config.lock) is renamed onto a git directory's config
 * or config.worktree (gate_rules_git_config), init reads the candidate
 * through its own fd, parses it (git_config_parse.h), accepts only the
 * safe list (git_config_safe.h), and installs its own re-serialised copy
 * (O_TMPFILE, linkat, rename): no fd the sandbox holds reaches the file
 * installed. A refusal is EACCES, with a line on stderr naming the key.
 */

#include <stdbool.h>

struct gate_rules;

/* Install the candidate odir/oname as ndir/nname; the candidate's name is
 * removed (as a rename would). flags: renameat2's (RENAME_NOREPLACE
 * kept). shown: the target's path, for the refusal line. 0 or -errno. */
int gate_git_install(int odir, const char *oname, int ndir, const char *nname, unsigned flags, const char *shown);

/* Making name in dir (path: dir/name): when that makes dir a directory git
 * takes for a repository (the last of HEAD, objects, refs), whatever code
 * it already holds is settled first: a config or config.worktree is
 * re-installed validated (an fd held on it from before reaches nothing),
 * a hooks directory with anything in it or a gitdir refuses. A commondir
 * (which makes git read another directory's config) is never made outside
 * a .git. 0, or -EACCES. */
/* name is one gate_git_making looks at (HEAD, objects, refs, commondir). */
bool gate_git_marks(const char *name);
int gate_git_making(const struct gate_rules *g, int dir, const char *name, const char *path);
