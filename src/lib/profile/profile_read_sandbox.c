/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a sandbox of command_policies (a command's, or a caller's in
 * from): the paths it may read, write and execute (spelled as the
 * filesystem section spells them; expanded once the workspace is known),
 * its network (the proxy's host rules, checked as the proxy takes them),
 * its environment and limits (the profile's own readers, the same keys and
 * grammar), and its stdio caps. Pure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "json_pos.h"
#include "profile_loader.h"
#include "profile_loader_get.h"
#include "profile_open_urls.h"
#include "profile_read_run.h"
#include "profile_read_sandbox.h"
#include "profile_read_values.h"
#include "strv.h"

#define TARGET(l, T) ((T *)(l)->target)

const char *const tool_path_list_names[_TOOL_PATH_LISTS] = {
	[TOOL_FS_READ] = "fs_read",
	[TOOL_FS_WRITE] = "fs_write",
	[TOOL_FS_READ_FILE] = "fs_read_file",
	[TOOL_FS_WRITE_FILE] = "fs_write_file",
	[TOOL_EXEC_PATHS] = "exec_paths",
};

struct raw_sandbox *raw_sandbox_free(struct raw_sandbox *sb)
{
	if (!sb)
		return NULL;
	for (size_t i = 0; i < _TOOL_PATH_LISTS; i++)
		raw_list_clear(&sb->paths[i]);
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		strv_free(sb->net_rules[i]);
	raw_run_clear(&sb->run);
	raw_list_clear(&sb->home_files);
	raw_open_urls_free(sb->open_urls);
	free(sb);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct raw_sandbox *, raw_sandbox_free)

/* fs_read, ... exec_paths (k->arg): paths, tokens and @groups as in the
 * filesystem section. */
static int read_sandbox_paths(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_paths(l, w, v, true, &TARGET(l, struct raw_sandbox)->paths[k->arg]);
}

/* ---- network ------------------------------------------------------------------ */

static int read_sandbox_net_mode(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_sandbox *sb = TARGET(l, struct raw_sandbox);
	int r = loader_get_net_mode(l, w, v, &sb->net);

	if (r < 0)
		return r;
	sb->net_set = true;
	sb->net_where = *w;
	return 0;
}

/* allow_domains, deny_domains, allow_addresses (k->arg: enum cordon_net_rule) */
static int read_sandbox_net_rules(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_sandbox *sb = TARGET(l, struct raw_sandbox);
	int r = loader_read_net_rules(l, w, v, (enum cordon_net_rule)k->arg, &sb->net_rules[k->arg]);

	if (r < 0)
		return r;
	if (!sb->net_rules_seen) {
		sb->net_rules_seen = true;
		sb->net_rules_where = *w;
	}
	return 0;
}

#define NET_RULES(kind, text) { read_sandbox_net_rules, .arg = kind, .type = JSON_ARRAY, .what = text }

static const char *const net_keys[] = { "mode", "allow_domains", "deny_domains", "allow_addresses", NULL };
static const struct loader_key net_readers[] = {
	{ read_sandbox_net_mode },
	NET_RULES(CORDON_NET_ALLOW_DOMAIN, "an array of domain names"),
	NET_RULES(CORDON_NET_DENY_DOMAIN, "an array of domain names"),
	NET_RULES(CORDON_NET_ALLOW_ADDRESS, "an array of addresses"),
};
static const struct loader_object net_object = { net_keys, net_readers };

/* One object: its host rules need its mode "proxy" (only the proxy
 * enforces them), as the profile's network section does. */
static int read_sandbox_network(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_sandbox *sb = TARGET(l, struct raw_sandbox);
	int r = loader_read_object(l, w, v, &net_object);

	if (r < 0)
		return r;
	if (sb->net_rules_seen)
		return loader_check_net_rules_mode(l, &sb->net_rules_where, sb->net_set ? sb->net : PROFILE_NET_NONE);
	return 0;
}

/* ---- environment, limits: the profile's readers, into this sandbox -------------- */

static int read_sandbox_run(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_sandbox *sb = TARGET(l, struct raw_sandbox);
	struct raw_run *saved = l->run;
	int r;

	l->run = &sb->run;
	r = loader_read_object(l, w, v, k->object);
	l->run = saved;
	return r;
}

/* ---- home_files ------------------------------------------------------------- */

/* A file of the real HOME the tool reads in its private one: a relative
 * path below HOME, nothing that climbs out of it. */
static int check_home_file(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	const char *p = s;

	if (!s[0] || s[0] == '/' || s[0] == '~')
		return loader_fail(l, -EINVAL, w, "\"%.100s\" is not a path relative to HOME (\".gitconfig\")", s);
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return loader_fail(l, -EINVAL, w,
					   "\"%.100s\": a path below HOME, without empty, \".\" or \"..\" components", s);
		p += n;
		if (*p == '/' && *++p == '\0')
			return loader_fail(l, -EINVAL, w, "\"%.100s\": a file, without a trailing '/'", s);
	}
	return 0;
}

static int read_sandbox_home_files(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_sandbox *sb = TARGET(l, struct raw_sandbox);
	size_t first = sb->home_files.n;
	int r = loader_read_list(l, w, v, "an array of paths relative to HOME", 4096, check_home_file, 0,
				 &sb->home_files);

	if (r < 0)
		return r;
	for (size_t i = first; i < sb->home_files.n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(sb->home_files.v[i].spelled, sb->home_files.v[j].spelled) == 0)
				return loader_fail(l, -EINVAL, &sb->home_files.v[i].where, "%s is named twice",
						   sb->home_files.v[i].spelled);
	return 0;
}

/* ---- stdio -------------------------------------------------------------------- */

static int read_stdio_max(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct tool_stdio *st = TARGET(l, struct tool_stdio);
	uint64_t n;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return loader_fail(l, -ERANGE, w, "must be from 1 byte to 1G, not %" JSON_INTEGER_FORMAT,
					   json_integer_value(v));
		n = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v)) {
		const char *s;
		int r = loader_get_string(l, w, v, 64, &s);

		if (r < 0)
			return r;
		if (cordon_parse_size(s, &n) < 0)
			return loader_fail(l, -EINVAL, w,
					   "\"%.64s\" is not a size (a number of bytes, or with a k, M, G or T suffix)", s);
	} else
		return loader_fail(l, -EINVAL, w, "expected a size (integer or \"64M\"), not %s", json_type_name(v));
	if (n < 1 || n > TOOLS_STDIO_MAX)
		return loader_fail(l, -ERANGE, w, "must be from 1 byte to 1G, not %" PRIu64, n);
	st->max_bytes = n;
	return 0;
}

static int read_stdio_on_limit(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	static const char *const words[] = { "truncate", "terminate" };
	size_t i = 0;
	int r = loader_get_word(l, w, v, words, ELEMENTSOF(words), "truncate or terminate", &i);

	if (r < 0)
		return r;
	TARGET(l, struct tool_stdio)->terminate = i == 1;
	return 0;
}

static const char *const stream_keys[] = { "max_bytes", "on_limit", NULL };
static const struct loader_key stream_readers[] = { { read_stdio_max }, { read_stdio_on_limit } };
static const struct loader_object stream_object = { stream_keys, stream_readers };

/* stdout or stderr (k->arg): max_bytes, and what happens there. */
static int read_stdio_stream(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct tool_stdio *st = &TARGET(l, struct raw_sandbox)->stdio[k->arg];
	int r = loader_read_into(l, w, v, &stream_object, st);

	if (r < 0)
		return r;
	if (!st->max_bytes)
		return loader_fail(l, -EINVAL, w, "needs \"max_bytes\": the most bytes the stream may carry");
	st->set = true;
	return 0;
}

#define STREAM(s) { read_stdio_stream, .arg = s, .type = JSON_OBJECT, .what = "{\"max_bytes\": N, \"on_limit\": ...}" }

static const char *const stdio_keys[] = { [TOOL_STDOUT] = "stdout", [TOOL_STDERR] = "stderr", NULL };
static const struct loader_key stdio_readers[] = { STREAM(TOOL_STDOUT), STREAM(TOOL_STDERR) };
static const struct loader_object stdio_object = { stdio_keys, stdio_readers };

/* ---- open_urls (profile_open_urls.c) ------------------------------------------ */

static int read_sandbox_open_urls(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_open_urls(l, w, v, &TARGET(l, struct raw_sandbox)->open_urls);
}

/* ---- the sandbox ------------------------------------------------------------------ */

#define PATHS(list) { read_sandbox_paths, .arg = list }

const char *const loader_sandbox_keys[] = {
	"fs_read", "fs_write", "fs_read_file", "fs_write_file", "exec_paths", "network", "environment", "limits",
	"stdio", "home_files", "open_urls", NULL,
};
static const struct loader_key sandbox_readers[] = {
	PATHS(TOOL_FS_READ),
	PATHS(TOOL_FS_WRITE),
	PATHS(TOOL_FS_READ_FILE),
	PATHS(TOOL_FS_WRITE_FILE),
	PATHS(TOOL_EXEC_PATHS),
	{ read_sandbox_network, .type = JSON_OBJECT, .what = "an object" },
	{ read_sandbox_run, .object = &loader_environment_object },
	{ read_sandbox_run, .object = &loader_limits_object },
	{ loader_read_nested, .object = &stdio_object },
	{ read_sandbox_home_files },
	{ read_sandbox_open_urls },
};
static const struct loader_object sandbox_object = { loader_sandbox_keys, sandbox_readers };

int loader_read_sandbox(struct loader *l, const struct where *w, json_t *v, struct raw_sandbox **ret)
{
	_cleanup_(raw_sandbox_freep) struct raw_sandbox *sb = calloc(1, sizeof(*sb));
	int r;

	if (!sb)
		return -ENOMEM;
	sb->where = *w;
	r = loader_read_into(l, w, v, &sandbox_object, sb);
	if (r < 0)
		return r;
	raw_sandbox_free(*ret);
	*ret = TAKE_PTR(sb);
	return 0;
}
