/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write gate's decisions (create_decide.c), for create_gate.c's
 * handlers: 0 (go on) or -errno (the answer, EACCES for a refusal, which
 * is also written as a denial on the status channel). dir is the O_PATH
 * parent gate_walk.c resolved, name the component in it.
 */

#include <stdbool.h>
#include <stddef.h>

#include "gate_walk.h"

/* On the parent's inode (create_set_add) and then by name (below). */
int create_decide(const struct cop *c, const struct resolved *r);
/* By name, on the path now: a write is refused at or below what the gate
 * protects or hides, a read only at or below a hidden path. holder: a
 * rename, which would carry a protection along. */
int create_decide_path(const struct cop *c, int dir, const char *name, bool write, bool holder);
/* create_decide_path for a write. */
int create_decide_names(const struct cop *c, int dir, const char *name, bool holder);
/* An fd's own file (a magic link, AT_EMPTY_PATH), written. */
int create_decide_fd(const struct cop *c, int fd);
/* The name's first component, made in dir: the last of HEAD, objects,
 * refs settles what dir holds first (gate_git.h). */
int create_decide_making(const struct cop *c, int dir, const char *name);
/* mkdir .git, or a rename onto a git directory's config: allowed where
 * only git's rule by name refuses it; path gets the path looked at. */
bool create_git_allows(const struct cop *c, int dir, const char *name, bool config, char *path, size_t size);
/* A removal (or a rename's old name) of what keeps a .git one. */
int create_decide_removal(const struct cop *c, int dir, const char *name);
/* A directory moved or removed with anything protected or hidden below. */
int create_decide_holds(const struct cop *c, int dir, const char *name);
