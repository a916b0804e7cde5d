/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The webhook's messages: the signed request body and the answer's parser
 * (approve_message.h). No I/O: the fuzz target drives the parser. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "approve_message.h"
#include "approve_text.h"
#include "cleanup.h"

/* jansson's own json_decrefp */
#define _cleanup_json_ _cleanup_(json_decrefp)

bool is_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[n] == '\0';
}

/* RFC 3339 in UTC with milliseconds: 2024-05-01T12:00:00.000Z */
static int format_time(uint64_t ms, char buf[32])
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -EINVAL;
	snprintf(buf + strlen(buf), 32 - strlen(buf), ".%03" PRIu64 "Z", ms % 1000);
	return 0;
}

/* JSON strings are UTF-8; bytes that are not (an argv may hold any) go in
 * escape_printable's form rather than failing the request. */
static json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	_cleanup_free_ char *buf = NULL;
	size_t n = strlen(s);

	if (j)
		return j;
	if (n > (SIZE_MAX - 1) / 4)
		return NULL;
	buf = malloc(4 * n + 1);
	if (!buf)
		return NULL;
	escape_printable(s, n, buf, 4 * n + 1);
	return json_string(buf);
}

static int add(json_t *o, const char *key, json_t *v)
{
	/* json_object_set_new takes v, also when it fails */
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

int webhook_body(const struct approval_request *req, uint64_t created_ms, uint64_t expires_ms, char **ret)
{
	_cleanup_json_ json_t *o = json_object(), *argv = json_array(), *env = json_array();
	char created[32], expires[32];
	size_t argc = 0;
	char *body;
	int r;

	if (!o || !argv || !env)
		return -ENOMEM;
	while (req->argv[argc])
		argc++;
	for (size_t i = 0; req->env_redacted[i]; i++)
		if (json_array_append_new(env, json_text(req->env_redacted[i])) < 0)
			return -ENOMEM;
	if (format_time(created_ms, created) < 0 || format_time(expires_ms, expires) < 0)
		return -EINVAL;
	for (size_t i = 0; req->argv_redacted[i]; i++)
		if (json_array_append_new(argv, json_text(req->argv_redacted[i])) < 0)
			return -ENOMEM;
	if ((r = add(o, "type", json_string(WEBHOOK_REQUEST_TYPE))) < 0 ||
	    (r = add(o, "version", json_integer(WEBHOOK_REQUEST_VERSION))) < 0 ||
	    (r = add(o, "request_id", json_text(req->request_id))) < 0 ||
	    (r = add(o, "session", json_text(req->session))) < 0 ||
	    (r = add(o, "caller", json_text(req->caller))) < 0 ||
	    (r = add(o, "command", json_text(req->command))) < 0 ||
	    (r = add(o, "argv_redacted", json_incref(argv))) < 0 ||
	    (r = add(o, "digest", json_text(req->digest))) < 0 || (r = add(o, "created", json_string(created))) < 0 ||
	    (r = add(o, "expires", json_string(expires))) < 0 ||
	    (r = add(o, "expires_ms", json_integer((json_int_t)expires_ms))) < 0 ||
	    (r = add(o, "argc", json_integer((json_int_t)argc))) < 0 ||
	    (r = add(o, "env_redacted", json_incref(env))) < 0 || (r = add(o, "cwd", json_text(req->cwd))) < 0 ||
	    (r = add(o, "cwd_dev", json_integer((json_int_t)req->cwd_dev))) < 0 ||
	    (r = add(o, "cwd_ino", json_integer((json_int_t)req->cwd_ino))) < 0 ||
	    (r = add(o, "policy_sha256", json_text(req->policy))) < 0)
		return r;
	body = json_dumps(o, JSON_COMPACT);
	if (!body)
		return -ENOMEM;
	*ret = body;
	return 0;
}

int webhook_signature(const void *key, size_t key_len, const char *body, size_t len, char out[WEBHOOK_SIGNATURE_SIZE])
{
	uint8_t mac[SHA256_BYTES];
	int r = hmac_sha256(key, key_len, body, len, mac);

	if (r < 0)
		return r;
	memcpy(out, "sha256=", 7);
	hex_encode(mac, sizeof(mac), out + 7);
	return 0;
}

static int refuse(int r, char *reason, size_t size, const char *why)
{
	snprintf(reason, size, "%s", why);
	return r;
}

/* Does member key of o hold exactly the string want? */
static int echoes(json_t *o, const char *key, const char *want, char *reason, size_t size)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return snprintf(reason, size, "the answer has no %s", key), -EBADMSG;
	if (!json_is_string(v) || json_string_length(v) != strlen(want) ||
	    memcmp(json_string_value(v), want, strlen(want)) != 0)
		return snprintf(reason, size, "the answer's %s is not this request's", key), -EBADMSG;
	return 0;
}

int webhook_answer_mac(const void *key, size_t key_len, const char *request_id, const char *digest, bool allow,
		       uint64_t expires_ms, char out[SHA256_HEX])
{
	_cleanup_free_ char *text = NULL;
	uint8_t mac[SHA256_BYTES];
	int n, r;

	n = asprintf(&text, "%s\n%s\n%s\n%s\n%" PRIu64, WEBHOOK_ANSWER_CONTEXT, request_id, digest,
		     allow ? "allow" : "deny", expires_ms);
	if (n < 0) {
		text = NULL;
		return -ENOMEM;
	}
	r = hmac_sha256(key, key_len, text, (size_t)n, mac);
	if (r < 0)
		return r;
	hex_encode(mac, sizeof(mac), out);
	return 0;
}

/* The answer's expiry and MAC: signed by the holder of the answer key, for
 * this decision on this request, and still valid. */
static int check_signed(json_t *o, const struct webhook_expect *want, bool allow, char *reason, size_t size)
{
	json_t *exp = json_object_get(o, "expires_ms"), *mac = json_object_get(o, "mac");
	char good[SHA256_HEX];
	json_int_t e;
	int r;

	if (!json_is_integer(exp) || (e = json_integer_value(exp)) <= 0)
		return refuse(-EBADMSG, reason, size, "the answer has no expires_ms");
	if (!json_is_string(mac) || json_string_length(mac) != SHA256_HEX - 1)
		return refuse(-EBADMSG, reason, size, "the answer is not signed (no mac): anyone could have sent it");
	r = webhook_answer_mac(want->key, want->key_len, want->request_id, want->digest, allow, (uint64_t)e, good);
	if (r < 0)
		return refuse(r == -ENOMEM ? -ENOMEM : -EBADMSG, reason, size, "the answer's mac cannot be checked");
	if (!bytes_equal(good, json_string_value(mac), SHA256_HEX - 1))
		return refuse(-EBADMSG, reason, size,
			      "the answer's mac is wrong: it was not signed with the answer key for this request");
	if ((uint64_t)e > want->expires_ms)
		return refuse(-EBADMSG, reason, size, "the answer's expires_ms is later than the request's");
	if ((uint64_t)e <= want->now_ms)
		return refuse(-EBADMSG, reason, size, "the answer has expired");
	return 0;
}

int webhook_response_parse(const char *body, size_t len, const struct webhook_expect *want, bool *ret_allow,
			   char *reason, size_t reason_size)
{
	_cleanup_json_ json_t *o = NULL;
	json_t *decision, *why;
	json_error_t error;
	bool allow;
	int r;

	if (len > WEBHOOK_RESPONSE_MAX)
		return refuse(-EMSGSIZE, reason, reason_size, "the answer is over 64 KiB");
	/* duplicate keys could say allow to one reader and deny to another */
	o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &error);
	if (!o) {
		char text[sizeof(error.text) * 4];

		escape_printable(error.text, strnlen(error.text, sizeof(error.text)), text, sizeof(text));
		snprintf(reason, reason_size, "the answer is not JSON: %s", text);
		return -EBADMSG;
	}
	if (!json_is_object(o))
		return refuse(-EBADMSG, reason, reason_size, "the answer is not a JSON object");
	if ((r = echoes(o, "request_id", want->request_id, reason, reason_size)) < 0 ||
	    (r = echoes(o, "digest", want->digest, reason, reason_size)) < 0)
		return r;
	decision = json_object_get(o, "decision");
	if (!json_is_string(decision))
		return refuse(-EBADMSG, reason, reason_size, "the answer has no decision");
	if (strcmp(json_string_value(decision), "allow") == 0 && json_string_length(decision) == 5)
		allow = true;
	else if (strcmp(json_string_value(decision), "deny") == 0 && json_string_length(decision) == 4)
		allow = false;
	else
		return refuse(-EBADMSG, reason, reason_size, "the answer's decision is neither allow nor deny");
	why = json_object_get(o, "reason");
	if (why && !json_is_string(why) && !json_is_null(why))
		return refuse(-EBADMSG, reason, reason_size, "the answer's reason is not a string");
	r = check_signed(o, want, allow, reason, reason_size);
	if (r < 0)
		return r;

	if (reason_size > 0) {
		if (json_is_string(why))
			escape_printable(json_string_value(why), json_string_length(why), reason, reason_size);
		else
			reason[0] = '\0';
	}
	*ret_allow = allow;
	return 0;
}
