/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The terminal backend: ask on the supervisor's controlling terminal. Never
 * the agent's stdio (which the agent controls): /dev/tty, opened afresh, in
 * a mode of its own (canonical, echo, no signals), restored on every path.
 * Every wait — for the lock, for the terminal to take output, for the
 * answer — ends at the deadline, so a prompt nobody answers cannot hang the
 * session, and a session with no terminal gets the default at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "approve_record.h"
#include "approve_terminal.h"
#include "approve_text.h"
#include "cleanup.h"

/* The closing line ("cordon: denied") may take this long past the deadline. */
#define CLOSING_LINE_GRACE_MS 100
/* With less time left than this when its turn comes, a prompt is not shown:
 * nobody could read and answer it (a shorter timeout is this short for
 * every prompt, and they are shown). */
#define PROMPT_MIN_MS 250
/* A canonical-mode line is at most 4095 bytes and a newline. */
#define ANSWER_MAX 4096

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = approve_now_ms();

	if (now >= deadline)
		return 0;
	return deadline - now > INT32_MAX ? INT32_MAX : (int)(deadline - now);
}

static uint64_t min_u64(uint64_t x, uint64_t y)
{
	return x < y ? x : y;
}

static int write_all(int fd, const char *s, size_t n, uint64_t deadline)
{
	while (n > 0) {
		ssize_t l = write(fd, s, n);

		if (l > 0) {
			s += l;
			n -= (size_t)l;
			continue;
		}
		if (l < 0 && errno == EINTR)
			continue;
		if (l < 0 && errno != EAGAIN)
			return -errno;
		/* output stopped (^S) or the buffer is full: wait, not past the deadline */
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int ms = remaining_ms(deadline);

		if (ms == 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, ms) < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/* The backend's default: as the outcome of a timeout, or as if answered. */
static void apply_default(const struct approval_entry *e, bool timed_out, struct approval_result *ret, const char *why)
{
	enum approval_outcome o = e->default_allow ? APPROVAL_GRANTED : APPROVAL_DENIED;

	approval_result_set(ret, timed_out ? APPROVAL_TIMEOUT : o, e->default_allow, e->name, "%s: the default, %s",
			    why, e->default_allow ? "allow" : "deny");
}

/* Read one line by the deadline: its length, 0 at end of input, -ETIMEDOUT,
 * or -errno (EIO: hung up). */
static ssize_t read_answer(int fd, char *buf, size_t size, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ms = remaining_ms(deadline), n;
		ssize_t l;

		if (ms == 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		/* canonical mode: a read returns one whole line (or what ^D ended) */
		l = read(fd, buf, size);
		if (l >= 0)
			return l;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

/* Ask on fd, whose mode is ours and whose lock is held. */
static void converse(int fd, const struct approval_entry *e, const char *info, const char *question, uint64_t deadline,
		     struct approval_result *ret)
{
	char answer[ANSWER_MAX];
	const char *closing;
	ssize_t l;
	int r;

	r = write_all(fd, info, strlen(info), deadline);
	/* what was typed before the question showed cannot answer it */
	if (r >= 0)
		r = tcflush(fd, TCIFLUSH) < 0 ? -errno : 0;
	if (r >= 0)
		r = write_all(fd, question, strlen(question), deadline);
	l = r < 0 ? r : read_answer(fd, answer, sizeof(answer), deadline);

	if (l == -ETIMEDOUT) {
		apply_default(e, true, ret, "no answer on the terminal in time");
		closing = e->default_allow ? "\ncordon: no answer in time: allowed (the default)\n"
					   : "\ncordon: no answer in time: denied (the default)\n";
	} else if (l <= 0) {
		apply_default(e, false, ret, l == 0 ? "end of input on the terminal" : "the terminal failed");
		closing = e->default_allow ? "\ncordon: allowed (the default)\n" : "\ncordon: denied (the default)\n";
	} else if (memchr(answer, 0x03, (size_t)l)) {
		approval_result_set(ret, APPROVAL_DENIED, false, e->name, "denied on the terminal (^C)");
		closing = "\ncordon: denied\n";
	} else if (terminal_answer_is_yes(answer, (size_t)l)) {
		approval_result_set(ret, APPROVAL_GRANTED, true, e->name, "allowed on the terminal");
		closing = "cordon: allowed\n";
	} else {
		approval_result_set(ret, APPROVAL_DENIED, false, e->name, "denied on the terminal");
		closing = "cordon: denied\n";
	}
	(void)write_all(fd, closing, strlen(closing), approve_now_ms() + CLOSING_LINE_GRACE_MS);
}

/* pthread_mutex_clocklock's absolute time for a deadline in ms. */
static struct timespec abs_time(uint64_t deadline)
{
	return (struct timespec){.tv_sec = (time_t)(deadline / 1000), .tv_nsec = (long)(deadline % 1000) * 1000000};
}

void terminal_ask(struct approvals *a, const struct approval_entry *e, const struct approval_request *req,
		  uint64_t deadline, struct approval_result *ret)
{
	_cleanup_free_ char *info = NULL, *question = NULL;
	_cleanup_close_ int fd = -1;
	struct termios saved, mode;
	sigset_t job_control, old_mask;
	struct timespec until;
	pid_t fg;
	int r;

	/* O_NONBLOCK: no wait in open for a line, none in write for a stopped
	 * terminal; poll bounds each wait. This open file is ours alone. */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		apply_default(e, false, ret,
			      errno == ENXIO ? "no controlling terminal" : "the terminal cannot be opened");
		return;
	}
	/* A supervisor in the background would take its answer from, and draw
	 * over, whatever job the terminal belongs to. */
	fg = tcgetpgrp(fd);
	if (fg < 0 || fg != getpgrp()) {
		apply_default(e, false, ret, "the supervisor is not in its terminal's foreground");
		return;
	}
	r = terminal_prompt(e->name, req, e->timeout_ms, e->default_allow, &info, &question);
	if (r < 0) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "cannot format the prompt: %s", strerror(-r));
		return;
	}

	until = abs_time(deadline);
	r = pthread_mutex_clocklock(&a->terminal_lock, CLOCK_MONOTONIC, &until);
	if (r == 0 && (uint64_t)remaining_ms(deadline) < min_u64(PROMPT_MIN_MS, e->timeout_ms)) {
		pthread_mutex_unlock(&a->terminal_lock);
		r = ETIMEDOUT;
	}
	if (r != 0) {
		apply_default(e, true, ret, "no turn at the terminal in time (another prompt held it)");
		return;
	}
	/* Blocked, SIGTTOU/SIGTTIN make a change of job (the shell moved us to
	 * the background) an EIO here instead of stopping the supervisor. */
	sigemptyset(&job_control);
	sigaddset(&job_control, SIGTTOU);
	sigaddset(&job_control, SIGTTIN);
	pthread_sigmask(SIG_BLOCK, &job_control, &old_mask);

	/* the session's relay stops reading the terminal: the keys are ours */
	if (a->hold)
		a->hold(a->hold_ctx, true);
	if (tcgetattr(fd, &saved) < 0) {
		apply_default(e, false, ret, "the terminal's mode cannot be read");
		goto unlock;
	}
	mode = saved;
	mode.c_lflag |= ICANON | ECHO | ECHOE | ECHOK;
	/* ^C and ^Z are an answer (not yes), not a signal to whatever job;
	 * ^C ends it (VEOL below) */
	mode.c_lflag &= ~(tcflag_t)(ISIG | ECHONL);
	mode.c_iflag |= ICRNL;
	mode.c_iflag &= ~(tcflag_t)(INLCR | IGNCR);
	mode.c_oflag |= OPOST | ONLCR;
	/* The agent may share this terminal and set its editing keys: make
	 * them the usual ones, so only Enter, ^D and ^C end the answer. ^C
	 * ends the line at once (an end-of-line key: no Enter after it), and
	 * a line holding it is never yes: a deny, and the next line typed is
	 * the agent's again. */
	mode.c_cc[VEOF] = 0x04;
	mode.c_cc[VEOL] = 0x03;
	mode.c_cc[VEOL2] = _POSIX_VDISABLE;
	mode.c_cc[VERASE] = 0x7f;
	mode.c_cc[VKILL] = 0x15;
	mode.c_cc[VWERASE] = 0x17;
	/* TCSANOW, then a flush: TCSAFLUSH would wait for output to drain,
	 * without end while the terminal is stopped */
	if (tcsetattr(fd, TCSANOW, &mode) < 0 || tcflush(fd, TCIFLUSH) < 0) {
		apply_default(e, false, ret, "the terminal's mode cannot be set");
		(void)tcsetattr(fd, TCSANOW, &saved);
		goto unlock;
	}

	converse(fd, e, info, question, deadline, ret);

	/* The agent gets its mode back, and none of the keys typed for us. */
	(void)tcflush(fd, TCIFLUSH);
	(void)tcsetattr(fd, TCSANOW, &saved);
unlock:
	if (a->hold)
		a->hold(a->hold_ctx, false);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	pthread_mutex_unlock(&a->terminal_lock);
}
