/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a peer may send, in which state (OpenSSH monitor.c's model). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msgframe.h"

/* ---- dispatch --------------------------------------------------------- */

#define MSG_ONCE (1u << 0)   /* may arrive once per peer */
#define MSG_PERMIT (1u << 1) /* permitted when the peer connects */
#define MSG_HANDLERS_MAX 64

/* A handler owns nothing it does not take: to keep fds[i], set it to -1. */
struct msg_handler {
	uint16_t type;
	unsigned flags;
	int (*fn)(void *ctx, struct msgbuf *body, int *fds, size_t nfds);
};

/* Per-peer state: which table entries are permitted, which ONCE ones ran. */
struct msg_state {
	const struct msg_handler *table;
	size_t n;
	uint64_t permitted;
	uint64_t seen;
};

/* -EINVAL on a table with duplicate types, unknown flags, no fn, > 64. */
int msg_state_init(struct msg_state *s, const struct msg_handler *table, size_t n);
/* Handlers change what the peer may send next. -EPROTO for an unknown type. */
int msg_permit(struct msg_state *s, uint16_t type, bool permit);
bool msg_permitted(const struct msg_state *s, uint16_t type);

/*
 * Run the handler for type: -EPROTO unknown, -EPERM not permitted (or a
 * ONCE type again); otherwise what the handler returns. Any < 0: drop.
 */
int msg_dispatch(struct msg_state *s, void *ctx, uint16_t type, struct msgbuf *body, int *fds,
		 size_t nfds);
int msg_dispatch_frame(struct msg_state *s, void *ctx, struct msg_frame *f);
