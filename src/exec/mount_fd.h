/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The new mount API (open_tree, move_mount, mount_setattr: Linux 5.12) on
 * file descriptors, for the mount steps (mount.c): trees cloned from a
 * place resolved once with no symlink on the way, flags set on a detached
 * tree, trees moved onto an O_PATH fd. Each returns -errno on failure.
 */

#include <linux/types.h>
#include <stdbool.h>

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

struct mount_attr_v0 {
	__u64 attr_set;
	__u64 attr_clr;
	__u64 propagation;
	__u64 userns_fd;
};

/* mount_setattr(dfd, path, flags): set and clear MOUNT_ATTR_* flags. */
int mount_set_attr(int dfd, const char *path, unsigned flags, __u64 set, __u64 clr);
/* A detached copy of the mounts at the O_PATH fd at (recursive: and
 * below it), with attrs (MOUNT_ATTR_*) set on every one of them. */
int mount_clone_at(int at, bool recursive, __u64 attrs);
/* The same for path, resolved once with no symlink on the way (pathfd.h:
 * a directory swapped for one since the plan was made is -ELOOP, never
 * followed), nosuid,nodev (and noexec: plan_noexec); -ENOENT when there is
 * nothing there. */
int mount_clone_tree(const char *path, bool recursive, bool noexec);
/* Move the detached tree fd onto the place the O_PATH fd at names. */
int mount_attach_at(int fd, int at);
/* ... onto path, resolved now (on top of the mounts made so far) as
 * mount_clone_tree does. */
int mount_attach_tree(int fd, const char *path);
/* mkdir -p below a fresh tmpfs, one component at a time through the fd of
 * the one before (no symlink followed); the last component is a directory
 * or, for a file being bound back, an empty file. Returns its O_PATH fd. */
int mount_make_point(const char *path, bool dir);
/* A tree held since before the tmpfs went on (*fd, taken over), moved onto
 * path below it: the mount point made first, a directory or a file. */
int mount_attach_held(int *fd, const char *path, bool dir);
/* ... onto name in the directory dir (an O_PATH fd): a symlink there is
 * not followed (move_mount without MOVE_MOUNT_T_SYMLINKS). */
int mount_attach_name(int fd, int dir, const char *name);
