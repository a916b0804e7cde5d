/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon exec`: parse, compile, run. The runner's processes:
 *
 *   full:  runner --clone(user,mount,pid[,net])--> init (pid 1) --fork--> command
 *          The runner stays in the host's namespaces: it forwards signals,
 *          relays the command's exit status or signal. It makes nothing
 *          on the host (missing protected paths: create_gate.h).
 *   light: runner (subreaper) --fork--> command
 *          The runner waits, forwards signals, and kills every descendant
 *          when the command ends or cordon dies (its parent-death signal).
 *   --pty: either way the command's terminal is a pty of its own, which
 *          the runner relays (terminal.h).
 *
 * Full isolation never falls back: without a usable user namespace the
 * runner refuses, naming what is missing and the explicit opt-in
 * (--isolation light), because light isolation gives up the read-only root,
 * the private /tmp and /run, the sandbox's own /dev and the persistence
 * protections (listed below and by `cordon explain`).
 *
 * What light isolation gives up, exactly:
 *   - no mount namespace: /tmp and /dev/shm are the host's (/tmp is a
 *     writable root, so it is shared and writable); credential stores are
 *     hidden by Landlock instead of by mounts, so a directory on the way to
 *     a hidden path cannot be listed; --protect is refused (Landlock can
 *     only allow, so it cannot keep .git/hooks read-only inside a writable
 *     workspace): .git/hooks, .git/config, shell rc and editor config are
 *     writable;
 *   - no pid namespace: host processes are visible in /proc (ptrace is
 *     refused by seccomp and Landlock; signals to processes outside the
 *     sandbox are refused by Landlock's signal scope, ABI 6); no init: the
 *     runner, a subreaper, kills what the command leaves behind when it
 *     exits or cordon dies (a SIGKILL of the runner itself leaves them to
 *     cordon run, or, if cordon is gone too, to the host's reaper);
 *   - no network namespace: under --net none, seccomp refuses AF_INET and
 *     AF_INET6 sockets outright (loopback included: it is the host's) and
 *     Landlock refuses TCP bind/connect (full isolation leaves TCP and UDP
 *     on the sandbox's own loopback open); abstract unix sockets are scoped by Landlock (ABI 6),
 *     named unix sockets are reachable wherever Landlock lets the path be
 *     opened for writing;
 *   - the user namespace: a root caller stays uid 0 with every capability
 *     dropped (bounding set included, SECBIT_NOROOT locked), not a mapped
 *     uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/runner.h"
#include "net_allow.h"
#include "netproxy.h"
#include "trust.h"
#include "policy.h"
#include "process.h"
#include "stdfd.h"
#include "runner.h"

extern char **environ;

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH };

static void signals_setup(struct exec_ctx *x)
{
	sigemptyset(&x->forward);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&x->forward, forwarded[i]);
	sigaddset(&x->forward, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &x->forward, &x->old_mask) < 0)
		exec_die("signals", "%m");
}

/* Errors that mean "no usable user namespace here", not "something broke". */
static bool userns_unavailable(int err)
{
	return err == EPERM || err == EACCES || err == EINVAL || err == ENOSPC || err == EUSERS || err == ENOSYS;
}

/* Light isolation has no pid namespace whose end takes the command's
 * children along, so the runner stays their parent: a subreaper (orphans
 * come back to it), told of cordon's death by a signal it waits for
 * (SIGTERM, blocked, taken by supervise), and it kills every descendant
 * then, and when the command ends. The command cannot signal it: Landlock's
 * signal scope fences the sandbox in. */
_Noreturn static void run_light(struct exec_ctx *x)
{
	pid_t parent = getppid(), child;
	int status;

	/* no init to say the end: the runner's own exit does */
	if (x->plan->end_fd > 0)
		close(x->plan->end_fd);
	signals_setup(x);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		exec_die("subreaper", "%m");
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
		exec_die("pdeathsig", "%m");
	if (getppid() != parent)
		exec_die("pdeathsig", "the parent is gone");
	x->runner_parent = parent;
	if (x->plan->pty)
		terminal_runner_prepare(x);
	child = fork();
	if (child < 0)
		exec_die("fork", "%m");
	if (child == 0) {
		x->runner_parent = 0;
		x->expect_parent = getppid();
		command_main(x);
	}
	status = x->plan->pty ? terminal_supervise(x, child) : exec_supervise(x, child);
	(void)cordon_kill_descendants(getpid());
	terminal_finish(x);
	exec_exit_like(status);
}

#define NO_USERNS_HINT                                                                               \
	"full isolation needs one, so nothing was run; --isolation light (or \"isolation\": \"light\" in " \
	"a profile) runs without it and gives up the read-only root, the private /tmp and /run, the "     \
	"sandbox's own /dev and persistence protection (see cordon explain)"

_Noreturn static void run_full(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	int status;
	pid_t pid;

	if (!getcwd(x->cwd, sizeof(x->cwd)))
		exec_die("chdir", "cannot read the working directory: %m");
	struct stat cwd_st;

	if (stat(".", &cwd_st) < 0)
		exec_die("chdir", "cannot stat the working directory: %m");
	x->cwd_dev = cwd_st.st_dev;
	x->cwd_ino = cwd_st.st_ino;
	x->shared = mmap(NULL, sizeof(*x->shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x->shared == MAP_FAILED)
		exec_die("namespaces", "mmap: %m");

	if (p->credentials_fd >= 0)
		trust_read_public(x);
	if (p->net == CORDON_NET_ALLOW) {
		char why[512] = "";

		/* fail closed: without the kernel's hand-over, nothing runs */
		if (net_allow_probe(why, sizeof(why)) < 0)
			exec_die("net allow", "%s", why);
		net_allow_resolv_read(x);
	}
	if (p->net == CORDON_NET_PROXY || p->net == CORDON_NET_ALLOW)
		netproxy_start(x);
	signals_setup(x);
	if (p->pty)
		terminal_runner_prepare(x);
	/* init says the end on --end-fd, but not with --pty (the relay may
	 * still hold the command's last output then), nor with a proxy (it
	 * may still be writing a denial record on the status channel), nor
	 * for cordon serve */
	if (p->end_fd > 0 && !p->pty && p->serve_fd <= 0 && (p->net == CORDON_NET_NONE || p->net == CORDON_NET_HOST))
		x->end_fd = p->end_fd;
	else if (p->end_fd > 0)
		close(p->end_fd);
	landlock_split_start(x);
	/* init's word that the sandbox is empty (init_end); a pipe, so that
	 * an init gone without it reads as end of file */
	if (pipe2(x->done_fd, O_CLOEXEC) < 0)
		exec_die("namespaces", "pipe: %m");
	/* One clone makes every namespace (the user namespace first, so it
	 * owns the others); no stack: fork semantics. */
	pid = (pid_t)syscall(SYS_clone, p->clone_flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		int err = errno;

		errno = err;
		if (userns_unavailable(err))
			exec_die("namespaces", "no usable user namespace here (%m: unprivileged user namespaces are off, "
			    "restricted or exhausted); " NO_USERNS_HINT);
		exec_die("namespaces", "cannot create user, mount and pid namespaces: %m");
	}
	if (pid == 0)
		init_main(x);
	close(x->done_fd[1]);
	x->done_fd[1] = -1;
	if (x->end_fd >= 0)
		close(x->end_fd); /* init's alone: its end of file says it is gone */
	x->end_fd = -1;
	netproxy_after_clone(x);
	terminal_runner_after_clone(x);
	/* init mounts meanwhile; then it takes this half of its ruleset */
	landlock_split_runner(x);

	status = p->pty ? terminal_supervise(x, pid) : exec_supervise(x, pid);
	/* init is gone, or said the sandbox is empty and is going */
	terminal_finish(x);
	if (__atomic_load_n(&x->shared->have_status, __ATOMIC_ACQUIRE))
		exec_exit_like(x->shared->status);
	if (x->shared->ns_unusable)
		/* The namespace came but gave no capability in it (e.g. an LSM
		 * restricting unprivileged user namespaces); nothing ran. */
		exec_die("id map", "the user namespace gives no capabilities here (cannot map ids); " NO_USERNS_HINT);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		_exit(EXEC_EXIT_FAILED); /* init said why */
	if (WIFSIGNALED(status))
		exec_die("init", "killed by signal %d (%s) before the command ended", WTERMSIG(status),
		    sigabbrev_np(WTERMSIG(status)) ?: "?");
	exec_die("init", "ended without the command's status");
}

/* forked: entered in the child of a fork, which has one thread by
 * construction (fork copies only its caller): no count to make. */
static int exec_main(int argc, char **argv, bool self_is_cordon, bool forked)
{
	/* exec_parse leaves it as it is when there are no arguments at all */
	struct exec_flags f = { .status_fd = -1 };
	struct plan plan;
	struct exec_ctx x = { .proxy_fd = -1, .net_dns = { -1, -1 }, .done_fd = { -1, -1 }, .end_fd = -1, .shim_fd = -1, .tty = EXEC_TERMINAL_INIT, .self_is_cordon = self_is_cordon };
	char err[512];
	int r;

	/* Before any fd of ours: with 0, 1 or 2 closed by the caller, the
	 * proxy's socket or a pipe would land there, taken for the command's
	 * stdio (and refused as the proxy's --control-fd). */
	r = stdfd_sanitise();
	if (r < 0) {
		exec_say("stdio", "cannot open /dev/null over a closed fd 0, 1 or 2: %s", strerror(-r));
		return EXEC_EXIT_FAILED;
	}
	r = exec_parse(argc, argv, &f, err, sizeof(err));
	/* First, so that every failure after this is reported on it. */
	if (f.status_fd >= 0 && status_channel_open(f.status_fd) < 0) {
		exec_say("status-fd", "fd %d is not open: %m", f.status_fd);
		return EXEC_EXIT_FAILED;
	}
	/* The runner forks and unshares: in a process with other threads
	 * (a forked copy is always single-threaded, so this is a direct
	 * call) their locks and state would come along half-held, and
	 * unshare(CLONE_NEWUSER) fails. Refused, never tried. */
	int threads = forked ? 1 : process_count_threads();
	if (threads != 1) {
		if (threads < 0)
			exec_say("threads", "cannot count this process's threads in /proc/self/task (%s): refusing to run in-process",
			    strerror(-threads));
		else
			exec_say("threads",
			    "this process has %d threads: the runner runs only in a single-threaded process; a multi-threaded "
			    "program must exec the runner (cordon exec) instead of calling it in-process",
			    threads);
		exec_flags_done(&f);
		return exec_record_said("threads");
	}
	if (r < 0)
		exec_die("flags", "%s", err);
	/* The file to run stays open through every step, but nothing the
	 * runner starts (the proxy) or the command inherits it unasked. */
	if (f.exec_fd >= 0) {
		struct stat st;

		if (fcntl(f.exec_fd, F_SETFD, FD_CLOEXEC) < 0)
			exec_die("exec-fd", "fd %d is not open: %m", f.exec_fd);
		/* what execveat would refuse, refused as it would (126) */
		if (fstat(f.exec_fd, &st) == 0 && !S_ISREG(st.st_mode))
			exec_die_code(EXEC_EXIT_CANNOT_EXEC, "execve", "%s: the file at fd %d is not a regular file",
				      f.command[0], f.exec_fd);
	}
	/* init's word at the end (init_end): only init may hold it, and
	 * nothing it starts */
	if (f.end_fd > 0 && fcntl(f.end_fd, F_SETFD, FD_CLOEXEC) < 0)
		exec_die("end-fd", "fd %d is not open: %m", f.end_fd);
	if (f.help) {
		fputs(cordon_exec_usage, stdout);
		exec_flags_done(&f);
		return 0;
	}
	r = plan_compile(&f, &plan, err, sizeof(err));
	if (r < 0)
		exec_die("plan", "%s", err);
	x.plan = &plan;
	(void)sigprocmask(SIG_SETMASK, NULL, &x.old_mask);
	x.uid = getuid();
	x.gid = getgid();
	r = env_build(&plan, environ, &x.envp, err, sizeof(err));
	if (r < 0)
		exec_die("environment", "%s", err);

	if (plan.isolation == CORDON_ISOLATION_FULL)
		run_full(&x);
	run_light(&x);
}

int cordon_exec_main(int argc, char **argv)
{
	return exec_main(argc, argv, false, false);
}

int cordon_exec_forked_main(int argc, char **argv)
{
	return exec_main(argc, argv, false, true);
}

int cordon_exec_binary_main(int argc, char **argv)
{
	return exec_main(argc, argv, true, false);
}

int cordon_explain_plan(const char *const *exec_argv, FILE *out)
{
	struct exec_flags f;
	struct plan p;
	char err[512];
	int argc = 0, r;

	if (!exec_argv || !out)
		return -EINVAL;
	/* Accept the provider's whole argv too: [RUNNER, "exec", ...]. */
	if (exec_argv[0] && strcmp(exec_argv[0], "exec") != 0 && exec_argv[1] && strcmp(exec_argv[1], "exec") == 0)
		exec_argv++;
	while (exec_argv[argc])
		argc++;
	r = exec_parse(argc, (char *const *)exec_argv, &f, err, sizeof(err));
	if (r < 0) {
		fprintf(out, "cannot explain: %s\n", err);
		return r;
	}
	r = plan_compile(&f, &p, err, sizeof(err));
	if (r < 0) {
		fprintf(out, "cannot explain: %s\n", err);
		exec_flags_done(&f);
		return r;
	}
	plan_describe(&p, (unsigned)getuid(), (unsigned)getgid(), out);
	plan_done(&p);
	exec_flags_done(&f);
	return 0;
}
