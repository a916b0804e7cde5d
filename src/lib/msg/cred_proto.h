/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The credential channel's messages: what one sandbox's proxy asks the
 * supervisor, and what comes back. One socket per proxy (its credential
 * table arrives on it first), so the socket is the identity: the supervisor
 * knows whose proxy speaks and decides for that consumer only. Frames are
 * msgframe.h's; this is the one codec of their bodies, for both ends and the
 * fuzz target. Every decode is bounded and refuses trailing bytes: a peer
 * whose frame does not decode is dropped.
 *
 *   proxy -> supervisor
 *     CRED_MSG_VALUE_ASK     u32 seq, cred: the value of a credential granted
 *                            here (a capture runs when it has none or its
 *                            lifetime ended)
 *     CRED_MSG_APPROVE_ASK   u32 seq, cred, host, method, path (canonical,
 *                            no query): may this request spend it?
 *   supervisor -> proxy
 *     CRED_MSG_VALUE         u32 seq, u8 ok, u64 lifetime_ms (0: for ever),
 *                            reason; when ok, with one fd: a pipe holding the
 *                            value and nothing else (so the value never sits
 *                            in a frame's plain buffer)
 *     CRED_MSG_DECISION      u32 seq, u8 allow, id (32 hex: the supervisor's
 *                            request id), outcome, reason, then the request
 *                            it decided again (cred, host, method, path):
 *                            the proxy applies it only to that request
 */

#include <stdbool.h>
#include <stdint.h>

#include "msgbuf.h"

enum cred_msg {
	CRED_MSG_VALUE_ASK = 1,
	CRED_MSG_APPROVE_ASK = 2,
	CRED_MSG_VALUE = 0x81,
	CRED_MSG_DECISION = 0x82,
};

#define CRED_MSG_MAX 8192          /* body bytes of one frame (the channel's reader cap) */
#define CRED_NAME_MAX 128          /* a credential's name */
#define CRED_HOST_MAX 255
#define CRED_METHOD_MAX 32
#define CRED_PATH_MAX 2048
#define CRED_REASON_MAX 512
#define CRED_ID_LEN 32             /* hex digits of a request id */
#define CRED_VALUE_MAX (64 * 1024) /* bytes of a value in its pipe */

/* The request an approval is about (and a decision names again). */
struct cred_req {
	char *cred, *host, *method, *path;
};

struct cred_decision {
	uint32_t seq;
	bool allow;
	char *id, *outcome, *reason;
	struct cred_req req;
};

struct cred_value_reply {
	uint32_t seq;
	bool ok;
	uint64_t lifetime_ms;
	char *reason;
};

int cred_value_ask_encode(struct msgbuf *b, uint32_t seq, const char *cred);
int cred_value_ask_decode(struct msgbuf *b, uint32_t *ret_seq, char **ret_cred);

int cred_approve_ask_encode(struct msgbuf *b, uint32_t seq, const struct cred_req *q);
int cred_approve_ask_decode(struct msgbuf *b, uint32_t *ret_seq, struct cred_req *ret);

int cred_value_reply_encode(struct msgbuf *b, const struct cred_value_reply *v);
int cred_value_reply_decode(struct msgbuf *b, struct cred_value_reply *ret);

int cred_decision_encode(struct msgbuf *b, const struct cred_decision *d);
int cred_decision_decode(struct msgbuf *b, struct cred_decision *ret);

/* Are two requests the same (every field)? */
bool cred_req_equal(const struct cred_req *a, const struct cred_req *b);
void cred_req_done(struct cred_req *q);
void cred_decision_done(struct cred_decision *d);
void cred_value_reply_done(struct cred_value_reply *v);
