/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --pty: a terminal of the command's own, relayed by the runner
 * (terminal.h says who opens what, and why).
 *
 * The relay never blocks on anything but poll: the master is non-blocking
 * (it is ours alone), the runner's stdin is read only after poll said so
 * and only while the runner is in its terminal's foreground (SIGTTIN and
 * SIGTTOU are blocked, so the background gets EIO instead of a stop), and
 * the runner's stderr is written a pipe buffer at a time after POLLOUT (no
 * O_NONBLOCK on a file description cordon run may share with its caller).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "msgframe.h"
#include "process.h"
#include "runner.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* The one frame init sends: no body, the master as its one fd. */
#define TERMINAL_MSG_MASTER 1
/* After the sandbox has ended: how long the pty may take to give up what
 * it still holds (nothing holds its slave then, so it ends at once unless
 * a process that escaped the kill still does). */
#define TERMINAL_DRAIN_USEC 1000000u

/* A pty pair from /dev/ptmx of the devpts we see, with the runner's
 * terminal's settings and size; both ends close-on-exec, neither our
 * controlling terminal. */
static int pty_open(const struct exec_terminal *t, int *ret_master, int *ret_slave)
{
	_cleanup_close_ int master = -1, slave = -1;
	int unlock = 0;

	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return -errno;
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		return -errno;
	/* by the master, never by a path someone could swap */
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return -errno;
	if (t->have_mode && tcsetattr(slave, TCSANOW, &t->mode) < 0)
		return -errno;
	if (t->have_size && ioctl(slave, TIOCSWINSZ, &t->size) < 0)
		return -errno;
	*ret_master = TAKE_FD(master);
	*ret_slave = TAKE_FD(slave);
	return 0;
}

void terminal_runner_prepare(struct exec_ctx *x)
{
	struct exec_terminal *t = &x->tty;
	pid_t parent = getppid();
	sigset_t quiet;
	int r;

	for (int fd = 0; fd <= 2 && t->outer < 0; fd++)
		if (isatty(fd))
			t->outer = fd;
	if (t->outer >= 0) {
		t->have_mode = tcgetattr(t->outer, &t->mode) == 0;
		t->have_size = ioctl(t->outer, TIOCGWINSZ, &t->size) == 0;
	}
	/* The terminal from the background: EIO, never a stop; a reader of
	 * our stderr that went: EPIPE, never death with the terminal raw.
	 * (x->old_mask, which the command gets back, is from before.) */
	sigemptyset(&quiet);
	sigaddset(&quiet, SIGTTIN);
	sigaddset(&quiet, SIGTTOU);
	sigaddset(&quiet, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &quiet, NULL) < 0)
		exec_die("terminal", "sigprocmask: %m");
	if (x->plan->isolation == CORDON_ISOLATION_LIGHT) {
		r = pty_open(t, &t->master, &t->slave);
		if (r < 0) {
			errno = -r;
			exec_die("terminal", "cannot open a pseudo-terminal (/dev/ptmx): %m");
		}
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t->sock) < 0)
		exec_die("terminal", "socketpair: %m");
	/* cordon run's death is a SIGTERM we take (to put its terminal back),
	 * not a SIGKILL; the light runner has this already */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
		exec_die("pdeathsig", "%m");
	if (getppid() != parent)
		exec_die("pdeathsig", "the parent is gone");
	x->runner_parent = parent;
}

void terminal_runner_after_clone(struct exec_ctx *x)
{
	if (x->tty.sock[1] >= 0) {
		close(x->tty.sock[1]);
		x->tty.sock[1] = -1;
	}
}

void terminal_init_open(struct exec_ctx *x)
{
	struct exec_terminal *t = &x->tty;
	int master, slave, r;

	if (t->sock[0] >= 0) {
		close(t->sock[0]);
		t->sock[0] = -1;
	}
	r = pty_open(t, &master, &slave);
	if (r < 0) {
		errno = -r;
		exec_die("terminal", "cannot open a pseudo-terminal in the sandbox's devpts: %m");
	}
	r = msg_frame_write(t->sock[1], TERMINAL_MSG_MASTER, NULL, &master, 1);
	close(master);
	if (r < 0) {
		errno = -r;
		exec_die("terminal", "cannot hand the pseudo-terminal to the runner: %m");
	}
	close(t->sock[1]);
	t->sock[1] = -1;
	/* The runner's terminal leaves the sandbox here: init's own stdio is
	 * the pty from now on (what init says reaches the user through the
	 * relay), and the command inherits it. */
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(slave, fd) < 0)
			exec_die("terminal", "dup2: %m");
	close(slave);
}

void terminal_command_take(struct exec_ctx *x)
{
	struct exec_terminal *t = &x->tty;

	/* light: the runner's copies came along with the fork */
	if (t->master >= 0) {
		close(t->master);
		t->master = -1;
	}
	if (t->slave >= 0) {
		for (int fd = 0; fd <= 2; fd++)
			if (dup2(t->slave, fd) < 0)
				exec_die("terminal", "dup2: %m");
		close(t->slave);
		t->slave = -1;
	}
	if (ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0)
		exec_die("terminal", "cannot make the pseudo-terminal the controlling terminal: %m");
}

static void resize(const struct exec_terminal *t)
{
	struct winsize ws;

	if (t->master >= 0 && t->outer >= 0 && ioctl(t->outer, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
}

static void restore(struct exec_terminal *t)
{
	if (t->raw && tcsetattr(STDIN_FILENO, TCSADRAIN, &t->mode) == 0)
		t->raw = false;
}

/* The master is here: the terminal goes raw (the pty cooks from now on),
 * and the pty gets the size it may have missed. */
static void pty_relay_start(struct exec_terminal *t)
{
	struct termios raw;

	if (fd_set_nonblock(t->master) < 0)
		exec_die("terminal", "cannot make the pseudo-terminal non-blocking: %m");
	if (t->outer == STDIN_FILENO && t->have_mode) {
		raw = t->mode;
		cfmakeraw(&raw);
		if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
			t->raw = true;
	}
	resize(t);
}

/* Full isolation: init's one frame. Anything else (init died first, or a
 * frame without the fd) closes the socket; init's own failure says why. */
static void take_master(struct exec_terminal *t)
{
	struct msg_frame f = {};

	if (msg_frame_read(t->sock[0], 0, &f) == 1 && f.type == TERMINAL_MSG_MASTER && f.nfds == 1) {
		t->master = f.fds[0];
		f.fds[0] = -1;
	}
	msg_frame_done(&f);
	close(t->sock[0]);
	t->sock[0] = -1;
	if (t->master >= 0)
		pty_relay_start(t);
}

/* In the foreground of our terminal (or with no terminal on stdin). */
static bool foreground(void)
{
	return !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

/* Write some of the pending output to stderr: at most a pipe buffer, so a
 * write after POLLOUT never waits. Output no one reads is dropped. */
static void flush_some(struct exec_terminal *t)
{
	size_t n = t->out_len - t->out_off;
	ssize_t w = write(STDERR_FILENO, t->out + t->out_off, n < PIPE_BUF ? n : PIPE_BUF);

	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w < 0) {
		t->out_gone = true;
		w = (ssize_t)n;
	}
	t->out_off += (size_t)w;
	if (t->out_off == t->out_len)
		t->out_off = t->out_len = 0;
}

/* Read the master into the empty output buffer: > 0 bytes, 0 nothing now,
 * -1 ended (EIO: nothing holds the slave any more). */
static int read_master(struct exec_terminal *t)
{
	ssize_t l = read(t->master, t->out, sizeof(t->out));

	if (l < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (l <= 0)
		return -1;
	t->out_len = t->out_gone ? 0 : (size_t)l;
	t->out_off = 0;
	return 1;
}

static void read_stdin(struct exec_terminal *t)
{
	ssize_t l = read(STDIN_FILENO, t->in, sizeof(t->in));

	if (l > 0) {
		t->in_len = (size_t)l;
		t->in_off = 0;
	} else if (l == 0 || !(errno == EINTR || errno == EAGAIN || (errno == EIO && !foreground())))
		t->in_done = true;
}

static void write_master(struct exec_terminal *t)
{
	ssize_t w = write(t->master, t->in + t->in_off, t->in_len - t->in_off);

	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w < 0) {
		t->in_done = true;
		t->in_len = t->in_off = 0;
		return;
	}
	t->in_off += (size_t)w;
	if (t->in_off == t->in_len)
		t->in_len = t->in_off = 0;
}

int terminal_supervise(struct exec_ctx *x, pid_t child)
{
	struct exec_terminal *t = &x->tty;
	_cleanup_close_ int sfd = -1;
	bool master_open = true;
	int status = 0;

	sfd = signalfd(-1, &x->forward, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		exec_die("terminal", "signalfd: %m");
	if (t->master >= 0)
		pty_relay_start(t);
	for (;;) {
		struct pollfd fds[5];
		int sock_i = -1, in_i = -1, mw_i = -1, mr_i = -1, out_i = -1, timeout = -1, n = 0;

		fds[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (t->sock[0] >= 0)
			fds[sock_i = n++] = (struct pollfd){ .fd = t->sock[0], .events = POLLIN };
		if (t->master >= 0) {
			if (t->in_len)
				fds[mw_i = n++] = (struct pollfd){ .fd = t->master, .events = POLLOUT };
			else if (!t->in_done && foreground())
				fds[in_i = n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
			else if (!t->in_done)
				timeout = 100; /* in the background: look again soon */
			if (t->out_len)
				fds[out_i = n++] = (struct pollfd){ .fd = STDERR_FILENO, .events = POLLOUT };
			else if (master_open)
				fds[mr_i = n++] = (struct pollfd){ .fd = t->master, .events = POLLIN };
		}
		if (poll(fds, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			exec_die("terminal", "poll: %m");
		}
		if (fds[0].revents) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				int sig = (int)si.ssi_signo, r;

				/* the pty tells its foreground group itself */
				if (sig == SIGWINCH) {
					resize(t);
					continue;
				}
				r = exec_supervise_signal(x, child, sig, &status);
				if (r < 0) {
					restore(t);
					_exit(128 + SIGKILL);
				}
				if (r > 0)
					return status;
			}
		}
		if (sock_i >= 0 && fds[sock_i].revents)
			take_master(t);
		if (in_i >= 0 && fds[in_i].revents)
			read_stdin(t);
		if (mw_i >= 0 && fds[mw_i].revents)
			write_master(t);
		if (mr_i >= 0 && fds[mr_i].revents && read_master(t) < 0)
			master_open = false;
		if (out_i >= 0 && fds[out_i].revents)
			flush_some(t);
	}
}

/* Wait for fd to be ready for events until the deadline: > 0 ready. */
static int wait_until(int fd, short events, uint64_t deadline)
{
	uint64_t now = now_usec();
	struct pollfd p = { .fd = fd, .events = events };

	if (now >= deadline)
		return 0;
	return poll(&p, 1, (int)((deadline - now + 999) / 1000));
}

void terminal_finish(struct exec_ctx *x)
{
	struct exec_terminal *t = &x->tty;
	uint64_t deadline = now_usec() + TERMINAL_DRAIN_USEC;

	/* light: the runner's copy of the slave was what kept the master
	 * open while the command ran; now only an escaped process could */
	if (t->slave >= 0) {
		close(t->slave);
		t->slave = -1;
	}
	while (t->master >= 0) {
		if (t->out_len) {
			if (wait_until(STDERR_FILENO, POLLOUT, deadline) <= 0)
				break;
			flush_some(t);
			continue;
		}
		if (wait_until(t->master, POLLIN, deadline) <= 0 || read_master(t) < 0)
			break;
	}
	if (t->master >= 0) {
		close(t->master);
		t->master = -1;
	}
	if (t->sock[0] >= 0) {
		/* init ended before it sent the master */
		close(t->sock[0]);
		t->sock[0] = -1;
	}
	restore(t);
}
