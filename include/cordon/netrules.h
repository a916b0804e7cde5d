/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: the host and address rules of `--net proxy`, and the one
 * decision on them, as cordon's proxy and `cordon why --host` make it.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 *
 * Order: a malformed or NUL-bearing name is refused; then the deny list,
 * then the allow list (an empty allow list denies everything); an IP literal
 * only when a rule names it. Then every answer the name resolved to (an IP
 * literal is its own answer) is checked: loopback, unspecified, link-local,
 * private, CGNAT, multicast, broadcast, reserved, cloud metadata, IPv4
 * embedded in IPv6, or an address this host delivers locally (asked of the
 * kernel at each decision: cordon_net_host) is refused unless an allowed
 * address rule names it. A host rule alone never admits such an answer: that
 * is what DNS rebinding would use to reach local services. An answer that a
 * deny rule's address names is refused whatever the name (deny first).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cordon/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CORDON_NET_HOST_MAX 253    /* bytes of a host name */
#define CORDON_NET_MAX_ANSWERS 32  /* answers of one name that are checked */
/* The one name for the host's own services: the proxy maps
 * host.cordon.internal:PORT to the host's 127.0.0.1:PORT, only where an
 * allow rule names exactly that name and that port (no wildcard, no
 * portless rule reaches it; a deny rule still wins). */
#define CORDON_NET_HOST_SERVICE "host.cordon.internal"

struct cordon_netaddr {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t a[16];     /* network order; IPv4 in a[0..4) */
};

struct cordon_netaddr_list {
	struct cordon_netaddr *v;
	size_t n;
};

/* A set of rules: opaque, built once, then read from any thread. */
struct cordon_netrules;

CORDON_API int cordon_netrules_new(struct cordon_netrules **ret);
CORDON_API struct cordon_netrules *cordon_netrules_free(struct cordon_netrules *r);
/* CORDON_NET_ALLOW_DOMAIN and _DENY_DOMAIN: "host", "*.suffix" (strict
 * subdomains), "host:port", "[v6]:port", "1.2.3.4:443";
 * CORDON_NET_ALLOW_ADDRESS: "1.2.3.4", "10.0.0.0/8", "::1", "fd00::/8".
 * -EINVAL with a reason in err (may be NULL) for a malformed rule, -E2BIG
 * past CORDON_NET_MAX_RULES. */
CORDON_API int cordon_netrules_add(struct cordon_netrules *r, enum cordon_net_rule kind, const char *spec,
				   char *err, size_t errlen);
/* The same, with the reason in reterr (may be NULL), the library's carrier
 * (cordon/common.h). */
CORDON_API int cordon_netrules_add_rule(struct cordon_netrules *r, enum cordon_net_rule kind, const char *spec,
					struct cordon_error *reterr);

struct cordon_net_verdict {
	bool allowed;
	/* The name passed its rules and is not a literal: resolve it, then
	 * decide again with the answers. */
	bool need_resolve;
	/* A short token, static: "host-malformed", "host-denied",
	 * "host-not-allowed", "ip-literal", "no-address",
	 * "address-loopback", ... NULL when allowed. */
	const char *reason;
	char detail[320];  /* one line for people: what matched */
	/* The rule that decided, as the proxy's flag spells it:
	 * "--deny-domain bad.example" (a deny rule's name or address),
	 * "--allow-domain *.example.com" (allowed, or to resolve); empty when
	 * no rule matched (host-not-allowed, ip-literal) or when what is
	 * missing is an address rule (address-*: allow_addresses). */
	char rule[CORDON_NET_HOST_MAX + 32];
	/* The name the rules decided (lower case, no trailing dot; a
	 * literal's canonical text): the one to resolve, nothing else. */
	char name[CORDON_NET_HOST_MAX + 1];
	/* The literal's address, when host was an IP literal. */
	struct cordon_netaddr literal;
	bool is_literal;
};

/*
 * The host as it is now: does the kernel deliver an address to this host?
 * A route lookup (rtnetlink RTM_GETROUTE) at every question, not a list of
 * interface addresses taken at start: a local, broadcast, multicast or
 * anycast route, or one out of the loopback interface, is this host (any
 * address of a prefix on lo, a `local` route, an address gained during the
 * run). Opaque: one netlink socket, opened before a process confines itself.
 */
struct cordon_net_host;

CORDON_API int cordon_net_host_open(struct cordon_net_host **ret);
CORDON_API struct cordon_net_host *cordon_net_host_free(struct cordon_net_host *h);
/* 1: delivered here; 0: routed elsewhere, or nowhere; -errno: the kernel
 * did not say (a caller refuses then). */
CORDON_API int cordon_net_host_is_local(struct cordon_net_host *h, const struct cordon_netaddr *a);

/*
 * The one decision. host[0..len) is untrusted (may hold NUL bytes: refused);
 * a bracketed IPv6 literal ("[::1]") is taken. answers: NULL before
 * resolving (then need_resolve says whether to resolve ret->name), or every
 * answer the name resolved to (each must pass). here: the host to ask
 * whether an answer is delivered locally (NULL: that question alone is not
 * asked; the proxy always asks). Always returns 0 and fills *ret.
 */
CORDON_API int cordon_net_decide(const struct cordon_netrules *r, const char *host, size_t len, uint16_t port,
				 const struct cordon_netaddr_list *answers, struct cordon_net_host *here,
				 struct cordon_net_verdict *ret);
CORDON_API void cordon_netaddr_list_done(struct cordon_netaddr_list *l);
/* An AF_INET or AF_INET6 socket address's address. */
CORDON_API void cordon_netaddr_from_sockaddr(const struct sockaddr *sa, struct cordon_netaddr *ret);

#ifdef __cplusplus
}
#endif
