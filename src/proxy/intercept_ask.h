/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The proxy's end of its credential channel (intercept_ask.c): the socket
 * the table came on stays open, and a tunnel whose request needs what the
 * table does not hold asks the supervisor over it, holding the request (its
 * client's reads paused; other tunnels go on):
 *   - a capture's value (SUBST_ASK_VALUE): it comes back as a pipe passed
 *     with the answer, read straight into secure memory, kept until its
 *     lifetime ends (then asked again); a failure is a 503 with the reason;
 *   - an approval (SUBST_ASK_APPROVAL): the answer must name the request
 *     asked about (credential, host, method, canonical path) under the
 *     sequence number of this tunnel's ask, once; it approves that request
 *     only, and the next one on the connection is asked again.
 * A value replaced or expired is freed once no tunnel can still point at it
 * (each tunnel holds the values its scrubber and its forwarded requests
 * use).
 */

#include <stdbool.h>
#include <stddef.h>

#include "cred_proto.h"

struct intercept;
struct tunnel;
struct ic_chan;
struct ic_pending;
struct ic_value;

struct tunnel_ask {
	struct ic_pending *pending;  /* an ask out for this tunnel's request */
	bool approved;               /* the supervisor approved req */
	struct cred_req req;
	unsigned epoch;              /* of the values the scrubber was set for */
	struct ic_value **held;      /* values this tunnel may point at */
	size_t n_held;
};

/* How an ask is answered (intercept_tunnel.c's tunnel_answered): status 0
 * goes on, else the request is refused with status, reason, detail. */
typedef void tunnel_answer_fn(struct tunnel *t, int status, const char *reason, const char *detail);

/* After the table was read from fd: keep fd as the channel. */
int intercept_chan_init(struct intercept *ic, int fd);

/* Before deciding a tunnel's next request: expired values dropped, the
 * scrubber set again when values changed (and nothing is in flight). */
int tunnel_ask_prepare(struct tunnel *t);
/* subst_request said ask (what: SUBST_ASK_*): 0, the tunnel waits for
 * answered; -EBADMSG: a method or path the channel cannot carry
 * (not printable ASCII, too long); -errno: nothing could be asked. */
int tunnel_ask(struct tunnel *t, int what, tunnel_answer_fn *answered);
/* A request about to go out: is it the one approved (when it needed an
 * approval)? Clears the approval either way: it is spent. */
bool tunnel_ask_spend(struct tunnel *t);
/* The tunnel is freed: its ask forgotten, its values let go. */
void tunnel_ask_done(struct tunnel *t);
