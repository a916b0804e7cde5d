/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command's environment: the built-in allow-list, the --keep-env names
 * and patterns (values read from our own environment now, so they never
 * appear in a command line), then --setenv entries, which win. Loader and
 * interpreter injection variables never pass, whatever pattern matched.
 * One allocation; the strings are not copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "runner.h"

static bool name_matches_any(const char *const *patterns, const char *name)
{
	for (size_t i = 0; patterns && patterns[i]; i++)
		if (env_name_matches(patterns[i], name))
			return true;
	return false;
}

/* name[0..len) of NAME=VALUE. */
static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && b[n] == '=';
}

int env_build(const struct plan *p, char *const *environ_in, char ***ret)
{
	size_t n_env = 0, n_set = 0, k = 0;
	char **envp;

	while (environ_in && environ_in[n_env])
		n_env++;
	while (p->setenv && p->setenv[n_set])
		n_set++;
	envp = calloc(n_env + n_set + 1, sizeof(char *));
	if (!envp)
		return -ENOMEM;

	for (size_t i = 0; i < n_env; i++) {
		const char *e = environ_in[i], *eq = strchr(e, '=');
		char name[EXEC_MAX_NAME + 1];
		size_t nl;
		bool dup = false;

		if (!eq || eq == e || (size_t)(eq - e) > EXEC_MAX_NAME)
			continue;
		nl = (size_t)(eq - e);
		memcpy(name, e, nl);
		name[nl] = '\0';
		if (!name_matches_any(policy_default_env, name) && !name_matches_any(p->keep_env, name))
			continue;
		if (env_name_is_injection(name))
			continue;
		for (size_t j = 0; j < n_set && !dup; j++)
			dup = same_name(p->setenv[j], e);
		/* the first occurrence wins, as getenv(3) sees it */
		for (size_t j = 0; j < k && !dup; j++)
			dup = same_name(envp[j], e);
		if (!dup)
			envp[k++] = (char *)e;
	}
	for (size_t j = 0; j < n_set; j++)
		envp[k++] = (char *)p->setenv[j];
	envp[k] = NULL;
	*ret = envp;
	return 0;
}
