/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor's call path (src/supervisor/call.c, call_run.c) without
 * a session: a supervisor built from a profile with command_policies, a
 * shim's connection made as a socketpair and handed to call_accept as an
 * endpoint would, a call frame written to it, the supervisor's loop turned
 * until the answer comes. What comes back is read as the shim reads it:
 *   - the profile's decision: an invocation policy's deny (its reason, the
 *     denial recorded), a command the caller may not use, a working
 *     directory that is not the fd the shim holds; each beside a control
 *     that goes through to the spawn (the tool runs confined, its output
 *     on the shim's stdout, its exit in the answer);
 *   - the protocol: a call with the wrong fds, a signal before any call,
 *     a body that does not decode: the peer is dropped, nothing answered.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "broker_proto.h"
#include "call.h"
#include "msgframe.h"
#include "sup_internal.h"
#include "supervisor.h"

static char dir[64], ws[128], audit[128];
static struct cordon_profile_handle *prof;
static struct supervisor *sup;
static struct endpoint ep;

static void setup(void)
{
	const char *cordon = getenv("CORDON");
	char path[192], err[512];
	struct cordon_error e = {};
	FILE *f;

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-call.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(ws, sizeof(ws), "%s/ws", dir);
	snprintf(audit, sizeof(audit), "%s/audit", dir);
	cr_assert_eq(mkdir(ws, 0755), 0);
	snprintf(path, sizeof(path), "%s/profile.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"{\"workspace\": \"%s\", \"command_policies\": {\"commands\": {"
		"\"techo\": {\"executable\": \"/bin/echo\", \"invocation_policy\": {\"default\": \"allow\", "
		"\"deny\": [{\"argv\": {\"prefix\": [\"--bad\"]}, \"reason\": \"no bad flags\"}]}},"
		"\"tnope\": {\"executable\": \"/bin/true\", \"from\": {\"session\": \"deny\"}}"
		"}}}",
		ws);
	fclose(f);
	unsetenv("TMPDIR");
	cr_assert_eq(cordon_profile_load(path, NULL, &prof, &e), 0, "%s", e.message);
	struct supervisor_config cfg = {
		.profile = prof, .path_env = "/usr/bin:/bin", .session_writable = (const char *const[]){ ws, NULL },
		.audit_dir = audit,
	};
	cr_assert_eq(supervisor_new(&cfg, &sup, err, sizeof(err)), 0, "%s", err);
	ep = (struct endpoint){ .s = sup, .caller = (char *)CORDON_TOOLS_SESSION, .ctl = -1, .listener = -1 };
}

static void teardown(void)
{
	char cmd[128];

	supervisor_free(sup);
	cordon_profile_free(prof);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(call, .init = setup, .fini = teardown, .timeout = 60);

/* A shim's connection, accepted as an endpoint accepts one: our end. */
static int shim_connect(void)
{
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	call_accept(&ep, sv[0]);
	return sv[1];
}

/* Turn the supervisor's loop until fd has something (or is hung up). */
static bool turn_until_readable(int fd, int timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 0) == 1)
			return true;
		event_base_loop(sup->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(2000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return false;
	}
}

struct answer {
	uint16_t type;   /* 0: the peer was dropped (EOF, nothing said) */
	char *reason;    /* DENIED */
	struct broker_exit exit;
};

static void answer_of(int fd, struct answer *a)
{
	struct msg_frame f = {};
	int r;

	*a = (struct answer){};
	cr_assert(turn_until_readable(fd, 30000), "no answer, no hang-up");
	r = msg_frame_read(fd, MSG_FRAME_MAX, &f);
	if (r <= 0) {
		msg_frame_done(&f);
		return;
	}
	a->type = f.type;
	if (f.type == BROKER_MSG_DENIED)
		cr_assert_eq(broker_denied_decode(f.body, &a->reason), 0);
	else if (f.type == BROKER_MSG_EXIT)
		cr_assert_eq(broker_exit_decode(f.body, &a->exit), 0);
	msg_frame_done(&f);
}

/* A call frame: command, argv, cwd (the path said) and the fd held. */
static void call(int fd, const char *command, const char *const *argv, const char *cwd, int cwd_fd, int out_fd,
		 size_t nfds)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);
	struct broker_call c = {
		.command = (char *)command, .argv = (char **)argv, .cwd = (char *)cwd, .env = (char *[]){ NULL },
	};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fds[4] = { null, out_fd, null, cwd_fd };

	cr_assert_eq(broker_call_encode(b, &c), 0);
	cr_assert_eq(msg_frame_write(fd, BROKER_MSG_CALL, b, fds, nfds), 0);
	close(null);
}

static void denied(const char *command, const char *const *argv, const char *cwd, const char *want)
{
	int fd = shim_connect(), cwd_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC), out[2];
	struct answer a;
	char buf[256] = "";

	cr_assert_eq(pipe2(out, O_CLOEXEC | O_NONBLOCK), 0);
	call(fd, command, argv, cwd, cwd_fd, out[1], 4);
	close(out[1]);
	answer_of(fd, &a);
	cr_assert_eq(a.type, BROKER_MSG_DENIED, "%s: answered %#x", command, a.type);
	cr_assert_not_null(strstr(a.reason, want), "%s: %s", command, a.reason);
	/* nothing ran: nothing on its stdout */
	cr_assert_leq(read(out[0], buf, sizeof(buf)), 0, "%s: the tool ran: %s", command, buf);
	free(a.reason);
	close(out[0]);
	close(cwd_fd);
	close(fd);
}

/* The control: the call goes through to the spawn; the tool's output on
 * the shim's stdout, its exit in the answer. */
static void runs(const char *const *argv, const char *want_out)
{
	int fd = shim_connect(), cwd_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC), out[2];
	struct answer a;
	char buf[256] = "";
	ssize_t n;

	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	call(fd, "techo", argv, ws, cwd_fd, out[1], 4);
	close(out[1]);
	answer_of(fd, &a);
	cr_assert_eq(a.type, BROKER_MSG_EXIT, "answered %#x: %s", a.type, a.reason ? a.reason : "");
	cr_assert_eq(a.exit.how, BROKER_EXITED);
	cr_assert_eq(a.exit.value, 0, "%s", a.exit.message ? a.exit.message : "");
	n = read(out[0], buf, sizeof(buf) - 1);
	cr_assert_gt(n, 0);
	cr_assert_str_eq(buf, want_out);
	free(a.exit.message);
	close(out[0]);
	close(cwd_fd);
	close(fd);
}

Test(call, an_invocation_policy_deny_is_the_answer)
{
	const struct supervisor_denial *d;
	size_t omitted, n;

	denied("techo", (const char *const[]){ "--bad", "x", NULL }, ws, "no bad flags");
	n = supervisor_denials(sup, &d, &omitted);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(d[0].event, "invocation_denied");
	cr_assert_str_eq(d[0].command, "techo");
	/* control: the same command with other arguments runs */
	runs((const char *const[]){ "hello", NULL }, "hello\n");
}

Test(call, a_command_the_caller_may_not_use_is_denied)
{
	denied("tnope", (const char *const[]){ NULL }, ws, "from.session is \"deny\"");
	denied("nosuchcommand", (const char *const[]){ NULL }, ws, "not a command under command_policies");
	runs((const char *const[]){ "fine", NULL }, "fine\n");
}

Test(call, a_cwd_that_is_not_the_held_fd_is_denied)
{
	/* the path names another directory than the fd held */
	denied("techo", (const char *const[]){ "x", NULL }, dir, "not the same directory");
	/* a path that does not exist outside (a sandbox's private /tmp) */
	denied("techo", (const char *const[]){ "x", NULL }, "/tmp/cordon-call-nowhere", "not the same directory");
	runs((const char *const[]){ "x", NULL }, "x\n");
}

static void dropped(int fd)
{
	struct answer a;

	answer_of(fd, &a);
	cr_assert_eq(a.type, 0, "answered %#x instead of dropping the peer", a.type);
	close(fd);
}

Test(call, a_malformed_peer_is_dropped_unanswered)
{
	int fd, cwd_fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(64);

	/* three fds where four are the protocol */
	fd = shim_connect();
	call(fd, "techo", (const char *const[]){ "x", NULL }, ws, cwd_fd, 1, 3);
	dropped(fd);
	/* a signal before any call */
	fd = shim_connect();
	cr_assert_eq(broker_signal_encode(b, 2), 0);
	cr_assert_eq(msg_frame_write(fd, BROKER_MSG_SIGNAL, b, NULL, 0), 0);
	dropped(fd);
	/* a call whose body does not decode */
	fd = shim_connect();
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_u32(b, 7), 0);
	int fds[4] = { 0, 1, 2, cwd_fd };
	cr_assert_eq(msg_frame_write(fd, BROKER_MSG_CALL, b, fds, 4), 0);
	dropped(fd);
	/* a command name with a slash (the shim never sends one), encoded
	 * by hand as broker_call_encode would, which refuses it */
	fd = shim_connect();
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_string(b, "../techo", 8, MSGBUF_NO_NUL), 0);
	cr_assert_eq(msgbuf_put_strv(b, (char *[]){ NULL }, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_put_string(b, ws, strlen(ws), MSGBUF_NO_NUL), 0);
	cr_assert_eq(msgbuf_put_strv(b, (char *[]){ NULL }, BROKER_ENV_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_put_u8(b, 0), 0);
	cr_assert_eq(msg_frame_write(fd, BROKER_MSG_CALL, b, fds, 4), 0);
	dropped(fd);
	close(cwd_fd);
	/* control: a well-formed call on a new connection is answered */
	runs((const char *const[]){ "ok", NULL }, "ok\n");
}
