/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * `cordon why --host H --path P --method M [--command C]` (cred_why.c):
 * what the proxy of consumer C's sandbox does with a request M P to H,
 * decided as the proxy decides it (the credentials' hosts and grants, the
 * path canonicalised and the endpoint policy by credproxy's matcher,
 * endpoint.h), naming the credential and the rule. Pure.
 */
#include <stdbool.h>

#include "cordon/cordon.h"

enum cred_why_verdict {
	CRED_WHY_TUNNEL,       /* no credential is spent at H: not intercepted */
	CRED_WHY_NOT_GRANTED,  /* H is a credential host; none granted to C */
	CRED_WHY_REFUSED,      /* the path is ambiguous or malformed: 403 */
	CRED_WHY_DENY,
	CRED_WHY_APPROVE,
	CRED_WHY_ALLOW,        /* the phantom is swapped for the value */
};

struct cred_why_answer {
	enum cred_why_verdict verdict;
	char credential[65];
	char file[256];
	char pointer[256];
	int line;
	char reason[512];
	char backend[65];      /* approve */
};

/* consumer: "session" or a command's name. -ENOENT (t has no
 * credentials), -EINVAL (an empty host or method). */
int cred_why(const struct cordon_tools *t, const char *consumer, const char *host, const char *method,
	     const char *target, struct cred_why_answer *ret);
const char *cred_why_verdict_name(enum cred_why_verdict v);

/* The same decision for credential cred spent by consumer at host (a
 * proxy's request, named by the proxy: -EPERM when cred is not granted to
 * consumer or not spent at host). */
int cred_why_spent(const struct cordon_tools *t, const char *cred, const char *consumer, const char *host,
		   const char *method, const char *target, struct cred_why_answer *ret);
