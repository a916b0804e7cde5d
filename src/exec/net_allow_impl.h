/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to net_allow*.c. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "net_allow.h"

/* At most this many names get a synthetic address in a sandbox's life
 * (never reused). */
#define NET_ALLOW_MAX_NAMES 16384

/* The synthetic ranges: 198.18.0.0/15 (RFC 2544) and a ULA /64. */
#define NET_ALLOW_V4_BASE 0xc6120000u   /* 198.18.0.0 */
#define NET_ALLOW_V6_PREFIX { 0xfd, 0x63, 0x6f, 0x72, 0x64, 0x6f, 0x00, 0x00 } /* fd63:6f72:646f:0::/64 */

/* The socket options carried onto a handed-over socket (net_allow.c's opts). */
#define NET_ALLOW_OPTS 14

struct net_pending {
	uint64_t id;
	pid_t tid;
	int pidfd, sock;        /* the caller's pidfd, init's copy of its socket */
	int fd;                 /* the caller's number */
	int reply;              /* the proxy's answer arrives here */
	bool nonblock;
	int domain;
	char host[CORDON_NET_HOST_MAX + 1];
	uint16_t port;
	/* read from the caller's socket while the proxy dials, so the
	 * answer needs only the writes: */
	unsigned fd_flags;      /* the caller's close-on-exec */
	uint32_t differs;       /* bit i: opts[i] is not a fresh socket's, value[i] */
	int value[NET_ALLOW_OPTS];
	struct linger linger;   /* l_onoff: the caller set SO_LINGER */
};

/* A query for a name not yet known to exist: answered once the proxy
 * has looked (NXDOMAIN if it found nothing). */
#define NET_ALLOW_DNS_WAIT_MAX 32
#define NET_ALLOW_DNS_QUERY_MAX 512

struct net_dns_wait {
	int reply;              /* the proxy's answer arrives here */
	int sock;               /* the resolver's socket the query came on */
	struct sockaddr_storage from;
	socklen_t fromlen;
	uint8_t req[NET_ALLOW_DNS_QUERY_MAX];
	size_t len;
};

struct net_allow {
	int proxy;              /* the control socket to the proxy */
	int dns[2];             /* the resolver on 127.0.0.1:53, [::1]:53 (-1: none) */
	struct cordon_netrules *rules;
	char **names;           /* index i: the name of synthetic address i + 1 */
	uint64_t *looked;       /* index i: when the proxy last looked names[i] up (now_usec) */
	size_t n_names;
	struct net_pending pending[NET_ALLOW_MAX_PENDING];
	size_t n_pending, polled;
	struct net_dns_wait waits[NET_ALLOW_DNS_WAIT_MAX];
	size_t n_waits, waits_polled;
	uint64_t netns;         /* the sandbox's network namespace (inode) */
};

/* net_allow_dns.c */
/* The index+1 of a synthetic address, 0 when a is none. */
size_t net_allow_synthetic(const struct sockaddr *sa, socklen_t len);
/* Answer the queries waiting on the resolver's socket fd. */
void net_allow_dns_serve(struct net_allow *na, int fd);
/* The proxy's word on a name of waits[i]: answer it. */
void net_allow_dns_looked(struct net_allow *na, size_t i);
/* net_allow_ask.c: one request to the proxy, its answer on *ret_reply. */
int net_allow_ask(struct net_allow *na, char kind, unsigned flags, int family, uint16_t port, const char *host,
		  int *ret_reply);
/* name may be reached by some port under the rules. */
bool net_allow_name_allowed(const struct net_allow *na, const char *name);
