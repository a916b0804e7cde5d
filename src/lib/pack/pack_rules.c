/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The keys a pack's profile may not hold, found by walking its JSON (the
 * tree the profile loader reads too: the loader checks the profile is
 * valid, this names what a pack may not grant). Every refusal names the
 * key by its JSON pointer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cleanup.h"
#include "error.h"
#include "pack_manifest.h"
#include "pack_rules.h"
#include "profile.h"


/* Keys refused wherever they are, and why. */
static const struct {
	const char *key, *why;
} refused_keys[] = {
	{ "credentials", "a pack may not define credentials (values and sources are the user's own profile's)" },
	{ "credential_capture", "a pack may not capture credentials" },
	{ "approval_backends", "a pack may not choose approval backends" },
	{ "webhook", "a pack may not name a webhook" },
	{ "backends", "a pack may not choose approval backends" },
	{ "open_urls", "a pack may not open URLs on the host" },
	{ "allow_addresses", "a pack may not allow network addresses" },
	{ "allow_unix_sockets", "a pack may not allow unix sockets" },
	{ "groups", "a pack may not bypass or lift a group (credentials, persistence, system_write)" },
	{ "bypass", "a pack may not bypass a group" },
	{ "lift", "a pack may not lift a credential group" },
	{ "workspace", "a pack may not choose the workspace" },
	{ "source", "a pack may not name a credential source" },
};

/* Keys whose values are paths a sandbox may write. */
static bool is_write_key(const char *parent, const char *key)
{
	return (strcmp(parent, "filesystem") == 0 && strcmp(key, "write") == 0) || strcmp(key, "fs_write") == 0 ||
	       strcmp(key, "fs_write_file") == 0;
}

/* A write inside the workspace: "$WORKSPACE", "$WORKSPACE/...", or a
 * relative path (the loader resolves it in the workspace); never "..". */
static bool write_inside_workspace(const char *p)
{
	const char *rest;

	if (strncmp(p, "$WORKSPACE", 10) == 0 && (p[10] == '\0' || p[10] == '/'))
		rest = p + 10;
	else if (p[0] == '\0' || p[0] == '/' || p[0] == '$' || p[0] == '~' || p[0] == '@')
		return false;
	else
		rest = p;
	for (const char *s = rest; (s = strstr(s, "..")); s += 2)
		if ((s == rest || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return false;
	return true;
}

/* extends: a built-in profile, or a profile of this same pack by its full
 * name OWNER/NAME/PROFILE. */
static bool extends_ok(const char *target, const char *owner, const char *name)
{
	const char *text;
	size_t len, ol = strlen(owner), nl = strlen(name);

	if (profile_builtin_text(target, &text, &len) == 0)
		return true;
	return strncmp(target, owner, ol) == 0 && target[ol] == '/' && strncmp(target + ol + 1, name, nl) == 0 &&
	       target[ol + 1 + nl] == '/' && pack_name_ok(target + ol + 2 + nl);
}

struct walk {
	const char *owner, *name;
	struct cordon_error *reterr;
};

static int walk(const struct walk *w, json_t *v, const char *parent, char *ptr, size_t ptr_len, size_t cap,
		unsigned depth)
{
	const char *key;
	json_t *child;

	if (depth > 32)
		return error_set(w->reterr, -EPERM, "%s: nested too deep", ptr);
	if (json_is_array(v)) {
		size_t i;

		json_array_foreach(v, i, child) {
			int n = snprintf(ptr + ptr_len, cap - ptr_len, "/%zu", i), r;

			if (n < 0 || (size_t)n >= cap - ptr_len)
				return error_set(w->reterr, -EPERM, "a key's path is too long");
			r = walk(w, child, parent, ptr, ptr_len + (size_t)n, cap, depth + 1);
			ptr[ptr_len] = '\0';
			if (r < 0)
				return r;
		}
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	json_object_foreach(v, key, child) {
		int n = snprintf(ptr + ptr_len, cap - ptr_len, "/%s", key), r = 0;

		if (n < 0 || (size_t)n >= cap - ptr_len)
			return error_set(w->reterr, -EPERM, "a key's path is too long");
		for (size_t i = 0; i < sizeof(refused_keys) / sizeof(refused_keys[0]); i++)
			if (strcmp(key, refused_keys[i].key) == 0)
				return error_set(w->reterr, -EPERM, "%s: %s", ptr, refused_keys[i].why);
		if (strcmp(key, "mode") == 0 && json_is_string(child) &&
		    (strcmp(json_string_value(child), "danger-full-access") == 0 ||
		     (strcmp(parent, "network") == 0 && strcmp(json_string_value(child), "host") == 0)))
			return error_set(w->reterr, -EPERM, "%s: a pack may not grant \"%s\"", ptr,
					 json_string_value(child));
		if (strcmp(key, "extends") == 0 && (!json_is_string(child) ||
						    !extends_ok(json_string_value(child), w->owner, w->name)))
			return error_set(w->reterr, -EPERM,
					 "%s: a pack's profile extends only built-in profiles or its own pack's "
					 "(\"%s/%s/PROFILE\")",
					 ptr, w->owner, w->name);
		if (is_write_key(parent, key)) {
			json_t *items = json_is_array(child) ? child : NULL;
			size_t i;
			json_t *item;

			if (!items)
				return error_set(w->reterr, -EPERM, "%s: expected a list of paths", ptr);
			json_array_foreach(items, i, item) {
				const char *s = json_is_string(item) ? json_string_value(item) :
						json_string_value(json_object_get(item, "path"));

				if (!s || !write_inside_workspace(s))
					return error_set(w->reterr, -EPERM,
							 "%s/%zu: a pack may write only inside the workspace "
							 "($WORKSPACE/...)",
							 ptr, i);
			}
		}
		r = walk(w, child, key, ptr, ptr_len + (size_t)n, cap, depth + 1);
		ptr[ptr_len] = '\0';
		if (r < 0)
			return r;
	}
	return 0;
}

int pack_rules_check(const char *text, size_t len, const char *owner, const char *name, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *root = NULL;
	struct walk w = {owner, name, reterr};
	json_error_t jerr;
	char ptr[1024] = "";

	if (len > PROFILE_MAX_BYTES)
		return error_set(reterr, -EBADMSG, "larger than %zu bytes", (size_t)PROFILE_MAX_BYTES);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root || !json_is_object(root))
		return error_set(reterr, -EBADMSG, "%d:%d: not a JSON object: %s", jerr.line, jerr.column,
				 root ? "" : jerr.text);
	return walk(&w, root, "", ptr, 0, sizeof(ptr), 0);
}
