/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon run/confine/explain --net proxy` and its host rules. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "strv.h"

static const struct {
	const char *flag;
	enum cordon_net_rule kind;
} net_flags[] = {
	{ "--allow-domain", CORDON_NET_ALLOW_DOMAIN },
	{ "--deny-domain", CORDON_NET_DENY_DOMAIN },
	{ "--allow-address", CORDON_NET_ALLOW_ADDRESS },
};

int cli_net_flag(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(net_flags) / sizeof(net_flags[0]); i++) {
		if (strcmp(f->name, net_flags[i].flag) != 0)
			continue;
		if (!*value)
			return cli_fail(err, errlen, "%s needs a value", f->name);
		if (strv_length(a->net_rules[net_flags[i].kind]) >= CORDON_NET_MAX_RULES)
			return cli_fail(err, errlen, "%s given more than %d times", f->name, CORDON_NET_MAX_RULES);
		return strv_push(&a->net_rules[net_flags[i].kind], value);
	}
	return cli_fail(err, errlen, "%s: not a --net proxy rule", f->name);
}

void cli_net_done(struct cli_args *a)
{
	for (size_t i = 0; i < sizeof(a->net_rules) / sizeof(a->net_rules[0]); i++)
		strv_free(a->net_rules[i]);
}

/* A rule as the user wrote it and as the proxy prints it (lower case, no
 * trailing dot) are the same rule. */
static bool same_rule(const char *spec, const char *text, size_t n)
{
	size_t sl = strlen(spec);

	if (sl == n + 1 && spec[n] == '.')
		sl = n;
	return sl == n && strncasecmp(spec, text, n) == 0;
}

/* Where the rule the proxy named ("--deny-domain H") came from: the flag,
 * or the profile's list. */
static char *rule_origin(const char *named, size_t n, const struct cli_args *a, const struct cordon_profile_handle *prof,
			 const char *fallback)
{
	static const struct {
		const char *flag, *key;
		enum cordon_net_rule kind;
		enum cordon_profile_list list;
	} kinds[] = {
		{ "--deny-domain ", "deny_domains", CORDON_NET_DENY_DOMAIN, CORDON_PROFILE_DENY_DOMAINS },
		{ "--allow-domain ", "allow_domains", CORDON_NET_ALLOW_DOMAIN, CORDON_PROFILE_ALLOW_DOMAINS },
	};
	char *out = NULL;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t fl = strlen(kinds[k].flag);
		const char *text = named + fl;
		size_t tl = n - fl;
		const char *const *list;

		if (n <= fl || memcmp(named, kinds[k].flag, fl) != 0)
			continue;
		STRV_FOREACH(s, a->net_rules[kinds[k].kind])
			if (same_rule(*s, text, tl))
				return asprintf(&out, "%s%s", kinds[k].flag, *s) < 0 ? NULL : out;
		list = cordon_profile_list(prof, kinds[k].list);
		for (size_t i = 0; list && list[i]; i++)
			if (same_rule(list[i], text, tl))
				return asprintf(&out, "%s at /network/%s/%zu (%s)",
						a->profile ? a->profile : "the built-in profile", kinds[k].key, i,
						list[i]) < 0
					       ? NULL
					       : out;
	}
	(void)fallback;
	return strndup(named, n); /* another source's rule (a tool's): as the proxy names it */
}

/* The rule for a refusal that names none: the list that would have to
 * admit it. */
static const char *missing_rule(const char *reason, size_t n, const char *fallback)
{
	if (n == 16 && memcmp(reason, "host-not-allowed", 16) == 0)
		return "--allow-domain / network.allow_domains (no rule admits the host)";
	if (n == 10 && memcmp(reason, "ip-literal", 10) == 0)
		return "--allow-domain / network.allow_domains (no rule names the address)";
	if (n > 8 && memcmp(reason, "address-", 8) == 0)
		return "--allow-address / network.allow_addresses (none names the address)";
	return fallback;
}

/* "cordon-proxy: refused REQUEST HOST:PORT: REASON[: DETAIL][ (rule: RULE)]" (conn.c) */
static json_t *parse_refusal(const char *line, size_t n, const struct cli_args *a,
			     const struct cordon_profile_handle *prof, const char *fallback)
{
	static const char rule_tag[] = " (rule: ";
	_cleanup_free_ char *rule = NULL;
	json_t *d;
	static const char tag[] = "cordon-proxy: refused ";
	const char *p = line + sizeof(tag) - 1, *end = line + n, *sp, *colon, *rs, *re;
	char *stop = NULL, port[8];
	long v;

	if (n < sizeof(tag) - 1 || memcmp(line, tag, sizeof(tag) - 1) != 0)
		return NULL;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return NULL;
	rs = memchr(sp + 1, ' ', (size_t)(end - sp - 1)); /* after "HOST:PORT:" */
	if (!rs || rs - sp < 4 || rs[-1] != ':')
		return NULL;
	for (colon = rs - 2; colon > sp && *colon != ':'; colon--)
		;
	if (colon == sp || (size_t)(rs - 1 - colon - 1) >= sizeof(port))
		return NULL;
	memcpy(port, colon + 1, (size_t)(rs - 1 - colon - 1));
	port[rs - 1 - colon - 1] = '\0';
	v = strtol(port, &stop, 10);
	if (!*port || *stop || v < 0 || v > 65535)
		return NULL;
	rs++;
	for (re = rs; re < end && *re != ':'; re++)
		;
	/* the rule the proxy named, at the end of the line */
	if (end > rs && end[-1] == ')') {
		const char *t = NULL;

		for (const char *q = rs; q + sizeof(rule_tag) - 1 < end; q++)
			if (memcmp(q, rule_tag, sizeof(rule_tag) - 1) == 0)
				t = q + sizeof(rule_tag) - 1;
		if (t)
			rule = rule_origin(t, (size_t)(end - 1 - t), a, prof, fallback);
	}
	if (!rule)
		rule = strdup(missing_rule(rs, (size_t)(re - rs), fallback));
	if (!rule)
		return NULL;
	d = json_pack("{s:s,s:n,s:s,s:s,s:s,s:s%,s:o,s:s%,s:i,s:s%}", "kind", "network", "path", "op", "connect",
		      "rule", rule, "mechanism", "proxy", "reason", rs, (size_t)(re - rs), "line",
		      cli_json_text(line, n), "host", sp + 1, (size_t)(colon - sp - 1), "port", (int)v, "request", p,
		      (size_t)(sp - p));
	return d;
}

void cli_net_denials(json_t *denials, const char *text, size_t len, const struct cli_args *a,
		     const struct cordon_profile_handle *prof, const char *fallback)
{
	for (size_t i = 0; denials && text && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text - i) : len - i;
		json_t *d = parse_refusal(text + i, n, a, prof, fallback);

		if (d)
			json_array_append_new(denials, d);
		i += n + 1;
	}
}
