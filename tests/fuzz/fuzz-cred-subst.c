/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's credential substituter (cred_subst.c) on a request head from
 * inside an intercepted tunnel, and its response scrubber (cred_scrub.c)
 * with a chunked decoder, on the same bytes read as a response. Checks: a
 * forwarded request holds the real value only in secret pieces and no
 * phantom or real value outside them; a refusal names a status and a
 * reason; the scrubbed stream never holds the real value, whatever the
 * split of the reads, and is the same for every split.
 */
#include <openssl/crypto.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cred_scrub.h"
#include "cred_subst.h"
#include "credtable.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REAL "gho_REALsecretVALUE0123456789abcdefghijk"
#define PHANTOM "ghp_PHANTOMaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static struct credtable table;
static struct credtable_cred cred;
static struct credtable_rule rule = { CREDTABLE_ALLOW, "GET", "/**", "" };
static struct subst_creds sc;

static void setup(void)
{
	static char *hosts[] = { "api.test", NULL }, *phantoms[] = { PHANTOM, NULL },
		    *others[] = { "ghp_OTHERbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL };

	CHECK(credtable_secure_init() == 0);
	cred = (struct credtable_cred){ .name = "gh", .hosts = hosts, .n_hosts = 1, .inject = CREDTABLE_INJECT_HEADER,
					.inject_name = "Authorization", .format = "Bearer {}", .shape_prefix = "ghp_",
					.shape_len = 36, .shape_alphabet = CREDTABLE_ALPHA_BASE62, .phantoms = phantoms,
					.n_phantoms = 1, .others = others, .n_others = 1,
					.policy = { .dflt = CREDTABLE_DENY, .rules = &rule, .n_rules = 1 },
					.tls_ca_pem = "", .tls_cert_pem = "" };
	CHECK(credtable_secret_set(&cred.value, REAL, strlen(REAL)) == 0);
	table = (struct credtable){ .creds = &cred, .n_creds = 1 };
	CHECK(subst_creds_init(&sc, &table) == 0);
}

struct sink {
	char *buf;
	size_t n, cap;
};

static int sink_add(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2 + 64;
		s->buf = realloc(s->buf, s->cap);
		CHECK(s->buf);
	}
	memcpy(s->buf + s->n, p, n);
	s->n += n;
	return 0;
}

static void scrub_all(const uint8_t *data, size_t size, size_t split, struct sink *out)
{
	struct scrub s;

	CHECK(scrub_init(&s, &sc) == 0);
	CHECK(scrub_feed(&s, (const char *)data, split, false, sink_add, out) == 0);
	CHECK(scrub_feed(&s, (const char *)data + split, size - split, true, sink_add, out) == 0);
	scrub_done(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	static struct http_head h;
	static struct subst_out out;
	const char *reason;
	int status, r;

	if (!init) {
		setup();
		init = true;
	}
	r = http_head_parse_origin((const char *)data, size, &h, &status, &reason);
	if (r == HTTP_HEAD_DONE) {
		r = subst_request(&sc, "api.test", 443, &h, &out);
		if (r == SUBST_ASK_APPROVAL || r == SUBST_ASK_VALUE) {
			/* held: only for a credential spent under an approve
			 * rule (the table has every value) */
			CHECK(r == SUBST_ASK_APPROVAL && out.cred && out.action == CREDTABLE_APPROVE);
		} else if (r == 0) {
			for (size_t i = 0; i < out.n; i++) {
				const struct subst_piece *q = &out.piece[i];

				CHECK(q->secret || (!memmem(q->p, q->n, REAL, strlen(REAL)) &&
						    !memmem(q->p, q->n, PHANTOM, strlen(PHANTOM))));
			}
		} else
			CHECK(out.status >= 400 && out.reason);
	}
	/* the same bytes as a response body: split at a point the input picks */
	{
		struct sink a = {}, b = {};
		size_t split = size ? data[0] % (size + 1) : 0;

		scrub_all(data, size, 0, &a);
		scrub_all(data, size, split, &b);
		CHECK(a.n == b.n && (a.n == 0 || memcmp(a.buf, b.buf, a.n) == 0));
		CHECK(!a.n || !memmem(a.buf, a.n, REAL, strlen(REAL)));
		free(a.buf);
		free(b.buf);
	}
	{
		struct dechunk d = {};
		struct sink c = {};
		size_t used = 0;

		r = dechunk_feed(&d, (const char *)data, size, &used, sink_add, &c);
		CHECK(r >= -1 && r <= 1 && used <= size && c.n <= size);
		free(c.buf);
	}
	return 0;
}
