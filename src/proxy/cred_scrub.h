/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * An intercepted response, cleaned: every real value an upstream echoes
 * (and the Basic form of a basic credential) becomes the phantom, in
 * headers and in the body, a value split across reads included; and a
 * chunked body decoded, so that a value split across chunks is caught too
 * (the proxy frames the body again, chunked). Pure, bounded.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cred_subst.h"

/* Up to this many distinct first bytes, the scanner looks for each with
 * memchr (vectorised) instead of testing every byte against a table. */
#define SCRUB_MEMCHR_MAX 4

typedef int (*scrub_emit_fn)(void *arg, const char *p, size_t n);

struct scrub_pat {
	const unsigned char *from;      /* secure memory: the table's */
	size_t from_n;
	const char *to;
	size_t to_n;
};

struct scrub {
	struct scrub_pat *pat;
	size_t n_pat;
	bool same_len;                  /* every replacement keeps the length */
	bool first[256];                /* a byte some value starts with */
	unsigned char start[SCRUB_MEMCHR_MAX]; /* those bytes, when so few that memchr finds them */
	size_t n_start;                 /* 0: too many, the table is walked */
	char *carry;                    /* a possible start of a value, held back */
	size_t carry_n, carry_cap;
};

int scrub_init(struct scrub *s, const struct subst_creds *sc);
void scrub_done(struct scrub *s);
/* Feed p[0..n); what is certainly not (part of) a value is emitted. final:
 * nothing follows, the held back part goes out too. -ENOMEM, or emit's
 * negative result. */
int scrub_feed(struct scrub *s, const char *p, size_t n, bool final, scrub_emit_fn emit, void *arg);

#define DECHUNK_LINE_MAX 4096
#define DECHUNK_TRAILERS_MAX 100

struct dechunk {
	int state;
	uint64_t left;
	size_t line;
	unsigned digits, trailers;
};

/* Feed the chunked body's next bytes; the chunks' data goes to emit.
 * *ret_used: bytes of p that were the body's. 1: done, 0: more, -1:
 * malformed (or emit failed). */
bool dechunk_done(const struct dechunk *d);
int dechunk_feed(struct dechunk *d, const char *p, size_t n, size_t *ret_used, scrub_emit_fn emit, void *arg);
