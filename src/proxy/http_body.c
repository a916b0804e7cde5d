/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Request body framing (http_body.h): pure, bounded, no allocation. */
#include <string.h>
#include <strings.h>

#include "hex.h"
#include "http_body.h"

enum {
	CH_SIZE,        /* hex digits of the chunk size */
	CH_EXT,         /* ";ext..." up to CR */
	CH_SIZE_LF,     /* CR seen after the size line: LF */
	CH_DATA,
	CH_DATA_CR,     /* after the data: CR */
	CH_DATA_LF,     /* then LF */
	CH_TRAILER,     /* at the start of a trailer line (or of the empty line) */
	CH_TRAILER_LINE,
	CH_TRAILER_LF,  /* CR seen after a trailer line: LF */
	CH_END_LF,      /* CR seen after the last, empty line: LF */
};

static int refuse(int status, const char *reason, int *ret_status, const char **ret_reason)
{
	*ret_status = status;
	*ret_reason = reason;
	return -1;
}

static bool name_is(const struct http_span *s, const char *name)
{
	return strlen(name) == s->n && strncasecmp(name, s->p, s->n) == 0;
}

int http_body_from_head(const struct http_head *h, struct http_body *ret, int *ret_status, const char **ret_reason)
{
	const struct http_span *cl = NULL, *te = NULL;
	struct http_body b = { .kind = HTTP_BODY_NONE };

	for (size_t i = 0; i < h->n_headers; i++) {
		if (name_is(&h->name[i], "content-length")) {
			if (cl)
				return refuse(400, "content-length-twice", ret_status, ret_reason);
			cl = &h->value[i];
		} else if (name_is(&h->name[i], "transfer-encoding")) {
			if (te)
				return refuse(400, "transfer-encoding-twice", ret_status, ret_reason);
			te = &h->value[i];
		}
	}
	if (cl && te)
		return refuse(400, "length-ambiguous", ret_status, ret_reason);
	if (te) {
		if (!(te->n == 7 && strncasecmp(te->p, "chunked", 7) == 0))
			return refuse(501, "transfer-encoding-unsupported", ret_status, ret_reason);
		if (h->minor == 0)
			return refuse(400, "length-ambiguous", ret_status, ret_reason);
		b.kind = HTTP_BODY_CHUNKED;
		b.state = CH_SIZE;
	} else if (cl) {
		uint64_t v = 0;

		if (cl->n == 0 || cl->n > 16)
			return refuse(400, "content-length-malformed", ret_status, ret_reason);
		for (size_t i = 0; i < cl->n; i++) {
			if (cl->p[i] < '0' || cl->p[i] > '9')
				return refuse(400, "content-length-malformed", ret_status, ret_reason);
			v = v * 10 + (uint64_t)(cl->p[i] - '0');
		}
		if (v > HTTP_BODY_LENGTH_MAX)
			return refuse(400, "content-length-malformed", ret_status, ret_reason);
		b.kind = v ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		b.left = v;
	}
	b.done = b.kind == HTTP_BODY_NONE;
	*ret = b;
	return 0;
}

/* A byte of a chunk extension or a trailer line: visible, space, tab, or
 * obs-text; never CR, LF or another control byte. */
static bool line_byte(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static int chunked(struct http_body *b, const char *p, size_t n, size_t *ret_used)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)p[i];

		switch (b->state) {
		case CH_SIZE: {
			int d = hex_digit_value((char)c);

			if (d >= 0) {
				/* 13 hex digits: under 2^52, and the sum stays under the cap */
				if (++b->digits > 13)
					return -1;
				b->left = b->left * 16 + (uint64_t)d;
				i++;
				break;
			}
			if (b->digits == 0)
				return -1;
			if (c == ';') {
				b->state = CH_EXT;
				b->line = b->digits + 1;
				i++;
				break;
			}
			if (c != '\r')
				return -1;
			b->state = CH_SIZE_LF;
			i++;
			break;
		}
		case CH_EXT:
			if (c == '\r') {
				b->state = CH_SIZE_LF;
				i++;
				break;
			}
			if (!line_byte(c) || ++b->line > HTTP_BODY_LINE_MAX)
				return -1;
			i++;
			break;
		case CH_SIZE_LF:
			if (c != '\n')
				return -1;
			i++;
			b->total += b->left;
			if (b->total > HTTP_BODY_LENGTH_MAX)
				return -1;
			b->digits = 0;
			b->line = 0;
			b->state = b->left ? CH_DATA : CH_TRAILER;
			break;
		case CH_DATA: {
			size_t take = n - i < b->left ? n - i : (size_t)b->left;

			i += take;
			b->left -= take;
			if (b->left == 0)
				b->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (c != '\r')
				return -1;
			b->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (c != '\n')
				return -1;
			b->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:
			if (c == '\r') {
				b->state = CH_END_LF;
				i++;
				break;
			}
			if (++b->trailers > HTTP_BODY_TRAILERS_MAX || c == ' ' || c == '\t')
				return -1; /* too many, or a folded line */
			b->state = CH_TRAILER_LINE;
			b->line = 0;
			break;
		case CH_TRAILER_LINE:
			if (c == '\r') {
				b->state = CH_TRAILER_LF;
				i++;
				break;
			}
			if (!line_byte(c) || ++b->line > HTTP_BODY_LINE_MAX)
				return -1;
			i++;
			break;
		case CH_TRAILER_LF:
			if (c != '\n')
				return -1;
			b->state = CH_TRAILER;
			i++;
			break;
		case CH_END_LF:
			if (c != '\n')
				return -1;
			i++;
			b->done = true;
			*ret_used = i;
			return 1;
		default:
			return -1;
		}
	}
	*ret_used = n;
	return 0;
}

int http_body_feed(struct http_body *b, const char *p, size_t n, size_t *ret_used)
{
	if (b->done) {
		*ret_used = 0;
		return 1;
	}
	switch (b->kind) {
	case HTTP_BODY_NONE:
		b->done = true;
		*ret_used = 0;
		return 1;
	case HTTP_BODY_LENGTH: {
		size_t take = n < b->left ? n : (size_t)b->left;

		b->left -= take;
		*ret_used = take;
		b->done = b->left == 0;
		return b->done ? 1 : 0;
	}
	case HTTP_BODY_CHUNKED:
		return chunked(b, p, n, ret_used);
	}
	return -1;
}

/* A comma-separated list value holds token (case-insensitive, OWS around). */
static bool has_token(const char *p, size_t n, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i < n;) {
		size_t s = i, e;

		while (i < n && p[i] != ',')
			i++;
		e = i;
		while (s < e && (p[s] == ' ' || p[s] == '\t'))
			s++;
		while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (e - s == tl && strncasecmp(p + s, token, tl) == 0)
			return true;
		i++;
	}
	return false;
}

bool http_request_closes(const struct http_head *h)
{
	bool close = false, keep = false;

	for (size_t i = 0; i < h->n_headers; i++)
		if (name_is(&h->name[i], "connection") || name_is(&h->name[i], "proxy-connection")) {
			close |= has_token(h->value[i].p, h->value[i].n, "close");
			keep |= has_token(h->value[i].p, h->value[i].n, "keep-alive");
		}
	return close || (h->minor == 0 && !keep);
}

int http_response_keeps(const char *buf, size_t len, bool head_request, bool *ret_keep)
{
	const char *p = buf, *end = buf + (len < HTTP_RESPONSE_HEAD_MAX ? len : HTTP_RESPONSE_HEAD_MAX);
	bool first = true, delimited = false, close = false;
	unsigned status = 0;

	*ret_keep = false;
	for (;;) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t n;

		if (!lf)
			return len >= HTTP_RESPONSE_HEAD_MAX ? HTTP_RESPONSE_DONE : HTTP_RESPONSE_MORE;
		if (lf == p || lf[-1] != '\r')
			return HTTP_RESPONSE_DONE; /* a bare LF: no */
		n = (size_t)(lf - 1 - p);
		if (first) {
			/* "HTTP/1.1 SSS" then a reason or nothing */
			if (n < 12 || memcmp(p, "HTTP/1.1 ", 9) != 0 || (n > 12 && p[12] != ' '))
				return HTTP_RESPONSE_DONE;
			for (int i = 9; i < 12; i++) {
				if (p[i] < '0' || p[i] > '9')
					return HTTP_RESPONSE_DONE;
				status = status * 10 + (unsigned)(p[i] - '0');
			}
			if (status < 200)
				return HTTP_RESPONSE_DONE; /* 1xx first: the final one is not looked at */
			delimited = head_request || status == 204 || status == 304;
			first = false;
		} else if (n == 0) {
			*ret_keep = delimited && !close;
			return HTTP_RESPONSE_DONE;
		} else {
			const char *colon = memchr(p, ':', n);
			struct http_span name, value;

			if (!colon || p[0] == ' ' || p[0] == '\t')
				return HTTP_RESPONSE_DONE; /* malformed or folded: no */
			name = (struct http_span){ p, (size_t)(colon - p) };
			value = (struct http_span){ colon + 1, (size_t)(p + n - colon - 1) };
			if (name_is(&name, "content-length") ||
			    (name_is(&name, "transfer-encoding") && has_token(value.p, value.n, "chunked")))
				delimited = true;
			else if (name_is(&name, "connection") || name_is(&name, "proxy-connection"))
				close |= has_token(value.p, value.n, "close");
		}
		p = lf + 1;
	}
}
