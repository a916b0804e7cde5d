/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The credential substituter: decide and rewrite one request of an
 * intercepted tunnel (cred_subst.h). */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cred_subst.h"
#include "http_body.h"

#define B64_LEN(n) (4 * (((n) + 2) / 3))

/* base64(user ":" p[0..n)) into secure memory. */
int subst_basic_secret(const char *user, const unsigned char *p, size_t n, struct credtable_secret *ret)
{
	size_t un = strlen(user), in = un + 1 + n;
	unsigned char *raw = OPENSSL_secure_malloc(in), *b64 = OPENSSL_secure_malloc(B64_LEN(in) + 1);
	int r = -ENOMEM;

	if (raw && b64) {
		memcpy(raw, user, un);
		raw[un] = ':';
		memcpy(raw + un + 1, p, n);
		EVP_EncodeBlock(b64, raw, (int)in);
		r = credtable_secret_set(ret, b64, B64_LEN(in));
	}
	if (raw)
		OPENSSL_secure_clear_free(raw, in);
	if (b64)
		OPENSSL_secure_clear_free(b64, B64_LEN(in) + 1);
	return r;
}

int subst_creds_init(struct subst_creds *sc, const struct credtable *t)
{
	*sc = (struct subst_creds){ .t = t };
	sc->basic_real = calloc(t->n_creds ? t->n_creds : 1, sizeof(*sc->basic_real));
	sc->basic_phantom = calloc(t->n_creds ? t->n_creds : 1, sizeof(*sc->basic_phantom));
	if (!sc->basic_real || !sc->basic_phantom) {
		subst_creds_done(sc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_creds; i++) {
		const struct credtable_cred *c = &t->creds[i];
		const char *user = c->inject_name ? c->inject_name : "";
		struct credtable_secret ph = {};
		int r;

		if (c->inject != CREDTABLE_INJECT_BASIC || !c->value.p)
			continue;
		r = subst_basic_secret(user, c->value.p, c->value.n, &sc->basic_real[i]);
		if (r == 0 && c->n_phantoms) {
			r = subst_basic_secret(user, (const unsigned char *)c->phantoms[0], strlen(c->phantoms[0]), &ph);
			if (r == 0 && !(sc->basic_phantom[i] = strndup((char *)ph.p, ph.n)))
				r = -ENOMEM;
			credtable_secret_clear(&ph);
		}
		if (r < 0) {
			subst_creds_done(sc);
			return r;
		}
	}
	return 0;
}

void subst_creds_done(struct subst_creds *sc)
{
	for (size_t i = 0; sc->t && i < sc->t->n_creds; i++) {
		if (sc->basic_real)
			credtable_secret_clear(&sc->basic_real[i]);
		if (sc->basic_phantom)
			free(sc->basic_phantom[i]);
	}
	free(sc->basic_real);
	free(sc->basic_phantom);
	*sc = (struct subst_creds){};
}

static bool span_is(const struct http_span *s, const char *lit)
{
	return s->n == strlen(lit) && strncasecmp(s->p, lit, s->n) == 0;
}

static bool has(const char *p, size_t n, const void *needle, size_t nn)
{
	return nn && n >= nn && memmem(p, n, needle, nn) != NULL;
}

static bool applies(const struct credtable_cred *c, const char *host)
{
	for (size_t i = 0; i < c->n_hosts; i++)
		if (strcmp(c->hosts[i], host) == 0)
			return true;
	return false;
}

__attribute__((format(printf, 4, 5))) static int refuse(struct subst_out *out, int status, const char *reason,
							 const char *fmt, ...)
{
	va_list ap;

	out->status = status;
	out->reason = reason;
	va_start(ap, fmt);
	vsnprintf(out->detail, sizeof(out->detail), fmt, ap);
	va_end(ap);
	return -1;
}

/* In p[0..n): a string of a distinctive phantom shape of c that is not one
 * of mine (another session's, or a forged one). */
static bool foreign_shape(const struct credtable_cred *c, const char *p, size_t n)
{
	size_t pre = strlen(c->shape_prefix ? c->shape_prefix : ""), len = pre + c->shape_len;

	if (!credtable_shape_distinctive(c))
		return false;
	for (const char *q = p; (q = memmem(q, (size_t)(p + n - q), c->shape_prefix, pre)); q++) {
		bool mine = false;

		if ((size_t)(p + n - q) < len || !credtable_shape_matches(c, q, len))
			continue;
		for (size_t k = 0; k < c->n_phantoms && !mine; k++)
			mine = memcmp(c->phantoms[k], q, len) == 0 && strlen(c->phantoms[k]) == len;
		if (!mine)
			return true;
	}
	return false;
}

/* What of the table p[0..n) holds that may never pass here: a real value,
 * another consumer's phantom, a foreign shape. The credential's name. */
static const char *forbidden(const struct subst_creds *sc, const char *p, size_t n)
{
	const struct credtable *t = sc->t;

	for (size_t i = 0; i < t->n_creds; i++) {
		const struct credtable_cred *c = &t->creds[i];

		if (has(p, n, c->value.p, c->value.n) ||
		    (sc->basic_real[i].p && has(p, n, sc->basic_real[i].p, sc->basic_real[i].n)))
			return c->name;
		for (size_t k = 0; k < c->n_others; k++)
			if (has(p, n, c->others[k], strlen(c->others[k])))
				return c->name;
		if (foreign_shape(c, p, n))
			return c->name;
	}
	return NULL;
}

/* One of my phantoms in p[0..n): its credential's index, else -1. */
static int my_phantom(const struct credtable *t, const char *p, size_t n, size_t *ret_k)
{
	for (size_t i = 0; i < t->n_creds; i++)
		for (size_t k = 0; k < t->creds[i].n_phantoms; k++)
			if (has(p, n, t->creds[i].phantoms[k], strlen(t->creds[i].phantoms[k]))) {
				*ret_k = k;
				return (int)i;
			}
	return -1;
}

/* "Basic b64(user:pass)": pass, decoded into buf. */
static int basic_password(const struct http_span *v, char *buf, size_t size, const char **ret_pass, size_t *ret_n)
{
	size_t b = 6, e = v->n, pad = 0;
	int n;
	char *colon;

	if (v->n < 6 || strncasecmp(v->p, "Basic ", 6) != 0)
		return -1;
	while (b < e && v->p[b] == ' ')
		b++;
	if (e - b == 0 || (e - b) % 4 || B64_LEN(e - b) / 4 * 3 + 1 > size || (e - b) / 4 * 3 >= size)
		return -1;
	for (size_t i = e; i > b && v->p[i - 1] == '=' && pad < 2; i--)
		pad++;
	n = EVP_DecodeBlock((unsigned char *)buf, (const unsigned char *)v->p + b, (int)(e - b));
	if (n < 0 || (size_t)n < pad)
		return -1;
	n -= (int)pad;
	buf[n] = '\0';
	colon = memchr(buf, ':', (size_t)n);
	if (!colon)
		return -1;
	*ret_pass = colon + 1;
	*ret_n = (size_t)(buf + n - colon - 1);
	return 0;
}

static void put(struct subst_out *out, const char *p, size_t n, bool secret)
{
	if (out->n < SUBST_PIECES_MAX && n)
		out->piece[out->n++] = (struct subst_piece){ p, n, secret };
}

static void put_str(struct subst_out *out, const char *s)
{
	put(out, s, strlen(s), false);
}

/* A query parameter named name whose value is exactly a phantom of cred i:
 * where its value starts in the target, else NULL. */
static const char *query_value(const struct http_span *t, const char *name, const char *phantom)
{
	const char *q = memchr(t->p, '?', t->n), *end = t->p + t->n;
	size_t nn = strlen(name), pn = strlen(phantom);

	for (const char *p = q ? q + 1 : end; p < end;) {
		const char *amp = memchr(p, '&', (size_t)(end - p)), *e = amp ? amp : end;

		if ((size_t)(e - p) == nn + 1 + pn && memcmp(p, name, nn) == 0 && p[nn] == '=' &&
		    memcmp(p + nn + 1, phantom, pn) == 0)
			return p + nn + 1;
		p = e + 1;
	}
	return NULL;
}

static bool query_has_param(const struct http_span *t, const char *name)
{
	const char *q = memchr(t->p, '?', t->n), *end = t->p + t->n;
	size_t nn = strlen(name);

	for (const char *p = q ? q + 1 : end; p < end;) {
		const char *amp = memchr(p, '&', (size_t)(end - p)), *e = amp ? amp : end;

		if ((size_t)(e - p) >= nn && strncasecmp(p, name, nn) == 0 && (p + nn == e || p[nn] == '='))
			return true;
		p = e + 1;
	}
	return false;
}

static bool host_matches(const struct http_span *v, const char *host, unsigned port)
{
	size_t hn = strlen(host);
	char ps[8];

	if (v->n < hn || strncasecmp(v->p, host, hn) != 0)
		return false;
	if (v->n == hn)
		return true;
	snprintf(ps, sizeof(ps), ":%u", port);
	return v->n - hn == strlen(ps) && memcmp(v->p + hn, ps, strlen(ps)) == 0;
}

int subst_request(const struct subst_creds *sc, const char *host, unsigned port, const struct http_head *h,
		  struct subst_out *out)
{
	static const char *const overrides[] = { "x-http-method-override", "x-http-method", "x-method-override" };
	const struct credtable *t = sc->t;
	char basic[1024];
	int spent = -1, host_hdr = -1, inject_hdr = -1;
	const char *query_at = NULL, *why, *pass;
	size_t k, pn;

	out->n = 0;
	out->cred = NULL;
	out->rule = NULL;
	out->path[0] = '\0';
	for (size_t i = 0; i < h->n_headers; i++) {
		const struct http_span *name = &h->name[i], *value = &h->value[i];

		if (span_is(name, "host")) {
			if (host_hdr >= 0)
				return refuse(out, 400, "host-mismatch", "%s", "two Host headers");
			host_hdr = (int)i;
		}
		for (size_t o = 0; o < 3; o++)
			if (span_is(name, overrides[o]))
				return refuse(out, 403, "method-override", "%s refused on a credential host", overrides[o]);
		if (span_is(name, "upgrade"))
			return refuse(out, 403, "upgrade-refused", "%s", "no protocol upgrade (WebSocket) on a credential host");
		if ((why = forbidden(sc, name->p, name->n)) || (why = forbidden(sc, value->p, value->n)))
			return refuse(out, 403, "credential-not-granted", "a value of credential %s not granted here", why);
		if (span_is(name, "authorization") && basic_password(value, basic, sizeof(basic), &pass, &pn) == 0 &&
		    (why = forbidden(sc, pass, pn))) {
			OPENSSL_cleanse(basic, sizeof(basic));
			return refuse(out, 403, "credential-not-granted", "a value of credential %s not granted here", why);
		}
		/* my phantoms: only in their credential's place */
		int ci = my_phantom(t, name->p, name->n, &k);
		bool basic_form = false;

		if (ci < 0)
			ci = my_phantom(t, value->p, value->n, &k);
		if (ci < 0 && span_is(name, "authorization") && basic_password(value, basic, sizeof(basic), &pass, &pn) == 0) {
			ci = my_phantom(t, pass, pn, &k);
			basic_form = ci >= 0 && pn == strlen(t->creds[ci].phantoms[k]);
		}
		OPENSSL_cleanse(basic, sizeof(basic));
		if (ci < 0)
			continue;
		const struct credtable_cred *c = &t->creds[ci];
		bool placed = c->inject == CREDTABLE_INJECT_HEADER ? span_is(name, c->inject_name)
			      : c->inject == CREDTABLE_INJECT_BASIC ? basic_form
								      : false;

		if (!placed || !applies(c, host))
			return refuse(out, 403, "credential-not-granted", "a phantom of credential %s is not usable here",
				      c->name);
		if ((spent >= 0 && spent != ci) || inject_hdr >= 0)
			return refuse(out, 403, "credential-not-granted", "%s", "two credentials in one request");
		spent = ci;
		inject_hdr = (int)i;
	}
	if (host_hdr < 0 || !host_matches(&h->value[host_hdr], host, port))
		return refuse(out, 403, "host-mismatch", "%s", "the Host header is not the tunnel's host");
	if (query_has_param(&h->path, "_method"))
		return refuse(out, 403, "method-override", "%s", "_method refused on a credential host");
	/* the method token is no place for a value either: the real one, a
	 * foreign phantom or one of this sandbox's own would go upstream as
	 * written (found by fuzz-cred-subst) */
	if ((why = forbidden(sc, h->method.p, h->method.n)) || my_phantom(t, h->method.p, h->method.n, &k) >= 0)
		return refuse(out, 403, "credential-not-granted", "%s", "a credential's value in the request's method");
	if ((why = forbidden(sc, h->path.p, h->path.n)))
		return refuse(out, 403, "credential-not-granted", "a value of credential %s not granted here", why);
	{
		int ci = my_phantom(t, h->path.p, h->path.n, &k);

		if (ci >= 0) {
			const struct credtable_cred *c = &t->creds[ci];

			query_at = c->inject == CREDTABLE_INJECT_QUERY ? query_value(&h->path, c->inject_name, c->phantoms[k])
								       : NULL;
			if (!query_at || !applies(c, host) || (spent >= 0 && spent != ci))
				return refuse(out, 403, "credential-not-granted",
					      "a phantom of credential %s is not usable here", c->name);
			/* one phantom in the target, the one in its parameter */
			if (memmem(query_at + strlen(c->phantoms[k]), (size_t)(h->path.p + h->path.n - query_at) -
				   strlen(c->phantoms[k]), c->phantoms[k], strlen(c->phantoms[k])) ||
			    memmem(h->path.p, (size_t)(query_at - h->path.p), c->phantoms[k], strlen(c->phantoms[k])))
				return refuse(out, 403, "credential-not-granted", "%s", "a phantom outside its parameter");
			spent = ci;
		}
	}
	if (spent >= 0) {
		const struct credtable_cred *c = &t->creds[spent];
		char method[33];

		if (endpoint_canon_path(h->path.p, h->path.n, out->path, sizeof(out->path), &why) < 0)
			return refuse(out, 403, why, "%s", "an ambiguous path is refused where a credential is spent");
		snprintf(method, sizeof(method), "%.*s", (int)(h->method.n < 32 ? h->method.n : 32), h->method.p);
		out->cred = c;
		out->action = endpoint_decide(&c->policy, method, out->path, &out->rule);
		if (out->action == CREDTABLE_DENY)
			return refuse(out, 403, "endpoint-denied", "%s",
				      out->rule && out->rule->reason[0] ? out->rule->reason : "the endpoint policy denies it");
		/* an approval asked of the supervisor, for this request */
		if (out->action == CREDTABLE_APPROVE && !out->approved)
			return SUBST_ASK_APPROVAL;
		/* a capture's value, asked for on its first use */
		if (!c->value.p)
			return SUBST_ASK_VALUE;
	}
	/* the rewritten head */
	put(out, h->method.p, h->method.n, false);
	put_str(out, " ");
	if (query_at) {
		const struct credtable_cred *c = &t->creds[spent];
		size_t pl = strlen(c->phantoms[k]);

		put(out, h->path.p, (size_t)(query_at - h->path.p), false);
		put(out, (const char *)c->value.p, c->value.n, true);
		put(out, query_at + pl, (size_t)(h->path.p + h->path.n - query_at - pl), false);
	} else
		put(out, h->path.p, h->path.n, false);
	if (port != 443)
		snprintf(out->host_line, sizeof(out->host_line), " HTTP/1.1\r\nHost: %s:%u\r\n", host, port);
	else
		snprintf(out->host_line, sizeof(out->host_line), " HTTP/1.1\r\nHost: %s\r\n", host);
	put_str(out, out->host_line);
	for (size_t i = 0; i < h->n_headers; i++) {
		if ((http_header_is_hop(&h->name[i]) && !span_is(&h->name[i], "connection")) ||
		    span_is(&h->name[i], "accept-encoding"))
			continue;
		if (span_is(&h->name[i], "connection"))
			continue; /* hop-by-hop: whether to close is said below */
		put(out, h->name[i].p, h->name[i].n, false);
		put_str(out, ": ");
		if ((int)i == inject_hdr) {
			const struct credtable_cred *c = &t->creds[spent];

			if (c->inject == CREDTABLE_INJECT_BASIC) {
				put_str(out, "Basic ");
				put(out, (const char *)sc->basic_real[spent].p, sc->basic_real[spent].n, true);
			} else {
				const char *at = strstr(c->format, "{}");

				put(out, c->format, (size_t)(at - c->format), false);
				put(out, (const char *)c->value.p, c->value.n, true);
				put_str(out, at + 2);
			}
		} else
			put(out, h->value[i].p, h->value[i].n, false);
		put_str(out, "\r\n");
	}
	if (http_request_closes(h))
		put_str(out, "Connection: close\r\n");
	put_str(out, "Accept-Encoding: identity\r\n\r\n");
	if (out->n >= SUBST_PIECES_MAX)
		return refuse(out, 431, "header-too-large", "%s", "too many headers to rewrite");
	return 0;
}
