/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The runner's flag parser: strict, bounded, and it names the flag at fault. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cordon/runner.h"
#include "parse.h"
#include "policy.h"

static char err[512];

#define PARSE(f, ...)                                                            \
	({                                                                       \
		static char *const _v[] = { "exec", __VA_ARGS__, NULL };         \
		parse((int)(sizeof(_v) / sizeof(_v[0])) - 1, _v, (f));           \
	})

static int parse(int argc, char *const *argv, struct exec_flags *f)
{
	memset(err, 0, sizeof(err));
	return exec_parse(argc, argv, f, err, sizeof(err));
}

#define PARSE_OK(f, ...)                                                         \
	do {                                                                     \
		int _r = PARSE((f), __VA_ARGS__);                                \
		cr_assert_eq(_r, 0, "parse failed: %s", err);                    \
	} while (0)

#define PARSE_FAILS(code, needle, ...)                                           \
	do {                                                                     \
		struct exec_flags _f;                                            \
		int _r = PARSE(&_f, __VA_ARGS__);                                \
		cr_assert_eq(_r, (code), "expected %d, got %d (%s)", (code), _r, err); \
		cr_assert(strstr(err, (needle)), "'%s' does not mention '%s'", err, (needle)); \
	} while (0)

Test(exec_parse, defaults_are_the_strictest)
{
	struct exec_flags f;

	PARSE_OK(&f, "--", "true");
	cr_assert_eq(f.isolation, CORDON_ISOLATION_FULL);
	cr_assert_eq(f.net, CORDON_NET_NONE);
	cr_assert_not(f.private_tmp);
	cr_assert_eq(f.write.n, 0);
	cr_assert_eq(f.required, 0);
	cr_assert_str_eq(f.command[0], "true");
	cr_assert_null(f.command[1]);
	exec_flags_done(&f);
}

Test(exec_parse, every_flag)
{
	struct exec_flags f;

	PARSE_OK(&f, "--isolation", "light", "--net", "host", "--write", "/ws", "--write", "/tmp", "--deny-read",
		 "/h/.ssh", "--deny-read-absent", "/h/.aws", "--protect", "/ws/.git/hooks", "--protect", "/ws/.cordon*",
		 "--keep-env", "LC_*",
		 "--keep-env", "GH_TOKEN", "--setenv", "A_B", "--require", "landlock-net", "--require", "seccomp",
		 "--report", "--status-fd", "7", "--", "sh", "-c", "echo -- --write");
	cr_assert_eq(f.isolation, CORDON_ISOLATION_LIGHT);
	cr_assert_eq(f.net, CORDON_NET_HOST);
	cr_assert_eq(f.write.n, 2);
	cr_assert_str_eq(f.write.v[1], "/tmp");
	cr_assert_null(f.write.v[2]);
	cr_assert_str_eq(f.deny_read.v[0], "/h/.ssh");
	cr_assert_eq(f.deny_read.n, 1);
	cr_assert_str_eq(f.deny_absent.v[0], "/h/.aws");
	cr_assert_eq(f.deny_absent.n, 1);
	cr_assert_str_eq(f.protect.v[1], "/ws/.cordon*");
	cr_assert_str_eq(f.keep_env.v[0], "LC_*");
	cr_assert_str_eq(f.setenv.v[0], "A_B");
	cr_assert_eq(f.status_fd, 7);
	cr_assert_eq(f.required, REQUIRE_LANDLOCK_NET | REQUIRE_SECCOMP);
	cr_assert(f.report);
	cr_assert_str_eq(f.command[2], "echo -- --write");
	exec_flags_done(&f);
}

Test(exec_parse, private_tmp_and_repeats_that_change_nothing)
{
	struct exec_flags f;

	PARSE_OK(&f, "--private-tmp", "--write", "/ws", "--write", "/ws", "--setenv", "A", "--setenv", "A",
		 "--require", "userns", "--require", "userns", "--", "x");
	cr_assert(f.private_tmp);
	cr_assert_eq(f.write.n, 1);
	cr_assert_eq(f.setenv.n, 1);
	cr_assert_eq(f.required, REQUIRE_USERNS);
	exec_flags_done(&f);
}

/* Repeats are found by (list, value): the same value in two lists is in
 * each, and among many values only the repeats go (the table the parser
 * keeps, not a scan of the list). */
Test(exec_parse, repeats_are_per_list_among_many)
{
	enum { N = 300 };
	static char vals[N][32];
	const char *argv[3 * N + 16];
	struct exec_flags f;
	int argc = 0;

	argv[argc++] = "cordon-exec";
	for (int i = 0; i < N; i++) {
		snprintf(vals[i], sizeof(vals[i]), "/p/%d", i);
		argv[argc++] = "--deny-read-absent";
		argv[argc++] = vals[i];
	}
	/* every tenth again, and one of them as a --write and a --protect too */
	for (int i = 0; i < N; i += 10) {
		argv[argc++] = "--deny-read-absent";
		argv[argc++] = vals[i];
	}
	argv[argc++] = "--write";
	argv[argc++] = vals[7];
	argv[argc++] = "--protect";
	argv[argc++] = vals[7];
	argv[argc++] = "--";
	argv[argc++] = "x";
	argv[argc] = NULL;
	cr_assert_eq(parse(argc, (char *const *)argv, &f), 0, "%s", err);
	cr_assert_eq(f.deny_absent.n, N);
	for (int i = 0; i < N; i++)
		cr_assert_str_eq(f.deny_absent.v[i], vals[i]); /* in order, each once */
	cr_assert_eq(f.write.n, 1);
	cr_assert_str_eq(f.write.v[0], vals[7]);
	cr_assert_eq(f.protect.n, 1);
	/* each list has the slots its flag's values were counted to, its
	 * NULL included, not a slot per argument (the runner's page faults) */
	cr_assert_eq(f.deny_absent.cap, N + N / 10 + 1);
	cr_assert_eq(f.write.cap, 2);
	cr_assert_eq(f.protect.cap, 2);
	cr_assert_eq(f.read.cap, 1);
	cr_assert_null(f.read.v[0]);
	exec_flags_done(&f);
}

Test(exec_parse, unknown_flag_is_named)
{
	PARSE_FAILS(-EINVAL, "--writable", "--writable", "/ws", "--", "x");
	PARSE_FAILS(-EINVAL, "--net=none", "--net=none", "--", "x");
	PARSE_FAILS(-EINVAL, "unknown flag '-x'", "-x", "--", "x");
}

Test(exec_parse, missing_value_is_named)
{
	struct exec_flags f;

	PARSE_FAILS(-EINVAL, "--write needs a value", "--write");
	PARSE_FAILS(-EINVAL, "--require needs a value", "--net", "none", "--require");
	/* after "--" everything is the command's */
	PARSE_OK(&f, "--", "x", "--setenv");
	cr_assert_str_eq(f.command[1], "--setenv");
	exec_flags_done(&f);
}

Test(exec_parse, duplicates_that_matter)
{
	PARSE_FAILS(-EINVAL, "--net given twice", "--net", "none", "--net", "host", "--", "x");
	PARSE_FAILS(-EINVAL, "--isolation given twice", "--isolation", "full", "--isolation", "full", "--", "x");
	PARSE_FAILS(-EINVAL, "--private-tmp given twice", "--private-tmp", "--private-tmp", "--", "x");
	PARSE_FAILS(-EINVAL, "--status-fd given twice", "--status-fd", "3", "--status-fd", "3", "--", "x");
	PARSE_FAILS(-EINVAL, "--pty given twice", "--pty", "--pty", "--", "x");
}

/* --pty is a word of its own: off unless given, and never a value. */
Test(exec_parse, pty)
{
	struct exec_flags f;

	PARSE_OK(&f, "--", "bash");
	cr_assert_not(f.pty);
	exec_flags_done(&f);
	PARSE_OK(&f, "--no-terminal", "--pty", "--isolation", "light", "--", "bash", "--pty");
	cr_assert(f.pty);
	cr_assert(f.no_terminal);
	cr_assert_str_eq(f.command[1], "--pty");
	exec_flags_done(&f);
	PARSE_FAILS(-EINVAL, "unknown flag '--pty=yes'", "--pty=yes", "--", "x");
}

Test(exec_parse, bad_values)
{
	PARSE_FAILS(-EINVAL, "--isolation", "--isolation", "medium", "--", "x");
	PARSE_FAILS(-EINVAL, "--net", "--net", "wifi", "--", "x");
	PARSE_FAILS(-EINVAL, "need --net proxy", "--allow-domain", "example.com", "--", "x");
	PARSE_FAILS(-EINVAL, "--allow-domain", "--net", "proxy", "--allow-domain", "exa mple.com", "--", "x");
	PARSE_FAILS(-EINVAL, "--allow-address", "--net", "proxy", "--allow-address", "10.0.0.0/33", "--", "x");
	PARSE_FAILS(-EINVAL, "--require: unknown feature", "--require", "selinux", "--", "x");
}

Test(exec_parse, paths_must_be_absolute_and_normal)
{
	PARSE_FAILS(-EINVAL, "--write", "--write", "ws", "--", "x");
	PARSE_FAILS(-EINVAL, "--write", "--write", "/ws/", "--", "x");
	PARSE_FAILS(-EINVAL, "--write", "--write", "/a//b", "--", "x");
	PARSE_FAILS(-EINVAL, "--deny-read", "--deny-read", "/a/../b", "--", "x");
	PARSE_FAILS(-EINVAL, "--deny-read-absent", "--deny-read-absent", "h/.aws", "--", "x");
	PARSE_FAILS(-EINVAL, "--deny-read-absent", "--deny-read-absent", "/h/../.aws", "--", "x");
	PARSE_FAILS(-EINVAL, "--protect", "--protect", "/a/./b", "--", "x");
	PARSE_FAILS(-EINVAL, "'/' is not allowed", "--write", "/", "--", "x");
	PARSE_FAILS(-EINVAL, "'/' is not allowed", "--deny-read", "/", "--", "x");
	PARSE_FAILS(-EINVAL, "--allow-unix-socket", "--allow-unix-socket", "run/x.sock", "--", "x");
	PARSE_FAILS(-EINVAL, "--allow-unix-socket", "--allow-unix-socket", "/run/../x.sock", "--", "x");
	PARSE_FAILS(-EINVAL, "--allow-unix-socket needs a value", "--allow-unix-socket");

	cr_assert(exec_path_is_normal("/"));
	cr_assert(exec_path_is_normal("/a/.b/..c/c.."));
	cr_assert(exec_path_is_normal("/a*b"));
	cr_assert_not(exec_path_is_normal("/a/."));
	cr_assert_not(exec_path_is_normal("/a/.."));
	cr_assert_not(exec_path_is_normal(""));
}

Test(exec_parse, environment_names)
{
	struct exec_flags f;

	PARSE_FAILS(-EINVAL, "--keep-env", "--keep-env", "1ABC", "--", "x");
	PARSE_FAILS(-EINVAL, "--keep-env", "--keep-env", "A*B", "--", "x");
	PARSE_FAILS(-EPERM, "LD_PRELOAD", "--keep-env", "LD_PRELOAD", "--", "x");
	PARSE_FAILS(-EPERM, "LD_*", "--keep-env", "LD_*", "--", "x");
	/* a value on the runner's command line is readable by every local user */
	PARSE_FAILS(-EINVAL, "not NAME=VALUE", "--setenv", "SECRET=hunter2", "--", "x");
	PARSE_FAILS(-EINVAL, "not NAME=VALUE", "--setenv", "EMPTY=", "--", "x");
	PARSE_FAILS(-EINVAL, "not NAME=VALUE", "--setenv", "=x", "--", "x");
	PARSE_FAILS(-EINVAL, "not a variable name", "--setenv", "A-B", "--", "x");
	PARSE_FAILS(-EINVAL, "not a variable name", "--setenv", "", "--", "x");
	PARSE_FAILS(-EINVAL, "not a variable name", "--setenv", "A*", "--", "x");
	PARSE_FAILS(-EPERM, "LD_PRELOAD", "--setenv", "LD_PRELOAD", "--", "x");
	PARSE_FAILS(-EPERM, "LD_LIBRARY_PATH", "--setenv", "LD_LIBRARY_PATH", "--", "x");
	PARSE_FAILS(-EPERM, "PYTHONPATH", "--setenv", "PYTHONPATH", "--", "x");
	PARSE_FAILS(-EPERM, "NODE_OPTIONS", "--setenv", "NODE_OPTIONS", "--", "x");
	PARSE_FAILS(-EPERM, "PERL5OPT", "--setenv", "PERL5OPT", "--", "x");
	PARSE_FAILS(-EPERM, "BASH_ENV", "--setenv", "BASH_ENV", "--", "x");

	/* 0-2 are stdio; the number is decimal and bounded */
	PARSE_FAILS(-EINVAL, "--status-fd", "--status-fd", "2", "--", "x");
	PARSE_FAILS(-EINVAL, "--status-fd", "--status-fd", "-1", "--", "x");
	PARSE_FAILS(-EINVAL, "--status-fd", "--status-fd", "3x", "--", "x");
	PARSE_FAILS(-EINVAL, "--status-fd", "--status-fd", "65536", "--", "x");
	PARSE_FAILS(-EINVAL, "--status-fd", "--status-fd", "", "--", "x");

	PARSE_OK(&f, "--setenv", "EMPTY", "--keep-env", "*", "--", "x");
	cr_assert_str_eq(f.setenv.v[0], "EMPTY");
	cr_assert_eq(f.status_fd, -1);
	exec_flags_done(&f);
}

Test(exec_parse, the_command)
{
	PARSE_FAILS(-EINVAL, "no command", "--net", "none");
	PARSE_FAILS(-EINVAL, "no command", "--");
	PARSE_FAILS(-EINVAL, "empty", "--", "");
	PARSE_FAILS(-EINVAL, "expected a flag or '--'", "true");
}

Test(exec_parse, help)
{
	struct exec_flags f;

	PARSE_OK(&f, "--net", "host", "--help", "--bogus");
	cr_assert(f.help);
	exec_flags_done(&f);
	cr_assert(strstr(cordon_exec_usage, "--protect PATH"));
}

/* Caps: counts and lengths, whatever the caller sends. */
Test(exec_parse, bounded)
{
	int argc = 1 + 2 * (EXEC_MAX_LIST + 1) + 2;
	char **argv = calloc((size_t)argc + 1, sizeof(char *));
	char *paths = calloc(EXEC_MAX_LIST + 1, 16);
	char *long_path = malloc(EXEC_MAX_PATH + 2), *long_value = malloc(EXEC_MAX_NAME + 8);
	struct exec_flags f;
	int k = 0;

	cr_assert(argv && paths && long_path && long_value);
	argv[k++] = "exec";
	for (int i = 0; i <= EXEC_MAX_LIST; i++) {
		snprintf(paths + 16 * i, 16, "/p%d", i);
		argv[k++] = "--write";
		argv[k++] = paths + 16 * i;
	}
	argv[k++] = "--";
	argv[k++] = "x";
	cr_assert_eq(parse(k, argv, &f), -E2BIG);
	cr_assert(strstr(err, "--write: too many"));

	/* exactly the cap is fine */
	argv[k - 4] = "--";
	argv[k - 3] = "x";
	cr_assert_eq(parse(k - 2, argv, &f), 0, "%s", err);
	cr_assert_eq(f.write.n, EXEC_MAX_LIST);
	exec_flags_done(&f);

	long_path[0] = '/';
	memset(long_path + 1, 'a', EXEC_MAX_PATH);
	long_path[EXEC_MAX_PATH + 1] = '\0';
	cr_assert_eq(parse(5, (char *const[]){ "exec", "--deny-read", long_path, "--", "x", NULL }, &f), -ENAMETOOLONG);

	memset(long_value, 'V', EXEC_MAX_NAME + 1);
	long_value[EXEC_MAX_NAME + 1] = '\0';
	cr_assert_eq(parse(5, (char *const[]){ "exec", "--setenv", long_value, "--", "x", NULL }, &f), -EINVAL);
	long_value[EXEC_MAX_NAME] = '\0';
	cr_assert_eq(parse(5, (char *const[]){ "exec", "--setenv", long_value, "--", "x", NULL }, &f), 0, "%s", err);
	exec_flags_done(&f);

	free(argv);
	free(paths);
	free(long_path);
	free(long_value);
}

Test(exec_parse, feature_names_round_trip)
{
	unsigned bit;

	for (unsigned b = REQUIRE_LANDLOCK; b <= REQUIRE_NETNS; b <<= 1) {
		const char *name = require_feature_to_string(b);

		cr_assert_not_null(name);
		cr_assert_eq(require_feature_from_string(name, &bit), 0);
		cr_assert_eq(bit, b);
	}
	cr_assert_eq(require_feature_from_string("landlock-fs", &bit), -EINVAL);
}

/* A failure is still reported on the status fd the line names, wherever
 * the bad flag sits; a malformed or absent one names none. */
Test(exec_parse, status_fd_survives_a_failure)
{
	struct exec_flags f;

	cr_assert_eq(PARSE(&f, "--status-fd", "5", "--bogus", "--", "x"), -EINVAL);
	cr_assert_eq(f.status_fd, 5);
	cr_assert_eq(PARSE(&f, "--bogus", "--status-fd", "9", "--", "x"), -EINVAL);
	cr_assert_eq(f.status_fd, 9);
	cr_assert_eq(PARSE(&f, "--write", "--status-fd", "--status-fd", "4", "--", "x"), -EINVAL);
	cr_assert_eq(f.status_fd, 4);
	cr_assert_eq(PARSE(&f, "--bogus", "--", "--status-fd", "6"), -EINVAL);
	cr_assert_eq(f.status_fd, -1);
	cr_assert_eq(PARSE(&f, "--status-fd", "1", "--bogus", "--", "x"), -EINVAL);
	cr_assert_eq(f.status_fd, -1);
}

Test(exec_parse, broker)
{
	struct exec_flags f;

	PARSE_OK(&f, "--broker-fd", "5", "--shim-path", "/usr/libexec/cordon/cordon-shim", "--shim", "git", "--shim",
		 "gh", "--shim", "git", "--", "true");
	cr_assert_eq(f.broker_fd, 5);
	cr_assert_str_eq(f.shim_path, "/usr/libexec/cordon/cordon-shim");
	cr_assert_eq(f.shim.n, 2);
	cr_assert_str_eq(f.shim.v[1], "gh");
	exec_flags_done(&f);
	PARSE_OK(&f, "--", "true");
	cr_assert_eq(f.broker_fd, -1);
	exec_flags_done(&f);

	PARSE_FAILS(-EINVAL, "--broker-fd", "--broker-fd", "2", "--", "true");
	PARSE_FAILS(-EINVAL, "given twice", "--broker-fd", "5", "--broker-fd", "6", "--", "true");
	PARSE_FAILS(-EINVAL, "must differ from", "--status-fd", "5", "--broker-fd", "5", "--", "true");
	PARSE_FAILS(-EINVAL, "need --broker-fd", "--shim", "git", "--shim-path", "/x", "--", "true");
	PARSE_FAILS(-EINVAL, "--shim-path", "--broker-fd", "5", "--shim", "git", "--", "true");
	PARSE_FAILS(-EINVAL, "not a command name", "--broker-fd", "5", "--shim", "a/b", "--", "true");
	PARSE_FAILS(-EINVAL, "not a command name", "--broker-fd", "5", "--shim", "-rf", "--", "true");
	PARSE_FAILS(-EINVAL, "--shim-path", "--broker-fd", "5", "--shim-path", "relative", "--", "true");
}

/* cordon serve's socket: one fd of its own, never with a file to run or a
 * broker (the server forks commands by name). */
Test(exec_parse, serve_fd)
{
	struct exec_flags f;

	PARSE_OK(&f, "--status-fd", "3", "--serve-fd", "9", "--", "true");
	cr_assert_eq(f.serve_fd, 9);
	exec_flags_done(&f);
	PARSE_OK(&f, "--", "true");
	cr_assert_eq(f.serve_fd, 0);
	exec_flags_done(&f);

	PARSE_FAILS(-EINVAL, "--serve-fd", "--serve-fd", "2", "--", "true");
	PARSE_FAILS(-EINVAL, "given twice", "--serve-fd", "5", "--serve-fd", "6", "--", "true");
	PARSE_FAILS(-EINVAL, "on an fd of its own", "--status-fd", "5", "--serve-fd", "5", "--", "true");
	PARSE_FAILS(-EINVAL, "without --exec-fd", "--serve-fd", "5", "--exec-fd", "6", "--", "true");
	PARSE_FAILS(-EINVAL, "without --exec-fd", "--serve-fd", "5", "--broker-fd", "6", "--", "true");
}

/* cordon run's pipe for init's word at the end (init_end) */
Test(exec_parse, end_fd)
{
	struct exec_flags f;

	PARSE_OK(&f, "--status-fd", "3", "--end-fd", "8", "--", "true");
	cr_assert_eq(f.end_fd, 8);
	exec_flags_done(&f);
	PARSE_OK(&f, "--", "true");
	cr_assert_eq(f.end_fd, 0);
	exec_flags_done(&f);

	PARSE_FAILS(-EINVAL, "--end-fd", "--end-fd", "2", "--", "true");
	PARSE_FAILS(-EINVAL, "--end-fd", "--end-fd", "x", "--", "true");
	PARSE_FAILS(-EINVAL, "given twice", "--end-fd", "8", "--end-fd", "9", "--", "true");
	PARSE_FAILS(-EINVAL, "an fd of its own", "--status-fd", "8", "--end-fd", "8", "--", "true");
	PARSE_FAILS(-EINVAL, "an fd of its own", "--broker-fd", "5", "--end-fd", "5", "--", "true");
}

/* The tool sandbox's flags: restricted reads, the execute-only gate,
 * deny-exec and the file to run from an fd. */
Test(exec_parse, read_exec_and_exec_fd)
{
	struct exec_flags f;

	PARSE_OK(&f, "--read", "/usr", "--read", "/etc/gitconfig", "--exec", "/usr/bin/git", "--exec", "/usr/lib",
		 "--deny-exec", "/usr/bin/gh", "--exec-fd", "4", "--status-fd", "3", "--", "git", "status");
	cr_assert_eq(f.read.n, 2);
	cr_assert_str_eq(f.read.v[1], "/etc/gitconfig");
	cr_assert_null(f.read.v[2]);
	cr_assert_eq(f.exec.n, 2);
	cr_assert(f.exec_gate, "an --exec path turns the gate on");
	cr_assert_str_eq(f.deny_exec.v[0], "/usr/bin/gh");
	cr_assert_eq(f.exec_fd, 4);
	cr_assert_str_eq(f.command[0], "git");
	exec_flags_done(&f);

	PARSE_OK(&f, "--", "true");
	cr_assert_not(f.exec_gate);
	cr_assert_eq(f.exec_fd, -1, "no --exec-fd: none");
	cr_assert_eq(f.read.n, 0);
	exec_flags_done(&f);

	/* the gate alone: nothing but the fd's file may run */
	PARSE_OK(&f, "--exec-gate", "--exec-fd", "9", "--", "tool");
	cr_assert(f.exec_gate);
	cr_assert_eq(f.exec.n, 0);
	cr_assert_eq(f.exec_fd, 9);
	exec_flags_done(&f);
}

Test(exec_parse, read_exec_and_exec_fd_refusals)
{
	PARSE_FAILS(-EINVAL, "--read", "--read", "usr", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec", "--exec", "/usr/bin/../bin", "--", "true");
	PARSE_FAILS(-EINVAL, "--deny-exec", "--deny-exec", "/", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-fd", "--exec-fd", "2", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-fd", "--exec-fd", "65536", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-fd", "--exec-fd", "4x", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-fd given twice", "--exec-fd", "4", "--exec-fd", "5", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-gate given twice", "--exec-gate", "--exec-gate", "--", "true");
	PARSE_FAILS(-EINVAL, "same fd", "--exec-fd", "3", "--status-fd", "3", "--", "true");
	PARSE_FAILS(-EINVAL, "--exec-fd needs a value", "--exec-fd");
}

Test(exec_parse, exec_fd_failure_keeps_the_status_fd)
{
	struct exec_flags f;

	cr_assert_lt(PARSE(&f, "--status-fd", "5", "--exec-fd", "nope", "--", "true"), 0);
	cr_assert_eq(f.status_fd, 5);
	cr_assert_eq(f.exec_fd, -1);
}

/* ---- the plan by fd (--plan-fd: plan_fd.c) ---- */

/* A memfd holding words (each NUL-ended), with seals; its fd. */
static int plan_memfd(const char *const *words, unsigned seals)
{
	int fd = memfd_create("plan-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	cr_assert_geq(fd, 3);
	for (size_t i = 0; words[i]; i++)
		cr_assert_eq(write(fd, words[i], strlen(words[i]) + 1), (ssize_t)strlen(words[i]) + 1);
	if (seals)
		cr_assert_eq(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static int parse_with_plan(int fd, const char *extra, struct exec_flags *f)
{
	char num[16];
	char *v[] = { "exec", "--status-fd", "9", "--plan-fd", num, "--", "true", NULL, NULL };

	snprintf(num, sizeof(num), "%d", fd);
	if (extra) {
		/* a second --plan-fd in the line */
		static char *w[] = { "exec", "--plan-fd", NULL, "--plan-fd", NULL, "--", "true", NULL };

		w[2] = w[4] = num;
		return parse(7, w, f);
	}
	return parse(7, v, f);
}

#define ALL_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

Test(exec_parse, plan_fd_sealed_is_read_as_flags)
{
	static const char *const words[] = { "--write", "/ws", "--deny-read", "/h/.ssh", "--deny-read-absent",
					     "/h/.aws", "--private-tmp", NULL };
	struct exec_flags f;
	int fd = plan_memfd(words, ALL_SEALS);

	cr_assert_eq(parse_with_plan(fd, NULL, &f), 0, "%s", err);
	cr_assert_str_eq(f.write.v[0], "/ws");
	cr_assert_str_eq(f.deny_read.v[0], "/h/.ssh");
	cr_assert_str_eq(f.deny_absent.v[0], "/h/.aws");
	cr_assert(f.private_tmp);
	cr_assert_eq(f.status_fd, 9, "the line's own flags are read too");
	cr_assert_str_eq(f.command[0], "true");
	cr_assert_lt(fcntl(fd, F_GETFD), 0, "the plan's fd is closed once read");
	exec_flags_done(&f);
}

Test(exec_parse, plan_fd_without_every_seal_is_refused)
{
	static const char *const words[] = { "--write", "/ws", NULL };
	static const unsigned partial[] = { 0, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL,
					    F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK,
					    F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_SEAL };

	for (size_t i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		struct exec_flags f;
		int fd = plan_memfd(words, partial[i]);

		cr_assert_eq(parse_with_plan(fd, NULL, &f), -EPERM, "seals %#x: %s", partial[i], err);
		cr_assert(strstr(err, "sealed"), "%s", err);
		cr_assert_eq(f.status_fd, 9, "the failure can still be reported");
		close(fd);
	}
}

Test(exec_parse, plan_fd_that_is_a_file_or_a_pipe_is_refused)
{
	char path[] = "/tmp/cordon-plan-test.XXXXXX";
	struct exec_flags f;
	int p[2], fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_eq(write(fd, "--write\0/ws\0", 12), 12);
	cr_assert_lt(parse_with_plan(fd, NULL, &f), 0);
	cr_assert(strstr(err, "seal"), "%s", err);
	close(fd);
	cr_assert_eq(pipe(p), 0);
	cr_assert_lt(parse_with_plan(p[0], NULL, &f), 0);
	cr_assert(strstr(err, "seal"), "%s", err);
	close(p[0]);
	close(p[1]);
}

Test(exec_parse, plan_fd_holds_flags_only)
{
	static const char *const with_command[] = { "--write", "/ws", "--", "sh", NULL };
	static const char *const nested[] = { "--plan-fd", "7", NULL };
	static const char *const bad_flag[] = { "--deny-read", "relative", NULL };
	struct exec_flags f;
	int fd;

	fd = plan_memfd(with_command, ALL_SEALS);
	cr_assert_eq(parse_with_plan(fd, NULL, &f), -EINVAL);
	cr_assert(strstr(err, "'--'"), "%s", err);
	close(fd);
	fd = plan_memfd(nested, ALL_SEALS);
	cr_assert_eq(parse_with_plan(fd, NULL, &f), -EINVAL);
	cr_assert(strstr(err, "--plan-fd"), "%s", err);
	close(fd);
	fd = plan_memfd(bad_flag, ALL_SEALS);
	cr_assert_eq(parse_with_plan(fd, NULL, &f), -EINVAL, "a plan's flags are checked as the line's are");
	cr_assert(strstr(err, "--deny-read"), "%s", err);
	close(fd);
	fd = plan_memfd((const char *const[]){ "--write", "/ws", NULL }, ALL_SEALS);
	cr_assert_eq(parse_with_plan(fd, "twice", &f), -EINVAL);
	cr_assert(strstr(err, "--plan-fd"), "%s", err);
	close(fd);
}
