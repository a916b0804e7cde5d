/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "cleanup.h"

/* NULL-terminated string vectors. All functions return -errno on failure and
 * leave the vector valid (unchanged) when they fail. */

char **strv_free(char **v);
size_t strv_length(char *const *v);
bool strv_contains(char *const *v, const char *s);
/* Append a copy of s. */
int strv_push(char ***v, const char *s);
/* Append s, taking ownership (freed on failure). */
int strv_consume(char ***v, char *s);
/* Append several copies; the list ends with NULL. */
int strv_extend_many(char ***v, ...) __attribute__((sentinel));
int strv_extend_strv(char ***v, const char *const *other);
char **strv_copy(const char *const *v);
/* A new vector of f(each element of v) (NULL: an empty one); f writes its
 * own allocation to *ret. The first failure of f is returned. */
int strv_map(char *const *v, int (*f)(const char *s, char **ret), char ***ret);
/* Append a copy of s only if not already present. */
int strv_push_unique(char ***v, const char *s);

/* Building a vector in one go (a provider's argv): amortised growth, and
 * the first allocation failure is remembered, so callers add everything
 * and check once, in strvb_finish. */
struct strv_builder {
	char **v;
	size_t n, cap;
	int error;
};

void strvb_add(struct strv_builder *b, const char *s);
void strvb_add_many(struct strv_builder *b, ...) __attribute__((sentinel));
void strvb_add_strv(struct strv_builder *b, const char *const *v);
/* The NULL-terminated vector (the builder is emptied), or NULL with *ret_error. */
char **strvb_finish(struct strv_builder *b, int *ret_error);
void strvb_done(struct strv_builder *b);

static inline void strv_freep(char ***v)
{
	strv_free(*v);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

#define STRV_FOREACH(s, v) for (char *const *s = (v); s && *s; s++)
