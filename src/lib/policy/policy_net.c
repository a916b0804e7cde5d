/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's host rules for network "proxy" (netrule.h decides). */
#include <errno.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "netrule.h"
#include "policy.h"
#include "strv.h"

CORDON_API int cordon_policy_add_net_rule(struct cordon_policy *p, enum cordon_net_rule kind, const char *rule,
					  struct cordon_error *reterr)
{
	struct cordon_netrules scratch = {};
	int r;

	if (!p || !rule)
		return error_set(reterr, -EINVAL, "no policy or no rule");
	switch (kind) {
	case CORDON_NET_ALLOW_DOMAIN:
	case CORDON_NET_DENY_DOMAIN:
		r = netrules_add_host(&scratch, false, rule, reterr);
		break;
	case CORDON_NET_ALLOW_ADDRESS:
		r = netrules_add_address(&scratch, rule, reterr);
		break;
	default:
		return error_set(reterr, -EINVAL, "unknown kind of network rule");
	}
	netrules_done(&scratch);
	if (r < 0)
		return r;
	if (strv_length(p->net_rules[kind]) >= NETRULE_MAX_RULES)
		return error_set(reterr, -E2BIG, "more than %d network rules of one kind", NETRULE_MAX_RULES);
	r = strv_push_unique(&p->net_rules[kind], rule);
	return r < 0 ? error_set(reterr, r, "out of memory") : 0;
}

CORDON_API const char *const *cordon_policy_net_rules(const struct cordon_policy *p, enum cordon_net_rule kind)
{
	static const char *const none[] = { NULL };

	if (!p || (unsigned)kind >= ELEMENTSOF(p->net_rules) || !p->net_rules[kind])
		return none;
	return (const char *const *)p->net_rules[kind];
}

void policy_net_add_flags(struct strv_builder *sb, const struct cordon_policy *p)
{
	static const char *const flag[] = {
		[CORDON_NET_ALLOW_DOMAIN] = "--allow-domain",
		[CORDON_NET_DENY_DOMAIN] = "--deny-domain",
		[CORDON_NET_ALLOW_ADDRESS] = "--allow-address",
	};

	if (p->net != CORDON_NET_PROXY && p->net != CORDON_NET_ALLOW)
		return;
	for (size_t k = 0; k < ELEMENTSOF(flag); k++)
		STRV_FOREACH(r, p->net_rules[k])
			strvb_add_many(sb, flag[k], *r, NULL);
}
