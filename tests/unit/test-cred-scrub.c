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
