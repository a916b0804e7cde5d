/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Redaction of an argv for the audit log and for approvers. The rules, for
 * each word in order (the first that applies):
 *
 *  1. the word after a declared secret flag (REDACT_SECRET_FLAGS, and the
 *     tool's own secret_flags; the whole name, never a part of it:
 *     `--token X`, `--password X`, but not `--keyboard X`) is redacted
 *     whole, unless it is a flag itself (`--password --force` shows
 *     --force: a neighbouring word is never hidden by a flag's name);
 *  2. a flag with its value in one word, --flag=value: the value is
 *     redacted when the flag is declared secret or its name says secret
 *     (redact_secret_name), else it goes through 5 and 6;
 *  3. "Name: value" where Name says secret (a header, as in curl -H
 *     'Authorization: Bearer x'): the value;
 *  4. NAME=VALUE, NAME a variable-like name ([A-Za-z_][A-Za-z0-9_.]*)
 *     that says secret (`API_KEY=x`): the value; any other NAME=VALUE
 *     (git's `-c core.sshCommand=...`) is shown, its value through 5
 *     and 6, since it may change what runs;
 *  5. a URL: its userinfo (scheme://user:pass@host) and the values of
 *     query and fragment parameters whose names say secret;
 *  6. everywhere else: each run of base64/hex characters ([A-Za-z0-9+/_=-])
 *     of at least REDACT_RANDOM_MIN_RUN that looks random, meaning
 *       - only hex digits, with both a digit and a letter (keys, digests:
 *         a full commit id is redacted too; short ones are kept), or
 *       - a digit and a letter, and at least 30% of the neighbouring
 *         alphanumeric pairs change class (lower, upper, digit): random
 *         base64 changes in about 65% of pairs, a path like
 *         /home/User/Projects2024/MyApp/src in about 23%, words and
 *         CamelCase names (no digit) are kept.
 *
 * A redacted value is written "<redacted N bytes, sha256:XXXXXXXX>"
 * (REDACTED_FORMAT): never dropped, never in clear.
 *
 * What the rules cannot see is kept: a short flag glued to its value
 * (mysql -pSECRET), a flag's value that is a short ordinary-looking word
 * after a flag whose name does not say secret (-u alice:hunter2), a
 * random run under REDACT_RANDOM_MIN_RUN characters. That is why the log
 * also carries the argv's SHA-256 (identity without the text) and never
 * the argv itself: redaction makes the readable copy safer, not the only
 * defence. Redaction errs towards redacting (a UUID, a pod name with a
 * long random suffix, `--keyserver URL`).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crypto.h"
#include "redact.h"
#include "strv.h"

/* ---- a growing buffer; the first allocation failure is kept ---- */

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->n + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* What replaces a hidden value: its length and the start of its SHA-256,
 * so an approver sees that something is there and can tell two apart,
 * never the value. */
static void put_redacted(struct buf *b, const char *s, size_t len)
{
	char hex[SHA256_HEX], text[64];

	if (sha256_hex(s, len, hex) < 0) {
		b->oom = true;
		return;
	}
	snprintf(text, sizeof(text), REDACTED_FORMAT, len, hex);
	buf_adds(b, text);
}

/* The text, NUL-terminated ("" for nothing added), or -ENOMEM. */
static int buf_take(struct buf *b, char **ret)
{
	if (!b->oom && !b->p)
		buf_add(b, "", 0);
	if (b->oom) {
		free(b->p);
		*b = (struct buf){};
		return -ENOMEM;
	}
	*ret = b->p;
	*b = (struct buf){};
	return 0;
}

/* ---- names that say secret ---- */

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Does keyword occur in name (ASCII case-insensitive) at i? */
static bool at(const char *name, size_t len, size_t i, const char *keyword)
{
	size_t k = strlen(keyword);

	if (i + k > len)
		return false;
	for (size_t j = 0; j < k; j++)
		if (lower(name[i + j]) != keyword[j])
			return false;
	return true;
}

bool redact_secret_name(const char *name, size_t len)
{
	static const char *const keywords[] = {
		"token", "secret", "pass", "key", "credential", "cookie", "bearer", "signature",
	};

	for (size_t i = 0; i < len; i++) {
		for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			if (at(name, len, i, keywords[k]))
				return true;
		/* auth, oauth, authorization (which starts like author);
		 * but --author names a person */
		if (at(name, len, i, "auth") && (!at(name, len, i, "author") || at(name, len, i, "authoriz")))
			return true;
	}
	return false;
}

/* ---- rule 6: random-looking runs ---- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_digit(c) || is_alpha(c);
}

static bool is_hex(char c)
{
	return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f');
}

static bool in_run(char c)
{
	return is_alnum(c) || c == '+' || c == '/' || c == '_' || c == '=' || c == '-';
}

/* 0 not alphanumeric, 1 lower, 2 upper, 3 digit */
static int char_class(char c)
{
	if (is_digit(c))
		return 3;
	if (c >= 'A' && c <= 'Z')
		return 2;
	return c >= 'a' && c <= 'z' ? 1 : 0;
}

static bool looks_random(const char *s, size_t len)
{
	size_t digits = 0, letters = 0, pairs = 0, changes = 0;
	bool hex = true;

	if (len < REDACT_RANDOM_MIN_RUN)
		return false;
	for (size_t i = 0; i < len; i++) {
		digits += is_digit(s[i]);
		letters += is_alpha(s[i]);
		hex = hex && is_hex(s[i]);
		if (i + 1 < len && char_class(s[i]) && char_class(s[i + 1])) {
			pairs++;
			changes += char_class(s[i]) != char_class(s[i + 1]);
		}
	}
	if (!digits || !letters)
		return false;
	return hex || changes * 10 >= pairs * 3;
}

/* s with its random-looking runs redacted. */
static void put_runs(struct buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		if (!in_run(s[i])) {
			while (j < len && !in_run(s[j]))
				j++;
			buf_add(b, s + i, j - i);
		} else {
			while (j < len && in_run(s[j]))
				j++;
			if (looks_random(s + i, j - i))
				put_redacted(b, s + i, j - i);
			else
				buf_add(b, s + i, j - i);
		}
		i = j;
	}
}

/* ---- rule 5: URLs ---- */

/* The length of "scheme://" at the start of s, or 0. */
static size_t url_scheme(const char *s, size_t len)
{
	size_t i = 0;

	if (!len || !is_alpha(s[0]))
		return 0;
	while (i < len && (is_alnum(s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'))
		i++;
	return i + 3 <= len && memcmp(s + i, "://", 3) == 0 ? i + 3 : 0;
}

static size_t span_until(const char *s, size_t len, const char *stop)
{
	size_t i = 0;

	while (i < len && !strchr(stop, s[i]))
		i++;
	return i;
}

/* name=value&name=value: the values of names that say secret redacted. */
static void put_params(struct buf *b, const char *s, size_t len)
{
	while (len) {
		size_t param = span_until(s, len, "&;"), name = span_until(s, param, "=");

		if (name < param && redact_secret_name(s, name)) {
			buf_add(b, s, name + 1);
			put_redacted(b, s + name + 1, param - name - 1);
		} else {
			put_runs(b, s, param);
		}
		if (param < len)
			buf_add(b, s + param, 1);
		else
			break;
		s += param + 1;
		len -= param + 1;
	}
}

/* A URL's path, segment by segment: a random-looking segment goes, not the
 * path around it. */
static void put_segments(struct buf *b, const char *s, size_t len)
{
	for (;;) {
		size_t seg = span_until(s, len, "/");

		put_runs(b, s, seg);
		if (seg == len)
			break;
		buf_add(b, "/", 1);
		s += seg + 1;
		len -= seg + 1;
	}
}

static void put_url(struct buf *b, const char *s, size_t len, size_t scheme)
{
	size_t authority = span_until(s + scheme, len - scheme, "/?#"), userinfo = 0, path, query;

	buf_add(b, s, scheme);
	s += scheme;
	len -= scheme;
	for (size_t i = 0; i < authority; i++)
		if (s[i] == '@')
			userinfo = i + 1;
	if (userinfo) {
		put_redacted(b, s, userinfo - 1);
		buf_add(b, "@", 1);
		s += userinfo;
		len -= userinfo;
		authority -= userinfo;
	}
	path = span_until(s, len, "?#");
	put_segments(b, s, path);
	s += path;
	len -= path;
	while (len) {
		/* '?' or '#', then its parameters */
		buf_add(b, s, 1);
		s++;
		len--;
		query = span_until(s, len, "#");
		put_params(b, s, query);
		s += query;
		len -= query;
	}
}

/* A value: a URL (rule 5), else rule 6. */
static void put_value(struct buf *b, const char *s, size_t len)
{
	size_t scheme = url_scheme(s, len);

	if (scheme)
		put_url(b, s, len, scheme);
	else
		put_runs(b, s, len);
}

/* ---- one word ---- */

/* A flag: -x, --name, -name; not "-", "--", nor a negative number. */
static bool is_flag(const char *w)
{
	return w[0] == '-' && w[1] && !is_digit(w[1]) && w[1] != '.' && strcmp(w, "--") != 0;
}

/* Rule 3: "Name: value" where Name says secret: the length of "Name:" and
 * the spaces after it, else 0. */
static size_t secret_header(const char *w)
{
	size_t n = 0;

	while (is_alnum(w[n]) || w[n] == '-' || w[n] == '_')
		n++;
	if (!n || w[n] != ':' || !redact_secret_name(w, n))
		return 0;
	n++;
	while (w[n] == ' ' || w[n] == '\t')
		n++;
	return w[n] ? n : 0;
}

/* Rule 4: the length of "NAME=" when w is NAME=VALUE with a value, else 0. */
static size_t assignment(const char *w)
{
	size_t n = 0;

	if (!is_alpha(w[0]) && w[0] != '_')
		return 0;
	while (is_alnum(w[n]) || w[n] == '_' || w[n] == '.')
		n++;
	return w[n] == '=' && w[n + 1] ? n + 1 : 0;
}

/* Rule 4 for a secret: the length of "NAME=" when NAME says secret. */
static size_t secret_assignment(const char *w)
{
	size_t n = assignment(w);

	return n && redact_secret_name(w, n - 1) ? n : 0;
}

/* Is flag (without its dashes, len bytes) a declared secret flag: one of
 * REDACT_SECRET_FLAGS, or of the tool's own list (names without dashes)? */
static bool declared_secret_flag(const char *flag, size_t len, const char *const *declared)
{
	static const char *const builtin[] = { REDACT_SECRET_FLAGS, NULL };

	for (size_t i = 0; builtin[i]; i++)
		if (strlen(builtin[i]) == len && strncasecmp(builtin[i], flag, len) == 0)
			return true;
	for (size_t i = 0; declared && declared[i]; i++) {
		const char *d = declared[i] + strspn(declared[i], "-");

		if (strlen(d) == len && memcmp(d, flag, len) == 0)
			return true;
	}
	return false;
}

/* w redacted, not yet escaped; *ret_secret_flag: w is a declared secret
 * flag without its value, so the next word is its value. */
static void redact_raw(struct buf *b, const char *w, bool after_secret_flag, const char *const *declared,
		       bool *ret_secret_flag)
{
	size_t n;

	*ret_secret_flag = false;
	/* a flag after a secret flag is a flag, shown: nobody hides --force
	 * by putting --password before it */
	if (after_secret_flag && !is_flag(w)) {
		put_redacted(b, w, strlen(w));
		return;
	}
	if (is_flag(w)) {
		const char *name = w + strspn(w, "-"), *eq = strchr(name, '=');

		if (!eq) {
			*ret_secret_flag = declared_secret_flag(name, strlen(name), declared);
			put_runs(b, w, strlen(w));
			return;
		}
		buf_add(b, w, (size_t)(eq - w) + 1);
		if (declared_secret_flag(name, (size_t)(eq - name), declared) ||
		    redact_secret_name(name, (size_t)(eq - name)))
			put_redacted(b, eq + 1, strlen(eq + 1));
		else
			put_value(b, eq + 1, strlen(eq + 1));
		return;
	}
	if ((n = secret_header(w)) || (n = secret_assignment(w))) {
		buf_add(b, w, n);
		put_redacted(b, w + n, strlen(w + n));
		return;
	}
	if ((n = assignment(w))) {
		buf_add(b, w, n);
		put_value(b, w + n, strlen(w + n));
		return;
	}
	put_value(b, w, strlen(w));
}

/* ---- escaping ---- */

/* The length of the valid UTF-8 sequence at s (its code point in *cp), or
 * 0 when the bytes there are not one (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
static size_t utf8_sequence(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	*cp = c & (0xff >> (n + 1));
	*cp = (*cp << 6) | (s[1] & 0x3f);
	for (size_t i = 2; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return n;
}

/* Code points a terminal acts on: C1 controls, and the marks and
 * overrides that reorder text on screen (so a word cannot show as
 * another). */
static bool hidden_control(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static int escape(const char *s, size_t len, size_t max, bool backslash, char **ret)
{
	const unsigned char *u = (const unsigned char *)s;
	struct buf b = {};
	size_t cut = 0, i = 0;

	if (max < 4)
		return -EINVAL;
	while (i < len) {
		char unit[16];
		size_t ulen, consumed;
		uint32_t cp = 0;

		consumed = utf8_sequence(u + i, len - i, &cp);
		if (consumed == 0) {
			ulen = (size_t)snprintf(unit, sizeof(unit), "\\x%02x", u[i]);
			consumed = 1;
		} else if (cp == '\\' && backslash) {
			ulen = (size_t)snprintf(unit, sizeof(unit), "\\\\");
		} else if (cp < 0x20 || cp == 0x7f) {
			ulen = (size_t)snprintf(unit, sizeof(unit), "\\x%02x", cp);
		} else if (hidden_control(cp)) {
			ulen = (size_t)snprintf(unit, sizeof(unit), "\\u%04x", cp);
		} else {
			memcpy(unit, s + i, consumed);
			ulen = consumed;
		}
		if (b.n + ulen > max) {
			/* too long: back to the last whole unit that leaves room for "..." */
			b.n = cut;
			buf_adds(&b, "...");
			break;
		}
		buf_add(&b, unit, ulen);
		if (b.n + 3 <= max)
			cut = b.n;
		i += consumed;
	}
	return buf_take(&b, ret);
}

int redact_escape(const char *s, size_t len, size_t max, char **ret)
{
	return escape(s, len, max, true, ret);
}

int redact_terminal_safe(const char *s, size_t len, size_t max, char **ret)
{
	return escape(s, len, max, false, ret);
}

/* ---- the front ---- */

static int redact_one(const char *word, bool after_secret_flag, const char *const *declared, size_t max,
		      bool *ret_secret_flag, char **ret)
{
	struct buf b = {};
	char *raw;
	int r;

	redact_raw(&b, word, after_secret_flag, declared, ret_secret_flag);
	r = buf_take(&b, &raw);
	if (r < 0)
		return r;
	r = redact_escape(raw, strlen(raw), max, ret);
	free(raw);
	return r;
}

int redact_word(const char *word, bool after_secret_flag, size_t max, char **ret)
{
	bool secret_flag;

	return redact_one(word, after_secret_flag, NULL, max, &secret_flag, ret);
}

int redact_argv(const char *const *argv, char ***ret)
{
	return redact_argv_full(argv, NULL, REDACT_MAX_WORDS, ret);
}

int redact_argv_full(const char *const *argv, const char *const *secret_flags, size_t max_words, char ***ret)
{
	_cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
	bool pending = false;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; argv && argv[i] && (max_words == 0 || i < max_words); i++) {
		char *w;
		int r = redact_one(argv[i], pending, secret_flags, REDACT_MAX_WORD_BYTES, &pending, &w);

		if (r < 0)
			return r;
		r = strv_consume(&out, w);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(out);
	return 0;
}
