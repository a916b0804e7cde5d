/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading an invocation_policy of command_policies (a command's, or a
 * caller's in from): its default, its backend, and its deny, approve and
 * allow rules, each matching on argv (exact, prefix, contains) and on the
 * caller's environment (equals, one_of). Pure; the rules' JSON is kept,
 * checked, for profile_resolve_tools.c to compile once the backends of
 * every file are known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read_invocation.h"

#define TARGET(l, T) ((T *)(l)->target)

const char *const tool_argv_match_names[_TOOL_ARGV_MATCHES] = {
	[TOOL_ARGV_EXACT] = "exact",
	[TOOL_ARGV_PREFIX] = "prefix",
	[TOOL_ARGV_CONTAINS] = "contains",
};

struct raw_policy *raw_policy_free(struct raw_policy *pol)
{
	if (!pol)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(pol->rules); i++)
		free(pol->rules[i]);
	free(pol);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct raw_policy *, raw_policy_free)

/* An array of at most TOOLS_MAX_WORDS strings of at most TOOLS_WORD_MAX
 * bytes each; not empty unless may_be_empty. */
static int check_words(struct loader *l, const struct where *w, const json_t *v, bool may_be_empty, const char *empty)
{
	size_t i;
	json_t *e;
	int r;

	r = loader_expect(l, w, v, JSON_ARRAY, "an array of strings");
	if (r < 0)
		return r;
	if (json_array_size(v) > TOOLS_MAX_WORDS)
		return loader_fail(l, -E2BIG, w, "more than %d words", TOOLS_MAX_WORDS);
	if (!may_be_empty && json_array_size(v) == 0)
		return loader_fail(l, -EINVAL, w, "%s", empty);
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		const char *s;

		r = loader_get_string(l, &we, e, TOOLS_WORD_MAX, &s);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- a rule's conditions ---------------------------------------------------- */

/* argv.exact, .prefix, .contains (k->arg): an exact [] is "no arguments";
 * an empty prefix or contains would match every call. */
static int read_argv_match(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = check_words(l, w, v, k->arg == TOOL_ARGV_EXACT,
			    "an empty list matches every call: say that with the policy's default");

	if (r < 0)
		return r;
	TARGET(l, struct raw_rule)->argv[k->arg] = v;
	return 0;
}

static const char *const argv_keys[] = {
	[TOOL_ARGV_EXACT] = "exact",
	[TOOL_ARGV_PREFIX] = "prefix",
	[TOOL_ARGV_CONTAINS] = "contains",
	[_TOOL_ARGV_MATCHES] = NULL,
};
static const struct loader_key argv_readers[] = {
	{ read_argv_match, .arg = TOOL_ARGV_EXACT },
	{ read_argv_match, .arg = TOOL_ARGV_PREFIX },
	{ read_argv_match, .arg = TOOL_ARGV_CONTAINS },
};
static const struct loader_object argv_object = { argv_keys, argv_readers };

static int read_rule_argv(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	if (json_object_size(v) == 0)
		return loader_fail(l, -EINVAL, w, "argv needs exact, prefix or contains");
	return loader_read_object(l, w, v, &argv_object);
}

static int read_env_equals(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;

	return loader_get_string(l, w, v, TOOLS_WORD_MAX, &s);
}

static int read_env_one_of(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return check_words(l, w, v, false, "one_of needs at least one value");
}

static const char *const env_match_keys[] = { "equals", "one_of", NULL };
static const struct loader_key env_match_readers[] = { { read_env_equals }, { read_env_one_of } };
static const struct loader_object env_match_object = { env_match_keys, env_match_readers };

static int read_env_match(struct loader *l, const struct where *wk, const struct where *wv, const char *name,
			  json_t *m, void *ctx)
{
	int r;

	if (!env_name_valid(name, false))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a variable name", name);
	r = loader_expect(l, wv, m, JSON_OBJECT, "{\"equals\": VALUE} or {\"one_of\": [VALUES]}");
	if (r < 0)
		return r;
	r = loader_read_object(l, wv, m, &env_match_object);
	if (r < 0)
		return r;
	if (json_object_size(m) == 0)
		return loader_fail(l, -EINVAL, wv, "give equals or one_of");
	if (json_object_size(m) > 1)
		return loader_fail(l, -EINVAL, wv, "give one of equals or one_of, not both");
	return 0;
}

static int read_rule_env(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r;

	if (json_object_size(v) == 0)
		return loader_fail(l, -EINVAL, w, "env needs at least one variable");
	if (json_object_size(v) > TOOLS_MAX_WORDS)
		return loader_fail(l, -E2BIG, w, "more than %d variables", TOOLS_MAX_WORDS);
	r = loader_read_members(l, w, v, read_env_match, NULL);
	if (r < 0)
		return r;
	TARGET(l, struct raw_rule)->env = v;
	return 0;
}

/* A reason reaches people as one line (the shim's "cordon: denied: ...",
 * cordon why): no control characters that could forge another. */
static int read_rule_reason(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const char *s;
	int r = loader_get_string(l, w, v, TOOLS_REASON_MAX, &s);

	if (r < 0)
		return r;
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			return loader_fail(l, -EINVAL, w, "a reason is one line of text, without control characters");
	TARGET(l, struct raw_rule)->reason = s;
	return 0;
}

/* A backend's name, at w, into *ret and *ret_where. */
static int get_backend_name(struct loader *l, const struct where *w, const json_t *v, const char **ret,
			    struct where *ret_where)
{
	const char *s;
	int r = loader_get_string(l, w, v, TOOLS_NAME_MAX, &s);

	if (r < 0)
		return r;
	if (!s[0])
		return loader_fail(l, -EINVAL, w, "a backend's name must not be empty");
	*ret = s;
	*ret_where = *w;
	return 0;
}

static int read_rule_backend(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_rule *rule = TARGET(l, struct raw_rule);

	return get_backend_name(l, w, v, &rule->backend, &rule->backend_where);
}

const char *const loader_rule_keys[] = { "argv", "env", "reason", "backend", NULL };
static const struct loader_key rule_readers[] = {
	{ read_rule_argv, .type = JSON_OBJECT, .what = "an object of exact, prefix or contains" },
	{ read_rule_env, .type = JSON_OBJECT, .what = "an object of VAR: {equals|one_of}" },
	{ read_rule_reason },
	{ read_rule_backend },
};
static const struct loader_object rule_object = { loader_rule_keys, rule_readers };

/* ---- the policy -------------------------------------------------------------- */

static const char *const action_names[] = {
	[CORDON_TOOL_ALLOW] = "allow",
	[CORDON_TOOL_DENY] = "deny",
	[CORDON_TOOL_APPROVE] = "approve",
};

/* deny, approve or allow (k->arg): a list of rules. */
static int read_rules(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_policy *pol = TARGET(l, struct raw_policy);
	enum cordon_tool_action action = (enum cordon_tool_action)k->arg;
	size_t i;
	json_t *e;
	int r;

	/* each is counted against the profile's cap below: this bounds the
	 * allocation before any is read */
	if (json_array_size(v) > PROFILE_MAX_RULES)
		return loader_fail(l, -E2BIG, w, "more than %d rules", PROFILE_MAX_RULES);
	pol->rules[action] = calloc(json_array_size(v) ?: 1, sizeof(struct raw_rule));
	if (!pol->rules[action])
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);
		struct raw_rule *rule = &pol->rules[action][i];

		r = loader_count_rule(l, &we);
		if (r < 0)
			return r;
		*rule = (struct raw_rule){ .where = we };
		r = loader_read_into(l, &we, e, &rule_object, rule);
		if (r < 0)
			return r;
		pol->n_rules[action]++;
		if (!rule->argv[TOOL_ARGV_EXACT] && !rule->argv[TOOL_ARGV_PREFIX] &&
		    !rule->argv[TOOL_ARGV_CONTAINS] && !rule->env)
			return loader_fail(l, -EINVAL, &we,
					   "a rule needs a condition, argv or env: one without would match every "
					   "call (say that with the policy's default)");
		if (rule->backend && action != CORDON_TOOL_APPROVE) {
			struct where wb = rule->backend_where;

			wb.at_key = true;
			return loader_fail(l, -EINVAL, &wb, "only an approve rule names a backend, not a %s rule",
					   action_names[action]);
		}
	}
	return 0;
}

static int read_policy_default(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_policy *pol = TARGET(l, struct raw_policy);
	size_t i = 0;
	int r = loader_get_word(l, w, v, action_names, ELEMENTSOF(action_names), "allow, deny or approve", &i);

	if (r < 0)
		return r;
	pol->default_action = (enum cordon_tool_action)i;
	pol->default_set = true;
	pol->default_where = *w;
	return 0;
}

static int read_policy_backend(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_policy *pol = TARGET(l, struct raw_policy);

	return get_backend_name(l, w, v, &pol->backend, &pol->backend_where);
}

#define RULES(action) { read_rules, .arg = action, .type = JSON_ARRAY, .what = "an array of rules" }

const char *const loader_invocation_keys[] = { "default", "backend", "deny", "approve", "allow", NULL };
static const struct loader_key policy_readers[] = {
	{ read_policy_default },
	{ read_policy_backend },
	RULES(CORDON_TOOL_DENY),
	RULES(CORDON_TOOL_APPROVE),
	RULES(CORDON_TOOL_ALLOW),
};
static const struct loader_object policy_object = { loader_invocation_keys, policy_readers };

int loader_read_invocation_policy(struct loader *l, const struct where *w, json_t *v, struct raw_policy **ret)
{
	_cleanup_(raw_policy_freep) struct raw_policy *pol = calloc(1, sizeof(*pol));
	int r;

	if (!pol)
		return -ENOMEM;
	pol->where = *w;
	r = loader_read_into(l, w, v, &policy_object, pol);
	if (r < 0)
		return r;
	if (!pol->default_set)
		return loader_fail(l, -EINVAL, w, "an invocation_policy needs \"default\": allow, deny or approve");
	/* whom an approval asks is known from this object alone: that the
	 * backend exists waits until every file is read */
	if (pol->default_action == CORDON_TOOL_APPROVE && !pol->backend)
		return loader_fail(l, -EINVAL, &pol->default_where,
				   "the default approve needs a backend to ask: name one in this invocation_policy's "
				   "\"backend\"");
	for (size_t i = 0; i < pol->n_rules[CORDON_TOOL_APPROVE]; i++)
		if (!pol->rules[CORDON_TOOL_APPROVE][i].backend && !pol->backend)
			return loader_fail(l, -EINVAL, &pol->rules[CORDON_TOOL_APPROVE][i].where,
					   "this approve rule has no backend to ask: name one on the rule, or in the "
					   "invocation_policy's \"backend\"");
	raw_policy_free(*ret);
	*ret = TAKE_PTR(pol);
	return 0;
}
