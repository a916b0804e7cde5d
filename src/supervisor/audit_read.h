/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Reading and verifying an audit log (audit.h has the format). The file is
 * untrusted: its size, each line and the number of records are capped
 * (the writer's own caps, so a file over one was not written by cordon),
 * and every record is checked against the chain as it is read.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "audit.h"

enum audit_state {
	AUDIT_INTACT,	  /* every line chains, and session_end closes it */
	AUDIT_INCOMPLETE, /* every line chains, but the end is missing or cut */
	AUDIT_TAMPERED,	  /* a line was edited, inserted, deleted or reordered */
};

const char *audit_state_name(enum audit_state s);

struct audit_summary {
	enum audit_state state;
	uint64_t records;  /* lines that verified */
	uint64_t lines;	   /* lines read (a cut last line counts; after a bad line at most
			       AUDIT_MAX_UNVERIFIED more are) */
	uint64_t bad_line; /* 1-based: the first line that does not verify, else 0 */
	char why[256];	   /* what is wrong, or what is missing; "" when intact */
	char session[AUDIT_MAX_ID + 1];
	char started[32];      /* session_start's time */
	char profile[128];     /* session_start's profile */
	char head[SHA256_HEX]; /* SHA-256 of the last line that verified */
	char head_key[ED25519_PUB_HEX]; /* session_start's: the key the end is signed with; "" if none */
};

/* The checks on one line after another. */
struct audit_chain {
	uint64_t seq;	       /* the next line's expected seq */
	char prev[SHA256_HEX]; /* the next line's expected prev */
	char session[AUDIT_MAX_ID + 1];
	bool ended; /* session_end seen */
};

/* expect_session: the id the records must carry (the file's name); NULL:
 * the first record's. */
void audit_chain_init(struct audit_chain *c, const char *expect_session);

/*
 * Check line (len bytes, no newline) as the next record: 0 and, when
 * ret_record is not NULL, the parsed record (caller json_decref's); or
 * -EBADMSG with what is wrong in why.
 */
int audit_chain_next(struct audit_chain *c, const char *line, size_t len, json_t **ret_record, char *why, size_t n);

/* The lines after the first bad one that are still read (and handed over,
 * unverified). */
#define AUDIT_MAX_UNVERIFIED 10000

/* Called for each line that parses as a JSON object, in order; verified:
 * it and every line before it checked out. A negative return stops the
 * scan with that error. */
typedef int (*audit_record_fn)(void *userdata, uint64_t line, json_t *record, bool verified);

/*
 * Verify a whole log held in buf (len bytes) and summarise it; records
 * (may be NULL) sees each record. 0 with the verdict in *ret (a tampered
 * log is a verdict, not an error), or the callback's error.
 */
int audit_scan(const char *buf, size_t len, const char *expect_session, audit_record_fn records, void *userdata,
	       struct audit_summary *ret);

/*
 * The same for the regular file open at fd: read whole, at most
 * AUDIT_MAX_FILE_BYTES (a larger file is a tampered verdict, unread).
 * -EINVAL when fd is not a regular file; -errno when it cannot be read.
 */
int audit_scan_fd(int fd, const char *expect_session, audit_record_fn records, void *userdata,
		  struct audit_summary *ret);

/* A stored signed head (<session>.head, audit.h): the JSON object the
 * supervisor writes, at most AUDIT_HEAD_FILE_MAX bytes. */
struct audit_signed_head {
	char head[SHA256_HEX];
	char key[ED25519_PUB_HEX];
	char sig[ED25519_SIG_HEX];
};
/* 0 and *ret when buf (len bytes) is one for session (lower-case hex of
 * the right lengths), else -EBADMSG (nothing is checked cryptographically
 * here: audit_head_verify does). */
int audit_head_parse(const char *buf, size_t len, const char *session, struct audit_signed_head *ret);
/* 0 when h's signature verifies under its key over session and its head
 * (audit_head_message), -EBADMSG when it does not, -ENOMEM. */
int audit_head_verify(const struct audit_signed_head *h, const char *session);

/* The session a file name says (name without the directory and .jsonl),
 * into id; false when the name is not <session id>.jsonl. */
bool audit_session_of(const char *path, char id[AUDIT_MAX_ID + 1]);
