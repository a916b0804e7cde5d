/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The string arena (strarena.h): bump allocation in blocks. A string
 * longer than a quarter block gets a block of its own, so a block's tail
 * is never wasted on one long path.
 */
#include <stdlib.h>
#include <string.h>

#include "strarena.h"

#define BLOCK_BYTES 8192u

struct strarena_block {
	struct strarena_block *next;
	size_t used, size;
	_Alignas(STRARENA_ALIGN) char data[];
};

static struct strarena_block *block_new(struct strarena *a, size_t size)
{
	struct strarena_block *b = malloc(sizeof(*b) + size);

	if (!b)
		return NULL;
	*b = (struct strarena_block){ .size = size };
	/* a block of its own goes behind the current one, which keeps its room */
	if (a->blocks && size != BLOCK_BYTES) {
		b->next = a->blocks->next;
		a->blocks->next = b;
	} else {
		b->next = a->blocks;
		a->blocks = b;
	}
	return b;
}

char *strarena_alloc(struct strarena *a, size_t n)
{
	struct strarena_block *b = a->blocks;
	size_t at = b ? (b->used + STRARENA_ALIGN - 1) & ~(size_t)(STRARENA_ALIGN - 1) : 0;

	if (n > BLOCK_BYTES / 4) {
		b = block_new(a, n);
		at = 0;
	} else if (!b || at > b->size || b->size - at < n) {
		b = block_new(a, BLOCK_BYTES);
		at = 0;
	}
	if (!b)
		return NULL;
	b->used = at + n;
	return b->data + at;
}

char *strarena_ndup(struct strarena *a, const char *s, size_t n)
{
	char *out = strarena_alloc(a, n + 1);

	if (!out)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

char *strarena_dup(struct strarena *a, const char *s)
{
	return strarena_ndup(a, s, strlen(s));
}

void strarena_free(struct strarena *a)
{
	if (!a)
		return;
	while (a->blocks) {
		struct strarena_block *next = a->blocks->next;

		free(a->blocks);
		a->blocks = next;
	}
}
