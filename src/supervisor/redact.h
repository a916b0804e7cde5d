/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * An argv as the audit log and an approver show it: the words a person
 * needs to judge a call (`push origin main --force`), every value that may
 * be a secret replaced by "<redacted>", and nothing a terminal would act
 * on. Pure functions: no I/O, no state (redact.c lists the rules).
 */

#include <stdbool.h>
#include <stddef.h>

/* A hidden value: its length in bytes and the first 8 hex digits of its
 * SHA-256, "<redacted 7 bytes, sha256:e6c0b1d5>". */
#define REDACTED_FORMAT "<redacted %zu bytes, sha256:%.8s>"

/* The flags whose next word is a secret for every tool (names without
 * dashes, matched whole in any case, never by a part: --keyboard or
 * --passes hide nothing); a tool adds its own with secret_flags (matched
 * exactly). The next word is hidden only when it is not a flag itself:
 * `--password --force` shows --force (write --password=-secret). */
#define REDACT_SECRET_FLAGS                                                                                            \
	"password", "passwd", "passphrase", "token", "secret", "api-key", "api_key", "apikey", "access-token",        \
		"access_token", "auth-token", "client-secret", "client_secret", "private-key", "secret-key", "auth",   \
		"authorization", "credential", "credentials", "cookie", "bearer"

/* Caps on a redacted argv: the words kept (the rest are dropped; the
 * caller records the real count) and the bytes of each word once escaped
 * (a longer one is cut and ends in "..."). */
#define REDACT_MAX_WORDS      128
#define REDACT_MAX_WORD_BYTES 256

/* A run of base64/hex characters at least this long that looks random is
 * redacted (redact.c says what "looks random" means). */
#define REDACT_RANDOM_MIN_RUN 24

/* argv (NULL-terminated; NULL is empty) redacted word by word, escaped
 * and capped: a NULL-terminated vector of at most REDACT_MAX_WORDS valid,
 * printable UTF-8 words. Caller frees with strv_free. */
int redact_argv(const char *const *argv, char ***ret);
/* The same with the tool's own secret flags (NULL-terminated, with or
 * without their dashes: -p and p alike; NULL: the built-in ones only) and at most max_words
 * words (0: every word: what an approver is shown). */
int redact_argv_full(const char *const *argv, const char *const *secret_flags, size_t max_words, char ***ret);

/* One word on its own (after_secret_flag: it follows a flag like --token,
 * so it is redacted whole), escaped and capped at max bytes. Caller frees. */
int redact_word(const char *word, bool after_secret_flag, size_t max, char **ret);

/* len bytes of s as printable UTF-8 for a log or a terminal: a backslash
 * becomes \\, control characters, DEL and bytes that are not UTF-8 \xNN,
 * C1 controls and the bidirectional-text controls \uNNNN; at most max
 * bytes (>= 4), cut on a whole character or escape with "..." at the end.
 * Caller frees. */
int redact_escape(const char *s, size_t len, size_t max, char **ret);

/* The same without escaping backslashes: for showing text that is escaped
 * already (a log's fields) but may have been edited to hold what a
 * terminal acts on. */
int redact_terminal_safe(const char *s, size_t len, size_t max, char **ret);

/* Does a name (a flag's without its dashes, a header's, a URL query
 * parameter's) say that its value is a secret: token, secret, pass
 * (password, passwd, passphrase), key, auth (not author), credential,
 * cookie, bearer, signature, in any case? */
bool redact_secret_name(const char *name, size_t len);
