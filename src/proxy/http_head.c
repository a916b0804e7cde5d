/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The request-head parser (http_head.h): pure, bounded, no allocation. */
#include <string.h>
#include <strings.h>

#include "http_head.h"

static int refuse(int status, const char *reason, int *ret_status, const char **ret_reason)
{
	*ret_status = status;
	*ret_reason = reason;
	return -1;
}

/* RFC 9110 tchar */
static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static const char *find_crlf(const char *p, size_t n)
{
	const char *lf = memchr(p, '\n', n);

	return lf;
}

static int parse_port(const char *p, size_t n, uint16_t *ret)
{
	unsigned v = 0;

	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*ret = (uint16_t)v;
	return 0;
}

/* "host:port", "[v6]:port", or with default_port, "host". */
static int split_authority(const char *p, size_t n, int default_port, struct http_head *h)
{
	const char *colon = NULL;

	if (n == 0)
		return -1;
	if (p[0] == '[') {
		const char *close = memchr(p, ']', n);

		if (!close)
			return -1;
		if ((size_t)(close + 1 - p) < n) {
			if (close[1] != ':')
				return -1;
			colon = close + 1;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			if (p[i] == ':')
				colon = p + i;
	}
	if (colon) {
		if (parse_port(colon + 1, (size_t)(p + n - colon - 1), &h->port) < 0)
			return -1;
		n = (size_t)(colon - p);
	} else if (default_port > 0)
		h->port = (uint16_t)default_port;
	else
		return -1;
	if (n == 0)
		return -1;
	h->host = (struct http_span){ p, n };
	return 0;
}

enum head_mode {
	HEAD_PROXY,     /* what a client sends a forward proxy */
	HEAD_ORIGIN,    /* what a client sends inside an intercepted tunnel */
	HEAD_RESPONSE,  /* what an upstream answers */
};

static int parse_target(const char *t, size_t n, struct http_head *h, enum head_mode mode, int *st, const char **why)
{
	const char *auth, *end;

	if (mode == HEAD_ORIGIN) {
		/* origin-form only: the tunnel's host is the one decided */
		if (h->connect)
			return refuse(400, "connect-in-tunnel", st, why);
		if (n == 0 || t[0] != '/')
			return refuse(400, "absolute-form-in-tunnel", st, why);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] == 0x7f || t[i] == '#')
				return refuse(400, "malformed-target", st, why);
		h->path = (struct http_span){ t, n };
		return 0;
	}
	if (h->connect) {
		if (split_authority(t, n, 0, h) < 0)
			return refuse(400, "malformed-target", st, why);
		return 0;
	}
	if (n >= 8 && strncasecmp(t, "https://", 8) == 0)
		return refuse(501, "https-absolute-form", st, why);
	if (n < 7 || strncasecmp(t, "http://", 7) != 0)
		return refuse(400, "not-a-proxy-request", st, why);
	auth = t + 7;
	end = auth;
	while (end < t + n && *end != '/' && *end != '?' && *end != '#')
		end++;
	if (memchr(auth, '@', (size_t)(end - auth)))
		return refuse(400, "userinfo-in-target", st, why);
	if (split_authority(auth, (size_t)(end - auth), 80, h) < 0)
		return refuse(400, "malformed-target", st, why);
	/* no control bytes; no fragment (a client never sends one) */
	for (const char *c = end; c < t + n; c++)
		if ((unsigned char)*c < 0x21 || (unsigned char)*c == 0x7f || *c == '#')
			return refuse(400, "malformed-target", st, why);
	h->path = end < t + n ? (struct http_span){ end, (size_t)(t + n - end) } : (struct http_span){ "/", 1 };
	h->path_needs_slash = end < t + n && *end == '?';
	return 0;
}

/* "HTTP/1.x NNN reason": the status in h->status. */
static int parse_status_line(const char *p, size_t n, struct http_head *h, int *st, const char **why)
{
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
	    p[9] < '1' || p[9] > '5' || p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (n > 12 && p[12] != ' '))
		return refuse(502, "upstream-malformed", st, why);
	for (size_t i = 12; i < n; i++)
		if (((unsigned char)p[i] < 0x20 && p[i] != '\t') || (unsigned char)p[i] == 0x7f)
			return refuse(502, "upstream-malformed", st, why);
	h->minor = p[7] - '0';
	h->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	return 0;
}

static int parse_request_line(const char *p, size_t n, struct http_head *h, enum head_mode mode, int *st,
			      const char **why)
{
	const char *sp1, *sp2;
	size_t i = 0;

	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i == n || p[i] != ' ')
		return refuse(400, "malformed-request-line", st, why);
	sp1 = p + i;
	h->method = (struct http_span){ p, i };
	h->connect = i == 7 && memcmp(p, "CONNECT", 7) == 0;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(p + n - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1)
		return refuse(400, "malformed-request-line", st, why);
	if ((size_t)(p + n - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return refuse(505, "http-version", st, why);
	if (sp2[8] != '0' && sp2[8] != '1')
		return refuse(505, "http-version", st, why);
	h->minor = sp2[8] - '0';
	return parse_target(sp1 + 1, (size_t)(sp2 - sp1 - 1), h, mode, st, why);
}

static int parse_header(const char *p, size_t n, struct http_head *h, int *st, const char **why)
{
	size_t i = 0, vs, ve;

	if (p[0] == ' ' || p[0] == '\t')
		return refuse(400, "folded-header", st, why);
	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i == n || p[i] != ':')
		return refuse(400, "malformed-header", st, why);
	if (h->n_headers >= HTTP_HEADERS_MAX)
		return refuse(431, "too-many-headers", st, why);
	vs = i + 1;
	while (vs < n && (p[vs] == ' ' || p[vs] == '\t'))
		vs++;
	ve = n;
	while (ve > vs && (p[ve - 1] == ' ' || p[ve - 1] == '\t'))
		ve--;
	for (size_t k = vs; k < ve; k++)
		if (((unsigned char)p[k] < 0x20 && p[k] != '\t') || (unsigned char)p[k] == 0x7f)
			return refuse(400, "malformed-header", st, why);
	h->name[h->n_headers] = (struct http_span){ p, i };
	h->value[h->n_headers] = (struct http_span){ p + vs, ve - vs };
	h->n_headers++;
	return 0;
}

static int parse_head(const char *buf, size_t len, struct http_head *ret, enum head_mode mode, int *ret_status,
		      const char **ret_reason)
{
	struct http_head h = {};
	const char *p = buf, *end = buf + len, *lf;
	bool first = true;

	for (;;) {
		size_t avail = (size_t)(end - p), line;

		lf = find_crlf(p, avail);
		if (!lf) {
			if (first && len > HTTP_LINE_MAX)
				return refuse(414, "request-line-too-long", ret_status, ret_reason);
			if (len > HTTP_HEAD_MAX)
				return refuse(431, "header-too-large", ret_status, ret_reason);
			return HTTP_HEAD_MORE;
		}
		if ((size_t)(lf + 1 - buf) > HTTP_HEAD_MAX)
			return refuse(431, "header-too-large", ret_status, ret_reason);
		if (lf == p || lf[-1] != '\r')
			return refuse(400, "bare-lf", ret_status, ret_reason);
		line = (size_t)(lf - 1 - p);
		if (first) {
			if (line > HTTP_LINE_MAX)
				return refuse(414, "request-line-too-long", ret_status, ret_reason);
			if (mode == HEAD_RESPONSE ? parse_status_line(p, line, &h, ret_status, ret_reason) < 0
						  : parse_request_line(p, line, &h, mode, ret_status, ret_reason) < 0)
				return -1;
			first = false;
		} else if (line == 0) {
			h.length = (size_t)(lf + 1 - buf);
			*ret = h;
			return HTTP_HEAD_DONE;
		} else if (parse_header(p, line, &h, ret_status, ret_reason) < 0)
			return -1;
		p = lf + 1;
	}
}

int http_head_parse(const char *buf, size_t len, struct http_head *ret, int *ret_status, const char **ret_reason)
{
	return parse_head(buf, len, ret, HEAD_PROXY, ret_status, ret_reason);
}

int http_head_parse_origin(const char *buf, size_t len, struct http_head *ret, int *ret_status, const char **ret_reason)
{
	return parse_head(buf, len, ret, HEAD_ORIGIN, ret_status, ret_reason);
}

int http_head_parse_response(const char *buf, size_t len, struct http_head *ret, int *ret_status,
			     const char **ret_reason)
{
	return parse_head(buf, len, ret, HEAD_RESPONSE, ret_status, ret_reason);
}

bool http_header_is_hop(const struct http_span *name)
{
	static const char *const hop[] = {
		"connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate",
		"te", "trailer", "upgrade", "host",
	};

	for (size_t i = 0; i < sizeof(hop) / sizeof(hop[0]); i++)
		if (strlen(hop[i]) == name->n && strncasecmp(hop[i], name->p, name->n) == 0)
			return true;
	return false;
}
