/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A map from byte-string keys (copied) to pointers (not owned), for the
 * memos that must not cost a linear scan: open addressing, linear probing,
 * at most half full. Callers bound how many entries they add. */

struct hashmap_entry {
	char *key; /* NULL: empty slot; NUL-terminated copy of keylen bytes */
	size_t keylen;
	uint64_t hash;
	void *value;
};

struct hashmap {
	struct hashmap_entry *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

#define HASHMAP_INIT {}

/* Add key -> value; -EEXIST if key is there already (value untouched). */
int hashmap_put(struct hashmap *m, const void *key, size_t keylen, void *value);
/* The entry for key, or NULL. */
struct hashmap_entry *hashmap_find(const struct hashmap *m, const void *key, size_t keylen);
/* Value for a NUL-terminated key; NULL when absent (or stored as NULL). */
void *hashmap_get(const struct hashmap *m, const char *key);
/* Free the keys and the table; free_value (may be NULL) on every value. */
void hashmap_clear(struct hashmap *m, void (*free_value)(void *));

#define HASHMAP_FOREACH(e, m)                                                  \
	for (struct hashmap_entry *e = (m)->slots; e && e < (m)->slots + (m)->cap; e++) \
		if (e->key)
