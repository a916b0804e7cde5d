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

#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

/* TEXT written to PATH (made or truncated), or the test fails. */
static inline void test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

/* A fresh directory below base ("/var/tmp", never TMPDIR: the sandbox's
 * /tmp is its own), named prefix-XXXXXX, removed with all it holds when the
 * test's process exits (criterion runs each test in a process of its own),
 * so that runs after runs leave nothing behind: a /var/tmp with thousands
 * of leftovers makes the tool sandboxes' Landlock walk of it exceed its cap. */
static char *test_tmpdirs[16];

static inline int test_tmpdir_rm(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	(void)remove(path);
	return 0;
}

static inline void test_tmpdirs_remove(void)
{
	for (size_t i = 0; i < sizeof(test_tmpdirs) / sizeof(test_tmpdirs[0]) && test_tmpdirs[i]; i++) {
		(void)nftw(test_tmpdirs[i], test_tmpdir_rm, 16, FTW_DEPTH | FTW_PHYS);
		free(test_tmpdirs[i]);
		test_tmpdirs[i] = NULL;
	}
}

/* The caller owns the returned string (free it); the directory goes at exit. */
static inline char *test_tmpdir(const char *base, const char *prefix)
{
	size_t i, n = sizeof(test_tmpdirs) / sizeof(test_tmpdirs[0]);
	char *tmpl = NULL;

	for (i = 0; i < n && test_tmpdirs[i]; i++)
		;
	cr_assert(i < n, "test_tmpdir: more than %zu directories in one test", n);
	cr_assert(asprintf(&tmpl, "%s/%s-XXXXXX", base, prefix) > 0);
	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp %s", tmpl);
	if (i == 0)
		atexit(test_tmpdirs_remove);
	test_tmpdirs[i] = strdup(tmpl);
	cr_assert_not_null(test_tmpdirs[i]);
	return tmpl;
}
