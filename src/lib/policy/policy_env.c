/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy's environment: which names a caller may never set (loader and
 * interpreter injection), which cordon owns (its proxy variables among
 * them, and the trust variables of a credential's consumer), what a valid
 * name is, and the snapshot of the caller's environment
 * a policy keeps, taken in one walk.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cordon/cordon.h"
#include "policy.h"
#include "strv.h"

extern char **environ;

/* Caps on what one policy may hold (attacker-influenced via flags/profiles). */
#define ENV_VALUE_MAX POLICY_ENV_VALUE_MAX

/* Variables that make a loader or interpreter run code the caller chose. */
static const char *const injection_env[] = {
	"LD_*",
	"DYLD_*",
	"GCONV_PATH",
	"HOSTALIASES",
	"LOCPATH",
	"NLSPATH",
	"MALLOC_*",
	"GLIBC_TUNABLES",
	"PYTHONPATH",
	"PYTHONHOME",
	"PYTHONSTARTUP",
	"PYTHONUSERBASE",
	"PYTHONBREAKPOINT",
	"NODE_OPTIONS",
	"NODE_PATH",
	"PERL5OPT",
	"PERL5LIB",
	"PERLLIB",
	"PERL5DB",
	"RUBYOPT",
	"RUBYLIB",
	"BASH_ENV",
	"ENV",
	"BASH_FUNC_*",
	"PROMPT_COMMAND",
	"SHELLOPTS",
	"BASHOPTS",
	"PS4",
	"IFS",
	"JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS",
	"GIT_EXEC_PATH",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
	"GIT_CONFIG_KEY_*",
	"GIT_CONFIG_VALUE_*",
	"GIT_SSH",
	"GIT_SSH_COMMAND",
	"GIT_ASKPASS",
	"SSH_ASKPASS",
	NULL,
};

/* Set by cordon inside every sandbox, so scripts and test suites can tell
 * (as Codex's CODEX_SANDBOX): never the host's value, never the caller's. */
static const char *const owned_env[] = {
	"CORDON_SANDBOX",
	"CORDON_SANDBOX_MODE",
	NULL,
};

/* The proxy's addresses inside the sandbox, as the runner's listeners
 * bind them (netproxy.h); the sandbox's own loopback stays direct: it is
 * not the host's. */
#define PROXY_STR_(x) #x
#define PROXY_STR(x) PROXY_STR_(x)
#define PROXY_PORT PROXY_STR(POLICY_PROXY_HTTP_PORT)
#define HTTP_URL "http://127.0.0.1:" PROXY_PORT
#define SOCKS_URL "socks5h://127.0.0.1:" PROXY_STR(POLICY_PROXY_SOCKS_PORT)
#define LOCAL "localhost,127.0.0.1,::1"

/* The one list of proxy variables: the runner sets each (netproxy_env_add)
 * in a sandbox whose way out is cordon's proxy, and neither a profile nor a
 * caller may set one (env_name_is_proxy). */
const char *const policy_proxy_env[] = {
	"HTTP_PROXY=" HTTP_URL,
	"HTTPS_PROXY=" HTTP_URL,
	"ALL_PROXY=" SOCKS_URL,
	"NO_PROXY=" LOCAL,
	"http_proxy=" HTTP_URL,
	"https_proxy=" HTTP_URL,
	"all_proxy=" SOCKS_URL,
	"no_proxy=" LOCAL,
	/* Node's built-in fetch reads the variables only when told to */
	"NODE_USE_ENV_PROXY=1",
	/* the JVM reads none of them */
	"JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" PROXY_PORT " -Dhttps.proxyHost=127.0.0.1 "
	"-Dhttps.proxyPort=" PROXY_PORT " -Dhttp.nonProxyHosts=localhost|127.0.0.1",
	NULL,
};

_Static_assert(sizeof(policy_proxy_env) / sizeof(policy_proxy_env[0]) <= POLICY_PROXY_ENV_MAX,
	       "room for the variables");

/* In any case: Python's urllib reads Http_Proxy as http_proxy. */
bool env_name_is_proxy(const char *name)
{
	size_t n = strcspn(name, "=");

	for (size_t i = 0; policy_proxy_env[i]; i++)
		if (strncasecmp(policy_proxy_env[i], name, n) == 0 && policy_proxy_env[i][n] == '=')
			return true;
	return false;
}

const char *env_name_never_set(const char *name)
{
	if (env_name_is_injection(name))
		return "it makes a loader or interpreter run code chosen from outside";
	if (env_name_is_cordon_owned(name))
		return "cordon sets it in the sandbox";
	if (env_name_is_proxy(name))
		return "cordon sets it itself: " POLICY_PROXY_ENV_WHY;
	return NULL;
}

/* The one list of trust variables: the runner sets each (trust_env_add)
 * for a consumer of a credential, and the profile loader refuses a
 * set_vars naming one for such a consumer (profile_resolve_creds.c). */
const char *const policy_trust_env[] = {
	"SSL_CERT_FILE=" POLICY_TRUST_BUNDLE,
	"SSL_CERT_DIR=/etc/ssl/certs",
	"REQUESTS_CA_BUNDLE=" POLICY_TRUST_BUNDLE,
	"CURL_CA_BUNDLE=" POLICY_TRUST_BUNDLE,
	"GIT_SSL_CAINFO=" POLICY_TRUST_BUNDLE,
	"PIP_CERT=" POLICY_TRUST_BUNDLE,
	"CARGO_HTTP_CAINFO=" POLICY_TRUST_BUNDLE,
	"AWS_CA_BUNDLE=" POLICY_TRUST_BUNDLE,
	/* these two add to the client's built-in roots: the CA alone */
	"NODE_EXTRA_CA_CERTS=" POLICY_TRUST_CA_FILE,
	"DENO_CERT=" POLICY_TRUST_CA_FILE,
	NULL,
};

_Static_assert(sizeof(policy_trust_env) / sizeof(policy_trust_env[0]) <= POLICY_TRUST_ENV_MAX,
	       "room for the variables");

bool env_name_is_trust(const char *name)
{
	size_t n = strcspn(name, "=");

	for (size_t i = 0; policy_trust_env[i]; i++)
		if (strncmp(policy_trust_env[i], name, n) == 0 && policy_trust_env[i][n] == '=')
			return true;
	return false;
}

bool env_name_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);

	if (n > 0 && pattern[n - 1] == '*')
		return strncmp(pattern, name, n - 1) == 0;
	return strcmp(pattern, name) == 0;
}

bool env_name_matches_any(const char *const *patterns, const char *name)
{
	for (size_t i = 0; patterns && patterns[i]; i++)
		if (env_name_matches(patterns[i], name))
			return true;
	return false;
}

bool env_name_is_injection(const char *name)
{
	for (size_t i = 0; injection_env[i]; i++)
		if (env_name_matches(injection_env[i], name))
			return true;
	return false;
}

bool env_name_is_tool_owned(const char *name)
{
	return env_name_matches_any(policy_tool_owned_env, name);
}

bool env_name_is_cordon_owned(const char *name)
{
	size_t n = strcspn(name, "=");

	for (size_t i = 0; owned_env[i]; i++)
		if (strlen(owned_env[i]) == n && strncmp(owned_env[i], name, n) == 0)
			return true;
	return false;
}

bool env_name_valid(const char *name, bool allow_glob)
{
	size_t n = strnlen(name, ENV_NAME_MAX + 1);

	if (n == 0 || n > ENV_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch == '*' && allow_glob && i == n - 1)
			continue;
		if (!(isalnum(ch) || ch == '_') || (i == 0 && isdigit(ch)))
			return false;
	}
	return true;
}

/* ---- environment ---- */

/* Does the name n bytes long at name match pattern (a name, or a prefix
 * ending in '*')? name need not end there (a "NAME=value" entry). */
static bool env_name_n_matches(const char *pattern, const char *name, size_t n)
{
	size_t pl = strlen(pattern);

	if (pl > 0 && pattern[pl - 1] == '*')
		return n >= pl - 1 && memcmp(pattern, name, pl - 1) == 0;
	return pl == n && memcmp(pattern, name, n) == 0;
}

/* The index of the first of patterns that the name n bytes long at name
 * matches, or the number of patterns. */
static size_t env_first_match(const char *const *patterns, const char *name, size_t n)
{
	size_t i = 0;

	while (patterns[i] && !env_name_n_matches(patterns[i], name, n))
		i++;
	return i;
}

/* Append to *env the entries of environ whose names match one of patterns,
 * in the patterns' order and then environ's; a name already in *env, or
 * set twice, keeps its first place and takes the last value. One pass over
 * environ, not one per pattern. */
int policy_env_snapshot(char ***env, const char *const *patterns)
{
	struct env_kept {
		const char *entry;
		size_t name_len, pattern;
	};
	_cleanup_free_ struct env_kept *kept = NULL;
	size_t n_environ = 0, n_kept = 0, n_patterns = 0;
	int r;

	while (patterns[n_patterns])
		n_patterns++;
	for (char **e = environ; e && *e; e++)
		n_environ++;
	if (n_environ == 0)
		return 0;
	kept = calloc(n_environ, sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t nl, i;

		if (!eq || eq == *e)
			continue;
		nl = (size_t)(eq - *e);
		i = env_first_match(patterns, *e, nl);
		if (!patterns[i] || injection_env[env_first_match(injection_env, *e, nl)] ||
		    env_name_is_cordon_owned(*e))
			continue;
		if (strlen(eq + 1) > ENV_VALUE_MAX)
			continue;
		kept[n_kept++] = (struct env_kept){ .entry = *e, .name_len = nl, .pattern = i };
	}
	for (size_t i = 0; i < n_patterns; i++)
		for (size_t k = 0; k < n_kept; k++) {
			const char *e = kept[k].entry;
			size_t nl = kept[k].name_len;
			bool replaced = false;

			if (kept[k].pattern != i)
				continue;
			/* replace an earlier value for the same name */
			for (char **x = *env; x && *x; x++)
				if (strncmp(*x, e, nl) == 0 && (*x)[nl] == '=') {
					char *c = strdup(e);
					if (!c)
						return -ENOMEM;
					free(*x);
					*x = c;
					replaced = true;
					break;
				}
			if (replaced)
				continue;
			if (strv_length(*env) >= POLICY_MAX_ENTRIES)
				return -E2BIG;
			r = strv_push(env, e);
			if (r < 0)
				return r;
		}
	return 0;
}
