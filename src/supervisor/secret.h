/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A key kept in memory of its own: locked against swap where the limits
 * allow it (RLIMIT_MEMLOCK; best effort), left out of core dumps, wiped in
 * a forked child, and zeroed before it is unmapped.
 */

#include <stddef.h>

struct secret {
	void *bytes; /* len bytes, then a NUL */
	size_t len;
	size_t mapped;
};

/* A copy of bytes[0..len) in a fresh mapping. -ENOMEM, or -EINVAL if len is 0. */
int secret_new(const void *bytes, size_t len, struct secret **ret);
/* Zeroes, unlocks and unmaps. NULL is fine; returns NULL. */
struct secret *secret_free(struct secret *s);
