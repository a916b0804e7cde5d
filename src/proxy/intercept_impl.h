/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The interception's own types, shared by its set-up (intercept.c) and
 * its tunnels (intercept_tunnel.c). */

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stdint.h>

#include "cred_scrub.h"
#include "cred_subst.h"
#include "credtable.h"
#include "http_body.h"
#include "http_head.h"
#include "intercept_ask.h"
#include "proxy.h"

struct ic_host {
	char name[256];
	const struct credtable_cred *cred;  /* the first credential for it (its tls) */
	SSL_CTX *down;                      /* the client's side: our leaf */
	SSL_CTX *up;                        /* the upstream's side */
	bool system_roots, roots_set;       /* verified against the system's roots; they are in up's store */
};

/* the system's bundle, read whole at start (Debian's: ~220 KB) */
#define INTERCEPT_ROOTS_MAX (16 * 1024 * 1024)

struct intercept {
	struct credtable *t;
	struct subst_creds sc;
	X509 *ca;
	EVP_PKEY *ca_key, *leaf_key;
	struct ic_host *hosts;
	size_t n_hosts;
	char *roots_pem;                    /* the system's bundle, read at start, parsed at first use */
	size_t roots_n;
	X509_STORE *roots;
	bool roots_failed;
	struct proxy_intercept hooks;
	struct ic_chan *chan;               /* to the supervisor (intercept_ask.c) */
};

enum tunnel_req { TR_HEAD, TR_BODY, TR_WAIT, TR_ASK };
enum tunnel_resp { TS_IDLE, TS_HEAD, TS_BODY };
enum tunnel_framing { TF_NONE, TF_LENGTH, TF_CHUNKED, TF_EOF };

struct bufferevent;
struct evbuffer;

struct tunnel {
	struct intercept *ic;
	struct proxy *px;
	struct ic_host *host;
	uint16_t port;
	struct bufferevent *down, *up;      /* the client's TLS, the upstream's */
	struct evbuffer *stage;             /* the client's next bytes, handed over at once (few, full records) */
	bool down_ready, up_ready, up_failed, closing;
	const char *why;                    /* a handshake refusal's reason (the callbacks set it) */
	char up_err[160];
	enum tunnel_req req;
	enum tunnel_resp resp;
	struct http_body req_body;
	bool req_close, req_head;
	enum tunnel_framing framing;
	uint64_t left;                      /* TF_LENGTH: body bytes to come */
	struct dechunk dc;
	bool chunked_out, resp_close;
	unsigned served;                    /* responses relayed on this tunnel */
	bool counted;                       /* in the proxy's n_conns */
	struct scrub scrub;
	struct http_head head;
	struct subst_out out;
	struct tunnel_ask ask;              /* a value or an approval asked for (intercept_ask.c) */
};

struct ic_host *intercept_find(struct intercept *ic, const char *host, size_t n);
/* h's TLS contexts, made at its first tunnel (intercept.c): the client
 * side's leaf, the upstream side with the system's roots (parsed at the
 * first tunnel that needs them). < 0: they cannot be, the reason in err. */
int intercept_host_ready(struct intercept *ic, struct ic_host *h, char *err, size_t errlen);
/* proxy_intercept.start (intercept_tunnel.c) */
void tunnel_start(void *state, struct proxy *px, int cfd, int ufd, const char *host, size_t n, uint16_t port);
/* An ask is answered (intercept_ask.c): status 0, decide the held request
 * again; else refuse it with status, reason and detail. */
void tunnel_answered(struct tunnel *t, int status, const char *reason, const char *detail);
