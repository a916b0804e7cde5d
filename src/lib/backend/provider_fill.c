/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every provider's confine fills in the same way (provider.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "provider.h"
#include "strv.h"

int confined_fill(struct cordon_confined *c, char ***argv, const char *const *denials,
		  const char *const *fatals, const char *const *informational, enum cordon_enforcement e,
		  enum cordon_grade g)
{
	static const char *const none[] = { NULL };
	_cleanup_strv_free_ char **d = strv_copy(denials), **f = strv_copy(fatals),
				 **info = strv_copy(informational ?: none);

	if (!d || !f || !info)
		return -ENOMEM;
	c->denial_signatures = TAKE_PTR(d);
	c->fatal_signatures = TAKE_PTR(f);
	c->informational_lines = TAKE_PTR(info);
	c->argv = TAKE_PTR(*argv);
	c->enforcement = e;
	c->grade = g;
	c->status_fd = -1;
	c->status_format = CORDON_STATUS_NONE;
	c->exec_fd = -1;
	return 0;
}

int confined_set_channel(struct cordon_confined *c, char *const *envp, int status_fd,
			 enum cordon_status_format format)
{
	static char *const empty[] = { NULL };
	char **copy = strv_copy((const char *const *)(envp ?: empty));

	if (!copy)
		return -ENOMEM;
	strv_free(c->envp);
	c->envp = copy;
	c->status_fd = status_fd;
	c->status_format = format;
	return 0;
}

const char *policy_needs_native(const struct cordon_policy *p)
{
	if (p->read_restricted)
		return "restricted reads";
	if (p->exec_gate)
		return "the execute-only gate";
	if (p->deny_exec)
		return "deny-exec";
	if (p->exec_from_fd)
		return "running the command from an fd";
	if (p->shim_path)
		return "the tool sandbox's broker";
	if (p->credentials)
		return "a credential proxy";
	/* bwrap's --tmpfs would hide HOME, but a grant below it that the
	 * host replaces by rename, or a store made during the run in a
	 * grant, has no Landlock behind it there: refused, not weakened */
	if (p->home_policy == CORDON_HOME_ALLOWLIST)
		STRV_FOREACH(h, p->home_hidden)
			if (policy_home_applies(p, *h))
				return "the HOME allowlist";
	return "";
}
