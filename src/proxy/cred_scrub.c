/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Scrubbing real values out of an intercepted response; decoding its
 * chunked body (cred_scrub.h). */
#include <errno.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "cred_scrub.h"
#include "hex.h"

#define REDACTED "cordon-redacted"

int scrub_init(struct scrub *s, const struct subst_creds *sc)
{
	const struct credtable *t = sc->t;

	*s = (struct scrub){ .same_len = true };
	s->pat = calloc(2 * t->n_creds + 1, sizeof(*s->pat));
	if (!s->pat)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_creds; i++) {
		const struct credtable_cred *c = &t->creds[i];
		const char *ph = c->n_phantoms ? c->phantoms[0] : REDACTED;

		if (c->value.p)
			s->pat[s->n_pat++] = (struct scrub_pat){ c->value.p, c->value.n, ph, strlen(ph) };
		if (sc->basic_real[i].p) {
			ph = sc->basic_phantom[i] ? sc->basic_phantom[i] : REDACTED;
			s->pat[s->n_pat++] = (struct scrub_pat){ sc->basic_real[i].p, sc->basic_real[i].n, ph, strlen(ph) };
		}
	}
	for (size_t i = 0; i < s->n_pat; i++) {
		if (s->pat[i].from_n != s->pat[i].to_n)
			s->same_len = false;
		if (s->pat[i].from_n && !s->first[s->pat[i].from[0]]) {
			s->first[s->pat[i].from[0]] = true;
			if (s->n_start < SCRUB_MEMCHR_MAX)
				s->start[s->n_start] = s->pat[i].from[0];
			s->n_start++;
		}
	}
	if (s->n_start > SCRUB_MEMCHR_MAX)
		s->n_start = 0;
	return 0;
}

void scrub_done(struct scrub *s)
{
	if (s->carry)
		OPENSSL_clear_free(s->carry, s->carry_cap);
	free(s->pat);
	*s = (struct scrub){};
}

/* The pattern that matches at b[0..n): 1 (whole, *ret), 2 (a prefix of it
 * is all there is), 0. */
static int match_at(const struct scrub *s, const char *b, size_t n, const struct scrub_pat **ret)
{
	int partial = 0;

	for (size_t i = 0; i < s->n_pat; i++) {
		const struct scrub_pat *q = &s->pat[i];

		if (q->from_n == 0 || (unsigned char)b[0] != q->from[0])
			continue;
		if (n >= q->from_n) {
			if (memcmp(b, q->from, q->from_n) == 0) {
				*ret = q;
				return 1;
			}
		} else if (memcmp(b, q->from, n) == 0)
			partial = 2;
	}
	return partial;
}

/* The first byte at or after i that some value starts with, or n. near[]
 * caches, per start byte, where memchr last found it (n: nowhere more). */
static size_t next_start(const struct scrub *s, const char *b, size_t n, size_t i, size_t *near)
{
	size_t best = n;

	if (!s->n_start) {
		while (i < n && !s->first[(unsigned char)b[i]])
			i++;
		return i;
	}
	for (size_t k = 0; k < s->n_start; k++) {
		if (near[k] < i) {
			const char *f = memchr(b + i, s->start[k], n - i);

			near[k] = f ? (size_t)(f - b) : n;
		}
		if (near[k] < best)
			best = near[k];
	}
	return best;
}

static int scan(struct scrub *s, const char *b, size_t n, bool final, size_t *ret_held, scrub_emit_fn emit, void *arg)
{
	size_t last = 0, i = 0, near[SCRUB_MEMCHR_MAX];
	int r;

	for (size_t k = 0; k < s->n_start; k++) {
		const char *f = n ? memchr(b, s->start[k], n) : NULL;

		near[k] = f ? (size_t)(f - b) : n;
	}
	while (i < n) {
		const struct scrub_pat *q = NULL;
		int m;

		/* most bytes start no value: skip them (memchr when the
		 * first bytes are few) */
		i = next_start(s, b, n, i, near);
		if (i == n)
			break;
		m = match_at(s, b + i, n - i, &q);

		if (m == 1) {
			if ((i > last && (r = emit(arg, b + last, i - last)) < 0) || (r = emit(arg, q->to, q->to_n)) < 0)
				return r;
			i += q->from_n;
			last = i;
		} else if (m == 2 && !final) {
			break;
		} else
			i++;
	}
	if (i > last && (r = emit(arg, b + last, i - last)) < 0)
		return r;
	*ret_held = i;
	return 0;
}

int scrub_feed(struct scrub *s, const char *p, size_t n, bool final, scrub_emit_fn emit, void *arg)
{
	size_t used = 0;
	int r;

	if (s->carry_n == 0) {
		r = scan(s, p, n, final, &used, emit, arg);
		if (r < 0)
			return r;
		p += used;
		n -= used;
	}
	/* what is held back, and what follows it */
	if (s->carry_n + n > s->carry_cap) {
		size_t cap = s->carry_n + n;
		char *c = OPENSSL_malloc(cap);

		if (!c)
			return -ENOMEM;
		if (s->carry_n)
			memcpy(c, s->carry, s->carry_n);
		if (s->carry)
			OPENSSL_clear_free(s->carry, s->carry_cap);
		s->carry = c;
		s->carry_cap = cap;
	}
	if (n)
		memcpy(s->carry + s->carry_n, p, n);
	s->carry_n += n;
	if (!s->carry_n)
		return 0;
	r = scan(s, s->carry, s->carry_n, final, &used, emit, arg);
	if (r < 0)
		return r;
	memmove(s->carry, s->carry + used, s->carry_n - used);
	OPENSSL_cleanse(s->carry + s->carry_n - used, used);
	s->carry_n -= used;
	return 0;
}

enum { D_SIZE, D_EXT, D_SIZE_LF, D_DATA, D_DATA_CR, D_DATA_LF, D_TRAILER, D_TRAILER_LF, D_DONE };

bool dechunk_done(const struct dechunk *d)
{
	return d->state == D_DONE;
}

int dechunk_feed(struct dechunk *d, const char *p, size_t n, size_t *ret_used, scrub_emit_fn emit, void *arg)
{
	size_t i = 0;

	while (i < n && d->state != D_DONE) {
		char ch = p[i];
		int v;

		switch (d->state) {
		case D_SIZE:
			v = hex_digit_value(ch);
			if (v >= 0) {
				if (++d->digits > 15)
					return -1;
				d->left = d->left * 16 + (uint64_t)v;
			} else if (d->digits && (ch == ';' || ch == ' ' || ch == '\t'))
				d->state = D_EXT;
			else if (d->digits && ch == '\r')
				d->state = D_SIZE_LF;
			else
				return -1;
			i++;
			break;
		case D_EXT:
			if (++d->line > DECHUNK_LINE_MAX || ch == '\n')
				return -1;
			if (ch == '\r')
				d->state = D_SIZE_LF;
			i++;
			break;
		case D_SIZE_LF:
			if (ch != '\n')
				return -1;
			i++;
			d->line = 0;
			d->digits = 0;
			d->state = d->left ? D_DATA : D_TRAILER;
			break;
		case D_DATA: {
			size_t take = n - i < d->left ? n - i : (size_t)d->left;

			if (emit(arg, p + i, take) < 0)
				return -1;
			i += take;
			d->left -= take;
			if (!d->left)
				d->state = D_DATA_CR;
			break;
		}
		case D_DATA_CR:
			if (ch != '\r')
				return -1;
			d->state = D_DATA_LF;
			i++;
			break;
		case D_DATA_LF:
			if (ch != '\n')
				return -1;
			d->state = D_SIZE;
			i++;
			break;
		case D_TRAILER:
			/* trailers are dropped: "\r\n" alone ends the body */
			if (ch == '\r') {
				d->state = D_TRAILER_LF;
			} else if (ch == '\n' || ++d->line > DECHUNK_LINE_MAX)
				return -1;
			i++;
			break;
		case D_TRAILER_LF:
			if (ch != '\n')
				return -1;
			i++;
			if (d->line == 0)
				d->state = D_DONE;
			else if (++d->trailers > DECHUNK_TRAILERS_MAX)
				return -1;
			else {
				d->line = 0;
				d->state = D_TRAILER;
			}
			break;
		}
	}
	*ret_used = i;
	return d->state == D_DONE;
}
