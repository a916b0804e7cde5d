/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /etc/ld.so.cache, read the way glibc's loader reads it (elf/dl-cache.c,
 * sysdeps/generic/dl-cache.h): the new table ("glibc-ld.so.cache1.1", 48-byte
 * header, 24-byte entries, string offsets relative to that header) either
 * alone or placed, 8-byte aligned, after the old "ld.so-1.7.0" table
 * (16-byte header, 12-byte entries), or the old table alone (strings after
 * its entries). The cache is in the byte order of the machine that wrote
 * it; one of the other order is refused, as the loader ignores it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "hashmap.h"
#include "ldcache.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_HEADER 16 /* magic[11], padding, uint32 nlibs */
#define OLD_ENTRY 12  /* int32 flags, uint32 key, uint32 value */
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define NEW_HEADER 48 /* magic+version[20], nlibs, len_strings, flags, pad[3], ext, unused[3] */
#define NEW_ENTRY 24  /* int32 flags, uint32 key, value, osversion, uint64 hwcap */
#define NEW_FLAGS_OFFSET 28
#define ENDIAN_LITTLE 2
#define ENDIAN_BIG 3
/* More entries than any real system has (a few thousand). */
#define LDCACHE_MAX_ENTRIES 65536

struct soname_list {
	size_t n, cap;
	struct ldcache_entry *v;
};

struct ldcache {
	char *file; /* the cache's bytes; entries point into it */
	size_t size;
	size_t n_entries;
	struct hashmap by_soname; /* soname -> struct soname_list */
};

static void soname_list_free(void *p)
{
	struct soname_list *l = p;

	if (l)
		free(l->v);
	free(l);
}

struct ldcache *ldcache_free(struct ldcache *c)
{
	if (!c)
		return NULL;
	hashmap_clear(&c->by_soname, soname_list_free);
	free(c->file);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct ldcache *, ldcache_free);

static uint32_t u32_at(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The NUL-terminated string at offset off of the table at base, if it is
 * inside the file and at most LDCACHE_MAX_PATH long; else NULL. */
static const char *string_at(const struct ldcache *c, size_t base, uint32_t off)
{
	size_t avail;
	const char *s, *nul;

	if (off >= c->size - base)
		return NULL;
	s = c->file + base + off;
	avail = c->size - base - off;
	nul = memchr(s, '\0', avail < LDCACHE_MAX_PATH ? avail : LDCACHE_MAX_PATH);
	return nul ? s : NULL;
}

static int add_entry(struct ldcache *c, int32_t flags, const char *soname, const char *path, uint64_t hwcap)
{
	struct hashmap_entry *he = hashmap_find(&c->by_soname, soname, strlen(soname));
	struct soname_list *l;

	if (he) {
		l = he->value;
	} else {
		int r;

		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		r = hashmap_put(&c->by_soname, soname, strlen(soname), l);
		if (r < 0) {
			free(l);
			return r;
		}
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 2;
		struct ldcache_entry *v = reallocarray(l->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct ldcache_entry){ .flags = flags, .hwcap = hwcap, .path = path };
	c->n_entries++;
	return 0;
}

/* Entries whose strings are out of bounds or whose path is not absolute
 * are skipped, as the loader skips them (_dl_cache_verify_ptr). */
static int read_entries(struct ldcache *c, size_t table, size_t entsize, uint32_t n, size_t strings)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *e = c->file + table + (size_t)i * entsize;
		const char *soname = string_at(c, strings, u32_at(e + 4));
		const char *path = string_at(c, strings, u32_at(e + 8));
		int r;

		if (!soname || !path || path[0] != '/' || soname[0] == '\0')
			continue;
		r = add_entry(c, (int32_t)u32_at(e), soname, path, entsize == NEW_ENTRY ? u64_at(e + 16) : 0);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_count(const struct ldcache *c, size_t table, size_t entsize, uint32_t n, struct cordon_error *reterr)
{
	if (n > LDCACHE_MAX_ENTRIES)
		return error_set(reterr, -ENOEXEC, "ld.so cache with %u entries (at most %d)", n, LDCACHE_MAX_ENTRIES);
	if (table > c->size || (c->size - table) / entsize < n)
		return error_set(reterr, -ENOEXEC, "ld.so cache entry table runs past the end of the file");
	return 0;
}

static int parse_owned(char *file, size_t size, struct ldcache **ret, struct cordon_error *reterr)
{
	_cleanup_(ldcache_freep) struct ldcache *c = NULL;
	size_t new_at = 0;
	bool have_new = false;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		free(file);
		return -ENOMEM;
	}
	c->file = file;
	c->size = size;
	if (size > LDCACHE_MAX_SIZE)
		return error_set(reterr, -EFBIG, "ld.so cache larger than %u bytes", LDCACHE_MAX_SIZE);

	if (size >= NEW_HEADER && memcmp(file, NEW_MAGIC, strlen(NEW_MAGIC)) == 0) {
		have_new = true;
	} else if (size >= OLD_HEADER && memcmp(file, OLD_MAGIC, strlen(OLD_MAGIC)) == 0) {
		uint32_t n_old = u32_at(file + 12);
		size_t old_end;

		r = check_count(c, OLD_HEADER, OLD_ENTRY, n_old, reterr);
		if (r < 0)
			return r;
		old_end = OLD_HEADER + (size_t)n_old * OLD_ENTRY;
		new_at = (old_end + 7) & ~(size_t)7;
		if (new_at <= size && size - new_at >= NEW_HEADER &&
		    memcmp(file + new_at, NEW_MAGIC, strlen(NEW_MAGIC)) == 0) {
			have_new = true;
		} else {
			r = read_entries(c, OLD_HEADER, OLD_ENTRY, n_old, old_end);
			if (r < 0)
				return r;
			*ret = TAKE_PTR(c);
			return 0;
		}
	} else {
		return error_set(reterr, -ENOEXEC, "not an ld.so cache (unknown magic)");
	}

	if (have_new) {
		const char *h = file + new_at;
		uint8_t flags = (uint8_t)h[NEW_FLAGS_OFFSET];
		uint8_t host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ENDIAN_LITTLE : ENDIAN_BIG;
		uint32_t n = u32_at(h + 20);

		/* 0: written before the byte order was recorded */
		if (flags != 0 && (flags & 3) != host)
			return error_set(reterr, -ENOEXEC, "ld.so cache written for the other byte order (flags %u)",
					 flags);
		r = check_count(c, new_at + NEW_HEADER, NEW_ENTRY, n, reterr);
		if (r < 0)
			return r;
		r = read_entries(c, new_at + NEW_HEADER, NEW_ENTRY, n, new_at);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(c);
	return 0;
}

int ldcache_parse(const uint8_t *data, size_t size, struct ldcache **ret, struct cordon_error *reterr)
{
	char *copy;

	if (size > LDCACHE_MAX_SIZE)
		return error_set(reterr, -EFBIG, "ld.so cache larger than %u bytes", LDCACHE_MAX_SIZE);
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	if (size)
		memcpy(copy, data, size);
	return parse_owned(copy, size, ret, reterr);
}

int ldcache_load(const char *path, struct ldcache **ret, struct cordon_error *reterr)
{
	char *buf = NULL;
	size_t len = 0;
	int r = read_file_capped(path, LDCACHE_MAX_SIZE, true, &buf, &len);

	if (r == -EFBIG)
		return error_set(reterr, r, "'%s' is larger than %u bytes", path, LDCACHE_MAX_SIZE);
	if (r < 0)
		return error_set(reterr, r, "cannot read '%s': %s", path, strerror(-r));
	return parse_owned(buf, len, ret, reterr);
}

const struct ldcache_entry *ldcache_find(const struct ldcache *c, const char *soname, size_t *ret_n)
{
	const struct soname_list *l = hashmap_get(&c->by_soname, soname);

	*ret_n = l ? l->n : 0;
	return l ? l->v : NULL;
}

size_t ldcache_entries(const struct ldcache *c)
{
	return c->n_entries;
}
