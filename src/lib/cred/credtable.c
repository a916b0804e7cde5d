/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential table's secure memory, its encoder and its decoder (see
 * credtable.h). The body, in order:
 *
 *   str:ca_cert secret:ca_key  u32:n_creds  then per credential
 *     str:name  u32:n_hosts str*  u8:inject str:inject_name str:format
 *     str:shape_prefix u32:shape_len u8:shape_alphabet
 *     u32:n_phantoms str*  u32:n_others str*
 *     u8:default u32:n_rules (u8:action str:method str:path str:reason)*
 *     str:tls_ca str:tls_cert secret:tls_key secret:value
 *
 * A secret is a string whose bytes are copied from the secure body buffer
 * into a secure allocation of their own.
 */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "credtable.h"
#include "error.h"

int credtable_secure_init(void)
{
	if (CRYPTO_secure_malloc_initialized())
		return 0;
	/* 1: the heap is mmap'ed, locked and guarded; 2: mlock failed (the
	 * heap works but may be swapped out): both refused but 1 */
	if (CRYPTO_secure_malloc_init(CREDTABLE_SECURE_HEAP, 16) != 1)
		return -ENOMEM;
	return 0;
}

int credtable_secret_set(struct credtable_secret *s, const void *p, size_t n)
{
	unsigned char *q;

	if (!CRYPTO_secure_malloc_initialized())
		return -ENOMEM;
	q = OPENSSL_secure_malloc(n + 1);
	if (!q)
		return -ENOMEM;
	if (n)
		memcpy(q, p, n);
	q[n] = '\0';
	credtable_secret_clear(s);
	s->p = q;
	s->n = n;
	return 0;
}

void credtable_secret_clear(struct credtable_secret *s)
{
	if (s->p)
		OPENSSL_secure_clear_free(s->p, s->n + 1);
	s->p = NULL;
	s->n = 0;
}

static void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void cred_done(struct credtable_cred *c)
{
	free(c->name);
	strv_free_n(c->hosts, c->n_hosts);
	free(c->inject_name);
	free(c->format);
	free(c->shape_prefix);
	strv_free_n(c->phantoms, c->n_phantoms);
	strv_free_n(c->others, c->n_others);
	for (size_t i = 0; c->policy.rules && i < c->policy.n_rules; i++) {
		free(c->policy.rules[i].method);
		free(c->policy.rules[i].path);
		free(c->policy.rules[i].reason);
	}
	free(c->policy.rules);
	free(c->tls_ca_pem);
	free(c->tls_cert_pem);
	credtable_secret_clear(&c->tls_key_pem);
	credtable_secret_clear(&c->value);
}

void credtable_free(struct credtable *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->creds && i < t->n_creds; i++)
		cred_done(&t->creds[i]);
	free(t->creds);
	free(t->ca_cert_pem);
	free(t->java_store);
	credtable_secret_clear(&t->ca_key_pem);
	free(t);
}

static bool has_ctl(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\0' || p[i] == '\r' || p[i] == '\n')
			return true;
	return false;
}

static bool empty(const char *s)
{
	return !s || !s[0];
}

int credtable_check(const struct credtable *t, struct cordon_error *reterr)
{
	if (empty(t->ca_cert_pem) || !t->ca_key_pem.p)
		return error_set(reterr, -EINVAL, "the table has no session CA");
	if (t->n_creds > CREDTABLE_CREDS_MAX)
		return error_set(reterr, -EINVAL, "more than %d credentials", CREDTABLE_CREDS_MAX);
	for (size_t i = 0; i < t->n_creds; i++) {
		const struct credtable_cred *c = &t->creds[i];

		if (empty(c->name))
			return error_set(reterr, -EINVAL, "credential %zu has no name", i);
		if (!c->n_hosts || c->n_hosts > CREDTABLE_HOSTS_MAX)
			return error_set(reterr, -EINVAL, "credential %s: no hosts, or too many", c->name);
		for (size_t h = 0; h < c->n_hosts; h++)
			if (empty(c->hosts[h]))
				return error_set(reterr, -EINVAL, "credential %s: an empty host", c->name);
		if (c->inject != CREDTABLE_INJECT_HEADER && c->inject != CREDTABLE_INJECT_BASIC &&
		    c->inject != CREDTABLE_INJECT_QUERY)
			return error_set(reterr, -EINVAL, "credential %s: no inject kind", c->name);
		if (empty(c->inject_name) && c->inject != CREDTABLE_INJECT_BASIC)
			return error_set(reterr, -EINVAL, "credential %s: inject names nothing", c->name);
		if (c->inject == CREDTABLE_INJECT_HEADER && (!c->format || !strstr(c->format, "{}")))
			return error_set(reterr, -EINVAL, "credential %s: the format has no {}", c->name);
		/* an entry without a value is a credential not granted here
		 * (its hosts intercepted so its phantoms are refused: no
		 * phantom of its own, no client certificate), or a granted
		 * capture whose value the proxy asks for on its first use
		 * (its phantoms, no value yet) */
		if (!c->value.p && !c->n_phantoms && (!empty(c->tls_cert_pem) || c->tls_key_pem.p))
			return error_set(reterr, -EINVAL, "credential %s: phantoms or a client certificate without a value",
					 c->name);
		if (c->value.p && (!c->value.n || has_ctl(c->value.p, c->value.n)))
			return error_set(reterr, -EINVAL, "credential %s: the value is empty or holds CR, LF or NUL",
					 c->name);
		if (empty(c->tls_cert_pem) != !c->tls_key_pem.p)
			return error_set(reterr, -EINVAL, "credential %s: a client certificate without its key, or the reverse",
					 c->name);
		if (c->n_phantoms > CREDTABLE_PHANTOMS_MAX || c->n_others > CREDTABLE_PHANTOMS_MAX ||
		    c->policy.n_rules > CREDTABLE_RULES_MAX)
			return error_set(reterr, -EINVAL, "credential %s: too many phantoms or rules", c->name);
		if (c->policy.dflt < CREDTABLE_DENY || c->policy.dflt > CREDTABLE_ALLOW)
			return error_set(reterr, -EINVAL, "credential %s: no default action", c->name);
		for (size_t r = 0; r < c->policy.n_rules; r++)
			if (c->policy.rules[r].action < CREDTABLE_DENY || c->policy.rules[r].action > CREDTABLE_ALLOW ||
			    empty(c->policy.rules[r].method) || empty(c->policy.rules[r].path))
				return error_set(reterr, -EINVAL, "credential %s: rule %zu is incomplete", c->name, r);
	}
	return 0;
}

/* ---- encoder: pieces gathered in an iovec, flushed when full ---- */

struct wr {
	int fd;
	struct iovec iov[64];
	unsigned char small[64][4]; /* the u32 and u8 pieces */
	size_t n, n_small;
	int err;
};

static void wr_flush(struct wr *w)
{
	size_t i = 0;

	while (!w->err && i < w->n) {
		ssize_t k = writev(w->fd, w->iov + i, (int)(w->n - i));

		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
			break;
		}
		while (k > 0 && i < w->n) {
			if ((size_t)k >= w->iov[i].iov_len) {
				k -= (ssize_t)w->iov[i].iov_len;
				i++;
			} else {
				w->iov[i].iov_base = (char *)w->iov[i].iov_base + k;
				w->iov[i].iov_len -= (size_t)k;
				k = 0;
			}
		}
	}
	w->n = w->n_small = 0;
}

static void wr_put(struct wr *w, const void *p, size_t n)
{
	if (w->n == 64 || w->n_small == 64)
		wr_flush(w);
	if (n)
		w->iov[w->n++] = (struct iovec){ .iov_base = (void *)p, .iov_len = n };
}

static void wr_u32(struct wr *w, uint32_t v)
{
	unsigned char *b;

	if (w->n == 64 || w->n_small == 64)
		wr_flush(w);
	b = w->small[w->n_small++];
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
	wr_put(w, b, 4);
}

static void wr_u8(struct wr *w, unsigned v)
{
	unsigned char *b;

	if (w->n == 64 || w->n_small == 64)
		wr_flush(w);
	b = w->small[w->n_small++];
	b[0] = (unsigned char)v;
	wr_put(w, b, 1);
}

/* Length-counting pass and writing pass share the walk: w NULL counts. */
static void put_bytes(struct wr *w, size_t *len, const void *p, size_t n)
{
	*len += 4 + n;
	if (w) {
		wr_u32(w, (uint32_t)n);
		wr_put(w, p, n);
	}
}

static void put_str(struct wr *w, size_t *len, const char *s)
{
	put_bytes(w, len, s ? s : "", s ? strlen(s) : 0);
}

static void put_u32(struct wr *w, size_t *len, uint32_t v)
{
	*len += 4;
	if (w)
		wr_u32(w, v);
}

static void put_u8(struct wr *w, size_t *len, unsigned v)
{
	*len += 1;
	if (w)
		wr_u8(w, v);
}

static void put_strv(struct wr *w, size_t *len, char *const *v, size_t n)
{
	put_u32(w, len, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_str(w, len, v[i]);
}

static void put_body(struct wr *w, size_t *len, const struct credtable *t)
{
	put_str(w, len, t->ca_cert_pem);
	put_bytes(w, len, t->ca_key_pem.p, t->ca_key_pem.n);
	put_u32(w, len, (uint32_t)t->n_creds);
	for (size_t i = 0; i < t->n_creds; i++) {
		const struct credtable_cred *c = &t->creds[i];

		put_str(w, len, c->name);
		put_strv(w, len, c->hosts, c->n_hosts);
		put_u8(w, len, c->inject);
		put_str(w, len, c->inject_name);
		put_str(w, len, c->format);
		put_str(w, len, c->shape_prefix);
		put_u32(w, len, c->shape_len);
		put_u8(w, len, c->shape_alphabet);
		put_strv(w, len, c->phantoms, c->n_phantoms);
		put_strv(w, len, c->others, c->n_others);
		put_u8(w, len, c->policy.dflt);
		put_u32(w, len, (uint32_t)c->policy.n_rules);
		for (size_t r = 0; r < c->policy.n_rules; r++) {
			put_u8(w, len, c->policy.rules[r].action);
			put_str(w, len, c->policy.rules[r].method);
			put_str(w, len, c->policy.rules[r].path);
			put_str(w, len, c->policy.rules[r].reason);
		}
		put_str(w, len, c->tls_ca_pem);
		put_str(w, len, c->tls_cert_pem);
		put_bytes(w, len, c->tls_key_pem.p, c->tls_key_pem.n);
		put_bytes(w, len, c->value.p, c->value.n);
	}
}

/* The CA's subject hash (OpenSSL's c_rehash name, "%08x.0"): the runner,
 * which does not load libcrypto, names the trust store's link with it. */
static int ca_subject_hash(const char *pem, uint32_t *ret)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	if (!x)
		return -EINVAL;
	*ret = (uint32_t)X509_subject_name_hash(x);
	X509_free(x);
	return 0;
}

int credtable_write(int fd, const struct credtable *t)
{
	uint32_t hash = 0;
	struct wr w = { .fd = fd };
	size_t len = 0, ca = strlen(t->ca_cert_pem ? t->ca_cert_pem : "");
	int r;

	r = credtable_check(t, NULL);
	if (r < 0)
		return r;
	if (ca > CREDTABLE_PUBLIC_MAX || t->java_store_n > CREDTABLE_STORE_MAX)
		return -E2BIG;
	r = ca_subject_hash(t->ca_cert_pem, &hash);
	if (r < 0)
		return r;
	put_body(NULL, &len, t);
	if (len > CREDTABLE_SECRET_MAX)
		return -E2BIG;
	wr_put(&w, CREDTABLE_MAGIC, 4);
	wr_u32(&w, CREDTABLE_VERSION);
	wr_u32(&w, (uint32_t)ca);
	wr_put(&w, t->ca_cert_pem, ca);
	wr_u32(&w, hash);
	wr_u32(&w, t->java_store ? (uint32_t)t->java_store_n : 0);
	if (t->java_store)
		wr_put(&w, t->java_store, t->java_store_n);
	wr_u32(&w, (uint32_t)len);
	put_body(&w, &(size_t){ 0 }, t);
	wr_flush(&w);
	return w.err;
}

/* ---- decoder: a bounded cursor over the body ---- */

struct rd {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static uint32_t rd_u32(struct rd *r)
{
	const unsigned char *b;

	if (r->bad || r->n - r->off < 4) {
		r->bad = true;
		return 0;
	}
	b = r->p + r->off;
	r->off += 4;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static unsigned rd_u8(struct rd *r)
{
	if (r->bad || r->off >= r->n) {
		r->bad = true;
		return 0;
	}
	return r->p[r->off++];
}

/* A span of the body: its length first, capped. */
static const unsigned char *rd_span(struct rd *r, size_t *ret_n)
{
	uint32_t n = rd_u32(r);
	const unsigned char *p;

	if (r->bad || n > CREDTABLE_STRING_MAX || r->n - r->off < n) {
		r->bad = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	*ret_n = n;
	return p;
}

/* A plain string: no NUL inside. */
static char *rd_str(struct rd *r)
{
	size_t n = 0;
	const unsigned char *p = rd_span(r, &n);
	char *s;

	if (!p || memchr(p, '\0', n)) {
		r->bad = true;
		return NULL;
	}
	s = strndup((const char *)p, n);
	if (!s)
		r->bad = true;
	return s;
}

static void rd_secret(struct rd *r, struct credtable_secret *s)
{
	size_t n = 0;
	const unsigned char *p = rd_span(r, &n);

	if (!p)
		return;
	if (n && credtable_secret_set(s, p, n) < 0)
		r->bad = true;
}

static char **rd_strv(struct rd *r, size_t *ret_n, size_t max)
{
	uint32_t n = rd_u32(r);
	char **v;

	if (r->bad || n > max || n > (r->n - r->off) / 4) {
		r->bad = true;
		return NULL;
	}
	v = calloc(n + 1, sizeof(*v));
	if (!v) {
		r->bad = true;
		return NULL;
	}
	*ret_n = n;
	for (size_t i = 0; i < n && !r->bad; i++)
		v[i] = rd_str(r);
	return v;
}

static void rd_cred(struct rd *r, struct credtable_cred *c)
{
	uint32_t n;

	c->name = rd_str(r);
	c->hosts = rd_strv(r, &c->n_hosts, CREDTABLE_HOSTS_MAX);
	c->inject = rd_u8(r);
	c->inject_name = rd_str(r);
	c->format = rd_str(r);
	c->shape_prefix = rd_str(r);
	c->shape_len = rd_u32(r);
	c->shape_alphabet = rd_u8(r);
	c->phantoms = rd_strv(r, &c->n_phantoms, CREDTABLE_PHANTOMS_MAX);
	c->others = rd_strv(r, &c->n_others, CREDTABLE_PHANTOMS_MAX);
	c->policy.dflt = rd_u8(r);
	n = rd_u32(r);
	if (r->bad || n > CREDTABLE_RULES_MAX || n > (r->n - r->off) / 13) {
		r->bad = true;
		return;
	}
	c->policy.rules = calloc(n ? n : 1, sizeof(*c->policy.rules));
	if (!c->policy.rules) {
		r->bad = true;
		return;
	}
	c->policy.n_rules = n;
	for (size_t i = 0; i < n && !r->bad; i++) {
		c->policy.rules[i].action = rd_u8(r);
		c->policy.rules[i].method = rd_str(r);
		c->policy.rules[i].path = rd_str(r);
		c->policy.rules[i].reason = rd_str(r);
	}
	c->tls_ca_pem = rd_str(r);
	c->tls_cert_pem = rd_str(r);
	rd_secret(r, &c->tls_key_pem);
	rd_secret(r, &c->value);
}

int credtable_decode(const unsigned char *body, size_t n, struct credtable **ret)
{
	struct credtable *t = calloc(1, sizeof(*t));
	struct rd r = { .p = body, .n = n };
	uint32_t k;

	if (!t)
		return -ENOMEM;
	if (!CRYPTO_secure_malloc_initialized()) {
		credtable_free(t);
		return -ENOMEM;
	}
	if (n > CREDTABLE_SECRET_MAX)
		r.bad = true;
	t->ca_cert_pem = rd_str(&r);
	rd_secret(&r, &t->ca_key_pem);
	k = rd_u32(&r);
	if (r.bad || k > CREDTABLE_CREDS_MAX || k > (n - r.off) / 16)
		r.bad = true;
	else if (!(t->creds = calloc(k ? k : 1, sizeof(*t->creds))))
		r.bad = true;
	else
		t->n_creds = k;
	for (size_t i = 0; !r.bad && i < t->n_creds; i++)
		rd_cred(&r, &t->creds[i]);
	if (r.bad || r.off != n || credtable_check(t, NULL) < 0) {
		credtable_free(t);
		return -EBADMSG;
	}
	*ret = t;
	return 0;
}

/* The body of n bytes from fd: straight into secure memory (it holds
 * every secret), decoded, zeroed. */
static int read_body(int fd, uint32_t n, struct credtable **ret)
{
	unsigned char *body;
	int r;

	if (!CRYPTO_secure_malloc_initialized())
		return -ENOMEM;
	if (n > CREDTABLE_SECRET_MAX)
		return -EBADMSG;
	body = OPENSSL_secure_malloc(n ? n : 1);
	if (!body)
		return -ENOMEM;
	r = credtable_read_full(fd, body, n);
	if (r == 0)
		r = credtable_decode(body, n, ret);
	OPENSSL_secure_clear_free(body, n ? n : 1);
	return r;
}

int credtable_read(int fd, struct credtable **ret)
{
	unsigned char first[4];
	uint32_t n;
	int r;

	/* the public part, unless the runner read it already: "CRDT" read as a
	 * length is far over CREDTABLE_SECRET_MAX, so the two cannot be taken
	 * for each other */
	r = credtable_read_full(fd, first, 4);
	if (r < 0)
		return r;
	if (memcmp(first, CREDTABLE_MAGIC, 4) == 0) {
		char *pem = NULL;
		uint32_t hash;

		r = credtable_read_public_after_magic(fd, &pem, &hash, NULL, NULL);
		if (r < 0)
			return r;
		free(pem); /* the body carries the CA too */
		r = credtable_read_u32(fd, &n);
		if (r < 0)
			return r;
	} else
		n = (uint32_t)first[0] | (uint32_t)first[1] << 8 | (uint32_t)first[2] << 16 | (uint32_t)first[3] << 24;
	return read_body(fd, n, ret);
}

bool credtable_shape_distinctive(const struct credtable_cred *c)
{
	return c->shape_prefix && strlen(c->shape_prefix) >= 3 && c->shape_len >= 16;
}

static bool in_alphabet(enum credtable_alphabet a, unsigned char ch)
{
	bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

	switch (a) {
	case CREDTABLE_ALPHA_HEX:
		return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
	case CREDTABLE_ALPHA_ALNUM_LOWER:
		return alnum;
	case CREDTABLE_ALPHA_BASE64URL:
		if (ch == '-' || ch == '_')
			return true;
		/* fall through */
	case CREDTABLE_ALPHA_BASE62:
		return alnum || (ch >= 'A' && ch <= 'Z');
	}
	return false;
}

bool credtable_shape_matches(const struct credtable_cred *c, const char *p, size_t n)
{
	size_t pre = c->shape_prefix ? strlen(c->shape_prefix) : 0;

	if (n != pre + c->shape_len || (pre && memcmp(p, c->shape_prefix, pre) != 0))
		return false;
	for (size_t i = pre; i < n; i++)
		if (!in_alphabet(c->shape_alphabet, (unsigned char)p[i]))
			return false;
	return true;
}
