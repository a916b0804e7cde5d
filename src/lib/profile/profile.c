/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile as data: what its parts own and how they are let go
 * (origins, rules, the whole struct cordon_profile), and the size grammar
 * it shares with the CLI. Loading one is profile_load.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "profile_loader.h"
#include "strv.h"

void profile_origin_clear(struct profile_origin *o)
{
	free(o->file);
	free(o->pointer);
	*o = (struct profile_origin){};
}

int profile_origin_copy(struct profile_origin *dst, const struct profile_origin *src)
{
	dst->file = src->file ? strdup(src->file) : NULL;
	dst->pointer = src->pointer ? strdup(src->pointer) : NULL;
	if ((src->file && !dst->file) || (src->pointer && !dst->pointer)) {
		profile_origin_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

void profile_rule_clear(struct profile_rule *rule)
{
	free(rule->path);
	free(rule->spelled);
	profile_origin_clear(&rule->origin);
	*rule = (struct profile_rule){};
}

static void rules_clear(struct profile_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		profile_rule_clear(&rs->v[i]);
	free(rs->v);
	*rs = (struct profile_rules){};
}

struct cordon_profile *profile_free(struct cordon_profile *p)
{
	if (!p)
		return NULL;
	free(p->name);
	free(p->file);
	strv_free(p->chain);
	free(p->meta_name);
	free(p->meta_description);
	free(p->meta_version);
	profile_origin_clear(&p->mode_origin);
	profile_origin_clear(&p->home_policy_origin);
	free(p->workspace);
	free(p->home);
	profile_origin_clear(&p->workspace_origin);
	rules_clear(&p->read);
	rules_clear(&p->write);
	rules_clear(&p->deny_read);
	rules_clear(&p->protect);
	rules_clear(&p->allow_unix_sockets);
	rules_clear(&p->bypass_credentials);
	rules_clear(&p->bypass_persistence);
	rules_clear(&p->bypass_system_write);
	rules_clear(&p->lift_credentials);
	rules_clear(&p->lifted_credentials);
	strv_free(p->persistence_members);
	profile_origin_clear(&p->net_origin);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(p->net_rules[i]);
	rules_clear(&p->allow_vars);
	for (size_t i = 0; i < p->n_set_vars; i++) {
		free(p->set_vars[i].name);
		free(p->set_vars[i].value);
		profile_origin_clear(&p->set_vars[i].origin);
	}
	free(p->set_vars);
	for (size_t i = 0; i < _PROFILE_LIMIT_MAX; i++)
		profile_origin_clear(&p->limits.origin[i]);
	tools_free(p->tools);
	for (size_t i = 0; i < p->n_notes; i++) {
		free(p->notes[i].path);
		free(p->notes[i].text);
		profile_origin_clear(&p->notes[i].origin);
	}
	free(p->notes);
	free(p);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)

int profile_parse_size(const char *s, uint64_t *ret)
{
	return cordon_parse_size(s, ret);
}
