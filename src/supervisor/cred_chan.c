/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor's end of the proxies' credential channels (cred_chan.h):
 * values and approvals asked by each proxy, for its consumer only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cred_chan.h"
#include "cred_proto.h"
#include "cred_why.h"
#include "crypto.h"
#include "msgframe.h"
#include "sup_internal.h"
#include "toolbox_creds.h"

/* Asks one proxy may have out at once: more drop it. */
#define CHAN_PENDING_MAX 64

struct cred_chan {
	struct supervisor *s;
	int fd;
	char *consumer;
	struct event *ev;
	struct msg_reader *rd;
	unsigned refs;          /* the loop's, and each approval in a worker */
	unsigned pending;
	bool dead;
	struct value_ask *asks;  /* values waited for (the store calls back) */
	struct cred_chan *next;
};

/* One value asked for: the store calls back (at once or after a capture). */
struct value_ask {
	struct cred_chan *ch;
	uint32_t seq;
	struct value_ask *next;
};

struct approval_job {
	struct cred_chan *ch;
	uint32_t seq;
	struct cred_req req;
	char id[CRED_ID_LEN + 1];
	char digest[SHA256_HEX];
	char backend[APPROVAL_NAME_MAX + 1];
	char rule[300];
	char *url;
	const char *argv[3];
	const char *env[1];
	struct approval_request areq;
	struct approval_result res;
	struct event *done;
};

static struct cred_chan **chans(struct supervisor *s)
{
	return &s->cred_chans;
}

static void chan_unref(struct cred_chan *ch)
{
	if (--ch->refs)
		return;
	free(ch->consumer);
	free(ch);
}

/* The peer is gone or misbehaved: nothing more is read or sent. */
static void chan_close(struct cred_chan *ch)
{
	unsigned dropped = 0;

	if (ch->dead)
		return;
	ch->dead = true;
	/* the values it waits for: no longer (a capture running goes on for
	 * the others who want it, and keeps its value) */
	while (ch->asks) {
		struct value_ask *a = ch->asks;

		ch->asks = a->next;
		cred_store_forget(ch->s->creds, a);
		free(a);
		ch->pending--;
		dropped++;
	}
	for (struct cred_chan **p = chans(ch->s); *p; p = &(*p)->next)
		if (*p == ch) {
			*p = ch->next;
			break;
		}
	event_free(ch->ev);
	ch->ev = NULL;
	msg_reader_free(ch->rd);
	ch->rd = NULL;
	close(ch->fd);
	ch->fd = -1;
	ch->refs -= dropped; /* the asks' refs: never the last, the loop's is */
	chan_unref(ch);
}

static int send_frame(struct cred_chan *ch, uint16_t type, const struct msgbuf *b, const int *fds, size_t nfds)
{
	int r;

	if (ch->dead)
		return -EPIPE;
	/* small frames to a proxy that reads them at once; one that lets its
	 * socket fill up is dropped rather than waited for */
	r = msg_frame_write(ch->fd, type, b, fds, nfds);
	if (r < 0)
		chan_close(ch);
	return r;
}

static void send_value(struct cred_chan *ch, uint32_t seq, int r, const struct credtable_secret *v, uint64_t left_usec,
		       const char *why)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(CRED_MSG_MAX);
	struct cred_value_reply rep = { .seq = seq, .ok = r >= 0, .reason = (char *)(why ? why : "") };
	int pipefd[2] = { -1, -1 };
	char reason[CRED_REASON_MAX];

	if (!b) {
		chan_close(ch);
		return;
	}
	if (r >= 0) {
		/* the value into a pipe, straight from secure memory */
		if (v->n > CRED_VALUE_MAX || pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0 ||
		    write(pipefd[1], v->p, v->n) != (ssize_t)v->n) {
			rep.ok = false;
			rep.reason = "the value cannot be passed to the proxy";
		} else
			rep.lifetime_ms = left_usec ? (left_usec + 999) / 1000 : 0;
		if (pipefd[1] >= 0)
			close(pipefd[1]);
	}
	snprintf(reason, sizeof(reason), "%.*s", CRED_REASON_MAX - 1, rep.reason);
	for (char *p = reason; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	rep.reason = reason;
	if (cred_value_reply_encode(b, &rep) >= 0)
		(void)send_frame(ch, CRED_MSG_VALUE, b, rep.ok ? pipefd : NULL, rep.ok ? 1 : 0);
	else
		chan_close(ch);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
}

static void on_value(void *ctx, int r, const struct credtable_secret *v, uint64_t left_usec, const char *err)
{
	struct value_ask *a = ctx;
	struct cred_chan *ch = a->ch;

	for (struct value_ask **p = &ch->asks; *p; p = &(*p)->next)
		if (*p == a) {
			*p = a->next;
			break;
		}
	ch->pending--;
	send_value(ch, a->seq, r, v, left_usec, err);
	chan_unref(ch);
	free(a);
}

static int ask_value(struct cred_chan *ch, struct msgbuf *body)
{
	const struct toolbox_creds *tc = cordon_toolbox_creds(ch->s->box);
	_cleanup_free_ char *name = NULL;
	struct value_ask *a;
	char err[300] = "";
	uint32_t seq;
	int i, r;

	r = cred_value_ask_decode(body, &seq, &name);
	if (r < 0)
		return r;
	/* this consumer's credentials only: the socket says who asks */
	i = cred_store_index(ch->s->creds, name);
	if (i < 0 || !toolbox_creds_phantom(tc, name, ch->consumer))
		return -EPERM;
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	/* on the channel's list until answered (at once when the value is
	 * held), forgotten by the store if the channel goes first */
	*a = (struct value_ask){ .ch = ch, .seq = seq, .next = ch->asks };
	ch->asks = a;
	ch->refs++;
	ch->pending++;
	r = cred_store_want(ch->s->creds, (size_t)i, on_value, a, err, sizeof(err));
	if (r < 0) {
		ch->asks = a->next;
		ch->pending--;
		send_value(ch, seq, r, NULL, 0, err);
		chan_unref(ch);
		free(a);
	}
	return 0;
}

static void job_free(struct approval_job *j)
{
	if (j->done)
		event_free(j->done);
	cred_req_done(&j->req);
	free(j->url);
	free(j);
}

static void approve_main(void *arg)
{
	struct approval_job *j = arg;
	struct approval_result res = { .outcome = APPROVAL_ERROR };

	if (approval_ask(j->ch->s->approvals, j->backend, &j->areq, &res) < 0 || res.outcome == APPROVAL_ERROR)
		res.allow = false; /* never a grant by accident */
	j->res = res;
	event_active(j->done, EV_TIMEOUT, 0);
}

static void audit_decision(struct approval_job *j, const char *event, const char *decision, const char *reason)
{
	struct audit_event e = {
		.event = event,
		.call_id = j->id,
		.caller = j->ch->consumer,
		.command = j->req.cred,
		.decision = decision,
		.rule = j->rule,
		.reason = reason,
		.backend = j->backend[0] ? j->backend : NULL,
		.argv = j->argv,
	};

	if (j->ch->s->audit)
		(void)audit_write(j->ch->s->audit, &e);
}

static void answer(struct approval_job *j, bool allow, const char *outcome, const char *reason)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(CRED_MSG_MAX);
	char why[CRED_REASON_MAX];
	struct cred_decision d = { .seq = j->seq, .allow = allow, .id = j->id, .outcome = (char *)outcome,
				   .reason = why, .req = j->req };
	static const char *const event[] = { "cred_approve_denied", "cred_approve_granted" };

	snprintf(why, sizeof(why), "%s", reason ? reason : "");
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	audit_decision(j, strcmp(outcome, "timeout") == 0 ? "cred_approve_timeout" : event[allow], outcome, why);
	if (j->ch->s->audit_broken)
		d.allow = false;
	if (!b || cred_decision_encode(b, &d) < 0)
		chan_close(j->ch);
	else
		(void)send_frame(j->ch, CRED_MSG_DECISION, b, NULL, 0);
}

static void on_approved(evutil_socket_t fd, short what, void *arg)
{
	struct approval_job *j = arg;
	struct cred_chan *ch = j->ch;
	char why[400];

	ch->s->approving--;
	ch->pending--;
	snprintf(why, sizeof(why), "%s (approval: %s)",
		 j->res.reason[0] ? j->res.reason
		 : j->res.allow	  ? "approved"
				  : "not approved",
		 j->res.backend[0] ? j->res.backend : j->backend);
	if (!ch->dead)
		answer(j, j->res.allow, approval_outcome_name(j->res.outcome), why);
	job_free(j);
	chan_unref(ch);
}

/* The action an approval is bound to: consumer, credential, host, method,
 * path and the policy, unambiguously encoded. */
static int approval_digest(struct approval_job *j)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(4 * CRED_PATH_MAX);
	int r;

	if (!b)
		return -ENOMEM;
	if ((r = msgbuf_put_cstring(b, "credential")) < 0 || (r = msgbuf_put_cstring(b, j->ch->consumer)) < 0 ||
	    (r = msgbuf_put_cstring(b, j->req.cred)) < 0 || (r = msgbuf_put_cstring(b, j->req.host)) < 0 ||
	    (r = msgbuf_put_cstring(b, j->req.method)) < 0 || (r = msgbuf_put_cstring(b, j->req.path)) < 0 ||
	    (r = msgbuf_put_cstring(b, j->ch->s->policy_digest)) < 0)
		return r;
	return sha256_hex(msgbuf_ptr(b), msgbuf_len(b), j->digest);
}

static int ask_approval(struct cred_chan *ch, struct msgbuf *body)
{
	const struct toolbox_creds *tc = cordon_toolbox_creds(ch->s->box);
	struct approval_job *j = calloc(1, sizeof(*j));
	struct cred_why_answer a = {};
	bool whole = false;
	int r;

	if (!j)
		return -ENOMEM;
	j->ch = ch;
	r = cred_approve_ask_decode(body, &j->seq, &j->req);
	if (r < 0) {
		free(j);
		return r;
	}
	if (!toolbox_creds_phantom(tc, j->req.cred, ch->consumer)) {
		job_free(j);
		return -EPERM;
	}
	ch->refs++;
	ch->pending++;
	j->argv[0] = j->req.method;
	if (asprintf(&j->url, "https://%s%s", j->req.host, j->req.path) < 0) {
		j->url = NULL;
		r = -ENOMEM;
	}
	j->argv[1] = j->url;
	if (r >= 0)
		r = random_hex(CRED_ID_LEN / 2, j->id);
	/* decided again here, from the profile: an approve rule of this
	 * credential for this consumer, or no approval at all */
	if (r >= 0)
		r = cred_why_spent(ch->s->tools, j->req.cred, ch->consumer, j->req.host, j->req.method, j->req.path,
				   &a);
	snprintf(j->rule, sizeof(j->rule), "%.250s", a.reason);
	if (r < 0 || a.verdict != CRED_WHY_APPROVE || strcmp(a.credential, j->req.cred) != 0 || !a.backend[0]) {
		answer(j, false, "error",
		       r < 0 ? "the approval could not be asked" : "this request needs no approval: refused");
		goto out;
	}
	snprintf(j->backend, sizeof(j->backend), "%s", a.backend);
	if (ch->s->audit_broken || !ch->s->approvals || !ch->s->approve_pool || (r = approval_digest(j)) < 0 ||
	    !(j->done = event_new(ch->s->base, -1, 0, on_approved, j))) {
		answer(j, false, "error", "the approval could not be asked");
		goto out;
	}
	j->env[0] = NULL;
	j->areq = (struct approval_request){
		.request_id = j->id,
		.session = ch->s->session_id,
		.caller = ch->consumer,
		.command = j->req.cred,
		.argv = j->argv,
		.argv_redacted = j->argv,
		.env = j->env,
		.env_redacted = j->env,
		.cwd = "/",
		.policy = ch->s->policy_digest,
		.digest = j->digest,
	};
	/* the same pool and per-sandbox cap as the tool calls' approvals */
	r = approve_pool_submit(ch->s->approve_pool, ch->consumer, approve_main, j, &whole);
	if (r < 0) {
		answer(j, false, "error",
		       r == -EBUSY ? "too many approvals pending: try again once they are answered"
				   : "the approval could not be asked");
		goto out;
	}
	ch->s->approving++;
	return 0;
out:
	ch->pending--;
	job_free(j);
	chan_unref(ch);
	return 0;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct cred_chan *ch = arg;
	struct msg_frame f = {};
	int r;

	r = msg_reader_recv(ch->rd, ch->fd);
	if (r == -EAGAIN)
		return;
	if (r <= 0) {
		chan_close(ch); /* the proxy ended (or the stream broke) */
		return;
	}
	ch->refs++;
	while (!ch->dead && (r = msg_reader_next(ch->rd, &f)) == 1) {
		if (f.nfds || ch->pending >= CHAN_PENDING_MAX)
			r = -EPROTO;
		else if (f.type == CRED_MSG_VALUE_ASK)
			r = ask_value(ch, f.body);
		else if (f.type == CRED_MSG_APPROVE_ASK)
			r = ask_approval(ch, f.body);
		else
			r = -EPROTO;
		msg_frame_done(&f);
		if (r < 0) {
			fprintf(stderr, "cordon: a proxy's credential channel (%s) dropped: %s\n", ch->consumer,
				strerror(-r));
			chan_close(ch);
		}
	}
	if (!ch->dead && r != -EAGAIN)
		chan_close(ch);
	chan_unref(ch);
}

int cred_chan_new(struct supervisor *s, int fd, const char *consumer)
{
	struct cred_chan *ch = calloc(1, sizeof(*ch));

	if (!ch) {
		close(fd);
		return -ENOMEM;
	}
	*ch = (struct cred_chan){ .s = s, .fd = fd, .refs = 1 };
	if (!(ch->consumer = strdup(consumer)) || !(ch->rd = msg_reader_new(CRED_MSG_MAX)) ||
	    !(ch->ev = event_new(s->base, fd, EV_READ | EV_PERSIST, on_readable, ch)) || event_add(ch->ev, NULL) < 0) {
		if (ch->ev)
			event_free(ch->ev);
		msg_reader_free(ch->rd);
		free(ch->consumer);
		free(ch);
		close(fd);
		return -ENOMEM;
	}
	ch->next = *chans(s);
	*chans(s) = ch;
	return 0;
}

void cred_chan_free_all(struct supervisor *s)
{
	while (*chans(s))
		chan_close(*chans(s));
}
