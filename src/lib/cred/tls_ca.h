/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The per-session CA a credential proxy issues its leaves from, and the
 * leaves. One job: making certificates with OpenSSL, in memory.
 *
 * The CA: ECDSA P-256, self-signed, valid for a day (a session is shorter;
 * a leaked certificate soon stops mattering), basicConstraints CA pathlen:0,
 * keyUsage keyCertSign, and name constraints that permit only the
 * credential hosts (and exclude every IP address): a sandbox that trusts it
 * trusts it for nothing else. The private key is written only into secure
 * memory (BIO_s_secmem), never to a file.
 */

#include <stddef.h>

#include "credtable.h"

typedef struct x509_st X509;
typedef struct evp_pkey_st EVP_PKEY;

/* A host name the CA can be constrained to: [a-z0-9.-], 1..253 bytes. */
bool tls_ca_host_ok(const char *host);

/* The session CA for hosts[0..n): its certificate (PEM, malloc'd) and its
 * key (PEM, secure memory). The secure heap must be set up
 * (credtable_secure_init). -EINVAL (a host refused), -ENOMEM, -EIO. */
int tls_ca_make(char *const *hosts, size_t n, char **ret_cert_pem, struct credtable_secret *ret_key_pem);

/* A fresh ECDSA P-256 key (the proxy's one leaf key). NULL on failure. */
EVP_PKEY *tls_ca_new_key(void);

/* A leaf for host, with key, issued by ca/ca_key: SAN DNS:host,
 * serverAuth, valid from a few minutes ago (clock skew), never before the
 * CA, until the CA's end, never after it. -EKEYEXPIRED (the CA has
 * expired), -ENOMEM, -EIO. */
int tls_ca_leaf(X509 *ca, EVP_PKEY *ca_key, EVP_PKEY *key, const char *host, X509 **ret);
