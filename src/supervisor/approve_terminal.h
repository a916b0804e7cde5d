/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The terminal backend (approve_terminal.c). */

#include "approve_record.h"

/* Ask e about req on the controlling terminal, deciding by deadline_ms
 * (approve_now_ms's clock) at the latest, and fill *ret. */
void terminal_ask(struct approvals *a, const struct approval_entry *e, const struct approval_request *req,
		  uint64_t deadline_ms, struct approval_result *ret);
