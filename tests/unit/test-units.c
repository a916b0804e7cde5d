/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one grammar for sizes and durations, public in cordon.h
 * (cordon_parse_size, cordon_parse_duration): what it accepts, what it
 * refuses, and where 64 bits end. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "cordon/cordon.h"

#define K (UINT64_C(1) << 10)
#define M (UINT64_C(1) << 20)
#define G (UINT64_C(1) << 30)
#define T (UINT64_C(1) << 40)
#define SEC CORDON_USEC_PER_SEC

struct ok_case {
	const char *s;
	uint64_t want;
};

struct bad_case {
	const char *s;
	int want; /* -EINVAL or -ERANGE */
};

Test(units, sizes_accepted)
{
	/* every spelling the CLI or a profile took before, and T/t in both */
	static const struct ok_case cases[] = {
		{ "0", 0 },           { "1", 1 },            { "4096", 4096 },       { "007", 7 },
		{ "10k", 10 * K },    { "10K", 10 * K },     { "10KB", 10 * K },     { "10KiB", 10 * K },
		{ "64m", 64 * M },    { "64M", 64 * M },     { "64MB", 64 * M },     { "64MiB", 64 * M },
		{ "2g", 2 * G },      { "2G", 2 * G },       { "2GiB", 2 * G },      { "1t", T },
		{ "1T", T },          { "1TiB", T },         { "16777215T", 16777215 * T },
		{ "18446744073709551615", UINT64_MAX },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		cr_expect_eq(cordon_parse_size(cases[i].s, &v), 0, "\"%s\" refused", cases[i].s);
		cr_expect_eq(v, cases[i].want, "\"%s\" -> %llu, not %llu", cases[i].s, (unsigned long long)v,
			     (unsigned long long)cases[i].want);
	}
}

Test(units, sizes_refused)
{
	static const struct bad_case cases[] = {
		{ "", -EINVAL },      { "k", -EINVAL },     { "M", -EINVAL },      { "-1", -EINVAL },
		{ "+1", -EINVAL },    { " 1", -EINVAL },    { "1 ", -EINVAL },     { "1 M", -EINVAL },
		{ "1.5M", -EINVAL },  { "0x10", -EINVAL },  { "1e3", -EINVAL },    { "1Q", -EINVAL },
		{ "1MX", -EINVAL },   { "1Mb", -EINVAL },   { "1MiBs", -EINVAL },  { "1iB", -EINVAL },
		{ "1B", -EINVAL },    { "1P", -EINVAL },    { "1kk", -EINVAL },    { "1Mi", -EINVAL },
		/* past 64 bits: the number itself, or once multiplied */
		{ "18446744073709551616", -ERANGE },        { "99999999999999999999", -ERANGE },
		{ "16777216T", -ERANGE },                   { "17179869184G", -ERANGE },
		{ "99999999999T", -ERANGE },
		/* an overlong number is still refused for a bad suffix first */
		{ "99999999999999999999Q", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		cr_expect_eq(cordon_parse_size(cases[i].s, &v), cases[i].want, "\"%s\"", cases[i].s);
		cr_expect_eq(v, 12345, "\"%s\" wrote the result on failure", cases[i].s);
	}
	cr_expect_eq(cordon_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
}

Test(units, durations_accepted)
{
	static const struct ok_case cases[] = {
		{ "0", 0 },
		{ "10", 10 * SEC },          /* a bare number is seconds */
		{ "10s", 10 * SEC },
		{ "10m", 600 * SEC },        /* minutes, as in a profile */
		{ "2h", 7200 * SEC },
		{ "500ms", 500000 },
		{ "1.5", 1500000 },          /* the CLI took fractions before */
		{ "0.25", 250000 },
		{ ".5", 500000 },
		{ "5.", 5 * SEC },
		{ "1.5m", 90 * SEC },
		{ "0.5h", 1800 * SEC },
		{ "1.5ms", 1500 },
		{ "0.001", 1000 },
		{ "0.0000001", 1 },          /* below a microsecond: rounds up, never zero */
		{ "0.0000000000000000000001", 1 },
		{ "1.0000000000000000000000", SEC },
		{ "0.1234567m", 7407402 },   /* 7407402 us exactly */
		{ "0.12345678m", 7407407 },  /* 7407406.8 us, rounded up */
		{ "18446744073709", 18446744073709 * SEC },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		cr_expect_eq(cordon_parse_duration(cases[i].s, &v), 0, "\"%s\" refused", cases[i].s);
		cr_expect_eq(v, cases[i].want, "\"%s\" -> %llu us, not %llu", cases[i].s, (unsigned long long)v,
			     (unsigned long long)cases[i].want);
	}
}

Test(units, durations_refused)
{
	static const struct bad_case cases[] = {
		{ "", -EINVAL },     { ".", -EINVAL },     { "s", -EINVAL },      { "ms", -EINVAL },
		{ "-1", -EINVAL },   { "+1", -EINVAL },    { " 1", -EINVAL },     { "1 ", -EINVAL },
		{ "1 s", -EINVAL },  { "1e3", -EINVAL },   { "0x10", -EINVAL },   { "nan", -EINVAL },
		{ "inf", -EINVAL },  { "1d", -EINVAL },    { "1us", -EINVAL },    { "1S", -EINVAL },
		{ "1M", -EINVAL },   { "1.2.3", -EINVAL }, { "1..2", -EINVAL },   { "1sm", -EINVAL },
		{ "1hs", -EINVAL },  { "1.5.", -EINVAL },  { ".s", -EINVAL },     { "1,5", -EINVAL },
		/* past 64 bits of microseconds */
		{ "18446744073710", -ERANGE },               /* seconds * 1e6 */
		{ "5124095577h", -ERANGE },                  /* hours * 3.6e9 */
		{ "18446744073709551616", -ERANGE },         /* the number itself */
		{ "18446744073709551615.9999995", -ERANGE },
		{ "18446744073709551616ms", -ERANGE },
		{ "18446744073709.999999", -ERANGE },        /* the fraction tips it over */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		cr_expect_eq(cordon_parse_duration(cases[i].s, &v), cases[i].want, "\"%s\"", cases[i].s);
		cr_expect_eq(v, 12345, "\"%s\" wrote the result on failure", cases[i].s);
	}
	cr_expect_eq(cordon_parse_duration(NULL, &(uint64_t){ 0 }), -EINVAL);
}

Test(units, durations_at_the_edge)
{
	uint64_t v;

	/* the largest whole microsecond count, in each unit that reaches it */
	cr_expect_eq(cordon_parse_duration("18446744073709551615ms", &v), -ERANGE);
	cr_expect_eq(cordon_parse_duration("5124095576h", &v), 0);
	cr_expect_eq(v, UINT64_C(5124095576) * 3600 * SEC);
	cr_expect_eq(cordon_parse_duration("18446744073709551ms", &v), 0);
	cr_expect_eq(v, UINT64_C(18446744073709551000));
	cr_expect_eq(cordon_parse_duration("18446744073709.551615", &v), 0);
	cr_expect_eq(v, UINT64_MAX);
	cr_expect_eq(cordon_parse_duration("18446744073709.5516151", &v), -ERANGE); /* rounds up past */
}
