/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Approval backends (approve.h): checked once, at session start; asked from
 * the supervisor's worker threads. The backends themselves are in
 * approve_terminal.c and approve_webhook.c, which use only what
 * approve_record.c holds below them; chains are walked here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "approve.h"
#include "approve_message.h"
#include "approve_record.h"
#include "approve_terminal.h"
#include "approve_webhook.h"
#include "cleanup.h"
#include "curl_dl.h"
#include "errbuf.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct approvals *, approvals_free)

/* Names appear in prompts, reasons and the audit: printable ASCII only. */
static bool name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > APPROVAL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] <= 0x20 || name[i] > 0x7e)
			return false;
	return true;
}

/* libcurl parses the url (the parser that will use it), loaded here: a
 * profile with a webhook refuses to start where libcurl cannot be loaded,
 * rather than deny every call later. https:// or unix:/PATH only: over
 * http whoever can bind the port reads the request (and the answer key
 * keeps it from answering, but not from reading). */
static int check_url(const char *name, const char *url, char *err, size_t errlen)
{
	const struct curl_dl *curl;
	char *scheme = NULL, *host = NULL, why[512];
	CURLU *u;
	bool ok;

	if (!url || !url[0])
		return errbuf_set(err, errlen, -EINVAL, "approval backend \"%s\": a webhook needs a url", name);
	if (strlen(url) > APPROVAL_URL_MAX)
		return errbuf_set(err, errlen, -EINVAL, "approval backend \"%s\": the url is over %d bytes", name,
				  APPROVAL_URL_MAX);
	curl = curl_dl_get(why, sizeof(why));
	if (!curl)
		return errbuf_set(err, errlen, -ELIBACC, "approval backend \"%s\": a webhook needs libcurl: %s", name,
				  why);
	if (strncmp(url, WEBHOOK_UNIX_PREFIX, strlen(WEBHOOK_UNIX_PREFIX)) == 0)
		return url[strlen(WEBHOOK_UNIX_PREFIX)] == '/' && strlen(url) - strlen(WEBHOOK_UNIX_PREFIX) < 108
			       ? 0
			       : errbuf_set(err, errlen, -EINVAL,
					    "approval backend \"%s\": unix: takes an absolute socket path under 108 bytes",
					    name);
	u = curl->url();
	if (!u)
		return -ENOMEM;
	ok = curl->url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	     curl->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	     curl->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK;
	curl->url_cleanup(u);
	if (!ok) {
		curl->free(scheme);
		curl->free(host);
		return errbuf_set(err, errlen, -EINVAL, "approval backend \"%s\": the url is not valid", name);
	}
	ok = strcmp(scheme, "https") == 0 && host[0];
	curl->free(scheme);
	curl->free(host);
	if (!ok)
		return errbuf_set(err, errlen, -EINVAL,
				  "approval backend \"%s\": the url must be https:// or unix:/PATH (never http://)", name);
	return 0;
}

static int read_key(struct approval_entry *e, const char *env, char **ret_env, struct secret **ret_key, char *err,
		    size_t errlen)
{
	const char *value;
	int r;

	if (!env || !env[0])
		return errbuf_set(err, errlen, -EINVAL, "approval backend \"%s\": a webhook needs a secret_env",
				  e->name);
	value = secure_getenv(env);
	if (!value)
		return errbuf_set(err, errlen, -ENOKEY, "approval backend \"%s\": its key variable %s is not set",
				  e->name, env);
	if (!value[0])
		return errbuf_set(err, errlen, -ENOKEY, "approval backend \"%s\": its key variable %s is empty",
				  e->name, env);
	if (strlen(value) > APPROVAL_KEY_MAX)
		return errbuf_set(err, errlen, -EINVAL, "approval backend \"%s\": the key in %s is over %d bytes",
				  e->name, env, APPROVAL_KEY_MAX);
	*ret_env = strdup(env);
	if (!*ret_env)
		return -ENOMEM;
	r = secret_new(value, strlen(value), ret_key);
	return r < 0 ? errbuf_set(err, errlen, r, "approval backend \"%s\": cannot keep its key", e->name) : 0;
}

static ssize_t find_entry(const struct approvals *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

struct resolver {
	approval_lookup lookup;
	void *ctx;
	bool resolving[APPROVAL_BACKENDS_MAX];
	char *err;
	size_t errlen;
};

/* The index of backend name in a->v, looking it (and a chain's members) up
 * and checking it the first time. */
static int resolve(struct approvals *a, struct resolver *res, const char *name, size_t *ret)
{
	struct cordon_approval_backend b = {};
	struct approval_entry *e;
	ssize_t found;
	size_t i;
	int r;

	if (!name_ok(name))
		return errbuf_set(res->err, res->errlen, -EINVAL,
				  "approval backend names are 1 to %d printable characters without spaces",
				  APPROVAL_NAME_MAX);
	found = find_entry(a, name);
	if (found >= 0) {
		if (res->resolving[found])
			return errbuf_set(res->err, res->errlen, -ELOOP, "approval chain \"%s\" contains itself", name);
		*ret = (size_t)found;
		return 0;
	}
	r = res->lookup(res->ctx, name, &b);
	if (r < 0)
		return errbuf_set(res->err, res->errlen, r, "no approval backend \"%s\"", name);
	if (a->n == APPROVAL_BACKENDS_MAX)
		return errbuf_set(res->err, res->errlen, -E2BIG, "more than %d approval backends",
				  APPROVAL_BACKENDS_MAX);
	i = a->n++;
	e = &a->v[i];
	memcpy(e->name, name, strlen(name) + 1);
	e->type = b.type;
	e->timeout_ms = b.timeout_ms;
	e->default_allow = b.default_allow;
	e->chain_all = b.chain_all;

	if (b.type != CORDON_APPROVAL_CHAIN && (b.timeout_ms == 0 || b.timeout_ms > APPROVAL_TIMEOUT_MAX))
		return errbuf_set(res->err, res->errlen, -EINVAL,
				  "approval backend \"%s\": the timeout must be 1 ms to 24 h", name);

	switch (b.type) {
	case CORDON_APPROVAL_TERMINAL:
		break;
	case CORDON_APPROVAL_WEBHOOK:
		r = check_url(name, b.url, res->err, res->errlen);
		if (r < 0)
			return r;
		e->url = strdup(b.url);
		if (!e->url)
			return -ENOMEM;
		r = read_key(e, b.secret_env, &e->secret_env, &e->key, res->err, res->errlen);
		if (r < 0)
			return r;
		if (!b.answer_secret_env || !b.answer_secret_env[0])
			return errbuf_set(res->err, res->errlen, -EINVAL,
					  "approval backend \"%s\": a webhook needs an answer_secret_env (the key its "
					  "answers are signed with)", name);
		r = read_key(e, b.answer_secret_env, &e->answer_env, &e->answer_key, res->err, res->errlen);
		if (r < 0)
			return r;
		/* one key for both: whoever can read a request could sign its answer */
		if (e->key->len == e->answer_key->len && CRYPTO_memcmp(e->key->bytes, e->answer_key->bytes, e->key->len) == 0)
			return errbuf_set(res->err, res->errlen, -EINVAL,
					  "approval backend \"%s\": %s and %s hold the same key: answers are signed "
					  "with a key of their own", name, b.secret_env, b.answer_secret_env);
		break;
	case CORDON_APPROVAL_CHAIN:
		if (b.timeout_ms > APPROVAL_TIMEOUT_MAX)
			return errbuf_set(res->err, res->errlen, -EINVAL,
					  "approval chain \"%s\": the timeout must be at most 24 h", name);
		res->resolving[i] = true;
		for (size_t m = 0; b.members && b.members[m]; m++) {
			if (m == APPROVAL_MEMBERS_MAX)
				return errbuf_set(res->err, res->errlen, -E2BIG,
						  "approval chain \"%s\": more than %d members", name,
						  APPROVAL_MEMBERS_MAX);
			r = resolve(a, res, b.members[m], &e->members[m]);
			if (r < 0)
				return r;
			e->n_members = m + 1;
		}
		res->resolving[i] = false;
		if (e->n_members == 0)
			return errbuf_set(res->err, res->errlen, -EINVAL, "approval chain \"%s\" has no members", name);
		break;
	default:
		return errbuf_set(res->err, res->errlen, -EINVAL, "approval backend \"%s\": unknown type", name);
	}
	*ret = i;
	return 0;
}

int approvals_new(approval_lookup lookup, void *ctx, const char *const *names, struct approvals **ret, char *err,
		  size_t errlen)
{
	_cleanup_(approvals_freep) struct approvals *a = calloc(1, sizeof(*a));
	struct resolver res = {.lookup = lookup, .ctx = ctx, .err = err, .errlen = errlen};

	if (!a)
		return -ENOMEM;
	a->v = calloc(APPROVAL_BACKENDS_MAX, sizeof(*a->v));
	if (!a->v || pthread_mutex_init(&a->terminal_lock, NULL) != 0)
		return -ENOMEM;
	for (size_t i = 0; names && names[i]; i++) {
		size_t index;
		int r = resolve(a, &res, names[i], &index);

		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(a);
	return 0;
}

void approvals_set_terminal_hold(struct approvals *a, approval_hold hold, void *ctx)
{
	a->hold = hold;
	a->hold_ctx = ctx;
}

struct approvals *approvals_free(struct approvals *a)
{
	if (!a)
		return NULL;
	for (size_t i = 0; a->v && i < a->n; i++) {
		free(a->v[i].url);
		free(a->v[i].secret_env);
		secret_free(a->v[i].key);
		free(a->v[i].answer_env);
		secret_free(a->v[i].answer_key);
	}
	free(a->v);
	pthread_mutex_destroy(&a->terminal_lock);
	free(a);
	return NULL;
}

static uint64_t min_u64(uint64_t x, uint64_t y)
{
	return x < y ? x : y;
}

static uint64_t deadline_after(uint64_t timeout_ms)
{
	uint64_t now = approve_now_ms();

	return timeout_ms > UINT64_MAX - now ? UINT64_MAX : now + timeout_ms;
}

/* Depth is bounded: resolve refused every cycle. */
static void ask_entry(struct approvals *a, size_t index, const struct approval_request *req, uint64_t deadline,
		      struct approval_result *ret)
{
	const struct approval_entry *e = &a->v[index];
	struct approval_result r = {};

	switch (e->type) {
	case CORDON_APPROVAL_TERMINAL:
		terminal_ask(a, e, req, min_u64(deadline, deadline_after(e->timeout_ms)), ret);
		return;
	case CORDON_APPROVAL_WEBHOOK:
		webhook_ask(e, req, min_u64(deadline, deadline_after(e->timeout_ms)), ret);
		return;
	case CORDON_APPROVAL_CHAIN:
		if (e->timeout_ms)
			deadline = min_u64(deadline, deadline_after(e->timeout_ms));
		for (size_t m = 0; m < e->n_members; m++) {
			if (approve_now_ms() >= deadline) {
				approval_result_set(ret, APPROVAL_TIMEOUT, false, e->name,
						    "the chain's time ran out before \"%s\" was asked",
						    a->v[e->members[m]].name);
				return;
			}
			ask_entry(a, e->members[m], req, deadline, &r);
			/* all: the first deny decides; any: the first grant */
			if (e->chain_all != r.allow)
				break;
		}
		*ret = r;
		return;
	}
	approval_result_set(ret, APPROVAL_ERROR, false, e->name, "unknown backend type");
}

static bool request_ok(const struct approval_request *req)
{
	return req && req->request_id && is_lower_hex(req->request_id, 32) && req->digest &&
	       is_lower_hex(req->digest, 64) && req->session && req->caller && req->command && req->argv &&
	       req->argv_redacted && req->env && req->env_redacted && req->cwd && req->policy &&
	       is_lower_hex(req->policy, 64);
}

int approval_ask(struct approvals *a, const char *backend, const struct approval_request *req,
		 struct approval_result *ret)
{
	struct approval_result r = {};
	ssize_t index;

	if (!a || !backend || !request_ok(req))
		return -EINVAL;
	index = find_entry(a, backend);
	if (index < 0)
		return -ENOENT;
	ask_entry(a, (size_t)index, req, UINT64_MAX, &r);
	*ret = r;
	return 0;
}
