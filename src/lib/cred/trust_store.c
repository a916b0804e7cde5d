/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JVM's PKCS#12 trust store of a session (trust_store.h). */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "trust_store.h"

#define _cleanup_bags_ __attribute__((cleanup(bags_freep)))

static void bags_freep(STACK_OF(PKCS12_SAFEBAG) **b)
{
	sk_PKCS12_SAFEBAG_pop_free(*b, PKCS12_SAFEBAG_free);
}

/* bag, a certificate's, marked trusted for Java and named alias, onto
 * bags (taken either way). */
static int push_trusted(STACK_OF(PKCS12_SAFEBAG) **bags, PKCS12_SAFEBAG *bag, const char *alias,
			const ASN1_OBJECT *any_eku)
{
	if (!bag || (!*bags && !(*bags = sk_PKCS12_SAFEBAG_new_null()))) {
		PKCS12_SAFEBAG_free(bag);
		return -ENOMEM;
	}
	/* len -1: the data is an ASN1_OBJECT, set as it is */
	if (PKCS12_add1_attr_by_txt(bag, TRUST_STORE_JDK_OID, V_ASN1_OBJECT, (const unsigned char *)any_eku, -1) != 1 ||
	    PKCS12_add_friendlyname_asc(bag, alias, -1) != 1 || !sk_PKCS12_SAFEBAG_push(*bags, bag)) {
		PKCS12_SAFEBAG_free(bag);
		return -EIO;
	}
	return 0;
}

/* A certificate bag holding der (a certificate's DER from the host's own
 * bundle) as it is: decoding ~150 certificates into X509 costs OpenSSL 3
 * tens of milliseconds (each public key through its decoders), at every
 * session start, for bytes the bag only copies. An ASN1_ANY of type
 * SEQUENCE is encoded as its content, the whole DER. */
/* der[0..len) is one DER SEQUENCE, whole (OpenSSL reads its header): what
 * a bag may carry as it is. A block that is not (a corrupt bundle) would
 * make a store the JVM cannot read at all. */
static bool der_one_sequence(const unsigned char *der, long len)
{
	const unsigned char *p = der;
	long plen = 0;
	int tag = 0, class = 0;

	if (len <= 0 || (ASN1_get_object(&p, &plen, &tag, &class, len) & 0x80) || tag != V_ASN1_SEQUENCE ||
	    class != V_ASN1_UNIVERSAL)
		return false;
	return p + plen == der + len;
}

static PKCS12_SAFEBAG *der_cert_bag(const unsigned char *der, long len)
{
	ASN1_TYPE *t = ASN1_TYPE_new();
	ASN1_STRING *seq = ASN1_STRING_type_new(V_ASN1_SEQUENCE);
	PKCS12_SAFEBAG *bag = NULL;

	if (t && seq && len > 0 && der[0] == 0x30 && ASN1_STRING_set(seq, der, (int)len) == 1) {
		ASN1_TYPE_set(t, V_ASN1_SEQUENCE, seq);
		seq = NULL;
		bag = PKCS12_item_pack_safebag(t, ASN1_ITEM_rptr(ASN1_ANY), NID_x509Certificate, NID_certBag);
	}
	ASN1_STRING_free(seq);
	ASN1_TYPE_free(t);
	return bag;
}

/* The DER of the PEM block's base64 body b64[0..n), decoded by OpenSSL
 * in one block once the line breaks (and blanks) are out (EVP_DecodeUpdate, which
 * looks at every character for line ends, took twice as long); NULL when
 * it does not decode. */
static unsigned char *b64_der(const char *b64, size_t n, int *ret_len)
{
	_cleanup_free_ char *flat = n < INT_MAX / 3 ? malloc(n + 1) : NULL;
	unsigned char *der = NULL;
	size_t k = 0, pad = 0;
	int len;

	if (!flat)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (b64[i] != '\n' && b64[i] != '\r' && b64[i] != ' ' && b64[i] != '\t')
			flat[k++] = b64[i];
	while (pad < 2 && k > pad && flat[k - 1 - pad] == '=')
		pad++;
	if (k == 0 || k % 4 != 0 || !(der = malloc(k / 4 * 3 + 1)))
		return NULL;
	len = EVP_DecodeBlock(der, (const unsigned char *)flat, (int)k);
	/* EVP_DecodeBlock counts the padding's bytes: one per '=' */
	if (len < 0 || (size_t)len <= pad) {
		free(der);
		return NULL;
	}
	*ret_len = len - (int)pad;
	return der;
}

/* The next certificate block of pem[*off..n) ("CERTIFICATE" or "X509
 * CERTIFICATE"; any other block, a TRUSTED CERTIFICATE's or a CRL's, is
 * skipped), its base64 body in *b64, *b64_n; false at the end. The
 * armour is found here and the base64 decoded by OpenSSL: PEM_read_bio
 * reads and decodes line by line, through a BIO, and took 1.3 ms of the
 * store's ~2.5 for the 144 roots of Debian's bundle; this, 0.25. */
static bool next_cert(const char *pem, size_t n, size_t *off, const char **b64, size_t *b64_n)
{
	static const char begin[] = "-----BEGIN ", dashes[] = "-----";

	while (*off < n) {
		const char *p = memmem(pem + *off, n - *off, begin, sizeof(begin) - 1), *label, *end, *body;
		char endline[64];
		size_t ln;
		int w;

		if (!p)
			break;
		label = p + sizeof(begin) - 1;
		end = memmem(label, (size_t)(pem + n - label), dashes, sizeof(dashes) - 1);
		if (!end)
			break;
		ln = (size_t)(end - label);
		body = end + sizeof(dashes) - 1;
		*off = (size_t)(body - pem);
		w = snprintf(endline, sizeof(endline), "-----END %.*s-----", (int)(ln < 40 ? ln : 40), label);
		end = ln < 40 ? memmem(body, (size_t)(pem + n - body), endline, (size_t)w) : NULL;
		if (!end)
			continue;
		*off = (size_t)(end - pem) + (size_t)w;
		if ((ln == 11 && memcmp(label, "CERTIFICATE", 11) == 0) ||
		    (ln == 16 && memcmp(label, "X509 CERTIFICATE", 16) == 0)) {
			*b64 = body;
			*b64_n = (size_t)(end - body);
			return true;
		}
	}
	return false;
}

/* The host's bundle (Debian's, Fedora's, Alpine's and macOS's), or
 * bundle: the first that reads, whole; -ENOENT when none does. */
static int read_bundle(const char *bundle, char **ret, size_t *ret_n)
{
	static const char *const paths[] = { "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
					     "/etc/ssl/cert.pem", NULL };
	int r = -ENOENT;

	if (bundle)
		return read_file_capped(bundle, TRUST_STORE_BUNDLE_MAX, true, ret, ret_n);
	for (size_t i = 0; r < 0 && r != -EFBIG && paths[i]; i++)
		r = read_file_capped(paths[i], TRUST_STORE_BUNDLE_MAX, true, ret, ret_n);
	return r;
}

int trust_store_make(const char *bundle, const char *ca_pem, unsigned char **ret, size_t *ret_n)
{
	_cleanup_bags_ STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
	_cleanup_free_ char *pem = NULL;
	STACK_OF(PKCS7) *safes = NULL;
	ASN1_OBJECT *any_eku = OBJ_txt2obj("2.5.29.37.0", 1);
	const char *b64;
	size_t pem_n = 0, off = 0, b64_n;
	BIO *in = NULL;
	char *ca_name = NULL, *ca_header = NULL;
	unsigned char *ca_der = NULL;
	long ca_len = 0;
	PKCS12 *p12 = NULL;
	unsigned char *der = NULL;
	char alias[32];
	int n = 0, len, r;

	if (!any_eku)
		return -ENOMEM;
	/* the host's roots: a bundle we cannot read leaves only the CA */
	r = read_bundle(bundle, &pem, &pem_n);
	if (r == -EFBIG || r == -ENOMEM) {
		r = r == -EFBIG ? -E2BIG : r;
		goto out;
	}
	while (pem && next_cert(pem, pem_n, &off, &b64, &b64_n)) {
		unsigned char *cert = b64_der(b64, b64_n, &len);

		/* a block that does not decode, or not to one DER SEQUENCE:
		 * skipped (PEM_read_bio stopped there; a bag of it failed
		 * the whole store) */
		if (!cert || !der_one_sequence(cert, len)) {
			free(cert);
			continue;
		}
		if (++n > TRUST_STORE_CERTS_MAX)
			r = -E2BIG;
		else {
			snprintf(alias, sizeof(alias), "host-root-%d", n);
			r = push_trusted(&bags, der_cert_bag(cert, len), alias, any_eku);
		}
		free(cert);
		if (r < 0)
			goto out;
	}
	ERR_clear_error(); /* what a skipped block's header left */
	/* the CA as its DER too: decoding it into an X509 (its public key
	 * through OpenSSL 3's decoders) was a tenth of the store's time */
	in = BIO_new_mem_buf(ca_pem, -1);
	if (!in || PEM_read_bio(in, &ca_name, &ca_header, &ca_der, &ca_len) != 1 ||
	    strcmp(ca_name, PEM_STRING_X509) != 0) {
		r = -EINVAL;
		goto out;
	}
	if ((r = push_trusted(&bags, der_cert_bag(ca_der, ca_len), "cordon-session-ca", any_eku)) < 0)
		goto out;
	r = -EIO;
	/* nid -1: the bags unencrypted, and no MAC (certificates are
	 * public: a MAC under a published password guards nothing, and its
	 * 2048 iterations and HMAC over the ~200 KB were a fifth of the
	 * store's time). The JDK reads a store without a MAC (its MacData
	 * is optional), whatever trustStorePassword says. */
	if (!PKCS12_add_safe(&safes, bags, -1, 0, NULL) || !(p12 = PKCS12_add_safes(safes, 0)))
		goto out;
	len = i2d_PKCS12(p12, &der);
	if (len <= 0)
		goto out;
	if ((size_t)len > TRUST_STORE_MAX) {
		r = -E2BIG;
		goto out;
	}
	*ret = malloc((size_t)len);
	if (!*ret) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(*ret, der, (size_t)len);
	*ret_n = (size_t)len;
	r = 0;
out:
	OPENSSL_free(der);
	PKCS12_free(p12);
	sk_PKCS7_pop_free(safes, PKCS7_free);
	OPENSSL_free(ca_name);
	OPENSSL_free(ca_header);
	OPENSSL_free(ca_der);
	BIO_free(in);
	ASN1_OBJECT_free(any_eku);
	return r;
}
