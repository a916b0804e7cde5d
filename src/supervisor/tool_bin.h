/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The controlled commands' binaries as they were at session start
 * (tool_bin.c): s->bins and s->hasher. */

#include <stddef.h>

#include "sup_internal.h"

/* Every controlled binary as it is now: opened once, its identity taken;
 * the hasher reads it from that fd while the session starts. Errors carry
 * one line in err. */
int tool_bins_record(struct supervisor *s, char *err, size_t n);
void tool_bins_free(struct supervisor *s);

/* The binary of command name, or NULL. */
const struct tool_bin *tool_bin_find(const struct supervisor *s, const char *name);
/* Is fd (opened on b->path) b's binary as it was at session start? 0, or
 * -ESTALE (or another -errno) with why. Waits for b's hash (bounded) when
 * its times moved since start. */
int tool_bin_check(struct supervisor *s, const struct tool_bin *b, int fd, char *why, size_t n);
