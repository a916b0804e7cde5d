/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A credential capture's output (capture_output.c): a line, or {"token",
 * "expires_at"} with RFC 3339 or epoch seconds; what is refused (nothing,
 * a second line, a control character, malformed JSON, more than the cap),
 * and that no refusal quotes the output.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_output.h"

static int parse(const char *text, char *buf, struct capture_value *v, char *why)
{
	size_t n = strlen(text);

	memcpy(buf, text, n + 1);
	struct cordon_error e = {};
	int r = capture_output_parse(buf, n, v, &e);

	snprintf(why, 200, "%.199s", e.message);
	return r;
}

#define VALUE(buf, v) ((int)(v).len), ((buf) + (v).off)

Test(capture_output, plain_line)
{
	char buf[256], why[200];
	struct capture_value v;

	cr_assert_eq(parse("  gho_16C7e42F292c6912E7710c838347Ae178B4a\n", buf, &v, why), 0, "%s", why);
	cr_expect_eq(v.len, 40);
	cr_expect(strncmp(buf + v.off, "gho_16C7e42F292c6912E7710c838347Ae178B4a", v.len) == 0);
	cr_expect_not(v.has_expiry);
}

Test(capture_output, json_token_and_expiry)
{
	char buf[256], why[200];
	struct capture_value v;

	cr_assert_eq(parse("{\"token\": \"ab\\/c\\u0044\", \"expires_at\": \"1970-01-02T00:00:00Z\", \"x\": null}", buf, &v,
			   why),
		     0, "%s", why);
	cr_expect(v.len == 5 && strncmp(buf + v.off, "ab/cD", 5) == 0, "%.*s", VALUE(buf, v));
	cr_expect(v.has_expiry);
	cr_expect_eq(v.expires_at, 86400);
	cr_assert_eq(parse("{\"expires_at\": 1796000000, \"token\": \"t\"}", buf, &v, why), 0, "%s", why);
	cr_expect_eq(v.expires_at, 1796000000);
	cr_assert_eq(parse("{\"token\": \"t\", \"expires_at\": \"1796000000\"}", buf, &v, why), 0, "%s", why);
	cr_expect_eq(v.expires_at, 1796000000);
	cr_assert_eq(parse("{\"token\": \"t\"}", buf, &v, why), 0, "%s", why);
	cr_expect_not(v.has_expiry);
}

Test(capture_output, rfc3339)
{
	int64_t t;

	cr_assert_eq(capture_parse_rfc3339("2026-12-07T02:00:00Z", 20, &t), 0);
	cr_expect_eq(t, 1796608800);
	cr_assert_eq(capture_parse_rfc3339("2026-12-07T03:00:00.123+01:00", 29, &t), 0);
	cr_expect_eq(t, 1796608800);
	cr_expect_eq(capture_parse_rfc3339("2026-13-07T02:00:00Z", 20, &t), -EINVAL);
	cr_expect_eq(capture_parse_rfc3339("2026-12-07T02:00:00", 19, &t), -EINVAL);
	cr_expect_eq(capture_parse_rfc3339("2026-12-07T02:00:00+0100", 24, &t), -EINVAL);
}

Test(capture_output, refused_without_quoting)
{
	static const char *const bad[] = {
		"", "   \n", "secret-one\nsecret-two", "secret\x01value", "secret value",
		"{\"token\": \"\"}", "{\"token\": \"secret\"", "{\"token\": 5}", "{\"tok\": \"secret\"}",
		"{\"token\": \"secret\", \"token\": \"secret2\"}", "{\"token\": \"secret\"} trailing",
		"{\"token\": \"secret\", \"expires_at\": \"tomorrow\"}", "{\"token\": \"sec\\u00e9ret\"}",
		"{\"token\": \"secret\", \"nested\": {\"a\": 1}}", "{\"token\": \"secret\\nsecret\"}",
	};
	char buf[256], why[200];
	struct capture_value v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		cr_expect_lt(parse(bad[i], buf, &v, why), 0, "accepted: %s", bad[i]);
		cr_expect_neq(why[0], '\0', "no reason for %s", bad[i]);
		cr_expect_null(strstr(why, "secret"), "the reason quotes the output: %s", why);
	}
}

Test(capture_output, caps)
{
	size_t n = CAPTURE_OUTPUT_MAX + 1;
	char *big = malloc(n + 1);
	struct cordon_error e;
	struct capture_value v;

	cr_assert_not_null(big);
	memset(big, 'a', n);
	big[n] = '\0';
	cr_expect_eq(capture_output_parse(big, n, &v, &e), -E2BIG);
	cr_expect_eq(capture_output_parse(big, CAPTURE_VALUE_MAX + 1, &v, &e), -E2BIG);
	cr_expect_eq(capture_output_parse(big, CAPTURE_VALUE_MAX, &v, &e), 0);
	free(big);
}
