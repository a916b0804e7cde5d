/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The supervisor's end of each proxy's credential channel (cred_chan.c):
 * one socket per proxy, made with its table (cred_store_table_fd), so the
 * socket is the consumer's identity and a proxy speaks for no other. It
 * answers, without blocking the loop:
 *   - a value: a credential granted to this consumer, held or captured now
 *     (cred_store_want: a capture runs as events, never waited for), sent
 *     as a pipe passed with the frame (the value never sits in a message
 *     buffer); a capture that fails is its reason;
 *   - an approval: the request (credential, host, method, canonical path)
 *     decided again here from the profile (the proxy's word is not taken:
 *     the rule must say approve, for this consumer), asked of the rule's
 *     backend from the approval pool (one stalled backend stalls nothing
 *     else), audited, answered with a request id made here and the request
 *     it decided, once.
 * A peer whose frame does not decode, or that asks for what it was not
 * granted, is dropped.
 */

struct supervisor;
struct cred_chan;

/* Serve fd (taken: the supervisor's end, non-blocking) for consumer. */
int cred_chan_new(struct supervisor *s, int fd, const char *consumer);
/* Every channel (the session is over); approvals being asked end on
 * their own, their answers dropped. */
void cred_chan_free_all(struct supervisor *s);
