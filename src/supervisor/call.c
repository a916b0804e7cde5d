/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A call, from the shim's connection to the decision: read exactly one
 * request (a dispatch table: anything else, or anything malformed, drops
 * the peer), check the working directory it claims against the fd it
 * holds, decide by the profile for this caller (known from the endpoint,
 * never from the message), ask for approval off the loop where the profile
 * says so, then hand it to the queue (call_run.c, below: it answers, runs
 * the tool and ends the call). Every decision is an audit record, written
 * as it happens.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "call.h"
#include "call_run.h"
#include "crypto.h"
#include "open_url.h"
#include "redact.h"
#include "stdio_check.h"
#include "strv.h"

/* ---- approval, off the loop ---- */

static void approve_main(void *arg)
{
	struct call *c = arg;

	if (approval_ask(c->s->approvals, c->decision.backend, &c->areq, &c->ares) < 0 &&
	    c->ares.outcome == APPROVAL_GRANTED)
		c->ares.outcome = APPROVAL_ERROR; /* never a grant by accident */
	event_active(c->approved, EV_TIMEOUT, 0);
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
		if (call_audit(c, "approve_granted", c->ares.reason[0] ? c->ares.reason : NULL) < 0) {
			call_deny(c, "denied", "the audit log cannot be written: no tool runs unrecorded");
			return;
		}
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

/* The action an approval is bound to, everything that changes what runs,
 * unambiguously encoded: caller, command, the whole argv (its count
 * first), the environment passed (names and values), the working
 * directory (path, device, inode: as checked) and the policy (the
 * resolved profile, which holds the tool's sandbox). */
static int action_digest(struct call *c, const struct stat *cwd)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(2 * MSG_FRAME_MAX);
	int r;

	if (!b)
		return -ENOMEM;
	if ((r = msgbuf_put_cstring(b, c->caller)) < 0 || (r = msgbuf_put_cstring(b, c->req.command)) < 0 ||
	    (r = msgbuf_put_strv(b, c->req.argv, MSG_ARGC_MAX, MSG_ARG_MAX)) < 0 ||
	    (r = msgbuf_put_strv(b, c->req.env, BROKER_ENV_MAX, MSG_ARG_MAX)) < 0 ||
	    (r = msgbuf_put_cstring(b, c->req.cwd)) < 0 || (r = msgbuf_put_u64(b, (uint64_t)cwd->st_dev)) < 0 ||
	    (r = msgbuf_put_u64(b, (uint64_t)cwd->st_ino)) < 0 || (r = msgbuf_put_cstring(b, c->s->policy_digest)) < 0)
		return r;
	return sha256_hex(msgbuf_ptr(b), msgbuf_len(b), c->digest);
}

/* An environment entry as an approver sees it: NAME=VALUE redacted as a
 * word (a value is hidden when its name says secret, or by its shape). */
static int env_entry_redacted(const char *entry, char **ret)
{
	return redact_word(entry, false, REDACT_MAX_WORD_BYTES, ret);
}

static void start_approval(struct call *c)
{
	bool whole = false;
	struct stat cwd = {};
	int r;

	r = fstat(c->cwd_fd, &cwd) < 0 ? -errno : 0;
	if (r >= 0)
		r = action_digest(c, &cwd);
	/* every word: the approver sees a --force wherever it is */
	if (r >= 0)
		r = redact_argv_full((const char *const *)c->req.argv, cordon_tools_secret_flags(c->s->tools, c->req.command),
				     0, &c->argv_redacted);
	if (r >= 0)
		r = strv_map(c->req.env, env_entry_redacted, &c->env_redacted);
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
		.env = (const char *const *)c->req.env,
		.env_redacted = (const char *const *)c->env_redacted,
		.cwd = c->req.cwd,
		.cwd_dev = (uint64_t)cwd.st_dev,
		.cwd_ino = (uint64_t)cwd.st_ino,
		.policy = c->s->policy_digest,
		.digest = c->digest,
	};
	c->approved = event_new(c->s->base, -1, 0, on_approved, c);
	if (!c->approved) {
		call_deny(c, "approve_denied", "the approval could not be asked (out of memory)");
		return;
	}
	/* a bounded pool asks, and each sandbox has a cap on what it waits
	 * for: one that asks without end makes no threads and starves nobody */
	c->state = CALL_APPROVING;
	c->in_thread = true;
	r = approve_pool_submit(c->s->approve_pool, c->caller, approve_main, c, &whole);
	if (r < 0) {
		char why[BROKER_REASON_MAX];

		c->in_thread = false;
		if (r == -EBUSY && !whole)
			snprintf(why, sizeof(why),
				 "too many approvals pending for this sandbox (%d): try again once they are answered",
				 APPROVE_POOL_PER_SANDBOX);
		else if (r == -EBUSY)
			snprintf(why, sizeof(why),
				 "too many approvals pending in the session (%d): try again once they are answered",
				 APPROVE_POOL_PENDING);
		else
			snprintf(why, sizeof(why), "the approval could not be asked: %s", strerror(-r));
		call_deny(c, "approve_denied", why);
		return;
	}
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
	c->cwd_dev = (uint64_t)held.st_dev;
	c->cwd_ino = (uint64_t)held.st_ino;
	return 0;
}

/* An environment entry's name. */
static int env_entry_name(const char *entry, char **ret)
{
	*ret = strndup(entry, strcspn(entry, "="));
	return *ret ? 0 : -ENOMEM;
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
	/* before anything is decided: stdio that could stall the relays,
	 * or reach the broker itself, never gets to a tool */
	if ((r = stdio_check(c->io, why, sizeof(why))) < 0) {
		call_deny(c, "denied", why);
		return;
	}
	if ((r = check_cwd(c, why, sizeof(why))) < 0) {
		call_deny(c, "denied", why);
		return;
	}
	/* what the tool would take from the caller's environment, checked
	 * before anyone is asked: a value leading where a sandbox writes, a
	 * name twice (call_run builds it again from the same request) */
	{
		struct cordon_error ee = {};
		char **env = NULL;

		r = cordon_toolbox_call_env(s->box, c->caller, c->req.command, (const char *const *)c->req.env, &env,
					    &ee);
		cordon_strv_free(env);
		if (r == -EACCES || r == -EINVAL) {
			call_deny(c, "denied", ee.message);
			return;
		}
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
		/* the record first: a call that cannot be audited does not run */
		if (call_audit(c, "allowed", c->decision.reason[0] ? c->decision.reason : NULL) < 0) {
			call_deny(c, "denied", "the audit log cannot be written: no tool runs unrecorded");
			return;
		}
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
	c->req_bytes = msgbuf_len(body);
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
	r = strv_map(c->req.env, env_entry_name, &c->env_names);
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
	{ BROKER_MSG_OPEN_URL, MSG_ONCE | MSG_PERMIT, open_url_on_request },
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
	/* a sandbox holding too much of our memory loses the call that
	 * went over, never another sandbox's */
	if (!call_account(c, msg_reader_pending(c->reader) + c->req_bytes)) {
		call_drop(c);
		return;
	}
	for (;;) {
		struct msg_frame f = {};

		r = msg_reader_next(c->reader, &f);
		if (r == -EAGAIN) {
			(void)call_account(c, msg_reader_pending(c->reader) + c->req_bytes);
			return;
		}
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

void call_accept(struct endpoint *e, int fd)
{
	struct supervisor *s = e->s;
	struct timeval idle = { .tv_sec = SUP_IDLE_MS / 1000, .tv_usec = (SUP_IDLE_MS % 1000) * 1000 };
	struct call *c = call_new(s, e->caller, fd);

	if (!c)
		return;
	if (!(c->reader = msg_reader_new(MSG_FRAME_MAX)) ||
	    msg_state_init(&c->st, handlers, sizeof(handlers) / sizeof(handlers[0])) < 0 ||
	    !(c->ev = event_new(s->base, fd, EV_READ | EV_PERSIST, on_readable, c)) ||
	    !(c->idle = evtimer_new(s->base, on_idle, c)) || event_add(c->ev, NULL) < 0 ||
	    event_add(c->idle, &idle) < 0) {
		call_free(c);
		return;
	}
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	c->ep = e;
	e->conns++;
}
