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
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "profile_find.h"
#include "profile_loader.h"
#include "profile_read.h"
#include "profile_read_creds.h"
#include "profile_read_tools.h"
#include "profile_resolve.h"
#include "profile_resolve_creds.h"
#include "profile_resolve_tools.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)

/* Free what l holds: the readers' raw state and the documents. */
static void loader_clear(struct loader *l)
{
	free(l->home);
	free(l->tmpdir);
	free(l->xdg);
	free(l->user_dir);
	free(l->data_dir);
	free(l->system_gitconfig);
	free(l->workspace_given);
	strv_free(l->grant_roots);
	git_paths_clear(&l->git);
	raw_list_clear(&l->read);
	raw_list_clear(&l->write);
	raw_list_clear(&l->deny_read);
	raw_list_clear(&l->protect);
	raw_run_clear(&l->top);
	raw_tools_clear(&l->tools);
	raw_creds_clear(&l->creds);
	raw_list_clear(&l->allow_unix);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(l->net_rules[i]);
	for (size_t i = 0; i < _GROUP_MAX; i++)
		raw_list_clear(&l->bypass[i]);
	raw_list_clear(&l->lift);
	for (size_t i = 0; i < l->n_groups; i++)
		raw_list_clear(&l->groups[i].paths);
	free(l->groups);
	for (size_t i = 0; i < l->n_docs; i++)
		doc_free(l->docs[i]);
	free(l->docs);
}

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
	r = loader_resolve_tools(l, p);
	if (r < 0)
		return r;
	r = loader_resolve_creds(l, p);
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
