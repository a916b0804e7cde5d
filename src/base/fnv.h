/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 64 bits: a fast, non-cryptographic hash of short keys (paths,
 * sonames) for tables whose size their users cap, and for names. Never
 * for anything an attacker's collisions could make costly without a cap,
 * nor where a hash must resist forgery (crypto.c's SHA-256 is for that). */
static inline uint64_t fnv1a_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The same over a NUL-terminated string (the NUL not included). */
static inline uint64_t fnv1a_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}
