/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The spawn loop as a state machine: start a child, say what to poll, handle
 * what poll returned, finish. A caller that owns its poll loop (cordon_spawn)
 * runs many children at once through it; spawn_run is the blocking loop on
 * top, for probes and cordon_run. Starting the child itself (the fd set-up,
 * exec or the in-process runner) is process.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "process.h"
#include "runlimits.h"
#include "stdfd.h"

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
	p[0] = stdfd_move_above(p[0]);
	if (p[0] < 0) {
		close(p[1]);
		return p[0];
	}
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
	int r = fd_set_nonblock(fd);

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

struct spawn_child {
	struct spawn_opts o;      /* a copy; argv and envp are used only at start */
	pid_t pid;
	int pidfd, pipe_r, out_r, err_r, status_r;
	int end_r;                /* the end pipe (end_fd), until its word or end of file */
	int caller_fd[3];         /* our dups of the caller's stdio, closed once started */
	struct capture cap, out, err; /* err: split_stderr's own pipe, kept, never relayed */
	struct stdin_relay in;
	struct rusage ru;
	int status;
	uint64_t start, deadline, next_cpu_check, tree_cpu, limit_at;
	bool over, output_killed, stopped, cpu_killed, timed_out, exited, finished;
	bool left;                /* ended by the end pipe's word: the child finishes its exit unawaited */
	int cap_i, out_i, err_i, in_i, inw_i, end_i; /* where spawn_pollfds put each fd, -1: not there */
	bool tty_saved;           /* restore_terminal: tty_mode is to be put back */
	struct termios tty_mode;
};

/* Our terminal as it was before the child (restore_terminal); also from
 * the background, where SIGTTOU would stop us: blocked, it lets it be. */
static void terminal_put_back(struct spawn_child *c)
{
	sigset_t ttou, old;

	if (!c->tty_saved)
		return;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	(void)tcsetattr(STDIN_FILENO, TCSADRAIN, &c->tty_mode);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	c->tty_saved = false;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

struct spawn_child *spawn_child_free(struct spawn_child *c)
{
	if (!c)
		return NULL;
	if (c->pid > 0 && !c->exited)
		end_tree(&c->o, c->pid, &c->status, &c->ru);
	terminal_put_back(c);
	close_fd(&c->pidfd);
	close_fd(&c->end_r);
	close_fd(&c->pipe_r);
	close_fd(&c->out_r);
	close_fd(&c->err_r);
	close_fd(&c->status_r);
	close_fd(&c->in.in_w);
	for (int i = 0; i < 3; i++)
		close_fd(&c->caller_fd[i]);
	free(c->cap.buf);
	free(c->err.buf);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct spawn_child *, spawn_child_free)

/* Both ends above 2: a caller with its stdio closed would otherwise get
 * them on 0..2, where the child's dup2 onto its stdio overwrites one
 * before copying it (and a dup2 onto itself keeps close-on-exec). */
static int make_pipe(int *ret_r, int *ret_w)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	p[0] = stdfd_move_above(p[0]);
	p[1] = stdfd_move_above(p[1]);
	if (p[0] < 0 || p[1] < 0) {
		int r = p[0] < 0 ? p[0] : p[1];

		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		return r;
	}
	*ret_r = p[0];
	*ret_w = p[1];
	return 0;
}

static void close_passed(int (*fds)[SPAWN_PASS_MAX])
{
	for (size_t i = 0; i < SPAWN_PASS_MAX; i++)
		if ((*fds)[i] >= 0)
			close((*fds)[i]);
}

int spawn_start(const struct spawn_opts *o, struct spawn_child **ret)
{
	_cleanup_(spawn_child_freep) struct spawn_child *c = NULL;
	_cleanup_close_ int pipe_w = -1, out_w = -1, err_w = -1, in_r = -1, status_w = -1, end_w = -1;
	_cleanup_(close_passed) int pass_w[SPAWN_PASS_MAX] = { -1, -1, -1, -1 };
	struct spawn_fds f;
	int top, r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct spawn_child){
		.o = *o, .pid = -1, .pidfd = -1, .pipe_r = -1, .out_r = -1, .err_r = -1, .status_r = -1, .end_r = -1,
		.caller_fd = { -1, -1, -1 },
		.cap = { .cap = o->cap, .relay_cap = o->relay ? o->relay_cap : 0 },
		.out = { .relay_cap = o->relay_cap },
		.in = { .in_w = -1 },
		.limit_at = o->relay ? o->relay_cap : o->cap,
		.cap_i = -1, .out_i = -1, .err_i = -1, .in_i = -1, .inw_i = -1, .end_i = -1,
	};
	o = &c->o;
	if (o->caller_stdio) {
		/* Above 2, so the child's dup2 onto 0, 1 and 2 never overwrites
		 * one it still has to copy (the caller may pass 1 as stderr). */
		for (int i = 0; i < 3; i++)
			if (o->stdio_fd[i] >= 0) {
				c->caller_fd[i] = fcntl(o->stdio_fd[i], F_DUPFD_CLOEXEC, 3);
				if (c->caller_fd[i] < 0)
					return -errno;
			}
		if (c->caller_fd[0] >= 0) {
			c->o.inherit_stdin = true; /* no /dev/null over it */
			c->o.relay_stdin = false;
		}
		if (c->caller_fd[1] >= 0)
			c->o.capture_stdout = false;
		if (c->caller_fd[2] >= 0)
			c->o.capture_stderr = false;
		c->o.relay = c->o.relay && (c->o.capture_stdout || c->o.capture_stderr);
	}

	c->cap.buf = malloc(o->cap + 1);
	if (!c->cap.buf)
		return -ENOMEM;
	if ((o->capture_stdout || o->capture_stderr) && (r = make_pipe(&c->pipe_r, &pipe_w)) < 0)
		return r;
	if (o->pipe_stdout && o->relay && !o->capture_stdout && c->caller_fd[1] < 0 &&
	    (r = make_pipe(&c->out_r, &out_w)) < 0)
		return r;
	/* split_stderr: stderr gets a pipe of its own, captured apart */
	if (o->split_stderr && o->capture_stdout && !o->capture_stderr && c->caller_fd[2] < 0) {
		c->err = (struct capture){ .cap = o->cap, .buf = malloc(o->cap + 1) };
		if (!c->err.buf)
			return -ENOMEM;
		if ((r = make_pipe(&c->err_r, &err_w)) < 0)
			return r;
	}
	if (o->relay_stdin && o->inherit_stdin) {
		r = make_pipe(&in_r, &c->in.in_w);
		if (r < 0)
			return r;
		/* fail closed: a blocking write to the child would stall the
		 * loop, and with it the timeout */
		r = fd_set_nonblock(c->in.in_w);
		if (r < 0)
			return r;
	}
	/* Every fd the child places at a fixed number comes from above all
	 * of those numbers, so no dup2 lands on one still to be copied. */
	top = o->status_fd2 > o->status_fd ? o->status_fd2 : o->status_fd;
	top = o->end_fd > top ? o->end_fd : top;
	if (o->n_pass > SPAWN_PASS_MAX)
		return -E2BIG;
	/* the end pipe: for a child of our own code (child_main), which
	 * places it itself */
	if (o->end_fd != 0 && (o->end_fd <= 2 || !o->child_main))
		return -EINVAL;
	for (size_t i = 0; i < o->n_pass; i++)
		top = o->pass_at[i] > top ? o->pass_at[i] : top;
	if (o->status_fd > 2) {
		r = status_pipe(top, &c->status_r, &status_w);
		if (r < 0)
			return r;
	}
	if (o->end_fd > 2) {
		r = status_pipe(top, &c->end_r, &end_w);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < o->n_pass; i++) {
		if (o->pass_at[i] <= 2)
			return -EBADF;
		pass_w[i] = fcntl(o->pass_fd[i], F_DUPFD_CLOEXEC, top + 1);
		if (pass_w[i] < 0)
			return -errno;
	}

	c->tty_saved = o->restore_terminal && tcgetattr(STDIN_FILENO, &c->tty_mode) == 0;
	f = (struct spawn_fds){
		.pipe_w = pipe_w,
		.out_w = c->caller_fd[1] >= 0 ? c->caller_fd[1] : out_w,
		.err_w = c->caller_fd[2] >= 0 ? c->caller_fd[2] : err_w,
		.in_r = c->caller_fd[0] >= 0 ? c->caller_fd[0] : in_r,
		.status_w = status_w,
		.end_w = end_w,
	};
	/* every one: a copy by hand once missed the fourth (the plan, after
	 * an exec file, a broker socket and a credential table), and the
	 * child got fd 0 in its place */
	memcpy(f.pass_w, pass_w, sizeof(f.pass_w));
	r = o->child_main || o->limits ? spawn_start_forked(o, &f, &c->pid) : spawn_start_exec(o, &f, &c->pid);
	if (r < 0) {
		c->pid = -1;
		return r;
	}
	/* Only the child's copies may keep these open: the pipes must see
	 * EOF when the child's tree is done with them. */
	for (int i = 0; i < 3; i++)
		close_fd(&c->caller_fd[i]);
	c->start = now_usec();
	/* From here on a failure must not leave the child running:
	 * spawn_child_free ends its tree. Non-blocking reads are what let
	 * the loop reach its timeout: never run without them. */
	if (c->pipe_r >= 0 && (r = fd_set_nonblock(c->pipe_r)) < 0)
		return r;
	if (c->out_r >= 0 && (r = fd_set_nonblock(c->out_r)) < 0)
		return r;
	if (c->err_r >= 0 && (r = fd_set_nonblock(c->err_r)) < 0)
		return r;
	if (c->end_r >= 0 && (r = fd_set_nonblock(c->end_r)) < 0)
		return r;

	c->pidfd = pidfd_open_compat(c->pid);
	if (o->timeout_ms > 0)
		c->deadline = c->start + (uint64_t)o->timeout_ms * 1000u;
	*ret = TAKE_PTR(c);
	return 0;
}

pid_t spawn_child_pid(const struct spawn_child *c)
{
	return c->pid;
}

bool spawn_child_left(const struct spawn_child *c)
{
	return c->left;
}

int spawn_child_pidfd(const struct spawn_child *c)
{
	return c->pidfd;
}

int spawn_child_output_fd(const struct spawn_child *c)
{
	return c->pipe_r;
}

static void lower(int *timeout_ms, int ms)
{
	if (*timeout_ms < 0 || ms < *timeout_ms)
		*timeout_ms = ms;
}

size_t spawn_pollfds(struct spawn_child *c, struct pollfd *pfd, int *timeout_ms)
{
	size_t nfd = 0;

	c->cap_i = c->out_i = c->err_i = c->in_i = c->inw_i = -1;
	if (c->exited) {
		lower(timeout_ms, 0);
		return 0;
	}
	if (c->pipe_r >= 0) {
		c->cap_i = (int)nfd;
		pfd[nfd++] = (struct pollfd){ .fd = c->pipe_r, .events = POLLIN };
	}
	if (c->out_r >= 0) {
		c->out_i = (int)nfd;
		pfd[nfd++] = (struct pollfd){ .fd = c->out_r, .events = POLLIN };
	}
	if (c->err_r >= 0) {
		c->err_i = (int)nfd;
		pfd[nfd++] = (struct pollfd){ .fd = c->err_r, .events = POLLIN };
	}
	if (c->in.in_w >= 0 && !c->in.eof && c->in.len == 0) {
		/* a background job reading its terminal is stopped (SIGTTIN):
		 * read only while in the foreground */
		if (tcgetpgrp(0) == getpgrp()) {
			c->in_i = (int)nfd;
			pfd[nfd++] = (struct pollfd){ .fd = 0, .events = POLLIN };
		} else
			lower(timeout_ms, 100);
	} else if (c->in.in_w >= 0 && c->in.len > 0) {
		c->inw_i = (int)nfd;
		pfd[nfd++] = (struct pollfd){ .fd = c->in.in_w, .events = POLLOUT };
	}
	if (c->end_r >= 0) {
		c->end_i = (int)nfd;
		pfd[nfd++] = (struct pollfd){ .fd = c->end_r, .events = POLLIN };
	}
	if (c->pidfd >= 0)
		pfd[nfd++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
	else
		lower(timeout_ms, 10); /* no pidfd: poll waitpid */
	if (c->o.stop)
		lower(timeout_ms, 100); /* a signal just before poll must not wait long */
	if (c->o.cpu_cg && c->o.cpu_limit_usec)
		lower(timeout_ms, 50);
	if (c->deadline) {
		uint64_t now = now_usec();

		lower(timeout_ms, now >= c->deadline ? 0 : (int)((c->deadline - now + 999) / 1000));
	}
	return nfd;
}

static bool ready(const struct pollfd *pfd, size_t n, int i, short events)
{
	return i >= 0 && (size_t)i < n && (pfd[i].revents & (events | POLLHUP | POLLERR));
}

static int relay_fd(const struct spawn_opts *o)
{
	return o->relay ? (o->capture_stdout ? 1 : 2) : -1;
}

void spawn_kill(struct spawn_child *c)
{
	if (c->exited || c->pid <= 0)
		return;
	c->stopped = true;
	end_tree(&c->o, c->pid, &c->status, &c->ru);
	c->exited = true;
}

/* The end pipe is readable: its word (the tree has ended, with this wait
 * status) ends the run, and the child is left to finish its own exit.
 * Anything else (end of file: the writer is gone without a word; a short
 * or unknown word) stops the listening, and the child's exit decides. */
static bool end_word(struct spawn_child *c)
{
	int32_t st;
	ssize_t l;

	do
		l = read(c->end_r, &st, sizeof(st));
	while (l < 0 && errno == EINTR);
	if (l < 0 && errno == EAGAIN)
		return false;
	close_fd(&c->end_r);
	if (l != (ssize_t)sizeof(st) || !(WIFEXITED(st) || WIFSIGNALED(st)))
		return false;
	c->status = st;
	c->exited = true;
	c->left = true;
	return true;
}

int spawn_step(struct spawn_child *c, const struct pollfd *pfd, size_t n)
{
	const struct spawn_opts *o = &c->o;

	if (c->exited)
		return 1;
	if (o->stop && *o->stop) {
		spawn_kill(c);
		return 1;
	}
	if (ready(pfd, n, c->cap_i, POLLIN) && capture_read(c->pipe_r, &c->cap, relay_fd(o)) <= 0)
		close_fd(&c->pipe_r);
	if (ready(pfd, n, c->out_i, POLLIN) && capture_read(c->out_r, &c->out, 1) <= 0)
		close_fd(&c->out_r);
	if (ready(pfd, n, c->err_i, POLLIN) && capture_read(c->err_r, &c->err, -1) <= 0)
		close_fd(&c->err_r);
	if (ready(pfd, n, c->in_i, POLLIN))
		stdin_relay_read(&c->in);
	if (ready(pfd, n, c->inw_i, POLLOUT))
		stdin_relay_write(&c->in);
	bool end_ready = ready(pfd, n, c->end_i, POLLIN);

	c->cap_i = c->out_i = c->err_i = c->in_i = c->inw_i = c->end_i = -1;
	if (end_ready && end_word(c))
		return 1;
	if (c->in.in_w >= 0 && c->in.eof)
		close_fd(&c->in.in_w); /* the command sees the end of its input */

	/* Over the output cap: count and drop, or end the tree. */
	if (c->limit_at && (c->cap.total > c->limit_at || c->out.total > c->limit_at || c->err.total > c->limit_at)) {
		c->over = true;
		if (o->stop_at_cap) {
			c->output_killed = true;
			end_tree(o, c->pid, &c->status, &c->ru);
			c->exited = true;
			return 1;
		}
	}

	/* The tree's CPU time, not one process's: past the limit it goes. */
	if (o->cpu_cg && o->cpu_limit_usec && now_usec() >= c->next_cpu_check) {
		c->next_cpu_check = now_usec() + 50000;
		if (limits_cgroup_cpu_usec(o->cpu_cg, &c->tree_cpu) >= 0 && c->tree_cpu >= o->cpu_limit_usec) {
			c->cpu_killed = true;
			end_tree(o, c->pid, &c->status, &c->ru);
			c->exited = true;
			return 1;
		}
	}

	pid_t w = wait4(c->pid, &c->status, WNOHANG, &c->ru);
	if (w == c->pid) {
		c->exited = true;
		return 1;
	}
	if (w < 0 && errno != EINTR) {
		/* not ours to wait for (a SIGCHLD of SIG_IGN reaps it): what
		 * became of it is unknown, so nothing can read as success */
		int r = -errno;

		kill_tree(c->pid);
		c->exited = true;
		c->status = W_EXITCODE(127, 0);
		return r;
	}

	if (c->deadline && now_usec() >= c->deadline) {
		c->timed_out = true;
		end_tree(o, c->pid, &c->status, &c->ru);
		c->exited = true;
		return 1;
	}
	return 0;
}

int spawn_finish(struct spawn_child *c, struct spawn_result *ret)
{
	const struct spawn_opts *o = &c->o;
	char *status_buf = NULL;
	size_t status_len = 0;
	int r;

	if (!c->exited)
		return -EBUSY;
	if (c->finished)
		return -EALREADY;
	terminal_put_back(c);
	close_fd(&c->in.in_w);
	/* A grandchild that keeps the pipe open must not keep us: drain
	 * what is buffered and stop. */
	if (c->pipe_r >= 0)
		(void)capture_read(c->pipe_r, &c->cap, relay_fd(o));
	if (c->out_r >= 0)
		(void)capture_read(c->out_r, &c->out, 1);
	if (c->err_r >= 0)
		(void)capture_read(c->err_r, &c->err, -1);
	if (c->limit_at && (c->cap.total > c->limit_at || c->out.total > c->limit_at || c->err.total > c->limit_at))
		c->over = true;
	if (c->err.buf)
		c->err.buf[c->err.len] = '\0';
	c->cap.buf[c->cap.len] = '\0';
	if (c->status_r >= 0) {
		r = status_read(c->status_r, &status_buf, &status_len);
		if (r < 0)
			return r;
	}
	*ret = (struct spawn_result){
		.status = status_buf,
		.status_len = status_len,
		.exit_code = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1,
		.signal = WIFSIGNALED(c->status) ? WTERMSIG(c->status) : 0,
		.timed_out = c->timed_out,
		.output = TAKE_PTR(c->cap.buf),
		.output_len = c->cap.len,
		.output_total = c->cap.total,
		.duration_us = now_usec() - c->start,
		.output_over = c->over,
		.output_killed = c->output_killed,
		.stdout_total = c->out.total,
		.cpu_usec = (uint64_t)(c->ru.ru_utime.tv_sec + c->ru.ru_stime.tv_sec) * 1000000u +
			    (uint64_t)(c->ru.ru_utime.tv_usec + c->ru.ru_stime.tv_usec),
		.stopped = c->stopped,
		.cpu_killed = c->cpu_killed,
		.err_output = TAKE_PTR(c->err.buf),
		.err_len = c->err.len,
		.err_total = c->err.total,
	};
	c->finished = true;
	return 0;
}

int spawn_run(const struct spawn_opts *o, struct spawn_result *ret)
{
	_cleanup_(spawn_child_freep) struct spawn_child *c = NULL;
	int r;

	r = spawn_start(o, &c);
	if (r < 0)
		return r;
	for (;;) {
		struct pollfd pfd[SPAWN_MAX_POLLFDS];
		int wait_ms = -1;
		size_t n = spawn_pollfds(c, pfd, &wait_ms);

		int pr = n > 0 ? poll(pfd, (nfds_t)n, wait_ms) : (usleep((useconds_t)wait_ms * 1000), 0);
		if (pr < 0 && errno != EINTR)
			return -errno; /* spawn_child_free ends the tree */
		r = spawn_step(c, pfd, pr > 0 ? n : 0);
		if (r < 0)
			return r;
		if (r > 0)
			break;
	}
	return spawn_finish(c, ret);
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
