/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proxy's response scrubber and chunked decoder (cred_scrub.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cred_scrub.h"
#include "cred_subst.h"
#include "credtable.h"

#define REAL "gho_REALsecretVALUE0123"
#define PHANTOM "ghp_PHANTOM_longer_than_the_real_one"

static struct credtable table;
static struct credtable_cred creds[2];
static struct subst_creds sc;

static void setup(void)
{
	static char *phantoms[] = { PHANTOM, NULL }, *bph[] = { "bPH", NULL };

	cr_assert_eq(credtable_secure_init(), 0);
	creds[0] = (struct credtable_cred){ .name = "gh", .inject = CREDTABLE_INJECT_HEADER, .phantoms = phantoms,
					    .n_phantoms = 1 };
	creds[1] = (struct credtable_cred){ .name = "git", .inject = CREDTABLE_INJECT_BASIC, .inject_name = "u",
					    .phantoms = bph, .n_phantoms = 1 };
	cr_assert_eq(credtable_secret_set(&creds[0].value, REAL, strlen(REAL)), 0);
	cr_assert_eq(credtable_secret_set(&creds[1].value, "bREAL", 5), 0);
	table = (struct credtable){ .creds = creds, .n_creds = 2 };
	cr_assert_eq(subst_creds_init(&sc, &table), 0);
}

struct sink {
	char buf[4096];
	size_t n;
};

static int add(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	cr_assert_leq(s->n + n, sizeof(s->buf));
	memcpy(s->buf + s->n, p, n);
	s->n += n;
	return 0;
}

TestSuite(cred_scrub, .init = setup);

Test(cred_scrub, a_value_split_at_every_point_is_replaced)
{
	const char *in = "a " REAL " b " REAL REAL " c gho_REALsecretVALUE012 end";
	const char *want = "a " PHANTOM " b " PHANTOM PHANTOM " c gho_REALsecretVALUE012 end";

	for (size_t cut1 = 0; cut1 <= strlen(in); cut1++)
		for (size_t cut2 = cut1; cut2 <= strlen(in); cut2 += 3) {
			struct scrub s;
			struct sink out = {};

			cr_assert_eq(scrub_init(&s, &sc), 0);
			cr_assert_eq(scrub_feed(&s, in, cut1, false, add, &out), 0);
			cr_assert_eq(scrub_feed(&s, in + cut1, cut2 - cut1, false, add, &out), 0);
			cr_assert_eq(scrub_feed(&s, in + cut2, strlen(in) - cut2, true, add, &out), 0);
			scrub_done(&s);
			cr_assert_eq(out.n, strlen(want), "cuts %zu %zu", cut1, cut2);
			cr_assert_eq(memcmp(out.buf, want, out.n), 0, "cuts %zu %zu: %.*s", cut1, cut2, (int)out.n, out.buf);
		}
	cr_assert_not(sc.basic_real[0].p, "a header credential has no Basic form");
}

Test(cred_scrub, the_basic_form_is_replaced_by_the_phantoms)
{
	struct scrub s;
	struct sink out = {};
	/* base64("u:bREAL") and base64("u:bPH") */
	const char *in = "Authorization: Basic dTpiUkVBTA==\n";

	cr_assert_str_eq((char *)sc.basic_real[1].p, "dTpiUkVBTA==");
	cr_assert_str_eq(sc.basic_phantom[1], "dTpiUEg=");
	cr_assert_eq(scrub_init(&s, &sc), 0);
	cr_assert_not(s.same_len);
	cr_assert_eq(scrub_feed(&s, in, strlen(in), true, add, &out), 0);
	scrub_done(&s);
	cr_assert_eq(out.n, strlen("Authorization: Basic dTpiUEg=\n"));
	cr_assert_eq(memcmp(out.buf, "Authorization: Basic dTpiUEg=\n", out.n), 0);
}

Test(cred_scrub, chunks_decoded_and_malformed_framing_refused)
{
	const char *ok = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
	struct dechunk d = {};
	struct sink out = {};
	size_t used = 0;

	for (size_t i = 0; i < strlen(ok); i++) {
		size_t u = 0;
		int r = dechunk_feed(&d, ok + i, 1, &u, add, &out);

		used += u;
		if (r == 1)
			break;
		cr_assert_eq(r, 0, "at %zu", i);
	}
	cr_assert(dechunk_done(&d));
	cr_assert_eq(used, strlen(ok) - 4, "what follows the body is not the body's");
	cr_assert_eq(out.n, 11);
	cr_assert_eq(memcmp(out.buf, "hello world", 11), 0);
	static const char *const bad[] = { "x\r\n", "5\r\nhelloX\r\n", "5\nhello\r\n", "ffffffffffffffff0\r\n",
					   "5\r\nhello\r\n0\r\nbad\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = (struct dechunk){};
		out.n = 0;
		cr_assert_eq(dechunk_feed(&d, bad[i], strlen(bad[i]), &used, add, &out), -1, "%s", bad[i]);
	}
}

/* The scanner's two ways of finding where a value may start (memchr for up
 * to SCRUB_MEMCHR_MAX first bytes, a table beyond) against a plain
 * left-to-right replacement, on texts made of values, their prefixes and
 * other bytes, fed in random pieces. */
static size_t reference(const struct scrub *s, const char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		const struct scrub_pat *hit = NULL;

		for (size_t k = 0; k < s->n_pat && !hit; k++)
			if (s->pat[k].from_n && s->pat[k].from_n <= n - i && !memcmp(in + i, s->pat[k].from, s->pat[k].from_n))
				hit = &s->pat[k];
		if (hit) {
			memcpy(out + o, hit->to, hit->to_n);
			o += hit->to_n;
			i += hit->from_n;
		} else
			out[o++] = in[i++];
	}
	return o;
}

Test(cred_scrub, memchr_and_table_scans_replace_as_a_plain_scan_does)
{
	static const char *const values[] = { "aVAL1", "bVALUE2", "cV3", "aVAX4", "eVALUE5xx", "fV6" };
	static char *ph[] = { "PH", NULL };
	struct credtable_cred cs[6];
	uint32_t seed = 12345;

	for (size_t n_creds = 2; n_creds <= 6; n_creds++) {
		struct credtable t;
		struct subst_creds scs;

		for (size_t i = 0; i < n_creds; i++) {
			cs[i] = (struct credtable_cred){ .name = "c", .inject = CREDTABLE_INJECT_HEADER, .phantoms = ph,
							 .n_phantoms = 1 };
			cr_assert_eq(credtable_secret_set(&cs[i].value, values[i], strlen(values[i])), 0);
		}
		t = (struct credtable){ .creds = cs, .n_creds = n_creds };
		cr_assert_eq(subst_creds_init(&scs, &t), 0);
		for (int round = 0; round < 300; round++) {
			char in[600], want[2000];
			struct sink out = {};
			struct scrub s;
			size_t n = 0, wn, at = 0;

			while (n < 400) {
				const char *v = values[(seed >> 8) % 6];
				size_t take = (seed >> 4) % 3 == 0 ? strlen(v) - 1 - (seed >> 12) % (strlen(v) - 1) : strlen(v);

				seed = seed * 1103515245 + 12345;
				if ((seed >> 16) % 4 == 0)
					in[n++] = "axyz\n"[(seed >> 20) % 5];
				else {
					memcpy(in + n, v, take);
					n += take;
				}
			}
			cr_assert_eq(scrub_init(&s, &scs), 0);
			/* first bytes a b c a e f: memchr up to five credentials */
			cr_assert_eq(s.n_start != 0, n_creds <= 5, "n_creds %zu: n_start %zu", n_creds,
				     s.n_start);
			wn = reference(&s, in, n, want);
			while (at < n) {
				size_t piece = 1 + (seed >> 16) % 40;

				seed = seed * 1103515245 + 12345;
				if (piece > n - at)
					piece = n - at;
				cr_assert_eq(scrub_feed(&s, in + at, piece, false, add, &out), 0);
				at += piece;
			}
			cr_assert_eq(scrub_feed(&s, "", 0, true, add, &out), 0);
			scrub_done(&s);
			cr_assert_eq(out.n, wn, "n_creds %zu round %d", n_creds, round);
			cr_assert_eq(memcmp(out.buf, want, wn), 0, "n_creds %zu round %d", n_creds, round);
		}
		subst_creds_done(&scs);
	}
}
