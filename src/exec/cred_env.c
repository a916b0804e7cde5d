/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The consumer's git credential helper in its environment (see cred_env.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cred_env.h"
#include "credtable.h"

int cred_env_add(char **envp, size_t k)
{
	static const char name[] = CREDTABLE_GIT_HELPER_ENV "=";
	const char *helper = NULL;
	char *value;

	for (size_t i = 0; i < k && !helper; i++)
		if (strncmp(envp[i], name, sizeof(name) - 1) == 0)
			helper = envp[i] + sizeof(name) - 1;
	if (!helper || !*helper)
		return (int)k;
	if (asprintf(&value, "GIT_CONFIG_VALUE_1=%s", helper) < 0)
		return -ENOMEM;
	envp[k++] = (char *)"GIT_CONFIG_COUNT=2";
	envp[k++] = (char *)"GIT_CONFIG_KEY_0=credential.helper";
	envp[k++] = (char *)"GIT_CONFIG_VALUE_0=";
	envp[k++] = (char *)"GIT_CONFIG_KEY_1=credential.helper";
	envp[k++] = value; /* lives as long as the process */
	envp[k] = NULL;
	return (int)k;
}
