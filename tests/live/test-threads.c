/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Threads: the in-process runner refuses to run in a multi-threaded process
 * (a forked copy of one would carry other threads' locks half-held), the
 * spawn path execs the runner instead of entering it when the caller has
 * threads, and the library's process-wide state holds up when many threads
 * use it at once. Each refusal has a single-threaded control (a forked
 * child, which has one thread) showing the same call goes through.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"
#include "cordon/runner.h"

static char dir[64], marker[128];

static void setup(void)
{
	const char *cordon = getenv("CORDON");

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-threads.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(marker, sizeof(marker), "%s/marker", dir);
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(threads, .init = setup, .fini = teardown);

static int count_threads(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/self/status", "re");
	int n = -1;

	cr_assert_not_null(f);
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static int hold_r = -1;

/* A thread that just waits: the process has two threads while it lives. */
static void *idle_thread(void *arg)
{
	char c;

	(void)arg;
	(void)!read(hold_r, &c, 1);
	return NULL;
}

/* cordon_exec_main with a status channel on fd 9; returns its exit code
 * and what it wrote on the channel. */
static int exec_main_with_status(char *status, size_t size)
{
	int p[2], rc;
	ssize_t l;
	char *argv[] = { "exec", "--status-fd", "9", "--isolation", "light", "--write", dir, "--", "/bin/sh", "-c", NULL, NULL };
	char script[256];

	snprintf(script, sizeof(script), "touch '%s'", marker);
	argv[10] = script;
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(dup2(p[1], 9), 9);
	close(p[1]);
	rc = cordon_exec_main(11, argv);
	close(9);
	l = read(p[0], status, size - 1);
	status[l > 0 ? l : 0] = '\0';
	close(p[0]);
	return rc;
}

Test(threads, exec_main_refuses_in_a_threaded_process)
{
	pthread_t t;
	int hold[2];
	char status[512];

	cr_assert_eq(pipe2(hold, O_CLOEXEC), 0);
	hold_r = hold[0];
	cr_assert_eq(pthread_create(&t, NULL, idle_thread, NULL), 0);
	cr_assert_geq(count_threads(), 2);

	int rc = exec_main_with_status(status, sizeof(status));
	cr_assert_eq(rc, 125, "it ran: %d", rc);
	cr_assert_eq(strncmp(status, "threads\t", 8), 0, "the record: %s", status);
	cr_assert_not_null(strstr(status, "threads: the runner runs only in a single-threaded process"), "%s",
			   status);
	cr_assert_neq(access(marker, F_OK), 0, "the command ran");

	close(hold[1]);
	pthread_join(t, NULL);
	close(hold[0]);

	/* control: a forked child has one thread; the same call gets past the
	 * check (and, where the light runner works here, runs the command) */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char st[512];
		int code = exec_main_with_status(st, sizeof(st));

		/* exec'd on success: we only get here when the runner failed */
		_exit(strncmp(st, "threads\t", 8) == 0 ? 99 : code);
	}
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws));
	cr_assert_neq(WEXITSTATUS(ws), 99, "the single-threaded child was refused for threads");
	live_skip_unless(WEXITSTATUS(ws) == 0, "the light runner cannot run here (exit %d)", WEXITSTATUS(ws));
	cr_assert_eq(access(marker, F_OK), 0, "the runner said 0 but the command did not run");
}

/* A runner_main that only leaves a mark: was the runner entered in-process? */
static int fake_runner_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	return 42;
}

static int run_with_fake_runner(void)
{
	struct cordon_policy *p = NULL;
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	struct cordon_confined *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_run_opts o = { .timeout_ms = 20000, .runner_main = fake_runner_main };
	const char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	int code;

	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	if (cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, dir, &p, NULL) < 0 || cordon_confine_with(&info, argv, p, &c, NULL) < 0 ||
	    cordon_run(c, &o, &res) < 0)
		return -1;
	code = res->exit_code;
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
	return code;
}

Test(threads, a_threaded_caller_execs_the_runner)
{
	pthread_t t;
	int hold[2];

	cr_assert_eq(pipe2(hold, O_CLOEXEC), 0);
	hold_r = hold[0];
	cr_assert_eq(pthread_create(&t, NULL, idle_thread, NULL), 0);
	int code = run_with_fake_runner();
	close(hold[1]);
	pthread_join(t, NULL);
	close(hold[0]);
	cr_assert_neq(code, -1);
	cr_assert_neq(code, 42, "runner_main was entered in a threaded caller");
	cr_assert_neq(access(marker, F_OK), 0, "runner_main was entered in a threaded caller");

	/* control: single-threaded (a forked child), it is entered */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(run_with_fake_runner() == 42 ? 0 : 1);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "not entered in a single-threaded caller");
	cr_assert_eq(access(marker, F_OK), 0);
}

#define N_THREADS 8
#define ROUNDS 200

static char path_a[PATH_MAX], path_b[PATH_MAX];
static volatile int stop_flipping;

static void *flipper(void *arg)
{
	(void)arg;
	for (int i = 0; !stop_flipping; i++)
		(void)cordon_set_runner_path(i % 2 ? path_a : path_b);
	return NULL;
}

static void *worker(void *arg)
{
	intptr_t bad = 0;

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct cordon_backend_info info;
		struct cordon_limits_plan plan;
		struct cordon_limits l = { .memory = 64u << 20 };
		struct cordon_policy *p = NULL;
		const char *r = cordon_runner_path();

		/* whole, never a mix of the two */
		if (strcmp(r, path_a) != 0 && strcmp(r, path_b) != 0)
			bad++;
		if (cordon_backend_select(0, &info) < 0 || info.backend != CORDON_BACKEND_UNAVAILABLE)
			bad++;
		if (cordon_limits_check(&l, NULL, &plan, NULL) < 0 && errno != EOPNOTSUPP)
			bad++;
		if (cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, dir, &p, NULL) < 0)
			bad++;
		else if (!cordon_writable_roots(p)[0])
			bad++;
		cordon_policy_free(p);
	}
	return (void *)bad;
}

Test(threads, process_wide_state_from_many_threads)
{
	pthread_t w[N_THREADS], f;

	/* same length, different bytes: a torn read shows as neither */
	snprintf(path_a, sizeof(path_a), "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/cordon");
	snprintf(path_b, sizeof(path_b), "/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/cordon");
	cr_assert_eq(cordon_set_runner_path(path_a), 0);
	/* pinned "unavailable": select never probes, so every thread reads
	 * the pin under the lock */
	cr_assert_eq(cordon_pin_backend(CORDON_BACKEND_UNAVAILABLE), 0);
	cr_assert_eq(pthread_create(&f, NULL, flipper, NULL), 0);
	for (int i = 0; i < N_THREADS; i++)
		cr_assert_eq(pthread_create(&w[i], NULL, worker, NULL), 0);
	intptr_t bad = 0;
	for (int i = 0; i < N_THREADS; i++) {
		void *rv;

		pthread_join(w[i], &rv);
		bad += (intptr_t)rv;
	}
	stop_flipping = 1;
	pthread_join(f, NULL);
	cr_assert_eq(bad, 0, "%ld failures across %d threads", (long)bad, N_THREADS);
}
