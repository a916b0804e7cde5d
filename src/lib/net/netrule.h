/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The inside of the host and address rules (the public part is
 * cordon/netrules.h): the rules' representation, adding one by kind, address
 * classes and text. Pure (no I/O) except netrule_resolve() (netrule_resolve.c)
 * and the route lookup of cordon_net_host (netrule_local.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cordon/cordon.h"

#define NETRULE_MAX_RULES CORDON_NET_MAX_RULES

struct host_rule {
	char *host;        /* lower case, no trailing dot; for "*.x.y": "x.y" */
	bool wildcard;     /* "*.x.y": strict subdomains of x.y only */
	bool literal;      /* host is an IP literal (canonical text) */
	uint16_t port;     /* 0: any port */
	struct cordon_netaddr addr;  /* literal: its address (a deny rule refuses it as an answer too) */
};

struct addr_rule {
	struct cordon_netaddr addr;
	unsigned prefix;   /* bits */
};

struct cordon_netrules {
	struct host_rule *allow, *deny;
	size_t n_allow, n_deny;
	struct addr_rule *addresses;
	size_t n_addresses;
};

/* "host", "*.suffix", "host:port", "[v6]:port", "1.2.3.4:443". deny: to
 * the deny list. -EINVAL with a reason in reterr (may be NULL) for a
 * malformed rule. */
int netrules_add_host(struct cordon_netrules *r, bool deny, const char *spec, struct cordon_error *reterr);
/* "1.2.3.4", "10.0.0.0/8", "::1", "fd00::/8". */
int netrules_add_address(struct cordon_netrules *r, const char *spec, struct cordon_error *reterr);
void netrules_done(struct cordon_netrules *r);

/* The class of one address, when it needs allow_addresses: a reason token
 * (as in cordon_net_verdict), or NULL for an ordinary public address. Pure. */
const char *netaddr_class(const struct cordon_netaddr *a);

/* Text of an address (INET6_ADDRSTRLEN is enough). */
void netaddr_format(const struct cordon_netaddr *a, char *buf, size_t len);
int netaddr_parse(const char *s, struct cordon_netaddr *ret);

/* netrule_resolve.c, the only I/O: getaddrinfo for TCP on host (a checked
 * name, NUL-terminated), at most CORDON_NET_MAX_ANSWERS, de-duplicated.
 * -ENOENT: no such name, -EAGAIN: temporary failure. */
int netrule_resolve(const char *host, struct cordon_netaddr_list *ret);
