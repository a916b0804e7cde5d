/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A credential's endpoint policy: path canonicalisation, globs, the
 * decision (see endpoint.h). */
#include <errno.h>
#include <string.h>

#include "endpoint.h"
#include "hex.h"

static int refuse(const char **ret_reason, const char *why)
{
	*ret_reason = why;
	return -EINVAL;
}

int endpoint_canon_path(const char *t, size_t n, char *out, size_t outlen, const char **ret_reason)
{
	size_t len = 0, seg = 0;

	for (size_t i = 0; i < n && t[i] != '?' && t[i] != '#'; i++)
		len = i + 1;
	if (len == 0 || t[0] != '/')
		return refuse(ret_reason, "path-malformed");
	if (len >= outlen || len > ENDPOINT_PATH_MAX) {
		*ret_reason = "path-too-long";
		return -E2BIG;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c < 0x21 || c == 0x7f || c == '\\' || c == ';')
			return refuse(ret_reason, "path-ambiguous");
		if (c == '%') {
			int hi = i + 2 < len ? hex_digit_value(t[i + 1]) : -1, lo = i + 2 < len ? hex_digit_value(t[i + 2]) : -1, v;

			if (hi < 0 || lo < 0)
				return refuse(ret_reason, "path-malformed");
			v = hi * 16 + lo;
			if (v == '.' || v == '/' || v == '\\' || v == ';' || v == '%' || v < 0x20 || v == 0x7f)
				return refuse(ret_reason, "path-ambiguous");
		}
		if (c == '/') {
			if (i > 0) {
				size_t sl = i - seg;

				if (sl == 0 || (sl == 1 && t[seg] == '.') || (sl == 2 && t[seg] == '.' && t[seg + 1] == '.'))
					return refuse(ret_reason, "path-ambiguous");
			}
			seg = i + 1;
		}
	}
	/* the last segment: "." or ".." (an empty last one is a trailing '/') */
	if ((len - seg == 1 && t[seg] == '.') || (len - seg == 2 && t[seg] == '.' && t[seg + 1] == '.'))
		return refuse(ret_reason, "path-ambiguous");
	memcpy(out, t, len);
	out[len] = '\0';
	return 0;
}

/* One segment against a glob segment ('*' any characters of it). */
static bool seg_match(const char *g, size_t gn, const char *s, size_t sn)
{
	size_t gi = 0, si = 0, star = (size_t)-1, mark = 0;

	while (si < sn) {
		if (gi < gn && g[gi] == '*') {
			star = gi++;
			mark = si;
		} else if (gi < gn && g[gi] == s[si]) {
			gi++;
			si++;
		} else if (star != (size_t)-1) {
			gi = star + 1;
			si = ++mark;
		} else
			return false;
	}
	while (gi < gn && g[gi] == '*')
		gi++;
	return gi == gn;
}

static size_t seg_len(const char *p)
{
	const char *e = strchr(p, '/');

	return e ? (size_t)(e - p) : strlen(p);
}

/* g and p point at the start of a segment (after a '/'). Recursion depth is
 * bounded by the glob's "**" count times the path's segments; both come
 * from the profile and a capped path. */
static bool match_from(const char *g, const char *p)
{
	for (;;) {
		size_t gn = seg_len(g), pn = seg_len(p);

		if (gn == 2 && g[0] == '*' && g[1] == '*') {
			const char *rest = g[2] == '/' ? g + 3 : g + 2;

			if (!*rest && g[2] != '/')
				return true; /* a last "**": everything below */
			for (const char *q = p;;) {
				if (match_from(rest, q))
					return true;
				q += seg_len(q);
				if (!*q)
					return false;
				q++;
			}
		}
		if (gn == 1 && g[0] == '*') {
			if (pn == 0)
				return false;
		} else if (!seg_match(g, gn, p, pn))
			return false;
		g += gn;
		p += pn;
		if (!*p && strcmp(g, "/**") == 0)
			return true; /* "**" is zero segments too */
		if (!*g || !*p)
			return !*g && !*p;
		g++;
		p++;
	}
}

bool endpoint_glob_match(const char *glob, const char *path)
{
	if (glob[0] != '/' || path[0] != '/')
		return false;
	return match_from(glob + 1, path + 1);
}

static bool method_match(const char *rule, const char *method)
{
	return strcmp(rule, "*") == 0 || strcmp(rule, method) == 0;
}

enum credtable_action endpoint_decide(const struct credtable_policy *p, const char *method, const char *path,
				      const struct credtable_rule **ret_rule)
{
	static const enum credtable_action order[] = { CREDTABLE_DENY, CREDTABLE_APPROVE, CREDTABLE_ALLOW };

	for (size_t o = 0; o < 3; o++)
		for (size_t i = 0; i < p->n_rules; i++) {
			const struct credtable_rule *r = &p->rules[i];

			if (r->action == order[o] && method_match(r->method, method) && endpoint_glob_match(r->path, path)) {
				*ret_rule = r;
				return r->action;
			}
		}
	*ret_rule = NULL;
	return p->dflt;
}

const char *endpoint_action_name(enum credtable_action a)
{
	switch (a) {
	case CREDTABLE_DENY:
		return "deny";
	case CREDTABLE_APPROVE:
		return "approve";
	case CREDTABLE_ALLOW:
		return "allow";
	}
	return "deny";
}
