/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cordon/cordon.h"

/* The per-user persisted probe result (probe_cache.c). */

/* Where the cache lives: $XDG_CACHE_HOME/cordon/backend or ~/.cache/cordon/backend.
 * *ret malloc'd. -ENOENT when no base directory can be found. */
int probe_cache_path(char **ret);
/* Read and validate; -ESTALE (or another -errno) means "probe again". */
int probe_cache_load(const char *path, struct cordon_backend_info *ret);
/* Write atomically, mode 0600. */
int probe_cache_store(const char *path, const struct cordon_backend_info *info);

/* What cordon_backend_select returns for a pinned b, for one caller (a
 * launch's own backend): nothing process-wide is pinned, nothing probed. */
int probe_backend_info(enum cordon_backend b, struct cordon_backend_info *ret);

/* probe.c: why the first backend of the chain was passed over by the last
 * selection (""), for a refusal to name. */
void probe_fallback_reason(char *buf, size_t n);
