/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deny rules that a call passes by moving or respelling a word
 * (cordon_tools_deny_warnings, cordon/tools.h): a rule matches words at
 * fixed places or as written, a tool reads them anywhere and in more than
 * one spelling. Each deny rule of the edge is tried against the calls that
 * say the same thing another way, decided as the supervisor decides them;
 * one that is not denied is a warning naming the rule and the call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "strv.h"
#include "tools.h"

/* A call that says what words say, another way, or NULL: the later words
 * after two positional ones (`push REMOTE main --force` for `push --force`),
 * or a long flag in its one-letter form (`push -f`). */
static char **variant(char *const *words, bool respell)
{
	size_t n = strv_length(words);
	char **v = calloc(n + 3, sizeof(char *));
	size_t k = 0;
	bool changed = false;

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *w = words[i];
		char shortflag[3] = "-x";

		if (!respell && i == (n > 1 ? 1 : 0)) {
			v[k++] = strdup("REMOTE");
			v[k++] = strdup("main");
			changed = true;
		}
		if (respell && strncmp(w, "--", 2) == 0 && w[2] && w[3] && !strchr(w, '=')) {
			shortflag[1] = w[2];
			w = shortflag;
			changed = true;
		}
		v[k++] = strdup(w);
	}
	for (size_t i = 0; i < k; i++)
		if (!v[i]) {
			strv_free(v);
			return NULL;
		}
	if (!changed) {
		strv_free(v);
		return NULL;
	}
	return v;
}

/* The words joined with spaces; NULL: out of memory. */
static char *joined(char *const *v)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; v[i]; i++)
		len += strlen(v[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; v[i]; i++)
		p += sprintf(p, "%s%s", i ? " " : "", v[i]);
	return s;
}

static int warn(char ***out, const char *command, const struct tool_rule *rule, const char *kind, char *const *words,
		char *const *call, const struct cordon_tool_decision *d)
{
	_cleanup_free_ char *w = joined(words), *c = joined(call);
	char *line;

	if (!w || !c)
		return -ENOMEM;
	if (asprintf(&line,
		     "the deny rule at %s (%s [%s]) does not deny `%s %s`, which says the same another way: it is %s "
		     "(%s); a deny rule matches words where and as written, so under \"default\": \"allow\" it is "
		     "weak: list what may run (allow rules) and deny the rest by default",
		     rule->place.pointer ? rule->place.pointer : "?", kind, w, command, c,
		     cordon_tool_action_to_string(d->action), d->rule) < 0)
		return -ENOMEM;
	return strv_consume(out, line);
}

int cordon_tools_deny_warnings(const struct cordon_tools *t, const char *caller, const char *command, char ***ret)
{
	_cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
	const struct tool_command *c;
	const struct tool_from *f;
	const struct tool_policy *pol;

	if (!t || !caller || !command || !ret)
		return -EINVAL;
	if (!out)
		return -ENOMEM;
	c = tools_command(t, command);
	f = c ? tool_command_from(c, caller) : NULL;
	pol = f && f->policy ? f->policy : c ? c->policy : NULL;
	for (size_t i = 0; pol && i < pol->n_rules; i++) {
		const struct tool_rule *rule = &pol->rules[i];

		if (rule->action != CORDON_TOOL_DENY)
			continue;
		for (int kind = 0; kind < _TOOL_ARGV_MATCHES; kind++) {
			char *const *words = rule->argv[kind];

			if (!words || !words[0])
				continue;
			/* contains matches anywhere: only a respelling passes it */
			for (int respell = kind == TOOL_ARGV_CONTAINS; respell <= 1; respell++) {
				_cleanup_strv_free_ char **call = variant(words, respell);
				struct cordon_tool_decision d;
				int r;

				if (!call)
					continue;
				r = cordon_tools_decide(t, caller, command, (const char *const *)call, NULL, &d);
				if (r < 0)
					return r;
				if (d.action == CORDON_TOOL_DENY)
					continue;
				r = warn(&out, command, rule, tool_argv_match_names[kind], words, call, &d);
				if (r < 0)
					return r;
			}
		}
	}
	*ret = TAKE_PTR(out);
	return 0;
}
