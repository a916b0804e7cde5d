/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's wait for its child (init, or the command under light
 * isolation), shared by the plain wait and the terminal relay's loop:
 * signals blocked and read from a signalfd (no handlers, no EINTR) and
 * passed on to the command's process group; a dead proxy ends the run;
 * nothing outlives cordon. The plain wait under full isolation ends at
 * init's word that the sandbox is empty, before init's own exit. And how
 * the runner ends: as its command did.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
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

/* Init's word that the sandbox is empty (init.c's init_end): the run's
 * end, without waiting for init's own exit. End of file instead (init died
 * without it, or the command's status never came): wait for init as
 * before. */
static bool sandbox_emptied(struct exec_ctx *x, struct pollfd *done)
{
	char c;
	ssize_t n = read(done->fd, &c, 1);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	done->fd = -1;
	return n == 1 && __atomic_load_n(&x->shared->have_status, __ATOMIC_ACQUIRE);
}

int exec_supervise(struct exec_ctx *x, pid_t child)
{
	_cleanup_close_ int sfd = signalfd(-1, &x->forward, SFD_CLOEXEC | SFD_NONBLOCK);
	struct pollfd fds[2] = { { .fd = sfd, .events = POLLIN }, { .fd = x->done_fd[0], .events = POLLIN } };

	if (sfd < 0)
		exec_die("wait", "signalfd: %m");
	for (;;) {
		struct signalfd_siginfo si;
		int status = 0, r;

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			exec_die("wait", "poll: %m");
		}
		if (fds[1].fd >= 0 && fds[1].revents && sandbox_emptied(x, &fds[1]))
			return x->shared->status;
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			r = exec_supervise_signal(x, child, (int)si.ssi_signo, &status);
			if (r < 0)
				_exit(128 + SIGKILL);
			if (r > 0)
				return status;
		}
	}
}
