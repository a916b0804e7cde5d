/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential channel's message bodies (cred_proto.h): encoded, and
 * decoded with a cap on every field and no trailing bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cred_proto.h"

/* Printable ASCII, no space: a name, a host, a method, a path, an id. */
static bool word_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* Printable ASCII and spaces: a reason, an outcome. */
static bool line_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static int put(struct msgbuf *b, const char *s, size_t max)
{
	size_t n = strlen(s ? s : "");

	if (n > max)
		return -E2BIG;
	return msgbuf_put_string(b, s ? s : "", n, MSGBUF_NO_NUL);
}

/* One string field of at most max bytes; word: no spaces, non-empty. */
static int get(struct msgbuf *b, size_t max, bool word, char **ret)
{
	char *s = NULL;
	int r = msgbuf_get_string(b, max, MSGBUF_NO_NUL, &s, NULL);

	if (r < 0)
		return r;
	if (word ? (!s[0] || !word_ok(s)) : !line_ok(s)) {
		free(s);
		return -EBADMSG;
	}
	*ret = s;
	return 0;
}

static int end(struct msgbuf *b)
{
	return msgbuf_len(b) == 0 ? 0 : -EBADMSG;
}

void cred_req_done(struct cred_req *q)
{
	free(q->cred);
	free(q->host);
	free(q->method);
	free(q->path);
	*q = (struct cred_req){};
}

void cred_decision_done(struct cred_decision *d)
{
	free(d->id);
	free(d->outcome);
	free(d->reason);
	cred_req_done(&d->req);
	*d = (struct cred_decision){};
}

void cred_value_reply_done(struct cred_value_reply *v)
{
	free(v->reason);
	*v = (struct cred_value_reply){};
}

bool cred_req_equal(const struct cred_req *a, const struct cred_req *b)
{
	return a->cred && b->cred && strcmp(a->cred, b->cred) == 0 && a->host && b->host &&
	       strcmp(a->host, b->host) == 0 && a->method && b->method && strcmp(a->method, b->method) == 0 &&
	       a->path && b->path && strcmp(a->path, b->path) == 0;
}

int cred_value_ask_encode(struct msgbuf *b, uint32_t seq, const char *cred)
{
	int r = msgbuf_put_u32(b, seq);

	return r < 0 ? r : put(b, cred, CRED_NAME_MAX);
}

int cred_value_ask_decode(struct msgbuf *b, uint32_t *ret_seq, char **ret_cred)
{
	uint32_t seq;
	char *c = NULL;
	int r;

	if ((r = msgbuf_get_u32(b, &seq)) < 0 || (r = get(b, CRED_NAME_MAX, true, &c)) < 0)
		return r;
	if ((r = end(b)) < 0) {
		free(c);
		return r;
	}
	*ret_seq = seq;
	*ret_cred = c;
	return 0;
}

static int req_encode(struct msgbuf *b, const struct cred_req *q)
{
	int r;

	if ((r = put(b, q->cred, CRED_NAME_MAX)) < 0 || (r = put(b, q->host, CRED_HOST_MAX)) < 0 ||
	    (r = put(b, q->method, CRED_METHOD_MAX)) < 0 || (r = put(b, q->path, CRED_PATH_MAX)) < 0)
		return r;
	return 0;
}

static int req_decode(struct msgbuf *b, struct cred_req *ret)
{
	struct cred_req q = {};
	int r;

	if ((r = get(b, CRED_NAME_MAX, true, &q.cred)) < 0 || (r = get(b, CRED_HOST_MAX, true, &q.host)) < 0 ||
	    (r = get(b, CRED_METHOD_MAX, true, &q.method)) < 0 || (r = get(b, CRED_PATH_MAX, true, &q.path)) < 0) {
		cred_req_done(&q);
		return r;
	}
	if (q.path[0] != '/') {
		cred_req_done(&q);
		return -EBADMSG;
	}
	*ret = q;
	return 0;
}

int cred_approve_ask_encode(struct msgbuf *b, uint32_t seq, const struct cred_req *q)
{
	int r = msgbuf_put_u32(b, seq);

	return r < 0 ? r : req_encode(b, q);
}

int cred_approve_ask_decode(struct msgbuf *b, uint32_t *ret_seq, struct cred_req *ret)
{
	struct cred_req q = {};
	uint32_t seq;
	int r;

	if ((r = msgbuf_get_u32(b, &seq)) < 0 || (r = req_decode(b, &q)) < 0)
		return r;
	if ((r = end(b)) < 0) {
		cred_req_done(&q);
		return r;
	}
	*ret_seq = seq;
	*ret = q;
	return 0;
}

int cred_value_reply_encode(struct msgbuf *b, const struct cred_value_reply *v)
{
	int r;

	if ((r = msgbuf_put_u32(b, v->seq)) < 0 || (r = msgbuf_put_u8(b, v->ok ? 1 : 0)) < 0 ||
	    (r = msgbuf_put_u64(b, v->lifetime_ms)) < 0)
		return r;
	return put(b, v->reason, CRED_REASON_MAX);
}

int cred_value_reply_decode(struct msgbuf *b, struct cred_value_reply *ret)
{
	struct cred_value_reply v = {};
	uint8_t ok;
	int r;

	if ((r = msgbuf_get_u32(b, &v.seq)) < 0 || (r = msgbuf_get_u8(b, &ok)) < 0 ||
	    (r = msgbuf_get_u64(b, &v.lifetime_ms)) < 0 || (r = get(b, CRED_REASON_MAX, false, &v.reason)) < 0)
		return r;
	if (ok > 1 || (r = end(b)) < 0) {
		cred_value_reply_done(&v);
		return r < 0 ? r : -EBADMSG;
	}
	v.ok = ok;
	*ret = v;
	return 0;
}

int cred_decision_encode(struct msgbuf *b, const struct cred_decision *d)
{
	int r;

	if ((r = msgbuf_put_u32(b, d->seq)) < 0 || (r = msgbuf_put_u8(b, d->allow ? 1 : 0)) < 0 ||
	    (r = put(b, d->id, CRED_ID_LEN)) < 0 || (r = put(b, d->outcome, CRED_NAME_MAX)) < 0 ||
	    (r = put(b, d->reason, CRED_REASON_MAX)) < 0)
		return r;
	return req_encode(b, &d->req);
}

int cred_decision_decode(struct msgbuf *b, struct cred_decision *ret)
{
	struct cred_decision d = {};
	uint8_t allow;
	int r;

	if ((r = msgbuf_get_u32(b, &d.seq)) < 0 || (r = msgbuf_get_u8(b, &allow)) < 0 ||
	    (r = get(b, CRED_ID_LEN, true, &d.id)) < 0 || (r = get(b, CRED_NAME_MAX, true, &d.outcome)) < 0 ||
	    (r = get(b, CRED_REASON_MAX, false, &d.reason)) < 0 || (r = req_decode(b, &d.req)) < 0) {
		cred_decision_done(&d);
		return r;
	}
	if (allow > 1 || strlen(d.id) != CRED_ID_LEN || strspn(d.id, "0123456789abcdef") != CRED_ID_LEN ||
	    (r = end(b)) < 0) {
		cred_decision_done(&d);
		return r < 0 ? r : -EBADMSG;
	}
	d.allow = allow;
	*ret = d;
	return 0;
}
