/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The webhook backend (approve_webhook.c). */

#include "approve_record.h"

/* Ask e about req with one signed POST, deciding by deadline_ms
 * (approve_now_ms's clock) at the latest, and fill *ret. */
void webhook_ask(const struct approval_entry *e, const struct approval_request *req, uint64_t deadline_ms,
		 struct approval_result *ret);
