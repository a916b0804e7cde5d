/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Test(strv, builder_grows_and_finishes)
{
	struct strv_builder b = {};
	char buf[16];
	char **v;
	int r = 0;

	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "a%d", i);
		strvb_add(&b, buf);
	}
	strvb_add_many(&b, "x", "y", NULL);
	v = strvb_finish(&b, &r);
	cr_assert_not_null(v);
	cr_assert_eq(strv_length(v), 1002);
	cr_assert_str_eq(v[999], "a999");
	cr_assert_str_eq(v[1001], "y");
	cr_assert_null(v[1002]);
	cr_assert_null(b.v, "finish empties the builder");
	strv_free(v);
}

Test(strv, builder_empty_is_a_valid_vector)
{
	struct strv_builder b = {};
	int r = 0;
	char **v = strvb_finish(&b, &r);

	cr_assert_not_null(v);
	cr_assert_null(v[0]);
	strv_free(v);
}

Test(strv, builder_error_is_sticky)
{
	struct strv_builder b = { .error = -ENOMEM };
	int r = 0;

	strvb_add(&b, "x");
	cr_assert_null(b.v);
	cr_assert_null(strvb_finish(&b, &r));
	cr_assert_eq(r, -ENOMEM);
}

static int upper_first(const char *s, char **ret)
{
	if (s[0] == '!')
		return -EINVAL;
	*ret = strdup(s);
	if (!*ret)
		return -ENOMEM;
	(*ret)[0] = (char)toupper((unsigned char)(*ret)[0]);
	return 0;
}

Test(strv, map_each_element_or_the_first_failure)
{
	char *in[] = { "ab", "cd", NULL }, *bad[] = { "ok", "!no", "never", NULL };
	char **out = NULL;

	cr_assert_eq(strv_map(in, upper_first, &out), 0);
	cr_assert_eq(strv_length(out), 2);
	cr_assert_str_eq(out[0], "Ab");
	cr_assert_str_eq(out[1], "Cd");
	strv_free(out);
	out = NULL;
	cr_assert_eq(strv_map(bad, upper_first, &out), -EINVAL);
	cr_assert_null(out, "nothing written on failure");
	cr_assert_eq(strv_map(NULL, upper_first, &out), 0);
	cr_assert_null(out[0]);
	strv_free(out);
}
