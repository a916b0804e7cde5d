/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's credential values (cred_store.h): read, captured, held in
 * secure memory, and put into each consumer's table.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <signal.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cleanup.h"
#include "cred_store.h"
#include "errbuf.h"
#include "strv.h"
#include "tls_ca.h"
#include "trust_store.h"

#define CRED_FILE_MAX (64 * 1024)

struct waiter {
	cred_value_cb cb;
	void *ctx;
	struct waiter *next;
};

struct held {
	struct credtable_secret value; /* p NULL: none yet (a capture not run) */
	uint64_t expires_usec;         /* monotonic; 0: never */
	unsigned runs;                 /* captures */
	struct capture_job *job;       /* a capture running (cred_store_want) */
	struct waiter *waiters;        /* who wants its value once it is done */
};

struct cred_store {
	const struct tool_creds *creds;
	struct event_base *base;       /* captures run here (cred_store_want) */
	char *path_env;
	struct audit_log *audit;
	struct held *held;             /* by credential index */
	/* the session CA and the JVM's trust store, made by the maker
	 * thread while the session starts (maker_join before any use) */
	pthread_t maker;
	bool maker_running;
	int maker_r;                   /* < 0: what failed, maker_what */
	const char *maker_what;
	char **hosts;                  /* every credential's hosts: the CA's names */
	char *ca_pem;
	struct credtable_secret ca_key;
	unsigned char *java_store;     /* the JVM's trust store (trust_store.h) */
	size_t java_store_n;
	struct credtable_secret *tls_keys; /* by credential index: the client key */
	char **tls_certs, **tls_cas;   /* likewise: PEM, or NULL */
};

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The session CA (ECDSA P-256, its certificate signed) and the JVM's
 * trust store (the host's ~150 roots): ~2 ms of CPU, the first use of
 * OpenSSL's providers in this process with them, which no consumer needs
 * before its first sandbox starts. Made on a thread of their own from
 * cred_store_new, so that the session's start goes on beside them; joined
 * before the first table (maker_join), whose failure they then are. */
static void *maker_main(void *arg)
{
	struct cred_store *s = arg;

	s->maker_what = "cannot make the session CA";
	s->maker_r = tls_ca_make(s->hosts, strv_length(s->hosts), &s->ca_pem, &s->ca_key);
	if (s->maker_r >= 0) {
		s->maker_what = "cannot make the JVM's trust store";
		s->maker_r = trust_store_make(NULL, s->ca_pem, &s->java_store, &s->java_store_n);
	}
	return NULL;
}

static int maker_join(struct cred_store *s, char *err, size_t errlen)
{
	if (s->maker_running) {
		(void)pthread_join(s->maker, NULL);
		s->maker_running = false;
	}
	if (s->maker_r < 0)
		return errbuf_set(err, errlen, s->maker_r, "%s: %s", s->maker_what, strerror(-s->maker_r));
	return 0;
}

struct cred_store *cred_store_free(struct cred_store *s)
{
	if (!s)
		return NULL;
	(void)maker_join(s, NULL, 0);
	strv_free(s->hosts);
	for (size_t i = 0; s->creds && i < s->creds->n; i++) {
		if (s->held) {
			credtable_secret_clear(&s->held[i].value);
			capture_job_free(s->held[i].job);
			while (s->held[i].waiters) {
				struct waiter *w = s->held[i].waiters;

				s->held[i].waiters = w->next;
				free(w);
			}
		}
		if (s->tls_keys)
			credtable_secret_clear(&s->tls_keys[i]);
		if (s->tls_certs)
			free(s->tls_certs[i]);
		if (s->tls_cas)
			free(s->tls_cas[i]);
	}
	free(s->held);
	free(s->tls_keys);
	free(s->tls_certs);
	free(s->tls_cas);
	free(s->ca_pem);
	free(s->java_store);
	credtable_secret_clear(&s->ca_key);
	free(s->path_env);
	free(s);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cred_store *, cred_store_free)

/* A value the proxy can put in a header: no CR, LF, NUL or other control
 * byte, not empty. */
static bool value_ok(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return n > 0;
}

/* path's bytes into secure memory (O_NOFOLLOW on nothing: the profile
 * named it; capped), a trailing newline dropped when strip. */
static int read_file_secure(const char *path, bool strip, struct credtable_secret *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	unsigned char *buf;
	struct stat st;
	size_t n = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (!(buf = OPENSSL_secure_zalloc(CRED_FILE_MAX + 1)))
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(fd, buf + n, CRED_FILE_MAX + 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > CRED_FILE_MAX) {
			r = -EFBIG;
			break;
		}
	}
	while (r >= 0 && strip && n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (r >= 0)
		r = credtable_secret_set(ret, buf, n);
	OPENSSL_secure_clear_free(buf, CRED_FILE_MAX + 1);
	return r;
}

static int read_plain_file(const char *path, char **ret)
{
	struct credtable_secret s = {};
	int r = read_file_secure(path, false, &s);

	if (r < 0)
		return r;
	*ret = strndup((const char *)s.p, s.n); /* a certificate: not a secret */
	credtable_secret_clear(&s);
	return *ret ? 0 : -ENOMEM;
}

static int read_source(struct cred_store *s, size_t i, char *err, size_t errlen)
{
	const struct tool_cred *c = &s->creds->v[i];
	struct held *h = &s->held[i];
	int r;

	switch (c->source) {
	case CRED_SOURCE_ENV: {
		const char *v = secure_getenv(c->source_ref);

		if (!v || !v[0])
			return errbuf_set(err, errlen, -ENOENT, "credential %s: %s is not set in cordon's environment",
					  c->name, c->source_ref);
		r = credtable_secret_set(&h->value, v, strlen(v));
		break;
	}
	case CRED_SOURCE_FILE:
		r = read_file_secure(c->source_ref, true, &h->value);
		if (r < 0 && r != -ENOMEM)
			return errbuf_set(err, errlen, r, "credential %s: cannot read %s: %s", c->name, c->source_ref,
					  strerror(-r));
		break;
	case CRED_SOURCE_CMD:
		return 0; /* lazily, at its first use */
	default:
		return -EINVAL;
	}
	if (r < 0)
		return errbuf_set(err, errlen, r, "credential %s: no secure memory", c->name);
	if (!value_ok(h->value.p, h->value.n)) {
		credtable_secret_clear(&h->value);
		return errbuf_set(err, errlen, -EINVAL,
				  "credential %s: its value is empty or has a control character (CR, LF, NUL, ...)",
				  c->name);
	}
	return 0;
}

/* PEM holds a certificate (and, with key, a private key): checked at
 * start, so a bad file refuses the session rather than its proxy. */
static bool pem_cert_ok(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;

	X509_free(x);
	BIO_free(b);
	return x != NULL;
}

static bool pem_key_ok(const struct credtable_secret *key)
{
	BIO *b = BIO_new_mem_buf(key->p, (int)key->n);
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;

	EVP_PKEY_free(k);
	BIO_free(b);
	return k != NULL;
}

static int read_tls(struct cred_store *s, size_t i, char *err, size_t errlen)
{
	const struct tool_cred *c = &s->creds->v[i];
	int r = 0;

	if (c->tls_ca && (r = read_plain_file(c->tls_ca, &s->tls_cas[i])) < 0)
		return errbuf_set(err, errlen, r, "credential %s: cannot read tls.ca %s: %s", c->name, c->tls_ca,
				  strerror(-r));
	if (c->tls_client_cert && (r = read_plain_file(c->tls_client_cert, &s->tls_certs[i])) < 0)
		return errbuf_set(err, errlen, r, "credential %s: cannot read tls.client_cert %s: %s", c->name,
				  c->tls_client_cert, strerror(-r));
	if (c->tls_client_key && (r = read_file_secure(c->tls_client_key, false, &s->tls_keys[i])) < 0)
		return errbuf_set(err, errlen, r, "credential %s: cannot read tls.client_key %s: %s", c->name,
				  c->tls_client_key, strerror(-r));
	if (s->tls_cas[i] && !pem_cert_ok(s->tls_cas[i]))
		return errbuf_set(err, errlen, -EINVAL, "credential %s: tls.ca %s holds no PEM certificate", c->name,
				  c->tls_ca);
	if (s->tls_certs[i] && !pem_cert_ok(s->tls_certs[i]))
		return errbuf_set(err, errlen, -EINVAL, "credential %s: tls.client_cert %s holds no PEM certificate",
				  c->name, c->tls_client_cert);
	if (s->tls_keys[i].p && !pem_key_ok(&s->tls_keys[i]))
		return errbuf_set(err, errlen, -EINVAL, "credential %s: tls.client_key %s holds no PEM private key",
				  c->name, c->tls_client_key);
	return 0;
}

int cred_store_new(const struct tool_creds *creds, const char *path_env, struct audit_log *audit,
		   struct cred_store **ret, char *err, size_t errlen)
{
	_cleanup_(cred_store_freep) struct cred_store *s = NULL;
	sigset_t all, old;
	int r;

	*ret = NULL;
	if (!creds || creds->n == 0)
		return 0;
	/* locked, guarded memory, or no credentials at all */
	r = credtable_secure_init();
	if (r < 0)
		return errbuf_set(err, errlen, r,
				  "credentials need OpenSSL's secure heap (locked memory), which cannot be set up "
				  "here (RLIMIT_MEMLOCK?): refused rather than holding secrets in plain memory");
	/* no core dump, no ptrace by the same user, no /proc/PID/mem */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return errbuf_set(err, errlen, -errno, "cannot make the supervisor undumpable: %m");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->creds = creds;
	s->audit = audit;
	if ((path_env && !(s->path_env = strdup(path_env))) || !(s->held = calloc(creds->n, sizeof(*s->held))) ||
	    !(s->tls_keys = calloc(creds->n, sizeof(*s->tls_keys))) ||
	    !(s->tls_certs = calloc(creds->n, sizeof(*s->tls_certs))) ||
	    !(s->tls_cas = calloc(creds->n, sizeof(*s->tls_cas))) || !(s->hosts = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < creds->n; i++) {
		if ((r = read_source(s, i, err, errlen)) < 0 || (r = read_tls(s, i, err, errlen)) < 0)
			return r;
		for (char **h = creds->v[i].hosts; *h; h++)
			if ((r = strv_push_unique(&s->hosts, *h)) < 0)
				return r;
	}
	/* every name the CA will constrain itself to is checked now: what
	 * the maker can still fail on is memory, or the host's bundle */
	for (char **h = s->hosts; *h; h++)
		if (!tls_ca_host_ok(*h))
			return errbuf_set(err, errlen, -EINVAL, "cannot make the session CA: a bad host name '%s'", *h);
	/* the thread with every signal blocked: the process's signals stay
	 * the main thread's (its loop, signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->maker_running = pthread_create(&s->maker, NULL, maker_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->maker_running) {
		(void)maker_main(s); /* no thread: made here */
		if ((r = maker_join(s, err, errlen)) < 0)
			return r;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

static void audit_capture(struct cred_store *s, const struct tool_capture *cap, const char *cred,
			  const struct capture_result *res, const char *reason)
{
	struct audit_event e = {
		.event = reason ? "capture_failed" : "capture",
		.command = cap->name,
		.rule = cred,
		.reason = reason,
		.argv = (const char *const *)cap->command,
		.has_exit = true,
		.exit_code = res->exit_code,
		.signal = res->signal,
		.duration_ms = res->duration_ms,
		.has_io = true,
		.stdout_bytes = res->bytes,
	};

	if (s->audit)
		(void)audit_write(s->audit, &e);
}

static bool fresh(const struct held *h)
{
	return h->value.p && (!h->expires_usec || now_usec() < h->expires_usec);
}

static uint64_t left_usec(const struct held *h)
{
	uint64_t now = now_usec();

	return !h->expires_usec ? 0 : h->expires_usec > now ? h->expires_usec - now : 1;
}

int cred_store_index(const struct cred_store *s, const char *name)
{
	for (size_t i = 0; s && i < s->creds->n; i++)
		if (strcmp(s->creds->v[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

int cred_store_value(struct cred_store *s, const char *name, const struct credtable_secret **ret, char *err,
		     size_t errlen)
{
	const struct tool_capture *cap;
	struct capture_result res;
	struct held *h;
	int i = cred_store_index(s, name);
	int r;

	if (i < 0)
		return errbuf_set(err, errlen, -ENOENT, "no credential %s", name);
	h = &s->held[i];
	if (fresh(h)) {
		*ret = &h->value;
		return 0;
	}
	credtable_secret_clear(&h->value);
	cap = tool_creds_capture(s->creds, s->creds->v[i].source_ref);
	if (s->creds->v[i].source != CRED_SOURCE_CMD || !cap)
		return errbuf_set(err, errlen, -ENOENT, "credential %s has no value", name);
	r = capture_run(cap, s->path_env, &res, err, errlen);
	h->runs++;
	audit_capture(s, cap, name, &res, r < 0 ? err : NULL);
	if (r < 0)
		return r;
	h->value = res.value;
	h->expires_usec = now_usec() + res.lifetime_usec;
	*ret = &h->value;
	return 0;
}

void cred_store_set_base(struct cred_store *s, struct event_base *base)
{
	if (s)
		s->base = base;
}

struct job_ctx {
	struct cred_store *s;
	size_t i;
};

/* A capture ended: its value kept (or not), everyone waiting told. */
static void on_captured(void *arg, int r, struct capture_result *res, const char *err)
{
	struct job_ctx *jc = arg;
	struct cred_store *s = jc->s;
	size_t i = jc->i;
	struct held *h = &s->held[i];
	const struct tool_capture *cap = tool_creds_capture(s->creds, s->creds->v[i].source_ref);
	struct waiter *w = h->waiters;

	audit_capture(s, cap, s->creds->v[i].name, res, r < 0 ? err : NULL);
	h->job = capture_job_free(h->job);
	free(jc);
	if (r >= 0) {
		credtable_secret_clear(&h->value);
		h->value = res->value;
		h->expires_usec = res->lifetime_usec ? now_usec() + res->lifetime_usec : 0;
	}
	h->waiters = NULL;
	/* a waiter may want again (or forget) from its callback: the list
	 * is taken first */
	while (w) {
		struct waiter *next = w->next;

		if (r >= 0)
			w->cb(w->ctx, 0, &h->value, left_usec(h), NULL);
		else
			w->cb(w->ctx, r, NULL, 0, err);
		free(w);
		w = next;
	}
}

int cred_store_want(struct cred_store *s, size_t i, cred_value_cb cb, void *ctx, char *err, size_t errlen)
{
	struct held *h;
	struct waiter *w;
	const struct tool_capture *cap;
	int r;

	if (!s || i >= s->creds->n)
		return errbuf_set(err, errlen, -ENOENT, "no such credential");
	h = &s->held[i];
	if (fresh(h)) {
		cb(ctx, 0, &h->value, left_usec(h), NULL);
		return 0;
	}
	cap = tool_creds_capture(s->creds, s->creds->v[i].source_ref);
	if (s->creds->v[i].source != CRED_SOURCE_CMD || !cap || !s->base)
		return errbuf_set(err, errlen, -ENOENT, "credential %s has no value", s->creds->v[i].name);
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	*w = (struct waiter){ .cb = cb, .ctx = ctx, .next = h->waiters };
	if (!h->job) {
		struct job_ctx *jc = calloc(1, sizeof(*jc));

		if (!jc) {
			free(w);
			return -ENOMEM;
		}
		*jc = (struct job_ctx){ .s = s, .i = i };
		/* one run for everyone who wants it meanwhile */
		h->runs++;
		r = capture_job_start(s->base, cap, s->path_env, on_captured, jc, &h->job, err, errlen);
		if (r < 0) {
			struct capture_result none = {};

			free(jc);
			free(w);
			audit_capture(s, cap, s->creds->v[i].name, &none, err);
			return r;
		}
	}
	h->waiters = w;
	return 0;
}

void cred_store_forget(struct cred_store *s, void *ctx)
{
	for (size_t i = 0; s && i < s->creds->n; i++)
		for (struct waiter **pw = &s->held[i].waiters; *pw;) {
			struct waiter *w = *pw;

			if (w->ctx != ctx) {
				pw = &w->next;
				continue;
			}
			*pw = w->next;
			free(w);
		}
}

const struct tool_creds *cred_store_creds(const struct cred_store *s)
{
	return s ? s->creds : NULL;
}

unsigned cred_store_capture_runs(const struct cred_store *s, const char *name)
{
	for (size_t i = 0; s && i < s->creds->n; i++)
		if (strcmp(s->creds->v[i].name, name) == 0)
			return s->held[i].runs;
	return 0;
}

static int push_str(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

static const enum credtable_alphabet alphabets[] = {
	[CRED_ALPHA_BASE62] = CREDTABLE_ALPHA_BASE62,
	[CRED_ALPHA_HEX] = CREDTABLE_ALPHA_HEX,
	[CRED_ALPHA_BASE64URL] = CREDTABLE_ALPHA_BASE64URL,
	[CRED_ALPHA_ALNUM_LOWER] = CREDTABLE_ALPHA_ALNUM_LOWER,
};

static const enum credtable_action actions[] = {
	[CRED_DENY] = CREDTABLE_DENY,
	[CRED_APPROVE] = CREDTABLE_APPROVE,
	[CRED_ALLOW] = CREDTABLE_ALLOW,
};

static const enum credtable_inject injects[] = {
	[CRED_INJECT_HEADER] = CREDTABLE_INJECT_HEADER,
	[CRED_INJECT_BASIC] = CREDTABLE_INJECT_BASIC,
	[CRED_INJECT_QUERY] = CREDTABLE_INJECT_QUERY,
};

/* One credential of the table: c granted to consumer (mine: its phantom
 * and value) or a credential at one of its hosts it was not granted
 * (others only: refused there). */
static int table_cred(struct cred_store *s, size_t i, const struct toolbox_creds *tc, const char *consumer,
		      struct credtable_cred *out, char *err, size_t errlen)
{
	const struct tool_cred *c = &s->creds->v[i];
	const char *mine = toolbox_creds_phantom(tc, c->name, consumer);
	const struct toolbox_phantom *ph;
	size_t n_ph;
	int r;

	/* not granted: no client certificate either (the table refuses it) */
	if (!(out->name = strdup(c->name)) || !(out->inject_name = strdup(c->inject_name)) ||
	    !(out->format = strdup(c->format ? c->format : "")) || !(out->shape_prefix = strdup(c->shape.prefix)) ||
	    !(out->tls_ca_pem = strdup(s->tls_cas[i] ? s->tls_cas[i] : "")) ||
	    !(out->tls_cert_pem = strdup(mine && s->tls_certs[i] ? s->tls_certs[i] : "")))
		return -ENOMEM;
	for (char **h = c->hosts; *h; h++)
		if ((r = push_str(&out->hosts, &out->n_hosts, *h)) < 0)
			return r;
	out->inject = injects[c->inject];
	out->shape_len = c->shape.len;
	out->shape_alphabet = alphabets[c->shape.alphabet];
	ph = toolbox_creds_phantoms(tc, &n_ph);
	for (size_t k = 0; k < n_ph; k++) {
		if (strcmp(ph[k].cred->name, c->name) != 0 || (mine && strcmp(ph[k].consumer, consumer) == 0))
			continue;
		if ((r = push_str(&out->others, &out->n_others, ph[k].value)) < 0)
			return r;
	}
	out->policy.dflt = c->policy.set ? actions[c->policy.default_action] : CREDTABLE_ALLOW;
	if (c->policy.n_rules && !(out->policy.rules = calloc(c->policy.n_rules, sizeof(*out->policy.rules))))
		return -ENOMEM;
	for (size_t k = 0; k < c->policy.n_rules; k++) {
		struct credtable_rule *cr = &out->policy.rules[out->policy.n_rules++];

		cr->action = actions[c->policy.rules[k].action];
		if (!(cr->method = strdup(c->policy.rules[k].method)) || !(cr->path = strdup(c->policy.rules[k].path)) ||
		    !(cr->reason = strdup(c->policy.rules[k].reason ? c->policy.rules[k].reason : "")))
			return -ENOMEM;
	}
	if (mine && s->tls_keys[i].p &&
	    (r = credtable_secret_set(&out->tls_key_pem, s->tls_keys[i].p, s->tls_keys[i].n)) < 0)
		return r;
	if (mine) {
		const struct credtable_secret *v;

		if ((r = push_str(&out->phantoms, &out->n_phantoms, mine)) < 0)
			return r;
		/* a capture's value is asked for by the proxy, on the first
		 * request that spends it (cred_chan.c): none in the table */
		if (c->source == CRED_SOURCE_CMD)
			return 0;
		if ((r = cred_store_value(s, c->name, &v, err, errlen)) < 0)
			return r;
		if ((r = credtable_secret_set(&out->value, v->p, v->n)) < 0)
			return r;
	}
	return 0;
}

int cred_store_table(struct cred_store *s, const struct toolbox_creds *tc, const char *consumer, bool wanted,
		     struct credtable **ret, char *err, size_t errlen)
{
	_cleanup_(credtable_freep) struct credtable *t = NULL;
	struct cordon_error e;
	int r;

	*ret = NULL;
	if (!s || !wanted)
		return 0;
	if ((r = maker_join(s, err, errlen)) < 0)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->ca_cert_pem = strdup(s->ca_pem)) || !(t->creds = calloc(s->creds->n, sizeof(*t->creds))))
		return -ENOMEM;
	if ((r = credtable_secret_set(&t->ca_key_pem, s->ca_key.p, s->ca_key.n)) < 0)
		return r;
	if (!(t->java_store = malloc(s->java_store_n)))
		return -ENOMEM;
	memcpy(t->java_store, s->java_store, s->java_store_n);
	t->java_store_n = s->java_store_n;
	/* the credentials granted here first, each with the phantoms of the
	 * same credential granted to other consumers (refused here); then
	 * every other credential without a value, all its phantoms refused
	 * (its hosts intercepted all the same: the first credential naming a
	 * host sets its upstream side, so a granted one's client certificate
	 * wins) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->creds->n; i++) {
			bool granted = toolbox_creds_phantom(tc, s->creds->v[i].name, consumer) != NULL;

			if (granted != (pass == 0))
				continue;
			r = table_cred(s, i, tc, consumer, &t->creds[t->n_creds++], err, errlen);
			if (r < 0)
				return r;
		}
	r = credtable_check(t, &e);
	if (r < 0)
		return errbuf_set(err, errlen, r, "%s", e.message);
	*ret = TAKE_PTR(t);
	return 0;
}

int cred_store_table_fd(struct cred_store *s, const struct toolbox_creds *tc, const char *consumer, bool wanted,
			int *ret_fd, int *ret_chan, char *err, size_t errlen)
{
	_cleanup_(credtable_freep) struct credtable *t = NULL;
	int pair[2], r, big = CREDTABLE_PUBLIC_MAX + CREDTABLE_SECRET_MAX + 4096;

	*ret_fd = *ret_chan = -1;
	r = cred_store_table(s, tc, consumer, wanted, &t, err, errlen);
	if (r < 0 || !t)
		return r;
	/* a socket, not a pipe: after the table it is the proxy's channel
	 * to the supervisor (cred_chan.c), this consumer's and no other's */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
		return errbuf_set(err, errlen, -errno, "cannot make the credential channel: %m");
	/* the whole table fits before anyone reads: written now, read when
	 * the runner starts (the kernel holds it, not a file); a table the
	 * socket cannot hold is an error, never a wait */
	big += (int)t->java_store_n;
	if (setsockopt(pair[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		(void)setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	(void)fcntl(pair[0], F_SETFL, O_NONBLOCK);
	r = credtable_write(pair[0], t);
	if (r == -EAGAIN)
		r = -E2BIG; /* said below: the table is bigger than the socket holds (net.core.wmem_max) */
	if (r < 0) {
		close(pair[0]);
		close(pair[1]);
		return errbuf_set(err, errlen, r, "cannot write the credential table: %s%s", strerror(-r),
				  r == -E2BIG ? " (the channel's socket cannot hold it before the runner reads: raise net.core.wmem_max)" : "");
	}
	/* above stdio: 0, 1 and 2 mean "none" to cordon_run_opts */
	if (pair[1] <= 2) {
		int fd = fcntl(pair[1], F_DUPFD_CLOEXEC, 3);

		close(pair[1]);
		if (fd < 0) {
			close(pair[0]);
			return errbuf_set(err, errlen, -errno, "cannot move the credential table's socket: %m");
		}
		pair[1] = fd;
	}
	*ret_fd = pair[1];
	*ret_chan = pair[0];
	return 0;
}
