/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interception's set-up: the table, the TLS contexts for each
 * credential host (the client side's leaf, the upstream side's roots and
 * client certificate), and the hooks the proxy calls (intercept.h). The
 * tunnels themselves are intercept_tunnel.c's.
 */
#include <errno.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cordon/policy.h"
#include "errbuf.h"
#include "intercept.h"
#include "intercept_impl.h"
#include "tls_ca.h"

static const unsigned char alpn_http11[] = "\x08http/1.1";
/* AES-128-GCM first, on both sides: with AES-NI it is the cheapest of the
 * three (ten rounds, not fourteen), and the proxy decrypts and encrypts
 * every byte twice. A client that puts ChaCha20 first (no AES in its
 * hardware) keeps it. */
static const char suites[] = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

/* The client's SNI, when it sends one, must be the CONNECT host (no
 * domain fronting). A ClientHello without one names no other host: it
 * gets the CONNECT host's leaf, and each request's Host header must still
 * be that host (cred_subst.c), so the three names stay one. Java sends
 * none for a name without a dot (localhost, an intranet "gitlab"). OpenSSL
 * calls this for every ClientHello, with or without the extension. */
static int on_servername(SSL *ssl, int *alert, void *arg)
{
	struct ic_host *h = arg;
	struct tunnel *t = SSL_get_app_data(ssl);
	const char *sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);

	if (!sni)
		return SSL_TLSEXT_ERR_OK;
	if (strcasecmp(sni, h->name) != 0) {
		if (t)
			t->why = "sni-mismatch";
		*alert = SSL_AD_UNRECOGNIZED_NAME;
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	return SSL_TLSEXT_ERR_OK;
}

/* http/1.1 or nothing: an h2-only client is refused. */
static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
		   unsigned int inlen, void *arg)
{
	struct tunnel *t = SSL_get_app_data(ssl);
	unsigned char *sel;

	if (SSL_select_next_proto(&sel, outlen, alpn_http11, sizeof(alpn_http11) - 1, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED) {
		if (t)
			t->why = "alpn-http1-only";
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

static int ssl_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[200];

	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return errbuf_set(err, errlen, -EIO, "%s: %s", what, e ? buf : "failed");
}

static X509 *pem_cert(const char *pem, size_t n)
{
	BIO *b = BIO_new_mem_buf(pem, (int)n);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	return x;
}

static EVP_PKEY *pem_key(const struct credtable_secret *s)
{
	BIO *b = BIO_new_mem_buf(s->p, (int)s->n);
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	return k;
}

/* Every certificate in pem into store. */
static int add_pem_certs(X509_STORE *store, const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x;
	int n = 0;

	while (b && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (X509_STORE_add_cert(store, x) == 1)
			n++;
		X509_free(x);
	}
	ERR_clear_error();
	BIO_free(b);
	return n;
}

/* The upstream side of host h: verified against the credential's CA or the
 * system roots (intercept_roots), its client certificate. */
static int upstream_ctx(struct ic_host *h, const struct credtable_cred *c, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	X509_STORE *store;

	if (!ctx)
		return ssl_err(err, errlen, "SSL_CTX_new");
	h->up = ctx;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_set_alpn_protos(ctx, alpn_http11, sizeof(alpn_http11) - 1) != 0 ||
	    SSL_CTX_set_ciphersuites(ctx, suites) != 1)
		return ssl_err(err, errlen, "ALPN and cipher suites");
	store = SSL_CTX_get_cert_store(ctx);
	if (c->tls_ca_pem && c->tls_ca_pem[0]) {
		if (add_pem_certs(store, c->tls_ca_pem) == 0)
			return errbuf_set(err, errlen, -EINVAL, "credential %s: tls.ca holds no certificate", c->name);
	} else
		h->system_roots = true; /* intercept_roots, at the first tunnel */
	if (c->tls_cert_pem && c->tls_cert_pem[0]) {
		BIO *b = BIO_new_mem_buf(c->tls_cert_pem, -1);
		X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL, *chain;
		EVP_PKEY *k = pem_key(&c->tls_key_pem);
		int ok = x && k && SSL_CTX_use_certificate(ctx, x) == 1 && SSL_CTX_use_PrivateKey(ctx, k) == 1 &&
			 SSL_CTX_check_private_key(ctx) == 1;

		while (ok && b && (chain = PEM_read_bio_X509(b, NULL, NULL, NULL)))
			if (SSL_CTX_add0_chain_cert(ctx, chain) != 1) {
				X509_free(chain);
				ok = 0;
			}
		X509_free(x);
		EVP_PKEY_free(k);
		BIO_free(b);
		if (!ok)
			return ssl_err(err, errlen, "the client certificate and key");
		ERR_clear_error();
	}
	return 0;
}

/* The client side of host h: a leaf for it from the session CA. */
static int client_ctx(struct intercept *ic, struct ic_host *h, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	X509 *leaf = NULL;
	int r;

	if (!ctx)
		return ssl_err(err, errlen, "SSL_CTX_new");
	h->down = ctx;
	r = tls_ca_leaf(ic->ca, ic->ca_key, ic->leaf_key, h->name, &leaf);
	if (r < 0)
		return errbuf_set(err, errlen, r, "a leaf for %s", h->name);
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA);
	if (SSL_CTX_set_ciphersuites(ctx, suites) != 1 || SSL_CTX_use_certificate(ctx, leaf) != 1 || SSL_CTX_use_PrivateKey(ctx, ic->leaf_key) != 1 ||
	    SSL_CTX_add1_chain_cert(ctx, ic->ca) != 1) {
		X509_free(leaf);
		return ssl_err(err, errlen, "the leaf");
	}
	X509_free(leaf);
	SSL_CTX_set_tlsext_servername_callback(ctx, on_servername);
	SSL_CTX_set_tlsext_servername_arg(ctx, h);
	SSL_CTX_set_alpn_select_cb(ctx, on_alpn, h);
	/* no tickets: nothing of the session outlives the process */
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	return 0;
}

/* The system's bundle, read now (the proxy opens no file once confined)
 * and parsed at the first tunnel that needs it: parsing its ~150
 * certificates took 10-30 ms, which every session start paid. Reading
 * its bytes costs a few tens of microseconds. */
static int roots_read(struct intercept *ic, char *err, size_t errlen)
{
	const char *const paths[] = { X509_get_default_cert_file(), "/etc/ssl/certs/ca-certificates.crt",
				      "/etc/pki/tls/certs/ca-bundle.crt" };
	int r = -ENOENT;

	for (size_t i = 0; r == -ENOENT && i < sizeof(paths) / sizeof(paths[0]); i++)
		r = cordon_read_file(paths[i], INTERCEPT_ROOTS_MAX, &ic->roots_pem, &ic->roots_n);
	if (r < 0)
		return errbuf_set(err, errlen, r, "the system's root certificates cannot be read: %s", strerror(-r));
	return 0;
}

static int roots_into(struct intercept *ic, struct ic_host *h)
{
	if (!h->system_roots || h->roots_set)
		return 0;
	if (!ic->roots && !ic->roots_failed) {
		X509_STORE *store = X509_STORE_new();
		BIO *b = store && ic->roots_pem ? BIO_new_mem_buf(ic->roots_pem, (int)ic->roots_n) : NULL;
		STACK_OF(X509_INFO) *info = b ? PEM_X509_INFO_read_bio(b, NULL, NULL, NULL) : NULL;
		int n = 0;

		for (int i = 0; i < sk_X509_INFO_num(info); i++) {
			X509_INFO *x = sk_X509_INFO_value(info, i);

			if (x->x509 && X509_STORE_add_cert(store, x->x509) == 1)
				n++;
			if (x->crl)
				X509_STORE_add_crl(store, x->crl);
		}
		sk_X509_INFO_pop_free(info, X509_INFO_free);
		BIO_free(b);
		ERR_clear_error();
		if (n > 0)
			ic->roots = store;
		else {
			X509_STORE_free(store);
			ic->roots_failed = true;
		}
	}
	if (!ic->roots)
		return -EIO;
	SSL_CTX_set1_cert_store(h->up, ic->roots);
	h->roots_set = true;
	return 0;
}

/* The session CA's certificate and key, from the table, parsed at start,
 * before the proxy confines itself: a table whose CA does not parse stops
 * the proxy there, not at a tunnel. */
static int ca_parse(struct intercept *ic, char *err, size_t errlen)
{
	/* the session CA's key is always an EC key in a PKCS#8 PEM
	 * (tls_ca_make): a decoder for that alone, not OpenSSL's search of
	 * every decoder of every key type, a third of the parse's time */
	const unsigned char *p = (const unsigned char *)ic->t->ca_key_pem.p;
	size_t n = ic->t->ca_key_pem.n;
	OSSL_DECODER_CTX *d = OSSL_DECODER_CTX_new_for_pkey(&ic->ca_key, "PEM", "PrivateKeyInfo", "EC",
							    OSSL_KEYMGMT_SELECT_KEYPAIR, NULL, NULL);

	if (!d || OSSL_DECODER_from_data(d, &p, &n) != 1) {
		OSSL_DECODER_CTX_free(d);
		return ssl_err(err, errlen, "the session CA's key");
	}
	OSSL_DECODER_CTX_free(d);
	ic->ca = ic->ca_key ? pem_cert(ic->t->ca_cert_pem, strlen(ic->t->ca_cert_pem)) : NULL;
	if (!ic->ca || X509_check_private_key(ic->ca, ic->ca_key) != 1)
		return ssl_err(err, errlen, "the session CA");
	return 0;
}

/* The key of every leaf, made the first time a tunnel needs it (a key
 * generated, not anything read). */
static int leaf_key_ready(struct intercept *ic, char *err, size_t errlen)
{
	if (!ic->leaf_key && !(ic->leaf_key = tls_ca_new_key()))
		return ssl_err(err, errlen, "the leaves' key");
	return 0;
}

int intercept_host_ready(struct intercept *ic, struct ic_host *h, char *err, size_t errlen)
{
	int r;

	if (!h->up && (r = upstream_ctx(h, h->cred, err, errlen)) < 0) {
		SSL_CTX_free(h->up);
		h->up = NULL;
		return r;
	}
	if (!h->down && ((r = leaf_key_ready(ic, err, errlen)) < 0 || (r = client_ctx(ic, h, err, errlen)) < 0)) {
		SSL_CTX_free(h->down);
		h->down = NULL;
		return r;
	}
	if (roots_into(ic, h) < 0)
		return errbuf_set(err, errlen, -EIO, "the system's root certificates cannot be read");
	return 0;
}

static struct ic_host *host_add(struct intercept *ic, const char *name, const struct credtable_cred *c)
{
	struct ic_host *h;

	for (size_t i = 0; i < ic->n_hosts; i++)
		if (strcmp(ic->hosts[i].name, name) == 0)
			return &ic->hosts[i];
	h = &ic->hosts[ic->n_hosts++];
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->cred = c;
	return h;
}

/* host[0..n) as the rules see it: lower case, no trailing dot. */
static bool normalise(const char *host, size_t n, char *buf, size_t size)
{
	if (n && host[n - 1] == '.')
		n--;
	if (n == 0 || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = (host[i] >= 'A' && host[i] <= 'Z') ? (char)(host[i] + 32) : host[i];
	buf[n] = '\0';
	return true;
}

struct ic_host *intercept_find(struct intercept *ic, const char *host, size_t n)
{
	char name[256];

	if (!normalise(host, n, name, sizeof(name)))
		return NULL;
	for (size_t i = 0; i < ic->n_hosts; i++)
		if (strcmp(ic->hosts[i].name, name) == 0)
			return &ic->hosts[i];
	return NULL;
}

static bool ic_wants(void *state, const char *host, size_t n)
{
	return intercept_find(state, host, n) != NULL;
}

int intercept_load(int fd, const struct proxy_intercept **ret, char *err, size_t errlen)
{
	struct intercept *ic;
	size_t total = 0;
	int r;

	/* no core dump, no ptrace by the same user: it holds secrets */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return errbuf_set(err, errlen, -errno, "PR_SET_DUMPABLE: %s", strerror(errno));
	r = credtable_secure_init();
	if (r < 0) {
		close(fd);
		return errbuf_set(err, errlen, r, "the secure heap (locked memory) cannot be set up: no credentials");
	}
	ic = calloc(1, sizeof(*ic));
	if (!ic) {
		close(fd);
		return -ENOMEM;
	}
	r = credtable_read(fd, &ic->t);
	if (r < 0) {
		close(fd);
		return errbuf_set(err, errlen, r, "the credential table: %s", strerror(-r));
	}
	/* not /etc/ssl/openssl.cnf: the proxy's TLS is what this file sets,
	 * whatever the host's configuration says (and reading it was a tenth
	 * of the proxy's start) */
	if (OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		return ssl_err(err, errlen, "OpenSSL");
	if (!ic->t->ca_cert_pem || !ic->t->ca_cert_pem[0] || !ic->t->ca_key_pem.p)
		return errbuf_set(err, errlen, -EINVAL, "the credential table holds no session CA");
	if ((r = ca_parse(ic, err, errlen)) < 0)
		return r;
	r = subst_creds_init(&ic->sc, ic->t);
	if (r < 0) {
		close(fd);
		return errbuf_set(err, errlen, r, "out of secure memory");
	}
	/* the socket the table came on: now the channel to the supervisor */
	r = intercept_chan_init(ic, fd);
	if (r < 0)
		return errbuf_set(err, errlen, r, "the credential channel: out of memory");
	for (size_t i = 0; i < ic->t->n_creds; i++)
		total += ic->t->creds[i].n_hosts;
	ic->hosts = calloc(total ? total : 1, sizeof(*ic->hosts));
	if (!ic->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < ic->t->n_creds; i++) {
		const struct credtable_cred *c = &ic->t->creds[i];

		for (size_t k = 0; k < c->n_hosts; k++) {
			struct ic_host *h;

			if (!tls_ca_host_ok(c->hosts[k]))
				return errbuf_set(err, errlen, -EINVAL, "credential %s: a bad host", c->name);
			size_t before = ic->n_hosts;

			h = host_add(ic, c->hosts[k], c);
			/* the first credential that names a client certificate
			 * or a CA for the host sets its upstream side */
			if (ic->n_hosts == before && h->cred != c && c->tls_ca_pem[0] &&
			    strcmp(h->cred->tls_ca_pem, c->tls_ca_pem) != 0)
				return errbuf_set(err, errlen, -EINVAL, "host %s: two credentials with different tls", h->name);
			if (ic->n_hosts == before)
				continue;
			h->system_roots = !c->tls_ca_pem || !c->tls_ca_pem[0];
			/* the TLS contexts are made at the host's first tunnel
			 * (intercept_host_ready): two SSL_CTX_new, a leaf key
			 * made and a leaf signed took some 2 ms of every
			 * session start. What the profile configured (tls.ca,
			 * a client certificate) is parsed now, its errors at
			 * start, like the session CA above. */
			if ((c->tls_ca_pem && c->tls_ca_pem[0]) || (c->tls_cert_pem && c->tls_cert_pem[0])) {
				if ((r = upstream_ctx(h, c, err, errlen)) < 0)
					return r;
			}
		}
	}
	for (size_t i = 0; i < ic->n_hosts; i++)
		if (ic->hosts[i].system_roots && !ic->roots_pem && (r = roots_read(ic, err, errlen)) < 0)
			return r;
	ic->hooks = (struct proxy_intercept){ .state = ic, .wants = ic_wants, .start = tunnel_start };
	*ret = &ic->hooks;
	return 0;
}
