/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A call, from the shim's connection to the decision: read exactly one
 * request (a dispatch table: anything else, or anything malformed, drops
 * the peer), check the working directory it claims against the fd it
 * holds, decide by the profile for this caller (known from the endpoint,
 * never from the message), ask for approval off the loop where the profile
 * says so, then queue the tool (call_run.c). Every decision is an audit
 * record, written as it happens.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "call.h"
#include "crypto.h"
#include "redact.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- answering ---- */

static void send_frame(struct call *c, uint16_t type, struct msgbuf *body)
{
	/* a shim that cannot take one small frame is gone: nothing to do */
	if (c->fd >= 0)
		(void)msg_frame_write(c->fd, type, body, NULL, 0);
}

static void unlink_call(struct call *c)
{
	struct supervisor *s = c->s;

	if (c->prev)
		c->prev->next = c->next;
	else if (s->calls == c)
		s->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
	if (c->state == CALL_QUEUED) {
		struct call **q = &s->queue_head, *last = NULL;

		for (; *q; last = *q, q = &(*q)->qnext)
			if (*q == c) {
				*q = c->qnext;
				if (s->queue_tail == c)
					s->queue_tail = last;
				s->waiting--;
				break;
			}
	}
}

static void call_free(struct call *c)
{
	call_run_free(c);
	if (c->ev)
		event_free(c->ev);
	if (c->idle)
		event_free(c->idle);
	if (c->approved)
		event_free(c->approved);
	if (c->reap)
		event_free(c->reap);
	msg_reader_free(c->reader);
	if (c->fd >= 0)
		close(c->fd);
	for (int i = 0; i < 3; i++)
		if (c->io[i] >= 0)
			close(c->io[i]);
	if (c->cwd_fd >= 0)
		close(c->cwd_fd);
	broker_call_done(&c->req);
	cordon_strv_free(c->env_names);
	cordon_strv_free(c->argv_redacted);
	free(c->caller);
	c->s->live_calls--;
	free(c);
}

/* Freed from the loop, never inside one of its own callbacks, and only
 * once no thread and no tool still needs it. */
static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;

	if (c->state == CALL_ENDED && !c->in_thread && !c->child_live)
		call_free(c);
}

void call_reap_later(struct call *c)
{
	event_active(c->reap, EV_TIMEOUT, 0);
}

void call_drop(struct call *c)
{
	bool running = c->state == CALL_RUNNING;

	if (c->state == CALL_ENDED)
		return;
	unlink_call(c);
	c->state = CALL_ENDED;
	if (c->ev) {
		event_free(c->ev);
		c->ev = NULL;
	}
	event_del(c->idle);
	/* the shim sees the end of the connection now */
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	if (running)
		call_kill(c); /* its tool goes too; reaped once the tool is */
	call_reap_later(c);
}

void call_audit(struct call *c, const char *event, const char *reason)
{
	struct supervisor *s = c->s;
	const char *const none[] = { NULL };
	struct audit_event e = {
		.event = event,
		.call_id = c->id,
		.caller = c->caller,
		.command = c->have_req ? c->req.command : NULL,
		.decision = c->decision.action == CORDON_TOOL_DENY ? "deny"
			    : c->decision.action == CORDON_TOOL_APPROVE ? "approve"
									: "allow",
		.rule = c->decision.rule[0] ? c->decision.rule : NULL,
		.reason = reason,
		.backend = c->decision.backend[0] ? c->decision.backend : NULL,
		.argv = c->have_req ? (const char *const *)c->req.argv : none,
		.env_names = c->env_names ? (const char *const *)c->env_names : none,
		.cwd = c->have_req ? c->req.cwd : NULL,
	};

	if (c->res) {
		e.has_exit = true;
		e.exit_code = c->res->exit_code;
		e.signal = c->res->signal;
		e.duration_ms = now_ms() - c->t0_ms;
		e.has_io = true;
		e.stdout_bytes = c->relay[0] ? c->relay[0]->total : 0;
		e.stderr_bytes = c->relay[1] ? c->relay[1]->total : 0;
	}
	/* fail closed: a supervisor that cannot record refuses what comes next */
	if (audit_write(s->audit, &e) < 0)
		s->audit_broken = true;
}

void call_deny(struct call *c, const char *event, const char *reason)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(BROKER_REASON_MAX + 16);

	call_audit(c, event, reason);
	if (b && broker_denied_encode(b, reason) >= 0)
		send_frame(c, BROKER_MSG_DENIED, b);
	call_drop(c);
}

/* ---- the queue ---- */

void calls_pump(struct supervisor *s)
{
	while (s->queue_head && s->running < SUP_RUNNING_MAX) {
		struct call *c = s->queue_head;

		s->queue_head = c->qnext;
		if (!s->queue_head)
			s->queue_tail = NULL;
		c->qnext = NULL;
		s->waiting--;
		call_run(c);
	}
}

void call_allowed(struct call *c)
{
	struct supervisor *s = c->s;

	if (s->running < SUP_RUNNING_MAX && !s->queue_head) {
		call_run(c);
		return;
	}
	if (s->waiting >= SUP_WAITING_MAX) {
		char why[160];

		snprintf(why, sizeof(why), "the supervisor is busy: %d tool calls run and %d wait; try again",
			 SUP_RUNNING_MAX, SUP_WAITING_MAX);
		call_deny(c, "denied", why);
		return;
	}
	c->state = CALL_QUEUED;
	if (s->queue_tail)
		s->queue_tail->qnext = c;
	else
		s->queue_head = c;
	s->queue_tail = c;
	s->waiting++;
}

void calls_kill_all(struct supervisor *s)
{
	while (s->calls)
		call_drop(s->calls);
}

/* ---- approval, off the loop ---- */

static void *approve_main(void *arg)
{
	struct call *c = arg;

	if (approval_ask(c->s->approvals, c->decision.backend, &c->areq, &c->ares) < 0 &&
	    c->ares.outcome == APPROVAL_GRANTED)
		c->ares.outcome = APPROVAL_ERROR; /* never a grant by accident */
	event_active(c->approved, EV_TIMEOUT, 0);
	return NULL;
}

static void on_approved(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;
	const char *event;

	c->s->approving--;
	c->in_thread = false;
	if (c->state == CALL_ENDED) {
		call_audit(c, "approve_cancelled", "the caller went away while the approval was asked");
		call_reap_later(c);
		return;
	}
	switch (c->ares.outcome) {
	case APPROVAL_GRANTED:
		call_audit(c, "approve_granted", c->ares.reason[0] ? c->ares.reason : NULL);
		call_allowed(c);
		return;
	case APPROVAL_TIMEOUT:
		event = "approve_timeout";
		break;
	case APPROVAL_DENIED:
	case APPROVAL_ERROR:
	default:
		event = "approve_denied";
		break;
	}
	char why[BROKER_REASON_MAX];

	snprintf(why, sizeof(why), "%s (approval: %s)", c->ares.reason[0] ? c->ares.reason : "not approved",
		 c->ares.backend[0] ? c->ares.backend : c->decision.backend);
	call_deny(c, event, why);
}

/* The action an approval is bound to: caller, command, argv, cwd and the
 * environment's names, unambiguously encoded. */
static int action_digest(struct call *c)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);
	int r;

	if (!b)
		return -ENOMEM;
	if ((r = msgbuf_put_cstring(b, c->caller)) < 0 || (r = msgbuf_put_cstring(b, c->req.command)) < 0 ||
	    (r = msgbuf_put_strv(b, c->req.argv, MSG_ARGC_MAX, MSG_ARG_MAX)) < 0 ||
	    (r = msgbuf_put_cstring(b, c->req.cwd)) < 0 ||
	    (r = msgbuf_put_strv(b, c->env_names, BROKER_ENV_MAX, MSG_ARG_MAX)) < 0)
		return r;
	return sha256_hex(msgbuf_ptr(b), msgbuf_len(b), c->digest);
}

static void start_approval(struct call *c)
{
	sigset_t all, old;
	pthread_t t;
	int r;

	r = action_digest(c);
	if (r >= 0)
		r = redact_argv((const char *const *)c->req.argv, &c->argv_redacted);
	if (r < 0) {
		call_deny(c, "approve_denied", "the approval could not be asked (out of memory)");
		return;
	}
	c->areq = (struct approval_request){
		.request_id = c->id,
		.session = c->s->session_id,
		.caller = c->caller,
		.command = c->req.command,
		.argv = (const char *const *)c->req.argv,
		.argv_redacted = (const char *const *)c->argv_redacted,
		.cwd = c->req.cwd,
		.digest = c->digest,
	};
	c->approved = event_new(c->s->base, -1, 0, on_approved, c);
	if (!c->approved) {
		call_deny(c, "approve_denied", "the approval could not be asked (out of memory)");
		return;
	}
	c->state = CALL_APPROVING;
	c->in_thread = true;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t, NULL, approve_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		c->in_thread = false;
		call_deny(c, "approve_denied", "the approval could not be asked (no thread)");
		return;
	}
	pthread_detach(t);
	c->s->approving++;
}

/* ---- the request ---- */

/* The working directory the shim names must be the one it holds an fd
 * to, seen from outside the sandbox: a directory in the sandbox's private
 * /tmp is no directory a tool could enter. */
static int check_cwd(struct call *c, char *why, size_t n)
{
	struct stat held, named;
	int fd;

	if (fstat(c->cwd_fd, &held) < 0 || !S_ISDIR(held.st_mode)) {
		snprintf(why, n, "the working directory fd is not a directory");
		return -EINVAL;
	}
	fd = open(c->req.cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &named) < 0 || named.st_dev != held.st_dev || named.st_ino != held.st_ino) {
		if (fd >= 0)
			close(fd);
		snprintf(why, n,
			 "the working directory %.200s is not the same directory outside the sandbox (a sandbox's "
			 "/tmp and /run are its own): run the command from the workspace",
			 c->req.cwd);
		return -EXDEV;
	}
	close(fd);
	return 0;
}

static int env_names_of(char **env, char ***ret)
{
	size_t n = 0;
	char **v;

	while (env[n])
		n++;
	v = calloc(n + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strndup(env[i], strcspn(env[i], "=")))) {
			cordon_strv_free(v);
			return -ENOMEM;
		}
	*ret = v;
	return 0;
}

static void decide(struct call *c)
{
	struct supervisor *s = c->s;
	char why[512];
	int r;

	if (s->audit_broken) {
		call_deny(c, "denied", "the audit log cannot be written: no tool runs unrecorded");
		return;
	}
	if ((r = check_cwd(c, why, sizeof(why))) < 0) {
		call_deny(c, "denied", why);
		return;
	}
	r = cordon_tools_decide(s->tools, c->caller, c->req.command, (const char *const *)c->req.argv,
				(const char *const *)c->req.env, &c->decision);
	if (r < 0) {
		snprintf(why, sizeof(why), "the policy could not be evaluated: %s", strerror(-r));
		c->decision.action = CORDON_TOOL_DENY;
		call_deny(c, "denied", why);
		return;
	}
	switch (c->decision.action) {
	case CORDON_TOOL_ALLOW:
		call_audit(c, "allowed", c->decision.reason[0] ? c->decision.reason : NULL);
		call_allowed(c);
		return;
	case CORDON_TOOL_APPROVE:
		start_approval(c);
		return;
	case CORDON_TOOL_DENY:
	default:
		call_deny(c, strstr(c->decision.rule, "/invocation_policy") ? "invocation_denied" : "denied",
			  c->decision.reason[0] ? c->decision.reason : "denied by the profile");
		return;
	}
}

static int on_call(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct call *c = ctx;
	int r;

	if (nfds != BROKER_CALL_FDS)
		return -EBADMSG;
	r = broker_call_decode(body, &c->req);
	if (r < 0)
		return r;
	c->have_req = true;
	for (int i = 0; i < 3; i++) {
		c->io[i] = fds[i];
		fds[i] = -1;
	}
	c->cwd_fd = fds[3];
	fds[3] = -1;
	r = env_names_of(c->req.env, &c->env_names);
	if (r < 0)
		return r;
	event_del(c->idle);
	/* a signal for the tool may come once it runs */
	(void)msg_permit(&c->st, BROKER_MSG_SIGNAL, true);
	decide(c);
	return 0;
}

static int on_signal(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct call *c = ctx;
	int sig, r;

	if (nfds)
		return -EBADMSG;
	r = broker_signal_decode(body, &sig);
	if (r < 0)
		return r;
	if (c->state == CALL_RUNNING)
		call_signal(c, sig);
	return 0;
}

static const struct msg_handler handlers[] = {
	{ BROKER_MSG_CALL, MSG_ONCE | MSG_PERMIT, on_call },
	{ BROKER_MSG_SIGNAL, 0, on_signal },
};

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;
	int r = msg_reader_recv(c->reader, c->fd);

	if (r == -EAGAIN)
		return;
	if (r <= 0) {
		/* the shim went away (or broke the framing): so does its tool */
		call_drop(c);
		return;
	}
	for (;;) {
		struct msg_frame f = {};

		r = msg_reader_next(c->reader, &f);
		if (r == -EAGAIN)
			return;
		if (r >= 0) {
			r = msg_dispatch_frame(&c->st, c, &f);
			msg_frame_done(&f);
		}
		if (r < 0) {
			/* anything malformed, unknown or out of order drops the peer */
			call_drop(c);
			return;
		}
		/* answered or dropped meanwhile: the rest is not read */
		if (c->state == CALL_ENDED)
			return;
	}
}

static void on_idle(evutil_socket_t fd, short what, void *arg)
{
	call_drop(arg);
}

void call_accept(struct supervisor *s, const char *caller, int fd)
{
	struct timeval idle = { .tv_sec = SUP_IDLE_MS / 1000, .tv_usec = (SUP_IDLE_MS % 1000) * 1000 };
	struct call *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return;
	}
	*c = (struct call){ .s = s, .fd = fd, .io = { -1, -1, -1 }, .cwd_fd = -1, .state = CALL_READING,
			    .t0_ms = now_ms() };
	s->live_calls++;
	if (random_hex(16, c->id) < 0 || !(c->caller = strdup(caller)) || !(c->reader = msg_reader_new(MSG_FRAME_MAX)) ||
	    msg_state_init(&c->st, handlers, sizeof(handlers) / sizeof(handlers[0])) < 0 ||
	    !(c->ev = event_new(s->base, fd, EV_READ | EV_PERSIST, on_readable, c)) ||
	    !(c->idle = evtimer_new(s->base, on_idle, c)) || !(c->reap = event_new(s->base, -1, 0, on_reap, c)) ||
	    event_add(c->ev, NULL) < 0 ||
	    event_add(c->idle, &idle) < 0) {
		call_free(c);
		return;
	}
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
}
