/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Live tests skip when the kernel lacks a feature, unless the environment
 * says it must work (CI on a capable kernel): then a skip is a failure. */
static inline bool test_must_work(void)
{
	const char *v = getenv("CORDON_TEST_MUST_WORK");
	return v && strcmp(v, "1") == 0;
}

#define live_skip_unless(cond, ...)                                     \
	do {                                                            \
		if (!(cond)) {                                          \
			if (test_must_work())                           \
				cr_assert_fail(__VA_ARGS__);                  \
			else                                            \
				cr_skip_test(__VA_ARGS__);              \
		}                                                       \
	} while (0)
