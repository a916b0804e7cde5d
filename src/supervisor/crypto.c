/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "crypto.h"

void hex_encode(const uint8_t *in, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[in[i] >> 4];
		hex[2 * i + 1] = digits[in[i] & 0xf];
	}
	hex[2 * n] = '\0';
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *hex, uint8_t *out, size_t n)
{
	if (strlen(hex) != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

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
