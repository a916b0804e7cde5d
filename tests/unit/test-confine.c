/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "cleanup.h"
#include "policy.h"
#include "provider.h"
#include "strv.h"

Test(confine, danger_full_access_returns_argv_untouched)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const char *argv[] = { "rm", "-rf", "/x y", NULL };

	cr_assert_eq(cordon_policy_new(CORDON_MODE_DANGER_FULL_ACCESS, NULL, &p, NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, NULL), 0);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NONE);
	cr_assert_eq(strv_length(c->argv), 3);
	cr_assert_str_eq(c->argv[2], "/x y");
	cr_assert_null(c->denial_signatures[0]);
	cr_assert_null(c->fatal_signatures[0]);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* Whatever the front end (cordon serve, the supervisor): nothing enforced
 * means no proxy either, so the pair is refused, never run unconfined. */
Test(confine, danger_full_access_refuses_the_proxy)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_NATIVE };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "curl", "http://x.example/", NULL };

	cr_assert_eq(cordon_policy_new(CORDON_MODE_DANGER_FULL_ACCESS, NULL, &p, NULL), 0);
	cr_assert_eq(cordon_policy_set_net(p, CORDON_NET_PROXY), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), -EINVAL);
	cr_assert_null(c);
	cr_assert(strstr(e.message, "host's network"), "%s", e.message);
	/* the control: with the host's network stated, it runs as asked */
	cr_assert_eq(cordon_policy_set_net(p, CORDON_NET_HOST), 0);
	cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), 0);
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NONE);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

Test(confine, unavailable_refuses_every_confining_mode)
{
	const enum cordon_mode modes[] = { CORDON_MODE_READ_ONLY, CORDON_MODE_WORKSPACE_WRITE };
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_UNAVAILABLE };
	const char *argv[] = { "touch", "x", NULL };

	for (size_t i = 0; i < 2; i++) {
		struct cordon_policy *p = NULL;
		struct cordon_confined *c = NULL;
		struct cordon_error e = {};

		cr_assert_eq(cordon_policy_new(modes[i], "/tmp", &p, NULL), 0);
		cr_assert_eq(cordon_confine_with(&b, argv, p, &c, &e), CORDON_SANDBOX_UNAVAILABLE);
		cr_assert_null(c);
		cr_assert(strstr(e.message, "install bubblewrap"), "%s", e.message);
		cr_assert(strstr(e.message, "danger-full-access"), "%s", e.message);
		cordon_policy_free(p);
	}
}

Test(confine, empty_or_missing_argv_refused)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	const char *empty[] = { NULL };
	const char *blank[] = { "", NULL };

	cr_assert_eq(cordon_policy_new(CORDON_MODE_READ_ONLY, "/tmp", &p, NULL), 0);
	cr_assert_eq(cordon_confine_with(&b, empty, p, &c, NULL), -EINVAL);
	cr_assert_eq(cordon_confine_with(&b, blank, p, &c, NULL), -EINVAL);
	cr_assert_eq(cordon_confine_with(&b, NULL, p, &c, NULL), -EINVAL);
	cordon_policy_free(p);
}

Test(confine, merge_stderr_is_the_fixed_wrapper)
{
	const char *argv[] = { "echo", "hi", NULL };
	char **m = NULL;

	cr_assert_eq(cordon_merge_stderr(argv, &m), 0);
	cr_assert_eq(strv_length(m), 6);
	cr_assert_str_eq(m[0], "/bin/sh");
	cr_assert_str_eq(m[1], "-c");
	cr_assert_str_eq(m[2], "exec \"$@\" 2>&1");
	cr_assert_str_eq(m[3], "sh");
	cr_assert_str_eq(m[4], "echo");
	cr_assert_str_eq(m[5], "hi");
	cordon_strv_free(m);
}

Test(confine, names_round_trip)
{
	enum cordon_mode m;
	enum cordon_backend b;

	cr_assert_eq(cordon_mode_from_string("workspace-write", &m), 0);
	cr_assert_eq(m, CORDON_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cordon_mode_to_string(CORDON_MODE_DANGER_FULL_ACCESS), "danger-full-access");
	cr_assert_eq(cordon_backend_from_string("bwrap", &b), 0);
	cr_assert_eq(cordon_backend_from_string("Bwrap", &b), -EINVAL);
	cr_assert_str_eq(cordon_verdict_to_string(CORDON_VERDICT_RUNNER_FAILED), "runner_failed");
	cr_assert_str_eq(cordon_mode_to_string((enum cordon_mode)99), "invalid");
}

/* A fallback below the best backend is refused unless the caller accepts
 * its grade: never a silent degrade. An explicit choice (a pinned
 * backend, light isolation) and the best backend itself are not. */
Test(confine, a_partial_fallback_needs_the_callers_grade)
{
	struct cordon_backend_info fallback = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_PARTIAL,
						.path = "/usr/bin/bwrap", .lacks = CORDON_LACKS_RUNNER };
	struct cordon_backend_info pinned = fallback, best = { .backend = CORDON_BACKEND_NATIVE,
							      .grade = CORDON_GRADE_PARTIAL, .path = "/x/cordon" };
	const char *argv[] = { "true", NULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};

	pinned.pinned = true;
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, "/tmp", &p, NULL), 0);
	cr_assert_eq(cordon_confine_with(&fallback, argv, p, &c, &e), CORDON_SANDBOX_UNAVAILABLE);
	cr_assert_null(c);
	cr_expect(strstr(e.message, "the native backend is unusable here"), "%s", e.message);
	cr_expect(strstr(e.message, "no Landlock and no seccomp"), "%s", e.message);
	cr_expect(strstr(e.message, "cordon_policy_require_grade"), "%s", e.message);
	/* the explicit choices */
	cr_assert_eq(cordon_confine_with(&pinned, argv, p, &c, &e), 0, "%s", e.message);
	c = cordon_confined_free(c);
	cr_assert_eq(cordon_confine_with(&best, argv, p, &c, &e), 0, "%s", e.message);
	c = cordon_confined_free(c);
	/* the caller's grade */
	cr_assert_eq(cordon_policy_require_grade(p, CORDON_GRADE_PARTIAL), 0);
	cr_assert_eq(cordon_confine_with(&fallback, argv, p, &c, &e), 0, "%s", e.message);
	cr_expect_eq(c->grade, CORDON_GRADE_PARTIAL);
	c = cordon_confined_free(c);
	cr_assert_eq(cordon_policy_require_grade(p, CORDON_GRADE_FULL), 0);
	cr_assert_eq(cordon_confine_with(&fallback, argv, p, &c, &e), CORDON_SANDBOX_UNAVAILABLE);
	cr_assert_eq(cordon_policy_require_grade(p, (enum cordon_grade)7), -EINVAL);
	cordon_policy_free(p);
}
