/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon run/confine/explain --net proxy` and its host rules. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "netrule.h"
#include "strv.h"

static const struct {
	const char *flag;
	enum cordon_net_rule kind;
} net_flags[] = {
	{ "--allow-domain", CORDON_NET_ALLOW_DOMAIN },
	{ "--deny-domain", CORDON_NET_DENY_DOMAIN },
	{ "--allow-address", CORDON_NET_ALLOW_ADDRESS },
};

int cli_net_flag(struct cli_args *a, const char *name, const char *value, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(net_flags) / sizeof(net_flags[0]); i++) {
		if (strcmp(name, net_flags[i].flag) != 0)
			continue;
		if (!*value) {
			snprintf(err, errlen, "%s needs a value", name);
			return -EINVAL;
		}
		if (strv_length(a->net_rules[net_flags[i].kind]) >= NETRULE_MAX_RULES) {
			snprintf(err, errlen, "%s given more than %d times", name, NETRULE_MAX_RULES);
			return -EINVAL;
		}
		return strv_push(&a->net_rules[net_flags[i].kind], value) < 0 ? -ENOMEM : 1;
	}
	return 0;
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
