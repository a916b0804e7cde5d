/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A .tar.gz's bytes decompressed by the host's gzip run in a cordon sandbox
 * (pack_gunzip.c): no network, no writes, reads only the baseline and
 * gzip's own closure, limits on CPU, memory and processes, and the output
 * capped (the tree killed past it).
 */
#include <stddef.h>

#include "cordon/common.h"

/* fd: the archive, read from its current offset (gzip's stdin). 0 with
 * the decompressed bytes (NUL-terminated, *ret_len of them, at most cap);
 * else -errno with the reason: -EFBIG past the cap, -EBADMSG a corrupt,
 * truncated or trailing-garbage stream, -E2BIG another limit, any other
 * when the sandbox cannot be made or run (gzip is then not run). */
int pack_gunzip(int fd, size_t cap, char **ret, size_t *ret_len, struct cordon_error *reterr);
