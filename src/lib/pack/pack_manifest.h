/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * pack.json, the signed manifest of a pack:
 *   { "name": "OWNER/NAME", "version": "1.2.3", "description": "...",
 *     "profiles": { "PROFILE": "FILE", ... },
 *     "files": { "FILE": "SHA-256 in hex", ... } }
 * Parsed under caps; every name and path checked (no "..", no absolute
 * path, no file the list does not hash, no profile outside the list).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/common.h"

#define PACK_MANIFEST_MAX_BYTES (256 * 1024)
#define PACK_MAX_FILES 256
#define PACK_MAX_FILE_BYTES (1024 * 1024) /* a profile's own cap */
#define PACK_MAX_TOTAL_BYTES (8 * 1024 * 1024)
#define PACK_NAME_MAX 64

struct pack_file {
	char *path;        /* relative, checked */
	uint8_t sha256[32];
};

struct pack_profile_entry {
	char *name;
	char *file;        /* one of files[] */
};

struct pack_manifest {
	char owner[PACK_NAME_MAX + 1], name[PACK_NAME_MAX + 1];
	char *version, *description;
	unsigned version_parts[3];
	struct pack_file *files;
	size_t n_files;
	struct pack_profile_entry *profiles;
	size_t n_profiles;
};

void pack_manifest_free(struct pack_manifest *m);

/* Parse pack.json's bytes; -EBADMSG with the reason. */
int pack_manifest_parse(const char *text, size_t len, struct pack_manifest **ret, struct cordon_error *reterr);

/* A name part of OWNER/NAME or a profile's name: [a-z0-9][a-z0-9._-]*. */
bool pack_name_ok(const char *s);

/* The file entry for path, or NULL. */
const struct pack_file *pack_manifest_file(const struct pack_manifest *m, const char *path);
const struct pack_profile_entry *pack_manifest_profile(const struct pack_manifest *m, const char *name);

/* <0, 0, >0 as a's version is lower, equal, higher than b's. */
int pack_version_cmp(const struct pack_manifest *a, const struct pack_manifest *b);
