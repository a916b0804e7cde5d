/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile loader's core: where a value stands (file, line, column, JSON
 * pointer), the errors that say so, did-you-mean for unknown names, the
 * small typed getters, and read_object(), the one loop over an object's
 * keys that every section reader goes through. jansson keeps no positions
 * for values, so they are found again by walking the (already validated)
 * text along the value's path (json_locate, as confined_json.c does).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "profile_loader.h"
#include "spell.h"
#include "strv.h"
#include "text.h"

const char *const builtin_group_names[_GROUP_MAX + 1] = {
	[GROUP_CREDENTIALS] = "credentials",
	[GROUP_PERSISTENCE] = "persistence",
	[GROUP_SYSTEM_WRITE] = "system_write",
	[_GROUP_MAX] = NULL,
};

/* ---- positions and pointers ---------------------------------------------- */

static const char *locate(const struct where *w)
{
	size_t steps[LOADER_MAX_STEPS];

	for (size_t i = 0; i < w->n; i++)
		steps[i] = w->steps[i].index;
	return json_locate(w->doc->text, w->doc->len, steps, w->n, w->at_key);
}

/* JSON pointer (RFC 6901) of w into buf. */
static void pointer_of(const struct where *w, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n && o + 1 < size; i++) {
		buf[o++] = '/';
		if (w->steps[i].key) {
			for (const char *k = w->steps[i].key; *k && o + 2 < size; k++) {
				if (*k == '~' || *k == '/') {
					buf[o++] = '~';
					buf[o++] = *k == '~' ? '0' : '1';
				} else
					buf[o++] = *k;
			}
		} else
			o += (size_t)snprintf(buf + o, size - o, "%zu", w->steps[i].index);
		if (o >= size)
			o = size - 1;
	}
	buf[o < size ? o : size - 1] = '\0';
}

/* ---- documents and raw lists --------------------------------------------- */

void doc_free(struct doc *d)
{
	if (!d)
		return;
	free(d->file);
	free(d->dir);
	free(d->identity);
	free(d->text);
	json_decref(d->root);
	free(d);
}

void raw_list_clear(struct raw_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].spelled);
	free(l->v);
	*l = (struct raw_list){};
}

void raw_run_clear(struct raw_run *run)
{
	raw_list_clear(&run->allow_vars);
	free(run->vars);
	*run = (struct raw_run){};
}

int raw_list_push(struct raw_list *list, const char *s, const struct where *w)
{
	struct raw_entry *nv = realloc(list->v, (list->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	list->v = nv;
	nv[list->n].spelled = strdup(s);
	if (!nv[list->n].spelled)
		return -ENOMEM;
	nv[list->n].where = *w;
	list->n++;
	return 0;
}

int loader_keep(struct loader *l, struct doc *d)
{
	struct doc **nd = realloc(l->docs, (l->n_docs + 1) * sizeof(*nd));

	if (!nd) {
		doc_free(d);
		return -ENOMEM;
	}
	l->docs = nd;
	nd[l->n_docs++] = d;
	return 0;
}

/* ---- errors ------------------------------------------------------------- */

static int failv(struct loader *l, int r, const struct where *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static int failv(struct loader *l, int r, const struct where *w, const char *fmt, va_list ap)
{
	struct cordon_error *e = l->reterr;
	char msg[sizeof(e->message)], pointer[sizeof(e->path)] = "";
	char out[sizeof(e->file) + sizeof(e->path) + sizeof(e->message) + 64];
	int line = 0, column = 0;

	if (!e)
		return r;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	memset(e, 0, sizeof(*e));
	if (w && w->doc) {
		json_position_of(w->doc->text, locate(w), &line, &column);
		pointer_of(w, pointer, sizeof(pointer));
		text_copy(e->file, sizeof(e->file), w->doc->file);
	}
	e->line = line;
	e->column = column;
	text_copy(e->path, sizeof(e->path), pointer);
	if (!w || !w->doc)
		text_copy(out, sizeof(out), msg);
	else if (pointer[0])
		snprintf(out, sizeof(out), "%s:%d:%d: at %s: %s", e->file, line, column, pointer, msg);
	else
		snprintf(out, sizeof(out), "%s:%d:%d: %s", e->file, line, column, msg);
	text_copy(e->message, sizeof(e->message), out);
	return r;
}

int loader_fail(struct loader *l, int r, const struct where *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = failv(l, r, w, fmt, ap);
	va_end(ap);
	return r;
}

/* An error about a whole file, before there is JSON to point into. */
int loader_fail_file(struct loader *l, int r, const char *file, int line, int column, const char *fmt, ...)
{
	struct cordon_error *e = l->reterr;
	char msg[sizeof(e->message)], out[sizeof(e->file) + sizeof(e->message) + 64];
	va_list ap;

	if (!e)
		return r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(e, 0, sizeof(*e));
	text_copy(e->file, sizeof(e->file), file);
	e->line = line;
	e->column = column;
	if (line > 0)
		snprintf(out, sizeof(out), "%s:%d:%d: %s", e->file, line, column, msg);
	else
		snprintf(out, sizeof(out), "%s: %s", e->file, msg);
	text_copy(e->message, sizeof(e->message), out);
	return r;
}

/* For a word that is none of names[0..n): the closest of them (edit
 * distance at most 2), or NULL; and all of them, comma-separated, in list. */
static const char *closest_name(const char *word, const char *const *names, size_t n, char *list, size_t listlen)
{
	const char *best = NULL;
	unsigned best_d = 3;
	size_t o = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		unsigned d = edit_distance(word, names[i], 2);

		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
		o += (size_t)snprintf(list + o, listlen - o, "%s%s", i ? ", " : "", names[i]);
		if (o >= listlen)
			o = listlen - 1;
	}
	return best;
}

const char *loader_closest(const char *word, const char *const *names)
{
	char list[512];
	size_t n = 0;

	while (names[n])
		n++;
	return closest_name(word, names, n, list, sizeof(list));
}

int loader_fail_unknown(struct loader *l, int r, const struct where *w, const char *what, const char *label,
			const char *word, const char *const *names, size_t n)
{
	char list[512];
	const char *best = closest_name(word, names, n, list, sizeof(list));

	if (best)
		return loader_fail(l, r, w, "%s \"%.100s\", did you mean \"%s\"?", what, word, best);
	return loader_fail(l, r, w, "%s \"%.100s\" (%s: %s)", what, word, label, list);
}

/* ---- origins and notes ------------------------------------------------------ */

void where_position(const struct where *w, int *ret_line, int *ret_column)
{
	int line = 0, column = 0;

	if (w->doc)
		json_position_of(w->doc->text, locate(w), &line, &column);
	*ret_line = line;
	*ret_column = column;
}

int where_origin(const struct where *w, struct profile_origin *ret)
{
	char pointer[256];

	if (!w->doc) {
		ret->file = strdup("(built-in)");
		ret->pointer = strdup("");
	} else {
		pointer_of(w, pointer, sizeof(pointer));
		ret->file = strdup(w->doc->file);
		ret->pointer = strdup(pointer);
	}
	if (!ret->file || !ret->pointer) {
		profile_origin_clear(ret);
		return -ENOMEM;
	}
	return 0;
}

int profile_note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path, const struct where *w,
		     const char *fmt, ...)
{
	struct profile_note *nn = realloc(p->notes, (p->n_notes + 1) * sizeof(*nn));
	struct profile_note *n;
	va_list ap;
	int r;

	if (!nn)
		return -ENOMEM;
	p->notes = nn;
	n = &nn[p->n_notes];
	*n = (struct profile_note){ .kind = kind };
	va_start(ap, fmt);
	r = vasprintf(&n->text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	if (path) {
		n->path = strdup(path);
		if (!n->path) {
			free(n->text);
			return -ENOMEM;
		}
	}
	r = where_origin(w, &n->origin);
	if (r < 0) {
		free(n->text);
		free(n->path);
		return r;
	}
	p->n_notes++;
	return 0;
}
