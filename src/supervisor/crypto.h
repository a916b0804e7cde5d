/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The supervisor's one copy of its hashes, MACs and random ids, on
 * OpenSSL's libcrypto (never hand-rolled). Only cordon-supervisor links
 * this: the lean cordon binary must not load libcrypto.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX (2 * SHA256_BYTES + 1) /* with the NUL */

/* hex[2n+1]: lower-case hex of n bytes, NUL-terminated. */
void hex_encode(const uint8_t *in, size_t n, char *hex);
/* 0 and out[n] from exactly 2n hex digits; -EINVAL otherwise. */
int hex_decode(const char *hex, uint8_t *out, size_t n);

int sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES]);
int sha256_hex(const void *data, size_t len, char out[SHA256_HEX]);
/* The SHA-256 of what fd reads from offset 0 to its end (pread: the file
 * offset is left alone); at most max_bytes (0: no cap; -EFBIG beyond). */
int sha256_fd(int fd, uint64_t max_bytes, uint8_t out[SHA256_BYTES]);
/* The same, given up with -ECANCELED as soon as another thread sets *stop
 * (checked between reads of 64 KiB). */
int sha256_fd_until(int fd, uint64_t max_bytes, const atomic_bool *stop, uint8_t out[SHA256_BYTES]);

/* The SHA-256 of a list of strings in an unambiguous encoding: the count,
 * then each string's length and bytes (the count and lengths 64-bit
 * big-endian), so no two different lists hash alike by moving bytes or
 * empty strings between elements. v is NULL-terminated; NULL is the empty
 * list. */
int sha256_strv_hex(const char *const *v, char out[SHA256_HEX]);

/* HMAC-SHA256 of data under key. */
int hmac_sha256(const void *key, size_t key_len, const void *data, size_t len, uint8_t out[SHA256_BYTES]);

/* Constant-time comparison of n bytes: 1 equal, 0 not. */
int bytes_equal(const void *a, const void *b, size_t n);

/*
 * Ed25519 (OpenSSL EVP): a key made in memory and never written anywhere
 * (the audit log's head is signed with one per session), its public half
 * and signatures as hex, and a check of a signature by hex key.
 */
#define ED25519_PUB_BYTES 32
#define ED25519_PUB_HEX	  (2 * ED25519_PUB_BYTES + 1)
#define ED25519_SIG_BYTES 64
#define ED25519_SIG_HEX	  (2 * ED25519_SIG_BYTES + 1)
struct signing_key;
int signing_key_new(struct signing_key **ret);
/* NULL is fine; returns NULL. */
struct signing_key *signing_key_free(struct signing_key *k);
int signing_key_public_hex(const struct signing_key *k, char out[ED25519_PUB_HEX]);
int signing_key_sign_hex(const struct signing_key *k, const void *msg, size_t len, char out[ED25519_SIG_HEX]);
/* 0: sig_hex is pub_hex's signature of msg; -EBADMSG: it is not; -EINVAL:
 * either is not hex of the right length. */
int ed25519_verify_hex(const char *pub_hex, const void *msg, size_t len, const char *sig_hex);

/* n random bytes as 2n hex digits (getrandom; blocks only before the
 * kernel's pool is seeded). hex holds 2n+1. */
int random_hex(size_t n, char *hex);
