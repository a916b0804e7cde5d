/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Host rules and address classes for `--net proxy`: one decision, made the
 * same way by the proxy and by `cordon why --host`. Pure (no I/O) except
 * netrule_resolve() and netrule_own_addresses(), kept apart in
 * netrule_resolve.c.
 *
 * Order: a malformed or NUL-bearing name is refused; then the deny list,
 * then the allow list (an empty allow list denies everything); an IP
 * literal only when a rule names it. Then every answer the name resolves
 * to (an IP literal is its own answer) is checked: loopback, unspecified,
 * link-local, private, CGNAT, multicast, broadcast, reserved, metadata,
 * IPv4 embedded in IPv6, or one of the host's own addresses is refused
 * unless allow_addresses names it. A host rule alone never admits such an
 * answer: that is what DNS rebinding would use to reach local services.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cordon/cordon.h"

#define NETRULE_HOST_MAX 253
#define NETRULE_MAX_RULES CORDON_NET_MAX_RULES
#define NETRULE_MAX_ANSWERS 32

struct netaddr {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t a[16];     /* network order; IPv4 in a[0..4) */
};

struct netaddr_list {
	struct netaddr *v;
	size_t n;
};

struct host_rule {
	char *host;        /* lower case, no trailing dot; for "*.x.y": "x.y" */
	bool wildcard;     /* "*.x.y": strict subdomains of x.y only */
	bool literal;      /* host is an IP literal (canonical text) */
	uint16_t port;     /* 0: any port */
};

struct addr_rule {
	struct netaddr addr;
	unsigned prefix;   /* bits */
};

struct netrules {
	struct host_rule *allow, *deny;
	size_t n_allow, n_deny;
	struct addr_rule *addresses;
	size_t n_addresses;
};

/* "host", "*.suffix", "host:port", "[v6]:port", "1.2.3.4:443". deny: to
 * the deny list. -EINVAL with a reason in err for a malformed rule. */
int netrules_add_host(struct netrules *r, bool deny, const char *spec, char *err, size_t errlen);
/* "1.2.3.4", "10.0.0.0/8", "::1", "fd00::/8". */
int netrules_add_address(struct netrules *r, const char *spec, char *err, size_t errlen);
void netrules_done(struct netrules *r);

struct netrule_verdict {
	bool allowed;
	/* The name passed its rules and is not a literal: resolve it, then
	 * decide again with the answers. */
	bool need_resolve;
	/* A short token, static: "host-malformed", "host-denied",
	 * "host-not-allowed", "ip-literal", "no-address",
	 * "address-loopback", ... (see netrule.c). NULL when allowed. */
	const char *reason;
	char detail[320];  /* one line for people: what matched */
	/* The literal's address, when host was an IP literal. */
	struct netaddr literal;
	bool is_literal;
};

/*
 * The one decision. host[0..len) is untrusted (may hold NUL bytes: refused);
 * a bracketed IPv6 literal ("[::1]") is taken. answers: NULL before
 * resolving (then need_resolve says whether to resolve), or every answer
 * the name resolved to (each must pass). own: the host's own interface
 * addresses (may be NULL). Always returns 0 and fills *ret.
 */
int netrule_decide(const struct netrules *r, const char *host, size_t len, uint16_t port,
		   const struct netaddr_list *answers, const struct netaddr_list *own, struct netrule_verdict *ret);

/* The class of one address, when it needs allow_addresses: a reason token
 * as above, or NULL for an ordinary public address. Pure. */
const char *netaddr_class(const struct netaddr *a);

/* Text of an address (INET6_ADDRSTRLEN is enough). */
void netaddr_format(const struct netaddr *a, char *buf, size_t len);
int netaddr_parse(const char *s, struct netaddr *ret);
void netaddr_from_sockaddr(const struct sockaddr *sa, struct netaddr *ret);

/* netrule_resolve.c, the only I/O: getaddrinfo for TCP on host (a checked
 * name, NUL-terminated), at most NETRULE_MAX_ANSWERS, de-duplicated.
 * -ENOENT: no such name, -EAGAIN: temporary failure. */
int netrule_resolve(const char *host, struct netaddr_list *ret);
/* getifaddrs: every address of the host's interfaces. */
int netrule_own_addresses(struct netaddr_list *ret);
void netaddr_list_done(struct netaddr_list *l);
