/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The I/O of the host rules: name resolution (and netrule_local.c, the
 * route lookup). Kept apart so netrule.c stays pure. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "netrule.h"

CORDON_API void cordon_netaddr_list_done(struct cordon_netaddr_list *l)
{
	free(l->v);
	*l = (struct cordon_netaddr_list){};
}

static bool listed(const struct cordon_netaddr_list *l, const struct cordon_netaddr *a)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].family == a->family && memcmp(l->v[i].a, a->a, sizeof(a->a)) == 0)
			return true;
	return false;
}

int netrule_resolve(const char *host, struct cordon_netaddr_list *ret)
{
	/* No AI_ADDRCONFIG: it opens a netlink socket on every call. */
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	struct addrinfo *res = NULL;
	struct cordon_netaddr_list l = {};
	int r;

	r = getaddrinfo(host, NULL, &hints, &res);
	if (r != 0) {
		switch (r) {
		case EAI_NONAME:
		case EAI_NODATA:
			return -ENOENT;
		case EAI_AGAIN:
			return -EAGAIN;
		case EAI_MEMORY:
			return -ENOMEM;
		case EAI_SYSTEM:
			return errno > 0 ? -errno : -EIO;
		default:
			return -EIO;
		}
	}
	l.v = calloc(CORDON_NET_MAX_ANSWERS, sizeof(*l.v));
	if (!l.v) {
		freeaddrinfo(res);
		return -ENOMEM;
	}
	for (struct addrinfo *ai = res; ai && l.n < CORDON_NET_MAX_ANSWERS; ai = ai->ai_next) {
		struct cordon_netaddr a;

		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		cordon_netaddr_from_sockaddr(ai->ai_addr, &a);
		if (!listed(&l, &a))
			l.v[l.n++] = a;
	}
	freeaddrinfo(res);
	*ret = l;
	return 0;
}
