/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon-shim: what every controlled command's name in a sandbox runs.
 * /run/cordon/bin/NAME is a link to this one program; it asks the
 * supervisor, over the sandbox's own broker socket, to run NAME with its
 * arguments, passes its stdio and cwd along as fds, passes on the signals
 * it gets, and ends as the tool ended. A refusal is one line
 * "cordon: denied: REASON" and exit 126.
 *
 * Which command it is comes from the path it was executed as (AT_EXECFN),
 * never from argv[0], and must be a name in /run/cordon/bin. The
 * supervisor trusts none of it: the socket the request arrives on says
 * which sandbox asks, and the policy says what that sandbox may run.
 *
 * Run as one of the sandbox's URL openers (xdg-open, open,
 * sensible-browser: only a sandbox whose policy has open_urls has them),
 * it asks the supervisor to open its one argument on the host instead;
 * a refusal is the same line and exit 126.
 *
 * Small on purpose: libc and the message codec, nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker_proto.h"
#include "exit_like.h"
#include "msgframe.h"

#define EXIT_CORDON 125
#define EXIT_DENIED 126

extern char **environ;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("cordon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_CORDON;
}

/* The name this shim was run as: the last component of the path given to
 * execve, which must be a name in BROKER_SHIM_DIR. */
static const char *invoked_name(void)
{
	const char *fn = (const char *)getauxval(AT_EXECFN), *slash;
	size_t dir = sizeof(BROKER_SHIM_DIR) - 1;

	if (!fn || strncmp(fn, BROKER_SHIM_DIR "/", dir + 1) != 0)
		return NULL;
	slash = fn + dir;
	if (strchr(slash + 1, '/') || !broker_name_valid(slash + 1))
		return NULL;
	return slash + 1;
}

static int connect_broker(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = BROKER_SOCKET };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(s);
		return r;
	}
	return s;
}

/* stdio as it is; a closed one is /dev/null (the frame carries exactly four) */
static int stdio_fd(int fd)
{
	if (fcntl(fd, F_GETFD) >= 0)
		return fd;
	return open("/dev/null", fd == 0 ? O_RDONLY | O_CLOEXEC : O_WRONLY | O_CLOEXEC);
}

static int send_call(int s, const char *name, int argc, char **argv)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);
	char cwd[PATH_MAX];
	int fds[BROKER_CALL_FDS], r;
	struct broker_call c = {
		.command = (char *)name,
		.argv = argv + 1,
		.cwd = cwd,
		.env = environ,
		.tty = (isatty(0) ? BROKER_TTY_IN : 0) | (isatty(1) ? BROKER_TTY_OUT : 0) |
		       (isatty(2) ? BROKER_TTY_ERR : 0),
	};

	(void)argc;
	if (!b)
		return -ENOMEM;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	for (int i = 0; i < 3; i++)
		if ((fds[i] = stdio_fd(i)) < 0)
			return -errno;
	fds[3] = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fds[3] < 0)
		return -errno;
	r = broker_call_encode(b, &c);
	if (r >= 0)
		r = msg_frame_write(s, BROKER_MSG_CALL, b, fds, BROKER_CALL_FDS);
	close(fds[3]);
	return r;
}

/* End as the tool did: its exit code, or its signal (so a shell that ran
 * us sees an interrupted command as interrupted). */
static _Noreturn void exit_like(const struct broker_exit *e)
{
	if (e->message && e->message[0])
		fprintf(stderr, "%s\n", e->message);
	if (e->how == BROKER_SIGNALED)
		die_of_signal((int)e->value);
	_exit((int)e->value);
}

static int wait_answer(int s, int sfd)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = s, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail("shim: poll: %s", strerror(errno));
		}
		if (p[1].revents & POLLIN)
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(64);

				/* a lost signal frame is no reason to stop waiting */
				if (b && broker_signal_encode(b, (int)si.ssi_signo) >= 0)
					(void)msg_frame_write(s, BROKER_MSG_SIGNAL, b, NULL, 0);
			}
		if (p[0].revents) {
			struct msg_frame f = {};
			int r = msg_frame_read(s, MSG_FRAME_MAX, &f);

			if (r <= 0)
				return fail("the supervisor ended the call without an answer%s%s",
					    r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
			if (f.nfds)
				r = -EBADMSG;
			else if (f.type == BROKER_MSG_DENIED) {
				char *reason = NULL;

				r = broker_denied_decode(f.body, &reason);
				if (r >= 0) {
					fprintf(stderr, "cordon: denied: %s\n", reason);
					_exit(EXIT_DENIED);
				}
			} else if (f.type == BROKER_MSG_EXIT) {
				struct broker_exit e = {};

				r = broker_exit_decode(f.body, &e);
				if (r >= 0)
					exit_like(&e);
			} else
				r = -EPROTO;
			msg_frame_done(&f);
			return fail("shim: a malformed answer from the supervisor: %s", strerror(-r));
		}
	}
}

/* URL mode: one URL, no fds; the supervisor checks it and opens it. */
static int send_open_url(int s, int argc, char **argv)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(BROKER_URL_MAX + 16);
	int r;

	if (!b)
		return -ENOMEM;
	r = broker_open_url_encode(b, argv[1]);
	if (r >= 0)
		r = msg_frame_write(s, BROKER_MSG_OPEN_URL, b, NULL, 0);
	return r;
}

int main(int argc, char **argv)
{
	const char *name = invoked_name();
	sigset_t fwd;
	int s, sfd, r;

	if (!name)
		return fail("this is cordon's shim: run it as a command in %s", BROKER_SHIM_DIR);
	/* the signals a terminal or the agent sends us are the tool's */
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGINT);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigaddset(&fwd, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &fwd, NULL) < 0 || (sfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return fail("shim: signals: %s", strerror(errno));
	if (broker_name_is_opener(name) && (argc != 2 || !argv[1][0])) {
		fprintf(stderr, "usage: %s URL (cordon opens one URL on the host, if the policy allows it)\n", name);
		return 2;
	}
	if (broker_name_is_opener(name) && strlen(argv[1]) > BROKER_URL_MAX) {
		fprintf(stderr, "cordon: denied: the URL is longer than %d bytes\n", BROKER_URL_MAX);
		return EXIT_DENIED;
	}
	s = connect_broker();
	if (s < 0)
		return fail("cannot reach the supervisor at %s: %s", BROKER_SOCKET, strerror(-s));
	if (broker_name_is_opener(name)) {
		r = send_open_url(s, argc, argv);
		if (r < 0)
			return fail("cannot ask the supervisor to open the URL: %s", strerror(-r));
		return wait_answer(s, sfd);
	}
	r = send_call(s, name, argc, argv);
	if (r < 0)
		return fail("cannot ask the supervisor to run %s: %s", name,
			    r == -E2BIG || r == -EMSGSIZE ? "the arguments or the environment are too large"
							  : strerror(-r));
	return wait_answer(s, sfd);
}
