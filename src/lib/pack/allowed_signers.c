/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trust file (OpenSSH allowed_signers format) parsed strictly under
 * caps, and the one question asked of it: may this principal sign in this
 * namespace with this key, now.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "allowed_signers.h"
#include "cleanup.h"
#include "error.h"
#include "sshsig.h"
#include "strv.h"

#define TOKEN_MAX 8192

static void signer_clear(struct allowed_signer *e)
{
	strv_free(e->principals);
	strv_free(e->namespaces);
	free(e->key);
}

void allowed_signers_free(struct allowed_signers *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		signer_clear(&s->v[i]);
	free(s->v);
	free(s);
}

/* The next whitespace-separated token of line (double quotes keep spaces),
 * into tok; false at the end. */
static bool next_token(const char **p, const char *end, char *tok, size_t cap, bool *too_long)
{
	const char *s = *p;
	bool quoted = false;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return false;
	while (s < end && (quoted || (*s != ' ' && *s != '\t'))) {
		if (*s == '"')
			quoted = !quoted;
		if (n + 1 >= cap) {
			*too_long = true;
			return false;
		}
		tok[n++] = *s++;
	}
	tok[n] = '\0';
	*p = s;
	return true;
}

/* OpenSSH's YYYYMMDD[HHMM[SS]][Z]: Z is UTC, else local time. */
static int parse_time(const char *s, int64_t *ret)
{
	struct tm tm = {};
	size_t n = strlen(s);
	bool utc = n && (s[n - 1] == 'Z' || s[n - 1] == 'z');
	char digits[15];
	time_t t;

	if (utc)
		n--;
	if (n != 8 && n != 12 && n != 14)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	memcpy(digits, s, n);
	memset(digits + n, '0', 14 - n);
	digits[14] = '\0';
	if (sscanf(digits, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec) != 6)
		return -EINVAL;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 60)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*ret = (int64_t)t;
	return 0;
}

/* A value of name="..." (quotes required), unquoted into a new string. */
static char *option_value(const char *opt, size_t name_len)
{
	const char *v = opt + name_len + 1;
	size_t n = strlen(v);

	if (n < 2 || v[0] != '"' || v[n - 1] != '"' || memchr(v + 1, '"', n - 2))
		return NULL;
	return strndup(v + 1, n - 2);
}

/* Comma-separated exact names (no pattern characters, no negation). */
static int split_names(const char *s, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	const char *p = s;

	while (true) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char *name;

		if (n == 0 || strcspn(p, "*?!\"") < n)
			return -EINVAL;
		name = strndup(p, n);
		if (!name || strv_consume(&v, name) < 0)
			return -ENOMEM;
		if (!comma)
			break;
		p = comma + 1;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int parse_options(char *opts, struct allowed_signer *e, struct cordon_error *reterr)
{
	char *p = opts;

	/* split on commas outside quotes */
	while (*p) {
		char *o = p;
		bool quoted = false;
		_cleanup_free_ char *value = NULL;

		for (; *p && (quoted || *p != ','); p++)
			if (*p == '"')
				quoted = !quoted;
		if (*p)
			*p++ = '\0';
		if (strcasecmp(o, "cert-authority") == 0)
			return error_set(reterr, -EBADMSG,
					 "line %u: cert-authority is not accepted (a pack is signed by a key, not a "
					 "certificate)",
					 e->line);
		if (strncasecmp(o, "namespaces=", 11) == 0) {
			int r;

			if (e->namespaces || !(value = option_value(o, 10)))
				return error_set(reterr, -EBADMSG, "line %u: namespaces= is malformed", e->line);
			r = split_names(value, &e->namespaces);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				return error_set(reterr, -EBADMSG,
						 "line %u: namespaces= must list exact names (no patterns)", e->line);
		} else if (strncasecmp(o, "valid-after=", 12) == 0 || strncasecmp(o, "valid-before=", 13) == 0) {
			bool after = strncasecmp(o, "valid-after=", 12) == 0;
			int64_t *t = after ? &e->valid_after : &e->valid_before;

			if (!(value = option_value(o, after ? 11 : 12)) || *t || parse_time(value, t) < 0)
				return error_set(reterr, -EBADMSG,
						 "line %u: %s= is not a time (YYYYMMDD[HHMM[SS]][Z], quoted)", e->line,
						 after ? "valid-after" : "valid-before");
		} else
			return error_set(reterr, -EBADMSG, "line %u: the option \"%.40s\" is not accepted", e->line, o);
	}
	return 0;
}

static bool is_key_type(const char *t)
{
	return strcmp(t, "ssh-ed25519") == 0 || strcmp(t, "ecdsa-sha2-nistp256") == 0 ||
	       strcmp(t, "ecdsa-sha2-nistp384") == 0 || strcmp(t, "ecdsa-sha2-nistp521") == 0 ||
	       strcmp(t, "ssh-rsa") == 0 || strcmp(t, "ssh-dss") == 0 || strncmp(t, "sk-", 3) == 0 ||
	       strstr(t, "-cert-v01@openssh.com");
}

static int parse_line(const char *line, const char *end, struct allowed_signer *e, struct cordon_error *reterr)
{
	_cleanup_free_ char *tok = malloc(TOKEN_MAX);
	_cleanup_free_ char *type = NULL;
	const char *p = line;
	bool too_long = false;
	char type_name[32];
	int r;

	if (!tok)
		return -ENOMEM;
	if (!next_token(&p, end, tok, TOKEN_MAX, &too_long))
		return too_long ? error_set(reterr, -EBADMSG, "line %u: too long", e->line) : 0;
	r = split_names(tok, &e->principals);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return error_set(reterr, -EBADMSG,
				 "line %u: principals must be exact names (\"%.60s\" has a pattern or negation)",
				 e->line, tok);
	if (!next_token(&p, end, tok, TOKEN_MAX, &too_long))
		return error_set(reterr, -EBADMSG, "line %u: no key after the principals", e->line);
	if (!is_key_type(tok)) {
		r = parse_options(tok, e, reterr);
		if (r < 0)
			return r;
		if (!next_token(&p, end, tok, TOKEN_MAX, &too_long))
			return error_set(reterr, -EBADMSG, "line %u: no key after the options", e->line);
	}
	type = strdup(tok);
	if (!type)
		return -ENOMEM;
	if (!next_token(&p, end, tok, TOKEN_MAX, &too_long))
		return error_set(reterr, -EBADMSG, "line %u: no base64 key after \"%.40s\"", e->line, type);
	r = ssh_base64_decode(tok, strlen(tok), SSHSIG_MAX_BLOB, &e->key, &e->key_len);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return error_set(reterr, -EBADMSG, "line %u: the key is not valid base64", e->line);
	r = sshkey_blob_check(e->key, e->key_len, type_name, reterr);
	if (r < 0)
		return error_prefix(reterr, r, "line %u", e->line);
	if (strcmp(type_name, type) != 0)
		return error_set(reterr, -EBADMSG, "line %u: the key is a %s key, the line says %.40s", e->line,
				 type_name, type);
	/* the rest is a comment */
	return 1;
}

int allowed_signers_parse(const char *text, size_t len, struct allowed_signers **ret, struct cordon_error *reterr)
{
	struct allowed_signers *s;
	const char *p = text, *end = text + len;
	unsigned line = 0;

	if (len > ALLOWED_SIGNERS_MAX_BYTES)
		return error_set(reterr, -EBADMSG, "larger than %d bytes", ALLOWED_SIGNERS_MAX_BYTES);
	if (memchr(text, '\0', len))
		return error_set(reterr, -EBADMSG, "holds a NUL byte");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *q = p;
		struct allowed_signer e = { .line = ++line };
		int r;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (le > q && le[-1] == '\r')
			le--;
		p = nl ? nl + 1 : end;
		if (q == le || *q == '#')
			continue;
		r = parse_line(q, le, &e, reterr);
		if (r > 0 && s->n >= ALLOWED_SIGNERS_MAX_ENTRIES)
			r = error_set(reterr, -EBADMSG, "more than %d entries", ALLOWED_SIGNERS_MAX_ENTRIES);
		if (r > 0) {
			struct allowed_signer *v = reallocarray(s->v, s->n + 1, sizeof(*v));

			r = v ? 0 : -ENOMEM;
			if (v) {
				s->v = v;
				s->v[s->n++] = e;
				continue;
			}
		}
		signer_clear(&e);
		if (r < 0) {
			allowed_signers_free(s);
			return r;
		}
	}
	*ret = s;
	return 0;
}

int allowed_signers_check(const struct allowed_signers *s, const char *principal, const uint8_t *key, size_t key_len,
			  const char *namespace, time_t now, struct cordon_error *reterr)
{
	const char *why = NULL;
	unsigned why_line = 0;

	if (!s || s->n == 0)
		return error_set(reterr, -EKEYREJECTED, "the trust file lists no signer");
	for (size_t i = 0; i < s->n; i++) {
		const struct allowed_signer *e = &s->v[i];

		if (e->key_len != key_len || memcmp(e->key, key, key_len) != 0)
			continue;
		if (!strv_contains(e->principals, principal)) {
			if (!why)
				why = "the key is trusted, but not for this owner", why_line = e->line;
			continue;
		}
		if (!e->namespaces || !strv_contains(e->namespaces, namespace)) {
			why = "the key is not trusted for the namespace cordon-pack (namespaces=\"cordon-pack\")";
			why_line = e->line;
			continue;
		}
		if (e->valid_after && now < e->valid_after) {
			why = "the key is not valid yet (valid-after)", why_line = e->line;
			continue;
		}
		if (e->valid_before && now >= e->valid_before) {
			why = "the key has expired (valid-before)", why_line = e->line;
			continue;
		}
		return 0;
	}
	if (why)
		return error_set(reterr, -EKEYREJECTED, "%s: line %u of the trust file", why, why_line);
	return error_set(reterr, -EKEYREJECTED, "the signing key is not in the trust file");
}
