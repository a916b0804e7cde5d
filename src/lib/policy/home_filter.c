/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credential-bearing lines removed from a configuration file, for the
 * HOME allowlist's filtered copies (home_filter.h). Pure.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "home_filter.h"

static const char *const secret_words[] = {
	"token", "auth", "password", "passwd", "secret", "credential", "extraheader", "cookie", "sslkey", "sslcert",
	NULL,
};

/* haystack[0..n) holds word, case-insensitively. */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++)
		if (strncasecmp(s + i, word, w) == 0)
			return true;
	return false;
}

static bool secret_key(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '/' && s[1] == '/')
		return true;
	for (size_t i = 0; secret_words[i]; i++)
		if (has_word(s, n, secret_words[i]))
			return true;
	return false;
}

/* s[0..n) holds "://" followed by userinfo ('@' before the next '/'). */
static bool url_userinfo(const char *s, size_t n)
{
	for (size_t i = 0; i + 3 <= n; i++) {
		if (memcmp(s + i, "://", 3) != 0)
			continue;
		/* to the next '/' or line end: wider than a URL's authority
		 * (a space, a quote), so more is dropped, never less */
		for (size_t j = i + 3; j < n && s[j] != '/' && s[j] != '\n'; j++)
			if (s[j] == '@')
				return true;
	}
	return false;
}

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
}

/* A git section header "[name]", "[name \"sub\"]" or "[name.sub]": does
 * it drop every key until the next one? */
static bool git_section_dropped(const char *s, size_t n)
{
	const char *end = s + n, *name = s + 1, *e = name;
	size_t len;

	while (e < end && (isalnum((unsigned char)*e) || *e == '-'))
		e++;
	len = (size_t)(e - name);
	if ((len == 10 && strncasecmp(name, "credential", len) == 0) ||
	    (len == 7 && strncasecmp(name, "include", len) == 0) ||
	    (len == 9 && strncasecmp(name, "includeif", len) == 0))
		return true;
	/* url."https://TOKEN@host/".insteadOf, http."https://u:p@h/".* */
	return url_userinfo(s, n);
}

/* One logical line s[0..n) (continuations included): kept? *section is
 * the git section state. */
static bool keep_line(const char *s, size_t n, bool git, bool *dropped_section)
{
	const char *end = s + n, *p = skip_space(s, end), *key;

	if (p == end)
		return true;
	/* a comment is no configuration, and a commented-out token is one */
	if (*p == '#' || *p == ';')
		return false;
	if (url_userinfo(p, (size_t)(end - p)))
		return false;
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		/* a header with anything but a comment after it: fail closed */
		if (!close || (skip_space(close + 1, end) != end && *skip_space(close + 1, end) != '#' &&
			       *skip_space(close + 1, end) != ';')) {
			*dropped_section = true;
			return false;
		}
		if (git)
			*dropped_section = git_section_dropped(p, (size_t)(close + 1 - p));
		else
			*dropped_section = false;
		/* a TOML table named after a credential ([registry.token]...) */
		return !*dropped_section && !(!git && secret_key(p, (size_t)(close + 1 - p)));
	}
	if (*dropped_section)
		return false;
	key = p;
	while (p < end && *p != '=' && *p != ':' && !isspace((unsigned char)*p))
		p++;
	/* npm's "//registry/:_authToken=": the key runs to the '=' */
	if (p < end && *p == ':' && key[0] == '/')
		while (p < end && *p != '=')
			p++;
	if (p == key || secret_key(key, (size_t)(p - key)))
		return false;
	p = skip_space(p, end);
	return p == end || *p == '=' || *p == ':' || *p == '#' || *p == ';';
}

bool home_filter_is_git(const char *path)
{
	static const char *const git[] = { "/.gitconfig", "/git/config", NULL };
	size_t n = strlen(path);

	for (size_t i = 0; git[i]; i++)
		if (n >= strlen(git[i]) && strcmp(path + n - strlen(git[i]), git[i]) == 0)
			return true;
	return false;
}

int home_filter(const char *in, size_t len, bool git, char **ret, size_t *ret_len)
{
	bool dropped = false;
	size_t o = 0;
	char *out;

	if (len > HOME_FILTER_MAX)
		return -EFBIG;
	out = malloc(len + 2); /* a last line without its newline gains one */
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		size_t j = i;

		/* a logical line: to a newline not escaped by a backslash */
		while (j < len && !(in[j] == '\n' && (j == i || in[j - 1] != '\\')))
			j++;
		/* a NUL byte is no configuration: the line goes */
		if (!memchr(in + i, '\0', j - i) && keep_line(in + i, j - i, git, &dropped)) {
			memcpy(out + o, in + i, j - i);
			o += j - i;
			out[o++] = '\n';
		}
		i = j + 1;
	}
	out[o] = '\0';
	*ret = out;
	*ret_len = o;
	return 0;
}
