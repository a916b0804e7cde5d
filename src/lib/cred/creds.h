/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A profile's credentials and credential_capture (issue 23), compiled: what
 * the supervisor holds, what each consumer's phantom looks like, where the
 * value may be spent. Never a value: a source says where the supervisor
 * reads it (env://, file://, cmd://). Built once by the loader
 * (profile_read_creds.c reads, profile_resolve_creds.c checks names against
 * command_policies and compiles), owned by the profile's struct
 * cordon_tools, read-only after that. creds.c: the data's lifetime, the
 * phantom shape's grammar, lookups and the JSON `profile show` prints.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "profile.h"
#include "tool_place.h"

/* Caps (a profile is untrusted input). */
#define CREDS_MAX 64              /* credentials, and captures */
#define CREDS_NAME_MAX 64
#define CREDS_MAX_HOSTS 64
#define CREDS_MAX_GRANTS 64
#define CREDS_MAX_RULES 256       /* endpoint rules of one credential */
#define CREDS_FORMAT_MAX 256
#define CREDS_SHAPE_MAX 512       /* a phantom's whole length */
#define CREDS_PHANTOM_MIN_BITS 128
#define CREDS_CAPTURE_WORDS 64
#define CREDS_CAPTURE_TIMEOUT_MAX_USEC (300ull * 1000000)
#define CREDS_CAPTURE_TTL_MAX_USEC (7ull * 24 * 3600 * 1000000)

enum cred_source {
	CRED_SOURCE_ENV,          /* env://VAR: cordon's own environment, read once */
	CRED_SOURCE_FILE,         /* file://PATH: read by the supervisor; hidden from every sandbox */
	CRED_SOURCE_CMD,          /* cmd://NAME: a capture */
};

enum cred_inject {
	CRED_INJECT_HEADER,       /* header + format "... {} ..." */
	CRED_INJECT_BASIC,        /* Authorization: Basic user:value */
	CRED_INJECT_QUERY,        /* a query parameter */
};

/* The random part of a phantom (credtable.h's alphabets, same order). */
enum cred_alphabet {
	CRED_ALPHA_BASE62,        /* A-Z a-z 0-9 */
	CRED_ALPHA_HEX,           /* 0-9 a-f */
	CRED_ALPHA_BASE64URL,     /* base62 - _ */
	CRED_ALPHA_ALNUM_LOWER,   /* a-z 0-9 */
	_CRED_ALPHAS,
};

enum cred_action {
	CRED_DENY,
	CRED_APPROVE,
	CRED_ALLOW,
};

/* A phantom's declared shape: prefix{N} or prefix{N:alphabet}. */
struct cred_shape {
	char *prefix;
	uint32_t len;
	enum cred_alphabet alphabet;
};

struct cred_rule {
	enum cred_action action;
	char *method;             /* upper case, or "*" */
	char *path;               /* "/..." glob: "*" one segment, "**" any */
	char *reason;             /* NULL: none written */
	char *backend;            /* approve: NULL for the credential policy's */
	struct tool_place place;
};

struct cred_policy {
	bool set;                 /* endpoint_policy written; else everything is allowed */
	enum cred_action default_action;
	struct cred_rule *rules;  /* deny, then approve, then allow: the order they are tried */
	size_t n_rules;
	struct tool_place place;
};

struct tool_cred {
	char *name;
	enum cred_source source;
	char *source_ref;         /* the variable, the canonical path, or the capture's name */
	char **hosts;             /* lower case; never NULL */
	enum cred_inject inject;
	char *inject_name;        /* the header, the basic user, the query parameter */
	char *format;             /* header: with one "{}"; NULL otherwise */
	char *phantom_env;
	struct cred_shape shape;
	char **grant_to;          /* "session" and/or "cmd.NAME"; never NULL, never empty */
	struct cred_policy policy;
	char *tls_ca, *tls_client_cert, *tls_client_key; /* canonical paths; NULL: none */
	struct tool_place place;
};

struct tool_capture {
	char *name;
	char **command;           /* argv; [0] absolute or looked up on PATH */
	uint64_t timeout_usec, ttl_usec;
	char **read;              /* canonical paths it may read; never NULL */
	enum profile_net net;     /* default none */
	char **net_rules[PROFILE_NET_RULE_KINDS]; /* never NULL */
	struct tool_place place;
};

struct tool_creds {
	struct tool_cred *v;      /* sorted by name */
	size_t n;
	struct tool_capture *captures; /* sorted by name */
	size_t n_captures;
};

/* creds.c */
struct tool_creds *tool_creds_free(struct tool_creds *c);
void tool_cred_clear(struct tool_cred *c);
void tool_capture_clear(struct tool_capture *c);
const struct tool_cred *tool_creds_find(const struct tool_creds *c, const char *name);
const struct tool_capture *tool_creds_capture(const struct tool_creds *c, const char *name);
/* Is consumer ("session" or a command's name) among c's grant_to? */
bool tool_cred_granted(const struct tool_cred *c, const char *consumer);
/* Why a consumer may not set a trust variable (policy_trust_env): the
 * arguments are the variable, the consumer, the variable, the credential,
 * the variable. */
#define CRED_TRUST_VAR_REFUSED                                                                          \
	"refusing to set %s for %s: cordon points %s at the session's trust bundle for consumers of "   \
	"credential %s (the host's roots and the session CA its proxy intercepts with), so a value of " \
	"your own would never be in force; for an upstream's private CA give the credential tls.ca, "    \
	"or set %s only where no credential is granted"
/* The same for a sandbox that is no consumer but whose network is the
 * proxy: its proxy intercepts every credential's hosts (with a table that
 * grants nothing), so the runner points it at the bundle too. %s: the
 * name, the sandbox, the name, a credential, the name. */
#define CRED_TRUST_VAR_INTERCEPTED                                                                      \
	"refusing to set %s for %s: its network is cordon's proxy, which intercepts the hosts of this " \
	"session's credentials (%s among them) with the session CA, so cordon points %s at the "      \
	"session's trust bundle and a value of your own would never be in force; set %s only in a "    \
	"sandbox whose network is not the proxy"
/* -EPERM, saying why, if name is a trust variable and some credential of c
 * is granted to consumer ("session" or a command's name); else 0. */
int tool_creds_check_trust_var(const struct tool_creds *c, const char *consumer, const char *name,
			       struct cordon_error *reterr);
/* -EPERM, saying why (CRED_TRUST_VAR_INTERCEPTED), if name is a trust
 * variable and c holds any credential: for a sandbox on the proxy. */
int tool_creds_check_trust_var_intercepted(const struct tool_creds *c, const char *sandbox, const char *name,
					   struct cordon_error *reterr);

/* The alphabet's name and characters. */
const char *cred_alphabet_name(enum cred_alphabet a);
const char *cred_alphabet_chars(enum cred_alphabet a);
/* Parse "prefix{N}" or "prefix{N:alphabet}" (pure): the prefix printable
 * ASCII without braces, N from 1, the whole at most CREDS_SHAPE_MAX; the
 * alphabet base62 unless named. reterr gets a sentence on -EINVAL. The caller
 * checks the randomness (cred_shape_bits). */
int cred_shape_parse(const char *s, struct cred_shape *ret, struct cordon_error *reterr);
void cred_shape_clear(struct cred_shape *s);
/* Bits of randomness the shape carries (rounded down). */
unsigned cred_shape_bits(const struct cred_shape *s);

const char *cred_source_scheme(enum cred_source s);
const char *cred_action_name(enum cred_action a);

/* The credentials as `profile show` prints them: every key but a value
 * (there is none here) and the phantoms (made at session start). */
struct json_t;
int tool_creds_to_json(const struct tool_creds *c, struct json_t **ret_credentials,
		       struct json_t **ret_captures);
