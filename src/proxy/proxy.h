/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * cordon's network proxy: its own process (`cordon proxy`, started by the
 * runner under --net proxy), one libevent loop, confined after set-up.
 *
 *   client --(HTTP CONNECT | absolute-form HTTP | SOCKS5)--> proxy
 *          decide on the name (cordon_net_decide) -> resolve once (evdns) -> decide on
 *          every answer -> dial exactly a checked address -> relay (relay.c)
 *
 * A refusal is 403 with X-Cordon-Error: REASON (SOCKS5: its reply code) and
 * one audit line "cordon-proxy: refused ...".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "proxy_main.h"

struct event_base;
struct evdns_base;
struct event;
struct conn;

/* TLS interception of the tunnels to credential hosts (intercept.c, in
 * cordon-supervisor only: the lean binary does not load libssl). */
struct proxy;
struct proxy_intercept {
	void *state;
	/* host[0..n) (as the client sent it) is a credential host: its
	 * tunnels are intercepted, whoever asks */
	bool (*wants)(void *state, const char *host, size_t n);
	/* A CONNECT to such a host is decided and dialled, its 200 sent:
	 * take over both sockets (closed on failure). */
	void (*start)(void *state, struct proxy *px, int cfd, int ufd, const char *host, size_t n, uint16_t port);
};

struct proxy_config {
	const struct cordon_netrules *rules;  /* the one decision's rules (cordon/netrules.h) */
	unsigned max_conns;             /* concurrent client connections */
	unsigned head_timeout;          /* seconds to send a whole request head */
	unsigned connect_timeout;       /* seconds for the upstream connect */
	unsigned idle_timeout;          /* seconds without a byte either way */
	unsigned total_timeout;         /* seconds a connection may last; 0: no limit */
	int audit_fd;                   /* refusal lines go here (-1: stderr) */
	const struct proxy_intercept *intercept;  /* NULL: no credentials */
	int status_fd;                  /* the runner's status channel: each refusal also as a denial record (-1: none) */
	bool transparent;               /* --net allow: the control socket stays, init asks for connections on it */
};

/* Denial records the proxy writes on the status channel, at most (conn.c). */
#define PROXY_STATUS_DENIALS_MAX 24

struct proxy {
	const struct proxy_config *cfg;
	struct event_base *base;
	struct evdns_base *dns;
	struct cordon_net_host *here;   /* asked at each decision: is an address this host's? */
	struct event *listen_ev[4];
	int listen_fd[4];
	int listen_kind[4];             /* PROXY_LISTEN_HTTP / _SOCKS */
	size_t n_listen;
	struct event *control_ev;
	struct event *tick;
	struct conn *conns;             /* a list, for the timeouts */
	unsigned n_conns;
	bool accepting;
	unsigned bulk_buffers;          /* relay directions holding a bulk buffer (relay.c) */
	uint64_t now;                   /* monotonic milliseconds, per tick and accept */
	unsigned denials_said;          /* denial records written (capped: PROXY_STATUS_DENIALS_MAX) */
	uint64_t denial_hash[PROXY_STATUS_DENIALS_MAX];       /* theirs, to write each refusal once */
	struct transparent_ledger *ledger;  /* --net allow: the connections handed over (transparent.h) */
	struct transparent_cache *dns_cache; /* --net allow: the latest lookups' answers (transparent.h) */
};

enum {
	PROXY_LISTEN_HTTP = 'H',
	PROXY_LISTEN_SOCKS = 'S',
	PROXY_LISTEN_TRANSPARENT = 'T', /* --net allow: init's request, answered with a socket (transparent.h) */
};

/* proxy.c */
int proxy_init(struct proxy *px, const struct proxy_config *cfg, char *err, size_t errlen);
int proxy_add_listener(struct proxy *px, int fd, int kind);
/* Listeners arrive as SCM_RIGHTS on a unix socket, one message: data
 * "HS" (one kind byte per fd, in order) with the fds. */
int proxy_add_control(struct proxy *px, int fd);
int proxy_run(struct proxy *px);
void proxy_done(struct proxy *px);
void proxy_audit(struct proxy *px, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct relay_dir;

/* relay.c: both directions of an established connection. The relay
 * knows nothing of connections: it tells its owner through hooks. */
struct relay_hooks {
	void (*touch)(void *owner);     /* bytes moved: the connection is not idle */
	void (*finished)(void *owner);  /* the pair is finished (both shut) or broke */
	/* A framed direction (relay_dir.framed) hands each read to frame():
	 * *ret_used of the n bytes are forwarded, *ret_end says the message
	 * ended (the direction then reads no more; the owner keeps the rest).
	 * -1: malformed, the pair breaks. */
	int (*frame)(void *owner, struct relay_dir *d, const char *p, size_t n, size_t *ret_used, bool *ret_end);
	/* A direction with relay_dir.keep_open reached EOF and wrote all it
	 * had: its peer is not shut; the owner goes on (called once). */
	void (*ended)(void *owner);
};

struct relay_dir {
	struct proxy *px;
	void *owner;
	const struct relay_hooks *hooks;
	int from, to;
	char *buf;                      /* what was read and is not yet written; NULL until needed */
	size_t buf_size, buf_len, buf_off;
	char *pre;                      /* written before anything relayed (a reply, a rewritten head) */
	size_t pre_len, pre_off;
	bool eof, shut, stopped;
	bool framed;                    /* hooks->frame decides what of each read is forwarded */
	bool held;                      /* framed: the message ended, read no more */
	bool keep_open;                 /* at EOF: hooks->ended, not a shutdown of the peer */
	size_t read_max;                /* a read's cap (0: the buffer's size) */
	size_t moved;                   /* bytes read since the buffer was last given back */
	struct event *rd, *wr;
	struct relay_dir *other;
};

/* Seconds without a byte after which a connection's buffers are given back. */
#define RELAY_IDLE_RELEASE 2

int relay_start(struct proxy *px, void *owner, const struct relay_hooks *hooks, struct relay_dir *up,
		struct relay_dir *down);
/* No more events for d (its connection is ending). */
void relay_stop(struct relay_dir *d);
/* d has been idle: give its buffer back if nothing is pending in it. */
void relay_release(struct relay_dir *d);
void relay_dir_done(struct relay_dir *d);

/* confine.c: no file access, no new programs or processes. */
int proxy_confine(char *err, size_t errlen);
