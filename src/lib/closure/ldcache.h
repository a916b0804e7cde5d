/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* /etc/ld.so.cache as glibc's loader reads it: the "glibc-ld.so.cache1.1"
 * format, alone or after the old "ld.so-1.7.0" table, or the old table
 * alone. Parsed once into a map soname -> entries; the file is untrusted
 * input (a fuzz target feeds it arbitrary bytes). */

#define LDCACHE_PATH "/etc/ld.so.cache"
/* Real caches are tens of KiB; anything past this is refused. */
#define LDCACHE_MAX_SIZE (16u << 20)
/* Longest library path accepted from an entry, NUL included. */
#define LDCACHE_MAX_PATH 4096

/* Entry flags (glibc's ldconfig.h): the low byte is the library type, the
 * next the ABI; the loader takes only entries whose flags equal its own
 * (x86_64: FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 = 0x0303). */
#define LDCACHE_FLAG_ELF 0x0001
#define LDCACHE_FLAG_ELF_LIBC6 0x0003
#define LDCACHE_FLAG_X8664_LIB64 0x0300
#define LDCACHE_FLAG_X8664_LIBX32 0x0800
#define LDCACHE_FLAG_AARCH64_LIB64 0x0a00

struct ldcache;

/* Parse size bytes at data (copied what is kept). -ENOEXEC with the reason
 * for a file that is not a cache, is of the other byte order, or breaks a
 * bound; -EFBIG past LDCACHE_MAX_SIZE. */
int ldcache_parse(const uint8_t *data, size_t size, struct ldcache **ret, struct cordon_error *reterr);
/* Read and parse path (one open, one read). */
int ldcache_load(const char *path, struct ldcache **ret, struct cordon_error *reterr);
struct ldcache *ldcache_free(struct ldcache *c);

struct ldcache_entry {
	int32_t flags;
	uint64_t hwcap;   /* glibc-hwcaps subdirectory or legacy hwcap bits; 0 for the plain entry */
	const char *path; /* absolute */
};

/* The entries for soname in the cache's order (*ret_n of them; several
 * when one soname has entries for other ABIs or glibc-hwcaps variants);
 * owned by c. NULL when there is none. */
const struct ldcache_entry *ldcache_find(const struct ldcache *c, const char *soname, size_t *ret_n);
/* How many entries were accepted. */
size_t ldcache_entries(const struct ldcache *c);
