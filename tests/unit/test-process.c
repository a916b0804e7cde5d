/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_kill_descendants: a subreaper's clean-up after a run. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "process.h"
#include "runlimits.h"

/* A child that starts a grandchild and reports how the grandchild ended:
 * exit 0 only when it was SIGKILLed. */
static pid_t start_family(pid_t *ret_grandchild)
{
	int fds[2];
	pid_t child, grandchild = 0;

	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		int st;
		pid_t g = fork();

		if (g == 0) {
			for (;;)
				pause();
		}
		(void)!write(fds[1], &g, sizeof(g));
		if (waitpid(g, &st, 0) != g)
			_exit(2);
		_exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
	close(fds[0]);
	*ret_grandchild = grandchild;
	return child;
}

Test(process, kill_descendants_kills_below_and_spares_the_root, .timeout = 30)
{
	pid_t grandchild, child = start_family(&grandchild);
	int st;

	cr_assert_gt(grandchild, 0);
	cr_expect_geq(cordon_kill_descendants(child), 1, "the grandchild was signalled");
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_expect(WIFEXITED(st), "the child itself was spared");
	cr_expect_eq(WEXITSTATUS(st), 0, "the grandchild ended by SIGKILL");
}

Test(process, kill_descendants_of_a_childless_process_is_nothing)
{
	pid_t child = fork();
	int st;

	cr_assert_geq(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	cr_expect_eq(cordon_kill_descendants(child), 0);
	cr_expect_eq(waitpid(child, &st, WNOHANG), 0, "the root is still there");
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_expect_eq(cordon_kill_descendants(0), 0, "no pid, nothing walked");
}

/* The threads of this process by listing /proc/self/task, as the count
 * was made before it read the directory's link count. */
static int listed_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void *wait_on(void *arg)
{
	int fd = *(int *)arg;
	char c;

	return read(fd, &c, 1) < 0 ? NULL : arg;
}

/* One stat of /proc/self/task counts the threads (its links: 2 + one per
 * thread): the same number the listing gives, one thread or five. */
Test(process, threads_counted_as_listed)
{
	pthread_t t[4];
	int p[2];

	cr_assert_eq(process_count_threads(), listed_threads());
	cr_assert_eq(pipe(p), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, wait_on, &p[0]), 0);
	cr_assert_eq(process_count_threads(), listed_threads());
	cr_assert_geq(process_count_threads(), 5);
	close(p[1]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	close(p[0]);
	cr_assert_eq(process_count_threads(), listed_threads());
}

/* Every fd passed at a fixed number reaches the child there, all four the
 * runner can be given at once (an exec file, a broker socket, a credential
 * table, the plan), exec'd or forked. */
static void passes_four(bool forked)
{
	struct spawn_opts o = {
		.argv = (const char *const[]){ "/bin/sh", "-c", "cat <&4; cat <&5; cat <&6; cat <&7", NULL },
		.cap = 4096,
		.capture_stdout = true,
		.capture_stderr = true,
		.n_pass = SPAWN_PASS_MAX,
	};
	struct spawn_result res = {};
	char name[] = "/tmp/cordon-pass-XXXXXX";

	cr_assert_eq(SPAWN_PASS_MAX, 4);
	for (int i = 0; i < 4; i++) {
		int fd = mkstemp(name);
		char word[8];

		cr_assert(fd >= 0);
		unlink(name);
		memcpy(name + strlen(name) - 6, "XXXXXX", 6);
		snprintf(word, sizeof(word), "pass%d", i);
		cr_assert_eq(pwrite(fd, word, 5, 0), 5);
		o.pass_fd[i] = fd;
		o.pass_at[i] = 4 + i;
	}
	/* forked: the way limits take (the child joins them, then execs) */
	struct limits_spawn none = { .procs_fd = { -1, -1, -1, -1 } };

	if (forked)
		o.limits = &none;
	cr_assert_eq(spawn_run(&o, &res), 0);
	cr_assert_eq(res.exit_code, 0, "%s", res.output);
	cr_assert_str_eq(res.output, "pass0pass1pass2pass3");
	free(res.output);
	free(res.status);
	free(res.err_output);
	for (int i = 0; i < 4; i++)
		close(o.pass_fd[i]);
}

Test(process, four_passed_fds_reach_the_child_exec)
{
	passes_four(false);
}

Test(process, four_passed_fds_reach_the_child_forked)
{
	passes_four(true);
}
