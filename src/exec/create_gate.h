/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write gate (full isolation, whenever anything below a writable root
 * is protected). A mount needs a name that exists, a placeholder made on
 * the host shows to the host and outlives a SIGKILL of cordon, and a
 * read-only bind on a file detaches when the host renames over it. So the
 * command's notification filter sends init every call that makes a name
 * (mkdir, mknod, open/openat with O_CREAT, creat, symlink, link, rename,
 * bind; and their *at forms), every open that writes or truncates,
 * truncate, and what removes a name (unlink, unlinkat, rmdir); with a
 * hidden file inside a writable root, every open. Init
 * resolves the path as the caller would (gate_walk.h: its dirfd or working
 * directory, symlinks followed where the kernel would, /proc/self as the
 * caller's) and refuses with EACCES:
 *   - a missing protected path's first missing component, by the parent's
 *     inode (create_set_add);
 *   - by name, on the path at the time of the call (gate_rules.h): the
 *     protected paths and names, git's code entries, hidden paths; links
 *     and renames on both names; a removal or the old name of a rename
 *     also when it is what keeps a .git one (HEAD, objects, refs), and a
 *     directory moved when anything protected or hidden lies below it.
 * Git's repositories are made, not refused (gate_git.h): an empty .git
 * directory may be made, a config renamed into a git directory is replaced
 * by init's own validated copy, and the last of HEAD, objects, refs that
 * makes a directory a repository first settles the code it holds.
 * Otherwise it performs the call itself on the parent it resolved, with
 * the caller's umask, answering with the result (an open's fd is installed
 * in the caller). Nothing the caller changes after the check is used.
 *
 * Init performs these calls as the command would: the same mounts, the
 * same Landlock ruleset (applied in init before the fork, so the command's
 * own domain nests inside it), no capability but CAP_SYS_PTRACE (to reach
 * a caller that made itself non-dumpable), and the private tmpfs dirs that
 * are not writable roots are read-only mounts.
 *
 * Limitations: a blocking open(O_CREAT) (or a write-open) of an existing
 * FIFO with no reader fails with ENXIO instead of waiting (init must not
 * block); opening a terminal through the gate never makes it the caller's
 * controlling terminal, and /dev/tty opens the caller's own controlling
 * terminal only when it is one of the sandbox's ptys; a Landlock domain a
 * sandboxed process adds for itself does not bind the calls init performs
 * for it (its own seccomp filters do: their EPERM comes before the
 * notification); linkat(fd, "", AT_EMPTY_PATH) fails as it would without
 * CAP_DAC_READ_SEARCH.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gate_rules.h"

struct seccomp_notif;

struct create_rule {
	dev_t dev;              /* the deepest existing ancestor A */
	ino_t ino;
	bool prefix;            /* name is a prefix ("/ws/.cordon*") */
	char name[256];         /* the component C that may not be made in A */
};

struct create_set {
	struct create_rule *v;
	size_t n, cap;
	struct gate_rules names;        /* the write gate: what no call may make, change or move (gate_rules.h) */
	char *last_dir;                 /* the directory create_set_add looked at last (the protected paths share
					 * one, the workspace): its identity is not asked again */
	dev_t last_dev;
	ino_t last_ino;
};

/* Record that name may not be made in the directory dir (an existing
 * path); prefix: no name starting with it. 0, or -errno (dir is no
 * directory: -ENOTDIR). */
int create_set_add(struct create_set *s, const char *dir, const char *name, bool prefix);
void create_set_done(struct create_set *s);

/* Whether the gate has anything to decide. */
bool create_set_active(const struct create_set *s);

/* A syscall number the creation gate answers. */
bool create_gate_nr(int nr);

/* Answer notification n (one of create_gate_nr's) on listener. */
void create_gate_handle(int listener, const struct create_set *s, const struct seccomp_notif *n);
