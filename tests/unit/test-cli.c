/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "strv.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char **argv, struct cli_args *a, char *err)
{
	return cli_parse(argc, argv, a, err, 512);
}

Test(cli, run_with_every_policy_flag)
{
	char *argv[] = { "cordon", "run", "--mode", "read-only", "--workspace=/w", "--net", "host",
			 "--backend", "bwrap", "--deny-read", "/a", "--deny-read", "/b", "--keep-env", "FOO_*",
			 "--setenv", "X=1=2", "--require", "landlock", "--timeout", "1.5", "--max-output", "64k",
			 "--json", "--", "sh", "-c", "echo $X" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(argv), argv, &a, err), 0, "%s", err);
	cr_assert_eq(a.sub, CLI_RUN);
	cr_assert_str_eq(a.mode, "read-only");
	cr_assert_str_eq(a.workspace, "/w");
	cr_assert(a.net_set && a.net == CORDON_NET_HOST);
	cr_assert(a.backend_set && a.backend == CORDON_BACKEND_BWRAP);
	cr_assert_eq(strv_length(a.deny_read), 2);
	cr_assert_str_eq(a.setenv[0], "X=1=2");
	cr_assert_eq(a.timeout_ms, 1500);
	cr_assert_eq(a.max_output, 65536);
	cr_assert(a.json);
	cr_assert_eq(strv_length(a.command), 3);
	cr_assert_str_eq(a.command[2], "echo $X");
	cli_args_done(&a);
}

Test(cli, command_without_double_dash)
{
	char *argv[] = { "cordon", "run", "ls", "--mode", "x" };
	struct cli_args a;
	char err[512];

	cr_assert_eq(parse(ARGC(argv), argv, &a, err), 0, "%s", err);
	/* flags after the command belong to the command */
	cr_assert_str_eq(a.command[1], "--mode");
	cli_args_done(&a);
}

struct bad_case {
	char *argv[8];
	int argc;
	const char *message;
};

Test(cli, errors_name_the_bad_flag_or_value)
{
	struct bad_case cases[] = {
		{ { "cordon", "run", "--mode", "rw", "--", "true" }, 6,
		  "--mode: unknown mode 'rw': valid modes are read-only, workspace-write, danger-full-access" },
		{ { "cordon", "run", "--net", "lan", "--", "true" }, 6,
		  "--net: unknown network setting 'lan': valid settings are none, host" },
		{ { "cordon", "run", "--timeout", "0", "--", "true" }, 6,
		  "--timeout: '0' is not a number of seconds greater than 0 (at most one week)" },
		{ { "cordon", "run", "--timeout", "-3", "--", "true" }, 6,
		  "--timeout: '-3' is not a number of seconds greater than 0 (at most one week)" },
		{ { "cordon", "run", "--max-output", "12Q", "--", "true" }, 6,
		  "--max-output: '12Q' is not a size between 1 and 1G (suffixes k, M, G)" },
		{ { "cordon", "run", "--bogus", "--", "true" }, 5,
		  "--bogus: unknown option for `cordon run`; try `cordon run --help`" },
		{ { "cordon", "run", "--mode" }, 3, "--mode needs a value" },
		{ { "cordon", "run", "--json=1", "--", "true" }, 5, "--json takes no value" },
		{ { "cordon", "run", "--setenv", "NOEQUALS", "--", "true" }, 6,
		  "--setenv: expected NAME=VALUE, got 'NOEQUALS'" },
		{ { "cordon", "run", "--backend", "docker", "--", "true" }, 6,
		  "--backend: unknown backend 'docker': valid backends are native, bwrap, seatbelt, unavailable" },
		{ { "cordon", "run" }, 2, "no command to run: put it after `--`, e.g. `cordon run -- ls`" },
		{ { "cordon", "probe", "--timeout", "1" }, 4,
		  "--timeout: unknown option for `cordon probe`; try `cordon probe --help`" },
		{ { "cordon", "classify", "--status", "1" }, 4, "--confined FILE is required" },
		{ { "cordon", "classify", "--confined", "f", "--status", "400" }, 6,
		  "--status: '400' is not an exit status (0-383)" },
		{ { "cordon", "frobnicate" }, 2, "unknown command 'frobnicate'; try `cordon --help`" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli_args a;
		char err[512] = "";

		cr_assert_eq(parse(cases[i].argc, cases[i].argv, &a, err), -EINVAL, "case %zu", i);
		cr_assert_str_eq(err, cases[i].message, "case %zu", i);
	}
}

Test(cli, sizes_and_seconds)
{
	uint64_t v;
	int ms;

	cr_assert_eq(cli_parse_size("1M", &v), 0);
	cr_assert_eq(v, 1048576);
	cr_assert_eq(cli_parse_size("2G", &v), 0);
	cr_assert_eq(v, 2ull << 30);
	cr_assert_eq(cli_parse_size("10k", &v), 0);
	cr_assert_eq(v, 10240);
	cr_assert_eq(cli_parse_size("1MiB", &v), 0);
	cr_assert_eq(cli_parse_size("0", &v), -EINVAL);
	cr_assert_eq(cli_parse_size("-1", &v), -EINVAL);
	cr_assert_eq(cli_parse_size("99999999999999999999", &v), -EINVAL);
	cr_assert_eq(cli_parse_size("5T", &v), -EINVAL);
	cr_assert_eq(cli_parse_seconds("0.001", &ms), 0);
	cr_assert_eq(ms, 1);
	cr_assert_eq(cli_parse_seconds("nan", &ms), -EINVAL);
	cr_assert_eq(cli_parse_seconds("1e9", &ms), -EINVAL);
	cr_assert_eq(cli_parse_seconds("3s", &ms), -EINVAL);
}

Test(cli, help_and_version)
{
	char *h[] = { "cordon", "run", "--help" };
	char *v[] = { "cordon", "--version" };
	struct cli_args a;
	char err[512];

	cr_assert_eq(parse(3, h, &a, err), 0);
	cr_assert(a.help);
	cr_assert(strstr(cli_usage(a.sub), "usage: cordon run"));
	cli_args_done(&a);
	cr_assert_eq(parse(2, v, &a, err), 0);
	cr_assert_eq(a.sub, CLI_VERSION);
}

Test(cli, utf8_sanitize_replaces_invalid_bytes)
{
	size_t n;
	char *s = utf8_sanitize("a\xff" "b\xc3\xa9\xed\xa0\x80", 8, &n);

	cr_assert_str_eq(s, "a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}
