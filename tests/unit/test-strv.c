/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>

#include "strv.h"

Test(strv, push_and_contains)
{
	_cleanup_strv_free_ char **v = NULL;

	cr_assert_eq(strv_push(&v, "a"), 0);
	cr_assert_eq(strv_push_unique(&v, "a"), 0);
	cr_assert_eq(strv_extend_many(&v, "b", "c", NULL), 0);
	cr_assert_eq(strv_length(v), 3);
	cr_assert(strv_contains(v, "c"));
	cr_assert_not(strv_contains(v, "d"));
	cr_assert_null(v[3]);
}

Test(strv, copy_is_deep)
{
	const char *src[] = { "x", "y", NULL };
	_cleanup_strv_free_ char **c = strv_copy(src);

	cr_assert_not_null(c);
	cr_assert_neq((void *)c[0], (void *)src[0]);
	cr_assert_str_eq(c[1], "y");
	cr_assert_null(c[2]);
}
