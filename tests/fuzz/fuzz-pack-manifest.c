/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pack.json (pack_manifest.c) and a pack profile's carry rules
 * (pack_rules.c) on arbitrary bytes: no crash, and a manifest that parses
 * holds only plain relative paths and profiles that name listed files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pack_manifest.h"
#include "pack_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pack_manifest *m = NULL;
	struct cordon_error why;

	(void)pack_rules_check((const char *)data, size, "acme", "tools", &why);
	if (pack_manifest_parse((const char *)data, size, &m, &why) < 0)
		return 0;
	for (size_t i = 0; i < m->n_files; i++)
		if (m->files[i].path[0] == '/' || strstr(m->files[i].path, ".."))
			abort();
	for (size_t i = 0; i < m->n_profiles; i++)
		if (!pack_manifest_file(m, m->profiles[i].file))
			abort();
	pack_manifest_free(m);
	return 0;
}
