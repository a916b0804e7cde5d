/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --net allow, the proxy's side (src/exec/net_allow.h has the sandbox's):
 * init asks, on the control socket, for one connection to HOST:PORT with a
 * socket of its own for the answer; the proxy decides exactly as for a
 * CONNECT (dial.c: the rules, resolving once, every answer checked, the
 * host's own addresses, a checked address dialled) and passes the
 * connected socket back instead of relaying. Hosts that need the proxy's
 * L7 (a credential) are refused here: only their proxy variables reach
 * them.
 *
 * The sandbox's resolver asks ("R" NAME) whether an allowed name exists
 * before it answers the name's A/AAAA: the proxy looks it up then, and
 * keeps the answer a few seconds (transparent_cache.c). A connect to the
 * name within that time is dialled from it at once, with no second lookup:
 * a caller that resolves and then connects (non-blocking: an event loop,
 * happy eyeballs) does not wait for the DNS twice. The addresses are
 * decided at each connect exactly as a fresh lookup's are (every rule,
 * the host's own addresses as they are then), so the cache can only save
 * a lookup, never let through an address a fresh lookup's answer would
 * be refused for. Rebinding (a name whose answer changes between the
 * query and the connect): within the lifetime the connect dials what the
 * query's lookup found, the address the client was in effect answered
 * with, as a client's own cache would; after it, a fresh lookup. Either
 * way the address dialled is the one decided, so a name that rebinds to a
 * private, metadata or this host's address is refused whenever that
 * answer is the one used. A miss (no query came first, or it expired; a
 * literal, or host.cordon.internal, never needs a lookup) resolves as
 * before, and the answer to a non-blocking connect waits for it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net_allow.h"

struct proxy;
struct conn;
struct cordon_netaddr;
struct cordon_netaddr_list;
struct evutil_addrinfo;
struct sockaddr_storage;

/* A request read from the control socket (msg[0] == 'T'), with the
 * answer's socket fd (taken: closed on failure). Its conn's ops
 * (conn.h) hand the dialled socket over and say a refusal as an errno. */
void transparent_request(struct proxy *px, int fd, const char *msg, size_t n);
/* transparent_ledger.c: the handed-over connections, looked at once a
 * second (the tick) until closed, then audited with duration and bytes. */
int transparent_ledger_open(struct proxy *px);
void transparent_ledger_free(struct proxy *px);
size_t transparent_ledger_live(const struct proxy *px);
void transparent_ledger_add(struct proxy *px, int fd, const char *host, size_t host_len, uint16_t port,
			    const char *addr);
void transparent_ledger_tick(struct proxy *px);

/* transparent_cache.c: the lookups' answers, per name. */
#define TRANSPARENT_CACHE_MAX 64
#define TRANSPARENT_CACHE_LIFETIME_MS NET_ALLOW_NAME_FRESH_MS /* the resolver asks again after it */
/* res, the answer of a lookup of name[0..len) just made (getaddrinfo's
 * list): kept for the lifetime (nothing kept when it has no address). */
void transparent_cache_put(struct proxy *px, const char *name, size_t len, const struct evutil_addrinfo *res);
/* 1 and *ret (allocated; the caller frees ret->v) when an answer for
 * name[0..len) is younger than the lifetime; 0 when none; -ENOMEM. */
int transparent_cache_get(struct proxy *px, const char *name, size_t len, struct cordon_netaddr_list *ret);
void transparent_cache_free(struct proxy *px);
