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
#include "strv.h"

#define say cli_say

/* The write gate's git rule, in words (protect_names.h: protect_match_git). */
static const char git_rule[] =
	"a .git entry, and inside one config, config.worktree, commondir, gitdir, hooks/, info/ "
	"(not objects, refs, logs)";

/* The policy's lists (cordon_policy_list), each a copy the view owns. */
struct effective_lists {
	char **v[_CORDON_POLICY_LIST_MAX];
};

static void effective_lists_done(struct effective_lists *l)
{
	for (size_t i = 0; i < _CORDON_POLICY_LIST_MAX; i++)
		l->v[i] = cordon_strv_free(l->v[i]);
}

static int effective_lists_read(const struct cordon_policy *p, struct effective_lists *l)
{
	for (size_t i = 0; i < _CORDON_POLICY_LIST_MAX; i++) {
		int r = cordon_policy_list(p, (enum cordon_policy_list)i, &l->v[i]);

		if (r < 0) {
			effective_lists_done(l);
			return r;
		}
	}
	return 0;
}

static json_t *strv_json(const char *const *v)
{
	json_t *a = json_array();

	STRV_FOREACH(s, (char **)v)
		json_array_append_new(a, json_string(*s));
	return a;
}

static json_t *effective_json(const struct cordon_profile_handle *prof, const struct cordon_policy *p,
			      const struct effective_lists *l)
{
	json_t *deny = json_array();
	bool full = cordon_policy_write_gate(p);
	struct cordon_read_deny d;

	for (size_t i = 0; cordon_policy_read_deny(p, i, &d) == 0; i++)
		json_array_append_new(deny, json_pack("{s:s,s:b,s:s?,s:b,s:b}", "path", d.path, "exists", d.exists,
						      "hidden_at", d.hidden_at, "applies", d.hidden_at != NULL,
						      "only_without_network", d.only_without_network));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:{s:s,s:o,s:o,s:o},s:o,s:o,s:o,s:{s:b,s:s?,s:o,s:o},s:o,s:o,s:o}", "profile",
			 cordon_profile_name(prof), "file", cordon_profile_file(prof), "mode", cordon_mode_to_string(cordon_policy_mode(p)),
			 "network", cordon_net_to_string(cordon_policy_net(p)), "isolation",
			 cordon_isolation_to_string(cordon_policy_isolation(p)), "workspace", cordon_policy_workspace(p),
			 "home", cordon_policy_home(p), "home_policy", "policy",
			 cordon_home_to_string(cordon_policy_home_policy(p)), "hidden",
			 strv_json((const char *const *)l->v[CORDON_POLICY_HOME_HIDDEN]), "shown",
			 strv_json((const char *const *)l->v[CORDON_POLICY_HOME_GRANTED]), "filtered",
			 strv_json((const char *const *)l->v[CORDON_POLICY_HOME_FILTERED]), "writable_roots", strv_json(cordon_writable_roots(p)),
			 "read_deny", deny, "protected", strv_json((const char *const *)l->v[CORDON_POLICY_PROTECTED]),
			 "write_gate", "applies", full, "git", full ? git_rule : NULL, "names",
			 strv_json((const char *const *)l->v[CORDON_POLICY_GATE_NAMES]), "lifted",
			 strv_json((const char *const *)l->v[CORDON_POLICY_GATE_LIFTED]), "allow_unix_sockets",
			 strv_json((const char *const *)l->v[CORDON_POLICY_UNIX_SOCKETS]), "environment",
			 strv_json((const char *const *)l->v[CORDON_POLICY_ENV]), "keep_env",
			 strv_json((const char *const *)l->v[CORDON_POLICY_KEEP_ENV]));
}

static void print_list(const char *title, char *const *v)
{
	printf("%s:%s\n", title, v && v[0] ? "" : " none");
	STRV_FOREACH(s, (char **)v)
		printf("  %s\n", *s);
}

static void print_read_deny(const struct cordon_policy *p)
{
	struct cordon_read_deny d;
	bool any = cordon_policy_read_deny(p, 0, &d) == 0;

	printf("read-deny (hidden; the native runner hides a missing entry from its first missing component):%s\n",
	       any ? "" : " none");
	for (size_t i = 0; cordon_policy_read_deny(p, i, &d) == 0; i++) {
		if (!d.hidden_at)
			printf("  %s (not hidden: %s)\n", d.path,
			       d.only_without_network ? "a service socket, reachable under --net host" : "does not exist");
		else if (strcmp(d.hidden_at, d.path) != 0)
			printf("  %s (missing: hidden at %s)\n", d.path, d.hidden_at);
		else
			printf("  %s\n", d.path);
	}
}

/* home: "allowlist": what is covered, and what is shown again below it. */
static void print_home(const struct cordon_policy *p, const struct effective_lists *l)
{
	if (cordon_policy_home_policy(p) != CORDON_HOME_ALLOWLIST) {
		printf("home policy: catalogue (below HOME, the read-deny list below hides by name)\n");
		return;
	}
	printf("home policy: allowlist (below these, nothing is visible but what is listed after them):\n");
	STRV_FOREACH(h, l->v[CORDON_POLICY_HOME_HIDDEN])
		printf("  hidden: %s\n", *h);
	if (!l->v[CORDON_POLICY_HOME_HIDDEN][0])
		printf("  hidden: none (every home is at or below a writable root: the catalogue alone applies)\n");
	STRV_FOREACH(g, l->v[CORDON_POLICY_HOME_GRANTED])
		printf("  shown: %s\n", *g);
	STRV_FOREACH(f, l->v[CORDON_POLICY_HOME_FILTERED])
		printf("  shown filtered (credential-bearing keys removed): %s\n", *f);
}

static int effective_text(const struct cordon_profile_handle *prof, const struct cordon_policy *p,
			  const struct effective_lists *l)
{
	const char *ws = cordon_policy_workspace(p), *home = cordon_policy_home(p);

	printf("profile %s (%s), as `cordon run --profile %s` would apply it here\n", cordon_profile_name(prof),
	       cordon_profile_file(prof), cordon_profile_name(prof));
	printf("mode %s, network %s, isolation %s\n", cordon_mode_to_string(cordon_policy_mode(p)),
	       cordon_net_to_string(cordon_policy_net(p)), cordon_isolation_to_string(cordon_policy_isolation(p)));
	printf("workspace: %s\nhome: %s\n", ws ?: "(none)", home ?: "(unknown)");
	print_list("writable roots", (char *const *)cordon_writable_roots(p));
	print_home(p, l);
	print_read_deny(p);
	print_list("protected (read-only, existing or not)", l->v[CORDON_POLICY_PROTECTED]);
	if (cordon_policy_write_gate(p)) {
		char *const *lifted = l->v[CORDON_POLICY_GATE_LIFTED];

		printf("write gate, by name (native runner, at any depth below a writable root, not below node_modules):\n");
		printf("  git: %s\n", git_rule);
		printf("  names:");
		STRV_FOREACH(n, l->v[CORDON_POLICY_GATE_NAMES])
			printf(" %s", *n);
		printf("\n  lifted (no rule by name at or below):");
		STRV_FOREACH(u, lifted)
			printf(" %s", *u);
		printf("%s\n", lifted[0] ? "" : " none");
	} else
		printf("write gate: not applied (%s)\n", cordon_policy_mode(p) != CORDON_MODE_WORKSPACE_WRITE ?
								  "nothing is writable to gate" :
								  "light isolation");
	print_list("unix sockets allowed", l->v[CORDON_POLICY_UNIX_SOCKETS]);
	print_list("environment (passed into the sandbox)", l->v[CORDON_POLICY_ENV]);
	print_list("also kept from the caller's environment", l->v[CORDON_POLICY_KEEP_ENV]);
	fflush(stdout);
	return 0;
}

int cli_profile_effective(const struct cli_args *a, const struct cordon_profile_handle *prof)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *launch = NULL;
	const struct cordon_policy *p;
	struct effective_lists l = { 0 };
	int r;

	r = cli_build_policy(a, prof, &launch);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	p = cordon_launch_policy(launch);
	r = effective_lists_read(p, &l);
	if (r < 0) {
		say("cannot read the effective policy: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = effective_json(prof, p, &l);

		effective_lists_done(&l);
		if (!o) {
			say("cannot encode the effective policy as JSON");
			return CLI_EXIT_REFUSED;
		}
		return cli_print_json(o) < 0 ? CLI_EXIT_REFUSED : 0;
	}
	r = effective_text(prof, p, &l);
	effective_lists_done(&l);
	return r;
}
