/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon profile show --effective NAME`: the lists a run applies, read
 * from the policy `cordon run --profile NAME` would build (the profile, the
 * built-in catalogue, HOME, the workspace, the environment), not from the
 * profile's text: what is hidden, what stays read-only, the write gate's
 * rules by name (as native.c passes them to the runner), the environment.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "policy.h"
#include "strv.h"

#define say cli_say

/* The write gate's git rule, in words (protect_names.h: protect_match_git). */
static const char git_rule[] =
	"a .git entry, and inside one config, config.worktree, commondir, gitdir, hooks/, info/ "
	"(not objects, refs, logs)";

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	STRV_FOREACH(s, (char **)v)
		json_array_append_new(a, json_string(*s));
	return a;
}

static json_t *effective_json(const struct cordon_profile *prof, const struct cordon_policy *p)
{
	json_t *deny = json_array(), *names = json_array(), *lifted = strv_json(p->unprotect);
	bool full = p->isolation == CORDON_ISOLATION_FULL && p->mode == CORDON_MODE_WORKSPACE_WRITE;

	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];
		const char *native = deny_entry_native_path(p, d);

		json_array_append_new(deny, json_pack("{s:s,s:b,s:s?,s:b,s:b}", "path", d->path, "exists", d->exists,
						      "hidden_at", native, "applies", native != NULL,
						      "only_without_network", d->only_without_net));
	}
	for (size_t i = 0; full && policy_default_protect[i]; i++)
		if (policy_protect_is_name(policy_default_protect[i]))
			json_array_append_new(names, json_string(policy_default_protect[i]));
	STRV_FOREACH(root, p->writable_roots)
		if (full && policy_home_cache_root(p->home, *root))
			json_array_append_new(lifted, json_string(*root));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:o,s:o,s:o,s:{s:b,s:s?,s:o,s:o},s:o,s:o,s:o}", "profile",
			 prof->name, "file", prof->file, "mode", cordon_mode_to_string(p->mode), "network",
			 cordon_net_to_string(p->net), "isolation", cordon_isolation_to_string(p->isolation), "workspace",
			 p->workspace, "home", p->home, "writable_roots", strv_json(p->writable_roots), "read_deny", deny,
			 "protected", strv_json(p->protect), "write_gate", "applies", full, "git", full ? git_rule : NULL,
			 "names", names, "lifted", lifted, "allow_unix_sockets", strv_json(p->allow_unix), "environment",
			 strv_json(p->env), "keep_env", strv_json(p->keep_env));
}

static void print_list(const char *title, char *const *v)
{
	printf("%s:%s\n", title, v && v[0] ? "" : " none");
	STRV_FOREACH(s, (char **)v)
		printf("  %s\n", *s);
}

int cli_profile_effective(const struct cli_args *a, const struct cordon_profile *prof)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	bool full;
	int r;

	r = cli_build_policy(a, prof, &p);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = effective_json(prof, p);

		if (!o) {
			say("cannot encode the effective policy as JSON");
			return CLI_EXIT_REFUSED;
		}
		return cli_print_json(o) < 0 ? CLI_EXIT_REFUSED : 0;
	}
	full = p->isolation == CORDON_ISOLATION_FULL && p->mode == CORDON_MODE_WORKSPACE_WRITE;
	printf("profile %s (%s), as `cordon run --profile %s` would apply it here\n", prof->name, prof->file, prof->name);
	printf("mode %s, network %s, isolation %s\n", cordon_mode_to_string(p->mode), cordon_net_to_string(p->net),
	       cordon_isolation_to_string(p->isolation));
	printf("workspace: %s\nhome: %s\n", p->workspace ?: "(none)", p->home ?: "(unknown)");
	print_list("writable roots", p->writable_roots);
	printf("read-deny (hidden; the native runner hides a missing entry from its first missing component):%s\n",
	       p->n_deny ? "" : " none");
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];
		const char *native = deny_entry_native_path(p, d);

		if (!native)
			printf("  %s (not hidden: %s)\n", d->path,
			       d->only_without_net ? "a service socket, reachable under --net host" : "does not exist");
		else if (strcmp(native, d->path) != 0)
			printf("  %s (missing: hidden at %s)\n", d->path, native);
		else
			printf("  %s\n", d->path);
	}
	print_list("protected (read-only, existing or not)", p->protect);
	if (full) {
		printf("write gate, by name (native runner, at any depth below a writable root, not below node_modules):\n");
		printf("  git: %s\n", git_rule);
		printf("  names:");
		for (size_t i = 0; policy_default_protect[i]; i++)
			if (policy_protect_is_name(policy_default_protect[i]))
				printf(" %s", policy_default_protect[i]);
		printf("\n  lifted (no rule by name at or below):");
		bool any = false;
		STRV_FOREACH(u, p->unprotect) {
			printf(" %s", *u);
			any = true;
		}
		STRV_FOREACH(root, p->writable_roots)
			if (policy_home_cache_root(p->home, *root)) {
				printf(" %s", *root);
				any = true;
			}
		printf("%s\n", any ? "" : " none");
	} else
		printf("write gate: not applied (%s)\n",
		       p->mode != CORDON_MODE_WORKSPACE_WRITE ? "nothing is writable to gate" : "light isolation");
	print_list("unix sockets allowed", p->allow_unix);
	print_list("environment (passed into the sandbox)", p->env);
	print_list("also kept from the caller's environment", p->keep_env);
	fflush(stdout);
	return 0;
}
