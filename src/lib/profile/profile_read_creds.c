/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a profile's credentials and credential_capture (issue 23) into
 * the loader's raw state, every shape checked here with its position: a
 * source (env://VAR, file://PATH, cmd://NAME), the hosts where it may be
 * spent (required), how it is injected (header + format, basic, query), the
 * phantom (its variable and its declared shape, at least 128 bits of
 * randomness), grant_to (required, not empty), the endpoint policy and the
 * TLS files (a client certificate and key together or neither); a capture's
 * command, timeout, ttl and its own sandbox (read, network). Pure: names
 * are checked against command_policies once every file of the extends chain
 * is read (profile_resolve_creds.c).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "creds.h"
#include "json_pos.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read_creds.h"
#include "profile_read_tools.h"
#include "profile_read_values.h"
#include "strv.h"

#define TARGET(l, T) ((T *)(l)->target)

/* ---- releasing ------------------------------------------------------------------ */

static void raw_cred_clear(struct raw_cred *c)
{
	raw_list_clear(&c->hosts);
	raw_list_clear(&c->grant_to);
	free(c->rules);
	*c = (struct raw_cred){ .source = -1, .inject = -1 };
}

static void raw_capture_clear(struct raw_capture *c)
{
	raw_list_clear(&c->command);
	raw_list_clear(&c->read);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(c->net_rules[i]);
	*c = (struct raw_capture){};
}

void raw_creds_clear(struct raw_creds *c)
{
	for (size_t i = 0; i < c->n; i++)
		raw_cred_clear(&c->v[i]);
	free(c->v);
	for (size_t i = 0; i < c->n_captures; i++)
		raw_capture_clear(&c->captures[i]);
	free(c->captures);
	*c = (struct raw_creds){};
}

/* A credential's or a capture's name: what cmd://NAME and messages say. */
static bool cred_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > CREDS_NAME_MAX || s[0] == '-' || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* ---- source ------------------------------------------------------------------ */

static int read_source(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	const char *s;
	int r = loader_get_string(l, w, v, PATH_MAX - 1, &s);

	if (r < 0)
		return r;
	c->source_where = *w;
	if (strncmp(s, "env://", 6) == 0) {
		c->source = CRED_SOURCE_ENV;
		c->source_ref = s + 6;
		if (!env_name_valid(c->source_ref, false))
			return loader_fail(l, -EINVAL, w, "env://%.100s: \"%.100s\" is not a variable name", c->source_ref,
					   c->source_ref);
	} else if (strncmp(s, "file://", 7) == 0) {
		c->source = CRED_SOURCE_FILE;
		c->source_ref = s + 7;
		if (c->source_ref[0] != '/' && c->source_ref[0] != '~')
			return loader_fail(l, -EINVAL, w,
					   "file://%.100s: the path is absolute (file:///run/secrets/token) or below ~",
					   c->source_ref);
	} else if (strncmp(s, "cmd://", 6) == 0) {
		c->source = CRED_SOURCE_CMD;
		c->source_ref = s + 6;
		if (!cred_name_valid(c->source_ref))
			return loader_fail(l, -EINVAL, w,
					   "cmd://%.100s: name a capture of credential_capture (1 to %d of A-Z a-z 0-9 . _ -)",
					   c->source_ref, CREDS_NAME_MAX);
	} else
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\" is not a source: env://VAR, file://PATH or cmd://NAME (a credential_capture)",
				   s);
	return 0;
}

/* ---- hosts, grant_to ---------------------------------------------------------------- */

static int check_host(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	struct cordon_error why;

	if (strchr(s, '*'))
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\": a credential is spent at hosts named exactly, never a wildcard", s);
	for (const char *c = s; *c; c++)
		if (isupper((unsigned char)*c))
			return loader_fail(l, -EINVAL, w, "\"%.100s\": write host names in lower case", s);
	if (profile_net_rule_check(CORDON_NET_ALLOW_DOMAIN, s, &why) < 0)
		return loader_fail(l, -EINVAL, w, "%s", why.message);
	return 0;
}

static int read_hosts(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	int r;

	if (json_is_array(v) && json_array_size(v) > CREDS_MAX_HOSTS)
		return loader_fail(l, -E2BIG, w, "more than %d hosts", CREDS_MAX_HOSTS);
	r = loader_read_list(l, w, v, "an array of host names", 253, check_host, 0, &c->hosts);
	if (r < 0)
		return r;
	if (c->hosts.n == 0)
		return loader_fail(l, -EINVAL, w, "no host: name where this credential may be spent");
	return 0;
}

static int check_grant(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	if (strcmp(s, CORDON_TOOLS_SESSION) == 0)
		return 0;
	if (strncmp(s, "cmd.", 4) == 0 && tools_command_name_valid(s + 4))
		return 0;
	return loader_fail(l, -EINVAL, w,
			   "\"%.100s\" is not a consumer: \"session\" (the agent's own sandbox) or \"cmd.NAME\" (a "
			   "command of command_policies)",
			   s);
}

static int read_grant_to(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	int r;

	if (json_is_array(v) && json_array_size(v) > CREDS_MAX_GRANTS)
		return loader_fail(l, -E2BIG, w, "more than %d consumers", CREDS_MAX_GRANTS);
	r = loader_read_list(l, w, v, "an array of consumers", TOOLS_NAME_MAX + 4, check_grant, 0, &c->grant_to);
	if (r < 0)
		return r;
	if (c->grant_to.n == 0)
		return loader_fail(l, -EINVAL, w,
				   "grant_to is empty: a credential nobody may use is an error, not \"everyone\"; name "
				   "\"session\" or \"cmd.NAME\"");
	return 0;
}

/* ---- inject ------------------------------------------------------------------ */

/* An HTTP header's name (a token) that is not one the proxy owns. */
static bool header_name_valid(const char *s)
{
	static const char *const owned[] = { "host", "content-length", "transfer-encoding", "connection", "upgrade",
					     "proxy-authorization", "te", "trailer", NULL };

	if (!s[0] || strlen(s) > 128)
		return false;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("!#$%&'*+-.^_`|~", *c))
			return false;
	for (size_t i = 0; owned[i]; i++)
		if (strcasecmp(s, owned[i]) == 0)
			return false;
	return true;
}

static int read_inject(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	json_t *header = json_object_get(v, "header"), *format = json_object_get(v, "format"),
	       *basic = json_object_get(v, "basic"), *query = json_object_get(v, "query");
	const char *key;
	json_t *m;
	size_t index = 0;
	int kinds = !!header + !!basic + !!query, r;

	json_object_foreach(v, key, m) {
		struct where wk = where_key(w, key, index++);

		if (strcmp(key, "header") && strcmp(key, "format") && strcmp(key, "basic") && strcmp(key, "query"))
			return loader_fail(l, -EINVAL, &wk, "unknown key \"%.100s\" (inject: header and format, basic, or query)",
					   key);
	}
	if (kinds != 1)
		return loader_fail(l, -EINVAL, w,
				   "inject is one of: {\"header\": NAME, \"format\": \"Bearer {}\"}, {\"basic\": {\"user\": "
				   "NAME}}, {\"query\": PARAMETER}");
	index = 0;
	json_object_foreach(v, key, m) {
		struct where wv = where_child(w, key, index++);

		if (strcmp(key, "header") == 0) {
			if ((r = loader_get_string(l, &wv, m, 128, &c->inject_name)) < 0)
				return r;
			if (!header_name_valid(c->inject_name))
				return loader_fail(l, -EINVAL, &wv,
						   "\"%.100s\" is not a header the proxy may set (a token; never Host, "
						   "Content-Length, Connection and the like)",
						   c->inject_name);
			c->inject = CRED_INJECT_HEADER;
		} else if (strcmp(key, "format") == 0) {
			const char *f;

			if (!header)
				return loader_fail(l, -EINVAL, &wv, "format goes with header");
			if ((r = loader_get_string(l, &wv, m, CREDS_FORMAT_MAX, &f)) < 0)
				return r;
			if (!strstr(f, "{}") || strstr(strstr(f, "{}") + 2, "{}"))
				return loader_fail(l, -EINVAL, &wv, "\"%.100s\": a format holds \"{}\" (the value) once", f);
			for (const char *x = f; *x; x++)
				if ((unsigned char)*x < ' ' || *x == 0x7f)
					return loader_fail(l, -EINVAL, &wv, "a format has no control characters");
			c->format = f;
		} else if (strcmp(key, "basic") == 0) {
			json_t *user = json_is_object(m) ? json_object_get(m, "user") : NULL;
			struct where wu = where_child(&wv, "user", 0);

			if (!json_is_object(m) || json_object_size(m) != 1 || !user)
				return loader_fail(l, -EINVAL, &wv, "basic is {\"user\": NAME}: the value is the password");
			if ((r = loader_get_string(l, &wu, user, 128, &c->inject_name)) < 0)
				return r;
			if (!c->inject_name[0] || strchr(c->inject_name, ':'))
				return loader_fail(l, -EINVAL, &wu, "a basic user is not empty and has no ':'");
			for (const char *x = c->inject_name; *x; x++)
				if ((unsigned char)*x <= ' ' || *x == 0x7f)
					return loader_fail(l, -EINVAL, &wu, "a basic user has no spaces or control characters");
			c->inject = CRED_INJECT_BASIC;
		} else {
			if ((r = loader_get_string(l, &wv, m, 128, &c->inject_name)) < 0)
				return r;
			for (const char *x = c->inject_name; *x; x++)
				if (!isalnum((unsigned char)*x) && !strchr("-._~", *x))
					return loader_fail(l, -EINVAL, &wv,
							   "\"%.100s\" is not a query parameter's name (A-Z a-z 0-9 - . _ ~)",
							   c->inject_name);
			if (!c->inject_name[0])
				return loader_fail(l, -EINVAL, &wv, "an empty query parameter");
			c->inject = CRED_INJECT_QUERY;
		}
	}
	if (header && !format)
		return loader_fail(l, -EINVAL, w, "a header needs a \"format\", as \"Bearer {}\" ({} is the value)");
	return 0;
}

/* ---- phantom ------------------------------------------------------------------ */

static int read_phantom(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	json_t *env = json_object_get(v, "env"), *shape = json_object_get(v, "shape");
	struct where we = where_child(w, "env", 0), ws = where_child(w, "shape", 1);
	struct cred_shape sh = {};
	struct cordon_error why;
	unsigned bits;
	int r;

	if (json_object_size(v) != (size_t)(!!env + !!shape) || !env || !shape)
		return loader_fail(l, -EINVAL, w,
				   "a phantom is {\"env\": VARIABLE, \"shape\": \"prefix{N}\"} (both keys, no other)");
	if ((r = loader_get_string(l, &we, env, 0, &c->phantom_env)) < 0)
		return r;
	if (!env_name_valid(c->phantom_env, false))
		return loader_fail(l, -EINVAL, &we, "\"%.100s\" is not a variable name", c->phantom_env);
	if ((r = loader_get_string(l, &ws, shape, CREDS_SHAPE_MAX + 32, &c->phantom_shape)) < 0)
		return r;
	r = cred_shape_parse(c->phantom_shape, &sh, &why);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return loader_fail(l, r, &ws, "%s", why.message);
	bits = cred_shape_bits(&sh);
	cred_shape_clear(&sh);
	if (bits < CREDS_PHANTOM_MIN_BITS)
		return loader_fail(l, -EINVAL, &ws,
				   "\"%.100s\" gives %u bits of randomness: a phantom needs at least %d (base62: 22 "
				   "characters, hex: 32)",
				   c->phantom_shape, bits, CREDS_PHANTOM_MIN_BITS);
	c->phantom_where = *w;
	return 0;
}

/* ---- endpoint_policy ------------------------------------------------------------- */

static int read_rule(struct loader *l, const struct where *w, json_t *v, int action)
{
	struct raw_cred *c = TARGET(l, struct raw_cred);
	struct raw_cred_rule rule = { .action = action, .where = *w };
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	if (!json_is_object(v))
		return loader_fail(l, -EINVAL, w, "expected {\"method\", \"path\"}, not %s", json_type_name(v));
	json_object_foreach(v, key, m) {
		struct where wv = where_child(w, key, index);
		struct where wk = where_key(w, key, index++);

		if (strcmp(key, "method") == 0) {
			if ((r = loader_get_string(l, &wv, m, 32, &rule.method)) < 0)
				return r;
			if (strcmp(rule.method, "*") != 0) {
				for (const char *x = rule.method; *x; x++)
					if (!isupper((unsigned char)*x))
						return loader_fail(l, -EINVAL, &wv,
								   "\"%.100s\" is not a method: upper-case letters (GET, "
								   "POST) or \"*\"",
								   rule.method);
				if (!rule.method[0])
					return loader_fail(l, -EINVAL, &wv, "an empty method");
			}
		} else if (strcmp(key, "path") == 0) {
			if ((r = loader_get_string(l, &wv, m, 2048, &rule.path)) < 0)
				return r;
			if (rule.path[0] != '/')
				return loader_fail(l, -EINVAL, &wv, "\"%.100s\": a path glob starts with /", rule.path);
			for (const char *x = rule.path; *x; x++)
				if ((unsigned char)*x <= ' ' || *x == 0x7f || *x == '?' || *x == '#' || *x == '\\' ||
				    *x == ';' || *x == '%')
					return loader_fail(l, -EINVAL, &wv,
							   "\"%.100s\": a path glob has no spaces, ? # \\ ; %% (paths are "
							   "matched decoded and canonical)",
							   rule.path);
			if (strstr(rule.path, "//") || strstr(rule.path, "/./") || strstr(rule.path, "/../"))
				return loader_fail(l, -EINVAL, &wv, "\"%.100s\": a path glob is canonical (no //, ., ..)",
						   rule.path);
		} else if (strcmp(key, "reason") == 0) {
			if ((r = loader_get_string(l, &wv, m, TOOLS_REASON_MAX, &rule.reason)) < 0)
				return r;
			for (const char *x = rule.reason; *x; x++)
				if ((unsigned char)*x < ' ' || *x == 0x7f)
					return loader_fail(l, -EINVAL, &wv, "a reason has no control characters");
		} else if (strcmp(key, "backend") == 0) {
			if (action != CRED_APPROVE)
				return loader_fail(l, -EINVAL, &wk, "only an approve rule names a backend");
			if ((r = loader_get_string(l, &wv, m, TOOLS_NAME_MAX, &rule.backend)) < 0)
				return r;
			rule.backend_where = wv;
		} else
			return loader_fail(l, -EINVAL, &wk, "unknown key \"%.100s\" (a rule: method, path, reason, backend)",
					   key);
	}
	if (!rule.method || !rule.path)
		return loader_fail(l, -EINVAL, w, "a rule needs \"method\" and \"path\"");
	if (action == CRED_APPROVE && !rule.backend)
		return loader_fail(l, -EINVAL, w, "an approve rule names its \"backend\" (of approval_backends)");
	if (c->n_rules >= CREDS_MAX_RULES)
		return loader_fail(l, -E2BIG, w, "more than %d rules", CREDS_MAX_RULES);
	{
		struct raw_cred_rule *nr = realloc(c->rules, (c->n_rules + 1) * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->rules = nr;
		nr[c->n_rules++] = rule;
	}
	return loader_count_rule(l, w);
}

static int read_endpoint_policy(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const words[] = { [CRED_DENY] = "deny", [CRED_APPROVE] = "approve", [CRED_ALLOW] = "allow" };
	struct raw_cred *c = TARGET(l, struct raw_cred);
	const char *key;
	json_t *m;
	size_t index = 0;
	bool dflt = false;
	int r;

	c->policy_set = true;
	c->policy_where = *w;
	json_object_foreach(v, key, m) {
		struct where wv = where_child(w, key, index);
		struct where wk = where_key(w, key, index++);
		size_t i = 0;

		if (strcmp(key, "default") == 0) {
			r = loader_get_word(l, &wv, m, words, ELEMENTSOF(words), "allow or deny", &i);
			if (r < 0)
				return r;
			if (i == CRED_APPROVE)
				return loader_fail(l, -EINVAL, &wv, "the default is allow or deny");
			c->policy_default = (int)i;
			dflt = true;
			continue;
		}
		for (i = 0; i < ELEMENTSOF(words); i++)
			if (strcmp(key, words[i]) == 0)
				break;
		if (i == ELEMENTSOF(words))
			return loader_fail(l, -EINVAL, &wk,
					   "unknown key \"%.100s\" (endpoint_policy: default, deny, approve, allow)", key);
		if (!json_is_array(m))
			return loader_fail(l, -EINVAL, &wv, "expected an array of rules, not %s", json_type_name(m));
		for (size_t j = 0; j < json_array_size(m); j++) {
			struct where we = where_child(&wv, NULL, j);

			if ((r = read_rule(l, &we, json_array_get(m, j), (int)i)) < 0)
				return r;
		}
	}
	if (!dflt)
		return loader_fail(l, -EINVAL, w, "an endpoint_policy says its \"default\": allow or deny");
	return 0;
}

/* ---- tls ------------------------------------------------------------------ */

static int read_tls(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const keys[_RAW_TLS] = { [RAW_TLS_CA] = "ca", [RAW_TLS_CERT] = "client_cert",
						    [RAW_TLS_KEY] = "client_key" };
	struct raw_cred *c = TARGET(l, struct raw_cred);
	const char *key;
	json_t *m;
	size_t index = 0;
	int r;

	json_object_foreach(v, key, m) {
		struct where wv = where_child(w, key, index);
		struct where wk = where_key(w, key, index++);
		size_t i;

		for (i = 0; i < _RAW_TLS; i++)
			if (strcmp(key, keys[i]) == 0)
				break;
		if (i == _RAW_TLS)
			return loader_fail(l, -EINVAL, &wk, "unknown key \"%.100s\" (tls: ca, client_cert, client_key)", key);
		if ((r = loader_get_string(l, &wv, m, PATH_MAX - 1, (const char **)&c->tls[i].spelled)) < 0)
			return r;
		if (c->tls[i].spelled[0] != '/' && c->tls[i].spelled[0] != '~')
			return loader_fail(l, -EINVAL, &wv, "\"%.100s\": a path, absolute or below ~", c->tls[i].spelled);
		c->tls[i].where = wv;
	}
	if (!c->tls[RAW_TLS_CERT].spelled != !c->tls[RAW_TLS_KEY].spelled)
		return loader_fail(l, -EINVAL, w,
				   "a client certificate goes with its key: give both client_cert and client_key, or "
				   "neither");
	return 0;
}

/* ---- one credential ------------------------------------------------------------- */

const char *const loader_cred_keys[] = { "source", "hosts", "inject", "phantom", "grant_to", "endpoint_policy", "tls",
					 NULL };
static const struct loader_key cred_readers[] = {
	{ read_source },
	{ read_hosts },
	{ read_inject, .type = JSON_OBJECT, .what = "an object: header and format, basic, or query" },
	{ read_phantom, .type = JSON_OBJECT, .what = "an object: env and shape" },
	{ read_grant_to },
	{ read_endpoint_policy, .type = JSON_OBJECT, .what = "an object: default, deny, approve, allow" },
	{ read_tls, .type = JSON_OBJECT, .what = "an object: ca, client_cert, client_key" },
};
static const struct loader_object cred_object = { loader_cred_keys, cred_readers };

static int read_cred(struct loader *l, const struct where *wk, const struct where *wv, const char *name, json_t *v,
		     void *ctx)
{
	struct raw_creds *t = &l->creds;
	struct raw_cred *c = NULL;
	int r;

	if (!cred_name_valid(name))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a credential's name: 1 to %d of A-Z a-z 0-9 . _ -",
				   name, CREDS_NAME_MAX);
	r = loader_expect(l, wv, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			c = &t->v[i];
			raw_cred_clear(c);
		}
	if (!c) {
		struct raw_cred *nc;

		if (t->n >= CREDS_MAX)
			return loader_fail(l, -E2BIG, wk, "more than %d credentials", CREDS_MAX);
		nc = realloc(t->v, (t->n + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		t->v = nc;
		c = &nc[t->n++];
		*c = (struct raw_cred){ .source = -1, .inject = -1 };
	}
	c->name = name;
	c->key_where = *wk;
	c->where = *wv;
	r = loader_read_into(l, wv, v, &cred_object, c);
	if (r < 0)
		return r;
	if (c->source < 0)
		return loader_fail(l, -EINVAL, wv, "credential %s needs a \"source\": env://VAR, file://PATH or cmd://NAME",
				   name);
	if (c->hosts.n == 0)
		return loader_fail(l, -EINVAL, wv, "credential %s needs \"hosts\": where it may be spent", name);
	if (c->inject < 0)
		return loader_fail(l, -EINVAL, wv,
				   "credential %s needs \"inject\": {\"header\", \"format\"}, {\"basic\"} or {\"query\"}",
				   name);
	if (!c->phantom_env)
		return loader_fail(l, -EINVAL, wv,
				   "credential %s needs a \"phantom\": {\"env\": VARIABLE, \"shape\": \"prefix{N}\"}",
				   name);
	if (c->grant_to.n == 0)
		return loader_fail(l, -EINVAL, wv,
				   "credential %s needs \"grant_to\": there is no default (\"session\", \"cmd.NAME\")",
				   name);
	return 0;
}

int loader_read_credentials(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = loader_read_members(l, w, v, read_cred, NULL);

	if (r < 0)
		return r;
	l->creds.seen = true;
	l->creds.where = *w;
	return 0;
}

/* ---- credential_capture ---------------------------------------------------------- */

static int check_word(struct loader *l, const struct where *w, const char *s, intptr_t first)
{
	if (first && !s[0])
		return loader_fail(l, -EINVAL, w, "an empty command");
	if (first && s[0] != '/' && !tools_command_name_valid(s))
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\" is neither an absolute path nor a bare command name (looked up on PATH)", s);
	return 0;
}

static int read_capture_command(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_capture *c = TARGET(l, struct raw_capture);
	json_t *first = json_is_array(v) ? json_array_get(v, 0) : NULL;
	struct where w0 = where_child(w, NULL, 0);
	const char *s;
	int r;

	if (json_is_array(v) && json_array_size(v) > CREDS_CAPTURE_WORDS)
		return loader_fail(l, -E2BIG, w, "more than %d words", CREDS_CAPTURE_WORDS);
	if (json_is_array(v) && !first)
		return loader_fail(l, -EINVAL, w, "an empty command: give the argv, as [\"gh\", \"auth\", \"token\"]");
	if (first && (r = loader_get_string(l, &w0, first, PATH_MAX - 1, &s)) >= 0 && (r = check_word(l, &w0, s, 1)) < 0)
		return r;
	return loader_read_list(l, w, v, "an array of words (the argv)", TOOLS_WORD_MAX, check_word, 0, &c->command);
}

static int read_capture_duration(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_capture *c = TARGET(l, struct raw_capture);
	uint64_t usec = 0, max = k->arg ? CREDS_CAPTURE_TTL_MAX_USEC : CREDS_CAPTURE_TIMEOUT_MAX_USEC;
	const char *s;
	int r = loader_get_string(l, w, v, 32, &s);

	if (r < 0)
		return r;
	if (cordon_parse_duration(s, &usec) < 0 || usec < 1000)
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a duration (\"5s\", \"500ms\", \"15m\")", s);
	if (usec > max)
		return loader_fail(l, -ERANGE, w, "\"%.100s\": at most %s", s, k->arg ? "7 days (168h)" : "5 minutes");
	if (k->arg)
		c->ttl_usec = usec;
	else
		c->timeout_usec = usec;
	return 0;
}

static int read_capture_read(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_paths(l, w, v, false, &TARGET(l, struct raw_capture)->read);
}

static int read_capture_network(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const kinds[PROFILE_NET_RULE_KINDS] = {
		[CORDON_NET_ALLOW_DOMAIN] = "allow_domains",
		[CORDON_NET_DENY_DOMAIN] = "deny_domains",
		[CORDON_NET_ALLOW_ADDRESS] = "allow_addresses",
	};
	struct raw_capture *c = TARGET(l, struct raw_capture);
	const char *key;
	json_t *m;
	size_t index = 0;
	bool rules = false;
	int r;

	json_object_foreach(v, key, m) {
		struct where wv = where_child(w, key, index);
		struct where wk = where_key(w, key, index++);
		size_t i;

		if (strcmp(key, "mode") == 0) {
			if ((r = loader_get_net_mode(l, &wv, m, &c->net)) < 0)
				return r;
			c->net_set = true;
			continue;
		}
		for (i = 0; i < PROFILE_NET_RULE_KINDS; i++)
			if (strcmp(key, kinds[i]) == 0)
				break;
		if (i == PROFILE_NET_RULE_KINDS)
			return loader_fail(l, -EINVAL, &wk,
					   "unknown key \"%.100s\" (network: mode, allow_domains, deny_domains, "
					   "allow_addresses)",
					   key);
		if ((r = loader_expect(l, &wv, m, JSON_ARRAY, "an array of host rules")) < 0)
			return r;
		if ((r = loader_read_net_rules(l, &wv, m, (enum cordon_net_rule)i, &c->net_rules[i])) < 0)
			return r;
		rules = true;
	}
	if (rules)
		return loader_check_net_rules_mode(l, w, c->net_set ? c->net : PROFILE_NET_NONE);
	return 0;
}

static const char *const capture_keys[] = { "command", "timeout", "ttl", "read", "network", NULL };
static const struct loader_key capture_readers[] = {
	{ read_capture_command },
	{ read_capture_duration, .arg = 0 },
	{ read_capture_duration, .arg = 1 },
	{ read_capture_read },
	{ read_capture_network, .type = JSON_OBJECT, .what = "an object: mode, allow_domains, ..." },
};
static const struct loader_object capture_object = { capture_keys, capture_readers };

static int read_capture(struct loader *l, const struct where *wk, const struct where *wv, const char *name, json_t *v,
			void *ctx)
{
	struct raw_creds *t = &l->creds;
	struct raw_capture *c = NULL;
	int r;

	if (!cred_name_valid(name))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a capture's name: 1 to %d of A-Z a-z 0-9 . _ -", name,
				   CREDS_NAME_MAX);
	r = loader_expect(l, wv, v, JSON_OBJECT, "an object: command, timeout, ttl, read, network");
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_captures; i++)
		if (strcmp(t->captures[i].name, name) == 0) {
			c = &t->captures[i];
			raw_capture_clear(c);
		}
	if (!c) {
		struct raw_capture *nc;

		if (t->n_captures >= CREDS_MAX)
			return loader_fail(l, -E2BIG, wk, "more than %d captures", CREDS_MAX);
		nc = realloc(t->captures, (t->n_captures + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		t->captures = nc;
		c = &nc[t->n_captures++];
		*c = (struct raw_capture){};
	}
	c->name = name;
	c->key_where = *wk;
	c->where = *wv;
	r = loader_read_into(l, wv, v, &capture_object, c);
	if (r < 0)
		return r;
	if (c->command.n == 0)
		return loader_fail(l, -EINVAL, wv, "capture %s needs a \"command\": the argv that prints the token", name);
	if (!c->timeout_usec)
		return loader_fail(l, -EINVAL, wv, "capture %s needs a \"timeout\" (\"5s\")", name);
	if (!c->ttl_usec)
		return loader_fail(l, -EINVAL, wv,
				   "capture %s needs a \"ttl\" (\"15m\"): how long a value that says no expiry is kept",
				   name);
	return 0;
}

int loader_read_credential_capture(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = loader_read_members(l, w, v, read_capture, NULL);

	if (r < 0)
		return r;
	l->creds.captures_seen = true;
	l->creds.captures_where = *w;
	return 0;
}
