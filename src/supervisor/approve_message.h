/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The webhook's messages (approve_message.c): pure but for the HMAC; the
 * unit tests and the fuzz target drive them. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approve_record.h"
#include "crypto.h"

/* A webhook's answer is read into memory up to this size, never further. */
#define WEBHOOK_RESPONSE_MAX (64 * 1024)
/* "sha256=" and 64 hex digits, with the NUL */
#define WEBHOOK_SIGNATURE_SIZE	 (7 + SHA256_HEX)
#define WEBHOOK_SIGNATURE_HEADER "X-Cordon-Signature"
#define WEBHOOK_REQUEST_TYPE	 "cordon.approval_request"
#define WEBHOOK_REQUEST_VERSION	 2
/* A webhook's url: https://... or unix:/PATH (a socket on this host) */
#define WEBHOOK_UNIX_PREFIX "unix:"
/* What an answer's MAC covers starts with this line. */
#define WEBHOOK_ANSWER_CONTEXT "cordon.approval_answer.v1"

/* The webhook's JSON body, compact, in a fixed key order. created and
 * expires are Unix times in ms. */
int webhook_body(const struct approval_request *req, uint64_t created_ms, uint64_t expires_ms, char **ret);
/* "sha256=" and the hex HMAC-SHA256 of body under key. */
int webhook_signature(const void *key, size_t key_len, const char *body, size_t len, char out[WEBHOOK_SIGNATURE_SIZE]);
/*
 * The answer's MAC, 64 hex digits: HMAC-SHA256 under the answer key (never
 * the request key) of
 *   "cordon.approval_answer.v1\n" request_id "\n" digest "\n" decision "\n"
 *   expires_ms (decimal)
 * where decision is "allow" or "deny".
 */
int webhook_answer_mac(const void *key, size_t key_len, const char *request_id, const char *digest, bool allow,
		       uint64_t expires_ms, char out[SHA256_HEX]);

/* What a valid answer must match. */
struct webhook_expect {
	const char *request_id; /* the request's */
	const char *digest;
	uint64_t expires_ms; /* the request's expiry: an answer holds no longer */
	uint64_t now_ms;     /* wall clock, Unix ms: an answer expired by then denies */
	const void *key;     /* the answer key */
	size_t key_len;
};

/*
 * A 2xx answer's body: a JSON object echoing request_id and digest, with
 * "decision": "allow" or "deny", "expires_ms" (Unix ms, after now and no
 * later than the request's expires_ms), "mac" (webhook_answer_mac under
 * the answer key) and an optional string "reason". 0 with *ret_allow and
 * the (printable) reason, or -EBADMSG with why in reason: an answer for
 * another request, a bad or missing MAC, or an expired one decides
 * nothing. More than WEBHOOK_RESPONSE_MAX bytes: -EMSGSIZE.
 */
int webhook_response_parse(const char *body, size_t len, const struct webhook_expect *want, bool *ret_allow,
			   char *reason, size_t reason_size);

/* Is s exactly n lower-case hex digits? */
bool is_lower_hex(const char *s, size_t n);
