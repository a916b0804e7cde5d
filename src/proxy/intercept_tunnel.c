/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One intercepted tunnel: the client's TLS (our leaf), the upstream's TLS
 * (verified), and the requests between them, one at a time: each decided
 * and rewritten (cred_subst.c) before a byte of it goes upstream, its body
 * forwarded as it is, its response scrubbed (cred_scrub.c). A refusal is a
 * 403 inside the tunnel, then the tunnel closes.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conn.h"
#include "intercept_impl.h"

/* Bytes held here for one side before the other is read again. */
#define TUNNEL_DOWN_MAX (1024 * 1024)

static void on_down_read(struct bufferevent *bev, void *arg);
static void on_down_event(struct bufferevent *bev, short what, void *arg);

static void tunnel_free(struct tunnel *t)
{
	/* a tunnel is one of the proxy's client connections (max_conns) */
	if (t->counted) {
		t->px->n_conns--;
		if (t->px->n_conns < t->px->cfg->max_conns)
			proxy_set_accepting(t->px, true);
	}
	if (t->down)
		bufferevent_free(t->down);
	if (t->up)
		bufferevent_free(t->up);
	if (t->stage)
		evbuffer_free(t->stage);
	scrub_done(&t->scrub);
	tunnel_ask_done(t);
	free(t);
}

static void on_down_drained(struct bufferevent *bev, void *arg)
{
	struct tunnel *t = arg;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		tunnel_free(t);
}

/* What the client gets is written: then close (the upstream now). */
static void close_after_flush(struct tunnel *t)
{
	t->closing = true;
	if (t->up) {
		bufferevent_free(t->up);
		t->up = NULL;
	}
	if (!t->down_ready || evbuffer_get_length(bufferevent_get_output(t->down)) == 0) {
		tunnel_free(t);
		return;
	}
	bufferevent_disable(t->down, EV_READ);
	bufferevent_setcb(t->down, NULL, on_down_drained, NULL, t);
}

static void audit_refusal(struct tunnel *t, const char *reason, const char *detail)
{
	proxy_audit(t->px, "cordon-proxy: refused %s %s:%u: %s%s%s", t->head.method.n ? "request" : "TLS", t->host->name,
		    t->port, reason, detail && detail[0] ? ": " : "", detail ? detail : "");
}

/* A refusal inside the tunnel (the client's TLS is up), then close. */
static void refuse(struct tunnel *t, int status, const char *reason, const char *detail)
{
	char body[400];
	int b;

	audit_refusal(t, reason, detail);
	if (!t->down_ready || t->resp != TS_IDLE) {
		tunnel_free(t);
		return;
	}
	b = snprintf(body, sizeof(body), "cordon: the proxy refused the request to %s: %s\n", t->host->name,
		     detail && detail[0] ? detail : reason);
	if (b < 0 || (size_t)b >= sizeof(body))
		b = (int)strlen(body);
	evbuffer_add_printf(bufferevent_get_output(t->down),
			    "HTTP/1.1 %d %s\r\nX-Cordon-Error: %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			    "Connection: close\r\n\r\n%s",
			    status,
			    status == 403   ? "Forbidden"
			    : status == 502 ? "Bad Gateway"
			    : status == 503 ? "Service Unavailable"
					    : "Bad Request",
			    reason, b, body);
	close_after_flush(t);
}

/* What goes to the client is staged, then handed to its bufferevent at
 * once (flush_down): each addition to a TLS bufferevent's output is an
 * SSL_write, so a TLS record and a system call, at once; a response head
 * written in pieces went out as a dozen records. */
static void flush_down(struct tunnel *t)
{
	if (evbuffer_get_length(t->stage))
		evbuffer_add_buffer(bufferevent_get_output(t->down), t->stage);
}

static int emit_down(void *arg, const char *p, size_t n)
{
	struct tunnel *t = arg;
	struct evbuffer *out = t->stage;

	if (!n)
		return 0;
	if (t->chunked_out && evbuffer_add_printf(out, "%zx\r\n", n) < 0)
		return -ENOMEM;
	if (evbuffer_add(out, p, n) < 0 || (t->chunked_out && evbuffer_add(out, "\r\n", 2) < 0))
		return -ENOMEM;
	return 0;
}

static int emit_scrubbed(void *arg, const char *p, size_t n)
{
	struct tunnel *t = arg;

	return scrub_feed(&t->scrub, p, n, false, emit_down, t);
}

/* The head's text, plain: scrubbing writes through emit_down unchunked. */
static int emit_head(struct tunnel *t, const char *p, size_t n)
{
	bool chunked = t->chunked_out;
	int r;

	t->chunked_out = false;
	r = scrub_feed(&t->scrub, p, n, true, emit_down, t);
	t->chunked_out = chunked;
	return r;
}

static bool name_is(const struct http_span *s, const char *lit)
{
	return s->n == strlen(lit) && strncasecmp(s->p, lit, s->n) == 0;
}

static void next_request(struct tunnel *t);

static void response_done(struct tunnel *t)
{
	if (t->chunked_out)
		evbuffer_add(t->stage, "0\r\n\r\n", 5);
	flush_down(t);
	t->chunked_out = false;
	t->resp = TS_IDLE;
	t->served++;
	if (t->req_close || t->resp_close || t->req != TR_WAIT) {
		close_after_flush(t);
		return;
	}
	t->req = TR_HEAD;
	t->head.method.n = 0;
	next_request(t);
}

/* The response's head: checked, scrubbed, its body's framing chosen. */
static int response_head(struct tunnel *t)
{
	struct evbuffer *in = bufferevent_get_input(t->up);
	size_t len = evbuffer_get_length(in), take = len < HTTP_HEAD_MAX + 1 ? len : HTTP_HEAD_MAX + 1;
	const char *p = (const char *)evbuffer_pullup(in, (ssize_t)take), *reason;
	struct http_head *h = malloc(sizeof(*h));
	struct http_body b;
	bool no_body, keep_length;
	int r, status;

	if (!h)
		return -1;
	r = http_head_parse_response(p, take, h, &status, &reason);
	if (r == HTTP_HEAD_MORE && take <= HTTP_HEAD_MAX) {
		free(h);
		return 0;
	}
	if (r != HTTP_HEAD_DONE) {
		free(h);
		snprintf(t->up_err, sizeof(t->up_err), "the upstream's response head is malformed or too large");
		return -2;
	}
	if (h->status == 101) {
		free(h);
		snprintf(t->up_err, sizeof(t->up_err), "the upstream switched protocols: refused on a credential host");
		return -2;
	}
	for (size_t i = 0; i < h->n_headers; i++)
		if (name_is(&h->name[i], "content-encoding") && !(h->value[i].n == 8 && !strncasecmp(h->value[i].p, "identity", 8))) {
			free(h);
			snprintf(t->up_err, sizeof(t->up_err), "the upstream encoded its response (asked for identity)");
			return -2;
		}
	no_body = t->req_head || h->status / 100 == 1 || h->status == 204 || h->status == 304;
	if (!no_body && http_body_from_head(h, &b, &status, &reason) < 0) {
		free(h);
		snprintf(t->up_err, sizeof(t->up_err), "the upstream's body framing is ambiguous (%s)", reason);
		return -2;
	}
	t->framing = no_body ? TF_NONE : b.kind == HTTP_BODY_LENGTH ? TF_LENGTH : b.kind == HTTP_BODY_CHUNKED ? TF_CHUNKED : TF_EOF;
	t->left = t->framing == TF_LENGTH ? b.left : 0;
	t->dc = (struct dechunk){};
	t->resp_close = t->framing == TF_EOF || http_request_closes(h);
	/* a Content-Length stays right only when no replacement changes a
	 * length; otherwise the body goes chunked */
	keep_length = t->framing == TF_LENGTH && t->scrub.same_len;
	if (emit_head(t, p, (size_t)(h->name[0].p ? h->name[0].p - p : (ptrdiff_t)h->length - 2)) < 0)
		goto oom;
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct http_span *n = &h->name[i];

		if (name_is(n, "transfer-encoding") || name_is(n, "connection") || name_is(n, "keep-alive") ||
		    (name_is(n, "content-length") && !keep_length && !no_body))
			continue;
		if (emit_head(t, n->p, n->n) < 0 || emit_head(t, ": ", 2) < 0 ||
		    emit_head(t, h->value[i].p, h->value[i].n) < 0 || emit_head(t, "\r\n", 2) < 0)
			goto oom;
	}
	if (t->framing != TF_NONE && !keep_length && t->framing != TF_EOF) {
		/* an HTTP/1.0 client knows no chunks: its body ends at the close */
		if (t->head.minor == 1) {
			t->chunked_out = true;
			evbuffer_add(t->stage, "Transfer-Encoding: chunked\r\n", 28);
		} else
			t->resp_close = true;
	}
	if ((t->resp_close || t->req_close) && h->status >= 200)
		evbuffer_add(t->stage, "Connection: close\r\n", 19);
	evbuffer_add(t->stage, "\r\n", 2);
	evbuffer_drain(in, h->length);
	r = h->status / 100 == 1 ? 2 : 1;
	free(h);
	return r;
oom:
	free(h);
	return -1;
}

/* The response's body, as far as it is there. 1: done. */
static int response_body(struct tunnel *t, bool eof)
{
	struct evbuffer *in = bufferevent_get_input(t->up);
	struct evbuffer_iovec v;

	while (evbuffer_peek(in, -1, NULL, &v, 1) > 0 && v.iov_len) {
		size_t used = v.iov_len;

		if (t->framing == TF_LENGTH) {
			used = v.iov_len < t->left ? v.iov_len : (size_t)t->left;
			if (scrub_feed(&t->scrub, v.iov_base, used, false, emit_down, t) < 0)
				return -1;
			t->left -= used;
		} else if (t->framing == TF_CHUNKED) {
			int r = dechunk_feed(&t->dc, v.iov_base, v.iov_len, &used, emit_scrubbed, t);

			if (r < 0) {
				snprintf(t->up_err, sizeof(t->up_err), "the upstream's chunked body is malformed");
				return -2;
			}
			if (r == 1) {
				evbuffer_drain(in, used);
				break;
			}
		} else if (scrub_feed(&t->scrub, v.iov_base, used, false, emit_down, t) < 0)
			return -1;
		evbuffer_drain(in, used);
		if (t->framing == TF_LENGTH && t->left == 0)
			break;
	}
	if ((t->framing == TF_LENGTH && t->left == 0) || (t->framing == TF_CHUNKED && dechunk_done(&t->dc)) ||
	    (t->framing == TF_EOF && eof) || t->framing == TF_NONE) {
		if (scrub_feed(&t->scrub, "", 0, true, emit_down, t) < 0)
			return -1;
		return 1;
	}
	return 0;
}


static void upstream_input(struct tunnel *t, bool eof);

/* The client took what was held: read the upstream again. */
static void on_down_write(struct bufferevent *bev, void *arg)
{
	struct tunnel *t = arg;

	if (!t->up || t->closing)
		return;
	bufferevent_setcb(t->down, on_down_read, NULL, on_down_event, t);
	bufferevent_enable(t->up, EV_READ);
	upstream_input(t, false);
}

static void upstream_input(struct tunnel *t, bool eof)
{
	if (!eof && evbuffer_get_length(bufferevent_get_output(t->down)) > TUNNEL_DOWN_MAX) {
		bufferevent_disable(t->up, EV_READ);
		bufferevent_setwatermark(t->down, EV_WRITE, TUNNEL_DOWN_MAX / 2, 0);
		bufferevent_setcb(t->down, on_down_read, on_down_write, on_down_event, t);
		return;
	}
	for (;;) {
		int r;

		if (t->resp == TS_HEAD) {
			r = response_head(t);
			if (r == 0)
				break;
			if (r < 0)
				goto fail;
			if (r == 2)
				continue; /* 1xx: another head follows */
			t->resp = TS_BODY;
		}
		if (t->resp != TS_BODY)
			break;
		r = response_body(t, eof);
		if (r < 0)
			goto fail;
		if (r == 1) {
			response_done(t);
			return;
		}
		break;
	}
	flush_down(t);
	if (eof && t->resp != TS_IDLE) {
		audit_refusal(t, "upstream-closed", "the upstream closed mid-response");
		tunnel_free(t);
	}
	return;
fail:
	audit_refusal(t, "upstream-malformed", t->up_err[0] ? t->up_err : "out of memory");
	tunnel_free(t);
}

static void on_up_read(struct bufferevent *bev, void *arg);
static void on_up_event(struct bufferevent *bev, short what, void *arg);

/* The upstream took what was held of a body: read the client again. */
static void on_up_write(struct bufferevent *bev, void *arg)
{
	struct tunnel *t = arg;

	bufferevent_setcb(t->up, on_up_read, NULL, on_up_event, t);
	bufferevent_enable(t->down, EV_READ);
	next_request(t);
}

/* The request's body: forwarded as it is (bodies are not rewritten). */
static int request_body(struct tunnel *t)
{
	struct evbuffer *in = bufferevent_get_input(t->down), *out = bufferevent_get_output(t->up);
	struct evbuffer_iovec v;

	while (t->req == TR_BODY && evbuffer_peek(in, -1, NULL, &v, 1) > 0 && v.iov_len) {
		size_t used;
		int r = http_body_feed(&t->req_body, v.iov_base, v.iov_len, &used);

		if (r < 0)
			return -1;
		if (evbuffer_remove_buffer(in, out, used) != (int)used)
			return -1;
		if (r == 1)
			t->req = TR_WAIT;
	}
	if (t->req == TR_BODY && t->req_body.kind == HTTP_BODY_NONE)
		t->req = TR_WAIT;
	/* a client that uploads faster than the upstream takes: wait */
	if (t->req == TR_BODY && evbuffer_get_length(out) > TUNNEL_DOWN_MAX) {
		bufferevent_disable(t->down, EV_READ);
		bufferevent_setwatermark(t->up, EV_WRITE, TUNNEL_DOWN_MAX / 2, 0);
		bufferevent_setcb(t->up, on_up_read, on_up_write, on_up_event, t);
	}
	return 0;
}

static void audit_use(struct tunnel *t)
{
	const struct subst_out *o = &t->out;
	const struct credtable_rule *rl = o->rule;

	proxy_audit(t->px, "cordon-proxy: credential %s %s %.*s %s: %s (rule: %s%s%s%s%s)", o->cred->name, t->host->name,
		    (int)(t->head.method.n < 32 ? t->head.method.n : 32), t->head.method.p, o->path,
		    endpoint_action_name(o->action), rl ? endpoint_action_name(rl->action) : "default",
		    rl ? " " : "", rl ? rl->method : "", rl ? " " : "", rl ? rl->path : "");
}

static void secure_release(const void *data, size_t n, void *arg)
{
	OPENSSL_secure_clear_free((void *)data, n);
}

/* The rewritten head to the upstream in one piece, so in one TLS record
 * (each addition to a TLS bufferevent is an SSL_write at once: the pieces
 * around a secret went out as three records). With a secret, the piece is
 * made in the secure heap, never a plain heap copy, handed to libevent by
 * reference and cleared once written; if the secure heap is short, the
 * pieces go as they are, the secret by reference to the table's. */
static int send_head(const struct subst_out *o, struct evbuffer *out)
{
	size_t total = 0, off = 0;
	bool secret = false;
	char *buf;
	int r;

	for (size_t i = 0; i < o->n; i++) {
		total += o->piece[i].n;
		secret |= o->piece[i].secret;
	}
	buf = !total ? NULL : secret ? OPENSSL_secure_malloc(total) : malloc(total);
	if (!buf) {
		for (size_t i = 0; i < o->n; i++) {
			const struct subst_piece *q = &o->piece[i];

			r = q->secret ? evbuffer_add_reference(out, q->p, q->n, NULL, NULL) : evbuffer_add(out, q->p, q->n);
			if (r < 0)
				return -ENOMEM;
		}
		return 0;
	}
	for (size_t i = 0; i < o->n; i++) {
		memcpy(buf + off, o->piece[i].p, o->piece[i].n);
		off += o->piece[i].n;
	}
	if (!secret) {
		r = evbuffer_add(out, buf, total);
		free(buf);
		return r < 0 ? -ENOMEM : 0;
	}
	if (evbuffer_add_reference(out, buf, total, secure_release, NULL) < 0) {
		OPENSSL_secure_clear_free(buf, total);
		return -ENOMEM;
	}
	return 0;
}

/* The next request's head, once there and once the upstream is up. */
static void next_request(struct tunnel *t)
{
	struct evbuffer *in = bufferevent_get_input(t->down), *out;
	size_t len, take;
	const char *p, *reason;
	int r, status;

	if (t->closing)
		return;
	if (t->req == TR_BODY) {
		if (request_body(t) < 0)
			refuse(t, 400, "body-malformed", "the request body's framing is malformed");
		return;
	}
	if (t->req != TR_HEAD || t->resp != TS_IDLE)
		return;
	len = evbuffer_get_length(in);
	if (len == 0)
		return;
	take = len < HTTP_HEAD_MAX + 1 ? len : HTTP_HEAD_MAX + 1;
	p = (const char *)evbuffer_pullup(in, (ssize_t)take);
	r = http_head_parse_origin(p, take, &t->head, &status, &reason);
	if (r == HTTP_HEAD_MORE && take <= HTTP_HEAD_MAX)
		return;
	if (r != HTTP_HEAD_DONE) {
		t->head.method.n = 0;
		refuse(t, r == HTTP_HEAD_MORE ? 431 : status, r == HTTP_HEAD_MORE ? "header-too-large" : reason, NULL);
		return;
	}
	if (!t->up_ready) {
		if (t->up_failed)
			refuse(t, 502, "upstream-tls", t->up_err);
		return; /* on_up_event comes back here */
	}
	if (tunnel_ask_prepare(t) < 0) {
		refuse(t, 503, "out-of-memory", "the proxy is out of memory");
		return;
	}
	t->out.approved = t->ask.approved;
	r = subst_request(&t->ic->sc, t->host->name, t->port, &t->head, &t->out);
	if (r == SUBST_ASK_APPROVAL || r == SUBST_ASK_VALUE) {
		/* held (its client's reads paused) until the supervisor answers */
		if ((r = tunnel_ask(t, r, tunnel_answered)) < 0) {
			if (r == -EBADMSG)
				refuse(t, 403, "path-malformed", "a method or path that cannot be asked about");
			else
				refuse(t, 503, "credential-channel", "the supervisor cannot be asked");
			return;
		}
		t->req = TR_ASK;
		bufferevent_disable(t->down, EV_READ);
		return;
	}
	if (r < 0 || !tunnel_ask_spend(t)) {
		if (t->out.cred)
			audit_use(t);
		if (r >= 0)
			refuse(t, 403, "approval-mismatch", "the approval was for another request");
		else
			refuse(t, t->out.status, t->out.reason, t->out.detail);
		return;
	}
	if (http_body_from_head(&t->head, &t->req_body, &status, &reason) < 0) {
		refuse(t, status, reason, NULL);
		return;
	}
	if (t->out.cred)
		audit_use(t);
	t->req_close = http_request_closes(&t->head);
	t->req_head = t->head.method.n == 4 && memcmp(t->head.method.p, "HEAD", 4) == 0;
	out = bufferevent_get_output(t->up);
	if (send_head(&t->out, out) < 0) {
		tunnel_free(t);
		return;
	}
	evbuffer_drain(in, t->head.length);
	t->req = TR_BODY;
	t->resp = TS_HEAD;
	if (request_body(t) < 0) {
		audit_refusal(t, "body-malformed", "the request body's framing is malformed");
		tunnel_free(t);
	}
}

void tunnel_answered(struct tunnel *t, int status, const char *reason, const char *detail)
{
	if (t->req != TR_ASK)
		return;
	t->req = TR_HEAD;
	if (status) {
		refuse(t, status, reason, detail);
		return;
	}
	bufferevent_enable(t->down, EV_READ);
	next_request(t);
}

static void on_down_read(struct bufferevent *bev, void *arg)
{
	next_request(arg);
}

static void on_up_read(struct bufferevent *bev, void *arg)
{
	struct tunnel *t = arg;

	if (t->resp == TS_IDLE) {
		/* nothing was asked: an upstream that talks first is cut */
		if (evbuffer_get_length(bufferevent_get_input(bev))) {
			audit_refusal(t, "upstream-unsolicited", "the upstream sent bytes no request asked for");
			tunnel_free(t);
		}
		return;
	}
	upstream_input(t, false);
}

static void on_down_event(struct bufferevent *bev, short what, void *arg)
{
	struct tunnel *t = arg;

	if (what & BEV_EVENT_CONNECTED) {
		t->down_ready = true;
		if (t->up_failed) {
			refuse(t, 502, "upstream-tls", t->up_err);
			return;
		}
		next_request(t);
		return;
	}
	if (what & BEV_EVENT_ERROR && !t->down_ready)
		audit_refusal(t, t->why ? t->why : "client-tls-failed",
			      t->why && !strcmp(t->why, "alpn-http1-only") ? "an h2-only client: http/1.1 only on a credential host"
			      : t->why ? "the TLS name is not the CONNECT host"
				       : "the client's TLS handshake failed (does it trust the session CA?)");
	tunnel_free(t);
}

/* The upstream is gone before it answered anything: remember why; the
 * client hears it as a 502 (now, or once its own handshake is done, or at
 * its first request). */
static void upstream_lost(struct tunnel *t, struct bufferevent *bev)
{
	SSL *ssl = bufferevent_openssl_get_ssl(bev);
	long v = ssl && !t->up_ready ? SSL_get_verify_result(ssl) : X509_V_OK;
	unsigned long e = bufferevent_get_openssl_error(bev);
	char buf[120] = "";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	if (v != X509_V_OK)
		snprintf(t->up_err, sizeof(t->up_err), "the upstream's certificate does not verify: %s",
			 X509_verify_cert_error_string(v));
	else
		/* an mTLS upstream refuses a missing certificate after the
		 * handshake, in TLS 1.3: it lands here too */
		snprintf(t->up_err, sizeof(t->up_err), "the upstream's TLS failed before it answered: %.90s",
			 e ? buf : "it closed");
	t->up_failed = true;
	t->up_ready = false;
	bufferevent_free(t->up);
	t->up = NULL;
	if (t->down_ready && (t->resp == TS_HEAD || evbuffer_get_length(bufferevent_get_input(t->down)))) {
		t->resp = TS_IDLE;
		refuse(t, 502, "upstream-tls", t->up_err);
	}
}

static void on_up_event(struct bufferevent *bev, short what, void *arg)
{
	struct tunnel *t = arg;

	if (what & BEV_EVENT_CONNECTED) {
		t->up_ready = true;
		next_request(t);
		return;
	}
	if ((what & BEV_EVENT_EOF) && t->resp == TS_BODY) {
		upstream_input(t, true);
		return;
	}
	/* a kept-alive upstream that closed between requests: close the
	 * client's side too (it reconnects, as after any keep-alive close) */
	if (t->served && t->resp == TS_IDLE) {
		close_after_flush(t);
		return;
	}
	if (t->resp == TS_IDLE || (t->resp == TS_HEAD && evbuffer_get_length(bufferevent_get_input(bev)) == 0)) {
		upstream_lost(t, bev);
		return;
	}
	audit_refusal(t, "upstream-failed", "the upstream's connection failed mid-response");
	tunnel_free(t);
}

void tunnel_start(void *state, struct proxy *px, int cfd, int ufd, const char *host, size_t n, uint16_t port)
{
	struct intercept *ic = state;
	struct ic_host *h = intercept_find(ic, host, n);
	struct tunnel *t = h ? calloc(1, sizeof(*t)) : NULL;
	struct timeval idle = { .tv_sec = px->cfg->idle_timeout };
	SSL *down = NULL, *up = NULL;

	if (!t || scrub_init(&t->scrub, &ic->sc) < 0 || !(t->stage = evbuffer_new()))
		goto fail;
	t->ic = ic;
	t->px = px;
	t->host = h;
	t->port = port;
	if (intercept_host_ready(ic, h, t->up_err, sizeof(t->up_err)) < 0) {
		proxy_audit(px, "cordon-proxy: refused CONNECT %s:%u: intercept-failed: %s", h->name, port, t->up_err);
		goto out;
	}
	down = SSL_new(h->down);
	up = SSL_new(h->up);
	if (!down || !up)
		goto fail;
	SSL_set_app_data(down, t);
	if (SSL_set_tlsext_host_name(up, h->name) != 1 || SSL_set1_host(up, h->name) != 1)
		goto fail;
	t->down = bufferevent_openssl_socket_new(px->base, cfd, down, BUFFEREVENT_SSL_ACCEPTING,
						 BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	down = NULL;
	cfd = -1;
	t->up = bufferevent_openssl_socket_new(px->base, ufd, up, BUFFEREVENT_SSL_CONNECTING,
					       BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	up = NULL;
	ufd = -1;
	if (!t->down || !t->up)
		goto fail;
	/* bulk bodies: fewer, larger turns of the loop */
	(void)bufferevent_set_max_single_read(t->up, 256 * 1024);
	(void)bufferevent_set_max_single_write(t->down, 256 * 1024);
	(void)bufferevent_set_max_single_read(t->down, 256 * 1024);
	(void)bufferevent_set_max_single_write(t->up, 256 * 1024);
	/* an upstream that closes without close_notify ends its body */
	bufferevent_openssl_set_allow_dirty_shutdown(t->up, 1);
	bufferevent_setcb(t->down, on_down_read, NULL, on_down_event, t);
	bufferevent_setcb(t->up, on_up_read, NULL, on_up_event, t);
	bufferevent_set_timeouts(t->down, &idle, NULL);
	bufferevent_set_timeouts(t->up, &idle, NULL);
	/* a client reads its response before it sends more: what it
	 * pipelines waits, up to the head's cap */
	bufferevent_setwatermark(t->down, EV_READ, 0, 4 * HTTP_HEAD_MAX);
	/* a read high-water mark also sizes each SSL_read (without one,
	 * libevent asks for 4 KiB, then the record's rest: two pieces, and two
	 * records towards the client, per record read); above a head's cap */
	bufferevent_setwatermark(t->up, EV_READ, 0, 2 * HTTP_HEAD_MAX + 2);
	if (bufferevent_enable(t->down, EV_READ | EV_WRITE) < 0 || bufferevent_enable(t->up, EV_READ | EV_WRITE) < 0)
		goto fail;
	px->n_conns++;
	t->counted = true;
	return;
fail:
	proxy_audit(px, "cordon-proxy: refused CONNECT %.*s:%u: intercept-failed: out of memory", (int)(n < 253 ? n : 253),
		    host, port);
out:
	SSL_free(down);
	SSL_free(up);
	if (cfd >= 0)
		close(cfd);
	if (ufd >= 0)
		close(ufd);
	if (t)
		tunnel_free(t);
}
