/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pack.json parsed and checked under caps (pure: bytes in, a manifest or
 * the reason out; fuzzed). Which bytes it was given is the caller's care:
 * the ones the signature was checked over.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cleanup.h"
#include "error.h"
#include "hex.h"
#include "pack_manifest.h"
#include "profile_find.h"


void pack_manifest_free(struct pack_manifest *m)
{
	if (!m)
		return;
	free(m->version);
	free(m->description);
	for (size_t i = 0; i < m->n_files; i++)
		free(m->files[i].path);
	free(m->files);
	for (size_t i = 0; i < m->n_profiles; i++) {
		free(m->profiles[i].name);
		free(m->profiles[i].file);
	}
	free(m->profiles);
	free(m);
}

bool pack_name_ok(const char *s)
{
	return profile_pack_part_ok(s, strlen(s));
}

/* A relative path of plain components: [A-Za-z0-9._-], none "." or "..",
 * none starting with '.', at most 8 deep and 200 bytes. */
static bool file_path_ok(const char *p)
{
	size_t n = strlen(p), depth = 1, comp = 0;

	if (n == 0 || n > 200)
		return false;
	for (size_t i = 0; i <= n; i++) {
		char c = p[i];

		if (c == '/' || c == '\0') {
			if (comp == 0)
				return false;
			comp = 0;
			if (c == '/' && ++depth > 8)
				return false;
			continue;
		}
		if (comp == 0 && c == '.')
			return false; /* ".", "..", hidden names */
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return false;
		comp++;
	}
	/* the signature and the manifest are not files of the list */
	return strcmp(p, "pack.json") != 0 && strcmp(p, "pack.json.sig") != 0;
}

static int parse_version(const char *v, unsigned parts[3])
{
	unsigned long x[3];
	char *end;
	const char *p = v;

	for (int i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
			return -EINVAL;
		x[i] = strtoul(p, &end, 10);
		if (x[i] > 999999 || (i < 2 && *end != '.') || (i == 2 && *end))
			return -EINVAL;
		p = end + 1;
	}
	for (int i = 0; i < 3; i++)
		parts[i] = (unsigned)x[i];
	return 0;
}

static int parse_files(json_t *files, struct pack_manifest *m, struct cordon_error *reterr)
{
	const char *path;
	json_t *v;

	if (!json_is_object(files) || json_object_size(files) == 0)
		return error_set(reterr, -EBADMSG, "pack.json: \"files\" must be an object of path: sha256");
	if (json_object_size(files) > PACK_MAX_FILES)
		return error_set(reterr, -EBADMSG, "pack.json: more than %d files", PACK_MAX_FILES);
	m->files = calloc(json_object_size(files), sizeof(*m->files));
	if (!m->files)
		return -ENOMEM;
	json_object_foreach(files, path, v) {
		struct pack_file *f = &m->files[m->n_files];
		const char *h = json_string_value(v);

		if (!file_path_ok(path))
			return error_set(reterr, -EBADMSG,
					 "pack.json: the file \"%.100s\" is not a plain relative path", path);
		if (!h || strlen(h) != 64)
			return error_set(reterr, -EBADMSG, "pack.json: the hash of \"%.100s\" is not 64 hex digits",
					 path);
		for (size_t i = 0; i < 32; i++) {
			int hi = hex_digit_value(h[2 * i]), lo = hex_digit_value(h[2 * i + 1]);

			if (hi < 0 || lo < 0 || (h[2 * i] >= 'A' && h[2 * i] <= 'F') ||
			    (h[2 * i + 1] >= 'A' && h[2 * i + 1] <= 'F'))
				return error_set(reterr, -EBADMSG,
						 "pack.json: the hash of \"%.100s\" is not lowercase hex", path);
			f->sha256[i] = (uint8_t)(hi << 4 | lo);
		}
		if (!(f->path = strdup(path)))
			return -ENOMEM;
		m->n_files++;
	}
	return 0;
}

static int parse_profiles(json_t *profiles, struct pack_manifest *m, struct cordon_error *reterr)
{
	const char *name;
	json_t *v;

	if (!json_is_object(profiles) || json_object_size(profiles) == 0)
		return error_set(reterr, -EBADMSG, "pack.json: \"profiles\" must be an object of name: file");
	m->profiles = calloc(json_object_size(profiles), sizeof(*m->profiles));
	if (!m->profiles)
		return -ENOMEM;
	json_object_foreach(profiles, name, v) {
		struct pack_profile_entry *e = &m->profiles[m->n_profiles];
		const char *file = json_string_value(v);

		if (!pack_name_ok(name))
			return error_set(reterr, -EBADMSG,
					 "pack.json: the profile name \"%.64s\" is not [a-z0-9][a-z0-9._-]*", name);
		if (!file || !pack_manifest_file(m, file))
			return error_set(reterr, -EBADMSG,
					 "pack.json: the profile \"%s\" names a file \"files\" does not list", name);
		e->name = strdup(name);
		e->file = strdup(file);
		if (!e->name || !e->file)
			return -ENOMEM;
		m->n_profiles++;
	}
	return 0;
}

int pack_manifest_parse(const char *text, size_t len, struct pack_manifest **ret, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *root = NULL;
	struct pack_manifest *m;
	json_error_t jerr;
	const char *key, *name, *version, *description, *slash;
	json_t *v;
	int r;

	if (len > PACK_MANIFEST_MAX_BYTES)
		return error_set(reterr, -EBADMSG, "pack.json is larger than %d bytes", PACK_MANIFEST_MAX_BYTES);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return error_set(reterr, -EBADMSG, "pack.json:%d:%d: %s", jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root))
		return error_set(reterr, -EBADMSG, "pack.json is not a JSON object");
	json_object_foreach(root, key, v) if (strcmp(key, "name") && strcmp(key, "version") &&
					      strcmp(key, "description") && strcmp(key, "profiles") &&
					      strcmp(key, "files")) return error_set(reterr, -EBADMSG,
										     "pack.json: unknown key \"%.64s\"",
										     key);
	name = json_string_value(json_object_get(root, "name"));
	version = json_string_value(json_object_get(root, "version"));
	description = json_string_value(json_object_get(root, "description"));
	if (!name || !(slash = strchr(name, '/')) || (size_t)(slash - name) > PACK_NAME_MAX ||
	    strlen(slash + 1) > PACK_NAME_MAX)
		return error_set(reterr, -EBADMSG, "pack.json: \"name\" must be \"OWNER/NAME\"");
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	memcpy(m->owner, name, (size_t)(slash - name));
	snprintf(m->name, sizeof(m->name), "%s", slash + 1);
	if (!pack_name_ok(m->owner) || !pack_name_ok(m->name))
		r = error_set(reterr, -EBADMSG,
			      "pack.json: \"name\" must be \"OWNER/NAME\", each [a-z0-9][a-z0-9._-]*");
	else if (!version || parse_version(version, m->version_parts) < 0)
		r = error_set(reterr, -EBADMSG, "pack.json: \"version\" must be MAJOR.MINOR.PATCH");
	else if (description && strlen(description) > 1024)
		r = error_set(reterr, -EBADMSG, "pack.json: \"description\" is longer than 1024 bytes");
	else if (!(m->version = strdup(version)) || !(m->description = strdup(description ? description : "")))
		r = -ENOMEM;
	else if ((r = parse_files(json_object_get(root, "files"), m, reterr)) >= 0)
		r = parse_profiles(json_object_get(root, "profiles"), m, reterr);
	if (r < 0) {
		pack_manifest_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

const struct pack_file *pack_manifest_file(const struct pack_manifest *m, const char *path)
{
	for (size_t i = 0; i < m->n_files; i++)
		if (strcmp(m->files[i].path, path) == 0)
			return &m->files[i];
	return NULL;
}

const struct pack_profile_entry *pack_manifest_profile(const struct pack_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n_profiles; i++)
		if (strcmp(m->profiles[i].name, name) == 0)
			return &m->profiles[i];
	return NULL;
}

int pack_version_cmp(const struct pack_manifest *a, const struct pack_manifest *b)
{
	for (int i = 0; i < 3; i++)
		if (a->version_parts[i] != b->version_parts[i])
			return a->version_parts[i] < b->version_parts[i] ? -1 : 1;
	return 0;
}
