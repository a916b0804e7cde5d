/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential channel's body decoders (src/lib/msg/cred_proto.c) on
 * arbitrary bytes: what a proxy sends the supervisor, and what the proxy
 * reads back. Nothing may crash, leak or read out of bounds; what decodes
 * holds only the characters and lengths the codec promises, and
 * re-encodes and decodes to the same message.
 *
 * Input: byte 0 picks the decoder, the rest is the body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cred_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static void req_ok(const struct cred_req *q)
{
	check(q->cred[0] && strlen(q->cred) <= CRED_NAME_MAX && !strchr(q->cred, ' '));
	check(q->host[0] && strlen(q->host) <= CRED_HOST_MAX && !strchr(q->host, ' '));
	check(q->method[0] && strlen(q->method) <= CRED_METHOD_MAX && !strchr(q->method, ' '));
	check(q->path[0] == '/' && strlen(q->path) <= CRED_PATH_MAX && !strchr(q->path, ' '));
}

static struct msgbuf *fresh(void)
{
	struct msgbuf *b = msgbuf_new(CRED_MSG_MAX);

	check(b);
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msgbuf *b, *re;
	uint32_t seq, seq2;
	char *name = NULL, *name2 = NULL;
	struct cred_req q = {}, q2 = {};
	struct cred_value_reply v = {}, v2 = {};
	struct cred_decision d = {}, d2 = {};

	if (size < 1 || size > CRED_MSG_MAX + 1)
		return 0;
	b = fresh();
	check(msgbuf_put(b, data + 1, size - 1) == 0);
	re = fresh();
	switch (data[0] % 4) {
	case 0:
		if (cred_value_ask_decode(b, &seq, &name) < 0)
			break;
		check(name[0] && strlen(name) <= CRED_NAME_MAX);
		check(cred_value_ask_encode(re, seq, name) == 0 && cred_value_ask_decode(re, &seq2, &name2) == 0);
		check(seq == seq2 && strcmp(name, name2) == 0);
		break;
	case 1:
		if (cred_approve_ask_decode(b, &seq, &q) < 0)
			break;
		req_ok(&q);
		check(cred_approve_ask_encode(re, seq, &q) == 0 && cred_approve_ask_decode(re, &seq2, &q2) == 0);
		check(seq == seq2 && cred_req_equal(&q, &q2));
		break;
	case 2:
		if (cred_value_reply_decode(b, &v) < 0)
			break;
		check(strlen(v.reason) <= CRED_REASON_MAX);
		check(cred_value_reply_encode(re, &v) == 0 && cred_value_reply_decode(re, &v2) == 0);
		check(v.seq == v2.seq && v.ok == v2.ok && v.lifetime_ms == v2.lifetime_ms &&
		      !strcmp(v.reason, v2.reason));
		break;
	case 3:
		if (cred_decision_decode(b, &d) < 0)
			break;
		req_ok(&d.req);
		check(strlen(d.id) == CRED_ID_LEN && strspn(d.id, "0123456789abcdef") == CRED_ID_LEN);
		check(cred_decision_encode(re, &d) == 0 && cred_decision_decode(re, &d2) == 0);
		check(d.seq == d2.seq && d.allow == d2.allow && cred_req_equal(&d.req, &d2.req) &&
		      !strcmp(d.id, d2.id) && !strcmp(d.reason, d2.reason) && !strcmp(d.outcome, d2.outcome));
		break;
	}
	free(name);
	free(name2);
	cred_req_done(&q);
	cred_req_done(&q2);
	cred_value_reply_done(&v);
	cred_value_reply_done(&v2);
	cred_decision_done(&d);
	cred_decision_done(&d2);
	msgbuf_free(b);
	msgbuf_free(re);
	return 0;
}
