/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A directory's entries read with getdents64 straight from its fd: no DIR
 * stream, so none of the fstat and fcntl pair fdopendir adds per directory
 * (the launch lists a dozen).
 */

/* Called for each entry but "." and ".."; type is the DT_* the kernel
 * gave (DT_UNKNOWN possible). A nonzero return stops the listing and is
 * what dirlist_* returns. */
typedef int (*dirlist_fn)(const char *name, unsigned char type, void *data);

/* The entries of the directory open at fd (read from its current offset).
 * 0, fn's nonzero return, or -errno. */
int dirlist_fd(int fd, dirlist_fn fn, void *data);

/* The same for path, opened O_RDONLY|O_DIRECTORY|O_CLOEXEC|extra_flags
 * (O_NOFOLLOW, say) and closed: -errno when it cannot be opened. */
int dirlist_path(const char *path, int extra_flags, dirlist_fn fn, void *data);
