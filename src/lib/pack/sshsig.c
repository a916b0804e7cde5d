/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SSH signatures (OpenSSH's PROTOCOL.sshsig) parsed under caps and verified
 * with OpenSSL: one job, the bytes of `ssh-keygen -Y sign` to a verdict.
 * Who may sign is allowed_signers.c's question, not this file's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "cleanup.h"
#include "error.h"
#include "sshsig.h"

#define ARMOR_BEGIN "-----BEGIN SSH SIGNATURE-----"
#define ARMOR_END "-----END SSH SIGNATURE-----"
#define MAGIC "SSHSIG"
#define RSA_MIN_BITS 2048

/* A bounded reader of SSH wire encoding (RFC 4251 uint32 and string). */
struct wire {
	const uint8_t *p;
	size_t left;
};

static int wire_u32(struct wire *w, uint32_t *ret)
{
	if (w->left < 4)
		return -EBADMSG;
	*ret = (uint32_t)w->p[0] << 24 | (uint32_t)w->p[1] << 16 | (uint32_t)w->p[2] << 8 | w->p[3];
	w->p += 4;
	w->left -= 4;
	return 0;
}

static int wire_string(struct wire *w, const uint8_t **ret, size_t *ret_len)
{
	uint32_t n;

	if (wire_u32(w, &n) < 0 || n > w->left)
		return -EBADMSG;
	*ret = w->p;
	*ret_len = n;
	w->p += n;
	w->left -= n;
	return 0;
}

/* A string that must be text without NULs: compared against a name. */
static bool wire_name_is(const uint8_t *s, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(s, name, n) == 0;
}

/* An mpint that must be positive and minimally encoded. */
static int wire_mpint(struct wire *w, BIGNUM **ret)
{
	const uint8_t *s;
	size_t n;

	if (wire_string(w, &s, &n) < 0 || n == 0 || n > 1024 + 1)
		return -EBADMSG;
	if (s[0] & 0x80)
		return -EBADMSG; /* negative */
	if (s[0] == 0 && (n == 1 || !(s[1] & 0x80)))
		return -EBADMSG; /* a leading zero it did not need */
	*ret = BN_bin2bn(s, (int)n, NULL);
	return *ret ? 0 : -ENOMEM;
}

int ssh_base64_decode(const char *s, size_t len, size_t cap, uint8_t **ret, size_t *ret_len)
{
	_cleanup_free_ uint8_t *out = NULL;
	size_t pad = 0;
	int n;

	if (len == 0 || len % 4 != 0 || len / 4 * 3 > cap || len > INT32_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '=') {
			if (i < len - 2)
				return -EBADMSG;
			pad++;
		} else if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
				     c == '+' || c == '/'))
			return -EBADMSG;
	}
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return -ENOMEM;
	n = EVP_DecodeBlock(out, (const unsigned char *)s, (int)len);
	if (n < 0 || (size_t)n < pad)
		return -EBADMSG;
	*ret_len = (size_t)n - pad;
	*ret = TAKE_PTR(out);
	return 0;
}

void sshsig_free(struct sshsig *s)
{
	if (!s)
		return;
	free(s->pubkey);
	free(s->namespace);
	free(s->hash_alg);
	free(s->signature);
	free(s);
}

static char *dup_text(const uint8_t *s, size_t n)
{
	char *t;

	if (memchr(s, '\0', n))
		return NULL;
	t = malloc(n + 1);
	if (t) {
		memcpy(t, s, n);
		t[n] = '\0';
	}
	return t;
}

static uint8_t *dup_bytes(const uint8_t *s, size_t n)
{
	uint8_t *t = malloc(n ? n : 1);

	if (t && n)
		memcpy(t, s, n);
	return t;
}

/* The base64 between the armor lines, whitespace dropped, into b64. */
static int unarmor(const char *text, size_t len, char *b64, size_t cap, size_t *ret_len, struct cordon_error *reterr)
{
	const char *p = text, *end = text + len, *body, *stop;
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if ((size_t)(end - p) < strlen(ARMOR_BEGIN) || memcmp(p, ARMOR_BEGIN, strlen(ARMOR_BEGIN)) != 0)
		return error_set(reterr, -EBADMSG, "not an SSH signature (no \"%s\" line)", ARMOR_BEGIN);
	body = p + strlen(ARMOR_BEGIN);
	stop = memmem(body, (size_t)(end - body), ARMOR_END, strlen(ARMOR_END));
	if (!stop)
		return error_set(reterr, -EBADMSG, "the SSH signature has no \"%s\" line", ARMOR_END);
	for (p = stop + strlen(ARMOR_END); p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return error_set(reterr, -EBADMSG, "text after the SSH signature's end line");
	for (p = body; p < stop; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			continue;
		if (n + 1 >= cap)
			return error_set(reterr, -EBADMSG, "the SSH signature is too long");
		b64[n++] = *p;
	}
	b64[n] = '\0';
	*ret_len = n;
	return 0;
}

int sshsig_parse(const char *text, size_t len, struct sshsig **ret, struct cordon_error *reterr)
{
	_cleanup_free_ char *b64 = NULL;
	_cleanup_free_ uint8_t *blob = NULL;
	struct sshsig *s = NULL;
	const uint8_t *pk, *ns, *reserved, *alg, *sig;
	size_t b64_len = 0, blob_len = 0, pk_len, ns_len, reserved_len, alg_len, sig_len;
	struct wire w;
	uint32_t version;
	int r;

	if (len > SSHSIG_MAX_ARMORED)
		return error_set(reterr, -EBADMSG, "the signature file is larger than %d bytes", SSHSIG_MAX_ARMORED);
	b64 = malloc(len + 1);
	if (!b64)
		return -ENOMEM;
	r = unarmor(text, len, b64, len + 1, &b64_len, reterr);
	if (r < 0)
		return r;
	r = ssh_base64_decode(b64, b64_len, SSHSIG_MAX_BLOB, &blob, &blob_len);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return error_set(reterr, -EBADMSG, "the SSH signature is not valid base64");
	w = (struct wire){ blob, blob_len };
	if (w.left < 6 || memcmp(w.p, MAGIC, 6) != 0)
		return error_set(reterr, -EBADMSG, "the signature does not start with \"SSHSIG\"");
	w.p += 6;
	w.left -= 6;
	if (wire_u32(&w, &version) < 0 || version != 1)
		return error_set(reterr, -EBADMSG, "the SSH signature's version is not 1");
	if (wire_string(&w, &pk, &pk_len) < 0 || wire_string(&w, &ns, &ns_len) < 0 ||
	    wire_string(&w, &reserved, &reserved_len) < 0 || wire_string(&w, &alg, &alg_len) < 0 ||
	    wire_string(&w, &sig, &sig_len) < 0 || w.left != 0)
		return error_set(reterr, -EBADMSG, "the SSH signature is truncated or has bytes after its end");
	(void)reserved;
	if (reserved_len != 0)
		return error_set(reterr, -EBADMSG, "the SSH signature's reserved field is not empty");
	if (!wire_name_is(alg, alg_len, "sha512") && !wire_name_is(alg, alg_len, "sha256"))
		return error_set(reterr, -EPROTONOSUPPORT, "the SSH signature's hash is neither sha512 nor sha256");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pubkey = dup_bytes(pk, pk_len);
	s->pubkey_len = pk_len;
	s->namespace = dup_text(ns, ns_len);
	s->hash_alg = dup_text(alg, alg_len);
	s->signature = dup_bytes(sig, sig_len);
	s->signature_len = sig_len;
	if (!s->pubkey || !s->hash_alg || !s->signature) {
		sshsig_free(s);
		return -ENOMEM;
	}
	if (!s->namespace) {
		sshsig_free(s);
		return error_set(reterr, -EBADMSG, "the SSH signature's namespace holds a NUL");
	}
	*ret = s;
	return 0;
}

/* ---- keys ----------------------------------------------------------------- */

enum key_kind { KEY_ED25519, KEY_ECDSA_P256, KEY_RSA };

DEFINE_TRIVIAL_CLEANUP_FUNC(EVP_PKEY *, EVP_PKEY_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(EVP_PKEY_CTX *, EVP_PKEY_CTX_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(EVP_MD_CTX *, EVP_MD_CTX_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(BIGNUM *, BN_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(OSSL_PARAM_BLD *, OSSL_PARAM_BLD_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(OSSL_PARAM *, OSSL_PARAM_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(ECDSA_SIG *, ECDSA_SIG_free);

static int pkey_fromdata(const char *alg, OSSL_PARAM_BLD *bld, EVP_PKEY **ret)
{
	_cleanup_(OSSL_PARAM_freep) OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	_cleanup_(EVP_PKEY_CTX_freep) EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, alg, NULL);

	if (!params || !ctx)
		return -ENOMEM;
	if (EVP_PKEY_fromdata_init(ctx) <= 0 || EVP_PKEY_fromdata(ctx, ret, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		return -EBADMSG;
	return 0;
}

/* The key in blob, as OpenSSL's; its kind. Refusals say the type's name. */
static int key_from_blob(const uint8_t *blob, size_t len, EVP_PKEY **ret, enum key_kind *ret_kind, char *type_name,
			 struct cordon_error *reterr)
{
	struct wire w = { blob, len };
	const uint8_t *type;
	size_t type_len;
	int r;

	if (wire_string(&w, &type, &type_len) < 0 || type_len == 0 || type_len > 64)
		return error_set(reterr, -EBADMSG, "the public key is malformed");
	if (type_name)
		snprintf(type_name, 32, "%.*s", (int)(type_len < 31 ? type_len : 31), (const char *)type);
	if (type_len >= 3 && memcmp(type, "sk-", 3) == 0)
		return error_set(reterr, -EPROTONOSUPPORT,
				 "security-key signatures (%.*s) are not accepted: only Ed25519, ECDSA P-256 and RSA",
				 (int)type_len, (const char *)type);
	if (wire_name_is(type, type_len, "ssh-ed25519")) {
		const uint8_t *pk;
		size_t pk_len;

		if (wire_string(&w, &pk, &pk_len) < 0 || pk_len != 32 || w.left)
			return error_set(reterr, -EBADMSG, "the Ed25519 public key is malformed");
		if (ret) {
			*ret = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk, 32);
			if (!*ret)
				return error_set(reterr, -EBADMSG, "the Ed25519 public key is not valid");
		}
		*ret_kind = KEY_ED25519;
		return 0;
	}
	if (wire_name_is(type, type_len, "ecdsa-sha2-nistp256")) {
		_cleanup_(OSSL_PARAM_BLD_freep) OSSL_PARAM_BLD *bld = NULL;
		const uint8_t *curve, *q;
		size_t curve_len, q_len;

		if (wire_string(&w, &curve, &curve_len) < 0 || !wire_name_is(curve, curve_len, "nistp256") ||
		    wire_string(&w, &q, &q_len) < 0 || q_len != 65 || q[0] != 0x04 || w.left)
			return error_set(reterr, -EBADMSG, "the ECDSA P-256 public key is malformed");
		if (ret) {
			bld = OSSL_PARAM_BLD_new();
			if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
			    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, q, q_len))
				return -ENOMEM;
			r = pkey_fromdata("EC", bld, ret);
			if (r < 0)
				return error_set(reterr, r, "the ECDSA P-256 public key is not a point on the curve");
		}
		*ret_kind = KEY_ECDSA_P256;
		return 0;
	}
	if (wire_name_is(type, type_len, "ssh-rsa")) {
		_cleanup_(OSSL_PARAM_BLD_freep) OSSL_PARAM_BLD *bld = NULL;
		_cleanup_(BN_freep) BIGNUM *e = NULL, *n = NULL;

		if (wire_mpint(&w, &e) < 0 || wire_mpint(&w, &n) < 0 || w.left)
			return error_set(reterr, -EBADMSG, "the RSA public key is malformed");
		if (BN_num_bits(n) < RSA_MIN_BITS || BN_num_bits(n) > 8192)
			return error_set(reterr, -EPROTONOSUPPORT, "the RSA key has %d bits: %d to 8192 are accepted",
					 BN_num_bits(n), RSA_MIN_BITS);
		if (ret) {
			bld = OSSL_PARAM_BLD_new();
			if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
			    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
				return -ENOMEM;
			r = pkey_fromdata("RSA", bld, ret);
			if (r < 0)
				return error_set(reterr, r, "the RSA public key is not valid");
		}
		*ret_kind = KEY_RSA;
		return 0;
	}
	return error_set(reterr, -EPROTONOSUPPORT,
			 "keys of type \"%.*s\" are not accepted: only ssh-ed25519, ecdsa-sha2-nistp256 and ssh-rsa",
			 (int)(type_len < 64 ? type_len : 64), (const char *)type);
}

int sshkey_blob_check(const uint8_t *blob, size_t len, char *type_name, struct cordon_error *reterr)
{
	enum key_kind kind;

	return key_from_blob(blob, len, NULL, &kind, type_name, reterr);
}

/* The ECDSA signature (mpint r, mpint s) as DER, which OpenSSL verifies. */
static int ecdsa_sig_der(const uint8_t *s, size_t n, uint8_t **ret, size_t *ret_len)
{
	_cleanup_(ECDSA_SIG_freep) ECDSA_SIG *sig = NULL;
	struct wire w = { s, n };
	BIGNUM *r_bn = NULL, *s_bn = NULL;
	unsigned char *der = NULL;
	int der_len;

	if (wire_mpint(&w, &r_bn) < 0)
		return -EBADMSG;
	if (wire_mpint(&w, &s_bn) < 0 || w.left) {
		BN_free(r_bn);
		BN_free(s_bn);
		return -EBADMSG;
	}
	sig = ECDSA_SIG_new();
	if (!sig || !ECDSA_SIG_set0(sig, r_bn, s_bn)) {
		BN_free(r_bn);
		BN_free(s_bn);
		return -ENOMEM;
	}
	der_len = i2d_ECDSA_SIG(sig, &der);
	if (der_len <= 0)
		return -ENOMEM;
	*ret = der;
	*ret_len = (size_t)der_len;
	return 0;
}

/* "SSHSIG" || string(ns) || string(reserved) || string(alg) || string(H(msg)). */
static int signed_data(const struct sshsig *sig, const char *ns, const void *msg, size_t msg_len, uint8_t **ret,
		       size_t *ret_len)
{
	const EVP_MD *md = strcmp(sig->hash_alg, "sha512") == 0 ? EVP_sha512() : EVP_sha256();
	unsigned char h[EVP_MAX_MD_SIZE];
	unsigned int h_len = 0;
	const struct {
		const void *p;
		size_t n;
	} parts[] = { { ns, strlen(ns) }, { "", 0 }, { sig->hash_alg, strlen(sig->hash_alg) }, { h, 0 } };
	size_t total = 6, off;
	uint8_t *d;

	if (!EVP_Digest(msg, msg_len, h, &h_len, md, NULL))
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(parts); i++)
		total += 4 + (i == 3 ? h_len : parts[i].n);
	d = malloc(total);
	if (!d)
		return -ENOMEM;
	memcpy(d, MAGIC, 6);
	off = 6;
	for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
		size_t n = i == 3 ? h_len : parts[i].n;

		d[off] = (uint8_t)(n >> 24);
		d[off + 1] = (uint8_t)(n >> 16);
		d[off + 2] = (uint8_t)(n >> 8);
		d[off + 3] = (uint8_t)n;
		if (n)
			memcpy(d + off + 4, parts[i].p, n);
		off += 4 + n;
	}
	*ret = d;
	*ret_len = total;
	return 0;
}

int sshsig_verify(const struct sshsig *sig, const char *namespace, const void *msg, size_t msg_len,
		  struct cordon_error *reterr)
{
	_cleanup_(EVP_PKEY_freep) EVP_PKEY *key = NULL;
	_cleanup_(EVP_MD_CTX_freep) EVP_MD_CTX *ctx = NULL;
	_cleanup_free_ uint8_t *data = NULL, *der = NULL;
	const uint8_t *type, *raw;
	size_t type_len, raw_len, data_len, der_len = 0;
	struct wire w = { sig->signature, sig->signature_len };
	const EVP_MD *md = NULL;
	enum key_kind kind;
	int r;

	if (strcmp(sig->namespace, namespace) != 0)
		return error_set(reterr, -EKEYREJECTED, "the signature is for the namespace \"%.64s\", not \"%s\"",
				 sig->namespace, namespace);
	r = key_from_blob(sig->pubkey, sig->pubkey_len, &key, &kind, NULL, reterr);
	if (r < 0)
		return r;
	if (wire_string(&w, &type, &type_len) < 0 || wire_string(&w, &raw, &raw_len) < 0 || w.left)
		return error_set(reterr, -EBADMSG, "the signature value is malformed");
	switch (kind) {
	case KEY_ED25519:
		if (!wire_name_is(type, type_len, "ssh-ed25519") || raw_len != 64)
			return error_set(reterr, -EBADMSG, "the Ed25519 signature is malformed");
		break;
	case KEY_ECDSA_P256:
		if (!wire_name_is(type, type_len, "ecdsa-sha2-nistp256"))
			return error_set(reterr, -EBADMSG, "the ECDSA signature is malformed");
		r = ecdsa_sig_der(raw, raw_len, &der, &der_len);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return error_set(reterr, r, "the ECDSA signature is malformed");
		raw = der;
		raw_len = der_len;
		md = EVP_sha256();
		break;
	case KEY_RSA:
		if (wire_name_is(type, type_len, "rsa-sha2-512"))
			md = EVP_sha512();
		else if (wire_name_is(type, type_len, "rsa-sha2-256"))
			md = EVP_sha256();
		else
			return error_set(reterr, -EPROTONOSUPPORT,
					 "RSA signatures of type \"%.*s\" are not accepted (SHA-1): only rsa-sha2-512 "
					 "and rsa-sha2-256",
					 (int)(type_len < 64 ? type_len : 64), (const char *)type);
		break;
	}
	r = signed_data(sig, namespace, msg, msg_len, &data, &data_len);
	if (r < 0)
		return r;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestVerifyInit(ctx, NULL, md, NULL, key) <= 0)
		return error_set(reterr, -EKEYREJECTED, "the signature cannot be checked with this key");
	if (EVP_DigestVerify(ctx, raw, raw_len, data, data_len) != 1)
		return error_set(reterr, -EKEYREJECTED,
				 "the signature does not match: the signed file was changed or another key signed it");
	return 0;
}
