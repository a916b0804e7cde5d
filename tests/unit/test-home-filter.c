/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The HOME allowlist's configuration filter (home_filter.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "home_filter.h"

static char *filter(const char *in, bool git)
{
	char *out = NULL;
	size_t n = 0;

	cr_assert_eq(home_filter(in, strlen(in), git, &out, &n), 0);
	cr_assert_eq(strlen(out), n);
	return out;
}

Test(home_filter, gitconfig_keeps_identity_drops_credentials)
{
	char *o = filter("[user]\n\tname = Alice\n\temail = a@example.org\n"
			 "[http \"https://git.example/\"]\n\textraHeader = Authorization: Bearer T1\n\tsslVerify = true\n"
			 "[url \"https://T2@github.com/\"]\n\tinsteadOf = https://github.com/\n"
			 "[url \"https://mirror.example/\"]\n\tinsteadOf = https://x:T3@github.com/\n"
			 "[include]\n\tpath = ~/.secret\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/.w\n"
			 "[credential]\n\thelper = store\n[credential \"https://h\"]\n\tusername = u\n"
			 "[alias]\n\tco = checkout\n# token = T4\n[core]\n\tpager = less \\\n\t-R\n",
			 true);

	cr_expect(strstr(o, "name = Alice") && strstr(o, "co = checkout") && strstr(o, "sslVerify = true"), "%s", o);
	cr_expect(strstr(o, "pager = less \\\n\t-R"), "a continued line is kept whole: %s", o);
	cr_expect(strstr(o, "email = a@example.org"), "an address is no URL: %s", o);
	cr_expect_null(strstr(o, "T1"), "%s", o);
	cr_expect_null(strstr(o, "T2"), "%s", o);
	cr_expect_null(strstr(o, "T3"), "%s", o);
	cr_expect_null(strstr(o, "T4"), "%s", o);
	cr_expect_null(strstr(o, "secret"), "%s", o);
	cr_expect_null(strstr(o, "~/.w"), "%s", o);
	cr_expect_null(strstr(o, "store"), "%s", o);
	cr_expect_null(strstr(o, "username"), "%s", o);
	free(o);
}

Test(home_filter, npmrc_cargo_go)
{
	char *o = filter("registry=https://registry.example/\n//registry.example/:_authToken=N1\n_auth=N2\n"
			 "@scope:registry=https://u:N3@r.example/\nstrict-ssl=true\n",
			 false);

	cr_expect(strstr(o, "registry=https://registry.example/") && strstr(o, "strict-ssl=true"), "%s", o);
	cr_expect_null(strstr(o, "N1"), "%s", o);
	cr_expect_null(strstr(o, "N2"), "%s", o);
	cr_expect_null(strstr(o, "N3"), "%s", o);
	free(o);
	o = filter("[source.crates-io]\nreplace-with = \"vendored\"\n[registry]\ntoken = \"C1\"\n"
		   "[registries.x]\nindex = \"https://x/\"\ncredential-provider = \"cargo:token\"\n",
		   false);
	cr_expect(strstr(o, "replace-with") && strstr(o, "index ="), "%s", o);
	cr_expect_null(strstr(o, "C1"), "%s", o);
	cr_expect_null(strstr(o, "credential-provider"), "%s", o);
	free(o);
	o = filter("GOPRIVATE=example.com\nGOPROXY=https://u:G1@proxy.example\nGOAUTH=git /x\n", false);
	cr_expect(strstr(o, "GOPRIVATE=example.com"), "%s", o);
	cr_expect_null(strstr(o, "G1"), "%s", o);
	cr_expect_null(strstr(o, "GOAUTH"), "%s", o);
	free(o);
}

Test(home_filter, fail_closed_and_capped)
{
	char *out = NULL;
	size_t n = 0;
	char *o = filter("[user] name = A\n[core]\n\tgarbage line here\n\tok = 1\n", true);

	cr_expect_null(strstr(o, "name = A"), "a header with a key after it goes: %s", o);
	cr_expect_null(strstr(o, "garbage"), "%s", o);
	free(o);
	cr_expect_eq(home_filter("x", HOME_FILTER_MAX + 1, false, &out, &n), -EFBIG);
	cr_expect(home_filter_is_git("/h/.gitconfig") && home_filter_is_git("/h/.config/git/config"));
	cr_expect(!home_filter_is_git("/h/.npmrc"));
}
