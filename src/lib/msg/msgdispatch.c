/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's dispatch table, after OpenSSH's monitor.c: each message type
 * has one entry {type, flags, fn}; a peer may send only what its state
 * permits, a ONCE type at most once, and anything else drops the peer.
 */
#include <errno.h>

#include "msgdispatch.h"

static int find(const struct msg_state *s, uint16_t type)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->table[i].type == type)
			return (int)i;
	return -EPROTO;
}

int msg_state_init(struct msg_state *s, const struct msg_handler *table, size_t n)
{
	uint64_t permitted = 0;

	/* the masks have one bit per entry */
	if (!table || n == 0 || n > MSG_HANDLERS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!table[i].fn || (table[i].flags & ~(MSG_ONCE | MSG_PERMIT)))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (table[j].type == table[i].type)
				return -EINVAL;
		if (table[i].flags & MSG_PERMIT)
			permitted |= UINT64_C(1) << i;
	}
	*s = (struct msg_state){ .table = table, .n = n, .permitted = permitted };
	return 0;
}

int msg_permit(struct msg_state *s, uint16_t type, bool permit)
{
	int i = find(s, type);

	if (i < 0)
		return i;
	if (permit)
		s->permitted |= UINT64_C(1) << i;
	else
		s->permitted &= ~(UINT64_C(1) << i);
	return 0;
}

bool msg_permitted(const struct msg_state *s, uint16_t type)
{
	int i = find(s, type);

	if (i < 0)
		return false;
	/* a ONCE type that ran stays refused, whatever was permitted since */
	if (s->seen & (UINT64_C(1) << i))
		return false;
	return s->permitted & (UINT64_C(1) << i);
}

int msg_dispatch(struct msg_state *s, void *ctx, uint16_t type, struct msgbuf *body, int *fds,
		 size_t nfds)
{
	const struct msg_handler *h;
	int i = find(s, type);

	if (i < 0)
		return i;
	if (!msg_permitted(s, type))
		return -EPERM;
	h = &s->table[i];
	/* mark before the call, so a handler that re-permits itself cannot
	 * make a ONCE type arrive twice */
	if (h->flags & MSG_ONCE) {
		s->seen |= UINT64_C(1) << i;
		s->permitted &= ~(UINT64_C(1) << i);
	}
	return h->fn(ctx, body, fds, nfds);
}

int msg_dispatch_frame(struct msg_state *s, void *ctx, struct msg_frame *f)
{
	return msg_dispatch(s, ctx, f->type, f->body, f->fds, f->nfds);
}
