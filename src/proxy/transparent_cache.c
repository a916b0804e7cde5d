/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow: the answers of the proxy's latest lookups of names, kept a
 * few seconds so a transparent connect that follows the sandbox's own
 * query for the name is dialled at once, with no second lookup (evdns
 * keeps nothing; see transparent.h). Per proxy, at most
 * TRANSPARENT_CACHE_MAX names, each kept TRANSPARENT_CACHE_LIFETIME_MS
 * from the lookup that brought it (a hit does not extend it; a newer
 * lookup of the name replaces it). Only addresses are kept, never a
 * verdict: dial.c decides every one of them at each connect as it does a
 * fresh lookup's.
 */
#include <errno.h>
#include <event2/util.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "transparent.h"

struct cached {
	char name[CORDON_NET_HOST_MAX + 1]; /* lower case, no trailing dot; "" free */
	uint64_t expires;                    /* proxy_now() */
	size_t n;
	struct cordon_netaddr v[CORDON_NET_MAX_ANSWERS];
};

struct transparent_cache {
	struct cached e[TRANSPARENT_CACHE_MAX];
};

/* name[0..len) as the key: lower case, without its one trailing dot;
 * false when it is empty or too long. */
static bool key(const char *name, size_t len, char out[CORDON_NET_HOST_MAX + 1])
{
	if (len && name[len - 1] == '.')
		len--;
	if (!len || len > CORDON_NET_HOST_MAX || memchr(name, '\0', len))
		return false;
	for (size_t i = 0; i < len; i++)
		out[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
	out[len] = '\0';
	return true;
}

void transparent_cache_put(struct proxy *px, const char *name, size_t len, const struct evutil_addrinfo *res)
{
	char k[CORDON_NET_HOST_MAX + 1];
	struct cached *slot = NULL, *free_slot = NULL, *oldest = NULL;
	uint64_t now = proxy_now();
	size_t n = 0;

	if (!key(name, len, k))
		return;
	if (!px->dns_cache && !(px->dns_cache = calloc(1, sizeof(*px->dns_cache))))
		return; /* no cache: every connect looks the name up, as before */
	/* the name's own entry, else a free or expired one, else the one
	 * that expires first (the oldest: every entry lives as long) */
	for (size_t i = 0; i < TRANSPARENT_CACHE_MAX && !slot; i++) {
		struct cached *e = &px->dns_cache->e[i];

		if (e->name[0] && strcmp(e->name, k) == 0)
			slot = e;
		else if (!e->name[0] || e->expires <= now)
			free_slot = free_slot ? free_slot : e;
		else if (!oldest || e->expires < oldest->expires)
			oldest = e;
	}
	if (!slot)
		slot = free_slot ? free_slot : oldest;
	for (const struct evutil_addrinfo *ai = res; ai && n < CORDON_NET_MAX_ANSWERS; ai = ai->ai_next)
		if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
			cordon_netaddr_from_sockaddr(ai->ai_addr, &slot->v[n++]);
	if (!n) {
		slot->name[0] = '\0'; /* nothing to dial: a connect looks again */
		return;
	}
	memcpy(slot->name, k, strlen(k) + 1);
	slot->n = n;
	slot->expires = now + TRANSPARENT_CACHE_LIFETIME_MS;
}

int transparent_cache_get(struct proxy *px, const char *name, size_t len, struct cordon_netaddr_list *ret)
{
	char k[CORDON_NET_HOST_MAX + 1];
	uint64_t now = proxy_now();

	if (!px->dns_cache || !key(name, len, k))
		return 0;
	for (size_t i = 0; i < TRANSPARENT_CACHE_MAX; i++) {
		struct cached *e = &px->dns_cache->e[i];
		struct cordon_netaddr *v;

		if (strcmp(e->name, k) != 0)
			continue;
		if (e->expires <= now) {
			e->name[0] = '\0';
			return 0;
		}
		v = malloc(e->n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, e->v, e->n * sizeof(*v));
		*ret = (struct cordon_netaddr_list){ .v = v, .n = e->n };
		return 1;
	}
	return 0;
}

void transparent_cache_free(struct proxy *px)
{
	free(px->dns_cache);
	px->dns_cache = NULL;
}
