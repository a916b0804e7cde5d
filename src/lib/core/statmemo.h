/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * One look per path while one launch's policy is built: between
 * statmemo_open and statmemo_close on a thread, the answer of an lstat, a
 * stat or a readlink of a path is kept and given again, so the walks that
 * canonicalise, protect and deny the same prefixes (/etc, $HOME, the
 * workspace, PATH's directories) ask the kernel once each. Outside an open
 * memo each call asks the kernel. The build creates nothing on the way, so
 * a kept answer is as true as a second look in the same build; nothing is
 * kept past statmemo_close (never on disk, never between launches).
 */

/* Open this thread's memo: true when this call opened it (and must close
 * it), false when one was open already or there is no memory for one (the
 * calls then ask the kernel each time). */
bool statmemo_open(void);
void statmemo_close(bool opened);

/* lstat(2) and stat(2): 0 or -errno. */
int statmemo_lstat(const char *path, struct stat *st);
int statmemo_stat(const char *path, struct stat *st);

/* readlink(2) into buf (size > 1), NUL-terminated: the target's length or
 * -errno; -ENAMETOOLONG when it does not fit. */
ssize_t statmemo_readlink(const char *path, char *buf, size_t size);
