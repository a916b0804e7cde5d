/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a credential capture printed (capture_output.c), read in place: the
 * bytes are the caller's (secure memory, for the supervisor), never copied;
 * a JSON string's escapes are undone where it lies. Pure and bounded.
 *
 *   stdout trimmed            the value (one line, no control character)
 *   {"token": "...",          the value, and its expiry: RFC 3339
 *    "expires_at": ...}       ("2026-12-07T02:00:00Z", an offset, a
 *                             fraction) or epoch seconds (a number or a
 *                             string of digits); other keys are ignored
 *
 * An empty value, a second line, a control character, a value already
 * expired, a malformed object: -EINVAL with the reason in reterr (which
 * never quotes the
 * output: it may be the secret).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/common.h"

#define CAPTURE_OUTPUT_MAX (64 * 1024)
#define CAPTURE_VALUE_MAX (16 * 1024)

struct capture_value {
	size_t off, len;       /* the value: buf[off, off + len) after the call */
	bool has_expiry;
	int64_t expires_at;    /* epoch seconds, when has_expiry */
};

/* buf[0..n) (modified in place: escapes undone). -E2BIG past
 * CAPTURE_OUTPUT_MAX or a value past CAPTURE_VALUE_MAX; -EINVAL. */
int capture_output_parse(char *buf, size_t n, struct capture_value *ret, struct cordon_error *reterr);
/* RFC 3339 date-time s[0..n) to epoch seconds (fraction dropped). */
int capture_parse_rfc3339(const char *s, size_t n, int64_t *ret);
