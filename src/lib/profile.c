/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile loader's front: bytes or a name -> validated, merged,
 * expanded, immutable struct cordon_profile. Two phases. Reading
 * (profile_read*.c) walks each file of the extends chain (parent first) and
 * merges raw values, remembering where each came from; resolving
 * (profile_resolve.c) then expands path tokens, canonicalises, and checks
 * the rules against each other. profile_loader.h maps the files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "cleanup.h"
#include "profile_loader.h"
#include "provider.h"
#include "strv.h"
#include "units.h"

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

static int load_common(struct loader *l, struct doc *top, const char *name, struct cordon_profile **ret)
{
	_cleanup_(profile_freep) struct cordon_profile *p = NULL;
	int r;

	r = loader_keep(l, top);
	if (r < 0)
		return r;
	r = loader_read_doc(l, top);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->name = strdup(name);
	p->file = strdup(top->file);
	if (!p->name || !p->file)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_docs; i++) {
		r = strv_push(&p->chain, l->docs[i]->file);
		if (r < 0)
			return r;
	}
	r = loader_resolve(l, p);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

int profile_load_buffer(const char *data, size_t len, const char *file, const struct profile_env *env,
			struct cordon_profile **ret, struct cordon_error *reterr)
{
	struct loader l;
	struct doc *d = NULL;
	int r;

	if (!ret || (!data && len) || !file)
		return error_set(reterr, -EINVAL, "no profile to read");
	r = loader_init(&l, env, reterr);
	if (r < 0)
		goto out;
	if (len > PROFILE_MAX_BYTES) {
		r = loader_fail_file(&l, -EFBIG, file, 0, 0, "profile is larger than the 1 MiB limit");
		goto out;
	}
	r = doc_from_buffer(data ? data : "", len, file, &d);
	if (r < 0)
		goto out;
	r = load_common(&l, d, file, ret);
out:
	loader_clear(&l);
	return r;
}

int profile_load(const char *name, const struct profile_env *env, struct cordon_profile **ret,
		 struct cordon_error *reterr)
{
	struct loader l;
	struct doc *d = NULL;
	int r;

	if (!ret || !name)
		return error_set(reterr, -EINVAL, "no profile name");
	r = loader_init(&l, env, reterr);
	if (r >= 0)
		r = loader_find_doc(&l, name, NULL, NULL, &d);
	if (r >= 0)
		r = load_common(&l, d, name, ret);
	loader_clear(&l);
	return r;
}

int profile_parse_size(const char *s, uint64_t *ret)
{
	return units_parse_size(s, ret);
}
