/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command's environment: the built-in allow-list, the --keep-env names
 * and patterns, and the --setenv names, every value read from our own
 * environment now (the first occurrence, as getenv(3) sees it), so no value
 * is ever in a command line. A --setenv name we do not have is an error:
 * the caller asked for it. Loader and interpreter injection variables never
 * pass, whatever pattern matched. One allocation; the strings are not copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "cred_env.h"
#include "errbuf.h"
#include "netproxy.h"
#include "policy.h"
#include "protect_names.h"
#include "runner.h"
#include "trust.h"

/* name[0..len) of NAME=VALUE. */
static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && b[n] == '=';
}

static bool is_setenv_name(const struct plan *p, const char *name)
{
	for (size_t j = 0; p->setenv && p->setenv[j]; j++)
		if (strcmp(p->setenv[j], name) == 0)
			return true;
	return false;
}

int env_build(const struct plan *p, char *const *environ_in, char ***ret, char *err, size_t errlen)
{
	size_t n_env = 0, k = 0;
	char **envp;

	while (environ_in && environ_in[n_env])
		n_env++;
	envp = calloc(n_env + 3 + POLICY_PROXY_ENV_MAX + TRUST_ENV_MAX + CRED_ENV_MAX, sizeof(char *));
	if (!envp)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");

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
		if (!env_name_matches_any(policy_default_env, name) && !env_name_matches_any(p->keep_env, name) &&
		    !is_setenv_name(p, name))
			continue;
		if (env_name_is_injection(name))
			continue;
		if ((p->net == CORDON_NET_PROXY || p->net == CORDON_NET_ALLOW) && env_name_is_proxy(name))
			continue; /* ours win */
		if (p->protect_git && strcmp(name, "GIT_TEMPLATE_DIR") == 0)
			continue; /* ours wins, below */
		if (p->credentials_fd >= 0 && env_name_is_trust(name))
			continue;
		/* the first occurrence wins, as getenv(3) sees it */
		for (size_t j = 0; j < k && !dup; j++)
			dup = same_name(envp[j], e);
		if (!dup)
			envp[k++] = (char *)e;
	}
	/* git init and clone copy no templates: their hooks/ could never be
	 * made (the write gate refuses it), and with none git makes neither
	 * hooks/ nor info/ at all. An empty value, git's own "no templates",
	 * overrides init.templateDir and needs no directory of ours. */
	if (p->protect_git)
		envp[k++] = (char *)PROTECT_GIT_ENV;
	envp[k] = NULL;
	if (p->net == CORDON_NET_PROXY || p->net == CORDON_NET_ALLOW)
		k = netproxy_env_add(envp, k);
	if (p->credentials_fd >= 0) {
		int n;

		k = trust_env_add(envp, k);
		n = cred_env_add(envp, k);
		if (n < 0) {
			free(envp);
			return errbuf_set(err, errlen, n, "out of memory");
		}
		k = (size_t)n;
	}
	if (p->broker_fd >= 0) {
		/* the shims first on PATH: a controlled command by name is the broker's */
		size_t at = k;
		char *path;

		for (size_t i = 0; i < k && at == k; i++)
			if (strncmp(envp[i], "PATH=", 5) == 0)
				at = i;
		path = broker_path_entry(at < k ? envp[at] + 5 : NULL);
		if (!path) {
			free(envp);
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		}
		envp[at] = path; /* lives as long as the process */
		if (at == k)
			envp[++k] = NULL;
	}
	for (size_t j = 0; p->setenv && p->setenv[j]; j++) {
		bool found = false;

		for (size_t i = 0; i < k && !found; i++)
			found = strncmp(envp[i], p->setenv[j], strlen(p->setenv[j])) == 0 &&
				envp[i][strlen(p->setenv[j])] == '=';
		if (!found) {
			free(envp);
			return errbuf_set(err, errlen, -ENOENT,
					  "--setenv %s: not in the runner's environment (the value travels there, "
					  "never in the command line)", p->setenv[j]);
		}
	}
	*ret = envp;
	return 0;
}

const char *env_request_refused(const struct plan *p, const char *name)
{
	const char *why = env_name_never_set(name);

	if (why)
		return why;
	if (strncmp(name, "CORDON_", 7) == 0)
		return "cordon's own variable";
	if (is_setenv_name(p, name))
		return "set by the policy (--setenv)";
	if (!env_name_matches_any(policy_default_env, name) && !env_name_matches_any(p->keep_env, name))
		return "not in the policy's environment allow-list (--keep-env NAME lets it through)";
	return NULL;
}
