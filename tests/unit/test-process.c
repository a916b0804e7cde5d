/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_kill_descendants: a subreaper's clean-up after a run. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"

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
