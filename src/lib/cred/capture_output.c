/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a credential capture's output (capture_output.h): a line, or a
 * flat JSON object with a token and its expiry, parsed in the caller's
 * buffer (no copy of the secret anywhere) by a small strict reader.
 */
#include <errno.h>
#include <string.h>

#include "capture_output.h"
#include "error.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A value the proxy may put in a header: printable ASCII but space. */
static bool value_ok(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return false;
	return n > 0;
}

struct reader {
	char *p, *end;
};

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && is_space(*r->p))
		r->p++;
}

static int hex4(const char *s, unsigned *ret)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* A JSON string at r->p ('"'), unescaped in place: *ret_s, *ret_n. Only
 * the escapes of ASCII (a token is ASCII; \u above 0x7f is refused). */
static int read_string(struct reader *r, char **ret_s, size_t *ret_n)
{
	char *out, *start;

	if (r->p >= r->end || *r->p != '"')
		return -EINVAL;
	start = out = ++r->p;
	while (r->p < r->end && *r->p != '"') {
		char c = *r->p++;

		if ((unsigned char)c < 0x20)
			return -EINVAL;
		if (c != '\\') {
			*out++ = c;
			continue;
		}
		if (r->p >= r->end)
			return -EINVAL;
		c = *r->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			*out++ = c;
			break;
		case 'b':
			*out++ = '\b';
			break;
		case 'f':
			*out++ = '\f';
			break;
		case 'n':
			*out++ = '\n';
			break;
		case 'r':
			*out++ = '\r';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'u': {
			unsigned u;

			if (r->end - r->p < 4 || hex4(r->p, &u) < 0 || u == 0 || u > 0x7f)
				return -EINVAL;
			r->p += 4;
			*out++ = (char)u;
			break;
		}
		default:
			return -EINVAL;
		}
	}
	if (r->p >= r->end)
		return -EINVAL;
	r->p++; /* the closing quote */
	*ret_s = start;
	*ret_n = (size_t)(out - start);
	return 0;
}

/* A JSON number (an integer, for epoch seconds; a fraction is dropped):
 * -EINVAL for anything else, -ERANGE past 10^15. */
static int read_number(struct reader *r, int64_t *ret, bool *ret_integer)
{
	int64_t v = 0;
	bool neg = false, digits = false;

	if (r->p < r->end && *r->p == '-') {
		neg = true;
		r->p++;
	}
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		if (v > 1000000000000000)
			return -ERANGE;
		v = v * 10 + (*r->p++ - '0');
		digits = true;
	}
	if (!digits)
		return -EINVAL;
	*ret_integer = true;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -EINVAL;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
		*ret_integer = false;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E'))
		return -EINVAL;
	*ret = neg ? -v : v;
	return 0;
}

/* A value we ignore: a string, a number, true, false, null (no nesting:
 * a capture that prints more is not one we know). */
static int skip_value(struct reader *r)
{
	static const char *const words[] = { "true", "false", "null" };
	char *s;
	size_t n;
	int64_t v;
	bool integer;

	if (r->p < r->end && *r->p == '"')
		return read_string(r, &s, &n);
	if (r->p < r->end && (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')))
		return read_number(r, &v, &integer);
	for (size_t i = 0; i < 3; i++) {
		size_t wl = strlen(words[i]);

		if ((size_t)(r->end - r->p) >= wl && memcmp(r->p, words[i], wl) == 0) {
			r->p += wl;
			return 0;
		}
	}
	return -EINVAL;
}

static int digits(const char *s, size_t n, int *ret)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (unsigned)((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int capture_parse_rfc3339(const char *s, size_t n, int64_t *ret)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, se, oh = 0, om = 0, sign = 0;
	size_t i = 19;

	if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' ||
	    s[16] != ':')
		return -EINVAL;
	if (digits(s, 4, &y) < 0 || digits(s + 5, 2, &mo) < 0 || digits(s + 8, 2, &d) < 0 || digits(s + 11, 2, &h) < 0 ||
	    digits(s + 14, 2, &mi) < 0 || digits(s + 17, 2, &se) < 0)
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return -EINVAL;
	if (s[i] == '.') {
		size_t f = ++i;

		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == f || i - f > 9)
			return -EINVAL;
	}
	if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '+' ? 1 : -1;
		if (n - i != 6 || s[i + 3] != ':' || digits(s + i + 1, 2, &oh) < 0 || digits(s + i + 4, 2, &om) < 0 ||
		    oh > 23 || om > 59)
			return -EINVAL;
		i += 6;
	} else
		return -EINVAL;
	if (i != n)
		return -EINVAL;
	*ret = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + (se > 59 ? 59 : se) - sign * (oh * 3600 + om * 60);
	return 0;
}

/* {"token": ..., "expires_at": ...} at r->p. */
static int read_object(struct reader *r, char *buf, struct capture_value *v, struct cordon_error *reterr)
{
	bool token = false, expiry = false;

	r->p++; /* '{' */
	skip_ws(r);
	if (r->p < r->end && *r->p == '}')
		return error_set(reterr, -EINVAL, "the capture printed an object without a \"token\"");
	for (;;) {
		char *key, *s;
		size_t kn, sn;

		skip_ws(r);
		if (read_string(r, &key, &kn) < 0)
			return error_set(reterr, -EINVAL, "the capture printed malformed JSON (a key)");
		skip_ws(r);
		if (r->p >= r->end || *r->p++ != ':')
			return error_set(reterr, -EINVAL, "the capture printed malformed JSON (no ':')");
		skip_ws(r);
		if (kn == 5 && memcmp(key, "token", 5) == 0) {
			if (token)
				return error_set(reterr, -EINVAL, "the capture printed \"token\" twice");
			if (read_string(r, &s, &sn) < 0)
				return error_set(reterr, -EINVAL, "the capture's \"token\" is not a JSON string");
			v->off = (size_t)(s - buf);
			v->len = sn;
			token = true;
		} else if (kn == 10 && memcmp(key, "expires_at", 10) == 0) {
			if (expiry)
				return error_set(reterr, -EINVAL, "the capture printed \"expires_at\" twice");
			if (r->p < r->end && *r->p == '"') {
				size_t nd = 0;

				if (read_string(r, &s, &sn) < 0)
					return error_set(reterr, -EINVAL, "the capture's \"expires_at\" is malformed");
				while (nd < sn && s[nd] >= '0' && s[nd] <= '9')
					nd++;
				if (sn > 0 && sn <= 12 && nd == sn) {
					int64_t e = 0;

					for (size_t i = 0; i < sn; i++)
						e = e * 10 + (s[i] - '0');
					v->expires_at = e;
				} else if (capture_parse_rfc3339(s, sn, &v->expires_at) < 0)
					return error_set(reterr, -EINVAL,
							 "the capture's \"expires_at\" is neither RFC 3339 nor epoch seconds");
			} else {
				bool integer = false;

				if (read_number(r, &v->expires_at, &integer) < 0)
					return error_set(reterr, -EINVAL,
							 "the capture's \"expires_at\" is neither RFC 3339 nor epoch seconds");
			}
			v->has_expiry = expiry = true;
		} else if (skip_value(r) < 0)
			return error_set(reterr, -EINVAL,
					 "the capture printed malformed JSON (values are strings, numbers, true, false, null)");
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			break;
		}
		return error_set(reterr, -EINVAL, "the capture printed malformed JSON (no ',' or '}')");
	}
	skip_ws(r);
	if (r->p != r->end)
		return error_set(reterr, -EINVAL, "the capture printed something after its JSON object");
	if (!token)
		return error_set(reterr, -EINVAL, "the capture printed an object without a \"token\"");
	return 0;
}

int capture_output_parse(char *buf, size_t n, struct capture_value *ret, struct cordon_error *reterr)
{
	struct capture_value v = {};
	struct reader r = { buf, buf + n };
	int e;

	if (n > CAPTURE_OUTPUT_MAX)
		return error_set(reterr, -E2BIG, "the capture printed more than %d bytes", CAPTURE_OUTPUT_MAX);
	skip_ws(&r);
	while (r.end > r.p && is_space(r.end[-1]))
		r.end--;
	if (r.p == r.end)
		return error_set(reterr, -EINVAL, "the capture printed nothing");
	if (*r.p == '{') {
		e = read_object(&r, buf, &v, reterr);
		if (e < 0)
			return e;
	} else {
		v.off = (size_t)(r.p - buf);
		v.len = (size_t)(r.end - r.p);
		if (memchr(r.p, '\n', v.len))
			return error_set(reterr, -EINVAL, "the capture printed more than one line");
	}
	if (v.len > CAPTURE_VALUE_MAX)
		return error_set(reterr, -E2BIG, "the capture's value is longer than %d bytes", CAPTURE_VALUE_MAX);
	if (v.len == 0)
		return error_set(reterr, -EINVAL, "the capture printed an empty value");
	if (!value_ok(buf + v.off, v.len))
		return error_set(reterr, -EINVAL,
				 "the capture's value has a space, a control character or a byte outside ASCII");
	*ret = v;
	return 0;
}
