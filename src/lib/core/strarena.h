/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Strings that live and die together (a policy's read-deny set, one
 * resolution of the credential catalogue, one launch's stat memo): copied
 * into blocks of a few KB,
 * one allocation per block instead of one per string, and freed all at
 * once. A string is never freed alone; dropping one leaves its bytes until
 * strarena_free. Not shared between threads.
 */
struct strarena_block;

/* What strarena_alloc's memory is aligned for (a struct of integers,
 * pointers and a struct stat: the stat memo keeps its entries there). */
#define STRARENA_ALIGN 8

struct strarena {
	struct strarena_block *blocks; /* newest first; NULL: empty */
};

/* n bytes inside a, aligned to STRARENA_ALIGN, uninitialised: NULL when
 * memory runs out. */
char *strarena_alloc(struct strarena *a, size_t n);

/* A copy of s (n bytes of it, then a NUL, for strarena_ndup) inside a:
 * NULL when memory runs out. */
char *strarena_dup(struct strarena *a, const char *s);
char *strarena_ndup(struct strarena *a, const char *s, size_t n);

/* Frees every string a holds; a is empty again (NULL is fine). */
void strarena_free(struct strarena *a);
