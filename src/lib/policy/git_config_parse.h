/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * git's configuration file syntax, parsed in full from untrusted bytes
 * (git_config_parse.c): sections, quoted subsections, the legacy
 * [section.sub] form, bare boolean keys, quoted values with escapes and
 * line continuations, comments. What git would reject is -EINVAL here too;
 * more than GIT_CONFIG_PARSE_MAX_BYTES is -EFBIG. Nothing is expanded,
 * included or spawned.
 */

#include <stdbool.h>
#include <stddef.h>

#define GIT_CONFIG_PARSE_MAX_BYTES ((size_t)1024 * 1024)
#define GIT_CONFIG_PARSE_MAX_ENTRIES 4096

struct git_config_entry {
	char *section;          /* lower case */
	char *subsection;       /* as written (case matters), or NULL */
	char *key;              /* lower case */
	char *value;            /* NULL: a bare key (boolean true) */
};

struct git_config {
	struct git_config_entry *v;
	size_t n;
};

int git_config_parse(const char *text, size_t len, struct git_config *ret);
void git_config_clear(struct git_config *c);

/* "section.sub.key" into buf (truncated to size). */
void git_config_entry_name(const struct git_config_entry *e, char *buf, size_t size);

/* The same entries written back in one canonical form that git reads as
 * exactly these entries: a malloc'd, NUL-terminated text. -EINVAL when a
 * subsection holds a newline or a NUL (nothing writes that back). */
int git_config_serialise(const struct git_config *c, char **ret, size_t *ret_len);
