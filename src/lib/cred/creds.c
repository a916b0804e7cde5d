/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A profile's compiled credentials (creds.h): how they are let go, found,
 * the phantom shape's grammar (pure), and the JSON `profile show` prints.
 * There is never a value here: the supervisor reads it from its source.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "creds.h"
#include "error.h"
#include "policy.h"
#include "strv.h"

#define _cleanup_json_ _cleanup_(json_decrefp)

/* ---- lifetime ------------------------------------------------------------------ */

void cred_shape_clear(struct cred_shape *s)
{
	free(s->prefix);
	*s = (struct cred_shape){};
}

void tool_cred_clear(struct tool_cred *c)
{
	free(c->name);
	free(c->source_ref);
	strv_free(c->hosts);
	free(c->inject_name);
	free(c->format);
	free(c->phantom_env);
	cred_shape_clear(&c->shape);
	strv_free(c->grant_to);
	for (size_t i = 0; i < c->policy.n_rules; i++) {
		struct cred_rule *r = &c->policy.rules[i];

		free(r->method);
		free(r->path);
		free(r->reason);
		free(r->backend);
		tool_place_clear(&r->place);
	}
	free(c->policy.rules);
	tool_place_clear(&c->policy.place);
	free(c->tls_ca);
	free(c->tls_client_cert);
	free(c->tls_client_key);
	tool_place_clear(&c->place);
	*c = (struct tool_cred){};
}

void tool_capture_clear(struct tool_capture *c)
{
	free(c->name);
	strv_free(c->command);
	strv_free(c->read);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(c->net_rules[i]);
	tool_place_clear(&c->place);
	*c = (struct tool_capture){};
}

struct tool_creds *tool_creds_free(struct tool_creds *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		tool_cred_clear(&c->v[i]);
	free(c->v);
	for (size_t i = 0; i < c->n_captures; i++)
		tool_capture_clear(&c->captures[i]);
	free(c->captures);
	free(c);
	return NULL;
}

/* ---- lookups ------------------------------------------------------------------- */

const struct tool_cred *tool_creds_find(const struct tool_creds *c, const char *name)
{
	for (size_t i = 0; c && name && i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

const struct tool_capture *tool_creds_capture(const struct tool_creds *c, const char *name)
{
	for (size_t i = 0; c && name && i < c->n_captures; i++)
		if (strcmp(c->captures[i].name, name) == 0)
			return &c->captures[i];
	return NULL;
}

bool tool_cred_granted(const struct tool_cred *c, const char *consumer)
{
	if (!c || !consumer)
		return false;
	for (char **g = c->grant_to; *g; g++) {
		if (strcmp(consumer, CORDON_TOOLS_SESSION) == 0 ? strcmp(*g, CORDON_TOOLS_SESSION) == 0
								 : strncmp(*g, "cmd.", 4) == 0 && strcmp(*g + 4, consumer) == 0)
			return true;
	}
	return false;
}

int tool_creds_check_trust_var(const struct tool_creds *c, const char *consumer, const char *name,
			       struct cordon_error *reterr)
{
	if (!c || !env_name_is_trust(name))
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (tool_cred_granted(&c->v[i], consumer))
			return error_set(reterr, -EPERM, CRED_TRUST_VAR_REFUSED, name, consumer, name,
					 c->v[i].name, name);
	return 0;
}

int tool_creds_check_trust_var_intercepted(const struct tool_creds *c, const char *sandbox, const char *name,
					   struct cordon_error *reterr)
{
	if (!c || !c->n || !env_name_is_trust(name))
		return 0;
	return error_set(reterr, -EPERM, CRED_TRUST_VAR_INTERCEPTED, name, sandbox, c->v[0].name, name, name);
}

/* ---- names ------------------------------------------------------------------- */

static const char *const alphabet_names[_CRED_ALPHAS] = {
	[CRED_ALPHA_BASE62] = "base62",
	[CRED_ALPHA_HEX] = "hex",
	[CRED_ALPHA_BASE64URL] = "base64url",
	[CRED_ALPHA_ALNUM_LOWER] = "alnum_lower",
};

static const char *const alphabet_chars[_CRED_ALPHAS] = {
	[CRED_ALPHA_BASE62] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	[CRED_ALPHA_HEX] = "0123456789abcdef",
	[CRED_ALPHA_BASE64URL] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
	[CRED_ALPHA_ALNUM_LOWER] = "abcdefghijklmnopqrstuvwxyz0123456789",
};

const char *cred_alphabet_name(enum cred_alphabet a)
{
	return (unsigned)a < _CRED_ALPHAS ? alphabet_names[a] : NULL;
}

const char *cred_alphabet_chars(enum cred_alphabet a)
{
	return (unsigned)a < _CRED_ALPHAS ? alphabet_chars[a] : NULL;
}

const char *cred_source_scheme(enum cred_source s)
{
	switch (s) {
	case CRED_SOURCE_ENV:
		return "env://";
	case CRED_SOURCE_FILE:
		return "file://";
	case CRED_SOURCE_CMD:
		return "cmd://";
	}
	return "";
}

const char *cred_action_name(enum cred_action a)
{
	switch (a) {
	case CRED_DENY:
		return "deny";
	case CRED_APPROVE:
		return "approve";
	case CRED_ALLOW:
		return "allow";
	}
	return "";
}

/* ---- the phantom's shape --------------------------------------------------------- */

int cred_shape_parse(const char *s, struct cred_shape *ret, struct cordon_error *reterr)
{
	const char *open = strchr(s, '{'), *p;
	struct cred_shape sh = {};
	uint64_t n = 0;

	if (!open)
		return error_set(reterr, -EINVAL,
				 "\"%.100s\" has no {N}: write the prefix then the random part, as ghp_{36} or "
				 "sk-{48:base62}", s);
	for (p = s; p < open; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '}')
			return error_set(reterr, -EINVAL,
					 "\"%.100s\": the prefix is printable ASCII without spaces or braces", s);
	p = open + 1;
	if (*p < '1' || *p > '9')
		return error_set(reterr, -EINVAL, "\"%.100s\": {N} starts with a digit from 1", s);
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > CREDS_SHAPE_MAX)
			return error_set(reterr, -ERANGE, "\"%.100s\": a phantom is at most %d characters", s,
					 CREDS_SHAPE_MAX);
	}
	sh.alphabet = CRED_ALPHA_BASE62;
	if (*p == ':') {
		const char *name = ++p, *end = strchr(p, '}');
		bool found = false;

		if (!end)
			return error_set(reterr, -EINVAL, "\"%.100s\": {N:alphabet} is not closed", s);
		for (size_t a = 0; a < _CRED_ALPHAS; a++)
			if (strlen(alphabet_names[a]) == (size_t)(end - name) &&
			    strncmp(alphabet_names[a], name, (size_t)(end - name)) == 0) {
				sh.alphabet = (enum cred_alphabet)a;
				found = true;
			}
		if (!found)
			return error_set(reterr, -EINVAL,
					 "\"%.100s\": the alphabet is base62, hex, base64url or alnum_lower", s);
		p = end;
	}
	if (*p != '}')
		return error_set(reterr, -EINVAL, "\"%.100s\": write {N} or {N:alphabet}", s);
	if (p[1] != '\0')
		return error_set(reterr, -EINVAL,
				 "\"%.100s\": the random part ends the phantom (nothing after the braces)", s);
	if ((size_t)(open - s) + n > CREDS_SHAPE_MAX)
		return error_set(reterr, -ERANGE, "\"%.100s\": a phantom is at most %d characters", s,
				 CREDS_SHAPE_MAX);
	sh.len = (uint32_t)n;
	if (!(sh.prefix = strndup(s, (size_t)(open - s))))
		return -ENOMEM;
	*ret = sh;
	return 0;
}

unsigned cred_shape_bits(const struct cred_shape *s)
{
	/* log2 of each alphabet's size, in thousandths, rounded down */
	static const unsigned millibits[_CRED_ALPHAS] = {
		[CRED_ALPHA_BASE62] = 5954,
		[CRED_ALPHA_HEX] = 4000,
		[CRED_ALPHA_BASE64URL] = 6000,
		[CRED_ALPHA_ALNUM_LOWER] = 5169,
	};

	return (unsigned)((uint64_t)s->len * millibits[s->alphabet] / 1000);
}

/* ---- JSON ----------------------------------------------------------------------- */

static int add(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

static json_t *strv_json(char *const *v)
{
	_cleanup_json_ json_t *a = json_array();

	for (size_t i = 0; a && v && v[i]; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

/* A duration the loader reads back exactly. */
static json_t *duration_json(uint64_t usec)
{
	char b[32];

	if (usec % 1000000 == 0)
		snprintf(b, sizeof(b), "%" PRIu64 "s", usec / 1000000);
	else
		snprintf(b, sizeof(b), "%" PRIu64 "ms", usec / 1000);
	return json_string(b);
}

static int policy_json(const struct cred_policy *pol, json_t **ret)
{
	static const char *const keys[3] = { [CRED_DENY] = "deny", [CRED_APPROVE] = "approve", [CRED_ALLOW] = "allow" };
	_cleanup_json_ json_t *o = json_object(), *deny = json_array(), *approve = json_array(), *allow = json_array();
	json_t *lists[3] = { [CRED_DENY] = deny, [CRED_APPROVE] = approve, [CRED_ALLOW] = allow };
	int r;

	if (!o || !deny || !approve || !allow)
		return -ENOMEM;
	if ((r = add(o, "default", json_string(cred_action_name(pol->default_action)))) < 0)
		return r;
	for (size_t i = 0; i < pol->n_rules; i++) {
		const struct cred_rule *rule = &pol->rules[i];
		json_t *e = json_object();

		if (!e || json_array_append_new(lists[rule->action], e) < 0)
			return -ENOMEM;
		if ((r = add(e, "method", json_string(rule->method))) < 0 || (r = add(e, "path", json_string(rule->path))) < 0)
			return r;
		if (rule->reason && (r = add(e, "reason", json_string(rule->reason))) < 0)
			return r;
		if (rule->backend && (r = add(e, "backend", json_string(rule->backend))) < 0)
			return r;
	}
	for (size_t a = 0; a < 3; a++) {
		if (json_array_size(lists[a]) == 0)
			continue;
		if ((r = add(o, keys[a], json_incref(lists[a]))) < 0)
			return r;
	}
	*ret = TAKE_PTR(o);
	return 0;
}

static int cred_json(const struct tool_cred *c, json_t **ret)
{
	_cleanup_json_ json_t *o = json_object(), *inject = json_object(), *phantom = json_object();
	_cleanup_free_ char *source = NULL, *shape = NULL;
	int r;

	if (!o || !inject || !phantom)
		return -ENOMEM;
	if (asprintf(&source, "%s%s", cred_source_scheme(c->source), c->source_ref) < 0 ||
	    asprintf(&shape, "%s{%" PRIu32 ":%s}", c->shape.prefix, c->shape.len, cred_alphabet_name(c->shape.alphabet)) <
		    0)
		return -ENOMEM;
	if ((r = add(o, "source", json_string(source))) < 0 || (r = add(o, "hosts", strv_json(c->hosts))) < 0 ||
	    (r = add(o, "grant_to", strv_json(c->grant_to))) < 0)
		return r;
	switch (c->inject) {
	case CRED_INJECT_HEADER:
		r = add(inject, "header", json_string(c->inject_name));
		if (r >= 0)
			r = add(inject, "format", json_string(c->format));
		break;
	case CRED_INJECT_BASIC: {
		json_t *b = json_object();

		r = add(inject, "basic", b);
		if (r >= 0)
			r = add(b, "user", json_string(c->inject_name));
		break;
	}
	case CRED_INJECT_QUERY:
		r = add(inject, "query", json_string(c->inject_name));
		break;
	}
	if (r < 0 || (r = add(o, "inject", TAKE_PTR(inject))) < 0)
		return r;
	if ((r = add(phantom, "env", json_string(c->phantom_env))) < 0 || (r = add(phantom, "shape", json_string(shape))) < 0 ||
	    (r = add(o, "phantom", TAKE_PTR(phantom))) < 0)
		return r;
	if (c->policy.set) {
		json_t *p = NULL;

		if ((r = policy_json(&c->policy, &p)) < 0 || (r = add(o, "endpoint_policy", p)) < 0)
			return r;
	}
	if (c->tls_ca || c->tls_client_cert) {
		json_t *tls = json_object();

		if ((r = add(o, "tls", tls)) < 0)
			return r;
		if (c->tls_ca && (r = add(tls, "ca", json_string(c->tls_ca))) < 0)
			return r;
		if (c->tls_client_cert && ((r = add(tls, "client_cert", json_string(c->tls_client_cert))) < 0 ||
					   (r = add(tls, "client_key", json_string(c->tls_client_key))) < 0))
			return r;
	}
	*ret = TAKE_PTR(o);
	return 0;
}

static int capture_json(const struct tool_capture *c, json_t **ret)
{
	static const char *const net_keys[PROFILE_NET_RULE_KINDS] = {
		[CORDON_NET_ALLOW_DOMAIN] = "allow_domains",
		[CORDON_NET_DENY_DOMAIN] = "deny_domains",
		[CORDON_NET_ALLOW_ADDRESS] = "allow_addresses",
	};
	_cleanup_json_ json_t *o = json_object(), *net = json_object();
	int r;

	if (!o || !net)
		return -ENOMEM;
	if ((r = add(o, "command", strv_json(c->command))) < 0 || (r = add(o, "timeout", duration_json(c->timeout_usec))) < 0 ||
	    (r = add(o, "ttl", duration_json(c->ttl_usec))) < 0)
		return r;
	if (c->read[0] && (r = add(o, "read", strv_json(c->read))) < 0)
		return r;
	if ((r = add(net, "mode", json_string(profile_net_to_string(c->net)))) < 0)
		return r;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if (c->net_rules[i][0] && (r = add(net, net_keys[i], strv_json(c->net_rules[i]))) < 0)
			return r;
	if ((r = add(o, "network", TAKE_PTR(net))) < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

int tool_creds_to_json(const struct tool_creds *c, json_t **ret_credentials, json_t **ret_captures)
{
	_cleanup_json_ json_t *creds = json_object(), *caps = json_object();
	int r;

	if (!creds || !caps)
		return -ENOMEM;
	for (size_t i = 0; c && i < c->n; i++) {
		json_t *one = NULL;

		if ((r = cred_json(&c->v[i], &one)) < 0 || (r = add(creds, c->v[i].name, one)) < 0)
			return r;
	}
	for (size_t i = 0; c && i < c->n_captures; i++) {
		json_t *one = NULL;

		if ((r = capture_json(&c->captures[i], &one)) < 0 || (r = add(caps, c->captures[i].name, one)) < 0)
			return r;
	}
	*ret_credentials = TAKE_PTR(creds);
	*ret_captures = TAKE_PTR(caps);
	return 0;
}
