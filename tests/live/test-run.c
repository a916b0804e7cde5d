/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_run for real: merged output, exit status, caps, timeouts, annotation. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "policy.h"
#include "process.h"
#include "strv.h"

static struct cordon_confined *confined(enum cordon_enforcement enf, const char *const *argv)
{
	struct cordon_confined *c = calloc(1, sizeof(*c));

	c->argv = strv_copy(argv);
	c->mode = CORDON_MODE_WORKSPACE_WRITE;
	c->enforcement = enf;
	c->denial_signatures = calloc(1, sizeof(char *));
	c->fatal_signatures = calloc(1, sizeof(char *));
	c->informational_lines = calloc(1, sizeof(char *));
	if (enf == CORDON_ENFORCEMENT_BWRAP) {
		strv_extend_many(&c->denial_signatures, "read-only file system", "permission denied", NULL);
		strv_push(&c->fatal_signatures, "bwrap: ");
	}
	return c;
}

static struct cordon_result *run(struct cordon_confined *c, int timeout_ms, size_t cap)
{
	struct cordon_run_opts o = { .timeout_ms = timeout_ms, .max_output = cap };
	struct cordon_result *res = NULL;

	cr_assert_eq(cordon_run(c, &o, &res), 0);
	return res;
}

Test(run, merge_stderr_passes_arguments_verbatim_and_keeps_status)
{
	/* The wrapper, spawned as a framework would: stdout captured, stderr
	 * left alone, so only the wrapper's 2>&1 can bring "err" into it. */
	const char *argv[] = { "/bin/sh", "-c", "for a; do printf '[%s]' \"$a\"; done; echo err >&2; exit 7", "sh",
			       "a;b", "$(touch /tmp/cordon-should-not-exist)", "'q\"uote", NULL };
	struct spawn_opts o = { .cap = 4096, .capture_stdout = true, .own_group = true };
	struct spawn_result res;
	char **merged = NULL;

	unlink("/tmp/cordon-should-not-exist");
	cr_assert_eq(cordon_merge_stderr(argv, &merged), 0);
	o.argv = (const char *const *)merged;
	cr_assert_eq(spawn_run(&o, &res), 0);
	cr_assert_eq(res.exit_code, 7);
	cr_assert_str_eq(res.output, "[a;b][$(touch /tmp/cordon-should-not-exist)]['q\"uote]err\n");
	cr_assert_neq(access("/tmp/cordon-should-not-exist", F_OK), 0);
	free(res.output);
	cordon_strv_free(merged);
}

Test(run, output_and_errors_merged_in_order)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; echo out2; exit 7", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
	struct cordon_result *res = run(c, 0, 0);

	cr_assert_eq(res->exit_code, 7);
	cr_assert_str_eq(res->output, "out\nerr\nout2\n");
	cr_assert_str_eq(res->annotated, "Exit code: 7\nout\nerr\nout2\n");
	cordon_result_free(res);
	cordon_confined_free(c);
}

/* Apart on request: stdout in output, stderr in stderr_output, each with
 * its count; the verdict and the annotation read both. */
Test(run, separate_stderr_keeps_the_streams_apart)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo 'x: Permission denied' >&2; echo out2; exit 1", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_BWRAP, argv);
	struct cordon_run_opts o = { .separate_stderr = true };
	struct cordon_result *res = NULL;

	cr_assert_eq(cordon_run(c, &o, &res), 0);
	cr_assert_str_eq(res->output, "out\nout2\n");
	cr_assert_eq(res->output_total, 9);
	cr_assert_str_eq(res->stderr_output, "x: Permission denied\n");
	cr_assert_eq(res->stderr_len, 21);
	cr_assert_eq(res->stderr_total, 21);
	/* the denial is on stderr only, and still seen */
	cr_assert_eq(res->verdict, CORDON_VERDICT_DENIED, "%s", cordon_verdict_to_string(res->verdict));
	cr_assert(strstr(res->annotated, "out2\nx: Permission denied\n"), "%s", res->annotated);
	cordon_result_free(res);

	/* control: merged, as by default, nothing apart */
	o.separate_stderr = false;
	cr_assert_eq(cordon_run(c, &o, &res), 0);
	cr_assert_str_eq(res->output, "out\nx: Permission denied\nout2\n");
	cr_assert_null(res->stderr_output);
	cr_assert_eq(res->verdict, CORDON_VERDICT_DENIED);
	cordon_result_free(res);
	cordon_confined_free(c);
}

/* Captured, yet reading the caller's stdin (a pipe here) instead of
 * /dev/null; in a child, whose fd 0 the test may replace. */
Test(run, capture_stdin_reads_the_callers_input)
{
	const char *argv[] = { "/bin/cat", NULL };

	for (int capture = 0; capture <= 1; capture++) {
		int p[2], status;
		pid_t pid;

		cr_assert_eq(pipe(p), 0);
		cr_assert_eq(write(p[1], "fed\n", 4), 4);
		close(p[1]);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
			struct cordon_run_opts o = { .capture_stdin = capture };
			struct cordon_result *res = NULL;

			if (dup2(p[0], 0) < 0 || cordon_run(c, &o, &res) < 0)
				_exit(10);
			_exit(strcmp(res->output, capture ? "fed\n" : "") == 0 ? 0 : 11);
		}
		close(p[0]);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "capture_stdin=%d: status %#x", capture,
			  status);
	}
}

Test(run, exit_zero_output_returned_as_is)
{
	const char *argv[] = { "/bin/sh", "-c", "echo 'touch: Read-only file system'", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_BWRAP, argv);
	struct cordon_result *res = run(c, 0, 0);

	cr_assert_eq(res->verdict, CORDON_VERDICT_OK);
	cr_assert_str_eq(res->annotated, "touch: Read-only file system\n");
	cordon_result_free(res);
	cordon_confined_free(c);
}

Test(run, denial_is_annotated_not_replaced)
{
	const char *argv[] = { "/bin/sh", "-c", "echo 'touch: cannot touch /etc/x: Read-only file system'; exit 1", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_BWRAP, argv);
	struct cordon_result *res = run(c, 0, 0);

	cr_assert_eq(res->verdict, CORDON_VERDICT_DENIED);
	cr_assert_str_eq(res->annotated, "Exit code: 1\ntouch: cannot touch /etc/x: Read-only file system\n"
					 "[cordon: access denied under workspace-write mode]\n");
	cordon_result_free(res);
	cordon_confined_free(c);
}

Test(run, runner_failure_is_annotated_with_the_line)
{
	const char *argv[] = { "/bin/sh", "-c", "printf 'bwrap: Creating new namespace failed: nope'; exit 1", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_BWRAP, argv);
	struct cordon_result *res = run(c, 0, 0);

	cr_assert_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(res->runner_line, "bwrap: Creating new namespace failed: nope");
	cr_assert_str_eq(res->annotated, "Exit code: 1\nbwrap: Creating new namespace failed: nope\n"
					 "[cordon: the bwrap runner reported an error, so the command may never have run: "
					 "bwrap: Creating new namespace failed: nope]\n");
	cordon_result_free(res);
	cordon_confined_free(c);
}

Test(run, output_capped_rest_counted)
{
	const char *argv[] = { "/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
	struct cordon_result *res = run(c, 0, 1 << 20);

	cr_assert_eq(res->exit_code, 0);
	cr_assert(res->truncated);
	cr_assert_eq(res->output_len, 1 << 20);
	cr_assert_eq(res->output_total, 3000000);
	cr_assert(strstr(res->annotated, "[cordon: output truncated: 1048576 of 3000000 bytes shown]"));
	cordon_result_free(res);
	cordon_confined_free(c);
}

/* Is any process whose command line contains marker alive? */
static bool marker_alive(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	while (d && (de = readdir(d))) {
		char path[300], buf[512];
		ssize_t l;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		l = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (ssize_t i = 0; i < l; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (l > 0) {
			buf[l] = '\0';
			if (strstr(buf, marker))
				found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

Test(run, timeout_kills_the_whole_tree_including_setsid_children)
{
	const char *argv[] = { "/bin/sh", "-c", "setsid sleep 300.4242 & sleep 300.4343", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
	struct cordon_result *res;

	res = run(c, 1000, 0);
	cr_assert_eq(res->verdict, CORDON_VERDICT_TIMEOUT);
	/* the struct says what `cordon run` exits with, as its JSON does */
	cr_assert_eq(res->exit_code, CORDON_EXIT_TIMEOUT);
	cr_assert_lt(res->duration_ms, 3000);
	cr_assert(strstr(res->annotated, "Exit code: 124\n"), "%s", res->annotated);
	cr_assert(strstr(res->annotated, "[cordon: timed out after 1000 ms"), "%s", res->annotated);
	usleep(100 * 1000);
	cr_assert_not(marker_alive("300.4242"), "the setsid sleep survived the timeout");
	cr_assert_not(marker_alive("300.4343"), "the sleep survived the timeout");
	cordon_result_free(res);
	cordon_confined_free(c);
}

Test(run, killed_by_signal_reported)
{
	const char *argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
	struct cordon_result *res = run(c, 0, 0);

	cr_assert_eq(res->signal, 9);
	cr_assert_eq(res->exit_code, -1);
	cr_assert(strstr(res->annotated, "Exit code: 137 (killed by signal 9, KILL)"), "%s", res->annotated);
	cordon_result_free(res);
	cordon_confined_free(c);
}

/* A middle process runs `sh -c 'echo $$ > FILE; exec sleep 300'` (through
 * spawn_run when spawned, else a plain fork+exec), and is SIGKILLed once the
 * pid is written. Returns the command's pid. */
static pid_t start_and_kill_middle(bool spawned, const char *file)
{
	char script[256];
	pid_t middle, cmd = 0;
	int status;

	unlink(file);
	snprintf(script, sizeof(script), "echo $$ > %s; exec sleep 300.4545", file);
	middle = fork();
	cr_assert_geq(middle, 0);
	if (middle == 0) {
		const char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct spawn_opts o = { .argv = argv, .cap = 64, .capture_stdout = true, .capture_stderr = true };
		struct spawn_result res;

		if (spawned)
			_exit(spawn_run(&o, &res) < 0 ? 1 : 0);
		if (fork() == 0) {
			execv("/bin/sh", (char *const *)argv);
			_exit(127);
		}
		pause();
		_exit(0);
	}
	for (int i = 0; i < 200 && cmd <= 0; i++) {
		FILE *f = fopen(file, "re");

		if (f) {
			if (fscanf(f, "%d", &cmd) != 1)
				cmd = 0;
			fclose(f);
		}
		if (cmd <= 0)
			usleep(10 * 1000);
	}
	cr_assert_gt(cmd, 0, "the command never started");
	kill(middle, SIGKILL);
	waitpid(middle, &status, 0);
	unlink(file);
	return cmd;
}

/* gone, or a zombie waiting for a reaper */
static bool pid_alive(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	alive = fgets(buf, sizeof(buf), f) && strrchr(buf, ')') && strrchr(buf, ')')[2] != 'Z';
	fclose(f);
	return alive;
}

Test(run, a_spawned_command_dies_with_its_caller)
{
	pid_t cmd = start_and_kill_middle(true, "/tmp/cordon-live-pdeath");
	bool gone = false;

	for (int i = 0; i < 200 && !gone; i++) {
		gone = !pid_alive(cmd);
		if (!gone)
			usleep(10 * 1000);
	}
	if (!gone)
		kill(cmd, SIGKILL);
	cr_assert(gone, "the command outlived the process that spawned it");
}

Test(run, control_a_plain_child_outlives_its_caller)
{
	pid_t cmd = start_and_kill_middle(false, "/tmp/cordon-live-pdeath-control");
	bool alive;

	usleep(300 * 1000);
	alive = pid_alive(cmd);
	kill(cmd, SIGKILL);
	cr_assert(alive, "without the parent-death signal the command should have survived");
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	stop_flag = sig;
}

Test(run, stop_flag_kills_the_tree_and_returns)
{
	pid_t middle = fork();
	int status;

	cr_assert_geq(middle, 0);
	if (middle == 0) {
		const char *argv[] = { "/bin/sh", "-c", "setsid sleep 300.4646 & sleep 300.4747", NULL };
		struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
		struct cordon_run_opts o = { .timeout_ms = 20000, .stop = &stop_flag };
		struct cordon_result *res = NULL;
		uint64_t t0 = now_usec();

		signal(SIGALRM, on_alarm);
		alarm(1);
		if (cordon_run(c, &o, &res) < 0)
			_exit(10);
		if (now_usec() - t0 > 3000000)
			_exit(11); /* the stop took too long */
		if (res->verdict == CORDON_VERDICT_TIMEOUT)
			_exit(12);
		usleep(100 * 1000);
		if (marker_alive("300.4646") || marker_alive("300.4747"))
			_exit(13);
		_exit(0);
	}
	waitpid(middle, &status, 0);
	cr_assert(WIFEXITED(status), "the middle process died");
	cr_assert_eq(WEXITSTATUS(status), 0, "stop: failure %d", WEXITSTATUS(status));
}

/* A run's environment additions that name a variable cordon sets itself
 * (its own, the proxy's in any case) or a loader's are refused with the
 * reason, and nothing starts: before, cordon's names were dropped without
 * a word. Control: an ordinary name reaches the command. */
Test(run, env_additions_cordon_sets_are_refused)
{
	const char *argv[] = { "/bin/sh", "-c", "echo \"RAN $FOO\"", NULL };
	const char *refused[] = { "HTTPS_PROXY=http://127.0.0.1:1", "Http_Proxy=x", "CORDON_SANDBOX=0",
				  "CORDON_SANDBOX_MODE=danger-full-access", "LD_PRELOAD=/tmp/x.so" };
	struct cordon_confined *c = confined(CORDON_ENFORCEMENT_NONE, argv);
	struct cordon_result *res = NULL;
	struct cordon_child *child;
	struct cordon_error e;
	int r;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *env[] = { refused[i], NULL };
		struct cordon_run_opts o = { .env = env };

		child = NULL;
		e = (struct cordon_error){};
		r = cordon_spawn_confined(c, &o, NULL, &child, &e);
		cr_expect_eq(r, -EPERM, "%s: %d", refused[i], r);
		cr_expect_null(child, "%s: a child started", refused[i]);
		cr_expect_not_null(strstr(e.message, "refusing to set"), "%s: %s", refused[i], e.message);
	}
	const char *env[] = { "FOO=bar", NULL };
	struct cordon_run_opts o = { .env = env };

	cr_assert_eq(cordon_spawn_confined(c, &o, NULL, &child, NULL), 0);
	cr_assert_eq(cordon_wait(child, &res), 0);
	cr_assert_str_eq(res->output, "RAN bar\n");
	cordon_result_free(res);
	cordon_child_free(child);
	cordon_confined_free(c);
}
