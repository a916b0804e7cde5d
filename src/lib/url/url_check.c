/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The strict URL parser for open_urls (url_check.h says what it refuses
 * and why nothing is rewritten). One pass over at most URL_MAX_BYTES.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "error.h"
#include "url_check.h"

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The host: lower-case labels of a-z 0-9 '-', or exactly 127.0.0.1. */
static int check_host(const char *h, size_t n, struct url_parsed *u, struct cordon_error *reterr)
{
	size_t label = 0, last = 0;
	bool last_numeric;

	if (n == 0)
		return error_set(reterr, -EINVAL, "no host");
	if (n > URL_HOST_MAX)
		return error_set(reterr, -EINVAL, "the host is longer than %d bytes", URL_HOST_MAX);
	if (h[0] == '[')
		return error_set(reterr, -EINVAL, "a numeric host (an IPv6 literal): name the host");
	for (size_t i = 0; i < n; i++) {
		char c = h[i];

		if (c == '.') {
			if (label == 0)
				return error_set(reterr, -EINVAL,
						 "an empty label in the host (a leading, doubled or trailing dot)");
			label = 0;
			last = i + 1;
			continue;
		}
		if (c == '%')
			return error_set(reterr, -EINVAL, "a percent-encoded host");
		if (c >= 'A' && c <= 'Z')
			return error_set(reterr, -EINVAL, "the host is not in lower case (not canonical)");
		if (!is_lower(c) && !is_digit(c) && c != '-')
			return error_set(reterr, -EINVAL, "the character '%c' in the host", c);
		if (++label > 63)
			return error_set(reterr, -EINVAL, "a label of the host is longer than 63 bytes");
	}
	if (label == 0)
		return error_set(reterr, -EINVAL, "a trailing dot in the host (not canonical)");
	/* WHATWG reads a host whose last label is a number (decimal, 0x hex,
	 * octal) as an IPv4 address, whatever the labels before it are */
	last_numeric = true;
	for (size_t i = last; i < n; i++)
		if (!is_digit(h[i]))
			last_numeric = false;
	if (n - last >= 2 && h[last] == '0' && h[last + 1] == 'x')
		last_numeric = true;
	memcpy(u->host, h, n);
	u->host[n] = '\0';
	if (last_numeric) {
		if (strcmp(u->host, "127.0.0.1") != 0)
			return error_set(reterr, -EINVAL,
					 "a numeric host (an IPv4 address in any of its forms): name the host");
		u->numeric_host = true;
	}
	return 0;
}

static int check_port(const char *p, size_t n, struct url_parsed *u, struct cordon_error *reterr)
{
	unsigned v = 0;

	if (n == 0)
		return error_set(reterr, -EINVAL, "an empty port (not canonical)");
	if (p[0] == '0')
		return error_set(reterr, -EINVAL, "a port with a leading zero (not canonical)");
	if (n > 5)
		return error_set(reterr, -EINVAL, "a port over 65535");
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(p[i]))
			return error_set(reterr, -EINVAL, "a port that is not a number");
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v > 65535)
		return error_set(reterr, -EINVAL, "a port over 65535");
	if ((u->https && v == 443) || (!u->https && v == 80))
		return error_set(reterr, -EINVAL, "the scheme's default port written out (not canonical)");
	u->port = (uint16_t)v;
	return 0;
}

/* The path: "/" then segments, none "." or ".."; no encoded '.', '/', '\'. */
static int check_path(const char *p, size_t n, struct cordon_error *reterr)
{
	size_t seg = 1;

	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? p[i] : '/';

		if (c == '/') {
			size_t len = i - seg;

			if (i > 0 && ((len == 1 && p[seg] == '.') || (len == 2 && p[seg] == '.' && p[seg + 1] == '.')))
				return error_set(reterr, -EINVAL, "a \".\" or \"..\" path segment (not canonical)");
			seg = i + 1;
			continue;
		}
		if (strchr("\"<>`{}", c))
			return error_set(reterr, -EINVAL, "the character '%c' in the path (not canonical)", c);
		if (c == '%') {
			if (i + 2 >= n || !is_hex(p[i + 1]) || !is_hex(p[i + 2]))
				return error_set(reterr, -EINVAL, "a '%%' not followed by two hex digits");
			if (strncasecmp(p + i, "%2e", 3) == 0 || strncasecmp(p + i, "%2f", 3) == 0 ||
			    strncasecmp(p + i, "%5c", 3) == 0)
				return error_set(reterr, -EINVAL,
						 "an encoded '.', '/' or '\\' in the path (%%2e, %%2f, %%5c)");
		}
	}
	return 0;
}

/* The query or the fragment (s[0] is its '?' or '#'). */
static int check_rest(const char *s, size_t n, const char *refused, const char *what, struct cordon_error *reterr)
{
	for (size_t i = 1; i < n; i++) {
		if (strchr(refused, s[i]))
			return error_set(reterr, -EINVAL, "the character '%c' in the %s (not canonical)", s[i], what);
		if (s[i] == '%' && (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2])))
			return error_set(reterr, -EINVAL, "a '%%' not followed by two hex digits");
	}
	return 0;
}

int url_parse(const char *s, size_t len, struct url_parsed *ret, struct cordon_error *reterr)
{
	struct url_parsed *u = ret;
	size_t i, at, host_end, path_end, query_end;
	const char *colon;
	int r;

	if (!s || !ret)
		return error_set(reterr, -EINVAL, "no URL");
	if (len > URL_MAX_BYTES)
		return error_set(reterr, -E2BIG, "longer than %d bytes", URL_MAX_BYTES);
	memset(u, 0, sizeof(*u));
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f)
			return error_set(reterr, -EINVAL,
					 c == 0	     ? "a NUL byte"
					 : c == ' '  ? "a space (not canonical)"
					 : c >= 0x80 ? "a byte outside ASCII (not canonical: percent-encode it)"
						     : "a control character (a tab, a newline, ...)");
		if (c == '\\')
			return error_set(reterr, -EINVAL, "a backslash (a browser reads it as '/')");
	}
	/* the scheme */
	colon = memchr(s, ':', len);
	if (!colon || colon == s)
		return error_set(reterr, -EINVAL, "no scheme");
	for (const char *p = s; p < colon; p++)
		if (*p >= 'A' && *p <= 'Z')
			return error_set(reterr, -EINVAL, "the scheme is not in lower case (not canonical)");
	if ((size_t)(colon - s) == 5 && memcmp(s, "https", 5) == 0)
		u->https = true;
	else if (!((size_t)(colon - s) == 4 && memcmp(s, "http", 4) == 0))
		return error_set(reterr, -EINVAL,
				 "the scheme \"%.*s\": only https (and http to an allowed "
				 "localhost port)",
				 (int)(colon - s < 16 ? colon - s : 16), s);
	i = (size_t)(colon - s) + 1;
	if (len - i < 2 || s[i] != '/' || s[i + 1] != '/')
		return error_set(reterr, -EINVAL, "no \"//\" after the scheme (not canonical)");
	i += 2;
	/* the authority: host [":" port], no userinfo */
	at = i;
	while (at < len && s[at] != '/' && s[at] != '?' && s[at] != '#')
		at++;
	if (memchr(s + i, '@', at - i))
		return error_set(reterr, -EINVAL, "userinfo (a name or password before '@')");
	host_end = i;
	while (host_end < at && s[host_end] != ':')
		host_end++;
	if ((r = check_host(s + i, host_end - i, u, reterr)) < 0)
		return r;
	if (host_end < at && (r = check_port(s + host_end + 1, at - host_end - 1, u, reterr)) < 0)
		return r;
	/* path, query, fragment */
	path_end = at;
	while (path_end < len && s[path_end] != '?' && s[path_end] != '#')
		path_end++;
	query_end = path_end;
	if (query_end < len && s[query_end] == '?')
		while (query_end < len && s[query_end] != '#')
			query_end++;
	if (path_end > at && (r = check_path(s + at, path_end - at, reterr)) < 0)
		return r;
	if (query_end > path_end && (r = check_rest(s + path_end, query_end - path_end, "\"<>'", "query", reterr)) < 0)
		return r;
	if (len > query_end && (r = check_rest(s + query_end, len - query_end, "\"<>`", "fragment", reterr)) < 0)
		return r;
	/* the serialisation: the input, with "/" for an empty path */
	u->path_written = path_end > at;
	memcpy(u->url, s, at);
	u->len = at;
	u->path_off = at;
	if (!u->path_written)
		u->url[u->len++] = '/';
	memcpy(u->url + u->len, s + at, len - at);
	u->len += len - at;
	u->url[u->len] = '\0';
	u->path_len = u->path_written ? path_end - at : 1;
	u->query_len = query_end - path_end;
	u->fragment_len = len - query_end;
	snprintf(u->origin, sizeof(u->origin), "%s://%s", u->https ? "https" : "http", u->host);
	if (u->port)
		snprintf(u->origin + strlen(u->origin), sizeof(u->origin) - strlen(u->origin), ":%u",
			 (unsigned)u->port);
	return 0;
}

int url_origin_check(const char *s, char *ret, struct cordon_error *reterr)
{
	/* 8 KiB: on the heap, never on a small stack */
	_cleanup_free_ struct url_parsed *p = malloc(sizeof(*p));
	int r;

	if (!s)
		return error_set(reterr, -EINVAL, "no origin");
	if (!p)
		return -ENOMEM;
	r = url_parse(s, strlen(s), p, reterr);
	if (r < 0)
		return error_prefix(reterr, -EINVAL, "not a canonical origin");
	if (!p->https)
		return error_set(reterr, -EINVAL,
				 "an http origin: https only (http only to localhost, with allow_localhost_ports)");
	if (p->numeric_host)
		return error_set(reterr, -EINVAL, "a numeric host (use allow_localhost_ports for 127.0.0.1)");
	if (p->path_written || p->query_len || p->fragment_len)
		return error_set(reterr, -EINVAL,
				 "an origin is scheme://host[:port], without a path (path_prefixes narrows the path)");
	memcpy(ret, p->origin, strlen(p->origin) + 1);
	return 0;
}

int url_path_prefix_check(const char *s, struct cordon_error *reterr)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || s[0] != '/')
		return error_set(reterr, -EINVAL, "a path prefix starts with '/'");
	if (n > 1024)
		return error_set(reterr, -EINVAL, "a path prefix longer than 1024 bytes");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '\\' || s[i] == '?' ||
		    s[i] == '#')
			return error_set(reterr, -EINVAL,
					 "a path prefix is a canonical path: no space, control, non-ASCII, '\\', "
					 "'?' or '#'");
	return check_path(s, n, reterr);
}

bool url_path_under(const struct url_parsed *u, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *path = u->url + u->path_off;

	if (n > u->path_len || memcmp(path, prefix, n) != 0)
		return false;
	return n == u->path_len || prefix[n - 1] == '/' || path[n] == '/';
}
