/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * git's config syntax (git_config_parse.c) on arbitrary bytes: what a
 * sandboxed run renames onto a repository's config. It must never crash;
 * what it parses must pass the safe list or not (git_config_safe.c)
 * without crashing; and what it writes back must parse again to the same
 * entries (the installed copy says exactly what was checked).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git_config_parse.h"
#include "git_config_safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct git_config c = {}, again = {};
	const char *why = NULL;
	char key[256], *text = NULL;
	size_t len = 0;

	if (git_config_parse((const char *)data, size, &c) < 0)
		return 0;
	(void)git_config_check(&c, &c, key, sizeof(key), &why);
	(void)git_config_check(&c, NULL, key, sizeof(key), &why);
	if (git_config_serialise(&c, &text, &len) == 0) {
		if (git_config_parse(text, len, &again) < 0 || again.n != c.n)
			abort();
		for (size_t i = 0; i < c.n; i++)
			if (!same(c.v[i].section, again.v[i].section) || !same(c.v[i].subsection, again.v[i].subsection) ||
			    !same(c.v[i].key, again.v[i].key) || !same(c.v[i].value, again.v[i].value))
				abort();
		git_config_clear(&again);
		free(text);
	}
	git_config_clear(&c);
	return 0;
}
