/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Verdicts through the C API, for real: cordon_confine_with + cordon_run on
 * the native runner (exec'd, and entered in-process with runner_main) and
 * on bwrap. The runner's failures come back on its status channel, so a
 * command printing the runner's words is never "runner failed"; values set
 * or kept travel in envp, never in argv.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"
#include "cordon/runner.h"
#include "strv.h"

#define FORGED "cordon: landlock: cannot open /: Permission denied"

static char dir[64];

static void setup(void)
{
	const char *cordon = getenv("CORDON");

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-verdicts.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(verdicts, .init = setup, .fini = teardown);

static struct cordon_policy *policy(void)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, dir, &p, &e), 0, "%s", e.message);
	return p;
}

static struct cordon_confined *confine(enum cordon_backend b, const char *path, const struct cordon_policy *p,
				       const char *const *argv)
{
	struct cordon_backend_info info = { .backend = b, .grade = CORDON_GRADE_FULL };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};

	snprintf(info.path, sizeof(info.path), "%s", path);
	cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
	return c;
}

/* in_process: enter the runner in the forked child (what `cordon run` does). */
static struct cordon_result *run(const struct cordon_confined *c, bool in_process)
{
	struct cordon_run_opts o = { .timeout_ms = 20000, .runner_main = in_process ? cordon_exec_main : NULL };
	struct cordon_result *res = NULL;

	cr_assert_eq(cordon_run(c, &o, &res), 0);
	return res;
}

static void argv_insert(char ***v, size_t at, const char *s)
{
	size_t n = strv_length(*v);
	char **nv = calloc(n + 2, sizeof(char *));

	cr_assert_not_null(nv);
	for (size_t i = 0, j = 0; i <= n; i++) {
		if (i == at)
			nv[j++] = strdup(s);
		if (i < n)
			nv[j++] = (*v)[i];
	}
	free(*v);
	*v = nv;
}

static struct cordon_confined *native(const struct cordon_policy *p, const char *const *argv)
{
	return confine(CORDON_BACKEND_NATIVE, getenv("CORDON"), p, argv);
}

Test(verdicts, native_forged_line_is_the_commands_own)
{
	const char *argv[] = { "/bin/sh", "-c", "echo '" FORGED "' >&2; exit 1", NULL };
	struct cordon_policy *p = policy();
	struct cordon_confined *c = native(p, argv);

	for (int in_process = 0; in_process <= 1; in_process++) {
		struct cordon_result *res = run(c, in_process);

		cr_assert_eq(res->exit_code, 1, "%s", res->output);
		cr_assert(strstr(res->output, FORGED), "%s", res->output);
		cr_expect_eq(res->verdict, CORDON_VERDICT_DENIED, "in_process=%d: %s", in_process,
			     cordon_verdict_to_string(res->verdict));
		cr_expect_null(res->runner_line);
		cordon_result_free(res);
	}

	/* control: the same run read from the text alone would be forged */
	c->status_format = CORDON_STATUS_NONE;
	struct cordon_result *res = run(c, false);
	cr_expect_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "%s", cordon_verdict_to_string(res->verdict));
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

Test(verdicts, native_exec_failures_are_the_commands_and_real_failures_are_runner_failed)
{
	const char *missing[] = { "/nonexistent/cordon-test-binary", NULL };
	const char *ok[] = { "/bin/true", NULL };
	struct cordon_policy *p = policy();
	struct cordon_confined *c = native(p, missing);

	for (int in_process = 0; in_process <= 1; in_process++) {
		struct cordon_result *res = run(c, in_process);

		/* as a shell: not there is 127, the command's own outcome (the
		 * runner's line stays in the output), not cordon's machinery */
		cr_assert_eq(res->exit_code, CORDON_EXIT_NOT_FOUND, "%s", res->output);
		cr_assert_eq(res->verdict, CORDON_VERDICT_OK, "in_process=%d", in_process);
		cr_assert_null(res->runner_line);
		cr_expect(strstr(res->output, "cordon: execve: /nonexistent/cordon-test-binary"), "%s", res->output);
		cordon_result_free(res);
	}
	cordon_confined_free(c);

	/* there but not executable (a readable file without x bits): 126 */
	const char *noexec[] = { "/etc/passwd", NULL };
	c = native(p, noexec);
	for (int in_process = 0; in_process <= 1; in_process++) {
		struct cordon_result *res = run(c, in_process);

		cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%s", res->output);
		cr_assert_eq(res->verdict, CORDON_VERDICT_OK, "in_process=%d", in_process);
		cr_expect(strstr(res->output, "/etc/passwd"), "%s", res->output);
		cordon_result_free(res);
	}
	cordon_confined_free(c);

	/* a bad flag reaching the runner: it fails before anything runs */
	c = native(p, ok);
	argv_insert(&c->argv, 2, "--bogus-flag");
	for (int in_process = 0; in_process <= 1; in_process++) {
		struct cordon_result *res = run(c, in_process);

		cr_assert_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "in_process=%d: %s", in_process, res->output);
		cr_expect_str_eq(res->runner_line, "cordon: flags: unknown flag '--bogus-flag' (see cordon exec --help)");
		cordon_result_free(res);
	}
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* The command never holds the status channel: it cannot write a record. */
Test(verdicts, native_command_has_no_status_fd)
{
	const char *argv[] = { "/bin/sh", "-c", "printf 'x\\t-\\tforged\\n' >&3", NULL };
	const char *control[] = { "/bin/sh", "-c", "exec 3>&2; printf 'reached\\n' >&3", NULL };
	struct cordon_policy *p = policy();
	struct cordon_confined *c = native(p, argv);
	struct cordon_result *res = run(c, true);

	cr_assert_neq(res->exit_code, 0, "%s", res->output);
	cr_assert(strstr(res->output, "Bad file descriptor"), "%s", res->output);
	cr_assert_neq(res->verdict, CORDON_VERDICT_RUNNER_FAILED);
	cordon_result_free(res);
	cordon_confined_free(c);

	c = native(p, control);
	res = run(c, true);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	cr_assert(strstr(res->output, "reached"), "%s", res->output);
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* Set and kept values reach the command, through envp, on both paths. */
Test(verdicts, native_values_travel_in_envp)
{
	const char *argv[] = { "/bin/sh", "-c", "printf '%s %s\\n' \"$CORDON_T_SET\" \"$CORDON_T_KEPT\"", NULL };
	struct cordon_policy *p;
	struct cordon_confined *c;

	setenv("CORDON_T_KEPT", "kept-value-71", 1);
	p = policy();
	cr_assert_eq(cordon_policy_keep_env(p, "CORDON_T_KEPT", NULL), 0);
	cr_assert_eq(cordon_policy_set_env(p, "CORDON_T_SET", "set-value-42", NULL), 0);
	unsetenv("CORDON_T_KEPT"); /* the snapshot travels, not our environment now */
	c = native(p, argv);
	STRV_FOREACH(a, c->argv) {
		cr_assert_null(strstr(*a, "set-value-42"), "%s", *a);
		cr_assert_null(strstr(*a, "kept-value-71"), "%s", *a);
	}
	for (int in_process = 0; in_process <= 1; in_process++) {
		struct cordon_result *res = run(c, in_process);

		cr_assert_eq(res->exit_code, 0, "%s", res->output);
		cr_expect_str_eq(res->output, "set-value-42 kept-value-71\n", "in_process=%d", in_process);
		cordon_result_free(res);
	}
	cr_assert_null(getenv("CORDON_T_SET"), "the caller's environment is untouched");
	cordon_confined_free(c);
	cordon_policy_free(p);
}

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(body, f);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
}

Test(verdicts, bwrap_failing_before_the_command_is_runner_failed)
{
	const char *argv[] = { "/bin/true", NULL };
	char fake[128];
	struct cordon_policy *p = policy();
	struct cordon_confined *c;
	struct cordon_result *res;

	snprintf(fake, sizeof(fake), "%s/bwrap", dir);
	write_script(fake, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
	c = confine(CORDON_BACKEND_BWRAP, fake, p, argv);
	res = run(c, false);
	cr_assert_eq(res->exit_code, 1);
	cr_assert_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "%s", cordon_verdict_to_string(res->verdict));
	cr_assert_str_eq(res->runner_line, "bwrap: setting up uid map: Permission denied");
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

Test(verdicts, real_bwrap_command_output_is_its_own)
{
	const char *argv[] = { "/bin/sh", "-c", "echo 'bwrap: x' >&2; exit 1", NULL };
	const char *env_argv[] = { "/bin/sh", "-c", "printf '%s\\n' \"$CORDON_T_SET\"", NULL };
	struct cordon_policy *p;
	struct cordon_confined *c;
	struct cordon_result *res;

	live_skip_unless(system("bwrap --ro-bind / / --unshare-net true 2>/dev/null") == 0, "bwrap cannot run here");
	p = policy();
	c = confine(CORDON_BACKEND_BWRAP, "bwrap", p, argv);
	res = run(c, false);
	cr_assert_eq(res->exit_code, 1, "%s", res->output);
	cr_expect_eq(res->verdict, CORDON_VERDICT_OK, "%s: %s", cordon_verdict_to_string(res->verdict), res->output);
	cordon_result_free(res);
	cordon_confined_free(c);

	cr_assert_eq(cordon_policy_set_env(p, "CORDON_T_SET", "bwrap-set-value", NULL), 0);
	c = confine(CORDON_BACKEND_BWRAP, "bwrap", p, env_argv);
	STRV_FOREACH(a, c->argv)
		cr_assert_null(strstr(*a, "bwrap-set-value"), "%s", *a);
	res = run(c, false);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	cr_expect_str_eq(res->output, "bwrap-set-value\n");
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* The native probe reads the runner's failures from its status channel:
 * a record is the runner failing, and names why; a runner that merely
 * prints the runner's words is reported as a failed probe, not as the
 * runner's own reason. Either way the backend is unusable. */
Test(verdicts, native_probe_reads_the_status_channel)
{
	struct cordon_probe_report rep = {};
	char fake[128];

	snprintf(fake, sizeof(fake), "%s/runner", dir);
	write_script(fake, "#!/bin/sh\nprintf 'landlock\\t-\\tcordon: landlock: from the record\\n' >&3\n"
			   "echo 'cordon: landlock: from stderr' >&2\nexit 125\n");
	cr_assert_eq(cordon_set_runner_path(fake), 0);
	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_NATIVE, 5000, &rep), 0);
	live_skip_unless(!strstr(rep.reason, "Landlock is unavailable"), "no Landlock here: %s", rep.reason);
	cr_assert_not(rep.usable);
	cr_assert(strstr(rep.reason, "the runner failed (exit 125): cordon: landlock: from the record"), "%s", rep.reason);

	write_script(fake, "#!/bin/sh\necho 'cordon: landlock: from stderr' >&2\nexit 125\n");
	rep = (struct cordon_probe_report){};
	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_NATIVE, 5000, &rep), 0);
	cr_assert_not(rep.usable);
	cr_assert(strstr(rep.reason, "the probe failed (exit 125): cordon: landlock: from stderr"), "%s", rep.reason);

	/* control: the real runner probes usable */
	cr_assert_eq(cordon_set_runner_path(getenv("CORDON")), 0);
	rep = (struct cordon_probe_report){};
	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_NATIVE, 5000, &rep), 0);
	cr_assert(rep.usable, "%s", rep.reason);
}
