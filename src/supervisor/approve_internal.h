/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What approve.c, approve_terminal.c and approve_webhook.c share, and the
 * pure pieces (approve_text.c, approve_message.c) the unit tests and the
 * fuzz target reach. */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approve.h"
#include "crypto.h"
#include "secret.h"

/* A webhook's answer is read into memory up to this size, never further. */
#define WEBHOOK_RESPONSE_MAX (64 * 1024)
/* "sha256=" and 64 hex digits, with the NUL */
#define WEBHOOK_SIGNATURE_SIZE	 (7 + SHA256_HEX)
#define WEBHOOK_SIGNATURE_HEADER "X-Cordon-Signature"
#define WEBHOOK_REQUEST_TYPE	 "cordon.approval_request"
#define WEBHOOK_REQUEST_VERSION	 1

/* The terminal shows at most this much of an argv (the digest binds all of it). */
#define TERMINAL_ARGV_SHOWN (8 * 1024)

struct approval_entry {
	char name[APPROVAL_NAME_MAX + 1];
	enum approval_type type;
	uint64_t timeout_ms;
	bool default_allow;
	char *url;
	char *secret_env;
	struct secret *key;
	bool chain_all;
	size_t members[APPROVAL_MEMBERS_MAX]; /* indexes into approvals.v */
	size_t n_members;
};

struct approvals {
	struct approval_entry *v;
	size_t n;
	/* one terminal prompt at a time */
	pthread_mutex_t terminal_lock;
	/* approvals_set_terminal_hold; called with terminal_lock held */
	approval_hold hold;
	void *hold_ctx;
};

/* CLOCK_MONOTONIC and CLOCK_REALTIME in milliseconds. */
uint64_t approve_now_ms(void);
uint64_t approve_wall_ms(void);

/* Fill *r. The reason is formatted as is: what an attacker may have
 * written (a webhook's answer, a path) is passed through escape_printable
 * first. */
void approval_result_set(struct approval_result *r, enum approval_outcome o, bool allow, const char *backend,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Each asks e about req, deciding by deadline_ms (approve_now_ms's clock) at
 * the latest, and fills *ret. */
void terminal_ask(struct approvals *a, const struct approval_entry *e, const struct approval_request *req,
		  uint64_t deadline_ms, struct approval_result *ret);
void webhook_ask(const struct approval_entry *e, const struct approval_request *req, uint64_t deadline_ms,
		 struct approval_result *ret);

/* approve_text.c: pure. */

/*
 * s[0..n) into out[0..size) as printable ASCII: every byte outside 0x20..0x7e
 * becomes \xNN (\t \n \r \e as such), '\\' and '"' get a backslash. So no
 * argument can move the cursor, clear the screen or draw a line of its own.
 * Cut at a whole escape, with "..." after, when out is too small. The
 * return is the length written.
 */
size_t escape_printable(const char *s, size_t n, char *out, size_t size);

/*
 * The terminal's prompt: what is asked (backend, caller, command, argv,
 * cwd, digest) in *ret_info and the question in *ret_question, both
 * printable but for their line ends. The caller frees both.
 */
int terminal_prompt(const char *backend, const struct approval_request *req, uint64_t timeout_ms, bool default_allow,
		    char **ret_info, char **ret_question);
/* Is line (as read from the terminal, with its line end) an explicit "yes"? */
bool terminal_answer_is_yes(const char *line, size_t n);

/* approve_message.c: pure but for the HMAC. */

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
