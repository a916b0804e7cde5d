/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The library's error carrier: a failure's reason into a caller's struct
 * cordon_error (cordon/common.h), beside the -errno it returns. */

#include "cordon/common.h"

/* Fill reterr (may be NULL) with a formatted message; returns r (a -errno). */
int error_set(struct cordon_error *reterr, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Put a formatted prefix before the reason a callee left in reterr (may be
 * NULL): the message becomes "<prefix>: <reason>" (just "<prefix>" when the
 * callee left none), cut to fit; the other fields stay. Returns r. */
int error_prefix(struct cordon_error *reterr, int r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
