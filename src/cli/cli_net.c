/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon run/confine/explain --net proxy` and its host rules. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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

int cli_net_apply(const struct cli_args *a, struct cordon_policy *p)
{
	struct cordon_error e = {};
	bool any = false;
	int r;

	for (size_t i = 0; i < sizeof(net_flags) / sizeof(net_flags[0]); i++)
		STRV_FOREACH(s, a->net_rules[net_flags[i].kind]) {
			any = true;
			r = cordon_policy_add_net_rule(p, net_flags[i].kind, *s, &e);
			if (r < 0) {
				cli_say("%s %s: %s", net_flags[i].flag, *s, e.message);
				return r;
			}
		}
	if (any && cordon_policy_net(p) != CORDON_NET_PROXY) {
		cli_say("--allow-domain, --deny-domain and --allow-address need --net proxy (or a profile's "
			"\"network\": {\"mode\": \"proxy\"})");
		return -EINVAL;
	}
	return 0;
}

void cli_net_done(struct cli_args *a)
{
	for (size_t i = 0; i < sizeof(a->net_rules) / sizeof(a->net_rules[0]); i++)
		strv_free(a->net_rules[i]);
}

/* "cordon-proxy: refused REQUEST HOST:PORT: REASON[: DETAIL]" (proxy.c) */
static json_t *parse_refusal(const char *line, size_t n, const char *rule)
{
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
	return json_pack("{s:s,s:n,s:s,s:s,s:s,s:s%,s:o,s:s%,s:i,s:s%}", "kind", "network", "path", "op", "connect",
			 "rule", rule, "mechanism", "proxy", "reason", rs, (size_t)(re - rs), "line",
			 cli_json_text(line, n), "host", sp + 1, (size_t)(colon - sp - 1), "port", (int)v, "request", p,
			 (size_t)(sp - p));
}

void cli_net_denials(json_t *denials, const char *text, size_t len, const char *rule)
{
	for (size_t i = 0; denials && text && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text - i) : len - i;
		json_t *d = parse_refusal(text + i, n, rule);

		if (d)
			json_array_append_new(denials, d);
		i += n + 1;
	}
}
