/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Resolve once, then act on the fd: a path is looked up a single time with
 * no symbolic link (nor /proc magic link) followed anywhere on the way,
 * and what is done to it (a mount, a removal) goes through the fd it gave.
 * A directory swapped for a symlink between a check and its use then
 * fails the lookup (-ELOOP) instead of sending the use elsewhere.
 */

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>

/* An O_PATH|O_CLOEXEC fd of path (relative to dirfd, or absolute), with
 * flags added (only O_DIRECTORY and O_NOFOLLOW mean anything with O_PATH:
 * O_NOFOLLOW gives the fd of a last component that is a symlink, rather
 * than -ELOOP). -ELOOP when a symlink lies on the way, -errno otherwise.
 * openat2(RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS); a kernel without
 * it (before 5.6) gets path_open_walk. */
int path_open_nofollow(int dirfd, const char *path, int flags);

/* The same, one component at a time with O_NOFOLLOW (openat2's stand-in;
 * exported for its tests). */
int path_open_walk(int dirfd, const char *path, int flags);

/* The next component of the path at *cursor (past any '/') into name,
 * *cursor moved past it: 1 (*last: none follows), 0 when there is none
 * left, -ENAMETOOLONG. */
int path_next_component(const char **cursor, char name[static NAME_MAX + 1], bool *last);

/* The parent of path, resolved as path_open_nofollow (O_DIRECTORY), and
 * path's last component in name. -EINVAL for "/", "", a last component
 * "." or "..", or one longer than NAME_MAX. */
int path_open_parent(const char *path, char name[static NAME_MAX + 1]);

/* Remove path: a directory with AT_REMOVEDIR in flags (it must be one,
 * and empty), else anything but a directory (a symlink itself, never what
 * it points at). The parent is resolved as path_open_parent, the entry
 * checked with fstatat(AT_SYMLINK_NOFOLLOW) on that fd and removed with
 * unlinkat on it: -ELOOP when a symlink lies on the way to the parent,
 * -ENOTDIR or -EISDIR when the entry is not what flags say. */
int path_remove(const char *path, int flags);
