/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a loaded profile turns into: a policy, through the setters that take
 * canonical paths (the loader canonicalised every rule once: the checks and
 * errors are the public setters', without walking each path again).
 * profile_why.c answers "why", profile_json.c writes its JSON form.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "policy.h"
#include "profile_internal.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)

static int fail_rule(struct cordon_error *reterr, int r, const struct profile_origin *o, const struct cordon_error *e)
{
	if (!reterr)
		return r;
	error_set(reterr, r, "%s: at %s: %s", o->file, o->pointer, e->message);
	snprintf(reterr->file, sizeof(reterr->file), "%s", o->file);
	snprintf(reterr->path, sizeof(reterr->path), "%s", o->pointer);
	return r;
}

/* Each rule of rs (canonical paths) through one of the setters; a refusal
 * names the rule's origin. */
static int apply_rules(struct cordon_policy *pol, const struct profile_rules *rs,
		       int (*set)(struct cordon_policy *, const char *, struct cordon_error *),
		       struct cordon_error *reterr)
{
	struct cordon_error e = {};

	for (size_t i = 0; i < rs->n; i++) {
		int r = set(pol, rs->v[i].path, &e);

		if (r < 0)
			return fail_rule(reterr, r, &rs->v[i].origin, &e);
	}
	return 0;
}

/* Drop the built-in read-denies named in rs. No public setter removes a
 * default, so this one step edits the policy directly. */
static void undeny(struct cordon_policy *pol, const struct profile_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = 0; j < pol->n_deny; j++)
			if (strcmp(pol->deny[j].path, rs->v[i].path) == 0) {
				/* its strings stay in pol->deny_strs until the free */
				memmove(&pol->deny[j], &pol->deny[j + 1], (pol->n_deny - j - 1) * sizeof(pol->deny[0]));
				pol->n_deny--;
				break;
			}
}

int profile_apply(const struct cordon_profile *p, struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *pol = NULL;
	struct cordon_error e = {};
	int r;

	if (!p || !ret)
		return error_set(reterr, -EINVAL, "no profile to apply");
	/* under the allowlist HOME's catalogue is resolved only where granted */
	r = policy_new_internal(p->mode, p->workspace,
				POLICY_NEW_CANONICAL |
					(p->home_policy == CORDON_HOME_ALLOWLIST ? POLICY_NEW_HOME_ALLOWLIST : 0),
				&pol, reterr);
	if (r < 0)
		return r;
	r = cordon_policy_set_net(pol, profile_net_to_public(p->net));
	if (r < 0)
		return error_set(reterr, r, "cannot set the network mode");
	r = profile_net_apply(p, pol, reterr);
	if (r < 0)
		return r;

	/* Bypassed built-in entries: the loader has checked each is a member
	 * and granted elsewhere. Lifted groups: the loader listed exactly the
	 * entries of the named groups (the profile's own deny_read is added
	 * below, so it still wins). */
	undeny(pol, &p->bypass_credentials);
	undeny(pol, &p->lifted_credentials);
	for (size_t i = 0; i < p->bypass_persistence.n; i++) {
		/* and no rule by name at or below it (the runner's write gate) */
		r = strv_push_unique(&pol->unprotect, p->bypass_persistence.v[i].path);
		if (r < 0)
			return r;
		for (size_t j = 0; pol->protect && pol->protect[j]; j++)
			if (strcmp(pol->protect[j], p->bypass_persistence.v[i].path) == 0) {
				size_t n = strv_length(pol->protect);

				free(pol->protect[j]);
				memmove(&pol->protect[j], &pol->protect[j + 1], (n - j) * sizeof(char *));
				break;
			}
	}

	if ((r = apply_rules(pol, &p->deny_read, policy_deny_add_canonical, reterr)) < 0 ||
	    (r = apply_rules(pol, &p->write, policy_add_writable_dir_canonical, reterr)) < 0)
		return r;
	/* the HOME allowlist: resolved once the writable roots are known;
	 * filesystem.read below HOME is a grant there */
	if ((r = cordon_policy_set_home(pol, p->home_policy, reterr)) < 0)
		return r;
	for (size_t i = 0; i < p->read.n; i++)
		if (policy_home_hiding(pol, p->read.v[i].path) &&
		    (r = cordon_policy_grant_home(pol, p->read.v[i].path, &e)) < 0)
			return fail_rule(reterr, r, &p->read.v[i].origin, &e);
	/* what the catalogue resolved lazily for the grants: the lifted
	 * groups and bypassed entries stay lifted */
	if (pol->home_catalogue_lazy) {
		undeny(pol, &p->bypass_credentials);
		undeny(pol, &p->lifted_credentials);
	}
	/* A write grant that makes shell start-up files writable (HOME, or a
	 * directory above it) keeps them read-only, as the workspace's are. */
	if (p->write.n) {
		_cleanup_strv_free_ char **computed = NULL;
		char **persist = p->persistence_members;

		/* the loader's, canonical already; a profile built otherwise
		 * gets them here (never none: that would leave them writable) */
		if (!persist) {
			r = profile_group_members(p, p->home, 1, &computed);
			if (r < 0)
				return r;
			persist = computed;
		}
		STRV_FOREACH(m, persist) {
			if (profile_rules_contain(&p->bypass_persistence, *m) || strchr(*m, '*') ||
			    strv_contains(pol->protect, *m))
				continue;
			for (size_t i = 0; i < p->write.n; i++)
				if (path_is_under(*m, p->write.v[i].path)) {
					r = policy_protect_canonical(pol, *m, &e);
					if (r < 0)
						return fail_rule(reterr, r, &p->write.v[i].origin, &e);
					break;
				}
		}
	}
	r = apply_rules(pol, &p->protect, policy_protect_canonical, reterr);
	if (r < 0)
		return r;
	/* The profile's own files are a persistence path: a run that could
	 * rewrite the file the next run loads (build.json in the workspace)
	 * would choose that run's policy. Read-only inside, like .git/hooks
	 * (outside every writable root they are read-only anyway). */
	for (char **f = p->chain; f && *f; f++) {
		_cleanup_free_ char *canon = NULL;
		bool writable = false;

		if (strncmp(*f, "builtin:", 8) == 0 || cordon_canonicalize(*f, &canon, NULL) < 0)
			continue;
		STRV_FOREACH(root, pol->writable_roots)
			writable |= path_is_under(canon, *root);
		if (!writable)
			continue;
		r = policy_protect_canonical(pol, canon, &e);
		if (r < 0)
			return error_set(reterr, r, "cannot keep the profile %s read-only: %s", *f, e.message);
	}
	if ((r = apply_rules(pol, &p->allow_unix_sockets, policy_allow_unix_socket_canonical, reterr)) < 0 ||
	    (r = apply_rules(pol, &p->allow_vars, cordon_policy_keep_env, reterr)) < 0)
		return r;
	for (size_t i = 0; i < p->n_set_vars; i++) {
		r = cordon_policy_set_env(pol, p->set_vars[i].name, p->set_vars[i].value, &e);
		if (r < 0)
			return fail_rule(reterr, r, &p->set_vars[i].origin, &e);
	}
	*ret = TAKE_PTR(pol);
	return 0;
}

int profile_override_mode(struct cordon_profile *q, enum cordon_mode m)
{
	if ((unsigned)m > CORDON_MODE_DANGER_FULL_ACCESS)
		return -EINVAL;
	q->mode = m;
	/* only workspace-write has write grants; read-only writes nothing */
	if (m != CORDON_MODE_WORKSPACE_WRITE)
		q->write = (struct profile_rules){};
	return 0;
}

int profile_apply_mode(const struct cordon_profile *p, const enum cordon_mode *mode, struct cordon_policy **ret,
		       struct cordon_error *reterr)
{
	return profile_apply_home(p, mode, NULL, ret, reterr);
}

int profile_apply_home(const struct cordon_profile *p, const enum cordon_mode *mode, const enum cordon_home *home,
		       struct cordon_policy **ret, struct cordon_error *reterr)
{
	struct cordon_profile q; /* a shallow copy: p itself stays untouched */

	if (!p)
		return error_set(reterr, -EINVAL, "no profile to apply");
	q = *p;
	if (mode && profile_override_mode(&q, *mode) < 0)
		return error_set(reterr, -EINVAL, "mode: unknown mode %d", (int)*mode);
	if (home && *home != CORDON_HOME_CATALOGUE && *home != CORDON_HOME_ALLOWLIST)
		return error_set(reterr, -EINVAL, "home: unknown HOME policy %d", (int)*home);
	if (home)
		q.home_policy = *home;
	return profile_apply(&q, ret, reterr);
}
