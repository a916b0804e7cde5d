/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox a credential capture runs in (capture_sandbox.h): its
 * command's executable closure executable and nothing else, its `read`
 * grants over the read baseline, nothing writable, its own network, no
 * proxy variable. The supervisor spawns it (src/supervisor/capture.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_sandbox.h"
#include "cleanup.h"
#include "error.h"
#include "exec_closure.h"
#include "launch.h"
#include "path.h"
#include "provider.h"
#include "strv.h"

/* The variables that would send the capture through a proxy (cordon's
 * own, or one the host set): the capture talks to its service directly. */
static const char *const proxy_vars[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY",
	"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy",
};

/* argv[0] as an absolute path: itself, or found on path_env. */
static int find_command(const char *name, const char *path_env, char **ret)
{
	_cleanup_free_ char *dirs = NULL;
	char *save = NULL;

	if (name[0] == '/')
		return (*ret = strdup(name)) ? 0 : -ENOMEM;
	if (!(dirs = strdup(path_env && path_env[0] ? path_env : "/usr/local/bin:/usr/bin:/bin")))
		return -ENOMEM;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *p = NULL;

		if (d[0] != '/')
			continue; /* a relative PATH entry is the caller's cwd: never */
		if (!(p = path_join(d, name)))
			return -ENOMEM;
		if (access(p, X_OK) == 0) {
			*ret = TAKE_PTR(p);
			return 0;
		}
	}
	return -ENOENT;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct exec_closure *, exec_closure_free)

static int capture_launch(const struct tool_capture *cap, const char *exe, const char *path_env,
			  struct cordon_launch **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	_cleanup_(exec_closure_freep) struct exec_closure *closure = NULL;
	_cleanup_strv_free_ char **files = NULL;
	struct cordon_error e = {};
	int r;

	/* the capture is given no workspace: the current directory's grants
	 * are nothing to a tool's policy, but "/" is refused as a workspace */
	{
		char cwd[4096];

		r = cordon_policy_new_tool(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") != 0 ? NULL : "/tmp", &p,
					   reterr);
	}
	if (r < 0)
		return r;
	for (char **s = cap->read; *s; s++)
		if ((r = cordon_policy_restrict_read(p, *s, reterr)) < 0)
			return r;
	if ((r = exec_closure_new(&closure)) < 0 ||
	    (r = exec_closure_of(closure, exe, path_env, &files, &e)) < 0)
		return error_set(reterr, r, "%s: %s", exe, e.message[0] ? e.message : strerror(-r));
	for (char **s = files; *s; s++)
		if ((r = cordon_policy_allow_exec(p, *s, reterr)) < 0)
			return r;
	if ((r = cordon_policy_set_net(p, profile_net_to_public(cap->net))) < 0)
		return error_set(reterr, r, "not a network mode");
	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++)
		for (char **s = cap->net_rules[k]; *s; s++)
			if ((r = cordon_policy_add_net_rule(p, (enum cordon_net_rule)k, *s, reterr)) < 0)
				return r;
	for (size_t i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++)
		if ((r = cordon_policy_withhold_env(p, proxy_vars[i], reterr)) < 0)
			return r;
	{
		/* no limits of its own: the supervisor ends it at its timeout */
		struct cordon_profile_limits none = {};

		r = launch_new_from_policy(TAKE_PTR(p), &none, ret, reterr);
	}
	if (r < 0)
		return r;
	return 0;
}

int capture_sandbox_new(const struct tool_capture *cap, const char *path_env, char **ret_exe,
			struct cordon_launch **ret, struct cordon_error *reterr)
{
	_cleanup_free_ char *exe = NULL;
	int r;

	r = find_command(cap->command[0], path_env, &exe);
	if (r < 0)
		return error_set(reterr, r, "%s is not found", cap->command[0]);
	r = capture_launch(cap, exe, path_env, ret, reterr);
	if (r < 0)
		return r;
	*ret_exe = TAKE_PTR(exe);
	return 0;
}
