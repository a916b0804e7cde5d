/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The credential table one sandbox's proxy receives: the interface between
 * the supervisor (which holds every credential of a session) and the proxy
 * of one sandbox (which may spend only what that sandbox's consumers were
 * granted). One job: the table's shape, its wire form, its secure memory.
 *
 * Wire form (written to a socket, read by the runner then the proxy):
 *
 *   public part   "CRDT" u32:version u32:len ca_cert_pem u32:ca_subject_hash
 *                 u32:len java_store (len <= CREDTABLE_STORE_MAX; 0: none)
 *   secret part   u32:len  body (len <= CREDTABLE_SECRET_MAX)
 *
 * The public part is the session CA's certificate and the JVM's trust store
 * (trust_store.h): the runner reads it (credtable_read_public, no
 * libcrypto) to build the sandbox's trust store,
 * then hands the same fd, now at the secret part, to the proxy, which reads
 * the body (the CA certificate again, then the rest) straight into
 * OPENSSL_secure_malloc memory (credtable_read takes the fd at either
 * point).
 * Body: strings are u32 length + bytes (no NUL inside), counts are u32,
 * kinds are u8; see credtable.c for the order. Every size is capped.
 *
 * Secrets (the CA's private key, each real value, each client key) live
 * only in secure memory (struct credtable_secret), zeroed when freed, and
 * never pass through a plain heap string. Phantoms are not secret (the
 * sandbox holds them) and live on the plain heap.
 *
 * The supervisor's side, once per session then per sandbox:
 *   credtable_secure_init()                  refuse credentials if it fails
 *   tls_ca_make(every credential host)       the session CA (tls_ca.h), shared
 *   per sandbox whose network is proxy: a struct credtable with every
 *   credential of the session, those its consumers were granted with their
 *   value (phantoms: theirs; others: the session's other phantoms of the
 *   credential), the others without a value (others: all its phantoms), the
 *   CA; socketpair(AF_UNIX, SOCK_STREAM); credtable_write(w) (kept);
 *   clear FD_CLOEXEC on r in the child that execs the runner:
 *     cordon exec --net proxy --allow-domain HOST... --credentials-fd R -- CMD
 *   The runner reads the public part, the proxy (cordon-supervisor proxy
 *   --credentials-fd) the rest; nothing in the sandbox ever holds the fd.
 * The fd is one end of a socketpair: after the table, the proxy keeps it as
 * its channel to the supervisor (src/lib/msg/cred_proto.h). A granted
 * credential from a capture is in the table with its phantoms and no value:
 * the proxy asks for the value over the channel on its first use.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/common.h"

#define CREDTABLE_MAGIC "CRDT"
#define CREDTABLE_VERSION 2
#define CREDTABLE_PUBLIC_MAX (64 * 1024)   /* the CA certificate's PEM */
#define CREDTABLE_SECRET_MAX (256 * 1024)  /* the whole body */
#define CREDTABLE_STORE_MAX (768 * 1024)   /* the JVM's trust store (trust_store.h's cap) */
#define CREDTABLE_STRING_MAX (64 * 1024)   /* one string (a PEM is the longest) */
#define CREDTABLE_CREDS_MAX 64
#define CREDTABLE_HOSTS_MAX 64
#define CREDTABLE_PHANTOMS_MAX 256
#define CREDTABLE_RULES_MAX 256
/* The secure heap every process holding a table initialises (a power of 2). */
#define CREDTABLE_SECURE_HEAP (1024 * 1024)

/* Beside the table, the variable that carries a consumer's git credential
 * helper (a `!` command printing the basic user and the phantom's
 * variable, never a value) from the toolbox to the runner, which turns it
 * into git's configuration (src/exec/cred_env.h): GIT_CONFIG_* themselves
 * are refused as injection variables on every other way in. */
#define CREDTABLE_GIT_HELPER_ENV "CORDON_GIT_CREDENTIAL_HELPER"

/* A secret in OPENSSL_secure_malloc memory: n bytes, then a NUL (for the
 * PEM readers). p NULL: absent. */
struct credtable_secret {
	unsigned char *p;
	size_t n;
};

enum credtable_inject {
	CREDTABLE_INJECT_HEADER = 1,    /* name: the header; format: "Bearer {}" */
	CREDTABLE_INJECT_BASIC = 2,     /* name: the user of Authorization: Basic user:value */
	CREDTABLE_INJECT_QUERY = 3,     /* name: the query parameter */
};

enum credtable_action {
	CREDTABLE_DENY = 1,
	CREDTABLE_APPROVE = 2,
	CREDTABLE_ALLOW = 3,
};

/* The random part of a phantom: which characters. */
enum credtable_alphabet {
	CREDTABLE_ALPHA_BASE62 = 1,     /* A-Z a-z 0-9 */
	CREDTABLE_ALPHA_HEX = 2,        /* 0-9 a-f */
	CREDTABLE_ALPHA_BASE64URL = 3,  /* base62 and - _ */
	CREDTABLE_ALPHA_ALNUM_LOWER = 4,/* a-z 0-9 */
};

struct credtable_rule {
	enum credtable_action action;
	char *method;                   /* "GET", or "*" for any */
	char *path;                     /* a glob: "*" one segment, "**" any (endpoint.h) */
	char *reason;                   /* "" when none: travels to the 403 */
};

struct credtable_policy {
	enum credtable_action dflt;
	struct credtable_rule *rules;   /* in any order: endpoint_decide takes deny, approve, allow */
	size_t n_rules;
};

struct credtable_cred {
	char *name;
	char **hosts;                   /* exact names, lower case */
	size_t n_hosts;
	enum credtable_inject inject;
	char *inject_name;              /* the header, the basic user, or the query parameter */
	char *format;                   /* header: with one "{}"; "" for the others */
	/* The phantom's shape (prefix + length random characters of the
	 * alphabet): a phantom of another session is recognised by it when the
	 * prefix is distinctive (credtable_shape_distinctive). */
	char *shape_prefix;
	uint32_t shape_len;
	enum credtable_alphabet shape_alphabet;
	char **phantoms;                /* granted to this sandbox's consumer(s) */
	size_t n_phantoms;
	char **others;                  /* this session's phantoms granted to others: refused here */
	size_t n_others;
	struct credtable_policy policy;
	char *tls_ca_pem;               /* "" : the system roots */
	char *tls_cert_pem;             /* "" : no client certificate */
	struct credtable_secret tls_key_pem;   /* with tls_cert_pem, or absent */
	struct credtable_secret value;  /* the real value: never NUL, CR or LF inside;
					 * p NULL: not granted here (no phantoms, no client
					 * certificate): its hosts are intercepted so that
					 * the session's phantoms of it are refused there */
};

struct credtable {
	char *ca_cert_pem;              /* the session CA every proxy of the session shares */
	unsigned char *java_store;      /* the JVM's trust store (PKCS#12, public); NULL: none */
	size_t java_store_n;
	struct credtable_secret ca_key_pem;
	struct credtable_cred *creds;
	size_t n_creds;
};

/* Initialise OpenSSL's secure heap once per process (CREDTABLE_SECURE_HEAP).
 * -ENOMEM when it cannot (mlock refused, ...): the credentials feature then
 * refuses to start; it never falls back to the plain heap. */
int credtable_secure_init(void);

/* A secret of n bytes copied from p into secure memory (p may itself be
 * secure memory or a stack buffer the caller zeroes). -ENOMEM. */
int credtable_secret_set(struct credtable_secret *s, const void *p, size_t n);
void credtable_secret_clear(struct credtable_secret *s);

void credtable_free(struct credtable *t);
static inline void credtable_freep(struct credtable **t)
{
	if (*t)
		credtable_free(*t);
}

/* Whether t is coherent: every credential has a name, a host, an inject
 * kind and a value without CR, LF or NUL, or no value, no phantom and no
 * client certificate (not granted here); a client certificate and key come
 * together; the CA is there. -EINVAL with why in reterr (may be NULL). */
int credtable_check(const struct credtable *t, struct cordon_error *reterr);

/* Write t to fd (blocking; a pipe): the public part, then the secret part,
 * in pieces (writev), secrets straight from their secure memory. -errno. */
int credtable_write(int fd, const struct credtable *t);

/* The public part from fd: the CA certificate's PEM (malloc'd, NUL
 * terminated), its subject hash (OpenSSL's, for the "%08x.0" link of a
 * certificate directory) and the JVM's trust store (malloc'd, NULL and 0
 * when there is none; ret_store NULL: read and dropped). The fd is left at
 * the secret part. No libcrypto (credtable_public.c): the lean runner calls
 * it. -EBADMSG, -errno. */
int credtable_read_public(int fd, char **ret_ca_pem, uint32_t *ret_hash, unsigned char **ret_store,
			  size_t *ret_store_n);
/* The same, its magic already read. */
int credtable_read_public_after_magic(int fd, char **ret_ca_pem, uint32_t *ret_hash, unsigned char **ret_store,
				      size_t *ret_store_n);
/* Exactly n bytes, or a u32 (little-endian), from fd. -EBADMSG at EOF. */
int credtable_read_full(int fd, void *buf, size_t n);
int credtable_read_u32(int fd, uint32_t *ret);
/* The table from fd, at its start or at its secret part (after
 * credtable_read_public): the body read into secure memory, decoded,
 * zeroed. -EBADMSG (malformed), -ENOMEM (no secure heap), -errno. */
int credtable_read(int fd, struct credtable **ret);

/* Decode a body already in memory (the fuzz target's entry) into a new
 * table. -EBADMSG, -ENOMEM. */
int credtable_decode(const unsigned char *body, size_t n, struct credtable **ret);

/* A phantom's shape is distinctive (a prefix of 3 characters or more):
 * strings of that shape are taken for phantoms of another session. */
bool credtable_shape_distinctive(const struct credtable_cred *c);
/* p[0..n) has c's shape exactly. */
bool credtable_shape_matches(const struct credtable_cred *c, const char *p, size_t n);
