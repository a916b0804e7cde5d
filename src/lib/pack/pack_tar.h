/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A pack as a ustar archive (.tar), read from memory under caps: regular
 * files and directories only (a symlink, hard link, device, FIFO or any
 * extension header refused by name), relative paths of plain components
 * (no absolute path, "..", "." or empty one; a leading "./" is dropped), no
 * duplicate, no executable, each file and the whole capped. Pure: each
 * entry is handed to a callback; the fuzz target's is a no-op.
 */
#include <stdbool.h>
#include <stddef.h>

#include "cordon/common.h"

#define PACK_TAR_MAX_BYTES (16 * 1024 * 1024)

/* path: the entry's relative path; is_dir: a directory (data NULL). A
 * negative return stops the walk and is returned. */
typedef int (*pack_tar_entry_fn)(void *ctx, const char *path, bool is_dir, const char *data, size_t len);

/* 0, or -EBADMSG / -EPERM with the reason (the callback's -errno as is). */
int pack_tar_walk(const char *data, size_t len, pack_tar_entry_fn fn, void *ctx, struct cordon_error *reterr);
