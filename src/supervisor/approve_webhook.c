/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The webhook backend: one signed POST with libcurl (loaded on first use:
 * curl_dl.h), on a handle of its own (calls run on several threads at
 * once), over https or a unix socket, never plain http. Only a 2xx answer
 * whose JSON echoes the request id and digest and carries a MAC under the
 * answer key (another key than the request's: whoever reads a request, or
 * binds the port first, cannot answer it) decides; a redirect is not
 * followed, and every other answer, a transport or TLS failure and the
 * timeout deny, with a reason that says which.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approve_message.h"
#include "approve_record.h"
#include "approve_text.h"
#include "approve_webhook.h"
#include "cleanup.h"
#include "config.h"
#include "curl_dl.h"

/* A request body past this is refused before it is sent (the broker's
 * frames are capped at 1 MiB, so a real one is far smaller). */
#define WEBHOOK_BODY_MAX (4 * 1024 * 1024)

struct response {
	char buf[WEBHOOK_RESPONSE_MAX];
	size_t len;
	bool too_big;
};

/* Keep the body up to the cap; one byte more ends the transfer. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct response *resp = userdata;
	size_t n = size * nmemb;

	if (n > sizeof(resp->buf) - resp->len) {
		resp->too_big = true;
		return 0; /* CURLE_WRITE_ERROR */
	}
	memcpy(resp->buf + resp->len, data, n);
	resp->len += n;
	return n;
}

static int set_options(const struct curl_dl *dl, CURL *curl, const struct approval_entry *e, const char *body,
		       size_t len, struct curl_slist *headers, struct response *resp, char *errbuf, long timeout_ms)
{
	CURLcode c = CURLE_OK;

#define SET(opt, val)                                                                                                  \
	do {                                                                                                           \
		if (c == CURLE_OK)                                                                                     \
			c = dl->easy_setopt(curl, opt, val);                                                           \
	} while (0)
	if (strncmp(e->url, WEBHOOK_UNIX_PREFIX, strlen(WEBHOOK_UNIX_PREFIX)) == 0) {
		/* HTTP on a socket of this host: the path is the approver */
		SET(CURLOPT_UNIX_SOCKET_PATH, e->url + strlen(WEBHOOK_UNIX_PREFIX));
		SET(CURLOPT_URL, "http://localhost/");
		SET(CURLOPT_PROTOCOLS_STR, "http");
	} else {
		SET(CURLOPT_URL, e->url);
		SET(CURLOPT_PROTOCOLS_STR, "https");
	}
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	/* the approver is reached directly, whatever the supervisor's
	 * environment says about proxies */
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	/* threads: no SIGALRM for name resolution timeouts */
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_TIMEOUT_MS, timeout_ms);
	SET(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	SET(CURLOPT_POST, 1L);
	SET(CURLOPT_POSTFIELDS, body);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_USERAGENT, "cordon/" CORDON_VERSION);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)WEBHOOK_RESPONSE_MAX);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, resp);
	SET(CURLOPT_ERRORBUFFER, errbuf);
#undef SET
	return c == CURLE_OK ? 0 : -EINVAL;
}

static struct curl_slist *make_headers(const struct curl_dl *dl, const char *signature)
{
	char line[sizeof(WEBHOOK_SIGNATURE_HEADER ": ") + WEBHOOK_SIGNATURE_SIZE];
	struct curl_slist *h = NULL, *next;
	const char *fixed[] = {
		"Content-Type: application/json", "Accept: application/json",
		"Expect:", /* no wait for a 100 Continue the server may never send */
	};

	snprintf(line, sizeof(line), WEBHOOK_SIGNATURE_HEADER ": %s", signature);
	for (size_t i = 0; i <= ELEMENTSOF(fixed); i++) {
		next = dl->slist_append(h, i < ELEMENTSOF(fixed) ? fixed[i] : line);
		if (!next) {
			dl->slist_free_all(h);
			return NULL;
		}
		h = next;
	}
	return h;
}

static const CURLcode tls_failures[] = {
	CURLE_SSL_CONNECT_ERROR,	CURLE_PEER_FAILED_VERIFICATION,
	CURLE_SSL_CERTPROBLEM,		CURLE_SSL_CIPHER,
	CURLE_SSL_CACERT_BADFILE,	CURLE_SSL_ISSUER_ERROR,
	CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
	CURLE_SSL_CRL_BADFILE,
};

/* The outcome of a transfer that did not bring a usable 2xx answer. */
static void transfer_failed(const struct curl_dl *dl, const struct approval_entry *e, CURLcode c, const char *errbuf,
			    bool too_big, uint64_t timeout_ms, struct approval_result *ret)
{
	char detail[CURL_ERROR_SIZE * 4];

	if (too_big || c == CURLE_FILESIZE_EXCEEDED) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "the answer is over 64 KiB");
		return;
	}
	if (c == CURLE_OPERATION_TIMEDOUT) {
		approval_result_set(ret, APPROVAL_TIMEOUT, false, e->name, "no answer within %llu ms",
				    (unsigned long long)timeout_ms);
		return;
	}
	const char *why = errbuf[0] ? errbuf : dl->easy_strerror(c);

	escape_printable(why, strlen(why), detail, sizeof(detail));
	for (size_t i = 0; i < ELEMENTSOF(tls_failures); i++)
		if (c == tls_failures[i]) {
			approval_result_set(ret, APPROVAL_ERROR, false, e->name, "TLS failed: %s", detail);
			return;
		}
	approval_result_set(ret, APPROVAL_ERROR, false, e->name, "the request failed: %s", detail);
}

/* The POST on curl, with headers, and its answer, into *ret. */
static void exchange(const struct curl_dl *dl, CURL *curl, struct curl_slist *headers, const struct approval_entry *e,
		     struct webhook_expect *want, const char *body, uint64_t timeout_ms, struct approval_result *ret)
{
	_cleanup_free_ struct response *resp = calloc(1, sizeof(*resp));
	char errbuf[CURL_ERROR_SIZE] = "", reason[256];
	bool allow = false;
	long status = 0;
	CURLcode c;
	int r;

	if (!resp || set_options(dl, curl, e, body, strlen(body), headers, resp, errbuf, (long)timeout_ms) < 0) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "cannot set up the request");
		return;
	}
	c = dl->easy_perform(curl);
	if (c != CURLE_OK) {
		transfer_failed(dl, e, c, errbuf, resp->too_big, timeout_ms, ret);
		return;
	}
	dl->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 300 && status < 400) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name,
				    "the answer is a redirect (HTTP %ld), not followed", status);
		return;
	}
	if (status < 200 || status >= 300) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "the answer is HTTP %ld, not 2xx", status);
		return;
	}
	want->now_ms = approve_wall_ms();
	r = webhook_response_parse(resp->buf, resp->len, want, &allow, reason, sizeof(reason));
	if (r < 0) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "%s", reason);
		return;
	}
	approval_result_set(ret, allow ? APPROVAL_GRANTED : APPROVAL_DENIED, allow, e->name, "%s%s%s",
			    allow ? "allowed by the webhook" : "denied by the webhook", reason[0] ? ": " : "", reason);
}

void webhook_ask(const struct approval_entry *e, const struct approval_request *req, uint64_t deadline,
		 struct approval_result *ret)
{
	const struct curl_dl *dl;
	struct curl_slist *headers = NULL;
	_cleanup_free_ char *body = NULL;
	char signature[WEBHOOK_SIGNATURE_SIZE], why[512];
	uint64_t now = approve_now_ms(), timeout_ms, wall;
	CURL *curl = NULL;
	int r;

	if (now >= deadline) {
		approval_result_set(ret, APPROVAL_TIMEOUT, false, e->name, "no time left to ask");
		return;
	}
	/* loaded at session start already (approvals_new checks the url with
	 * it); fail closed all the same */
	dl = curl_dl_get(why, sizeof(why));
	if (!dl) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "the webhook cannot be asked: %s", why);
		return;
	}
	timeout_ms = deadline - now;
	if (timeout_ms > LONG_MAX)
		timeout_ms = LONG_MAX;
	wall = approve_wall_ms();
	struct webhook_expect want = {
		.request_id = req->request_id,
		.digest = req->digest,
		.expires_ms = wall + timeout_ms,
		.key = e->answer_key->bytes,
		.key_len = e->answer_key->len,
	};
	r = webhook_body(req, wall, want.expires_ms, &body);
	if (r >= 0 && strlen(body) > WEBHOOK_BODY_MAX)
		r = -E2BIG;
	if (r >= 0)
		r = webhook_signature(e->key->bytes, e->key->len, body, strlen(body), signature);
	if (r < 0) {
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "cannot make the request: %s", strerror(-r));
		return;
	}
	headers = make_headers(dl, signature);
	curl = dl->easy_init();
	if (headers && curl)
		exchange(dl, curl, headers, e, &want, body, timeout_ms, ret);
	else
		approval_result_set(ret, APPROVAL_ERROR, false, e->name, "cannot set up the request");
	/* the handle first: the list is in use until it is gone */
	if (curl)
		dl->easy_cleanup(curl);
	dl->slist_free_all(headers);
}
