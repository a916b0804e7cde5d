/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon profile validate`: every error of a profile in one pass. The
 * loader stops at the first error; here, after each, the member it points
 * at is taken out of a copy of the document and the copy read again, and
 * each error's position is found in the original text (json_pos.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "json_pos.h"

#define VALIDATE_MAX_STEPS 32

/* The next token of a JSON pointer at *p ("/a~1b" -> "a/b"), into buf. */
static bool next_token(const char **p, char *buf, size_t size)
{
	size_t n = 0;

	if (**p != '/')
		return false;
	for ((*p)++; **p && **p != '/'; (*p)++) {
		char c = **p;

		if (c == '~' && ((*p)[1] == '0' || (*p)[1] == '1'))
			c = *++(*p) == '0' ? '~' : '/';
		if (n + 1 >= size)
			return false;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return true;
}

/* Walk pointer in root: the steps json_locate takes (member indices in
 * document order, element indices), and the parents on the way. */
static size_t walk(json_t *root, const char *pointer, size_t *steps, json_t **parents, char keys[][256])
{
	json_t *v = root;
	size_t n = 0;

	while (*pointer && n < VALIDATE_MAX_STEPS) {
		if (!next_token(&pointer, keys[n], 256))
			break;
		if (json_is_object(v)) {
			const char *k;
			json_t *m;
			size_t i = 0;
			bool found = false;

			json_object_foreach(v, k, m) {
				if (strcmp(k, keys[n]) == 0) {
					found = true;
					break;
				}
				i++;
			}
			if (!found)
				break;
			parents[n] = v;
			steps[n++] = i;
			v = json_object_get(v, keys[n - 1]);
		} else if (json_is_array(v)) {
			char *end;
			unsigned long i = strtoul(keys[n], &end, 10);

			if (*end || i >= json_array_size(v))
				break;
			parents[n] = v;
			steps[n++] = i;
			v = json_array_get(v, i);
		} else
			break;
	}
	return n;
}

/* Take out what the error points at: its member, or for an array element
 * the member that holds the array. false: nothing to take out. */
static bool take_out(json_t *copy, const char *pointer)
{
	size_t steps[VALIDATE_MAX_STEPS];
	json_t *parents[VALIDATE_MAX_STEPS];
	char keys[VALIDATE_MAX_STEPS][256];
	size_t n = walk(copy, pointer, steps, parents, keys);

	while (n > 0 && !json_is_object(parents[n - 1]))
		n--;
	return n > 0 && json_object_del(parents[n - 1], keys[n - 1]) == 0;
}

/* e's position and message, moved to where e.path stands in the original. */
static void place(struct cordon_error *e, const char *data, size_t len, json_t *orig, const char *file)
{
	size_t steps[VALIDATE_MAX_STEPS];
	json_t *parents[VALIDATE_MAX_STEPS];
	char keys[VALIDATE_MAX_STEPS][256], prefix[sizeof(e->file) + 32], msg[sizeof(e->message)];
	const char *rest = e->message;
	size_t n = walk(orig, e->path, steps, parents, keys);
	int line, column;

	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", e->file, e->line, e->column);
	if (strncmp(rest, prefix, strlen(prefix)) == 0)
		rest += strlen(prefix);
	json_position_of(data, json_locate(data, len, steps, n, strstr(rest, "unknown key") != NULL), &line, &column);
	e->line = line;
	e->column = column;
	snprintf(msg, sizeof(msg), "%.200s:%d:%d: %.280s", file, line, column, rest);
	memcpy(e->message, msg, sizeof(msg));
}

CORDON_API int cordon_profile_validate_buffer(const char *data, size_t len, const char *file,
					      const struct cordon_profile_opts *opts, struct cordon_error *errs,
					      size_t max)
{
	_cleanup_(json_decrefp) json_t *orig = NULL, *copy = NULL;
	struct cordon_profile_handle *p = NULL;
	size_t n = 0;
	int r;

	if (!data || !file || !errs || max == 0)
		return -EINVAL;
	r = cordon_profile_load_buffer(data, len, file, opts, &p, &errs[0]);
	cordon_profile_free(p);
	if (r >= 0)
		return 0;
	n = 1;
	orig = json_loadb(data, len, JSON_REJECT_DUPLICATES, NULL);
	copy = orig ? json_deep_copy(orig) : NULL;
	/* not JSON, or not the file's own error (an extended file's): one */
	while (copy && n < max && errs[n - 1].path[0] && strcmp(errs[n - 1].file, file) == 0 &&
	       take_out(copy, errs[n - 1].path)) {
		_cleanup_free_ char *text = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
		struct cordon_error *e = &errs[n];
		bool again = false;

		if (!text)
			return -ENOMEM;
		r = cordon_profile_load_buffer(text, strlen(text), file, opts, &p, e);
		cordon_profile_free(p);
		p = NULL;
		if (r >= 0)
			break;
		for (size_t i = 0; i < n; i++)
			again |= strcmp(errs[i].path, e->path) == 0 && e->path[0];
		if (again)
			break; /* taking it out did not help: what is left is not ours to say */
		if (e->path[0] && strcmp(e->file, file) == 0)
			place(e, data, len, orig, file);
		n++;
	}
	return (int)n;
}
