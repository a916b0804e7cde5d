/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's error carrier (core/error.c): error_set, and error_prefix,
 * the one way a caller puts its context before a callee's reason. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "error.h"

Test(error, set_fills_the_message_and_returns_r)
{
	struct cordon_error e;

	memset(&e, 'x', sizeof(e));
	cr_assert_eq(error_set(&e, -EINVAL, "a %s of %d", "rule", 3), -EINVAL);
	cr_assert_str_eq(e.message, "a rule of 3");
	cr_assert_str_eq(e.file, "");
	cr_assert_eq(e.line, 0);
	cr_assert_eq(error_set(NULL, -ENOENT, "nowhere"), -ENOENT);
}

Test(error, prefix_goes_before_the_callees_reason)
{
	struct cordon_error e = {};

	error_set(&e, -EBADMSG, "the key is not valid base64");
	cr_assert_eq(error_prefix(&e, -EKEYREJECTED, "line %u", 7), -EKEYREJECTED);
	cr_assert_str_eq(e.message, "line 7: the key is not valid base64");
	/* twice: the outer context first */
	error_prefix(&e, -EKEYREJECTED, "the trust file %s is refused", "/etc/t");
	cr_assert_str_eq(e.message, "the trust file /etc/t is refused: line 7: the key is not valid base64");
	cr_assert_eq(error_prefix(NULL, -EPERM, "x"), -EPERM);
}

Test(error, prefix_without_a_reason_is_the_prefix_alone)
{
	struct cordon_error e = {};

	error_prefix(&e, -EIO, "pack.json.sig");
	cr_assert_str_eq(e.message, "pack.json.sig");
}

Test(error, prefix_keeps_the_place_and_cuts_to_fit)
{
	struct cordon_error e = {};
	char big[600];

	error_set(&e, -EINVAL, "inner");
	strcpy(e.file, "profile.json");
	e.line = 4;
	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	error_prefix(&e, -EINVAL, "%s", big);
	cr_assert_eq(strlen(e.message), sizeof(e.message) - 1);
	cr_assert_str_eq(e.file, "profile.json");
	cr_assert_eq(e.line, 4);
	/* a long reason after a short prefix: cut, terminated */
	memset(e.message, 'r', sizeof(e.message) - 1);
	e.message[sizeof(e.message) - 1] = '\0';
	error_prefix(&e, -EINVAL, "at");
	cr_assert_eq(strncmp(e.message, "at: rrr", 7), 0);
	cr_assert_eq(strlen(e.message), sizeof(e.message) - 1);
}
