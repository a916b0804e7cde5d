/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JVM's PKCS#12 trust store of a session (trust_store.h). */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The host's bundle: Debian's, Fedora's, Alpine's and macOS's. */
static BIO *open_host_bundle(void)
{
	static const char *const paths[] = { "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
					     "/etc/ssl/cert.pem", NULL };
	BIO *b = NULL;

	for (size_t i = 0; !b && paths[i]; i++)
		b = BIO_new_file(paths[i], "r");
	return b;
}

int trust_store_make(const char *bundle, const char *ca_pem, unsigned char **ret, size_t *ret_n)
{
	_cleanup_bags_ STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
	STACK_OF(PKCS7) *safes = NULL;
	ASN1_OBJECT *any_eku = OBJ_txt2obj("2.5.29.37.0", 1);
	BIO *in = NULL;
	char *ca_name = NULL, *ca_header = NULL;
	unsigned char *ca_der = NULL;
	long ca_len = 0;
	PKCS12 *p12 = NULL;
	unsigned char *der = NULL;
	char alias[32];
	int n = 0, len, r = -ENOMEM;

	if (!any_eku)
		return -ENOMEM;
	in = bundle ? BIO_new_file(bundle, "r") : open_host_bundle();
	/* the host's roots: a bundle we cannot open leaves only the CA */
	while (in) {
		char *name = NULL, *header = NULL;
		unsigned char *data = NULL;
		long dlen = 0;

		if (PEM_read_bio(in, &name, &header, &data, &dlen) != 1)
			break;
		if (strcmp(name, PEM_STRING_X509) == 0 || strcmp(name, PEM_STRING_X509_OLD) == 0) {
			if (++n > TRUST_STORE_CERTS_MAX)
				r = -E2BIG;
			else {
				snprintf(alias, sizeof(alias), "host-root-%d", n);
				r = push_trusted(&bags, der_cert_bag(data, dlen), alias, any_eku);
			}
		} else
			r = 0; /* not a certificate (a TRUSTED CERTIFICATE's aux, a CRL): skipped */
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(data);
		if (r < 0)
			goto out;
	}
	ERR_clear_error(); /* the bundle's end */
	BIO_free(in);
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
	/* nid -1: the bags unencrypted (certificates are public) */
	if (!PKCS12_add_safe(&safes, bags, -1, 0, NULL) || !(p12 = PKCS12_add_safes(safes, 0)) ||
	    PKCS12_set_mac(p12, TRUST_STORE_PASSWORD, -1, NULL, 0, PKCS12_DEFAULT_ITER, EVP_sha256()) != 1)
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
