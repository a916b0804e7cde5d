/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JVM's trust store (trust_store.c): every certificate of the bundle
 * and the CA, each a bag with Java's trusted key usage attribute; the
 * bundle's other blocks skipped. */
#include <criterion/criterion.h>
#include <errno.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trust_store.h"

static char *pem_of(X509 *x)
{
	BIO *b = BIO_new(BIO_s_mem());
	BUF_MEM *m;
	char *s;

	cr_assert(b && PEM_write_bio_X509(b, x) == 1);
	BIO_get_mem_ptr(b, &m);
	s = strndup(m->data, m->length);
	BIO_free(b);
	return s;
}

static X509 *self_signed(const char *cn)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();

	cr_assert(k && x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, k);
	cr_assert(X509_sign(x, k, EVP_sha256()) > 0);
	EVP_PKEY_free(k);
	return x;
}

Test(trust_store, every_certificate_trusted_for_java)
{
	char bundle[] = "/tmp/test-trust-store-XXXXXX";
	int fd = mkstemp(bundle);
	X509 *roots[2] = { self_signed("root one"), self_signed("root two") }, *ca = self_signed("cordon session CA");
	char *ca_pem = pem_of(ca), *p;
	unsigned char *der = NULL;
	const unsigned char *q;
	size_t n = 0;
	PKCS12 *p12;
	STACK_OF(PKCS7) *safes;
	ASN1_OBJECT *jdk = OBJ_txt2obj(TRUST_STORE_JDK_OID, 1), *any = OBJ_txt2obj("2.5.29.37.0", 1);
	int certs = 0;

	cr_assert(fd >= 0);
	for (int i = 0; i < 2; i++) {
		/* between the two: what a bundle may hold beside certificates,
		 * each skipped (a TRUSTED CERTIFICATE's block, a block that is
		 * not base64, certificate blocks whose bytes are not one whole
		 * DER SEQUENCE, an unterminated BEGIN's text, comments) */
		static const char other[] = "# a comment\n-----BEGIN TRUSTED CERTIFICATE-----\nMAo=\n"
					    "-----END TRUSTED CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\n"
					    "not base64 at all!\n-----END CERTIFICATE-----\n"
					    "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n"
					    "-----BEGIN CERTIFICATE-----\nMAo=\n-----END CERTIFICATE-----\n"
					    "-----BEGIN X509 CRL-----\n";

		p = pem_of(roots[i]);
		cr_assert_eq(write(fd, p, strlen(p)), (ssize_t)strlen(p));
		free(p);
		if (i == 0)
			cr_assert_eq(write(fd, other, sizeof(other) - 1), (ssize_t)sizeof(other) - 1);
	}
	close(fd);
	cr_assert_eq(trust_store_make(bundle, ca_pem, &der, &n), 0);
	q = der;
	p12 = d2i_PKCS12(NULL, &q, (long)n);
	cr_assert(p12);
	cr_assert_eq(PKCS12_mac_present(p12), 0, "no MAC: the entries are public (the JDK reads it without one)");
	safes = PKCS12_unpack_authsafes(p12);
	cr_assert(safes);
	for (int i = 0; i < sk_PKCS7_num(safes); i++) {
		STACK_OF(PKCS12_SAFEBAG) *bags = PKCS12_unpack_p7data(sk_PKCS7_value(safes, i));

		cr_assert(bags, "the bags are not encrypted");
		for (int j = 0; j < sk_PKCS12_SAFEBAG_num(bags); j++) {
			const PKCS12_SAFEBAG *bag = sk_PKCS12_SAFEBAG_value(bags, j);
			const STACK_OF(X509_ATTRIBUTE) *attrs = PKCS12_SAFEBAG_get0_attrs(bag);
			const ASN1_TYPE *t = NULL;
			X509 *x = PKCS12_SAFEBAG_get1_cert(bag);

			cr_assert_eq(PKCS12_SAFEBAG_get_nid(bag), NID_certBag);
			cr_assert(x);
			if (certs == 2)
				cr_assert_eq(X509_cmp(x, ca), 0, "the session CA comes last");
			else
				cr_assert_eq(X509_cmp(x, roots[certs]), 0, "the bundle's roots, in order");
			/* Java's trusted key usage (an OID OpenSSL 3.0 has no
			 * NID for): the OBJECT anyExtendedKeyUsage */
			for (int k = 0; k < sk_X509_ATTRIBUTE_num(attrs); k++) {
				X509_ATTRIBUTE *a = sk_X509_ATTRIBUTE_value(attrs, k);

				if (OBJ_cmp(X509_ATTRIBUTE_get0_object(a), jdk) == 0)
					t = X509_ATTRIBUTE_get0_type(a, 0);
			}
			cr_assert(t, "certificate %d has the trusted key usage attribute", certs);
			cr_assert_eq(t->type, V_ASN1_OBJECT);
			cr_assert_eq(OBJ_cmp(t->value.object, any), 0);
			certs++;
			X509_free(x);
		}
		sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
	}
	cr_assert_eq(certs, 3);
	/* no certificate: refused; a bundle that does not open: the CA alone */
	cr_assert_eq(trust_store_make(bundle, "not a certificate", &(unsigned char *){ NULL }, &n), -EINVAL);
	free(der);
	unlink(bundle);
	cr_assert_eq(trust_store_make(bundle, ca_pem, &der, &n), 0);
	free(der);
	sk_PKCS7_pop_free(safes, PKCS7_free);
	PKCS12_free(p12);
	ASN1_OBJECT_free(jdk);
	ASN1_OBJECT_free(any);
	X509_free(roots[0]);
	X509_free(roots[1]);
	X509_free(ca);
	free(ca_pem);
}
