/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Values the top level and a command's sandbox read alike: lists of paths
 * (tokens and @groups expanded once resolved), network.mode, and the
 * proxy's host rules (checked as the proxy takes them, in profile_net.c).
 * Pure, like the readers above it.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read_values.h"
#include "strv.h"

/* ---- paths ------------------------------------------------------------------ */

static int check_path(struct loader *l, const struct where *w, const char *s, intptr_t allow_refs)
{
	if (!s[0])
		return loader_fail(l, -EINVAL, w, "a path must not be empty");
	if (s[0] == '@' && !allow_refs)
		return loader_fail(l, -EINVAL, w, "a group cannot refer to \"%.100s\": list paths", s);
	return 0;
}

int loader_read_paths(struct loader *l, const struct where *w, const json_t *v, bool allow_refs,
		      struct raw_list *out)
{
	return loader_read_list(l, w, v, "an array of paths", PATH_MAX - 1, check_path, allow_refs, out);
}

/* ---- network ---------------------------------------------------------------- */

int loader_get_net_mode(struct loader *l, const struct where *w, const json_t *v, enum profile_net *ret)
{
	const char *s;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (strcmp(s, "none") == 0)
		*ret = PROFILE_NET_NONE;
	else if (strcmp(s, "host") == 0)
		*ret = PROFILE_NET_HOST;
	else if (strcmp(s, "proxy") == 0)
		*ret = PROFILE_NET_PROXY;
	else if (strcmp(s, "allow") == 0)
		*ret = PROFILE_NET_ALLOW;
	else {
		static const char *const modes[] = { "none", "host", "proxy", "allow", NULL };
		const char *best = loader_closest(s, modes);

		if (best)
			return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a network mode, did you mean \"%s\"?", s,
					   best);
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a network mode: use none, host, proxy or allow", s);
	}
	return 0;
}

int loader_read_net_rules(struct loader *l, const struct where *w, const json_t *v, enum cordon_net_rule kind,
			  char ***out)
{
	size_t i;
	json_t *e;
	int r;

	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s;
		struct cordon_error why;

		r = loader_get_string(l, &we, e, 260, &s);
		if (r < 0)
			return r;
		if (profile_net_rule_check(kind, s, &why) < 0)
			return loader_fail(l, -EINVAL, &we, "%s", why.message);
		r = loader_count_rule(l, &we);
		if (r < 0)
			return r;
		if (strv_push_unique(out, s) < 0)
			return loader_fail(l, -ENOMEM, &we, "out of memory");
	}
	return 0;
}

int loader_check_net_rules_mode(struct loader *l, const struct where *w, enum profile_net net)
{
	if (net == PROFILE_NET_PROXY || net == PROFILE_NET_ALLOW)
		return 0;
	return loader_fail(l, -EINVAL, w,
			   "host rules apply only through the proxy: they need network.mode \"proxy\" (the mode is \"%s\")",
			   profile_net_to_string(net));
}
