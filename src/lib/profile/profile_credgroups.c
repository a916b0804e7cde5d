/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credential groups lifted by name (groups.credentials.lift): the group
 * names the catalogue defines, and the canonical entries a set of lifted
 * groups uncovers. Pure over the catalogue, apart from canonicalising the
 * entries below the homes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "policy.h"
#include "profile_internal.h"
#include "strv.h"

/* A root caller's system secrets have no group in the catalogue. */
#define SYSTEM_GROUP "system"

size_t profile_credential_groups(const char **out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; policy_default_deny_read[i].path; i++) {
		bool seen = false;

		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(out[j], policy_default_deny_read[i].group) == 0;
		if (!seen && n + 1 < cap)
			out[n++] = policy_default_deny_read[i].group;
	}
	if (n + 1 < cap)
		out[n++] = SYSTEM_GROUP;
	if (cap)
		out[n] = NULL;
	return n;
}

static bool lifted(char *const *groups, const char *g)
{
	return strv_contains(groups, g);
}

int profile_credential_lift_paths(const char *home, char *const *groups, char ***ret_paths, char ***ret_groups)
{
	_cleanup_strv_free_ char **lift = calloc(1, sizeof(char *)), **lift_group = calloc(1, sizeof(char *)),
				 **kept = calloc(1, sizeof(char *));
	_cleanup_free_ char *other = NULL;
	const char *homes[2] = { home, NULL };
	int r;

	if (!lift || !lift_group || !kept)
		return -ENOMEM;
	r = policy_other_home(home, &other);
	if (r < 0)
		return r;
	homes[1] = other;
	for (size_t h = 0; h < 2; h++) {
		if (!homes[h] || strcmp(homes[h], "/") == 0)
			continue;
		for (size_t i = 0; policy_default_deny_read[i].path; i++) {
			const struct policy_secret *s = &policy_default_deny_read[i];
			_cleanup_free_ char *c = NULL;

			if (policy_secret_canonical(homes[h], i, &c, NULL) < 0)
				continue;
			if (!lifted(groups, s->group)) {
				r = strv_push_unique(&kept, c);
			} else if (!strv_contains(lift, c)) {
				r = strv_push(&lift, c);
				if (r >= 0)
					r = strv_push(&lift_group, s->group);
			} else
				r = 0;
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; geteuid() == 0 && policy_root_deny_read[i]; i++) {
		if (lifted(groups, SYSTEM_GROUP) && !strv_contains(lift, policy_root_deny_read[i])) {
			r = strv_push(&lift, policy_root_deny_read[i]);
			if (r >= 0)
				r = strv_push(&lift_group, SYSTEM_GROUP);
		} else
			r = strv_push_unique(&kept, policy_root_deny_read[i]);
		if (r < 0)
			return r;
	}
	/* An entry that resolves to the same place as one of a group not
	 * lifted (~/.aws a symlink to ~/.ssh) stays hidden: a lift uncovers
	 * only what the profile named. */
	for (size_t i = 0; lift[i];) {
		size_t n = strv_length(lift);

		if (!strv_contains(kept, lift[i])) {
			i++;
			continue;
		}
		free(lift[i]);
		free(lift_group[i]);
		memmove(&lift[i], &lift[i + 1], (n - i) * sizeof(char *));
		memmove(&lift_group[i], &lift_group[i + 1], (n - i) * sizeof(char *));
	}
	*ret_paths = TAKE_PTR(lift);
	*ret_groups = TAKE_PTR(lift_group);
	return 0;
}
