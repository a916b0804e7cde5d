/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid 1 of the sandbox (the runner's wait is supervise.c). Init blocks the
 * signals it passes on and takes them with sigwaitinfo: no handlers, no
 * EINTR, and a SIGCHLD that arrives early simply waits in the queue.
 *
 * Init applies the mount and network steps, forks the command, then reaps
 * everything (orphans re-parent to it), forwards the runner's signals to
 * the command, and when the command ends writes its wait status into the
 * page shared with the runner, ends every other process of the sandbox,
 * tells the runner so (init_end) and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker.h"
#include "cleanup.h"
#include "gate_common.h"
#include "netproxy.h"
#include "process.h"
#include "runner.h"
#include "steps.h"
#include "syscall_filter.h"
#include "unix_gate.h"

extern char **environ;

/* The command has ended, and so does the rest of the sandbox, here and now
 * rather than in the kernel's teardown after init's exit (which also
 * unmounts the whole tree: some 0.4 ms the caller would wait through).
 * Init is pid 1: kill(-1) reaches every other process of the namespace,
 * and none can refuse it (each has init's uid, no capability over init's
 * user namespace, and a Landlock domain nested in init's). Orphans
 * re-parent to init, so once waitpid says ECHILD no process of the
 * sandbox is left. Only then are the caller's pipes let go and the runner
 * told (one byte on done_fd) that the sandbox is empty: it reports the
 * run's end without waiting for init's own. */
_Noreturn static void init_end(struct exec_ctx *x, int status)
{
	x->shared->status = status;
	__atomic_store_n(&x->shared->have_status, 1, __ATOMIC_RELEASE);
	(void)kill(-1, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	bool empty = errno == ECHILD;

	if (empty && x->end_fd >= 0) {
		/* cordon run's word, as the runner's exit would have said it
		 * (exec_exit_like: the code, or the signal without a core) */
		int32_t st = WIFSIGNALED(status) ? W_EXITCODE(0, WTERMSIG(status))
			   : W_EXITCODE(WIFEXITED(status) ? WEXITSTATUS(status) : EXEC_EXIT_FAILED, 0);

		/* cordon run may be gone: no SIGPIPE for that */
		(void)signal(SIGPIPE, SIG_IGN);
		(void)!write(x->end_fd, &st, sizeof(st));
	}
	if (empty && x->done_fd[1] >= 0) {
		(void)close_range(0, (unsigned)x->done_fd[1] - 1, 0);
		(void)close_range((unsigned)x->done_fd[1] + 1, ~0u, 0);
		(void)!write(x->done_fd[1], "", 1);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

void init_reap(struct exec_ctx *x, pid_t cmd)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == cmd)
			init_end(x, status);
}

/* The HOME grants' fds mount_home kept for the ruleset: closed, those the
 * build did not take. */
static void held_drop(struct exec_ctx *x)
{
	for (size_t i = 0; i < x->n_held; i++) {
		if (x->held[i].fd >= 0)
			close(x->held[i].fd);
		free((char *)x->held[i].path);
		free((char *)x->held[i].under);
	}
	free(x->held);
	x->held = NULL;
	x->n_held = 0;
}

/* Init performs the gated calls, so before the fork it takes the command's
 * Landlock ruleset (the command's own domain then nests inside init's, and
 * init may still reach it with pidfd_getfd and process_vm_readv). Built
 * first (landlock_build), before init closes its fds: the HOME grants'
 * rules go on the fds the mount step kept. */
static void landlock_build(struct exec_ctx *x)
{
	struct landlock_rules rules = x->plan->landlock;
	char err[512] = "";
	int r;

	rules.held = x->held;
	rules.n_held = x->n_held;
	/* the runner's half, when it built one; the rest is init's */
	(void)landlock_split_take(x, &rules);
	/* built once: the command enforces the same ruleset fd (harden.c) */
	r = landlock_prepare(&rules, &x->landlock, &x->landlock_fd, err, sizeof(err));
	landlock_split_release(x, &rules);
	held_drop(x);
	if (r < 0)
		exec_die("landlock", "%s", err[0] ? err : strerror(-r));
}

/* The command's own domain nests in init's with a ruleset of no rule
 * (landlock_prepare_layer): init's rules stay in force in it, and the
 * nesting alone keeps the command from tracing init (and, with the
 * scopes, from signalling it or reaching its abstract sockets). Enforcing
 * init's ruleset a second time gave the same, for a merge of every rule
 * into the new domain (~200). The layer always sets both scopes, so where
 * init's ruleset has none on a kernel that has them (--net host) the
 * command enforces init's ruleset again, as before; and where the kernel
 * refuses the layer, too. */
static void nest_layer(struct exec_ctx *x)
{
	char why[256];
	int layer = -1;

	if (x->landlock_fd < 0 || (!x->landlock.scope && landlock_get_abi() >= 6))
		return;
	if (landlock_prepare_layer(&layer, why, sizeof(why)) < 0)
		return;
	close(x->landlock_fd);
	x->landlock_fd = layer;
}

static void confine_init(struct exec_ctx *x)
{
	char err[512] = "";
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		exec_die("init", "no_new_privs: %m");
	r = landlock_restrict(x->landlock_fd, err, sizeof(err));
	if (r < 0)
		exec_die("landlock", "%s", err[0] ? err : strerror(-r));
	x->init_ruleset = true;
	nest_layer(x);
}

/* After the fork (the command drops its own capabilities with
 * CAP_SETPCAP, which it inherits from init): every capability but
 * CAP_SYS_PTRACE, which reaches a caller that made itself non-dumpable.
 * Without CAP_DAC_OVERRIDE and the rest, what init makes for the command
 * meets the same permission checks as the command. */
static int drop_init_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	d[0].effective = d[0].permitted = 1u << CAP_SYS_PTRACE;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

struct command_start {
	struct exec_ctx *x;
	int word; /* the gates' socket to init, or -1 */
};

/* The command, from its clone on. With a gate it first makes its listener
 * in the fd table it shares with init (unix_gate_offer), so init holds it
 * from the start and neither side waits for the other's word on it; init
 * touches no fd of that table until the command has taken a copy of its
 * own. */
static int command_start(void *arg)
{
	const struct command_start *s = arg;
	struct exec_ctx *x = s->x;

	x->expect_parent = 1;
	if (s->word >= 0) {
		char err[256] = "";
		int r = unix_gate_offer(s->word, exec_gates(x), err, sizeof(err));

		if (r < 0)
			exec_die("gate", "%s", err[0] ? err : strerror(-r));
	}
	command_main(x);
}

/* the command's stack while it runs in init's memory: only what it
 * touches is ever backed */
#define COMMAND_STACK (8u << 20)

/* AddressSanitizer cannot follow a process onto a stack it did not make
 * (it warns, and may report falsely): under it, the command is forked */
#if defined(__SANITIZE_ADDRESS__)
#define COMMAND_IN_INIT_MEMORY false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COMMAND_IN_INIT_MEMORY false
#endif
#endif
#ifndef COMMAND_IN_INIT_MEMORY
#define COMMAND_IN_INIT_MEMORY true
#endif

/* Start the command; with a gate, take its notification listener.
 * Except for cordon serve's server (which never execs), the command runs
 * in init's memory (CLONE_VM) while init waits (CLONE_VFORK) until its
 * execve or its end: no copy of init's address space to make, no page of
 * it to copy on write. It writes only its own stack, x (put back after)
 * and environ (too); it makes no call a gate would send to the waiting
 * init (harden.c's steps: none does). */
static pid_t start_command(struct exec_ctx *x, int *ret_listener)
{
	int pair[2] = { -1, -1 }, r;
	struct command_start start = { .x = x, .word = -1 };
	bool vm = COMMAND_IN_INIT_MEMORY && x->plan->serve_fd <= 0;
	struct exec_ctx saved;
	char **env = environ;
	void *stack = NULL;
	pid_t cmd;

	*ret_listener = -1;
	if (exec_gates(x)) {
		char err[256] = "";

		confine_init(x);
		if ((r = unix_gate_pin(x, err, sizeof(err))) < 0)
			exec_die("gate", "%s", err[0] ? err : strerror(-r));
		if ((r = unix_gate_pair(pair)) < 0)
			exec_die("gate", "socketpair: %s", strerror(-r));
		start.word = pair[1];
	}
	if (vm) {
		stack = mmap(NULL, COMMAND_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			exec_die("init", "the command's stack: %m");
		saved = *x;
		cmd = clone(command_start, (char *)stack + COMMAND_STACK,
			    CLONE_VM | CLONE_VFORK | (pair[1] >= 0 ? CLONE_FILES : 0) | SIGCHLD, &start);
	} else {
		/* no stack: fork semantics (init is single-threaded) */
		cmd = pair[1] >= 0 ? (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, NULL) : fork();
		if (cmd == 0)
			command_start(&start);
	}
	if (cmd < 0)
		exec_die("init", "fork: %m");
	if (vm) {
		/* the command has exec'd or ended: what it wrote of init's, back */
		*x = saved;
		environ = env;
		(void)munmap(stack, COMMAND_STACK);
	}
	if (pair[1] >= 0) {
		int pidfd = gate_pidfd_open(cmd);

		r = pidfd < 0 ? pidfd : unix_gate_receive(pair[0], pidfd, ret_listener);
		if (pidfd >= 0)
			close(pidfd);
		if (r < 0) {
			/* fail closed: nothing runs ungated */
			(void)kill(cmd, SIGKILL);
			exec_die("gate", "cannot take the command's listener: %s", strerror(-r));
		}
		/* the command has its own table by now (or is gone) */
		close(pair[1]);
	}
	if (x->init_ruleset && x->landlock_fd >= 0)
		close(x->landlock_fd); /* the command has its copy */
	if (pair[1] >= 0) {
		r = drop_init_caps();
		if (r < 0) {
			(void)kill(cmd, SIGKILL);
			exec_die("init", "cannot drop capabilities: %s", strerror(-r));
		}
	}
	return cmd;
}

/* Init's wait loop with the gates: signals through a signalfd, and every
 * notification answered. Returns never: init_reap exits with the command. */
_Noreturn static void serve(struct exec_ctx *x, pid_t cmd, int listener)
{
	struct pollfd fds[1 + UNIX_GATE_MAX_POLLFDS];
	struct gate *g = unix_gate_new(x, listener);
	int sfd;

	/* The mask is blocked already (init inherits the runner's). */
	sfd = signalfd(-1, &x->forward, SFD_CLOEXEC | SFD_NONBLOCK);
	if (!g || sfd < 0) {
		(void)kill(cmd, SIGKILL);
		exec_die("init", g ? "signalfd: %m" : "out of memory");
	}
	for (;;) {
		struct signalfd_siginfo si;
		int timeout = -1, r;
		size_t n;

		fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		n = 1 + unix_gate_pollfds(g, fds + 1, &timeout);
		r = poll(fds, n, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			(void)kill(cmd, SIGKILL);
			exec_die("init", "poll: %m");
		}
		if (fds[0].revents)
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					init_reap(x, cmd);
				else
					exec_forward_signal(cmd, (int)si.ssi_signo);
			}
		unix_gate_step(g, fds + 1, r);
	}
}

void init_map_ids(struct exec_ctx *x, size_t i)
{
	int r = ns_map_ids(x->uid, x->gid);

	if (r == -EPERM || r == -EACCES) {
		/* the runner decides: fall back, or say so */
		x->shared->ns_unusable = 1;
		_exit(EXEC_EXIT_FAILED);
	}
	if (r < 0)
		exec_die("id map", "%s", strerror(-r));
	/* every mount step is applied in one go, in plan order */
	mount_apply(x);
}

void init_loopback(struct exec_ctx *x, size_t i)
{
	int r = ns_loopback_up();

	if (r < 0)
		exec_die("loopback", "%s", strerror(-r));
}

void init_chdir(struct exec_ctx *x, size_t i)
{
	struct stat st;

	if (x->cwd[0] && chdir(x->cwd) < 0) {
		bool hidden = false;

		for (size_t k = 0; k < x->plan->n_steps; k++)
			if (x->plan->steps[k].kind == STEP_HOME &&
			    strncmp(x->cwd, x->plan->steps[k].path, x->plan->steps[k].len) == 0 &&
			    x->cwd[x->plan->steps[k].len] == '/')
				hidden = true;
		if (hidden)
			exec_die("chdir", "%s: %m: the HOME allowlist hides it (run from the workspace, or --read it)",
				 x->cwd);
		exec_die("chdir", "%s: %m (is it below the private /tmp?)", x->cwd);
	}
	/* Looked up again by path in the command's own mount namespace: it
	 * must be the directory the runner was started in (and the caller
	 * checked), not whatever a mount, a swapped link or a rename made
	 * the path name meanwhile. */
	if (x->cwd[0] && (stat(".", &st) < 0 || st.st_dev != x->cwd_dev || st.st_ino != x->cwd_ino))
		exec_die("chdir",
			 "%s: not the same directory inside the sandbox as outside (replaced, renamed, or "
			 "hidden by the sandbox's mounts): run the command from another directory",
			 x->cwd);
}

void init_fork_command(struct exec_ctx *x, size_t i)
{
	/* Nothing of the runner's reaches the command (the status channel
	 * and the --exec-fd file are close-on-exec); with --pty not even its
	 * terminal. */
	if (x->plan->pty)
		terminal_init_open(x);
	/* with gates, init builds the ruleset (on the grants' fds) and takes
	 * it; otherwise the command builds it, by path */
	if (exec_gates(x))
		landlock_build(x);
	else
		held_drop(x);
	int keep[] = { x->plan->exec_fd, x->plan->serve_fd > 0 ? x->plan->serve_fd : -1,
		       exec_gates(x) ? x->landlock_fd : -1,
		       /* and --net allow's: init's way to the proxy, its resolver */
		       x->proxy_fd, x->net_dns[0], x->net_dns[1],
		       /* and its words at the end, to the runner and to cordon run */
		       x->done_fd[1], x->end_fd };

	(void)close_fds_keep(keep, ELEMENTSOF(keep));
	x->command_pid = start_command(x, &x->gate_listener);
}

_Noreturn void init_main(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	pid_t cmd;
	int listener;

	/* The runner is outside the pid namespace, so getppid() says 0 and
	 * cannot show whether it died first; the command's own check and the
	 * runner's kill of this process cover that window. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		exec_die("pdeathsig", "%m");
	/* Out of the terminal's foreground process group: a ^C there reaches
	 * the runner, which passes it on once; were init in the group too, it
	 * would pass the same ^C on a second time. */
	if (setpgid(0, 0) < 0)
		exec_die("init", "setpgid: %m");

	landlock_split_init_start(x);
	x->command_pid = -1;
	x->gate_listener = -1;
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step_ops *o = step_ops(p->steps[i].kind);

		if (o->stage == STAGE_INIT)
			o->apply(x, i);
	}
	cmd = x->command_pid;
	listener = x->gate_listener;
	if (cmd < 0)
		exec_die("init", "the plan has no init step");
	if (listener >= 0)
		serve(x, cmd, listener);

	/* No gate: the cheaper loop. */
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&x->forward, &si);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			exec_die("init", "sigwaitinfo: %m");
		}
		if (sig != SIGCHLD) {
			exec_forward_signal(cmd, sig);
			continue;
		}
		init_reap(x, cmd);
	}
}
