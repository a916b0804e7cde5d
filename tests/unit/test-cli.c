/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
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
	cr_assert(a.mode_set && a.mode == CORDON_MODE_READ_ONLY);
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
	char *argv[12];
	int argc;
	const char *message;
};

Test(cli, errors_name_the_bad_flag_or_value)
{
	struct bad_case cases[] = {
		{ { "cordon", "run", "--mode", "rw", "--", "true" }, 6,
		  "--mode: unknown mode 'rw': valid modes are read-only, workspace-write, danger-full-access" },
		{ { "cordon", "run", "--net", "lan", "--", "true" }, 6,
		  "--net: unknown network setting 'lan': valid settings are none, host, proxy, allow" },
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
		/* did you mean: a misspelt command, flag or help topic */
		{ { "cordon", "rn", "--", "true" }, 4, "unknown command 'rn', did you mean 'run'? try `cordon --help`" },
		{ { "cordon", "--verison" }, 2,
		  "unknown command '--verison', did you mean '--version'? try `cordon --help`" },
		{ { "cordon", "run", "--prfile", "p", "--", "true" }, 6,
		  "--prfile: unknown option for `cordon run`, did you mean --profile? try `cordon run --help`" },
		{ { "cordon", "why", "--pth", "/x" }, 4,
		  "--pth: unknown option for `cordon why`, did you mean --path? try `cordon why --help`" },
		{ { "cordon", "help", "expain" }, 3,
		  "unknown command 'expain', did you mean 'explain'? try `cordon --help`" },
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
	/* one grammar with profiles (cordon_parse_duration): "3s" was refused here while a
	 * profile's "3s" was taken; now both mean 3 seconds */
	cr_assert_eq(cli_parse_seconds("3s", &ms), 0);
	cr_assert_eq(ms, 3000);
	cr_assert_eq(cli_parse_seconds("10m", &ms), 0);
	cr_assert_eq(ms, 600000);
	cr_assert_eq(cli_parse_seconds("3 s", &ms), -EINVAL);
	cr_assert_eq(cli_parse_cpu_seconds("1m", &v), 0);
	cr_assert_eq(v, 60);
	cr_assert_eq(cli_parse_cpu_seconds("1.5", &v), -EINVAL);
	cr_assert_eq(cli_parse_cpu_seconds("0", &v), -EINVAL);
	cr_assert_eq(cli_parse_cpu_seconds("169h", &v), -EINVAL);
	cr_assert_eq(cli_parse_size("1T", &v), 0);
	cr_assert_eq(v, 1ull << 40);
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

	/* `cordon help run` is `cordon run --help` */
	char *hr[] = { "cordon", "help", "run" };
	cr_assert_eq(parse(3, hr, &a, err), 0, "%s", err);
	cr_assert(a.help);
	cr_assert_eq(a.sub, CLI_RUN);
	cr_assert(strstr(cli_usage(a.sub), "usage: cordon run"));
	cli_args_done(&a);
}

Test(cli, utf8_sanitize_replaces_invalid_bytes)
{
	size_t n;
	char *s = utf8_sanitize("a\xff" "b\xc3\xa9\xed\xa0\x80", 8, &n);

	cr_assert_str_eq(s, "a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

Test(cli, profile_flag_and_limit_flags_remember_being_given)
{
	char *argv[] = { "cordon", "run", "--profile", "offline-build", "--on-output-limit", "truncate",
			 "--limits-fallback=warn", "--", "make" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(argv), argv, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.profile, "offline-build");
	cr_assert(a.output_action_set && !a.output_terminate);
	cr_assert(a.fallback_set && !a.limits.fallback_fail);
	cli_args_done(&a);
}

Test(cli, profile_actions_take_operands_around_flags)
{
	char *show[] = { "cordon", "profile", "show", "git", "--json", "--workspace", "/w" };
	char *validate[] = { "cordon", "profile", "validate", "a.json", "b.json", "--", "--c.json" };
	char *diff[] = { "cordon", "profile", "diff", "default", "read-only" };
	char *help[] = { "cordon", "profile", "--help" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(show), show, &a, err), 0, "%s", err);
	cr_assert_eq(a.sub, CLI_PROFILE);
	cr_assert_eq(a.action, CLI_PROFILE_SHOW);
	cr_assert(a.json);
	cr_assert_str_eq(a.workspace, "/w");
	cr_assert_eq(strv_length(a.operands), 1);
	cr_assert_str_eq(a.operands[0], "git");
	cr_assert_null(a.command);
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(validate), validate, &a, err), 0, "%s", err);
	cr_assert_eq(a.action, CLI_PROFILE_VALIDATE);
	cr_assert_eq(strv_length(a.operands), 3);
	cr_assert_str_eq(a.operands[2], "--c.json");
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(diff), diff, &a, err), 0, "%s", err);
	cr_assert_eq(a.action, CLI_PROFILE_DIFF);
	cr_assert_str_eq(a.operands[1], "read-only");
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(help), help, &a, err), 0, "%s", err);
	cr_assert(a.help);
	cr_assert(strstr(cli_usage(a.sub), "usage: cordon profile list"));
	cli_args_done(&a);
}

Test(cli, audit_actions)
{
	char *list[] = { "cordon", "audit", "list", "--json" };
	char *show[] = { "cordon", "audit", "show", "--json", "20261202T014731Z-1a2b3c4d" };
	char *verify[] = { "cordon", "audit", "verify", "/x/s.jsonl", "--head",
			   "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08" };
	char *help[] = { "cordon", "audit", "--help" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(list), list, &a, err), 0, "%s", err);
	cr_assert_eq(a.sub, CLI_AUDIT);
	cr_assert_eq(a.audit_action, CLI_AUDIT_LIST);
	cr_assert(a.json);
	cr_assert_null(a.operands);
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(show), show, &a, err), 0, "%s", err);
	cr_assert_eq(a.audit_action, CLI_AUDIT_SHOW);
	cr_assert_str_eq(a.operands[0], "20261202T014731Z-1a2b3c4d");
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(verify), verify, &a, err), 0, "%s", err);
	cr_assert_eq(a.audit_action, CLI_AUDIT_VERIFY);
	cr_assert_str_eq(a.operands[0], "/x/s.jsonl");
	cr_assert_str_eq(a.audit_head, verify[5]);
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(help), help, &a, err), 0, "%s", err);
	cr_assert(a.help);
	cr_assert(strstr(cli_usage(a.sub), "usage: cordon audit list"));
	cr_assert(strstr(cli_usage(a.sub), "0 intact, 1 tampered, 2 incomplete, 125 trouble"));
	cr_assert(strstr(cli_usage(a.sub), "--head HEX"));
	cr_assert(strstr(cli_usage(CLI_NONE), "  audit "));
	cli_args_done(&a);

	/* the actions are the completions' too */
	cr_assert_str_eq(cli_action_name(CLI_AUDIT, 2), "verify");
	cr_assert_null(cli_action_name(CLI_AUDIT, 3));
	cr_assert_str_eq(cli_action_name(CLI_PROFILE, 4), "diff");
	cr_assert_null(cli_action_name(CLI_RUN, 0));
}

Test(cli, audit_errors_name_the_problem)
{
	struct bad_case cases[] = {
		{ { "cordon", "audit" }, 2, "`cordon audit` needs an action: list, show or verify" },
		{ { "cordon", "audit", "tail" }, 3, "unknown audit action 'tail': valid actions are list, show, verify" },
		{ { "cordon", "audit", "show" }, 3, "`cordon audit show` takes one SESSION or FILE, got 0 arguments" },
		{ { "cordon", "audit", "verify", "a", "b" }, 5,
		  "`cordon audit verify` takes one SESSION or FILE, got 2 arguments" },
		{ { "cordon", "audit", "list", "x" }, 4, "unexpected argument 'x': `cordon audit list` takes none" },
		{ { "cordon", "audit", "show", "s", "--head", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" },
		  6, "--head: only for `cordon audit verify`" },
		{ { "cordon", "audit", "verify", "s", "--head", "abc" }, 6,
		  "--head: 'abc' is not a SHA-256 (64 hex digits)" },
		{ { "cordon", "audit", "verify", "s", "--profile", "git" }, 6,
		  "--profile: unknown option for `cordon audit`; try `cordon audit --help`" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli_args a;
		char err[512] = "";

		cr_assert_eq(parse(cases[i].argc, cases[i].argv, &a, err), -EINVAL, "case %zu", i);
		cr_assert_str_eq(err, cases[i].message, "case %zu", i);
	}
}

Test(cli, why_path_and_host)
{
	char *path[] = { "cordon", "why", "--profile", "git", "--path", ".git/hooks/x", "--op", "write", "--json" };
	char *host[] = { "cordon", "why", "--host", "example.com", "--port=443" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(path), path, &a, err), 0, "%s", err);
	cr_assert_eq(a.sub, CLI_WHY);
	cr_assert_str_eq(a.profile, "git");
	cr_assert_str_eq(a.why_path, ".git/hooks/x");
	cr_assert(a.op_set && a.op == CORDON_OP_WRITE);
	cr_assert(a.json);
	cli_args_done(&a);

	/* `cordon why PATH`: --path PATH, --op read unless another is said */
	char *bare[] = { "cordon", "why", "/etc/passwd" };
	char *bare_op[] = { "cordon", "why", "--op", "exec", "/bin/sh" };
	cr_assert_eq(parse(ARGC(bare), bare, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.why_path, "/etc/passwd");
	cr_assert(a.op_set && a.op == CORDON_OP_READ);
	cli_args_done(&a);
	cr_assert_eq(parse(ARGC(bare_op), bare_op, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.why_path, "/bin/sh");
	cr_assert(a.op_set && a.op == CORDON_OP_EXEC);
	cli_args_done(&a);

	cr_assert_eq(parse(ARGC(host), host, &a, err), 0, "%s", err);
	cr_assert_null(a.profile);
	cr_assert_str_eq(a.why_host, "example.com");
	cr_assert(a.port_set && a.port == 443);
	cli_args_done(&a);

	/* --command: the words after -- are its arguments, flags or not */
	char *command[] = { "cordon", "why", "--profile", "p.json", "--command", "git", "--caller", "make",
			    "--json", "--", "push", "--force", "--json" };
	cr_assert_eq(parse(ARGC(command), command, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.why_command, "git");
	cr_assert_str_eq(a.why_caller, "make");
	cr_assert(a.json);
	cr_assert_eq(strv_length(a.command), 3);
	cr_assert_str_eq(a.command[2], "--json");
	cli_args_done(&a);

	/* run's rows: the same command line asks the same policy */
	char *run_flags[] = { "cordon", "why", "--mode", "read-only", "--net", "host", "--isolation", "light",
			      "--deny-read", "s", "--protect", "k", "--timeout", "3", "--path", "/x", "--op", "write" };
	cr_assert_eq(parse(ARGC(run_flags), run_flags, &a, err), 0, "%s", err);
	cr_assert(a.mode_set && a.mode == CORDON_MODE_READ_ONLY);
	cr_assert(a.net_set && a.net == CORDON_NET_HOST);
	cr_assert(a.isolation_set && a.isolation == CORDON_ISOLATION_LIGHT);
	cr_assert_str_eq(a.deny_read[0], "s");
	cr_assert_str_eq(a.protect[0], "k");
	cli_args_done(&a);
}

Test(cli, profile_and_why_errors_name_the_problem)
{
	struct bad_case cases[] = {
		{ { "cordon", "profile" }, 2, "`cordon profile` needs an action: list, show, validate, schema or diff" },
		{ { "cordon", "profile", "frob" }, 3,
		  "unknown profile action 'frob': valid actions are list, show, validate, schema, diff" },
		{ { "cordon", "profile", "show" }, 3, "`cordon profile show` takes one profile NAME, got 0 arguments" },
		{ { "cordon", "profile", "show", "a", "b" }, 5,
		  "`cordon profile show` takes one profile NAME, got 2 arguments" },
		{ { "cordon", "profile", "diff", "a" }, 4, "`cordon profile diff` takes two profiles A B, got 1 argument" },
		{ { "cordon", "profile", "validate" }, 3,
		  "`cordon profile validate` takes at least one FILE, got 0 arguments" },
		{ { "cordon", "profile", "schema", "x" }, 4, "unexpected argument 'x': `cordon profile schema` takes none" },
		{ { "cordon", "profile", "validate", "--json", "f" }, 5,
		  "--json: not available for `cordon profile validate`" },
		{ { "cordon", "profile", "list", "--workspace", "/w" }, 5,
		  "--workspace: not available for `cordon profile list`" },
		{ { "cordon", "profile", "list", "--mode", "read-only" }, 5,
		  "--mode: unknown option for `cordon profile`; try `cordon profile --help`" },
		{ { "cordon", "run", "--profile", "", "--", "true" }, 6, "--profile needs a profile name or path" },
		{ { "cordon", "why", "--path", "/x" }, 4, "--path needs --op read, write or exec" },
		{ { "cordon", "why", "--path", "/x", "--op", "delete" }, 6,
		  "--op: unknown operation 'delete': valid operations are read, write, exec" },
		{ { "cordon", "why", "--host", "h", "--port", "70000" }, 6,
		  "--port: '70000' is not a port number from 1 to 65535" },
		{ { "cordon", "why" }, 2,
		  "`cordon why` needs one of --path PATH --op OP, --host HOST --port N, or --command NAME -- ARGS" },
		{ { "cordon", "why", "--path", "/x", "--op", "read", "--host", "h" }, 8,
		  "`cordon why` needs one of --path PATH --op OP, --host HOST --port N, or --command NAME -- ARGS" },
		{ { "cordon", "why", "--path", "/x", "--op", "read", "extra" }, 7,
		  "unexpected argument 'extra': ask with --path PATH --op OP, --host HOST --port N, or --command NAME "
		  "-- ARGS" },
		{ { "cordon", "why", "--profile", "p", "--command", "git", "push" }, 7,
		  "unexpected argument 'push': ask with --path PATH --op OP, --host HOST --port N, or --command NAME "
		  "-- ARGS" },
		{ { "cordon", "why", "--command", "git", "--", "push" }, 6,
		  "--command needs --profile P: a profile with command_policies (the built-in ones have none)" },
		{ { "cordon", "why", "--profile", "p", "--command", "git", "--path", "/x", "--op", "read" }, 10,
		  "`cordon why` needs one of --path PATH --op OP, --host HOST --port N, or --command NAME -- ARGS" },
		{ { "cordon", "why", "--profile", "p", "--command", "git", "--op", "read" }, 8,
		  "--op goes with --path, not --command" },
		{ { "cordon", "why", "--profile", "p", "--command", "git", "--port", "1" }, 8,
		  "--port goes with --host, not --command" },
		{ { "cordon", "why", "--caller", "git", "--path", "/x", "--op", "read" }, 8,
		  "--caller goes with --command" },
		{ { "cordon", "why", "--path", "/x", "--op", "read", "--", "push" }, 8,
		  "unexpected argument 'push' after --: only --command takes arguments" },
		{ { "cordon", "why", "--profile", "p", "--command", "" }, 6, "--command needs a value" },
		{ { "cordon", "why", "--json-schema" }, 3,
		  "--json-schema: unknown option for `cordon why`; try `cordon why --help`" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli_args a;
		char err[512] = "";

		cr_assert_eq(parse(cases[i].argc, cases[i].argv, &a, err), -EINVAL, "case %zu", i);
		cr_assert_str_eq(err, cases[i].message, "case %zu", i);
	}
}

static struct cordon_profile_handle *profile_from(const char *text)
{
	const struct cordon_profile_opts o = { .workspace = "/tmp" };
	struct cordon_profile_handle *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_profile_load_buffer(text, strlen(text), "t.json", &o, &p, &e), 0, "%s", e.message);
	return p;
}

Test(cli, profile_limits_apply_under_the_flags)
{
	struct cordon_profile_handle *p = profile_from(
		"{\"limits\": {\"timeout\": \"90s\", \"cpu\": 5, \"memory\": \"64M\", \"max_processes\": 50,"
		" \"max_file_size\": \"1M\", \"max_open_files\": 64, \"max_output\": \"2k\","
		" \"on_output_limit\": \"kill\", \"limits_fallback\": \"fail\"}}");
	char *argv[] = { "cordon", "run", "--cpu", "7", "--max-output", "4k", "--", "true" };
	struct cli_args a, merged, none = {};
	struct cordon_launch *l = NULL;
	const char *kind = NULL;
	char err[512] = "";

	/* no flags: every profile limit lands where the limit flags would put
	 * it (merged by the launch, read back for the messages) */
	cr_assert_eq(cli_launch(&none, p, true, &l, &kind), 0, "%s", kind);
	cli_args_from_launch(&none, l, &none);
	l = cordon_launch_free(l);
	cr_assert_eq(none.timeout_ms, 90000);
	cr_assert_eq(none.limits.cpu_seconds, 5);
	cr_assert_eq(none.limits.memory, 64u << 20);
	cr_assert_eq(none.limits.processes, 50);
	cr_assert_eq(none.limits.file_size, 1u << 20);
	cr_assert_eq(none.limits.open_files, 64);
	cr_assert(none.limits_set);
	cr_assert(none.max_output_set && none.max_output == 2048);
	cr_assert(none.output_terminate);
	cr_assert(none.limits.fallback_fail);

	/* flags win over the profile, the rest still comes from it */
	cr_assert_eq(parse(ARGC(argv), argv, &a, err), 0, "%s", err);
	cr_assert_eq(cli_launch(&a, p, true, &l, &kind), 0, "%s", kind);
	cli_args_from_launch(&a, l, &merged);
	cordon_launch_free(l);
	cr_assert_eq(merged.limits.cpu_seconds, 7);
	cr_assert_eq(merged.max_output, 4096);
	cr_assert_eq(merged.limits.memory, 64u << 20);
	cr_assert_eq(merged.timeout_ms, 90000);
	cli_args_done(&a);
	cordon_profile_free(p);
}

Test(cli, profile_limits_the_runner_cannot_live_with_are_refused)
{
	struct cordon_profile_handle *p = profile_from("{\"limits\": {\"max_processes\": 2}}");
	struct cordon_profile_handle *q = profile_from("{\"limits\": {\"max_open_files\": 8}}");
	struct cordon_launch_opts o = { .size = sizeof(o), .inspect_only = true };
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	/* the launch the CLI builds refuses them, naming the profile's key;
	 * the minimums are the library's one table (cordon_limit_range) */
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), -EINVAL);
	cr_assert_str_eq(e.message, "t.json: at /limits/max_processes: limits.max_processes 2 is too few: the runner itself "
			      "needs 4; give at least 4");
	cr_assert_eq(cordon_launch_new(q, &o, &l, &e), -EINVAL);
	cr_assert_str_eq(e.message, "t.json: at /limits/max_open_files: limits.max_open_files 8 is too few: the runner needs "
			      "16 to set the sandbox up; give at least 16");
	/* a flag in its place: the profile's value is not used, so no error */
	o.limits.processes = 10;
	cr_assert_eq(cordon_launch_new(p, &o, &l, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_launch_limits(l)->processes, 10);
	cordon_launch_free(l);
	cr_assert_eq(cordon_limit_range(CORDON_LIMIT_PROCESSES)->min, 4);
	cr_assert_eq(cordon_limit_range(CORDON_LIMIT_OPEN_FILES)->min, 16);
	cordon_profile_free(p);
	cordon_profile_free(q);
}

Test(cli, profile_flatten_is_sorted_one_value_per_line)
{
	char **lines = NULL;

	cr_assert_eq(cli_profile_flatten("{\"mode\": \"read-only\", \"filesystem\": {\"write\": [\"/b\", \"/a\"]},"
					 " \"environment\": {\"set_vars\": {\"A/B~\": \"1\"}}, \"meta\": {}}",
					 &lines), 0);
	cr_assert_eq(strv_length(lines), 5);
	cr_assert_str_eq(lines[0], "/environment/set_vars/A~1B~0: \"1\"");
	cr_assert_str_eq(lines[1], "/filesystem/write: \"/a\"");
	cr_assert_str_eq(lines[2], "/filesystem/write: \"/b\"");
	cr_assert_str_eq(lines[3], "/meta: {}");
	cr_assert_str_eq(lines[4], "/mode: \"read-only\"");
	strv_free(lines);
	cr_assert_eq(cli_profile_flatten("{bad", &lines), -EINVAL);
}

Test(cli, flag_table_rows_are_unique_and_every_listed_row_is_in_usage)
{
	size_t n;
	const struct cli_flag *f = cli_flag_table(&n);

	cr_assert_gt(n, 30);
	for (size_t i = 0; i < n; i++) {
		cr_assert_not_null(f[i].handler, "%s", f[i].name);
		cr_assert_not_null(f[i].help, "%s", f[i].name);
		cr_assert_eq(f[i].meta != NULL, f[i].has_value, "%s: a value needs a name in --help", f[i].name);
		for (size_t k = i + 1; k < n; k++)
			cr_assert(strcmp(f[i].name, f[k].name) != 0 || !(f[i].commands & f[k].commands),
				  "%s: two rows for one command", f[i].name);
		for (enum cli_command c = CLI_RUN; c <= CLI_WHY; c++) {
			char line[128];

			if (!(f[i].commands & CLI_CMD(c)) || f[i].section == CLI_SECTION_HIDDEN)
				continue;
			snprintf(line, sizeof(line), "\n  %s%s%s ", f[i].name, f[i].meta ? " " : "", f[i].meta ?: "");
			cr_assert(strstr(cli_usage(c), line), "%s missing from the usage of command %d", line + 1, c);
		}
	}
}

Test(cli, one_name_parses_by_the_row_of_its_command)
{
	char *why[] = { "cordon", "why", "--workspace", "/w", "--path", "x", "--op", "read", "--json" };
	char *run[] = { "cordon", "run", "--workspace", "/v", "--json", "--", "true" };
	char *probe[] = { "cordon", "probe", "--workspace", "/w" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(why), why, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.workspace, "/w");
	cr_assert(a.json && a.op == CORDON_OP_READ);
	cli_args_done(&a);
	cr_assert_eq(parse(ARGC(run), run, &a, err), 0, "%s", err);
	cr_assert_str_eq(a.workspace, "/v");
	cr_assert(a.json);
	cli_args_done(&a);
	cr_assert_eq(parse(ARGC(probe), probe, &a, err), -EINVAL);
	cr_assert_str_eq(err, "--workspace: unknown option for `cordon probe`; try `cordon probe --help`");
}

Test(cli, base64_matches_rfc4648)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" }, { "\xff\xfe", "//4=" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *b = cli_base64((const unsigned char *)cases[i].in, strlen(cases[i].in));

		cr_assert_str_eq(b, cases[i].out, "case %zu", i);
		free(b);
	}
}

Test(cli, separate_stderr_and_json_schema)
{
	char *sep[] = { "cordon", "run", "--json", "--separate-stderr", "--", "true" };
	char *alone[] = { "cordon", "run", "--separate-stderr", "--", "true" };
	char *schema[] = { "cordon", "run", "--json-schema" };
	char *schema_cmd[] = { "cordon", "run", "--json-schema", "--", "true" };
	struct cli_args a;
	char err[512] = "";

	cr_assert_eq(parse(ARGC(sep), sep, &a, err), 0, "%s", err);
	cr_assert(a.json && a.separate_stderr);
	cli_args_done(&a);
	cr_assert_eq(parse(ARGC(alone), alone, &a, err), -EINVAL);
	cr_assert_str_eq(err, "--separate-stderr goes with --json");
	cr_assert_eq(parse(ARGC(schema), schema, &a, err), 0, "%s", err);
	cr_assert(a.json_schema && !a.command);
	cli_args_done(&a);
	cr_assert_eq(parse(ARGC(schema_cmd), schema_cmd, &a, err), -EINVAL);
	cr_assert_str_eq(err, "--json-schema takes no command");
}

Test(cli, result_json_keeps_bytes_that_are_not_utf8)
{
	struct cordon_result res = {
		.exit_code = -1, .signal = 9, .verdict = CORDON_VERDICT_OK, .output = "a\xff" "b", .output_len = 3,
		.output_total = 3, .stderr_output = "ok\n", .stderr_len = 3, .stderr_total = 7,
	};
	struct cordon_backend_info info = {};
	struct cli_args a = { .json = true };
	json_t *o = cli_result_json(&a, &res, &info, 0), *stopped;

	cr_assert_not_null(o);
	cr_assert(json_is_null(json_object_get(o, "exit_code")), "killed: null, as -1 in the struct");
	cr_assert_eq(json_integer_value(json_object_get(o, "signal")), 9);
	cr_assert_str_eq(json_string_value(json_object_get(o, "output")), "a\xef\xbf\xbd" "b");
	cr_assert_str_eq(json_string_value(json_object_get(o, "output_base64")), "Yf9i");
	cr_assert_str_eq(json_string_value(json_object_get(o, "stderr")), "ok\n");
	cr_assert(json_is_null(json_object_get(o, "stderr_base64")), "UTF-8: no base64");
	cr_assert_eq(json_integer_value(json_object_get(o, "stderr_bytes")), 7);
	cr_assert(json_is_null(json_object_get(o, "error")));

	/* stopped: the same fields, and error says what stopped it */
	cli_note_message("stopped by SIGTERM");
	stopped = cli_result_json(&a, &res, &info, 15);
	cr_assert_eq(json_object_size(stopped), json_object_size(o));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(stopped, "error"), "kind")), "stopped");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(stopped, "error"), "message")),
			 "stopped by SIGTERM");
	json_decref(stopped);
	json_decref(o);
}
