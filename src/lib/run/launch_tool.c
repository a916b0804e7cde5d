/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_launch_new_tool: a controlled command's launch from its command
 * policy's sandbox (struct cordon_tool_sandbox) and what its caller
 * resolved once for it (executable, execute closure, shims). The one place
 * a tool's policy is built from its sandbox, one setter at a time in a
 * fixed order, and its limits checked with the launch's own checks, in
 * cordon_launch_new's order: limits, policy, backend, what the limits need.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "launch.h"
#include "opts_size.h"
#include "policy.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_launch *, cordon_launch_free)

#define LAUNCH_TOOL_OPTS_SIZE_1 sizeof(struct cordon_launch_tool_opts)

/* The sandbox as a policy: restricted reads, the grants, the execute-only
 * gate open for the closure, exec_paths and the shim, the network, the
 * environment; then the caller's finish_policy. */
static int sandbox_policy(const struct cordon_tool_sandbox *sb, const struct cordon_launch_tool_opts *o,
		       struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	int r;

#define EACH(list, call)                                 \
	for (const char *const *s = (list); s && *s; s++) \
		if ((r = (call)) < 0)                    \
			return r;
	r = cordon_policy_new_tool(o->workspace, &p, reterr);
	if (r < 0)
		return r;
	EACH(sb->fs_read, cordon_policy_restrict_read(p, *s, reterr));
	EACH(sb->fs_read_file, cordon_policy_restrict_read(p, *s, reterr));
	EACH(sb->fs_write, cordon_policy_add_writable(p, *s, reterr));
	EACH(sb->fs_write_file, cordon_policy_add_writable(p, *s, reterr));
	/* the binary itself runs from the fd the supervisor checked; what
	 * running it needs is executable, nothing else */
	r = cordon_policy_exec_from_fd(p, true);
	if (r < 0)
		return error_set(reterr, r, "cannot run %s from an fd", o->executable ? o->executable : "the tool");
	EACH(o->exec_closure, cordon_policy_allow_exec(p, *s, reterr));
	EACH(sb->exec_paths, cordon_policy_allow_exec(p, *s, reterr));
	if (o->shims && o->shims[0]) {
		if (!o->shim_path)
			return error_set(reterr, -EINVAL, "shims without a shim");
		r = cordon_policy_allow_exec(p, o->shim_path, reterr);
		if (r < 0)
			return r;
		r = cordon_policy_set_broker(p, o->shim_path, o->shims, reterr);
		if (r < 0)
			return r;
	}
	if (sb->net_set && (r = cordon_policy_set_net(p, sb->net)) < 0)
		return error_set(reterr, r, "network: not a network setting");
	EACH(sb->allow_domains, cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, *s, reterr));
	EACH(sb->deny_domains, cordon_policy_add_net_rule(p, CORDON_NET_DENY_DOMAIN, *s, reterr));
	EACH(sb->allow_addresses, cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_ADDRESS, *s, reterr));
#undef EACH
	for (const char *const *s = sb->allow_vars; s && *s; s++) {
		/* an injection name is never passed, nor the supervisor's own */
		if (strv_contains((char **)o->withheld_env, *s) || env_name_is_tool_owned(*s))
			continue;
		r = cordon_policy_keep_env(p, *s, reterr);
		if (r < 0 && r != -EPERM)
			return r;
	}
	for (const char *const *s = sb->set_vars; s && *s; s++) {
		_cleanup_free_ char *name = strndup(*s, strcspn(*s, "="));

		if (!name)
			return -ENOMEM;
		if (env_name_is_tool_owned(name) || !(*s)[strlen(name)])
			continue; /* refused at load: a compiled profile from elsewhere */
		r = cordon_policy_set_env(p, name, *s + strlen(name) + 1, reterr);
		if (r < 0)
			return r;
	}
	/* Python never puts the working directory (`-m`, `-c`) or a script's
	 * directory first on its module path in a tool: the caller chose the
	 * directory, and what it planted there would be imported with the
	 * tool's grants (Python 3.11+; the closure's places are checked at
	 * start). Set last of the sandbox's part: a profile does not turn it
	 * off. */
	r = cordon_policy_set_env(p, "PYTHONSAFEPATH", "1", reterr);
	if (r < 0)
		return r;
	if (o->finish_policy && (r = o->finish_policy(o->finish_userdata, p, reterr)) < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

static int launch_tool_build(const struct cordon_tool_sandbox *sb, const struct cordon_launch_tool_opts *o,
			     enum cordon_launch_stage *stage, struct cordon_launch **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = NULL;
	const struct cordon_launch_opts finish = { .backend_set = o->backend_set, .backend = o->backend };
	int r;

	if (!sb)
		return error_set(reterr, -EINVAL, "no tool sandbox");
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	/* as cordon_launch_new: the limits (a profile's, here the sandbox's),
	 * then the policy, then the backend and what the limits need */
	*stage = CORDON_LAUNCH_STAGE_PROFILE;
	r = launch_take_limits(l, &sb->limits, reterr);
	if (r < 0)
		return r;
	*stage = CORDON_LAUNCH_STAGE_POLICY;
	r = sandbox_policy(sb, o, &l->policy, reterr);
	if (r < 0)
		return r;
	r = launch_finish(l, &finish, stage, reterr);
	if (r < 0)
		return r;
	/* a tool's sandbox is the native runner's, in full isolation: nothing
	 * less holds its gate */
	if (l->backend.backend != CORDON_BACKEND_NATIVE) {
		*stage = CORDON_LAUNCH_STAGE_BACKEND;
		return error_set(reterr, -EOPNOTSUPP,
				 "it needs the native runner (the execute-only gate, the broker); the selected backend "
				 "is %s",
				 cordon_backend_to_string(l->backend.backend));
	}
	*ret = TAKE_PTR(l);
	return 0;
}

CORDON_API int cordon_launch_new_tool(const struct cordon_tool_sandbox *sb, const struct cordon_launch_tool_opts *opts,
				      struct cordon_launch **ret, struct cordon_error *reterr)
{
	struct cordon_launch_tool_opts o;
	enum cordon_launch_stage stage = CORDON_LAUNCH_STAGE_OPTIONS;
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the launch");
	r = opts_take(opts, LAUNCH_TOOL_OPTS_SIZE_1, &o, sizeof(o), "cordon_launch_tool_opts", reterr);
	if (r < 0)
		return r;
	r = launch_tool_build(sb, &o, &stage, ret, reterr);
	if (r < 0 && o.failed_stage)
		*o.failed_stage = stage;
	return r;
}
