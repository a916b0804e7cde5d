/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --net allow, init's side: any TCP client reaches an allowed host with no
 * relay. The sandbox keeps its own network namespace (loopback only) and
 * cordon's proxy outside, as under --net proxy (whose listeners and
 * variables stay); besides:
 *
 *  - a resolver on the sandbox's 127.0.0.1:53 (/etc/resolv.conf bound to
 *    a file naming it, the host's search and options kept): an allowed
 *    name's A/AAAA get a synthetic address (198.18.0.0/15, fd63:6f72:646f::/64),
 *    one per name for the sandbox's life, never reused, at most
 *    NET_ALLOW_MAX_NAMES, once the proxy has looked the name up (one that
 *    does not exist is NXDOMAIN); any other name is NXDOMAIN and a denial
 *    record; other query types get an empty answer (net_allow_dns.c);
 *  - the gate (unix_gate.c calls net_allow_call / net_allow_early): a TCP
 *    connect to a synthetic address, or to a literal an allow rule names,
 *    is decided by name and port, then the proxy (host namespace) decides
 *    again with every address rule, dials exactly a checked address and
 *    passes the socket back; init copies the options the caller set onto
 *    it, installs it at the caller's fd number (SECCOMP_IOCTL_NOTIF_ADDFD,
 *    SETFD) and answers the connect 0 (non-blocking: EINPROGRESS, the
 *    proxy's connect going on) (net_allow.c);
 *  - every later connect, bind and listen on an inet socket, and sends that
 *    open a connection (MSG_FASTOPEN), go through the gate: on a socket
 *    of the host's namespace (a handed-over one) they are refused, so it
 *    never listens on the host nor reaches another peer; UDP leaves only
 *    for the sandbox's own loopback (the resolver is there).
 *
 * What cannot follow the hand-over: duplicates, forks and epoll
 * registrations of the socket made before the connect keep the old
 * (sandbox) socket; a local bind to a port other than 0 is not carried;
 * getsockname shows the host's address. The proxy sees the connect (its
 * decision and audit line, and the ledger's line with duration and bytes
 * once closed: transparent.h) but none of the bytes. A non-blocking
 * connect is answered EINPROGRESS (always, as the kernel's own are) once
 * the proxy has started its connect, the socket still connecting or
 * refused already: its SO_ERROR says which. Not before: the socket does
 * not exist until then, and a socket handed over unconnected would poll
 * writable before the proxy's connect began (a caller would take it for
 * connected). The wait is one round trip when the name was queried here
 * within the last seconds: the resolver's query had the proxy look it up,
 * and the proxy dials from that answer (src/proxy/transparent.h: its
 * bounds, why it grants nothing a fresh lookup would refuse, rebinding).
 * The resolver's answers carry a TTL of that lifetime
 * (NET_ALLOW_NAME_FRESH_MS), and a query for a name looked up longer ago
 * has the proxy look it up again before the answer, so a client that asks
 * again when its TTL says so always connects from a fresh answer.
 * Otherwise (a client that kept the synthetic address longer) the proxy
 * looks the name up at the connect, and the answer waits for the lookup. A proxy's connect
 * that fails at once moves on to the name's next address, if any, before
 * the answer; one that fails later is the caller's to see in SO_ERROR
 * (the proxy tries no other address for a caller that did not wait).
 *
 * Per connection the hand-over costs six wake-ups: caller to init (the
 * notification), init to proxy (the request), proxy to init (the socket),
 * init to caller and back (ADDFD is a round trip: the caller's own thread
 * installs the fd), init to caller (the answer). ADDFD's FLAG_SEND would
 * fold the last two together, but the trapped call then returns the fd
 * number, never the 0 a connect must (checked on 6.18), so it stays
 * unused. Init reads what the answer needs from the caller's socket
 * (options, fd flags) while the proxy dials, and the proxy answers within
 * the call that read the request (a literal or host.cordon.internal: no
 * lookup; a loopback connect is complete at once): the rest is the
 * scheduler's. On the shared 2-core test machine a bare two-process round
 * trip is 8-30 us, so the three a hand-over needs already cost about the
 * 50 us aimed at; bench/proxy --only allow measured +107..+178 us added
 * per connection (the wake-ups, the real connect in the proxy), the bytes
 * after it at 98-104% of direct.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* How long the proxy dials from the answer of a lookup the resolver asked
 * for (transparent_cache.c), and so how long the resolver answers a known
 * name before asking the proxy again (net_allow_dns.c), and the TTL of its
 * answers: a client that asks again when the TTL says so connects from a
 * fresh lookup, and its non-blocking connect is answered at once. */
#define NET_ALLOW_NAME_FRESH_MS 5000
#define NET_ALLOW_MAX_PENDING 64
/* the resolver's two sockets, each connect waiting, each query waiting (NET_ALLOW_DNS_WAIT_MAX) */
#define NET_ALLOW_MAX_POLLFDS (2 + NET_ALLOW_MAX_PENDING + 32)

struct exec_ctx;
struct net_allow;
struct pollfd;
struct seccomp_notif;

/* Runner, before anything: the kernel has what --net allow needs
 * (seccomp user notification, ADDFD with SETFD, pidfd_getfd), asked by
 * doing it once. 0, or -errno with the reason in err. */
int net_allow_probe(char *err, size_t errlen);

/* Init, STEP_PROXY after the proxy has its listeners (it keeps x->proxy_fd
 * for the hand-overs): the resolver's sockets and /etc/resolv.conf. Dies
 * on failure. */
void net_allow_setup(struct exec_ctx *x);
/* Runner, before the namespaces (net_allow_dns.c): the host's resolv.conf
 * search and options lines, with the sandbox's server, into x->net_resolv
 * for net_allow_setup. Dies on failure. */
void net_allow_resolv_read(struct exec_ctx *x);

/* Init's gate: NULL unless --net allow (or out of memory: errno set). */
struct net_allow *net_allow_new(struct exec_ctx *x, bool *ret_failed);
size_t net_allow_pollfds(struct net_allow *na, struct pollfd *fds, int *timeout_ms);
void net_allow_step(struct net_allow *na, int listener, const struct pollfd *fds, size_t n, int r);

/* bind or listen, before any other gate: true when answered. */
bool net_allow_early(struct net_allow *na, int listener, const struct seccomp_notif *n);

/* A connect, sendto or sendmsg the gate prepared, on an inet socket. */
struct net_call {
	uint64_t id;
	pid_t tid;
	int nr;
	int fd;                 /* the caller's number */
	int *pidfd, *sock;      /* the gate's; set to -1 when taken */
	int domain, type, protocol;
	unsigned flags;         /* send flags */
	bool nonblock;
	const struct sockaddr_storage *addr;
	socklen_t addrlen;
};
/* 1: taken (answered, or waiting for the proxy); 0: the gate performs it
 * as usual; -errno: refuse with it. */
int net_allow_call(struct net_allow *na, int listener, const struct net_call *c);
