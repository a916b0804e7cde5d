/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The session CA and its leaves (tls_ca.h). */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls_ca.h"

#define CA_DAYS 1
/* a leaf is valid from a few minutes ago (a client's clock a little
 * behind the host's) to its CA's end, never beyond */
#define LEAF_SKEW_SECONDS 300
#define NC_MAX 16384

bool tls_ca_host_ok(const char *host)
{
	size_t n = strlen(host);

	if (n == 0 || n > 253 || host[0] == '.' || host[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((host[i] >= 'a' && host[i] <= 'z') || (host[i] >= '0' && host[i] <= '9') || host[i] == '.' ||
		      host[i] == '-'))
			return false;
	return true;
}

EVP_PKEY *tls_ca_new_key(void)
{
	return EVP_EC_gen("P-256");
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return -EIO;
	ok = X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -EIO;
}

/* 128 random bits, positive. */
static int set_serial(X509 *cert)
{
	unsigned char b[16];
	BIGNUM *bn;
	int ok;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -EIO;
	b[0] &= 0x7f;
	bn = BN_bin2bn(b, sizeof(b), NULL);
	ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
	BN_free(bn);
	return ok ? 0 : -EIO;
}

/* A certificate of key for subject CN cn, issued by issuer (NULL:
 * self-signed), valid from an hour ago for CA_DAYS. */
static X509 *new_cert(EVP_PKEY *key, const char *cn, X509 *issuer)
{
	X509 *cert = X509_new();
	X509_NAME *name;

	if (!cert)
		return NULL;
	name = X509_get_subject_name(cert);
	if (X509_set_version(cert, 2) != 1 || set_serial(cert) < 0 ||
	    !X509_gmtime_adj(X509_getm_notBefore(cert), -3600) ||
	    !X509_gmtime_adj(X509_getm_notAfter(cert), 86400L * CA_DAYS) ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0) != 1 ||
	    X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name) != 1 ||
	    X509_set_pubkey(cert, key) != 1) {
		X509_free(cert);
		return NULL;
	}
	return cert;
}

static int name_constraints(char *const *hosts, size_t n, char *buf, size_t size)
{
	size_t off;
	int w;

	w = snprintf(buf, size, "critical");
	off = (size_t)w;
	for (size_t i = 0; i < n; i++) {
		if (!tls_ca_host_ok(hosts[i]))
			return -EINVAL;
		w = snprintf(buf + off, size - off, ",permitted;DNS:%s", hosts[i]);
		if (w < 0 || (size_t)w >= size - off)
			return -E2BIG;
		off += (size_t)w;
	}
	w = snprintf(buf + off, size - off,
		     ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:0:0:0:0:0:0:0:0/0:0:0:0:0:0:0:0");
	return w < 0 || (size_t)w >= size - off ? -E2BIG : 0;
}

int tls_ca_make(char *const *hosts, size_t n, char **ret_cert_pem, struct credtable_secret *ret_key_pem)
{
	char nc[NC_MAX], cn[64], *pem = NULL;
	unsigned char id[6];
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	BIO *out = NULL, *sec = NULL;
	BUF_MEM *bm;
	int r;

	if (n == 0)
		return -EINVAL;
	r = name_constraints(hosts, n, nc, sizeof(nc));
	if (r < 0)
		return r;
	if (RAND_bytes(id, sizeof(id)) != 1)
		return -EIO;
	snprintf(cn, sizeof(cn), "cordon session CA %02x%02x%02x%02x%02x%02x", id[0], id[1], id[2], id[3], id[4],
		 id[5]);
	r = -EIO;
	key = tls_ca_new_key();
	if (!key || !(cert = new_cert(key, cn, NULL)))
		goto out;
	if (add_ext(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") < 0 ||
	    add_ext(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
	    add_ext(cert, cert, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(cert, cert, NID_name_constraints, nc) < 0 || X509_sign(cert, key, EVP_sha256()) <= 0)
		goto out;
	out = BIO_new(BIO_s_mem());
	sec = BIO_new(BIO_s_secmem());
	if (!out || !sec || PEM_write_bio_X509(out, cert) != 1 ||
	    PEM_write_bio_PrivateKey(sec, key, NULL, NULL, 0, NULL, NULL) != 1)
		goto out;
	BIO_get_mem_ptr(out, &bm);
	pem = strndup(bm->data, bm->length);
	if (!pem) {
		r = -ENOMEM;
		goto out;
	}
	BIO_get_mem_ptr(sec, &bm);
	r = credtable_secret_set(ret_key_pem, bm->data, bm->length);
	if (r < 0) {
		free(pem);
		goto out;
	}
	*ret_cert_pem = pem;
	r = 0;
out:
	BIO_free(out);
	BIO_free(sec); /* a secmem BIO clears its buffer */
	X509_free(cert);
	EVP_PKEY_free(key);
	return r;
}

int tls_ca_leaf(X509 *ca, EVP_PKEY *ca_key, EVP_PKEY *key, const char *host, X509 **ret)
{
	char san[300];
	X509 *cert;

	if (!tls_ca_host_ok(host))
		return -EINVAL;
	/* the CA expired (a session older than CA_DAYS): a leaf under it
	 * would only be refused by the client, so none is made */
	if (X509_cmp_current_time(X509_get0_notAfter(ca)) <= 0)
		return -EKEYEXPIRED;
	cert = new_cert(key, host, ca);
	if (!cert)
		return -ENOMEM;
	if (!X509_gmtime_adj(X509_getm_notBefore(cert), -LEAF_SKEW_SECONDS) ||
	    (ASN1_TIME_compare(X509_get0_notBefore(cert), X509_get0_notBefore(ca)) < 0 &&
	     X509_set1_notBefore(cert, X509_get0_notBefore(ca)) != 1) ||
	    X509_set1_notAfter(cert, X509_get0_notAfter(ca)) != 1) {
		X509_free(cert);
		return -EIO;
	}
	snprintf(san, sizeof(san), "DNS:%s", host);
	if (add_ext(cert, ca, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
	    add_ext(cert, ca, NID_key_usage, "critical,digitalSignature") < 0 ||
	    add_ext(cert, ca, NID_ext_key_usage, "serverAuth") < 0 || add_ext(cert, ca, NID_subject_alt_name, san) < 0 ||
	    add_ext(cert, ca, NID_authority_key_identifier, "keyid:always") < 0 ||
	    X509_sign(cert, ca_key, EVP_sha256()) <= 0) {
		X509_free(cert);
		return -EIO;
	}
	*ret = cert;
	return 0;
}
