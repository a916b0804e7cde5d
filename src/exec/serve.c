/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon serve's server, inside the sandbox (serve.h has the wire). The
 * runner's init made the mounts and forked this process as it forks a
 * command; this process took every step of a command (session, fds,
 * capabilities, no_new_privs, Landlock, seccomp, with the gates' listener
 * handed to init) and, in place of execve, serves requests. Each request
 * is fork (the command's own reaper, a subreaper that ends the command's
 * whole tree) + fork (the command: its session and process group, its
 * stdio, rlimits and working directory) + execve: the Landlock domain and
 * the filters are inherited, never built again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "cordon/runner.h"
#include "msgframe.h"
#include "process.h"
#include "runner.h"
#include "serve.h"
#include "strv.h"

extern char **environ;

struct serve_req {
	char *cwd;
	uint64_t dev, ino;
	char **argv;
	char **env;
	size_t n_rl;
	struct {
		uint32_t resource;
		uint64_t value;
	} rl[SERVE_RLIMITS_MAX];
};

static void req_done(struct serve_req *q)
{
	free(q->cwd);
	msgbuf_strv_free(q->argv);
	msgbuf_strv_free(q->env);
}

static bool rlimit_served(uint32_t r)
{
	return r == RLIMIT_CPU || r == RLIMIT_FSIZE || r == RLIMIT_NOFILE || r == RLIMIT_AS || r == RLIMIT_NPROC;
}

static int req_decode(struct msgbuf *b, struct serve_req *q)
{
	uint32_t n;
	int r;

	if ((r = msgbuf_get_string(b, SERVE_STRING_MAX, MSGBUF_NO_NUL, &q->cwd, NULL)) < 0 ||
	    (r = msgbuf_get_u64(b, &q->dev)) < 0 || (r = msgbuf_get_u64(b, &q->ino)) < 0 ||
	    (r = msgbuf_get_strv(b, SERVE_ARGV_MAX, SERVE_STRING_MAX, &q->argv)) < 0 ||
	    (r = msgbuf_get_strv(b, SERVE_ENV_MAX, SERVE_STRING_MAX, &q->env)) < 0 || (r = msgbuf_get_u32(b, &n)) < 0)
		return r;
	if (n > SERVE_RLIMITS_MAX)
		return -E2BIG;
	for (q->n_rl = 0; q->n_rl < n; q->n_rl++)
		if ((r = msgbuf_get_u32(b, &q->rl[q->n_rl].resource)) < 0 ||
		    (r = msgbuf_get_u64(b, &q->rl[q->n_rl].value)) < 0)
			return r;
		else if (!rlimit_served(q->rl[q->n_rl].resource))
			return -EINVAL;
	if (msgbuf_len(b) != 0 || !q->argv[0] || !q->argv[0][0] || q->cwd[0] != '/')
		return -EBADMSG;
	return 0;
}

/* The server's environment with the request's on top; NULL and *why when
 * the request names a variable it may not set. */
static char **env_for(const struct exec_ctx *x, char *const *add, char *why, size_t whylen)
{
	_cleanup_strv_free_ char **v = strv_copy((const char *const *)x->envp);

	if (!v)
		return NULL;
	for (size_t i = 0; add && add[i]; i++) {
		size_t nl = strcspn(add[i], "=");
		char name[256];
		const char *no;
		bool replaced = false;

		if (nl == 0 || add[i][nl] != '=' || nl >= sizeof(name)) {
			snprintf(why, whylen, "env: '%.64s' is not NAME=VALUE", add[i]);
			return NULL;
		}
		memcpy(name, add[i], nl);
		name[nl] = '\0';
		if ((no = env_request_refused(x->plan, name))) {
			snprintf(why, whylen, "env: %s may not be set: %s", name, no);
			return NULL;
		}
		for (size_t j = 0; v[j] && !replaced; j++)
			if (strncmp(v[j], add[i], nl + 1) == 0) {
				char *s = strdup(add[i]);

				if (!s)
					return NULL;
				free(v[j]);
				v[j] = s;
				replaced = true;
			}
		if (!replaced && strv_push(&v, add[i]) < 0)
			return NULL;
	}
	return TAKE_PTR(v);
}

/* The command: stdio, status channel, limits, directory, execve. */
_Noreturn static void command(struct exec_ctx *x, const struct serve_req *q, char **envp, const int *fds)
{
	struct stat st;

	if (setsid() < 0)
		_exit(EXEC_EXIT_FAILED);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	for (int i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			_exit(EXEC_EXIT_FAILED);
	if (status_channel_open(fds[3]) < 0)
		_exit(EXEC_EXIT_FAILED);
	if (close_fds_keep(NULL, 0) < 0)
		exec_die("close fds", "%m");
	for (size_t i = 0; i < q->n_rl; i++) {
		if (setrlimit((int)q->rl[i].resource, &(struct rlimit){ q->rl[i].value, q->rl[i].value }) < 0)
			exec_die("rlimit", "resource %u: %m", q->rl[i].resource);
		/* as cordon_run's limits: a write past the size fails with
		 * EFBIG, the command is not killed */
		if (q->rl[i].resource == RLIMIT_FSIZE)
			signal(SIGXFSZ, SIG_IGN);
	}
	/* as init_chdir: the directory the front end checked, by identity */
	if (chdir(q->cwd) < 0)
		exec_die("chdir", "%s: %m (is it below the private /tmp, or hidden?)", q->cwd);
	if (stat(".", &st) < 0 || st.st_dev != q->dev || st.st_ino != q->ino)
		exec_die("chdir", "%s: not the same directory inside the sandbox as outside (replaced, renamed, or "
			 "hidden by the sandbox's mounts)", q->cwd);
	if (sigprocmask(SIG_SETMASK, &x->old_mask, NULL) < 0)
		exec_die("execve", "cannot restore the signal mask: %m");
	environ = envp;
	if (strchr(q->argv[0], '/'))
		execve(q->argv[0], q->argv, envp);
	else
		execvp(q->argv[0], q->argv);
	exec_die_code(errno == ENOENT ? EXEC_EXIT_NOT_FOUND : EXEC_EXIT_CANNOT_EXEC, "execve", "%s: %m", q->argv[0]);
}

/* The command shares its reaper's memory until it execs or exits (vfork:
 * no copy of the server's pages per command): it changes only its own fds,
 * limits, directory and mask, and the status channel global, which holds
 * the same fd in the reaper. Apart, so the reaper's locals stay its own. */
static __attribute__((noinline)) pid_t start_command(struct exec_ctx *x, const struct serve_req *q, char **envp,
						       const int *fds)
{
	pid_t pid = vfork();

	if (pid == 0)
		command(x, q, envp, fds);
	return pid;
}

/* The command's reaper: a subreaper, so whatever the command starts stays
 * below it; the command's end, or a word (or hang-up) on ctl, ends the
 * whole tree, then the wait status goes out on ctl. */
_Noreturn static void reaper(struct exec_ctx *x, const struct serve_req *q, char **envp, const int *fds, int cgroup_procs)
{
	sigset_t chld;
	int sfd, status = 0;
	bool have = false;
	pid_t cmd;

	/* its own failures are the command's, on the command's channel */
	(void)status_channel_open(fds[3]);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		exec_die("serve", "cannot reap the command's tree: %m");
	/* The command's own cgroup (its pids and memory limits), joined
	 * before it starts, so all it starts is counted there: "0" is this
	 * process, whatever its number in the sandbox's pid namespace. The
	 * file was opened outside, by the session; nothing here could open it. */
	if (cgroup_procs >= 0) {
		if (write(cgroup_procs, "0", 1) != 1)
			exec_die("serve", "cannot join the command's cgroup: %m");
		close(cgroup_procs);
	}
	/* A Landlock domain of the command's own, nested in the server's
	 * (serve_main made its ruleset, which adds no rule): the command (and
	 * this reaper) can neither trace nor take the fds of the server or of
	 * another command, nor signal them (Landlock's signal scope), as two
	 * `cordon run`s could not; what it may touch is the server's rules,
	 * unchanged. */
	char why[512] = "";

	if (x->landlock_fd > 2) {
		if (landlock_restrict(x->landlock_fd, why, sizeof(why)) < 0)
			exec_die("landlock", "the command's own domain: %s", why);
		close(x->landlock_fd);
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		exec_die("serve", "signalfd: %m");
	cmd = start_command(x, q, envp, fds);
	if (cmd < 0)
		exec_die("serve", "vfork: %m");
	/* stdin goes; stdout and stderr stay open here until the status is
	 * said, so that the front end sees the three ends at once (one
	 * wake-up, not one for the pipes and one for the status): nothing
	 * is written to them here, and the command's tree, which could
	 * keep them open, is gone by then all the same */
	close(fds[0]);
	bool alone = false; /* no child left: no descendant either */

	for (;;) {
		struct pollfd p[2] = { { .fd = sfd, .events = POLLIN }, { .fd = fds[3], .events = POLLIN } };
		struct signalfd_siginfo si;
		pid_t w;
		int st;

		if (poll(p, have ? 1 : 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			/* a word or the front end's hang-up: end the tree */
			(void)cordon_kill_descendants(getpid());
			have = true;
			p[1].revents = 0;
		}
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == cmd) {
				status = st;
				cmd = -1;
			}
		alone = w < 0 && errno == ECHILD;
		if (cmd < 0)
			break;
	}
	/* Nothing outlives the command, as nothing outlives `cordon run`.
	 * A subreaper without a child has no descendant at all (an orphan
	 * is reparented to it before its parent can be reaped): then there
	 * is no tree to walk in /proc, the common case of a command that
	 * started nothing that outlived it. */
	if (!alone)
		(void)cordon_kill_descendants(getpid());
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	char word[32];
	int n = snprintf(word, sizeof(word), "=%d\n", status);

	close(fds[1]);
	close(fds[2]);
	(void)!write(fds[3], word, (size_t)n);
	/* the status is the last word: the end of the channel now, not
	 * when this process has finished exiting (the front end waits for
	 * it); the command's tree, which shared the socket, is gone */
	(void)shutdown(fds[3], SHUT_WR);
	_exit(0);
}

static void refuse(int ctl, const char *why)
{
	dprintf(ctl, "!%s\n", why);
}

static void serve_one(struct exec_ctx *x, struct msg_frame *f, int cgroup_procs)
{
	struct serve_req q = {};
	char why[512] = "";
	char **envp;
	int r;
	pid_t pid;

	if (f->nfds != 4)
		exec_die("serve", "a request without its 4 fds");
	r = req_decode(f->body, &q);
	if (r < 0) {
		refuse(f->fds[3], "the request's frame is malformed");
		req_done(&q);
		return;
	}
	envp = env_for(x, q.env, why, sizeof(why));
	if (!envp) {
		refuse(f->fds[3], why[0] ? why : "out of memory");
		req_done(&q);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(x->plan->serve_fd);
		reaper(x, &q, envp, f->fds, cgroup_procs);
	}
	if (pid < 0)
		refuse(f->fds[3], "the server cannot fork");
	strv_free(envp);
	req_done(&q);
}

_Noreturn void serve_main(struct exec_ctx *x)
{
	int sock = x->plan->serve_fd, sfd, cgroup_procs = -1;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		exec_die("serve", "signalfd: %m");
	/* Each command's domain nests in this one with a ruleset of no rule
	 * (landlock_prepare_layer): the same rules in force, without merging
	 * all of them into a new domain at every command. Where the kernel
	 * refuses that ruleset, the server's own ruleset again (the same
	 * confinement, at the old price). */
	if (x->landlock_fd > 2) {
		char why[256];
		int layer = -1;

		if (landlock_prepare_layer(&layer, why, sizeof(why)) == 0) {
			close(x->landlock_fd);
			x->landlock_fd = layer;
		}
	}
	if (fcntl(sock, F_SETFD, FD_CLOEXEC) < 0 || msg_frame_write(sock, SERVE_MSG_READY, NULL, NULL, 0) < 0)
		exec_die("serve", "the front end's socket: %m");
	/* The commands share this process's uid and Landlock domain, which
	 * would let them take its fds (pidfd_getfd, /proc/PID/fd): the
	 * socket every request and its fds pass through, and, from a reaper,
	 * another command's control socket. Not dumpable, neither this
	 * process nor the reapers it forks (a command is dumpable again once
	 * it execs, as any process it could reach in one shell). After the
	 * word above: init, which decides the gated calls by reading the
	 * caller, cannot read an undumpable one, and this process makes no
	 * gated call after it. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		exec_die("serve", "cannot make the server undumpable: %m");
	for (;;) {
		struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;
		struct msg_frame f = {};
		int r;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			exec_die("serve", "poll: %m");
		}
		if (p[1].revents) {
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
		}
		if (!p[0].revents)
			continue;
		r = msg_frame_read(sock, MSG_FRAME_MAX, &f);
		if (r == 0)
			_exit(0); /* the session ended: init, and the namespace, end with us */
		if (r < 0)
			exec_die("serve", "a frame from the front end: %s", strerror(-r));
		if (f.type == SERVE_MSG_CGROUP && f.nfds == 1) {
			/* the next request's cgroup: held for it alone */
			if (cgroup_procs >= 0)
				close(cgroup_procs);
			cgroup_procs = f.fds[0];
			f.fds[0] = -1;
		} else if (f.type == SERVE_MSG_RUN) {
			serve_one(x, &f, cgroup_procs);
			if (cgroup_procs >= 0)
				close(cgroup_procs);
			cgroup_procs = -1;
		}
		msg_frame_done(&f);
	}
}
