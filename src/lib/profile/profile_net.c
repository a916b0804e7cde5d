/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A profile's network.mode "proxy": its host rules (allow_domains,
 * deny_domains, allow_addresses; lists add across extends), their
 * application to a policy, and `cordon why --host` answered as the proxy
 * would (netrule_decide, the same function; names resolve through
 * getaddrinfo here, through the proxy's own resolver there).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "netrule.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"

static const char *const keys[PROFILE_NET_RULE_KINDS] = {
	[CORDON_NET_ALLOW_DOMAIN] = "allow_domains",
	[CORDON_NET_DENY_DOMAIN] = "deny_domains",
	[CORDON_NET_ALLOW_ADDRESS] = "allow_addresses",
};

const char *profile_net_to_string(enum profile_net n)
{
	switch (n) {
	case PROFILE_NET_NONE:
		return "none";
	case PROFILE_NET_HOST:
		return "host";
	case PROFILE_NET_PROXY:
		return "proxy";
	case PROFILE_NET_ALLOW:
		return "allow";
	}
	return "invalid";
}

enum cordon_net profile_net_to_public(enum profile_net n)
{
	switch (n) {
	case PROFILE_NET_HOST:
		return CORDON_NET_HOST;
	case PROFILE_NET_PROXY:
		return CORDON_NET_PROXY;
	case PROFILE_NET_ALLOW:
		return CORDON_NET_ALLOW;
	case PROFILE_NET_NONE:
		break;
	}
	return CORDON_NET_NONE;
}

int profile_net_rule_check(enum cordon_net_rule kind, const char *rule, struct cordon_error *reterr)
{
	struct cordon_netrules scratch = {};
	int r;

	if (kind == CORDON_NET_ALLOW_ADDRESS)
		r = netrules_add_address(&scratch, rule, reterr);
	else
		r = netrules_add_host(&scratch, false, rule, reterr);
	netrules_done(&scratch);
	return r;
}

int profile_net_apply(const struct cordon_profile *p, struct cordon_policy *pol, struct cordon_error *reterr)
{
	int r;

	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++)
		STRV_FOREACH(s, p->net_rules[k])
			if ((r = cordon_policy_add_net_rule(pol, (enum cordon_net_rule)k, *s, reterr)) < 0)
				return r;
	return 0;
}

int profile_net_json(const struct cordon_profile *p, json_t *net)
{
	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++) {
		json_t *a;

		if (!p->net_rules[k] || !p->net_rules[k][0])
			continue;
		a = json_array();
		if (!a || json_object_set_new(net, keys[k], a) < 0)
			return -ENOMEM;
		STRV_FOREACH(s, p->net_rules[k])
			if (json_array_append_new(a, json_string(*s)) < 0)
				return -EINVAL;
	}
	return 0;
}

static void answer(struct profile_decision *d, bool allow, const struct cordon_profile *p, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void answer(struct profile_decision *d, bool allow, const struct cordon_profile *p, const char *fmt, ...)
{
	va_list ap;

	d->allow = allow;
	snprintf(d->file, sizeof(d->file), "%s", p->net_origin.file ? p->net_origin.file : "(built-in)");
	snprintf(d->pointer, sizeof(d->pointer), "%s", p->net_origin.pointer ? p->net_origin.pointer : "");
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

/* The rule that decided ("--deny-domain H", as the proxy spells it),
 * where one did: its place in the profile's lists, /network/KEY/N (the
 * mode's origin stays for what no rule decided). */
static void rule_pointer(struct profile_decision *d, const struct cordon_profile *p, const char *rule)
{
	static const char *const flags[PROFILE_NET_RULE_KINDS] = {
		[CORDON_NET_ALLOW_DOMAIN] = "--allow-domain ",
		[CORDON_NET_DENY_DOMAIN] = "--deny-domain ",
		[CORDON_NET_ALLOW_ADDRESS] = "--allow-address ",
	};

	for (size_t k = 0; rule && rule[0] && k < PROFILE_NET_RULE_KINDS; k++) {
		size_t fl = strlen(flags[k]), i = 0;

		if (strncmp(rule, flags[k], fl) != 0)
			continue;
		STRV_FOREACH(s, p->net_rules[k]) {
			if (strcasecmp(*s, rule + fl) == 0) {
				snprintf(d->file, sizeof(d->file), "%s", p->file ? p->file : "(built-in)");
				snprintf(d->pointer, sizeof(d->pointer), "/network/%s/%zu", keys[k], i);
				return;
			}
			i++;
		}
	}
}

int profile_why_proxy(const struct cordon_profile *p, const char *host, unsigned port, struct profile_decision *ret)
{
	struct cordon_netrules rules = {};
	struct cordon_netaddr_list answers = {};
	struct cordon_net_host *here = NULL;
	struct cordon_net_verdict v;
	struct profile_decision d = {};
	int r = 0;

	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS && r >= 0; k++)
		STRV_FOREACH(s, p->net_rules[k]) {
			r = k == CORDON_NET_ALLOW_ADDRESS
				    ? netrules_add_address(&rules, *s, NULL)
				    : netrules_add_host(&rules, k == CORDON_NET_DENY_DOMAIN, *s, NULL);
			if (r < 0)
				break;
		}
	if (r < 0)
		goto out;
	(void)cordon_net_host_open(&here); /* no route lookup: that check alone is skipped */
	cordon_net_decide(&rules, host, strlen(host), (uint16_t)port, NULL, here, &v);
	if (v.need_resolve) {
		r = netrule_resolve(v.name, &answers);
		if (r < 0) {
			answer(&d, false, p, "the proxy would refuse %.200s port %u: %s; the name does not resolve here (%s)",
			       host, port, v.detail, strerror(-r));
			r = 0;
			goto done;
		}
		cordon_net_decide(&rules, host, strlen(host), (uint16_t)port, &answers, here, &v);
	}
	if (v.allowed)
		answer(&d, true, p, "the proxy would connect to %.200s port %u: %s", host, port, v.detail);
	else
		answer(&d, false, p, "the proxy would refuse %.200s port %u (%s): %s", host, port, v.reason, v.detail);
	rule_pointer(&d, p, v.rule);
done:
	*ret = d;
out:
	cordon_netaddr_list_done(&answers);
	cordon_net_host_free(here);
	netrules_done(&rules);
	return r;
}
