/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The tool sandbox's audit trail: one file per session,
 * <dir>/<session>.jsonl, one JSON object per line, each written with one
 * write(2) as it happens (O_APPEND), so a supervisor killed mid-session
 * loses nothing it had written.
 *
 * A record (compact JSON, keys sorted, ASCII only):
 *   v        format version, AUDIT_FORMAT_VERSION
 *   seq      0, 1, 2, ... in file order
 *   time     UTC with milliseconds, "2026-12-02T01:47:31.123Z"
 *   session  the session id (the file's name without .jsonl)
 *   event    session_start first, session_end last; in between what the
 *            supervisor decided and saw (allowed, denied, ...)
 *   prev     the SHA-256 (hex) of the previous line's bytes, without its
 *            newline; 64 zeros in the first record
 * and the event's own fields: call, caller, command, decision, rule,
 * reason, backend; argc, argv_sha256, argv_redacted (redact.h: never the
 * argv itself), env_names_sha256 and env_count, cwd_sha256 (hashes only:
 * names and paths may carry secrets); exit_code, signal, duration_ms;
 * stdin_bytes, stdout_bytes, stderr_bytes. session_start adds profile,
 * profile_file, workspace, pid, uid, cordon; session_end adds records.
 * argv and env names hash as sha256_strv_hex encodes them (crypto.h), the
 * cwd as its bytes.
 *
 * The chain: editing, inserting, deleting or reordering a line breaks the
 * next line's prev or the seq, which `cordon audit verify` reports. A
 * record does not carry a hash of itself: the chain is not keyed, so
 * whoever edits a line could recompute such a hash as easily as write the
 * line, and it would protect nothing the next record's prev does not.
 * What nothing after it protects, the last line and a log cut short
 * and rewritten whole, is what the head (the SHA-256 of the last line,
 * audit_head) is for: at the end it is signed with an Ed25519 key made
 * for the session in memory (never written; its public half is
 * session_start's head_key), over "cordon.audit_head.v1\n" SESSION "\n"
 * HEAD. The signed head is printed at the session's end and written to
 * <audit dir>-heads/<session>.head (hidden from every sandbox, like the
 * logs); `cordon audit verify` checks it, or the one given with --head,
 * --pubkey and --sig. A log without session_end is incomplete: the
 * supervisor was killed, or the end was cut off.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"

#define AUDIT_FORMAT_VERSION 1
/* Caps the writer keeps and the reader enforces, so a file over one was not
 * written by cordon. The redaction caps (redact.h) and the string cap
 * below keep the largest record under the line cap. */
#define AUDIT_MAX_LINE_BYTES (128u * 1024)
#define AUDIT_MAX_FILE_BYTES (64ull * 1024 * 1024)
#define AUDIT_MAX_RECORDS    1000000u
/* A free-text field (reason, rule, caller, ...), once escaped. */
#define AUDIT_MAX_TEXT_BYTES 1024
/* A session id: [A-Za-z0-9_-], not starting with '-', at most this long. */
#define AUDIT_MAX_ID 64
#define AUDIT_SUFFIX ".jsonl"
#define AUDIT_HEADS_SUFFIX "-heads" /* the signed heads' directory: <audit dir>-heads */
#define AUDIT_HEAD_SUFFIX  ".head"
#define AUDIT_HEAD_CONTEXT "cordon.audit_head.v1"
#define AUDIT_HEAD_FILE_MAX 4096 /* a .head file is read up to this */

struct audit_log;

struct audit_session {
	const char *session_id;	  /* audit_new_session_id's, or the caller's own */
	const char *profile;	  /* the profile's name */
	const char *profile_file; /* where it was loaded from; NULL: built in */
	const char *workspace;
};

/*
 * Start a session's log: dir (absolute), else $XDG_STATE_HOME/cordon/audit, else
 * ~/.local/state/cordon/audit (missing directories made 0700). The
 * directory, and cordon's own directory above it, must be owned by this
 * user and writable by no one else (-EPERM), and are opened without
 * following a symlink (-ELOOP), as is <session_id>.jsonl, created
 * new (-EEXIST if it exists) with mode 0600. Writes the session_start
 * record. Fields may be NULL except session_id.
 */
int audit_open(const char *dir, const struct audit_session *s, struct audit_log **ret);

struct audit_event {
	/* allowed, denied, invocation_denied, approve_granted, approve_denied,
	 * approve_timeout, exec_refused, exited, ...: [a-z0-9_], at most 32;
	 * session_start and session_end are the writer's own */
	const char *event;
	const char *call_id; /* correlates one tool call's records */
	const char *caller, *command, *decision, *rule, *reason, *backend;
	const char *const *argv;      /* RAW: only its SHA-256 and a redacted copy are written */
	const char *const *secret_flags; /* the tool's declared secret flags (redact.h); NULL: none */
	const char *const *env_names; /* only their SHA-256 and count */
	const char *cwd;	      /* only its SHA-256 */
	bool has_exit;
	int exit_code;
	int signal;
	uint64_t duration_ms;
	bool has_io;
	uint64_t stdin_bytes, stdout_bytes, stderr_bytes;
};

/*
 * Append one record, now: 0 once its one write(2) is done. Thread-safe.
 * Fails (and every later call fails the same: the caller refuses further
 * tool calls, failing closed) when the write fails (-errno) or is short
 * (-EIO: the line is cut, and verify calls the log incomplete), or when
 * the log would pass AUDIT_MAX_FILE_BYTES or AUDIT_MAX_RECORDS (-EFBIG;
 * room is kept for session_end). -EINVAL for a bad event name, without
 * harm to the log.
 */
int audit_write(struct audit_log *l, const struct audit_event *e);

/* The SHA-256 (hex) of the last line written: the chain's head. */
void audit_head(struct audit_log *l, char out[SHA256_HEX]);
/* The log's path (valid until audit_close). */
const char *audit_path(const struct audit_log *l);

/* A session_end record, fsync, close, free. NULL is fine. The first error,
 * the log is freed anyway. */
int audit_close(struct audit_log *l);
/* The same, and the final head (after session_end) into head when it is
 * not NULL and session_end was written: what the supervisor reports, so
 * that `cordon audit verify --head` can tell a log cut and closed again. */
int audit_close_head(struct audit_log *l, char head[SHA256_HEX]);

/* The end of a session's log, signed (audit.h's top comment). */
struct audit_seal {
	bool sealed; /* session_end written and the head signed: the rest is set */
	int stored;  /* 0: written to the heads directory too; else -errno */
	char session[AUDIT_MAX_ID + 1];
	uint64_t records;
	char head[SHA256_HEX];
	char pubkey[ED25519_PUB_HEX];
	char sig[ED25519_SIG_HEX];
};
/* The same as audit_close, and the seal into *ret (ret may be NULL). */
int audit_close_sealed(struct audit_log *l, struct audit_seal *ret);

/* What the head's signature covers, for session and head: caller frees. */
int audit_head_message(const char *session, const char *head, char **ret);
/* The signed heads' directory for an audit directory dir (NULL: the
 * default): caller frees. */
int audit_heads_dir_path(const char *dir, char **ret);

/* A new session id, "20261202T014731Z-1a2b3c4d" (UTC start time, 32
 * random bits) into buf (n >= 26). */
int audit_new_session_id(char *buf, size_t n);

/* Is s a session id (the file name's stem)? */
bool audit_valid_id(const char *s);

/* The audit directory: dir if not NULL, else the default above. Caller
 * frees. -ENOENT when neither XDG_STATE_HOME nor HOME is an absolute
 * path. */
int audit_dir_path(const char *dir, char **ret);
