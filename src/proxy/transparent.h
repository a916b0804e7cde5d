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
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proxy;
struct conn;
struct cordon_netaddr;
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
