/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_spawn for real, through cordon.h only: many confined processes at
 * once from one poll loop the test owns, the caller's own stdio fds, and
 * the launch's limits applied without the caller copying them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"

#define N_CHILDREN 32

static char dir[64], outside[64];

static void setup(void)
{
	const char *cordon = getenv("CORDON");

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-spawn.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	/* beside the workspace, not in it: writable for us, not for a child */
	snprintf(outside, sizeof(outside), "/var/tmp/cordon-spawn-out.XXXXXX");
	cr_assert_not_null(mkdtemp(outside));
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, outside);
	(void)!system(cmd);
}

TestSuite(spawn, .init = setup, .fini = teardown);

static void skip_unless_native(void)
{
	struct cordon_probe_report rep = {};

	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_NATIVE, 5000, &rep), 0);
	live_skip_unless(rep.usable, "the native runner cannot run here: %s", rep.reason);
}

static struct cordon_launch *launch(const struct cordon_launch_opts *extra)
{
	struct cordon_launch_opts o = extra ? *extra : (struct cordon_launch_opts){};
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	o.workspace = dir;
	o.backend_set = true;
	o.backend = CORDON_BACKEND_NATIVE;
	cr_assert_eq(cordon_launch_new(NULL, &o, &l, &e), 0, "%s", e.message);
	return l;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

Test(spawn, thirty_two_at_once_from_one_poll_loop, .timeout = 120)
{
	struct cordon_launch *l;
	struct cordon_child *c[N_CHILDREN];
	struct cordon_result *res[N_CHILDREN] = {};
	char script[N_CHILDREN][192];
	struct cordon_error e = {};
	size_t left = N_CHILDREN;
	uint64_t start;

	skip_unless_native();
	l = launch(NULL);
	start = now_ms();
	for (int i = 0; i < N_CHILDREN; i++) {
		/* each one also tries to write outside its workspace: confined,
		 * so that fails; then a distinct exit code */
		snprintf(script[i], sizeof(script[i]),
			 "echo child %d; sleep 1; if touch '%s/%d' 2>/dev/null; then echo WROTE; fi; exit %d", i,
			 outside, i, 10 + i);
		const char *argv[] = { "/bin/sh", "-c", script[i], NULL };

		cr_assert_eq(cordon_spawn(l, argv, NULL, NULL, &c[i], &e), 0, "%d: %s", i, e.message);
		cr_assert_gt(cordon_child_pid(c[i]), 0);
		cr_assert_geq(cordon_child_output_fd(c[i]), 0, "output is captured by default");
		/* captured: no terminal of its own (a pty run: tools.t, terminal.t) */
		cr_assert(!cordon_child_terminal(c[i]));
	}
	cr_assert(!cordon_child_terminal(NULL));
	/* every child has been started before any is collected */
	while (left > 0) {
		struct pollfd pfd[N_CHILDREN * CORDON_CHILD_MAX_POLLFDS];
		size_t at[N_CHILDREN], n_of[N_CHILDREN], n = 0;
		int timeout = -1;

		for (int i = 0; i < N_CHILDREN; i++) {
			at[i] = n;
			n_of[i] = res[i] ? 0 : cordon_child_pollfds(c[i], pfd + n, &timeout);
			n += n_of[i];
		}
		int pr = poll(pfd, n, timeout);
		cr_assert(pr >= 0 || errno == EINTR);
		for (int i = 0; i < N_CHILDREN; i++) {
			if (res[i])
				continue;
			int r = cordon_child_step(c[i], pfd + at[i], pr > 0 ? n_of[i] : 0);

			cr_assert_geq(r, 0, "child %d: %s", i, strerror(-r));
			if (r == 1) {
				cr_assert_eq(cordon_collect(c[i], &res[i]), 0);
				left--;
			}
		}
	}
	uint64_t took = now_ms() - start;

	cr_log_info("%d confined children, each sleeping 1 s, all collected after %llu ms", N_CHILDREN,
		    (unsigned long long)took);

	for (int i = 0; i < N_CHILDREN; i++) {
		char want[32];

		cr_assert_eq(res[i]->exit_code, 10 + i, "child %d exited %d: %s", i, res[i]->exit_code, res[i]->output);
		cr_assert_eq(res[i]->enforcement, CORDON_ENFORCEMENT_NATIVE);
		snprintf(want, sizeof(want), "child %d\n", i);
		cr_assert_str_eq(res[i]->output, want, "child %d said: %s", i, res[i]->output);
		cr_assert_null(strstr(res[i]->output, "WROTE"));
		cordon_result_free(res[i]);
		cordon_child_free(c[i]);
	}
	/* one after another they would take 32 s and more */
	cr_assert_lt(took, 16000, "32 children took %llu ms: not run at once", (unsigned long long)took);
	/* nothing got out; control: unconfined, the same write works */
	for (int i = 0; i < N_CHILDREN; i++) {
		char f[96];

		snprintf(f, sizeof(f), "%s/%d", outside, i);
		cr_assert_neq(access(f, F_OK), 0, "child %d wrote outside its workspace", i);
	}
	char ctl[96];
	snprintf(ctl, sizeof(ctl), "%s/control", outside);
	int fd = open(ctl, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "unconfined, the write outside works");
	close(fd);
	cordon_launch_free(l);
}

Test(spawn, caller_stdio_fds)
{
	struct cordon_launch *l;
	struct cordon_child *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "/bin/sh", "-c", "read x; echo \"got $x\"; echo oops >&2; exit 3", NULL };
	int in[2], out[2];
	char buf[64] = "";
	ssize_t got;

	skip_unless_native();
	l = launch(NULL);
	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	cr_assert_eq(write(in[1], "hello\n", 6), 6);
	close(in[1]);
	struct cordon_stdio io = { .in = in[0], .out = out[1], .err = -1 };
	cr_assert_eq(cordon_spawn(l, argv, &io, NULL, &c, &e), 0, "%s", e.message);
	/* the child has its own copies: ours may go at once */
	close(in[0]);
	close(out[1]);
	cr_assert_eq(cordon_wait(c, &res), 0);
	cr_assert_eq(res->exit_code, 3);
	/* stdout went to the caller's pipe, stderr alone was captured */
	got = read(out[0], buf, sizeof(buf) - 1);
	cr_assert_gt(got, 0);
	cr_assert_str_eq(buf, "got hello\n");
	cr_assert_str_eq(res->output, "oops\n");
	close(out[0]);
	cordon_result_free(res);
	cordon_child_free(c);

	/* with passthrough there are no caller fds to take */
	struct cordon_run_opts ro = { .passthrough = true };
	cr_assert_eq(cordon_spawn(l, argv, &io, &ro, &c, &e), -EINVAL);
	cordon_launch_free(l);
}

Test(spawn, launch_limits_and_kill)
{
	struct cordon_launch_opts o = { .timeout_ms = 500 };
	struct cordon_launch *l;
	struct cordon_child *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "/bin/sh", "-c", "sleep 30", NULL };

	skip_unless_native();
	/* the launch's timeout holds without the caller passing it */
	l = launch(&o);
	cr_assert_eq(cordon_spawn(l, argv, NULL, NULL, &c, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_collect(c, &res), -EBUSY, "not before it has ended");
	cr_assert_eq(cordon_wait(c, &res), 0);
	cr_assert_eq(res->verdict, CORDON_VERDICT_TIMEOUT);
	cr_assert_lt(res->duration_ms, 10000);
	cordon_result_free(res);
	cordon_child_free(c);
	cordon_launch_free(l);

	/* cordon_child_kill ends the tree at once */
	l = launch(NULL);
	cr_assert_eq(cordon_spawn(l, argv, NULL, NULL, &c, &e), 0, "%s", e.message);
	cordon_child_kill(c);
	cr_assert_eq(cordon_wait(c, &res), 0);
	cr_assert_eq(res->signal, SIGKILL);
	cr_assert_lt(res->duration_ms, 5000);
	cordon_result_free(res);
	cordon_child_free(c);
	cordon_launch_free(l);
}

/* Does any process in pid's tree (pid included) carry needle in its
 * command line? Counts the processes seen into *seen. */
static bool tree_cmdline_has(pid_t pid, const char *needle, int *seen)
{
	char path[96], buf[8192];
	bool found = false;
	ssize_t l;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		l = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (l > 0) {
			(*seen)++;
			for (ssize_t i = 0; i < l; i++)
				if (buf[i] == '\0')
					buf[i] = ' ';
			buf[l] = '\0';
			found = strstr(buf, needle) != NULL;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return found;
	l = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (l <= 0)
		return found;
	buf[l] = '\0';
	for (char *s = buf, *end; *s; s = end) {
		long c = strtol(s, &end, 10);

		if (end == s)
			break;
		found |= tree_cmdline_has((pid_t)c, needle, seen);
	}
	return found;
}

/* Drive c until the file want exists (the child touches it once up). */
static void step_until_file(struct cordon_child *c, const char *want)
{
	uint64_t until = now_ms() + 20000;

	while (now_ms() < until) {
		struct pollfd pfd[CORDON_CHILD_MAX_POLLFDS];
		int timeout = 50;
		size_t n = cordon_child_pollfds(c, pfd, &timeout);
		int pr = poll(pfd, n, timeout);
		int r = cordon_child_step(c, pfd, pr > 0 ? n : 0);

		cr_assert_geq(r, 0);
		cr_assert_eq(r, 0, "the child ended before it said %s", want);
		if (access(want, F_OK) == 0)
			return;
	}
	cr_assert_fail("the child never got going");
}

Test(spawn, env_values_travel_in_envp_never_argv)
{
	const char *set[] = { "CORDON_T_SECRET=s3cr3t-4f9a", NULL };
	struct cordon_launch_opts o = { .set_env = set };
	struct cordon_launch *l;
	struct cordon_child *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};
	char marker[128], script[256];
	int seen = 0;

	skip_unless_native();
	l = launch(&o);
	snprintf(marker, sizeof(marker), "%s/up", dir);
	snprintf(script, sizeof(script), "echo \"v=$CORDON_T_SECRET\"; : > '%s'; sleep 30", marker);
	const char *argv[] = { "/bin/sh", "-c", script, NULL };

	cr_assert_eq(cordon_spawn(l, argv, NULL, NULL, &c, &e), 0, "%s", e.message);
	step_until_file(c, marker);
	/* the whole tree is up: runner, its init, the shell, sleep */
	cr_assert(!tree_cmdline_has(cordon_child_pid(c), "s3cr3t-4f9a", &seen),
		  "the value is in a command line of the confined tree");
	cr_assert_geq(seen, 2, "only %d processes seen: the check looked at nothing", seen);
	cordon_child_kill(c);
	cr_assert_eq(cordon_wait(c, &res), 0);
	cr_assert_not_null(strstr(res->output, "v=s3cr3t-4f9a\n"), "the command did not get it: %s", res->output);
	cordon_result_free(res);
	cordon_child_free(c);
	cordon_launch_free(l);

	/* control: the same check sees a value that is in argv */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", "sleep 30; true", "s3cr3t-4f9a", (char *)NULL);
		_exit(127);
	}
	seen = 0;
	for (int i = 0; i < 200 && !tree_cmdline_has(pid, "s3cr3t-4f9a", &seen); i++, seen = 0)
		usleep(10000);
	cr_assert(tree_cmdline_has(pid, "s3cr3t-4f9a", &seen), "the check cannot see argv");
	kill(-pid, SIGKILL); /* the shell and its sleep */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The caller's fds may be any numbers, 0, 1 and 2 included and crossed:
 * here the child's stdout is our fd 0 and its stderr our fd 1. Unconfined
 * (danger-full-access) so it runs anywhere; run in a forked child, whose
 * fds 0 and 1 we may replace. */
Test(spawn, caller_fds_crossed_onto_0_1_2)
{
	int a[2], b[2];
	pid_t pid;

	cr_assert_eq(pipe2(a, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(b, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct cordon_launch_opts o = { .mode_set = true, .mode = CORDON_MODE_DANGER_FULL_ACCESS, .workspace = dir };
		struct cordon_launch *l = NULL;
		struct cordon_child *c = NULL;
		struct cordon_result *res = NULL;
		const char *argv[] = { "/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 5", NULL };

		if (dup2(a[1], 0) < 0 || dup2(b[1], 1) < 0)
			_exit(10);
		close(a[1]);
		close(b[1]);
		struct cordon_stdio io = { .in = -1, .out = 0, .err = 1 };
		if (cordon_launch_new(NULL, &o, &l, NULL) < 0)
			_exit(11);
		if (cordon_spawn(l, argv, &io, NULL, &c, NULL) < 0)
			_exit(12);
		if (cordon_wait(c, &res) < 0)
			_exit(13);
		_exit(res->exit_code == 5 && res->output_len == 0 && res->enforcement == CORDON_ENFORCEMENT_NONE ? 0 : 14);
	}
	close(a[1]);
	close(b[1]);
	int ws;
	char out[64] = "", err[64] = "";

	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the child failed at step %d", WEXITSTATUS(ws));
	cr_assert_gt(read(a[0], out, sizeof(out) - 1), 0);
	cr_assert_gt(read(b[0], err, sizeof(err) - 1), 0);
	cr_assert_str_eq(out, "to-out\n");
	cr_assert_str_eq(err, "to-err\n");
	close(a[0]);
	close(b[0]);
}

/* A caller with 0, 1 and 2 closed: the pipes cordon_spawn makes would land
 * there, and the child's dup2 onto its stdio overwrite one before copying
 * it. Confined, through the proxy (whose socketpair in the runner would
 * land on 0 too): the command's output is captured whole, its exit kept. */
Test(spawn, caller_with_stdio_closed)
{
	pid_t pid;
	int ws;

	skip_unless_native();
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct cordon_launch_opts o = { .net_set = true, .net = CORDON_NET_PROXY };
		struct cordon_launch *l = launch(&o);
		struct cordon_child *c = NULL;
		struct cordon_result *res = NULL;
		const char *argv[] = { "/bin/sh", "-c",
				       "for f in 0 1 2; do [ -S /proc/self/fd/$f ] && exit 9; done; echo captured; exit 5",
				       NULL };

		close(0);
		close(1);
		close(2);
		if (cordon_spawn(l, argv, NULL, NULL, &c, NULL) < 0)
			_exit(12);
		if (cordon_wait(c, &res) < 0)
			_exit(13);
		if (res->exit_code != 5)
			_exit(res->exit_code == 9 ? 15 : 14);
		_exit(res->output_len == 9 && strcmp(res->output, "captured\n") == 0 ? 0 : 16);
	}
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the child failed at step %d", WEXITSTATUS(ws));
}
