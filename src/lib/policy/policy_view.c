/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A built policy read back: the lists a run applies, as the providers use
 * them (`cordon profile show --effective`). Reads only; every vector handed
 * out is a copy, so a policy shared between threads stays untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "policy.h"
#include "protect_names.h"
#include "strv.h"

CORDON_API enum cordon_isolation cordon_policy_isolation(const struct cordon_policy *p)
{
	return p->isolation;
}

CORDON_API const char *cordon_policy_home(const struct cordon_policy *p)
{
	return p->home;
}

CORDON_API int cordon_policy_read_deny(const struct cordon_policy *p, size_t i, struct cordon_read_deny *ret)
{
	const struct deny_entry *d;

	if (i >= p->n_deny)
		return -ENOENT;
	d = &p->deny[i];
	*ret = (struct cordon_read_deny){
		.path = d->path,
		.exists = d->exists,
		.hidden_at = deny_entry_native_path(p, d),
		.only_without_network = d->only_without_net,
	};
	return 0;
}

CORDON_API bool cordon_policy_write_gate(const struct cordon_policy *p)
{
	return p->isolation == CORDON_ISOLATION_FULL && p->mode == CORDON_MODE_WORKSPACE_WRITE;
}

/* The write gate's names: the single names of the built-in protected set. */
static int gate_names(char ***v)
{
	for (size_t i = 0; policy_default_protect[i]; i++)
		if (policy_protect_is_name(policy_default_protect[i]) && strv_push(v, policy_default_protect[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int gate_lifted(const struct cordon_policy *p, char ***v)
{
	if (strv_extend_strv(v, (const char *const *)p->unprotect) < 0)
		return -ENOMEM;
	if (!cordon_policy_write_gate(p))
		return 0;
	STRV_FOREACH(root, p->writable_roots)
		if (policy_home_cache_root(p->home, *root) && strv_push(v, *root) < 0)
			return -ENOMEM;
	return 0;
}

/* The allowlist's lists, read from the very flags the runner is given
 * (policy_home_add_flags), so the view cannot tell another story. */
static int home_list(const struct cordon_policy *p, enum cordon_policy_list which, char ***v)
{
	struct strv_builder sb = { 0 };
	_cleanup_strv_free_ char **flags = NULL;
	int r = 0;

	policy_home_add_flags(&sb, p, p->isolation == CORDON_ISOLATION_LIGHT);
	flags = strvb_finish(&sb, &r);
	if (!flags)
		return r < 0 ? r : -ENOMEM;
	for (size_t i = 0; flags[i] && flags[i + 1] && r >= 0; i += 2) {
		const char *f = flags[i];
		bool want = which == CORDON_POLICY_HOME_HIDDEN   ? (strcmp(f, "--home-hide") == 0) :
			    which == CORDON_POLICY_HOME_FILTERED ? (strcmp(f, "--home-filtered") == 0) :
								   (strcmp(f, "--home-grant") == 0) || (strcmp(f, "--home-link") == 0);

		if (want)
			r = strv_push(v, flags[i + 1]);
	}
	return r;
}

CORDON_API int cordon_policy_list(const struct cordon_policy *p, enum cordon_policy_list which, char ***ret)
{
	_cleanup_strv_free_ char **v = strv_copy(NULL);
	int r = 0;

	if (!v)
		return -ENOMEM;
	switch (which) {
	case CORDON_POLICY_PROTECTED:
		r = strv_extend_strv(&v, (const char *const *)p->protect);
		break;
	case CORDON_POLICY_UNIX_SOCKETS:
		r = strv_extend_strv(&v, (const char *const *)p->allow_unix);
		break;
	case CORDON_POLICY_ENV:
		r = strv_extend_strv(&v, (const char *const *)p->env);
		/* the runner's own under the write gate's --protect-git */
		if (r >= 0 && cordon_policy_write_gate(p))
			r = strv_push(&v, PROTECT_GIT_ENV);
		break;
	case CORDON_POLICY_KEEP_ENV:
		r = strv_extend_strv(&v, (const char *const *)p->keep_env);
		break;
	case CORDON_POLICY_GATE_NAMES:
		if (cordon_policy_write_gate(p))
			r = gate_names(&v);
		break;
	case CORDON_POLICY_GATE_LIFTED:
		r = gate_lifted(p, &v);
		break;
	case CORDON_POLICY_HOME_HIDDEN:
	case CORDON_POLICY_HOME_GRANTED:
	case CORDON_POLICY_HOME_FILTERED:
		r = home_list(p, which, &v);
		break;
	case _CORDON_POLICY_LIST_MAX:
	default:
		return -EINVAL;
	}
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}
