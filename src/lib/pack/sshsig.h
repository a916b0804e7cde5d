/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * SSH signatures (`ssh-keygen -Y sign`, OpenSSH's PROTOCOL.sshsig) read and
 * checked with OpenSSL: the armored text parsed under caps, the public key
 * in it, and the signature over "SSHSIG" || namespace || reserved ||
 * hash algorithm || H(message). Keys: Ed25519, ECDSA P-256, RSA with
 * rsa-sha2-512 or rsa-sha2-256; ssh-rsa (SHA-1) and security keys (sk-*)
 * are refused by name.
 */
#include <stddef.h>
#include <stdint.h>

#include "cordon/common.h"

/* Caps on what an untrusted signature file may make us hold. */
#define SSHSIG_MAX_ARMORED (16 * 1024)
#define SSHSIG_MAX_BLOB (8 * 1024)

struct sshsig {
	uint8_t *pubkey; /* the signer's public key blob, as in allowed_signers */
	size_t pubkey_len;
	char *namespace;
	char *hash_alg; /* "sha512" or "sha256" */
	uint8_t *signature; /* string sig_type, string sig_bytes */
	size_t signature_len;
};

void sshsig_free(struct sshsig *s);

/* Parse an armored SSH signature; -EBADMSG (reason set) if malformed. */
int sshsig_parse(const char *text, size_t len, struct sshsig **ret, struct cordon_error *reterr);

/* Whether sig is a valid signature by its own key over msg in namespace:
 * 0 if so, -EBADMSG / -EKEYREJECTED / -EPROTONOSUPPORT with the reason. */
int sshsig_verify(const struct sshsig *sig, const char *namespace, const void *msg, size_t msg_len,
		  struct cordon_error *reterr);

/* Whether a public key blob is of a type cordon accepts (0), else the
 * reason. Its type name into type_name (at most 32 bytes) if not NULL. */
int sshkey_blob_check(const uint8_t *blob, size_t len, char *type_name, struct cordon_error *reterr);

/* Base64 (no whitespace) decoded into a new buffer of at most cap bytes. */
int ssh_base64_decode(const char *s, size_t len, size_t cap, uint8_t **ret, size_t *ret_len);
