/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "runlimits.h"
#include "process.h"
#include "strv.h"

extern char **environ;

#define KILL_TREE_MAX_PIDS 4096
#define KILL_TREE_MAX_ROUNDS 64

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int find_executable(const char *name, char **ret)
{
	const char *path;
	struct stat st;

	if (!name || !*name)
		return -EINVAL;
	if (strchr(name, '/')) {
		if (stat(name, &st) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode) || access(name, X_OK) < 0)
			return -EACCES;
		*ret = strdup(name);
		return *ret ? 0 : -ENOMEM;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char *cand;

		if (n > 0 && p[0] == '/') {
			if (asprintf(&cand, "%.*s/%s", (int)n, p, name) < 0)
				return -ENOMEM;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
				*ret = cand;
				return 0;
			}
			free(cand);
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return -ENOENT;
}

/* Append the children of every thread of pid to out. */
static void collect_children(pid_t pid, pid_t *out, size_t *n, size_t max)
{
	char dpath[64];
	DIR *d;
	struct dirent *de;

	snprintf(dpath, sizeof(dpath), "/proc/%d/task", (int)pid);
	d = opendir(dpath);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char cpath[384], buf[4096];
		ssize_t l;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "%s/%s/children", dpath, de->d_name);
		fd = open(cpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		l = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (l <= 0)
			continue;
		buf[l] = '\0';
		for (char *s = buf, *end; *s && *n < max; s = end) {
			long c = strtol(s, &end, 10);
			if (end == s)
				break;
			if (c > 0)
				out[(*n)++] = (pid_t)c;
		}
	}
	closedir(d);
}

/* Stop and kill every descendant of pid, leaves first. */
int kill_descendants(pid_t pid)
{
	_cleanup_free_ pid_t *pids = calloc(2 * KILL_TREE_MAX_PIDS, sizeof(pid_t));
	pid_t *prev;
	size_t prev_n = 0;
	int killed = 0;

	if (pid <= 0 || !pids)
		return pids ? 0 : -ENOMEM;
	prev = pids + KILL_TREE_MAX_PIDS;
	for (int round = 0; round < KILL_TREE_MAX_ROUNDS; round++) {
		size_t n = 0;

		/* Breadth-first walk; stop each process so it cannot fork away
		 * while we look at the rest. */
		pids[n++] = pid;
		for (size_t i = 0; i < n; i++) {
			if (i > 0)
				kill(pids[i], SIGSTOP);
			collect_children(pids[i], pids, &n, KILL_TREE_MAX_PIDS);
		}
		if (n == 1)
			break;
		/* Killed children stay listed until their parent reaps them:
		 * the same set twice means nothing new appeared. */
		if (n == prev_n && memcmp(pids, prev, n * sizeof(pid_t)) == 0)
			break;
		for (size_t i = n; i-- > 1;)
			if (kill(pids[i], SIGKILL) == 0)
				killed++;
		memcpy(prev, pids, n * sizeof(pid_t));
		prev_n = n;
	}
	return killed;
}

int kill_tree(pid_t pid)
{
	int killed;

	if (pid <= 1)
		return 0;
	killed = kill_descendants(pid);
	if (kill(pid, SIGKILL) == 0)
		killed++;
	return killed < 0 ? 0 : killed;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

struct capture {
	char *buf;
	size_t len, cap;
	uint64_t total;
	uint64_t relay_cap;       /* relay at most this much; 0: all */
	uint64_t relayed;
};

/* Read what is available; returns 0 on EOF, 1 if more may come, -errno. */
static int capture_read(int fd, struct capture *c, int relay_fd)
{
	char chunk[65536];

	for (;;) {
		ssize_t l = read(fd, chunk, sizeof(chunk));

		if (l == 0)
			return 0;
		if (l < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 1;
			return -errno;
		}
		c->total += (uint64_t)l;
		if (c->len < c->cap) {
			size_t take = (size_t)l;

			if (take > c->cap - c->len)
				take = c->cap - c->len;
			memcpy(c->buf + c->len, chunk, take);
			c->len += take;
		}
		if (relay_fd >= 0) {
			ssize_t n = l;

			/* never relay past the cap: the rest is counted, not shown */
			if (c->relay_cap && (uint64_t)n > c->relay_cap - c->relayed)
				n = (ssize_t)(c->relay_cap - c->relayed);
			c->relayed += (uint64_t)n;
			for (ssize_t off = 0; off < n;) {
				ssize_t w = write(relay_fd, chunk + off, (size_t)(n - off));
				if (w < 0) {
					if (errno == EINTR)
						continue;
					break; /* our own stdout is gone; keep capturing */
				}
				off += w;
			}
		}
	}
}

static int pidfd_open_compat(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* What the vfork'ed child of start_exec needs; it shares our memory. */
struct exec_args {
	const struct spawn_opts *o;
	int pipe_w, out_w, in_r, null_fd, status_w;
	pid_t parent;
	int err;                  /* set by the child when it cannot exec */
};

/* The child of start_exec: system calls only, then exec. */
static int exec_child(void *arg)
{
	struct exec_args *a = arg;
	const struct spawn_opts *o = a->o;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	/* Nothing outlives its caller: if we die, the command dies. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != a->parent)
		goto fail;
	if (o->own_group && setpgid(0, 0) < 0)
		goto fail;
	if (a->in_r >= 0 && dup2(a->in_r, 0) < 0)
		goto fail;
	if (a->null_fd >= 0 && dup2(a->null_fd, 0) < 0)
		goto fail;
	if (o->capture_stdout && dup2(a->pipe_w, 1) < 0)
		goto fail;
	else if (!o->capture_stdout && a->out_w >= 0 && dup2(a->out_w, 1) < 0)
		goto fail;
	if (o->capture_stderr && dup2(a->pipe_w, 2) < 0)
		goto fail;
	if (o->split_stderr && a->out_w >= 0 && dup2(a->out_w, 2) < 0)
		goto fail;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	/* dup2 clears close-on-exec on the copies only */
	if (a->status_w >= 0 && (dup2(a->status_w, o->status_fd) < 0 ||
				 (o->status_fd2 > 2 && dup2(a->status_w, o->status_fd2) < 0)))
		goto fail;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A bare name is looked up on PATH, as a shell would. */
	if (strchr(o->argv[0], '/'))
		execve(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
	else
		execvpe(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
fail:
	a->err = errno ? errno : EINVAL;
	_exit(127);
}

/* Start argv the way posix_spawn does (a vfork-like clone on a stack of
 * its own, every signal blocked meanwhile, so it is safe in threaded
 * callers), but with the parent-death signal set, which posix_spawn
 * cannot do. An exec failure comes back as -errno, as from posix_spawn. */
static int start_exec(const struct spawn_opts *o, int pipe_w, int out_w, int in_r, int status_w, pid_t *ret)
{
	_cleanup_close_ int null_fd = -1;
	struct exec_args a = {
		.o = o, .pipe_w = pipe_w, .out_w = out_w, .in_r = in_r, .null_fd = -1, .status_w = status_w,
		.parent = getpid(),
	};
	sigset_t all, old;
	size_t stack_size = 256 * 1024;
	void *stack;
	pid_t pid;

	if (!o->inherit_stdin) {
		null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null_fd < 0)
			return -errno;
		a.null_fd = null_fd;
	}
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(exec_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	int err = pid < 0 ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, stack_size);
	if (pid < 0)
		return -err;
	if (a.err) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -a.err;
	}
	*ret = pid;
	return 0;
}

/* A failure of ours in the forked child, before the runner ran: the line
 * on stderr for people, and a record on the status channel (when there is
 * one) so it reads as the runner failing. Only write(2): async-signal-safe. */
static void child_fail(int status_w, const char *step, const char *line, size_t len)
{
	(void)!write(2, line, len);
	if (status_w >= 0) {
		(void)!write(status_w, step, strlen(step));
		(void)!write(status_w, "\t-\t", 3);
		(void)!write(status_w, line, len);
	}
}

/* In a forked child that will not exec: blank our copy of the caller's
 * command line (all but argv[0]), which /proc/PID/cmdline shows to every
 * local user and which may carry values (`cordon run --setenv N=V`). The
 * memory is the child's own copy-on-write page; the caller's is untouched.
 * Where it is (arg_start, arg_end) comes from /proc/self/stat, fields 48
 * and 49 (Linux 3.5). Best effort: nothing is blanked if they cannot be read. */
static void child_blank_cmdline(void)
{
	char buf[2048], *p;
	unsigned long start = 0, end = 0;
	ssize_t l;
	int fd, field = 2;

	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	l = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (l <= 0)
		return;
	buf[l] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	if (!p)
		return;
	for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
		field++;
		if (field == 48)
			start = strtoul(tok, NULL, 10);
		else if (field == 49) {
			end = strtoul(tok, NULL, 10);
			break;
		}
	}
	if (start == 0 || end <= start || end - start > (1ul << 24))
		return;
	char *area = (char *)start;
	size_t n = end - start, first = strnlen(area, n);

	if (first + 1 < n)
		memset(area + first + 1, 0, n - first - 1);
}


/* The same set-up, then the limits (cgroups joined, rlimits set), then
 * child_main in the forked child, or an exec of argv. Only for
 * single-threaded callers: the child runs ordinary code. */
static int start_forked(const struct spawn_opts *o, int pipe_w, int out_w, int in_r, int status_w, pid_t *ret)
{
	pid_t parent = getpid(), pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;
		int fd;

		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				(void)sigaction(sig, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Nothing outlives cordon: the runner's init and the light
		 * runner take the rest of the tree down with them. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			_exit(127);
		if (o->own_group && setpgid(0, 0) < 0)
			_exit(127);
		if (in_r >= 0 && dup2(in_r, 0) < 0)
			_exit(127);
		if (!o->inherit_stdin) {
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(127);
		}
		if ((o->capture_stdout && dup2(pipe_w, 1) < 0) || (o->capture_stderr && dup2(pipe_w, 2) < 0))
			_exit(127);
		if (!o->capture_stdout && out_w >= 0 && dup2(out_w, 1) < 0)
			_exit(127);
		if (o->split_stderr && out_w >= 0 && dup2(out_w, 2) < 0)
			_exit(127);
		if (o->cwd && chdir(o->cwd) < 0)
			_exit(127);
		if (o->limits && limits_child_apply(o->limits) < 0) {
			static const char msg[] = "cordon: limits: cannot join the run's cgroup or set its rlimits\n";

			child_fail(status_w, "limits", msg, sizeof(msg) - 1);
			_exit(125);
		}
		/* Last: the number may be one of our fds the steps above still
		 * needed (a cgroup.procs fd). dup2 clears close-on-exec on the
		 * copy only. */
		if (status_w >= 0) {
			if (dup2(status_w, o->status_fd) < 0 || (o->status_fd2 > 2 && dup2(status_w, o->status_fd2) < 0))
				_exit(127);
			status_w = o->status_fd;
		}
		if (!o->child_main) {
			static const char msg[] = "cordon: spawn: cannot execute the runner\n";

			if (strchr(o->argv[0], '/'))
				execve(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
			else
				execvpe(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
			child_fail(status_w, "spawn", msg, sizeof(msg) - 1);
			_exit(127);
		}
		/* The in-process runner reads its environment from environ,
		 * and must not show the caller's command line as its own. */
		if (o->envp)
			environ = (char **)o->envp;
		child_blank_cmdline();
		int argc = 0;
		while (o->argv[argc])
			argc++;
		_exit(o->child_main(argc - o->child_argv_skip, (char **)o->argv + o->child_argv_skip));
	}
	*ret = pid;
	return 0;
}

/* Our stdin, relayed to the child's pipe: a small buffer, never blocking
 * on either side (the terminal stays as it is: no O_NONBLOCK on a file
 * description others share). */
struct stdin_relay {
	int in_w;                 /* -1: closed */
	bool eof;                 /* our stdin ended or the child's side closed */
	char buf[4096];
	size_t len, off;
};

static void stdin_relay_read(struct stdin_relay *sr)
{
	ssize_t l = read(0, sr->buf, sizeof(sr->buf));

	if (l < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (l <= 0) {
		sr->eof = true;
		return;
	}
	sr->len = (size_t)l;
	sr->off = 0;
}

static void stdin_relay_write(struct stdin_relay *sr)
{
	sigset_t pipe_set, old;
	ssize_t w;

	/* A reader that is gone raises SIGPIPE: keep it from us, take it. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	w = write(sr->in_w, sr->buf + sr->off, sr->len - sr->off);
	if (w < 0 && errno == EPIPE)
		(void)sigtimedwait(&pipe_set, NULL, &(struct timespec){ 0, 0 });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (w < 0) {
		if (errno != EINTR && errno != EAGAIN)
			sr->eof = true;
		return;
	}
	sr->off += (size_t)w;
	if (sr->off == sr->len)
		sr->len = sr->off = 0;
}

/* Stop the tree and collect the child. */
static void end_tree(const struct spawn_opts *o, pid_t pid, int *status, struct rusage *ru)
{
	kill_tree(pid);
	if (o->own_group)
		kill(-pid, SIGKILL);
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
}

/* A pipe for the status channel whose write end is above fd, so the
 * child's dup2 to fd is a real copy (which clears close-on-exec) and never
 * lands on one of its other fds. Both ends close-on-exec. */
static int status_pipe(int fd, int *ret_r, int *ret_w)
{
	int p[2], w;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	w = fcntl(p[1], F_DUPFD_CLOEXEC, fd + 1);
	close(p[1]);
	if (w < 0) {
		close(p[0]);
		return -errno;
	}
	*ret_r = p[0];
	*ret_w = w;
	return 0;
}

/* What the child's tree wrote on the status channel, once the child has
 * ended: whatever is in the pipe now, up to SPAWN_STATUS_MAX bytes. Never
 * waits for EOF: a process that kept the write end must not keep us. */
static int status_read(int fd, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = malloc(SPAWN_STATUS_MAX + 1);
	size_t len = 0;

	if (!buf)
		return -ENOMEM;
	int r = set_nonblock(fd);

	if (r < 0)
		return r;
	while (len < SPAWN_STATUS_MAX) {
		ssize_t l = read(fd, buf + len, SPAWN_STATUS_MAX - len);

		if (l < 0 && errno == EINTR)
			continue;
		if (l <= 0)
			break;
		len += (size_t)l;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int spawn_run(const struct spawn_opts *o, struct spawn_result *ret)
{
	_cleanup_close_ int pipe_r = -1, pipe_w = -1, pidfd = -1, out_r = -1, out_w = -1, in_r = -1, status_r = -1,
			    status_w = -1;
	struct capture cap = { .cap = o->cap, .relay_cap = o->relay ? o->relay_cap : 0 };
	struct capture out = { .relay_cap = o->relay_cap };
	/* split_stderr: the second pipe carries stderr, kept, never relayed */
	bool split = o->split_stderr && o->capture_stdout && !o->capture_stderr;
	int out_relay = split ? -1 : 1;
	_cleanup_free_ char *err_buf = NULL;
	struct stdin_relay in = { .in_w = -1 };
	struct rusage ru = {};
	uint64_t limit_at = o->relay ? o->relay_cap : o->cap;
	bool over = false, output_killed = false, stopped = false, cpu_killed = false;
	uint64_t start = now_usec(), deadline = 0, next_cpu_check = 0, tree_cpu = 0;
	bool capturing = o->capture_stdout || o->capture_stderr;
	bool exited = false, timed_out = false;
	int status = 0, r;
	char *status_buf = NULL;
	size_t status_len = 0;
	pid_t pid = -1;

	cap.buf = malloc(o->cap + 1);
	if (!cap.buf)
		return -ENOMEM;

	if (capturing) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			free(cap.buf);
			return -errno;
		}
		pipe_r = p[0];
		pipe_w = p[1];
	}
	if (split) {
		err_buf = malloc(o->cap + 1);
		if (!err_buf) {
			free(cap.buf);
			return -ENOMEM;
		}
		out.buf = err_buf;
		out.cap = o->cap;
	}
	if ((o->pipe_stdout && o->relay && !o->capture_stdout) || split) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			free(cap.buf);
			return -errno;
		}
		out_r = p[0];
		out_w = p[1];
	}
	if (o->relay_stdin && o->inherit_stdin) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			free(cap.buf);
			return -errno;
		}
		in_r = p[0];
		in.in_w = p[1];
		set_nonblock(in.in_w);
	}

	if (o->status_fd > 2) {
		/* above both numbers, so neither dup2 lands on the pipe itself */
		r = status_pipe(o->status_fd2 > o->status_fd ? o->status_fd2 : o->status_fd, &status_r, &status_w);
		if (r < 0) {
			if (in.in_w >= 0)
				close(in.in_w);
			free(cap.buf);
			return r;
		}
	}

	r = o->child_main || o->limits ? start_forked(o, pipe_w, out_w, in_r, status_w, &pid)
				       : start_exec(o, pipe_w, out_w, in_r, status_w, &pid);
	/* Only the child's copies may keep the channel open. */
	if (status_w >= 0) {
		close(status_w);
		status_w = -1;
	}
	if (in_r >= 0) {
		close(in_r);
		in_r = -1;
	}
	if (r < 0) {
		if (in.in_w >= 0)
			close(in.in_w);
		free(cap.buf);
		return r;
	}
	if (pipe_w >= 0) {
		close(pipe_w);
		pipe_w = -1;
		set_nonblock(pipe_r);
	}
	if (out_w >= 0) {
		close(out_w);
		out_w = -1;
		set_nonblock(out_r);
	}

	pidfd = pidfd_open_compat(pid);
	if (o->timeout_ms > 0)
		deadline = start + (uint64_t)o->timeout_ms * 1000u;

	/* Wait for the child to exit (pidfd) while draining its output. A
	 * grandchild that keeps the pipe open must not keep us here: once the
	 * child is gone we drain what is buffered and stop. */
	while (!exited) {
		struct pollfd pfd[5];
		int nfd = 0, wait_ms = -1, out_i = -1, cap_i = -1, in_i = -1, inw_i = -1;

		if (pipe_r >= 0) {
			cap_i = nfd;
			pfd[nfd++] = (struct pollfd){ .fd = pipe_r, .events = POLLIN };
		}
		if (out_r >= 0) {
			out_i = nfd;
			pfd[nfd++] = (struct pollfd){ .fd = out_r, .events = POLLIN };
		}
		if (in.in_w >= 0 && !in.eof && in.len == 0) {
			/* a background job reading its terminal is stopped
			 * (SIGTTIN): read only while in the foreground */
			if (tcgetpgrp(0) == getpgrp()) {
				in_i = nfd;
				pfd[nfd++] = (struct pollfd){ .fd = 0, .events = POLLIN };
			} else if (wait_ms < 0 || wait_ms > 100)
				wait_ms = 100;
		} else if (in.in_w >= 0 && in.len > 0) {
			inw_i = nfd;
			pfd[nfd++] = (struct pollfd){ .fd = in.in_w, .events = POLLOUT };
		}
		if (pidfd >= 0)
			pfd[nfd++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		else
			wait_ms = 10; /* no pidfd: poll waitpid */
		if (o->stop && (wait_ms < 0 || wait_ms > 100))
			wait_ms = 100; /* a signal just before poll must not wait long */
		if (o->cpu_cg && o->cpu_limit_usec && (wait_ms < 0 || wait_ms > 50))
			wait_ms = 50;
		if (deadline) {
			uint64_t now = now_usec();
			int left = now >= deadline ? 0 : (int)((deadline - now + 999) / 1000);

			if (wait_ms < 0 || left < wait_ms)
				wait_ms = left;
		}

		int pr = nfd > 0 ? poll(pfd, (nfds_t)nfd, wait_ms) : (usleep((useconds_t)wait_ms * 1000), 0);
		if (pr < 0 && errno != EINTR) {
			r = -errno;
			kill_tree(pid);
			waitpid(pid, NULL, 0);
			if (in.in_w >= 0)
				close(in.in_w);
			free(cap.buf);
			return r;
		}

		if (o->stop && *o->stop) {
			stopped = true;
			end_tree(o, pid, &status, &ru);
			break;
		}
		if (cap_i >= 0 && pr > 0 && (pfd[cap_i].revents & (POLLIN | POLLHUP | POLLERR))) {
			int cr = capture_read(pipe_r, &cap, o->relay ? (o->capture_stdout ? 1 : 2) : -1);
			if (cr <= 0) {
				close(pipe_r);
				pipe_r = -1;
			}
		}
		if (out_i >= 0 && pr > 0 && (pfd[out_i].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (capture_read(out_r, &out, out_relay) <= 0) {
				close(out_r);
				out_r = -1;
			}
		}
		if (in_i >= 0 && pr > 0 && (pfd[in_i].revents & (POLLIN | POLLHUP | POLLERR)))
			stdin_relay_read(&in);
		if (inw_i >= 0 && pr > 0 && (pfd[inw_i].revents & (POLLOUT | POLLHUP | POLLERR)))
			stdin_relay_write(&in);
		if (in.in_w >= 0 && in.eof) {
			/* the command sees the end of its input */
			close(in.in_w);
			in.in_w = -1;
		}

		/* Over the output cap: count and drop, or end the tree. */
		if (limit_at && (cap.total > limit_at || out.total > limit_at)) {
			over = true;
			if (o->stop_at_cap) {
				output_killed = true;
				end_tree(o, pid, &status, &ru);
				break;
			}
		}

		/* The tree's CPU time, not one process's: past the limit it goes. */
		if (o->cpu_cg && o->cpu_limit_usec && now_usec() >= next_cpu_check) {
			next_cpu_check = now_usec() + 50000;
			if (limits_cgroup_cpu_usec(o->cpu_cg, &tree_cpu) >= 0 && tree_cpu >= o->cpu_limit_usec) {
				cpu_killed = true;
				end_tree(o, pid, &status, &ru);
				break;
			}
		}

		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid) {
			exited = true;
			break;
		}

		if (deadline && now_usec() >= deadline) {
			timed_out = true;
			end_tree(o, pid, &status, &ru);
			exited = true;
		}
	}
	if (in.in_w >= 0)
		close(in.in_w);

	if (pipe_r >= 0)
		(void)capture_read(pipe_r, &cap, o->relay ? (o->capture_stdout ? 1 : 2) : -1);
	if (out_r >= 0)
		(void)capture_read(out_r, &out, out_relay);
	if (limit_at && (cap.total > limit_at || out.total > limit_at))
		over = true;

	cap.buf[cap.len] = '\0';
	if (status_r >= 0) {
		r = status_read(status_r, &status_buf, &status_len);
		if (r < 0) {
			free(cap.buf);
			return r;
		}
	}
	*ret = (struct spawn_result){
		.status = status_buf,
		.status_len = status_len,
		.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0,
		.timed_out = timed_out,
		.output = cap.buf,
		.output_len = cap.len,
		.output_total = cap.total,
		.duration_us = now_usec() - start,
		.output_over = over,
		.output_killed = output_killed,
		.stdout_total = split ? 0 : out.total,
		.cpu_usec = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
			    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
		.stopped = stopped,
		.cpu_killed = cpu_killed,
		.err_len = out.len,
		.err_total = split ? out.total : 0,
	};
	if (split) {
		err_buf[out.len] = '\0';
		ret->err_output = TAKE_PTR(err_buf);
	}
	return 0;
}

int spawn_capture(const char *const *argv, char *const *envp, int timeout_ms, size_t cap,
		  struct spawn_result *ret)
{
	struct spawn_opts o = {
		.argv = argv,
		.envp = envp,
		.timeout_ms = timeout_ms,
		.cap = cap,
		.capture_stdout = true,
		.capture_stderr = true,
		.own_group = true,
	};

	return spawn_run(&o, ret);
}
