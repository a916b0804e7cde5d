/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The JVM's trust store for the sandboxes of a session with credentials
 * (issue 23): the JVM reads no PEM bundle and no SSL_CERT_FILE, only a key
 * store, so the supervisor makes one PKCS#12 per session (the host's roots
 * and the session CA, certificates only, unencrypted bags, no MAC: every
 * entry is public, and a MAC under a published password would guard
 * nothing; the JDK reads such a store whatever TRUST_STORE_PASSWORD it is
 * given)
 * and the runner writes it into the sandbox's /etc/ssl/certs (trust.h).
 * Each certificate bag carries the attribute Java needs to take an entry
 * for a trusted certificate: Oracle's trusted key usage
 * (2.16.840.1.113894.746875.1.1) = anyExtendedKeyUsage, as
 * `openssl pkcs12 -jdktrust anyExtendedKeyUsage` writes it (OpenSSL 3.2);
 * without it the JDK's PKCS12 key store skips a certificate that has no
 * key. One job: making that store, with OpenSSL, in memory.
 */

#include <stddef.h>

#define TRUST_STORE_MAX (768 * 1024)   /* the store's DER */
#define TRUST_STORE_CERTS_MAX 1024     /* certificates read from the host's bundle */
#define TRUST_STORE_BUNDLE_MAX (16 * 1024 * 1024) /* the host's bundle, read whole */
#define TRUST_STORE_PASSWORD "changeit" /* the JDK's own cacerts's: public */
#define TRUST_STORE_JDK_OID "2.16.840.1.113894.746875.1.1"

/* The store (DER, malloc'd) of every certificate of the PEM bundle at
 * bundle (NULL: the host's, the first of the usual paths that reads; a
 * bundle that does not read: none; each certificate block's DER carried
 * as it is, not parsed) and the PEM certificate ca_pem, last. -EINVAL
 * (ca_pem is not a certificate), -E2BIG (over the caps), -ENOMEM, -EIO. */
int trust_store_make(const char *bundle, const char *ca_pem, unsigned char **ret, size_t *ret_n);
