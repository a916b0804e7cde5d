/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The trust file: OpenSSH's allowed_signers format, read strictly. Each
 * line: principals, options, key type, base64 key. Principals are exact
 * names (a pattern or a negation is refused); options are namespaces="...",
 * valid-after="..." and valid-before="..." only (cert-authority and any
 * other refused). Any line cordon cannot read refuses the whole file.
 */
#include <stdint.h>
#include <time.h>

#include "cordon/common.h"

#define ALLOWED_SIGNERS_MAX_BYTES (64 * 1024)
#define ALLOWED_SIGNERS_MAX_ENTRIES 256

struct allowed_signer {
	char **principals;
	char **namespaces; /* NULL: the option was absent */
	int64_t valid_after; /* 0: no bound */
	int64_t valid_before;
	uint8_t *key;
	size_t key_len;
	unsigned line;
};

struct allowed_signers {
	struct allowed_signer *v;
	size_t n;
};

void allowed_signers_free(struct allowed_signers *s);

/* Parse text; -EBADMSG with "line N: why" in reterr. An empty file (no
 * entries) parses; trust_check refuses it. */
int allowed_signers_parse(const char *text, size_t len, struct allowed_signers **ret, struct cordon_error *reterr);

/* 0 if an entry names exactly principal, has the key blob, lists namespace
 * and is valid at now; else -EKEYREJECTED and the reason. */
int allowed_signers_check(const struct allowed_signers *s, const char *principal, const uint8_t *key, size_t key_len,
			  const char *namespace, time_t now, struct cordon_error *reterr);
