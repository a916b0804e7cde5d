/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_policy_set_broker: the tool sandbox's broker on a policy (the
 * native runner's --broker-fd, --shim-path and --shim; src/exec/broker.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "broker_proto.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "policy.h"
#include "strv.h"

CORDON_API int cordon_policy_set_credentials(struct cordon_policy *p)
{
	if (!p)
		return -EINVAL;
	p->credentials = true;
	return 0;
}

CORDON_API int cordon_policy_set_broker(struct cordon_policy *p, const char *shim_path,
					const char *const *commands, struct cordon_error *reterr)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_strv_free_ char **names = NULL;
	int r;

	if (!p || !shim_path)
		return error_set(reterr, -EINVAL, "no policy or no shim");
	if (shim_path[0] != '/')
		return error_set(reterr, -EINVAL, "the shim must be an absolute path, not \"%.200s\"", shim_path);
	r = cordon_canonicalize(shim_path, &path, reterr);
	if (r < 0)
		return r;
	names = calloc(1, sizeof(char *));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; commands && commands[i]; i++) {
		if (i >= POLICY_MAX_ENTRIES)
			return error_set(reterr, -E2BIG, "more than %d commands behind the broker", POLICY_MAX_ENTRIES);
		if (!broker_name_valid(commands[i]))
			return error_set(reterr, -EINVAL, "\"%.200s\" is not a command name", commands[i]);
		r = strv_push_unique(&names, commands[i]);
		if (r < 0)
			return r;
	}
	free(p->shim_path);
	p->shim_path = TAKE_PTR(path);
	strv_free(p->shims);
	p->shims = TAKE_PTR(names);
	return 0;
}
