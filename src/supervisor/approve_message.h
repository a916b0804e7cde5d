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
#define WEBHOOK_REQUEST_VERSION	 1

/* The webhook's JSON body, compact, in a fixed key order. created and
 * expires are Unix times in ms. */
int webhook_body(const struct approval_request *req, uint64_t created_ms, uint64_t expires_ms, char **ret);
/* "sha256=" and the hex HMAC-SHA256 of body under key. */
int webhook_signature(const void *key, size_t key_len, const char *body, size_t len, char out[WEBHOOK_SIGNATURE_SIZE]);
/*
 * A 2xx answer's body: a JSON object echoing request_id and digest, with
 * "decision": "allow" or "deny" and an optional string "reason". 0 with
 * *ret_allow and the (printable) reason, or -EBADMSG with why in reason.
 * More than WEBHOOK_RESPONSE_MAX bytes: -EMSGSIZE.
 */
int webhook_response_parse(const char *body, size_t len, const char *request_id, const char *digest, bool *ret_allow,
			   char *reason, size_t reason_size);

/* Is s exactly n lower-case hex digits? */
bool is_lower_hex(const char *s, size_t n);
