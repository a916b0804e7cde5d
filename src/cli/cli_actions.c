/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The commands that take an action word (`cordon profile ACTION`, `cordon
 * audit ACTION`): one table per command says each action's operands and
 * which of the command's own options it takes; the parser, its messages
 * and the completions (cli_action_name) read the same rows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "strv.h"

#define fail cli_fail

/* A command's actions (`cordon profile ACTION`, `cordon audit ACTION`): the
 * operands each takes and which of the command's own options. */
struct cli_action {
	const char *name;
	int action;	 /* enum cli_profile_action, enum cli_audit_action */
	size_t min, max; /* operands */
	const char *operands;
	bool json, workspace;
};

static const struct cli_action profile_actions[] = {
	{ "list", CLI_PROFILE_LIST, 0, 0, "", true, false },
	{ "show", CLI_PROFILE_SHOW, 1, 1, "one profile NAME", true, true },
	{ "validate", CLI_PROFILE_VALIDATE, 1, CLI_MAX_REPEATS, "at least one FILE", false, true },
	{ "schema", CLI_PROFILE_SCHEMA, 0, 0, "", false, false },
	{ "diff", CLI_PROFILE_DIFF, 2, 2, "two profiles A B", false, true },
};

static const struct cli_action audit_actions[] = {
	{ "list", CLI_AUDIT_LIST, 0, 0, "", true, false },
	{ "show", CLI_AUDIT_SHOW, 1, 1, "one SESSION or FILE", true, false },
	{ "verify", CLI_AUDIT_VERIFY, 1, 1, "one SESSION or FILE", true, false },
};

static const struct cli_action pack_actions[] = {
	{ "install", CLI_PACK_INSTALL, 1, 1, "one DIR, FILE.tar or https:// URL", false, false },
	{ "list", CLI_PACK_LIST, 0, 0, "", false, false },
	{ "show", CLI_PACK_SHOW, 1, 1, "one OWNER/NAME", false, false },
	{ "verify", CLI_PACK_VERIFY, 0, 1, "at most one OWNER/NAME", false, false },
	{ "remove", CLI_PACK_REMOVE, 1, 1, "one OWNER/NAME", false, false },
};

static const struct cli_action *actions_of(enum cli_command c, size_t *ret_n)
{
	if (c == CLI_PACK) {
		*ret_n = ELEMENTSOF(pack_actions);
		return pack_actions;
	}
	if (c == CLI_PROFILE) {
		*ret_n = ELEMENTSOF(profile_actions);
		return profile_actions;
	}
	if (c == CLI_AUDIT) {
		*ret_n = ELEMENTSOF(audit_actions);
		return audit_actions;
	}
	*ret_n = 0;
	return NULL;
}

/* The action the command line chose (0: none). */
static int action_of(const struct cli_args *a)
{
	return a->sub == CLI_PROFILE ? (int)a->action : a->sub == CLI_PACK ? (int)a->pack_action : (int)a->audit_action;
}

static void set_action(struct cli_args *a, int action)
{
	if (a->sub == CLI_PROFILE)
		a->action = (enum cli_profile_action)action;
	else if (a->sub == CLI_PACK)
		a->pack_action = (enum cli_pack_action)action;
	else
		a->audit_action = (enum cli_audit_action)action;
}

/* "list, show, verify" (last_sep ", ") or "list, show or verify" (" or "). */
static void action_names(enum cli_command c, const char *last_sep, char *buf, size_t size)
{
	size_t n, len = 0;
	const struct cli_action *acts = actions_of(c, &n);

	buf[0] = '\0';
	for (size_t k = 0; k < n && len < size; k++) {
		const char *sep = k == 0 ? "" : k + 1 == n ? last_sep : ", ";

		len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, acts[k].name);
	}
}

/* The command's word on the command line. */
static const char *command_word(enum cli_command c)
{
	return c == CLI_PROFILE ? "profile" : c == CLI_PACK ? "pack" : "audit";
}

bool cli_has_actions(enum cli_command c)
{
	size_t n;

	return actions_of(c, &n) != NULL;
}

const char *cli_action_name(enum cli_command c, size_t i)
{
	size_t n;
	const struct cli_action *acts = actions_of(c, &n);

	return i < n ? acts[i].name : NULL;
}

int cli_parse_action(struct cli_args *a, const char *name, char *err, size_t errlen)
{
	size_t n;
	const struct cli_action *acts = actions_of(a->sub, &n);
	char names[128];

	for (size_t k = 0; k < n; k++)
		if (strcmp(name, acts[k].name) == 0) {
			set_action(a, acts[k].action);
			return 0;
		}
	action_names(a->sub, ", ", names, sizeof(names));
	return fail(err, errlen, "unknown %s action '%s': valid actions are %s", command_word(a->sub), name, names);
}

/* `cordon profile|audit ACTION`: the action, its operands and options. */
int cli_check_action(const struct cli_args *a, char *err, size_t errlen)
{
	size_t n = strv_length(a->operands), na;
	const struct cli_action *acts = actions_of(a->sub, &na), *act = NULL;
	const char *sub = command_word(a->sub);
	char names[128];

	for (size_t k = 0; k < na; k++)
		if (acts[k].action == action_of(a))
			act = &acts[k];
	if (!act) {
		action_names(a->sub, " or ", names, sizeof(names));
		return fail(err, errlen, "`cordon %s` needs an action: %s", sub, names);
	}
	if (n < act->min || n > act->max) {
		if (act->max == 0)
			return fail(err, errlen, "unexpected argument '%s': `cordon %s %s` takes none", a->operands[0],
				    sub, act->name);
		return fail(err, errlen, "`cordon %s %s` takes %s, got %zu argument%s", sub, act->name, act->operands,
			    n, n == 1 ? "" : "s");
	}
	if (a->effective && !(a->sub == CLI_PROFILE && a->action == CLI_PROFILE_SHOW))
		return fail(err, errlen, "--effective: only for `cordon profile show`");
	if (a->json && !act->json)
		return fail(err, errlen, "--json: not available for `cordon %s %s`", sub, act->name);
	if (a->workspace && !act->workspace)
		return fail(err, errlen, "--workspace: not available for `cordon %s %s`", sub, act->name);
	if (a->yes && !(a->sub == CLI_PACK && a->pack_action == CLI_PACK_INSTALL))
		return fail(err, errlen, "--yes: only for `cordon pack install`");
	if (a->audit_head && !(a->sub == CLI_AUDIT && a->audit_action == CLI_AUDIT_VERIFY))
		return fail(err, errlen, "--head: only for `cordon audit verify`");
	if ((a->audit_pubkey || a->audit_sig) && !(a->sub == CLI_AUDIT && a->audit_action == CLI_AUDIT_VERIFY))
		return fail(err, errlen, "--pubkey, --sig: only for `cordon audit verify`");
	if ((a->audit_pubkey || a->audit_sig) && !(a->audit_pubkey && a->audit_sig && a->audit_head))
		return fail(err, errlen, "--head, --pubkey and --sig go together: the signed head the session printed");
	return 0;
}
