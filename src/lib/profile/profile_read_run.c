/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the sections about what runs: environment and limits, into
 * loader_run(l): the profile's own, or a command's sandbox (the same keys
 * and grammar there). Pure, like profile_read.c; sizes and durations read
 * with the one grammar of cordon_parse_size and cordon_parse_duration, the
 * same the CLI's flags take.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "json_pos.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_read_run.h"

#define ENV_VALUE_MAX (128 * 1024)

/* ---- environment ------------------------------------------------------------ */

static int check_var_pattern(struct loader *l, const struct where *w, const char *s, intptr_t tool)
{
	if (!env_name_valid(s, true))
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a variable name or pattern (NAME, PREFIX_* or *)", s);
	if (env_name_is_injection(s))
		return loader_fail(l, -EPERM, w,
				   "refusing to pass %s into the sandbox: it makes a loader or interpreter run code chosen from outside",
				   s);
	if (!tool)
		return 0;
	/* a tool's inputs belong to the tool: its caller passes only what
	 * the policy names, one by one */
	if (strchr(s, '*'))
		return loader_fail(l, -EINVAL, w,
				   "\"%.100s\" is a pattern: a tool's allow_vars names each variable its caller may "
				   "pass (a pattern lets the caller choose what the tool reads)",
				   s);
	if (env_name_is_tool_owned(s))
		return loader_fail(l, -EPERM, w,
				   "%s is cordon's for a tool: HOME, TMPDIR and XDG_* are the tool's own private "
				   "directories (name the files of HOME it needs in home_files)",
				   s);
	return 0;
}

static int read_allow_vars(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_list *out = &loader_run(l)->allow_vars;
	bool tool = l->run != NULL;
	size_t first = out->n;
	int r;

	r = loader_read_list(l, w, v, "an array of variable names", 0, check_var_pattern, tool, out);
	if (r < 0 || !tool)
		return r;
	for (size_t i = first; i < out->n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(out->v[i].spelled, out->v[j].spelled) == 0)
				return loader_fail(l, -EINVAL, &out->v[i].where, "%s is named twice", out->v[i].spelled);
	return 0;
}

/* One NAME: value of set_vars; scalars override, so a later file's value
 * replaces. */
static int read_set_var(struct loader *l, const struct where *wk, const struct where *wv, const char *name,
			json_t *val, void *ctx)
{
	struct raw_run *run = loader_run(l);
	const char *s;
	size_t j;
	int r;

	if (!env_name_valid(name, false))
		return loader_fail(l, -EINVAL, wk, "\"%.100s\" is not a variable name", name);
	if (env_name_is_injection(name))
		return loader_fail(l, -EPERM, wk,
				   "refusing to set %s: it makes a loader or interpreter run code chosen from outside", name);
	if (env_name_is_proxy(name))
		return loader_fail(l, -EPERM, wk, "refusing to set %s: cordon sets %s itself: " POLICY_PROXY_ENV_WHY,
				   name, name);
	if (env_name_is_cordon_owned(name) || strncmp(name, "CORDON_", 7) == 0)
		return loader_fail(l, -EPERM, wk, "refusing to set %s: cordon sets its own variables itself", name);
	if (l->run && env_name_is_tool_owned(name))
		return loader_fail(l, -EPERM, wk,
				   "%s is cordon's for a tool: HOME, TMPDIR and XDG_* are the tool's own private "
				   "directories", name);
	r = loader_get_string(l, wv, val, ENV_VALUE_MAX, &s);
	if (r < 0)
		return r;
	r = loader_count_rule(l, wv);
	if (r < 0)
		return r;
	for (j = 0; j < run->n_vars; j++)
		if (strcmp(run->vars[j].name, name) == 0)
			break;
	if (j == run->n_vars) {
		struct raw_var *nv = realloc(run->vars, (run->n_vars + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		run->vars = nv;
		run->n_vars++;
	}
	run->vars[j] = (struct raw_var){ .name = name, .value = s, .where = *wv };
	return 0;
}

static int read_set_vars(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_members(l, w, v, read_set_var, NULL);
}

const char *const loader_environment_keys[] = { "allow_vars", "set_vars", NULL };
static const struct loader_key environment_readers[] = {
	{ read_allow_vars },
	{ read_set_vars, .type = JSON_OBJECT, .what = "an object of NAME: value" },
};
const struct loader_object loader_environment_object = { loader_environment_keys, environment_readers };

/* ---- limits ------------------------------------------------------------------ */

const char *const loader_limit_keys[] = {
	[PROFILE_LIMIT_TIMEOUT] = "timeout",
	[PROFILE_LIMIT_CPU] = "cpu",
	[PROFILE_LIMIT_MEMORY] = "memory",
	[PROFILE_LIMIT_MAX_PROCESSES] = "max_processes",
	[PROFILE_LIMIT_MAX_FILE_SIZE] = "max_file_size",
	[PROFILE_LIMIT_MAX_OPEN_FILES] = "max_open_files",
	[PROFILE_LIMIT_MAX_OUTPUT] = "max_output",
	[PROFILE_LIMIT_ON_OUTPUT_LIMIT] = "on_output_limit",
	[PROFILE_LIMIT_FALLBACK] = "limits_fallback",
	[_PROFILE_LIMIT_MAX] = NULL,
};

enum limit_kind { LIMIT_SECONDS, LIMIT_SIZE, LIMIT_COUNT };

/* The numeric limits: kind and range, by PROFILE_LIMIT_*. */
static const struct limit_range {
	enum limit_kind kind;
	uint64_t min, max;
	const char *range;
} limit_ranges[_PROFILE_LIMIT_MAX] = {
	[PROFILE_LIMIT_TIMEOUT] = { LIMIT_SECONDS, 1, 604800, "from 1 second to 1 week" },
	[PROFILE_LIMIT_CPU] = { LIMIT_SECONDS, 1, 604800, "from 1 second to 1 week" },
	[PROFILE_LIMIT_MEMORY] = { LIMIT_SIZE, 1ull << 20, 1ull << 40, "from 1M to 1T" },
	[PROFILE_LIMIT_MAX_PROCESSES] = { LIMIT_COUNT, 1, 4194304, "from 1 to 4194304" },
	[PROFILE_LIMIT_MAX_FILE_SIZE] = { LIMIT_SIZE, 1, 1ull << 40, "from 1 byte to 1T" },
	[PROFILE_LIMIT_MAX_OPEN_FILES] = { LIMIT_COUNT, 3, 1048576, "from 3 to 1048576" },
	[PROFILE_LIMIT_MAX_OUTPUT] = { LIMIT_SIZE, 1, 1ull << 30, "from 1 byte to 1G" },
};

/* A limit key read: its bit and where it was set. */
static void limit_set(struct loader *l, const struct where *w, const struct loader_key *k)
{
	loader_run(l)->limits.set |= 1u << k->arg;
	loader_run(l)->limit_where[k->arg] = *w;
}

/* A string limit in the one grammar: a size in bytes, or a duration in
 * whole seconds (the profile keeps seconds: "1500ms" would not fit). */
static int parse_limit_string(struct loader *l, const struct where *w, const char *s, enum limit_kind kind,
			      uint64_t *ret)
{
	uint64_t usec;

	if (kind == LIMIT_SIZE) {
		if (cordon_parse_size(s, ret) < 0)
			return loader_fail(l, -EINVAL, w,
					   "\"%.64s\" is not a size (a number of bytes, or with a k, M, G or T suffix)", s);
		return 0;
	}
	if (cordon_parse_duration(s, &usec) < 0)
		return loader_fail(l, -EINVAL, w, "\"%.64s\" is not a duration (seconds, or with an ms, s, m or h suffix)",
				   s);
	if (usec % CORDON_USEC_PER_SEC)
		return loader_fail(l, -EINVAL, w, "\"%.64s\" is not a whole number of seconds", s);
	*ret = usec / CORDON_USEC_PER_SEC;
	return 0;
}

/* A number at k->offset of the limits, by limit_ranges[k->arg]. */
static int read_limit_number(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	const struct limit_range *lr = &limit_ranges[k->arg];
	uint64_t n;
	int r;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return loader_fail(l, -EINVAL, w, "must be %s, not %" JSON_INTEGER_FORMAT, lr->range,
					   json_integer_value(v));
		n = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v) && lr->kind != LIMIT_COUNT) {
		const char *s;

		r = loader_get_string(l, w, v, 64, &s);
		if (r < 0)
			return r;
		r = parse_limit_string(l, w, s, lr->kind, &n);
		if (r < 0)
			return r;
	} else
		return loader_fail(l, -EINVAL, w, "expected %s, not %s",
				   lr->kind == LIMIT_COUNT  ? "an integer"
				   : lr->kind == LIMIT_SIZE ? "a size (integer or \"64M\")"
							    : "seconds (integer or \"5m\")",
				   json_type_name(v));
	if (n < lr->min || n > lr->max)
		return loader_fail(l, -ERANGE, w, "must be %s, not %" PRIu64, lr->range, n);
	*(uint64_t *)(void *)((char *)&loader_run(l)->limits + k->offset) = n;
	limit_set(l, w, k);
	return 0;
}

/* on_output_limit and limits_fallback: one of two words, by k->arg. */
static int read_limit_choice(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const words[_PROFILE_LIMIT_MAX][2] = {
		[PROFILE_LIMIT_ON_OUTPUT_LIMIT] = { "truncate", "kill" },
		[PROFILE_LIMIT_FALLBACK] = { "warn", "fail" },
	};
	const char *const *two = words[k->arg];
	const char *s;
	bool second;
	int r = loader_get_string(l, w, v, 0, &s);

	if (r < 0)
		return r;
	if (strcmp(s, two[0]) != 0 && strcmp(s, two[1]) != 0)
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not %s or %s", s, two[0], two[1]);
	second = strcmp(s, two[1]) == 0;
	if (k->arg == PROFILE_LIMIT_ON_OUTPUT_LIMIT)
		loader_run(l)->limits.on_output_limit = second ? PROFILE_OUTPUT_KILL : PROFILE_OUTPUT_TRUNCATE;
	else
		loader_run(l)->limits.fallback_fail = second;
	limit_set(l, w, k);
	return 0;
}

#define LIMIT_NUMBER(key, field) \
	[key] = { read_limit_number, offsetof(struct profile_limits, field), key }

static const struct loader_key limit_readers[] = {
	LIMIT_NUMBER(PROFILE_LIMIT_TIMEOUT, timeout_seconds),
	LIMIT_NUMBER(PROFILE_LIMIT_CPU, cpu_seconds),
	LIMIT_NUMBER(PROFILE_LIMIT_MEMORY, memory),
	LIMIT_NUMBER(PROFILE_LIMIT_MAX_PROCESSES, max_processes),
	LIMIT_NUMBER(PROFILE_LIMIT_MAX_FILE_SIZE, max_file_size),
	LIMIT_NUMBER(PROFILE_LIMIT_MAX_OPEN_FILES, max_open_files),
	LIMIT_NUMBER(PROFILE_LIMIT_MAX_OUTPUT, max_output),
	[PROFILE_LIMIT_ON_OUTPUT_LIMIT] = { read_limit_choice, .arg = PROFILE_LIMIT_ON_OUTPUT_LIMIT },
	[PROFILE_LIMIT_FALLBACK] = { read_limit_choice, .arg = PROFILE_LIMIT_FALLBACK },
};
const struct loader_object loader_limits_object = { loader_limit_keys, limit_readers };
