/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The credential substituter: one request inside an intercepted tunnel to
 * a credential host, decided and rewritten. Pure (no I/O), bounded; the
 * fuzz target's entry.
 *
 * A request is refused (403, never forwarded) when:
 *   - its Host is not the tunnel's host, or it has none or two;
 *   - it asks for another method (X-HTTP-Method-Override, X-HTTP-Method,
 *     X-Method-Override, a `_method` query parameter) or an Upgrade;
 *   - any header (name or value) or the target holds a real value, a
 *     phantom of another consumer of this session, or a string of a
 *     distinctive phantom shape that is none of this sandbox's phantoms
 *     (a phantom of another session): credential-not-granted;
 *   - it holds one of this sandbox's phantoms anywhere but the credential's
 *     declared place (the inject header; the password of Authorization:
 *     Basic for a basic credential; the query parameter for a query one),
 *     or for a credential whose hosts do not include this one:
 *     credential-not-granted;
 *   - a credential is spent and its endpoint policy (on the method and the
 *     canonical path; an ambiguous path is refused) says deny.
 * It is held, not forwarded, when a credential is spent and its policy says
 * approve (SUBST_ASK_APPROVAL: the caller asks the supervisor, then decides
 * the same request again with out->approved), or its value is not here yet
 * (SUBST_ASK_VALUE: a capture's, asked for on its first use).
 * Otherwise it is rewritten: origin-form, Host, no hop-by-hop headers,
 * Accept-Encoding: identity (so responses can be scrubbed), the inject
 * header overwritten with its format around the real value (or the Basic
 * value, or the query parameter's value), as pieces: a secret piece points
 * into secure memory and is never copied into a plain string here.
 */

#include <stdbool.h>
#include <stddef.h>

#include "credtable.h"
#include "cred_endpoint.h"
#include "http_head.h"

/* What the proxy derives from a table once: per credential, the Basic
 * forms (base64 of "user:value" and of "user:phantom") in secure memory. */
struct subst_creds {
	const struct credtable *t;
	struct credtable_secret *basic_real;     /* [n_creds]: base64(user:value), basic credentials */
	char **basic_phantom;                    /* [n_creds]: base64(user:first phantom), or NULL */
};

int subst_creds_init(struct subst_creds *sc, const struct credtable *t);
void subst_creds_done(struct subst_creds *sc);

struct subst_piece {
	const char *p;
	size_t n;
	bool secret;                    /* p is in secure memory */
};

#define SUBST_PIECES_MAX (4 * HTTP_HEADERS_MAX + 32)

struct subst_out {
	struct subst_piece piece[SUBST_PIECES_MAX];
	size_t n;
	/* a refusal: the status, a reason token (static), a detail */
	int status;
	const char *reason;
	char detail[256];
	/* the credential spent (NULL: none) and the rule that allowed it */
	const struct credtable_cred *cred;
	const struct credtable_rule *rule;
	enum credtable_action action;
	char path[ENDPOINT_PATH_MAX + 1];  /* canonical, for the audit line */
	char host_line[300];
	/* in: the supervisor approved this very request (the caller checks
	 * that cred, method and path are the ones it asked about) */
	bool approved;
};

#define SUBST_ASK_APPROVAL 1
#define SUBST_ASK_VALUE 2

/* base64(user ":" p[0..n)) into secure memory (a basic credential's form). */
int subst_basic_secret(const char *user, const unsigned char *p, size_t n, struct credtable_secret *ret);

/* Decide and rewrite the request head h (parsed from the tunnel with
 * http_head_parse_origin) sent to host (the CONNECT host, lower case) on
 * port. 0: forward out->piece[0..n) (they point into h's buffer, sc's
 * secrets, out itself and static strings). -1: refuse with out->status,
 * reason and detail. SUBST_ASK_*: hold it (out->cred, action, rule and
 * path say what for). */
int subst_request(const struct subst_creds *sc, const char *host, unsigned port, const struct http_head *h,
		  struct subst_out *out);
