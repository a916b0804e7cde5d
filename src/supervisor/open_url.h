/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* open_urls: a sandbox's request to open a URL on the host (open_url.c). */

#include "sup_internal.h"

/* What the supervisor keeps across requests: each consumer's recent
 * opens (the rate), the openers not yet reaped. */
struct open_urls_state;
void open_urls_state_free(struct open_urls_state *st);
/* At the session's end: wait up to ms in all for the host's openers still
 * running (xdg-open hands the URL to the person's browser and exits; cordon
 * kills what a session leaves once it is over). NULL: nothing to wait for. */
#define OPEN_URLS_WAIT_MS 5000
void open_urls_wait(struct open_urls_state *st, int ms);

/* BROKER_MSG_OPEN_URL, in call.c's dispatch table: ctx is the call. */
int open_url_on_request(void *ctx, struct msgbuf *body, int *fds, size_t nfds);
