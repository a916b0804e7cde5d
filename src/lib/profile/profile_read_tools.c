/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading command_policies (issue 13) into the loader's raw state: its
 * approval_backends and its commands, each command's executable, can_use
 * and from. A command's sandbox and invocation_policy objects are read by
 * profile_read_sandbox.c and profile_read_invocation.c. Pure, like the
 * other readers: every shape is checked here, with its position; names are
 * checked against each other once every file of the extends chain is read
 * (profile_resolve_tools.c). Across extends a later file's command or
 * backend replaces an earlier file's of the same name, whole: a policy is
 * read as one piece, never spliced from two files.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read_invocation.h"
#include "profile_read_sandbox.h"
#include "profile_read_tools.h"
#include "profile_open_urls.h"

#define TARGET(l, T) ((T *)(l)->target)

bool tools_command_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TOOLS_NAME_MAX || s[0] == '.' || s[0] == '-' || strcmp(s, CORDON_TOOLS_SESSION) == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._+-", s[i]))
			return false;
	return true;
}

static bool backend_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TOOLS_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* A command's name where a key names one. */
static int check_command_key(struct loader *l, const struct where *wk, const char *name)
{
	if (strcmp(name, CORDON_TOOLS_SESSION) == 0)
		return loader_fail(l, -EINVAL, wk,
				   "\"session\" is the agent's own sandbox, the caller of every command: no command "
				   "may be named so");
	if (!tools_command_name_valid(name))
		return loader_fail(l, -EINVAL, wk,
				   "\"%.100s\" is not a command name: 1 to %d of A-Z a-z 0-9 . _ + -, not starting "
				   "with . or -",
				   name, TOOLS_NAME_MAX);
	return 0;
}

/* ---- releasing ------------------------------------------------------------- */

static void raw_command_clear(struct raw_command *c)
{
	raw_sandbox_free(c->sandbox);
	raw_policy_free(c->policy);
	raw_list_clear(&c->can_use);
	raw_list_clear(&c->secret_flags);
	for (size_t i = 0; i < c->n_from; i++) {
		raw_sandbox_free(c->from[i].sandbox);
		raw_policy_free(c->from[i].policy);
	}
	free(c->from);
	*c = (struct raw_command){};
}

static void raw_backend_clear(struct raw_backend *b)
{
	raw_list_clear(&b->members);
	*b = (struct raw_backend){};
}

void raw_tools_clear(struct raw_tools *t)
{
	for (size_t i = 0; i < t->n_commands; i++)
		raw_command_clear(&t->commands[i]);
	free(t->commands);
	for (size_t i = 0; i < t->n_backends; i++)
		raw_backend_clear(&t->backends[i]);
	free(t->backends);
	raw_open_urls_free(t->session_open_urls);
	*t = (struct raw_tools){};
}

/* ---- approval_backends --------------------------------------------------------- */

static const char *const backend_type_names[] = {
	[CORDON_APPROVAL_TERMINAL] = "terminal",
	[CORDON_APPROVAL_WEBHOOK] = "webhook",
	[CORDON_APPROVAL_CHAIN] = "chain",
};

static const char *const backend_keys[] = {
	[BACKEND_KEY_TYPE] = "type",
	[BACKEND_KEY_TIMEOUT] = "timeout_secs",
	[BACKEND_KEY_DEFAULT] = "default",
	[BACKEND_KEY_URL] = "url",
	[BACKEND_KEY_SECRET_ENV] = "secret_env",
	[BACKEND_KEY_MODE] = "mode",
	[BACKEND_KEY_BACKENDS] = "backends",
	[BACKEND_KEY_ANSWER_SECRET_ENV] = "answer_secret_env",
	[_BACKEND_KEYS] = NULL,
};

/* The keys each type takes (all of them required), by type. */
static const unsigned backend_type_keys[] = {
	[CORDON_APPROVAL_TERMINAL] = 1u << BACKEND_KEY_TYPE | 1u << BACKEND_KEY_TIMEOUT | 1u << BACKEND_KEY_DEFAULT,
	[CORDON_APPROVAL_WEBHOOK] = 1u << BACKEND_KEY_TYPE | 1u << BACKEND_KEY_TIMEOUT | 1u << BACKEND_KEY_URL |
				    1u << BACKEND_KEY_SECRET_ENV | 1u << BACKEND_KEY_ANSWER_SECRET_ENV,
	[CORDON_APPROVAL_CHAIN] = 1u << BACKEND_KEY_TYPE | 1u << BACKEND_KEY_MODE | 1u << BACKEND_KEY_BACKENDS,
};

/* What a missing key is for, in the message that asks for it. */
static const char *const backend_key_help[] = {
	[BACKEND_KEY_TYPE] = "terminal, webhook or chain",
	[BACKEND_KEY_TIMEOUT] = "1 to 3600 seconds to wait for an answer",
	[BACKEND_KEY_DEFAULT] = "allow or deny, what an unanswered or unattended ask gets",
	[BACKEND_KEY_URL] = "the https:// address to POST to, or unix:/PATH of a socket",
	[BACKEND_KEY_SECRET_ENV] = "the variable holding the key that signs each request",
	[BACKEND_KEY_ANSWER_SECRET_ENV] = "the variable holding the other key, that signs each answer",
	[BACKEND_KEY_MODE] = "all or any",
	[BACKEND_KEY_BACKENDS] = "the backends to ask, by name",
};

/* Where a backend key's value is, and that it was written. */
static void backend_key_seen(struct loader *l, const struct where *w, const struct loader_key *k)
{
	struct raw_backend *b = TARGET(l, struct raw_backend);

	b->keys |= 1u << k->arg;
	b->at[k->arg] = *w;
}

static int read_backend_type(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	size_t i = 0;
	int r = loader_get_word(l, w, v, backend_type_names, ELEMENTSOF(backend_type_names),
			 "an approval backend type: use terminal, webhook or chain", &i);

	if (r < 0)
		return r;
	TARGET(l, struct raw_backend)->type = (enum cordon_approval_type)i;
	backend_key_seen(l, w, k);
	return 0;
}

static int read_backend_timeout(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	json_int_t n;

	if (!json_is_integer(v))
		return loader_fail(l, -EINVAL, w, "expected a whole number of seconds, not %s", json_type_name(v));
	n = json_integer_value(v);
	if (n < 1 || n > TOOLS_TIMEOUT_MAX)
		return loader_fail(l, -ERANGE, w, "must be from 1 to %d seconds, not %" JSON_INTEGER_FORMAT,
				   TOOLS_TIMEOUT_MAX, n);
	TARGET(l, struct raw_backend)->timeout_secs = (uint64_t)n;
	backend_key_seen(l, w, k);
	return 0;
}

static int read_backend_default(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const words[] = { "deny", "allow" };
	size_t i = 0;
	int r = loader_get_word(l, w, v, words, ELEMENTSOF(words), "allow or deny", &i);

	if (r < 0)
		return r;
	TARGET(l, struct raw_backend)->default_allow = i == 1;
	backend_key_seen(l, w, k);
	return 0;
}

/* https://, a host (a name, an IPv4 or a [v6] literal), an optional port,
 * then anything printable: the request goes exactly there, and credentials
 * never sit in a URL a profile show prints. Or unix:/PATH, a socket on
 * this host. Never http://: whoever can bind the port (an agent with the
 * host's network) would read every request, and could answer it. */
static int check_url(struct loader *l, const struct where *w, const char *url)
{
	const char *host, *end, *colon;
	size_t n;

	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return loader_fail(l, -EINVAL, w, "a URL has no spaces or control characters");
	if (strncmp(url, "unix:/", 6) == 0)
		return 0;
	if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\": a webhook is https:// or unix:/PATH, never http:// (anyone on the "
				   "path could read the request)", url);
	else
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not an https:// or unix:/PATH URL", url);
	end = host + strcspn(host, "/?#");
	n = (size_t)(end - host);
	if (memchr(host, '@', n))
		return loader_fail(l, -EINVAL, w,
				   "a URL with a user name or password is refused: the key in secret_env signs requests");
	if (host[0] == '[') {
		const char *close = memchr(host, ']', n);

		if (!close || close == host + 1)
			return loader_fail(l, -EINVAL, w, "\"%.100s\": an IPv6 host is written [address]", url);
		for (const char *c = host + 1; c < close; c++)
			if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
				return loader_fail(l, -EINVAL, w, "\"%.100s\": an IPv6 host is written [address]", url);
		colon = close + 1 < end ? close + 1 : NULL;
		if (colon && *colon != ':')
			return loader_fail(l, -EINVAL, w, "\"%.100s\": after the host comes :PORT or a path", url);
	} else {
		colon = memchr(host, ':', n);
		if ((colon ? colon : end) == host)
			return loader_fail(l, -EINVAL, w, "\"%.100s\" names no host", url);
		for (const char *c = host; c < (colon ? colon : end); c++)
			if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
				return loader_fail(l, -EINVAL, w, "\"%.100s\": the host has a character a host name cannot",
						   url);
	}
	if (colon) {
		unsigned long port = 0;
		const char *c = colon + 1;

		if (c == end)
			return loader_fail(l, -EINVAL, w, "\"%.100s\": an empty port", url);
		for (; c < end; c++) {
			if (!isdigit((unsigned char)*c) || c - colon > 5)
				return loader_fail(l, -EINVAL, w, "\"%.100s\": the port is not a number from 1 to 65535", url);
			port = port * 10 + (unsigned long)(*c - '0');
		}
		if (port < 1 || port > 65535)
			return loader_fail(l, -EINVAL, w, "\"%.100s\": the port is not a number from 1 to 65535", url);
	}
	return 0;
}

static int read_backend_url(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, TOOLS_URL_MAX, &s);

	if (r < 0)
		return r;
	r = check_url(l, w, s);
	if (r < 0)
		return r;
	TARGET(l, struct raw_backend)->url = s;
	backend_key_seen(l, w, k);
	return 0;
}

static int read_backend_secret_env(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (!env_name_valid(s, false))
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a variable name", s);
	if (k->arg == BACKEND_KEY_ANSWER_SECRET_ENV)
		TARGET(l, struct raw_backend)->answer_secret_env = s;
	else
		TARGET(l, struct raw_backend)->secret_env = s;
	backend_key_seen(l, w, k);
	return 0;
}

static int read_backend_mode(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const words[] = { "any", "all" };
	size_t i = 0;
	int r = loader_get_word(l, w, v, words, ELEMENTSOF(words), "a chain's mode: use all or any", &i);

	if (r < 0)
		return r;
	TARGET(l, struct raw_backend)->chain_all = i == 1;
	backend_key_seen(l, w, k);
	return 0;
}

static int check_backend_ref(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	if (!backend_name_valid(s))
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a backend name", s);
	return 0;
}

static int read_backend_members(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_backend *b = TARGET(l, struct raw_backend);
	int r;

	r = loader_read_list(l, w, v, "an array of backend names", TOOLS_NAME_MAX, check_backend_ref, 0, &b->members);
	if (r < 0)
		return r;
	if (b->members.n == 0)
		return loader_fail(l, -EINVAL, w, "an empty chain asks nobody: name at least one backend");
	if (b->members.n > TOOLS_MAX_CHAIN)
		return loader_fail(l, -E2BIG, w, "more than %d backends in one chain", TOOLS_MAX_CHAIN);
	for (size_t i = 1; i < b->members.n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->members.v[i].spelled, b->members.v[j].spelled) == 0)
				return loader_fail(l, -EINVAL, &b->members.v[i].where, "\"%s\" is in this chain twice",
						   b->members.v[i].spelled);
	backend_key_seen(l, w, k);
	return 0;
}

static const struct loader_key backend_readers[] = {
	[BACKEND_KEY_TYPE] = { read_backend_type, .arg = BACKEND_KEY_TYPE },
	[BACKEND_KEY_TIMEOUT] = { read_backend_timeout, .arg = BACKEND_KEY_TIMEOUT },
	[BACKEND_KEY_DEFAULT] = { read_backend_default, .arg = BACKEND_KEY_DEFAULT },
	[BACKEND_KEY_URL] = { read_backend_url, .arg = BACKEND_KEY_URL },
	[BACKEND_KEY_SECRET_ENV] = { read_backend_secret_env, .arg = BACKEND_KEY_SECRET_ENV },
	[BACKEND_KEY_MODE] = { read_backend_mode, .arg = BACKEND_KEY_MODE },
	[BACKEND_KEY_BACKENDS] = { read_backend_members, .arg = BACKEND_KEY_BACKENDS, .type = JSON_ARRAY,
				   .what = "an array of backend names" },
	[BACKEND_KEY_ANSWER_SECRET_ENV] = { read_backend_secret_env, .arg = BACKEND_KEY_ANSWER_SECRET_ENV },
};
static const struct loader_object backend_object = { backend_keys, backend_readers };

/* Every key the type takes, and no other. */
static int check_backend_keys(struct loader *l, const struct raw_backend *b)
{
	const char *type;
	unsigned want;

	if (!(b->keys & (1u << BACKEND_KEY_TYPE)))
		return loader_fail(l, -EINVAL, &b->where, "an approval backend needs \"type\": %s",
				   backend_key_help[BACKEND_KEY_TYPE]);
	type = backend_type_names[b->type];
	want = backend_type_keys[b->type];
	for (size_t k = 0; k < _BACKEND_KEYS; k++) {
		struct where wk = b->at[k];

		wk.at_key = true;
		if ((b->keys & (1u << k)) && !(want & (1u << k))) {
			if (b->type == CORDON_APPROVAL_WEBHOOK && k == BACKEND_KEY_DEFAULT)
				return loader_fail(l, -EINVAL, &wk,
						   "a webhook's default is always deny (no answer, a bad answer or a "
						   "timeout): leave \"default\" out");
			return loader_fail(l, -EINVAL, &wk, "a %s backend takes no \"%s\"", type, backend_keys[k]);
		}
		if (!(b->keys & (1u << k)) && (want & (1u << k)))
			return loader_fail(l, -EINVAL, &b->where, "a %s backend needs \"%s\": %s", type, backend_keys[k],
					   backend_key_help[k]);
	}
	/* whoever holds the request key (anyone the request reaches) must
	 * not be able to sign an answer */
	if (b->type == CORDON_APPROVAL_WEBHOOK && strcmp(b->secret_env, b->answer_secret_env) == 0) {
		struct where wk = b->at[BACKEND_KEY_ANSWER_SECRET_ENV];

		wk.at_key = true;
		return loader_fail(l, -EINVAL, &wk,
				   "answer_secret_env must name another variable than secret_env: the key that signs "
				   "answers is not the one that signs requests");
	}
	return 0;
}

static int read_backend(struct loader *l, const struct where *wk, const struct where *wv, const char *name, json_t *v,
			void *ctx)
{
	struct raw_tools *t = &l->tools;
	struct raw_backend *b = NULL;
	int r;

	if (!backend_name_valid(name))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a backend name: 1 to %d of A-Z a-z 0-9 _ -", name,
				   TOOLS_NAME_MAX);
	r = loader_expect(l, wv, v, JSON_OBJECT, "an object with a type: terminal, webhook or chain");
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_backends; i++)
		if (strcmp(t->backends[i].name, name) == 0) {
			b = &t->backends[i];
			raw_backend_clear(b);
		}
	if (!b) {
		struct raw_backend *nb;

		if (t->n_backends >= TOOLS_MAX_BACKENDS)
			return loader_fail(l, -E2BIG, wk, "more than %d approval backends", TOOLS_MAX_BACKENDS);
		nb = realloc(t->backends, (t->n_backends + 1) * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		t->backends = nb;
		b = &nb[t->n_backends++];
		*b = (struct raw_backend){};
	}
	b->name = name;
	b->key_where = *wk;
	b->where = *wv;
	r = loader_read_into(l, wv, v, &backend_object, b);
	if (r < 0)
		return r;
	return check_backend_keys(l, b);
}

static int read_backends(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_members(l, w, v, read_backend, NULL);
}

/* ---- from ---------------------------------------------------------------------- */

static int read_from_sandbox(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_sandbox(l, w, v, &TARGET(l, struct raw_from)->sandbox);
}

static int read_from_policy(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_invocation_policy(l, w, v, &TARGET(l, struct raw_from)->policy);
}

static const char *const from_pair_keys[] = { "sandbox", "invocation_policy", NULL };
static const struct loader_key from_pair_readers[] = {
	{ read_from_sandbox, .type = JSON_OBJECT, .what = "a sandbox object" },
	{ read_from_policy, .type = JSON_OBJECT, .what = "an invocation_policy object" },
};
static const struct loader_object from_pair_object = { from_pair_keys, from_pair_readers };

static bool is_key_of(const char *key, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return true;
	return false;
}

/* from.CALLER: "deny", a sandbox, or {"sandbox", "invocation_policy"},
 * told apart by the keys; a mix of the two object forms is refused. */
static int read_from_entry(struct loader *l, const struct where *wk, const struct where *wv, const char *caller,
			   json_t *v, void *ctx)
{
	struct raw_command *c = ctx;
	struct raw_from *f, *nf;
	const char *key;
	json_t *m;
	bool pair = false;
	int r;

	if (strcmp(caller, CORDON_TOOLS_SESSION) != 0 && !tools_command_name_valid(caller))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a caller: \"session\" or a command's name", caller);
	nf = realloc(c->from, (c->n_from + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	c->from = nf;
	f = &nf[c->n_from++];
	*f = (struct raw_from){ .caller = caller, .key_where = *wk, .where = *wv };

	if (json_is_string(v)) {
		const char *s;

		r = loader_get_string(l, wv, v, 0, &s);
		if (r < 0)
			return r;
		if (strcmp(s, "deny") != 0)
			return loader_fail(l, -EINVAL, wv,
					   "\"%.100s\" is not \"deny\": a caller gets \"deny\", a sandbox or "
					   "{\"sandbox\", \"invocation_policy\"}",
					   s);
		f->deny = true;
		return 0;
	}
	if (!json_is_object(v))
		return loader_fail(l, -EINVAL, wv,
				   "expected \"deny\", a sandbox or {\"sandbox\", \"invocation_policy\"}, not %s",
				   json_type_name(v));
	if (json_object_size(v) == 0)
		return loader_fail(l, -EINVAL, wv,
				   "says nothing: give \"deny\", a sandbox, or {\"sandbox\", \"invocation_policy\"}");
	json_object_foreach(v, key, m)
		pair |= is_key_of(key, from_pair_keys);
	if (!pair)
		return loader_read_sandbox(l, wv, v, &f->sandbox);
	{
		size_t index = 0;

		json_object_foreach(v, key, m) {
			struct where wm = where_key(wv, key, index++);

			if (is_key_of(key, loader_sandbox_keys))
				return loader_fail(l, -EINVAL, &wm,
						   "\"%s\" is a sandbox key beside \"sandbox\"/\"invocation_policy\": put "
						   "the sandbox's keys under \"sandbox\"",
						   key);
		}
	}
	return loader_read_into(l, wv, v, &from_pair_object, f);
}

/* ---- commands ------------------------------------------------------------------ */

static int read_executable(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_command *c = TARGET(l, struct raw_command);
	const char *s;
	int r = loader_get_string(l, w, v, PATH_MAX - 1, &s);

	if (r < 0)
		return r;
	/* a bare name is looked up on PATH, once, at session start; the name
	 * "session" is only reserved among commands */
	if (s[0] != '/' && (strcmp(s, CORDON_TOOLS_SESSION) != 0 && !tools_command_name_valid(s)))
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\" is neither an absolute path nor a bare command name (looked up on PATH)", s);
	c->executable = s;
	c->exe_where = *w;
	return 0;
}

static int read_command_sandbox(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_sandbox(l, w, v, &TARGET(l, struct raw_command)->sandbox);
}

static int read_command_policy(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_invocation_policy(l, w, v, &TARGET(l, struct raw_command)->policy);
}

static int check_command_ref(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	if (!tools_command_name_valid(s))
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a command name", s);
	return 0;
}

static int read_can_use(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_command *c = TARGET(l, struct raw_command);

	if (json_is_array(v) && json_array_size(v) > TOOLS_MAX_WORDS)
		return loader_fail(l, -E2BIG, w, "more than %d names", TOOLS_MAX_WORDS);
	return loader_read_list(l, w, v, "an array of command names", TOOLS_NAME_MAX, check_command_ref, 0,
				&c->can_use);
}

/* A flag as the tool spells it: -p, --db-pass (dashes, then letters,
 * digits, _ and -; no value). */
static int check_secret_flag(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	size_t dashes = strspn(s, "-"), n = strlen(s);

	if (dashes == 0 || dashes > 2 || dashes == n || strspn(s + dashes, name_chars) != n - dashes)
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a flag: write it as the tool does, -p or --db-pass",
				   s);
	return 0;
}

static int read_secret_flags(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_command *c = TARGET(l, struct raw_command);

	if (json_is_array(v) && json_array_size(v) > TOOLS_MAX_WORDS)
		return loader_fail(l, -E2BIG, w, "more than %d flags", TOOLS_MAX_WORDS);
	return loader_read_list(l, w, v, "an array of flags", TOOLS_NAME_MAX, check_secret_flag, 0, &c->secret_flags);
}

static int read_from(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	/* a caller is the session or a command: there are no more than that */
	if (json_object_size(v) > TOOLS_MAX_COMMANDS + 1)
		return loader_fail(l, -E2BIG, w, "more than %d callers", TOOLS_MAX_COMMANDS + 1);
	return loader_read_members(l, w, v, read_from_entry, TARGET(l, struct raw_command));
}

const char *const loader_command_keys[] = { "executable", "sandbox", "invocation_policy", "can_use", "from",
					    "secret_flags", NULL };
static const struct loader_key command_readers[] = {
	{ read_executable },
	{ read_command_sandbox, .type = JSON_OBJECT, .what = "a sandbox object" },
	{ read_command_policy, .type = JSON_OBJECT, .what = "an invocation_policy object" },
	{ read_can_use },
	{ read_from, .type = JSON_OBJECT, .what = "an object of caller: \"deny\", a sandbox or {sandbox, invocation_policy}" },
	{ read_secret_flags },
};
static const struct loader_object command_object = { loader_command_keys, command_readers };

static int read_command(struct loader *l, const struct where *wk, const struct where *wv, const char *name, json_t *v,
			void *ctx)
{
	struct raw_tools *t = &l->tools;
	struct raw_command *c = NULL;
	int r;

	r = check_command_key(l, wk, name);
	if (r < 0)
		return r;
	r = loader_expect(l, wv, v, JSON_OBJECT, "an object");
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_commands; i++)
		if (strcmp(t->commands[i].name, name) == 0) {
			c = &t->commands[i];
			raw_command_clear(c);
		}
	if (!c) {
		struct raw_command *nc;

		if (t->n_commands >= TOOLS_MAX_COMMANDS)
			return loader_fail(l, -E2BIG, wk, "more than %d commands", TOOLS_MAX_COMMANDS);
		nc = realloc(t->commands, (t->n_commands + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		t->commands = nc;
		c = &nc[t->n_commands++];
		*c = (struct raw_command){};
	}
	c->name = name;
	c->key_where = *wk;
	c->where = *wv;
	return loader_read_into(l, wv, v, &command_object, c);
}

static int read_commands(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_members(l, w, v, read_command, NULL);
}

/* ---- command_policies ------------------------------------------------------------ */

const char *const loader_tools_keys[] = { "approval_backends", "commands", NULL };
static const struct loader_key tools_readers[] = {
	{ read_backends, .type = JSON_OBJECT, .what = "an object of NAME: backend" },
	{ read_commands, .type = JSON_OBJECT, .what = "an object of NAME: command" },
};
static const struct loader_object tools_object = { loader_tools_keys, tools_readers };

int loader_read_command_policies(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = loader_read_into(l, w, v, &tools_object, NULL);

	if (r < 0)
		return r;
	l->tools.seen = true;
	l->tools.where = *w;
	return 0;
}
