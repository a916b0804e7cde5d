/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's end of its credential channel (intercept_ask.h): asks out,
 * answers matched to them, values installed and let go.
 */
#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "intercept_impl.h"
#include "msgframe.h"

struct ic_value {
	unsigned refs;
	struct credtable_secret value, basic;
};

struct ic_pending {
	uint32_t seq;
	int what;                   /* SUBST_ASK_* */
	size_t cred;                /* the table's index */
	struct cred_req req;        /* an approval's request */
	struct tunnel *t;           /* NULL: its tunnel is gone */
	tunnel_answer_fn *answered; /* how t hears the answer */
	struct ic_pending *next;
};

struct ic_chan {
	int fd;
	struct event *ev;
	struct msg_reader *rd;
	uint32_t seq;
	bool dead;
	struct ic_pending *pending;
	struct ic_value **vals;     /* per credential: a value that came on the channel */
	uint64_t *expires;          /* monotonic µs; 0: for ever */
	unsigned epoch;             /* bumped when a value comes or goes */
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void value_unref(struct ic_value *v)
{
	if (!v || --v->refs)
		return;
	credtable_secret_clear(&v->value);
	credtable_secret_clear(&v->basic);
	free(v);
}

int intercept_chan_init(struct intercept *ic, int fd)
{
	struct ic_chan *ch = calloc(1, sizeof(*ch));
	size_t n = ic->t->n_creds ? ic->t->n_creds : 1;

	if (!ch || !(ch->vals = calloc(n, sizeof(*ch->vals))) || !(ch->expires = calloc(n, sizeof(*ch->expires))) ||
	    !(ch->rd = msg_reader_new(CRED_MSG_MAX))) {
		if (ch) {
			free(ch->vals);
			free(ch->expires);
			free(ch);
		}
		close(fd);
		return -ENOMEM;
	}
	ch->fd = fd;
	ch->epoch = 1; /* a new tunnel (epoch 0) sets its scrubber at its first request */
	(void)fcntl(fd, F_SETFL, O_NONBLOCK);
	ic->chan = ch;
	return 0;
}

/* Credential i's value: v (or none), the substituter and scrubbers told. */
static void set_value(struct intercept *ic, size_t i, struct ic_value *v, uint64_t expires)
{
	struct ic_chan *ch = ic->chan;
	struct credtable_cred *c = &ic->t->creds[i];

	value_unref(ch->vals[i]);
	ch->vals[i] = v;
	ch->expires[i] = expires;
	c->value = v ? v->value : (struct credtable_secret){};
	ic->sc.basic_real[i] = v ? v->basic : (struct credtable_secret){};
	ch->epoch++;
}

static void expire(struct intercept *ic)
{
	struct ic_chan *ch = ic->chan;
	uint64_t now = now_usec();

	for (size_t i = 0; i < ic->t->n_creds; i++)
		if (ch->vals[i] && ch->expires[i] && now >= ch->expires[i])
			set_value(ic, i, NULL, 0);
}

static void unhold(struct tunnel *t)
{
	for (size_t k = 0; k < t->ask.n_held; k++)
		value_unref(t->ask.held[k]);
	free(t->ask.held);
	t->ask.held = NULL;
	t->ask.n_held = 0;
}

int tunnel_ask_prepare(struct tunnel *t)
{
	struct intercept *ic = t->ic;
	struct ic_chan *ch = ic->chan;
	struct ic_value **held;
	size_t n = 0;

	if (!ch)
		return 0;
	expire(ic);
	if (t->ask.epoch == ch->epoch)
		return 0;
	/* what the last request put upstream may still point at the values
	 * held: let them go only once it has gone */
	held = calloc(t->ask.n_held + ic->t->n_creds + 1, sizeof(*held));
	if (!held)
		return -ENOMEM;
	if (t->up && evbuffer_get_length(bufferevent_get_output(t->up)) > 0)
		for (size_t k = 0; k < t->ask.n_held; k++)
			held[n++] = TAKE_PTR(t->ask.held[k]);
	unhold(t);
	for (size_t i = 0; i < ic->t->n_creds; i++)
		if (ch->vals[i]) {
			ch->vals[i]->refs++;
			held[n++] = ch->vals[i];
		}
	t->ask.held = held;
	t->ask.n_held = n;
	/* the scrubber: every value there is now (its patterns point at them) */
	scrub_done(&t->scrub);
	if (scrub_init(&t->scrub, &ic->sc) < 0)
		return -ENOMEM;
	t->ask.epoch = ch->epoch;
	return 0;
}

static void pending_free(struct ic_pending *p)
{
	cred_req_done(&p->req);
	free(p);
}

/* Every ask out fails (the channel is gone): 503 to each waiting tunnel. */
static void chan_lost(struct intercept *ic, const char *why)
{
	struct ic_chan *ch = ic->chan;

	if (ch->dead)
		return;
	ch->dead = true;
	if (ch->ev)
		event_free(ch->ev);
	ch->ev = NULL;
	close(ch->fd);
	ch->fd = -1;
	while (ch->pending) {
		struct ic_pending *p = ch->pending;
		struct tunnel *t = p->t;
		tunnel_answer_fn *answered = p->answered;

		ch->pending = p->next;
		if (t)
			t->ask.pending = NULL;
		pending_free(p);
		if (t)
			answered(t, 503, "credential-channel", why);
	}
}

static struct ic_pending *take_pending(struct ic_chan *ch, uint32_t seq)
{
	for (struct ic_pending **pp = &ch->pending; *pp; pp = &(*pp)->next)
		if ((*pp)->seq == seq) {
			struct ic_pending *p = *pp;

			*pp = p->next;
			if (p->t)
				p->t->ask.pending = NULL;
			return p;
		}
	return NULL;
}

/* A value's pipe: read whole into secure memory, checked as a header
 * value must be. */
static int read_value(int fd, struct ic_value **ret)
{
	unsigned char *buf = OPENSSL_secure_malloc(CRED_VALUE_MAX + 1);
	struct ic_value *v;
	size_t n = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	while (n <= CRED_VALUE_MAX) {
		ssize_t k = read(fd, buf + n, CRED_VALUE_MAX + 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r = k < 0 ? -errno : 0;
			break;
		}
		n += (size_t)k;
	}
	if (r >= 0 && (n == 0 || n > CRED_VALUE_MAX))
		r = -EBADMSG;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (buf[i] < 0x20 || buf[i] == 0x7f)
			r = -EBADMSG;
	v = r >= 0 ? calloc(1, sizeof(*v)) : NULL;
	if (r >= 0 && !v)
		r = -ENOMEM;
	if (r >= 0) {
		v->refs = 1;
		r = credtable_secret_set(&v->value, buf, n);
	}
	OPENSSL_secure_clear_free(buf, CRED_VALUE_MAX + 1);
	if (r < 0) {
		value_unref(v);
		return r;
	}
	*ret = v;
	return 0;
}

static void on_value(struct intercept *ic, struct msg_frame *f)
{
	struct cred_value_reply rep = {};
	struct ic_pending *p;
	struct ic_value *v = NULL;
	int r;

	r = cred_value_reply_decode(f->body, &rep);
	if (r < 0 || (rep.ok ? f->nfds != 1 : f->nfds != 0) || !(p = take_pending(ic->chan, rep.seq)) ||
	    p->what != SUBST_ASK_VALUE) {
		cred_value_reply_done(&rep);
		chan_lost(ic, "the supervisor's answer does not fit an ask");
		return;
	}
	if (rep.ok) {
		const struct credtable_cred *c = &ic->t->creds[p->cred];

		r = read_value(f->fds[0], &v);
		if (r >= 0 && c->inject == CREDTABLE_INJECT_BASIC)
			r = subst_basic_secret(c->inject_name ? c->inject_name : "", v->value.p, v->value.n, &v->basic);
		if (r >= 0 && c->inject == CREDTABLE_INJECT_BASIC && !ic->sc.basic_phantom[p->cred] && c->n_phantoms) {
			struct credtable_secret ph = {};

			if (subst_basic_secret(c->inject_name ? c->inject_name : "",
					       (const unsigned char *)c->phantoms[0], strlen(c->phantoms[0]), &ph) == 0)
				ic->sc.basic_phantom[p->cred] = strndup((const char *)ph.p, ph.n);
			credtable_secret_clear(&ph);
		}
		if (r >= 0)
			set_value(ic, p->cred, v, rep.lifetime_ms ? now_usec() + rep.lifetime_ms * 1000 : 0);
		else
			value_unref(v);
	}
	if (p->t) {
		char why[CRED_REASON_MAX + 64];

		if (!rep.ok)
			snprintf(why, sizeof(why), "credential %s: %s", ic->t->creds[p->cred].name, rep.reason);
		else if (r < 0)
			snprintf(why, sizeof(why), "credential %s: its value could not be taken (%s)",
				 ic->t->creds[p->cred].name, strerror(-r));
		p->answered(p->t, rep.ok && r >= 0 ? 0 : 503, "credential-unavailable",
				rep.ok && r >= 0 ? NULL : why);
	}
	pending_free(p);
	cred_value_reply_done(&rep);
}

static void on_decision(struct intercept *ic, struct msg_frame *f)
{
	struct cred_decision d = {};
	struct ic_pending *p;
	struct tunnel *t;
	char why[CRED_REASON_MAX + 64];
	int r;

	r = cred_decision_decode(f->body, &d);
	if (r < 0 || f->nfds || !(p = take_pending(ic->chan, d.seq)) || p->what != SUBST_ASK_APPROVAL) {
		cred_decision_done(&d);
		chan_lost(ic, "the supervisor's answer does not fit an ask");
		return;
	}
	t = p->t;
	if (t) {
		/* the answer names the request it decided: that request, or
		 * nothing (never another one, never a later one) */
		bool same = cred_req_equal(&d.req, &p->req);

		proxy_audit(t->px, "cordon-proxy: approval %s for credential %s %s %s %s: %s%s%s", d.id, p->req.cred,
			    p->req.host, p->req.method, p->req.path, same ? d.outcome : "mismatched",
			    d.reason[0] ? ": " : "", d.reason);
		if (same && d.allow) {
			t->ask.approved = true;
			cred_req_done(&t->ask.req);
			t->ask.req = p->req;
			p->req = (struct cred_req){};
			p->answered(t, 0, NULL, NULL);
		} else {
			snprintf(why, sizeof(why), "%s", same ? d.reason : "the approval answered another request");
			p->answered(t, 403,
					!same ? "approval-mismatch"
					: strcmp(d.outcome, "timeout") == 0 ? "approval-timeout"
									     : "approval-denied",
					why);
		}
	}
	pending_free(p);
	cred_decision_done(&d);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct intercept *ic = arg;
	struct ic_chan *ch = ic->chan;
	struct msg_frame f = {};
	int r = msg_reader_recv(ch->rd, ch->fd);

	if (r == -EAGAIN)
		return;
	if (r <= 0) {
		chan_lost(ic, "the supervisor is gone");
		return;
	}
	while (!ch->dead && (r = msg_reader_next(ch->rd, &f)) == 1) {
		if (f.type == CRED_MSG_VALUE)
			on_value(ic, &f);
		else if (f.type == CRED_MSG_DECISION)
			on_decision(ic, &f);
		else
			chan_lost(ic, "the supervisor sent what no ask wants");
		msg_frame_done(&f);
	}
	if (!ch->dead && r != -EAGAIN)
		chan_lost(ic, "the supervisor's frame is malformed");
}

static bool word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* The request's method, as a string of at most CRED_METHOD_MAX bytes. */
static void method_of(const struct tunnel *t, char method[CRED_METHOD_MAX + 1])
{
	size_t n = t->head.method.n < CRED_METHOD_MAX ? t->head.method.n : CRED_METHOD_MAX;

	memcpy(method, t->head.method.p, n);
	method[n] = '\0';
}

int tunnel_ask(struct tunnel *t, int what, tunnel_answer_fn *answered)
{
	struct intercept *ic = t->ic;
	struct ic_chan *ch = ic->chan;
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(CRED_MSG_MAX);
	struct ic_pending *p;
	char method[CRED_METHOD_MAX + 1];
	int r;

	if (!ch || ch->dead)
		return -ENOTCONN;
	if (!b || !(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	if (!ch->ev) {
		ch->ev = event_new(t->px->base, ch->fd, EV_READ | EV_PERSIST, on_readable, ic);
		if (!ch->ev || event_add(ch->ev, NULL) < 0) {
			free(p);
			return -ENOMEM;
		}
	}
	*p = (struct ic_pending){ .seq = ++ch->seq, .what = what, .answered = answered, .cred = (size_t)(t->out.cred - ic->t->creds),
				  .t = t };
	if (what == SUBST_ASK_APPROVAL) {
		method_of(t, method);
		/* what the channel carries: printable words, within their caps
		 * (else the supervisor would drop the channel) */
		if (!word(method) || !word(t->out.path) || strlen(t->out.path) > CRED_PATH_MAX) {
			free(p);
			return -EBADMSG;
		}
		if (!(p->req.cred = strdup(t->out.cred->name)) || !(p->req.host = strdup(t->host->name)) ||
		    !(p->req.method = strdup(method)) || !(p->req.path = strdup(t->out.path))) {
			pending_free(p);
			return -ENOMEM;
		}
		r = cred_approve_ask_encode(b, p->seq, &p->req);
	} else
		r = cred_value_ask_encode(b, p->seq, t->out.cred->name);
	if (r >= 0)
		r = msg_frame_write(ch->fd, what == SUBST_ASK_APPROVAL ? CRED_MSG_APPROVE_ASK : CRED_MSG_VALUE_ASK, b,
				    NULL, 0);
	if (r < 0) {
		pending_free(p);
		return r;
	}
	p->next = ch->pending;
	ch->pending = p;
	t->ask.pending = p;
	return 0;
}

bool tunnel_ask_spend(struct tunnel *t)
{
	bool ok = true;

	if (t->out.cred && t->out.action == CREDTABLE_APPROVE) {
		char method[CRED_METHOD_MAX + 1];
		struct cred_req now = { .cred = (char *)t->out.cred->name, .host = t->host->name, .method = method,
					.path = t->out.path };

		method_of(t, method);
		ok = t->ask.approved && cred_req_equal(&now, &t->ask.req);
	}
	t->ask.approved = false;
	cred_req_done(&t->ask.req);
	return ok;
}

void tunnel_ask_done(struct tunnel *t)
{
	if (t->ask.pending)
		t->ask.pending->t = NULL;
	t->ask.pending = NULL;
	cred_req_done(&t->ask.req);
	unhold(t);
}
