/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "hashmap.h"

/* Keys are hashed with FNV-1a (fnv.h): they are paths and sonames; every
 * map is capped by its user, so a crafted set of colliding names costs at
 * most a quadratic scan of a bounded table, never unbounded work. */

static struct hashmap_entry *probe(struct hashmap_entry *slots, size_t cap, const void *key, size_t keylen,
				   uint64_t hash)
{
	size_t mask = cap - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct hashmap_entry *e = &slots[i];

		if (!e->key || (e->hash == hash && e->keylen == keylen && memcmp(e->key, key, keylen) == 0))
			return e;
	}
}

static int grow(struct hashmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	struct hashmap_entry *slots;

	if (cap < m->cap)
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct hashmap_entry *old = &m->slots[i];

		if (old->key)
			*probe(slots, cap, old->key, old->keylen, old->hash) = *old;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int hashmap_put(struct hashmap *m, const void *key, size_t keylen, void *value)
{
	uint64_t hash = fnv1a_bytes(key, keylen);
	struct hashmap_entry *e;
	char *copy;

	if (hashmap_find(m, key, keylen))
		return -EEXIST;
	if ((m->n + 1) * 2 > m->cap) {
		int r = grow(m);
		if (r < 0)
			return r;
	}
	copy = malloc(keylen + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, key, keylen);
	copy[keylen] = '\0';
	e = probe(m->slots, m->cap, key, keylen, hash);
	*e = (struct hashmap_entry){ .key = copy, .keylen = keylen, .hash = hash, .value = value };
	m->n++;
	return 0;
}

struct hashmap_entry *hashmap_find(const struct hashmap *m, const void *key, size_t keylen)
{
	struct hashmap_entry *e;

	if (m->cap == 0)
		return NULL;
	e = probe(m->slots, m->cap, key, keylen, fnv1a_bytes(key, keylen));
	return e->key ? e : NULL;
}

void *hashmap_get(const struct hashmap *m, const char *key)
{
	struct hashmap_entry *e = hashmap_find(m, key, strlen(key));

	return e ? e->value : NULL;
}

void hashmap_clear(struct hashmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		free(m->slots[i].key);
		if (free_value)
			free_value(m->slots[i].value);
	}
	free(m->slots);
	*m = (struct hashmap){};
}
