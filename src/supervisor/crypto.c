/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "crypto.h"
#include "hex.h"

void hex_encode(const uint8_t *in, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[in[i] >> 4];
		hex[2 * i + 1] = digits[in[i] & 0xf];
	}
	hex[2 * n] = '\0';
}

int hex_decode(const char *hex, uint8_t *out, size_t n)
{
	if (strlen(hex) != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit_value(hex[2 * i]), lo = hex_digit_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
	unsigned int n = 0;

	if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1 || n != SHA256_BYTES)
		return -EIO;
	return 0;
}

int sha256_hex(const void *data, size_t len, char out[SHA256_HEX])
{
	uint8_t md[SHA256_BYTES];
	int r = sha256(data, len, md);

	if (r < 0)
		return r;
	hex_encode(md, sizeof(md), out);
	return 0;
}

int sha256_fd(int fd, uint64_t max_bytes, uint8_t out[SHA256_BYTES])
{
	return sha256_fd_until(fd, max_bytes, NULL, out);
}

int sha256_fd_until(int fd, uint64_t max_bytes, const atomic_bool *stop, uint8_t out[SHA256_BYTES])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t buf[65536];
	uint64_t off = 0;
	unsigned int n = 0;
	int r = 0;

	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		r = -EIO;
		goto out;
	}
	for (;;) {
		ssize_t l;

		if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
			r = -ECANCELED;
			goto out;
		}
		l = pread(fd, buf, sizeof(buf), (off_t)off);

		if (l < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (l == 0)
			break;
		off += (uint64_t)l;
		if (max_bytes && off > max_bytes) {
			r = -EFBIG;
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)l) != 1) {
			r = -EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, out, &n) != 1 || n != SHA256_BYTES)
		r = -EIO;
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

static void put_be64(uint8_t b[8], uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

int sha256_strv_hex(const char *const *v, char out[SHA256_HEX])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t md[SHA256_BYTES], len[8];
	uint64_t n = 0;
	unsigned int mdlen = 0;
	int r = -EIO;

	if (!ctx)
		return -ENOMEM;
	while (v && v[n])
		n++;
	put_be64(len, n);
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 || EVP_DigestUpdate(ctx, len, sizeof(len)) != 1)
		goto out;
	for (uint64_t i = 0; i < n; i++) {
		size_t l = strlen(v[i]);

		put_be64(len, l);
		if (EVP_DigestUpdate(ctx, len, sizeof(len)) != 1 || EVP_DigestUpdate(ctx, v[i], l) != 1)
			goto out;
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != SHA256_BYTES)
		goto out;
	hex_encode(md, sizeof(md), out);
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

int hmac_sha256(const void *key, size_t key_len, const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
	unsigned int n = 0;

	if (key_len > INT32_MAX)
		return -EINVAL;
	if (!HMAC(EVP_sha256(), key, (int)key_len, data, len, out, &n) || n != SHA256_BYTES)
		return -EIO;
	return 0;
}

int bytes_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

int random_hex(size_t n, char *hex)
{
	uint8_t buf[64];

	if (n > sizeof(buf))
		return -EINVAL;
	for (size_t got = 0; got < n;) {
		ssize_t l = getrandom(buf + got, n - got, 0);

		if (l < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)l;
	}
	hex_encode(buf, n, hex);
	return 0;
}

/* ---- Ed25519 ---- */

struct signing_key {
	EVP_PKEY *pkey;
};

int signing_key_new(struct signing_key **ret)
{
	struct signing_key *k = calloc(1, sizeof(*k));
	EVP_PKEY_CTX *ctx;

	if (!k)
		return -ENOMEM;
	ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	if (!ctx || EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_keygen(ctx, &k->pkey) <= 0) {
		EVP_PKEY_CTX_free(ctx);
		free(k);
		return -EIO;
	}
	EVP_PKEY_CTX_free(ctx);
	*ret = k;
	return 0;
}

struct signing_key *signing_key_free(struct signing_key *k)
{
	if (k) {
		EVP_PKEY_free(k->pkey); /* OpenSSL clears the private key as it frees it */
		free(k);
	}
	return NULL;
}

int signing_key_public_hex(const struct signing_key *k, char out[ED25519_PUB_HEX])
{
	uint8_t pub[ED25519_PUB_BYTES];
	size_t n = sizeof(pub);

	if (EVP_PKEY_get_raw_public_key(k->pkey, pub, &n) <= 0 || n != sizeof(pub))
		return -EIO;
	hex_encode(pub, n, out);
	return 0;
}

int signing_key_sign_hex(const struct signing_key *k, const void *msg, size_t len, char out[ED25519_SIG_HEX])
{
	uint8_t sig[ED25519_SIG_BYTES];
	size_t n = sizeof(sig);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int r = -EIO;

	if (ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) > 0 &&
	    EVP_DigestSign(ctx, sig, &n, msg, len) > 0 && n == sizeof(sig)) {
		hex_encode(sig, n, out);
		r = 0;
	}
	EVP_MD_CTX_free(ctx);
	return r;
}

int ed25519_verify_hex(const char *pub_hex, const void *msg, size_t len, const char *sig_hex)
{
	uint8_t pub[ED25519_PUB_BYTES], sig[ED25519_SIG_BYTES];
	EVP_PKEY *pkey;
	EVP_MD_CTX *ctx;
	int r;

	if (!pub_hex || !sig_hex || strlen(pub_hex) != 2 * sizeof(pub) || strlen(sig_hex) != 2 * sizeof(sig) ||
	    hex_decode(pub_hex, pub, sizeof(pub)) < 0 || hex_decode(sig_hex, sig, sizeof(sig)) < 0)
		return -EINVAL;
	pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, sizeof(pub));
	if (!pkey)
		return -EINVAL;
	ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey) <= 0)
		r = -EIO;
	else
		r = EVP_DigestVerify(ctx, sig, sizeof(sig), msg, len) == 1 ? 0 : -EBADMSG;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return r;
}
