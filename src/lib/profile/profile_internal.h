/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "profile.h"

/* What @git:config-files and @git:hooks-path expand to: read from the
 * global and system git configuration only ($XDG_CONFIG_HOME/git/config,
 * ~/.gitconfig, the system file), following [include] path = ... up to
 * PROFILE_GIT_INCLUDE_DEPTH. Repository-local configuration is never read:
 * a repository must not grant itself anything. config_files lists the three
 * candidates even when missing (so a protect rule holds when one is created
 * later) and every included file that exists. Never spawns git. */
#include "git_config.h"

/* The limits' keys that are set, into the JSON object limits, as the
 * loader reads them. */
struct json_t;
int profile_limits_json(const struct profile_limits *l, struct json_t *limits);

void profile_origin_clear(struct profile_origin *o);
int profile_origin_copy(struct profile_origin *dst, const struct profile_origin *src);

/* Members of built-in group g (0 credentials, 1 persistence, 2
 * system_write), canonical; persistence entries may end in '*' (prefix). */
int profile_group_members(const struct cordon_profile *p, const char *home, unsigned g, char ***ret);

/* The keys the loader knows in section "" (top level), "meta",
 * "filesystem", "network", "environment", "limits", "groups" (the built-in
 * group names), and in command_policies: "command_policies", "command" (one
 * of its commands), "sandbox", "invocation_policy", "rule";
 * NULL-terminated. The schema test compares them. */
const char *const *profile_known_keys(const char *section);

/* The first rule whose path is path or an ancestor of it, or NULL. */
const struct profile_rule *profile_rules_covering(const struct profile_rules *rs, const char *path);
/* Whether a rule names exactly path. */
bool profile_rules_contain(const struct profile_rules *rs, const char *path);
/* The entry of the built-in group credentials (members, as
 * profile_group_members gives them) that hides path under p, neither
 * bypassed nor lifted; NULL if none does. */
const char *profile_credentials_hiding(const struct cordon_profile *p, char *const *members, const char *path);

/* The credential groups a profile can lift by name (the catalogue's, in
 * its order, then "system" for a root caller's secrets) into out, at most
 * cap - 1 of them and NULL-terminated; returns how many. */
size_t profile_credential_groups(const char **out, size_t cap);
/* The canonical catalogue entries that lifting groups uncovers, below home
 * and the passwd home (and a root caller's system secrets for "system"),
 * each with its group in ret_groups (same index). An entry that resolves to
 * an entry of a group not lifted is left out. */
int profile_credential_lift_paths(const char *home, char *const *groups, char ***ret_paths, char ***ret_groups);
