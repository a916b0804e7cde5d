/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's wait for its child (init, or the command under light
 * isolation), shared by the plain wait and the terminal relay's loop:
 * signals taken with sigwaitinfo (no handlers, no EINTR) and passed on to
 * the command's process group; a dead proxy ends the run; nothing outlives
 * cordon. And how the runner ends: as its command did.
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_like.h"
#include "process.h"
#include "netproxy.h"
#include "runner.h"

void exec_forward_signal(pid_t to, int sig)
{
	/* The command leads its own session and process group (setsid): the
	 * group is what a terminal's ^C reaches, a shell's children included.
	 * Init is no group leader: it gets the signal alone. */
	if (getpgid(to) == to && kill(-to, sig) == 0)
		return;
	(void)kill(to, sig);
}

_Noreturn void exec_exit_like(int status)
{
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		die_of_signal(WTERMSIG(status));
	_exit(EXEC_EXIT_FAILED);
}

int exec_supervise_signal(struct exec_ctx *x, pid_t child, int sig, int *ret_status)
{
	int status;
	pid_t p;

	if (sig != SIGCHLD) {
		/* our parent-death signal (SIGTERM), or any signal after cordon
		 * went: nothing may outlive it */
		if (x->runner_parent && getppid() != x->runner_parent) {
			(void)kill_tree(child);
			(void)cordon_kill_descendants(getpid());
			return -1;
		}
		exec_forward_signal(child, sig);
		return 0;
	}
	/* --net proxy: the run ends with the proxy */
	if (x->proxy_pid > 0 && waitpid(x->proxy_pid, &status, WNOHANG) == x->proxy_pid)
		netproxy_died(x, child, status);
	/* light: orphans re-parent to us (subreaper); reap them too */
	while ((p = waitpid(x->plan->isolation == CORDON_ISOLATION_LIGHT ? -1 : child, &status, WNOHANG)) > 0)
		if (p == child) {
			*ret_status = status;
			return 1;
		}
	if (p < 0 && errno != EINTR && errno != ECHILD)
		exec_die("wait", "waitpid: %m");
	return 0;
}

int exec_supervise(struct exec_ctx *x, pid_t child)
{
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&x->forward, &si), status = 0, r;

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			exec_die("wait", "sigwaitinfo: %m");
		}
		r = exec_supervise_signal(x, child, sig, &status);
		if (r < 0)
			_exit(128 + SIGKILL);
		if (r > 0)
			return status;
	}
}

