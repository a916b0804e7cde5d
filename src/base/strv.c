/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_free(char **v)
{
	if (!v)
		return NULL;
	for (char **s = v; *s; s++)
		free(*s);
	free(v);
	return NULL;
}

size_t strv_length(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

bool strv_contains(char *const *v, const char *s)
{
	STRV_FOREACH(i, v)
		if (strcmp(*i, s) == 0)
			return true;
	return false;
}

int strv_consume(char ***v, char *s)
{
	size_t n = strv_length(*v);
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (n + 2) * sizeof(char *));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[n] = s;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

int strv_push(char ***v, const char *s)
{
	return strv_consume(v, strdup(s));
}

int strv_push_unique(char ***v, const char *s)
{
	if (strv_contains(*v, s))
		return 0;
	return strv_push(v, s);
}

int strv_extend_many(char ***v, ...)
{
	size_t n0 = strv_length(*v);
	va_list ap;
	int r = 0;

	va_start(ap, v);
	for (const char *s; (s = va_arg(ap, const char *));) {
		r = strv_push(v, s);
		if (r < 0)
			break;
	}
	va_end(ap);
	if (r < 0 && *v) {
		/* roll back to the original length */
		for (size_t i = n0; (*v)[i]; i++) {
			free((*v)[i]);
			(*v)[i] = NULL;
		}
	}
	return r;
}

int strv_extend_strv(char ***v, const char *const *other)
{
	for (size_t i = 0; other && other[i]; i++) {
		int r = strv_push(v, other[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One allocation for the vector: a runner's argv is some 350 strings, and
 * a push at a time (a length walk and a realloc each) made its copy
 * quadratic. */
char **strv_copy(const char *const *v)
{
	size_t n = strv_length((char *const *)v);
	char **c = calloc(n + 1, sizeof(char *));

	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(c[i] = strdup(v[i])))
			return strv_free(c);
	return c;
}

int strv_map(char *const *v, int (*f)(const char *s, char **ret), char ***ret)
{
	size_t n = strv_length(v);
	char **m = calloc(n + 1, sizeof(char *));

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int r = f(v[i], &m[i]);

		if (r < 0) {
			strv_free(m);
			return r;
		}
	}
	*ret = m;
	return 0;
}

void strvb_add(struct strv_builder *b, const char *s)
{
	char *c;

	if (b->error)
		return;
	if (b->n + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		char **nv = realloc(b->v, cap * sizeof(char *));

		if (!nv) {
			b->error = -ENOMEM;
			return;
		}
		b->v = nv;
		b->cap = cap;
	}
	c = strdup(s);
	if (!c) {
		b->error = -ENOMEM;
		return;
	}
	b->v[b->n++] = c;
	b->v[b->n] = NULL;
}

void strvb_add_many(struct strv_builder *b, ...)
{
	va_list ap;

	va_start(ap, b);
	for (const char *s; (s = va_arg(ap, const char *));)
		strvb_add(b, s);
	va_end(ap);
}

void strvb_add_strv(struct strv_builder *b, const char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		strvb_add(b, v[i]);
}

void strvb_done(struct strv_builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
	*b = (struct strv_builder){};
}

char **strvb_finish(struct strv_builder *b, int *ret_error)
{
	char **v;

	if (!b->error && !b->v) { /* nothing added: still a valid, empty vector */
		b->v = calloc(1, sizeof(char *));
		if (!b->v)
			b->error = -ENOMEM;
	}
	if (b->error) {
		*ret_error = b->error;
		strvb_done(b);
		return NULL;
	}
	v = b->v;
	*b = (struct strv_builder){};
	return v;
}
