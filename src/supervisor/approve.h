/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Approvals (issue 13): asking a person or a service whether one tool
 * invocation may run. A session checks its backends once, at start
 * (approvals_new: a webhook's key is read then, and a session whose key is
 * missing does not start); the supervisor then asks from a worker thread
 * (approval_ask), which blocks for at most the backend's timeout.
 *
 *   terminal  the supervisor's controlling terminal (/dev/tty), never the
 *             agent's stdio; with no terminal the backend's default applies
 *             at once, so an unattended session never hangs.
 *   webhook   a signed JSON POST (libcurl); only a 2xx answer echoing the
 *             request id and digest decides, anything else denies.
 *   chain     members by name: "all" asks in order and stops at the first
 *             deny, "any" stops at the first grant.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approve_record.h"

/*
 * A backend is the profile's own description, struct cordon_approval_backend
 * (cordon/tools.h): approvals_new checks it (terminal and webhook timeouts
 * 1 ms .. APPROVAL_TIMEOUT_MAX, a chain's members and cap, a webhook's URL and
 * key variable). Its strings are borrowed: they must live until approvals_new
 * returns (which copies what it keeps).
 */
/* Fill *ret with the backend called name: 0, or -ENOENT if there is none. */
typedef int (*approval_lookup)(void *ctx, const char *name, struct cordon_approval_backend *ret);

struct approvals;

/*
 * Check every backend reachable from names (NULL-terminated) through
 * lookup: names (printable ASCII, no spaces), types, timeouts, URLs, chain
 * members (-ENOENT for an unknown one, -ELOOP for a chain that contains
 * itself, -E2BIG past the caps). Each webhook's key is read from
 * its secret_env now (missing or empty: -ENOKEY) and kept in locked memory
 * that is zeroed when freed. Errors carry one line in err (no "cordon: "
 * prefix). The caller owns *ret.
 */
int approvals_new(approval_lookup lookup, void *ctx, const char *const *names, struct approvals **ret, char *err,
		  size_t errlen);
/* Zeroes and frees the keys. NULL is fine; returns NULL. */
struct approvals *approvals_free(struct approvals *a);

/*
 * While a terminal prompt is up, hold(ctx, true) before it takes the
 * terminal and hold(ctx, false) after it gave it back: whatever else
 * reads the terminal (the session's relay of it into the agent's own
 * pseudo-terminal) pauses, so the answer's keys reach the prompt and
 * nothing else. Set once, before any approval_ask; NULL: nothing to hold.
 */
void approvals_set_terminal_hold(struct approvals *a, approval_hold hold, void *ctx);

/*
 * Ask backend (a name reachable from approvals_new's names) about req.
 * Blocking, for at most the backend's timeout; safe to call from several
 * threads at once. 0 with *ret filled for every decision, errors in asking
 * included (APPROVAL_ERROR); -ENOENT for an unknown backend, -EINVAL for a
 * malformed request.
 */
int approval_ask(struct approvals *a, const char *backend, const struct approval_request *req,
		 struct approval_result *ret);
