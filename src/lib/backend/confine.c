/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "error.h"
#include "probe.h"
#include "provider.h"
#include "strv.h"

/* Caps on the command being confined. */
#define CONFINE_MAX_ARGS 65536
#define CONFINE_MAX_ARG_BYTES (2u * 1024 * 1024)

CORDON_API char **cordon_strv_free(char **v)
{
	return strv_free(v);
}

void confined_clear(struct cordon_confined *c)
{
	strv_free(c->argv);
	strv_free(c->denial_signatures);
	strv_free(c->fatal_signatures);
	strv_free(c->informational_lines);
	free(c->allowed_exit_codes);
	strv_free(c->envp);
}

CORDON_API struct cordon_confined *cordon_confined_free(struct cordon_confined *c)
{
	if (!c)
		return NULL;
	confined_clear(c);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_confined *, cordon_confined_free)

CORDON_API int cordon_merge_stderr(const char *const *argv, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	int r;

	if (!argv || !argv[0] || !ret)
		return -EINVAL;
	/* A fixed script; the real argv travels as positional parameters, so
	 * nothing in it is ever parsed by the shell. */
	r = strv_extend_many(&v, "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", NULL);
	if (r < 0)
		return r;
	r = strv_extend_strv(&v, argv);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(v);
	return 0;
}

static int check_argv(const char *const *argv, struct cordon_error *reterr)
{
	size_t n = 0, bytes = 0;

	if (!argv || !argv[0])
		return error_set(reterr, -EINVAL, "no command to confine");
	if (!argv[0][0])
		return error_set(reterr, -EINVAL, "the command name is empty");
	for (; argv[n]; n++) {
		bytes += strlen(argv[n]) + 1;
		if (n >= CONFINE_MAX_ARGS || bytes > CONFINE_MAX_ARG_BYTES)
			return error_set(reterr, -E2BIG, "the command line is too long (at most %d arguments, %u bytes)",
					 CONFINE_MAX_ARGS, CONFINE_MAX_ARG_BYTES);
	}
	return 0;
}

int confine_refuse_unavailable(const struct cordon_policy *p, const struct cordon_backend_info *backend,
			       struct cordon_error *reterr)
{
	char why[512] = "";

	if (!backend->pinned)
		probe_fallback_reason(why, sizeof(why));
	return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE,
			 "no sandbox backend can enforce %s mode on this host, so nothing was run%s%s%s: "
			 "install bubblewrap (apt-get install bubblewrap), run `cordon probe` to see why each backend is unusable, "
			 "or choose --mode danger-full-access explicitly",
			 cordon_mode_to_string(p->mode), why[0] ? " (" : "", why, why[0] ? ")" : "");
}

CORDON_API int cordon_confine_with(const struct cordon_backend_info *backend,
				   const char *const *argv, const struct cordon_policy *p,
				   struct cordon_confined **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cordon_backend_info light_backend;
	const struct provider *prov;
	int r;

	if (!backend || !p || !ret)
		return error_set(reterr, -EINVAL, "missing backend, policy or result");
	r = check_argv(argv, reterr);
	if (r < 0)
		return r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->mode = p->mode;

	/* The broker's socket is a sandbox's identity only in a sandbox. */
	if (p->shim_path && p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EOPNOTSUPP,
				 "the tool sandbox's broker needs a sandbox: danger-full-access has none");
	/* Nothing is enforced, the network included: the proxy's rules could
	 * not hold, and the command would reach the host's network. */
	if ((p->net == CORDON_NET_PROXY || p->net == CORDON_NET_ALLOW) && p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EINVAL,
				 "network 'proxy' with mode danger-full-access: that mode enforces nothing, so the "
				 "command would run with the host's network; refused");
	/* Asking for no confinement is explicit and never reaches a provider. */
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS) {
		c->argv = strv_copy(argv);
		c->denial_signatures = calloc(1, sizeof(char *));
		c->fatal_signatures = calloc(1, sizeof(char *));
		c->informational_lines = calloc(1, sizeof(char *));
		if (!c->argv || !c->denial_signatures || !c->fatal_signatures || !c->informational_lines)
			return -ENOMEM;
		c->enforcement = CORDON_ENFORCEMENT_NONE;
		c->grade = CORDON_GRADE_FULL;
		c->status_fd = -1;
		c->exec_fd = -1;
		*ret = TAKE_PTR(c);
		return 0;
	}

	/* Light isolation is a mode of the native runner, and an explicit
	 * opt-in: it needs no user namespace, so whatever the probe picked for
	 * full isolation does not decide it (a pinned backend still does). */
	if (p->isolation == CORDON_ISOLATION_LIGHT && backend->backend != CORDON_BACKEND_NATIVE && !backend->pinned) {
		light_backend = (struct cordon_backend_info){ .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_PARTIAL };
		snprintf(light_backend.path, sizeof(light_backend.path), "%s", cordon_runner_path());
		backend = &light_backend;
	}
	/* A fallback below the grade the caller accepts is a silent degrade:
	 * refused, naming why the best backend was passed over (a pinned
	 * backend and light isolation are explicit choices). */
	if (!backend->pinned && p->isolation != CORDON_ISOLATION_LIGHT &&
	    backend->backend != CORDON_BACKEND_UNAVAILABLE && backend->backend != cordon_backend_chain()[0] &&
	    backend->grade > p->min_grade) {
		char why[512], gaps[512];

		probe_fallback_reason(why, sizeof(why));
		(void)cordon_backend_gaps(backend, gaps, sizeof(gaps));
		return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE,
				 "the %s backend is unusable here (%s), and nothing was run rather than fall back to "
				 "%s, graded partial: accept that explicitly (cordon_policy_require_grade(policy, "
				 "CORDON_GRADE_PARTIAL); cordon run --backend %s), or install cordon's runner where "
				 "libcordon looks or set CORDON_RUNNER. %s lacks: %s",
				 cordon_backend_to_string(cordon_backend_chain()[0]), why[0] ? why : "its probe failed",
				 cordon_backend_to_string(backend->backend), cordon_backend_to_string(backend->backend),
				 cordon_backend_to_string(backend->backend), gaps[0] ? gaps : "reduced fencing");
	}
	prov = provider_for(backend->backend);
	if (!prov)
		return confine_refuse_unavailable(p, backend, reterr);

	r = prov->confine(backend, argv, p, c, reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

CORDON_API int cordon_confine(const char *const *argv, const struct cordon_policy *p,
			      struct cordon_confined **ret, struct cordon_error *reterr)
{
	struct cordon_backend_info info;
	int r;

	if (p && p->mode != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = cordon_backend_select(0, &info);
		if (r < 0)
			return error_set(reterr, r, "cannot select a sandbox backend: %s", strerror(-r));
	} else
		info = (struct cordon_backend_info){ .backend = CORDON_BACKEND_UNAVAILABLE };
	return cordon_confine_with(&info, argv, p, ret, reterr);
}
