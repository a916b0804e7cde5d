/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strarena.h"

/* Many strings across block boundaries: each copy is intact, distinct
 * and NUL-terminated, and none overlaps the one before. */
Test(strarena, copies_survive_across_blocks)
{
	struct strarena a = {};
	char *v[3000];
	char want[64];

	for (int i = 0; i < 3000; i++) {
		snprintf(want, sizeof(want), "/home/u/.config/entry-%d", i);
		v[i] = strarena_dup(&a, want);
		cr_assert_not_null(v[i]);
		cr_assert(v[i] != want);
	}
	for (int i = 0; i < 3000; i++) {
		snprintf(want, sizeof(want), "/home/u/.config/entry-%d", i);
		cr_assert_str_eq(v[i], want);
	}
	strarena_free(&a);
	cr_assert_null(a.blocks);
}

/* A string longer than a block gets one of its own; the strings around it
 * keep filling the current block. */
Test(strarena, long_strings_and_ndup)
{
	struct strarena a = {};
	size_t big = 20000;
	char *s = malloc(big + 1), *before, *copy, *after, *part;

	cr_assert_not_null(s);
	memset(s, 'x', big);
	s[big] = '\0';
	before = strarena_dup(&a, "before");
	copy = strarena_dup(&a, s);
	after = strarena_dup(&a, "after");
	part = strarena_ndup(&a, "/run/user/1000", 9);
	cr_assert_not_null(copy);
	cr_assert_eq(strlen(copy), big);
	cr_assert_eq(memcmp(copy, s, big), 0);
	cr_assert_str_eq(before, "before");
	cr_assert_str_eq(after, "after");
	cr_assert_str_eq(part, "/run/user");
	/* "after" went into the block "before" is in, not behind the big one */
	cr_assert(after > before && (uintptr_t)(after - before) < 8192);
	cr_assert_str_eq(strarena_dup(&a, ""), "");
	strarena_free(&a);
	strarena_free(&a); /* empty again: a second free is harmless */
	strarena_free(NULL);
	free(s);
}
