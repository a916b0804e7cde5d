/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What an approval is, below everything that asks one (approve_record.c):
 * the request, the result and its outcome, the checked backends, the
 * clocks. approve.c and the channels (approve_terminal.c,
 * approve_webhook.c) use it; it calls none of them. */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "secret.h"

/* Caps on what a profile may describe. */
#define APPROVAL_NAME_MAX     127 /* bytes, so a name fits approval_result.backend */
#define APPROVAL_BACKENDS_MAX 64  /* reachable from one session */
#define APPROVAL_MEMBERS_MAX  16  /* in one chain */
#define APPROVAL_TIMEOUT_MAX  (24ull * 3600 * 1000)
#define APPROVAL_URL_MAX      2048
#define APPROVAL_KEY_MAX      4096 /* bytes of a webhook key */

/* See approvals_set_terminal_hold (approve.h). */
typedef void (*approval_hold)(void *ctx, bool on);

struct approval_request {
	const char *request_id; /* 32 lower-case hex digits, random */
	const char *session;
	const char *caller;
	const char *command;
	const char *const *argv;	  /* the raw argv: the terminal shows it, escaped */
	const char *const *argv_redacted; /* what a webhook is sent: every word (redact_argv_full) */
	const char *const *env;		  /* NAME=VALUE as the tool is passed them: the terminal shows them */
	const char *const *env_redacted;  /* the same, redacted: what a webhook is sent */
	const char *cwd;
	uint64_t cwd_dev, cwd_ino; /* the working directory as it was checked */
	const char *policy;	   /* 64 hex: the SHA-256 of the resolved profile, the tool's sandbox in it */
	/* 64 lower-case hex digits: the SHA-256 of the exact action (all of the
	 * above that changes what runs), computed by the caller; a webhook's
	 * answer must echo it */
	const char *digest;
};

/*
 * What happened. A terminal that cannot ask (no controlling terminal, not
 * in the foreground, end of input) applies its default as if answered:
 * GRANTED or DENIED, with the reason saying so.
 */
enum approval_outcome {
	APPROVAL_GRANTED, /* allowed: an explicit yes, or a terminal's default allow */
	APPROVAL_DENIED,  /* denied: an explicit no, or a terminal's default deny */
	APPROVAL_TIMEOUT, /* no answer in time: a terminal's default, or deny */
	APPROVAL_ERROR,	  /* no valid answer (a webhook's status, body or transport was wrong): deny */
};

struct approval_result {
	enum approval_outcome outcome;
	/* The decision to act on: true for GRANTED, and for TIMEOUT from a
	 * terminal whose default is allow; false otherwise. */
	bool allow;
	char backend[APPROVAL_NAME_MAX + 1]; /* the backend that decided: a chain names its member */
	char reason[256];		     /* printable ASCII, one line */
};

/* "granted", "denied", "timeout" or "error". */
const char *approval_outcome_name(enum approval_outcome o);

/* One backend, checked (approvals_new, approve.c). */
struct approval_entry {
	char name[APPROVAL_NAME_MAX + 1];
	enum cordon_approval_type type;
	uint64_t timeout_ms;
	bool default_allow;
	char *url;
	char *secret_env;
	struct secret *key;	   /* signs requests */
	char *answer_env;
	struct secret *answer_key; /* checks answers: another key */
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
