/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The session CA (tls_ca.c): constrained to the credential hosts. */
#include <criterion/criterion.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <string.h>

#include "credtable.h"
#include "tls_ca.h"

static char *hosts[] = { "api.example.test", "uploads.example.test" };

/* leaf verifies under ca for host (a hostname check included). */
static int verify(X509 *ca, X509 *leaf, const char *host)
{
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok, err;

	X509_STORE_add_cert(st, ca);
	X509_STORE_CTX_init(ctx, st, leaf, NULL);
	X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), host, 0);
	ok = X509_verify_cert(ctx);
	err = X509_STORE_CTX_get_error(ctx);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	return ok == 1 ? 0 : err;
}

Test(tls_ca, leaves_only_for_the_credential_hosts)
{
	struct credtable_secret key = {};
	char *pem = NULL;
	BIO *b;
	X509 *ca, *leaf = NULL, *other = NULL;
	EVP_PKEY *ca_key, *lk = tls_ca_new_key();

	cr_assert_eq(credtable_secure_init(), 0);
	cr_assert_eq(tls_ca_make(hosts, 2, &pem, &key), 0);
	cr_assert(CRYPTO_secure_allocated(key.p), "the CA key lives in secure memory");
	cr_assert(strstr((char *)key.p, "PRIVATE KEY"));
	b = BIO_new_mem_buf(pem, -1);
	ca = PEM_read_bio_X509(b, NULL, NULL, NULL);
	BIO_free(b);
	b = BIO_new_mem_buf(key.p, (int)key.n);
	ca_key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	BIO_free(b);
	cr_assert(ca && ca_key);
	cr_assert_eq(X509_get_extension_flags(ca) & EXFLAG_CA, EXFLAG_CA);
	cr_assert_eq(X509_get_pathlen(ca), 0);
	cr_assert_eq(EVP_PKEY_get_base_id(ca_key), EVP_PKEY_EC);
	cr_assert_eq(tls_ca_leaf(ca, ca_key, lk, "api.example.test", &leaf), 0);
	cr_assert_eq(verify(ca, leaf, "api.example.test"), 0, "the control: a credential host's leaf verifies");
	cr_assert_neq(verify(ca, leaf, "example.test"), 0);
	/* a leaf the proxy would never make, made anyway: the name
	 * constraints refuse it, whoever holds the CA key */
	cr_assert_eq(tls_ca_leaf(ca, ca_key, lk, "www.bank.test", &other), 0);
	cr_assert_eq(verify(ca, other, "www.bank.test"), X509_V_ERR_PERMITTED_VIOLATION);
	cr_assert_eq(tls_ca_make((char *[]){ "a,permitted;DNS:x" }, 1, &pem, &key), -EINVAL);
	X509_free(leaf);
	X509_free(other);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(lk);
	free(pem);
	credtable_secret_clear(&key);
}

/* seconds from now to t (negative: past) */
static long from_now(const ASN1_TIME *t)
{
	int days = 0, secs = 0;

	cr_assert_eq(ASN1_TIME_diff(&days, &secs, NULL, t), 1);
	return days * 86400L + secs;
}

Test(tls_ca, a_leaf_lives_within_its_ca)
{
	struct credtable_secret key = {};
	char *pem = NULL;
	BIO *b;
	X509 *ca, *leaf = NULL, *old;
	EVP_PKEY *ca_key, *lk = tls_ca_new_key();
	long nb;

	cr_assert_eq(credtable_secure_init(), 0);
	cr_assert_eq(tls_ca_make(hosts, 2, &pem, &key), 0);
	b = BIO_new_mem_buf(pem, -1);
	ca = PEM_read_bio_X509(b, NULL, NULL, NULL);
	BIO_free(b);
	b = BIO_new_mem_buf(key.p, (int)key.n);
	ca_key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	BIO_free(b);
	cr_assert(ca && ca_key && lk);
	cr_assert_eq(tls_ca_leaf(ca, ca_key, lk, "api.example.test", &leaf), 0);
	/* from five minutes ago (a client a little behind), never before the CA */
	nb = from_now(X509_get0_notBefore(leaf));
	cr_assert(nb <= -290 && nb >= -310, "not before: %ld s from now", nb);
	cr_assert_geq(ASN1_TIME_compare(X509_get0_notBefore(leaf), X509_get0_notBefore(ca)), 0);
	/* until the CA's end exactly, never after it */
	cr_assert_eq(ASN1_TIME_compare(X509_get0_notAfter(leaf), X509_get0_notAfter(ca)), 0);
	cr_assert_eq(verify(ca, leaf, "api.example.test"), 0);
	/* a CA that has ended issues nothing (the control above: the same
	 * CA key, a CA still valid) */
	old = X509_dup(ca);
	cr_assert(X509_gmtime_adj(X509_getm_notBefore(old), -3 * 86400L) && X509_gmtime_adj(X509_getm_notAfter(old), -60));
	X509_free(leaf);
	leaf = NULL;
	cr_assert_eq(tls_ca_leaf(old, ca_key, lk, "api.example.test", &leaf), -EKEYEXPIRED);
	cr_assert_null(leaf);
	X509_free(old);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(lk);
	free(pem);
	credtable_secret_clear(&key);
}
