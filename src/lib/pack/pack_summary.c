/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a pack's profiles grant, in words, one line a grant (modes, reads,
 * writes, network, controlled commands, credentials and lifted groups),
 * and the lines two versions differ by: what `cordon pack install` and
 * `show` print. Read from the verified bytes.
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack_summary.h"

static void add_list(FILE *f, const char *prefix, const char *what, json_t *v)
{
	size_t i;
	json_t *x;

	if (!json_is_array(v))
		return;
	json_array_foreach(v, i, x) {
		const char *s = json_is_string(x) ? json_string_value(x) : json_string_value(json_object_get(x, "path"));

		if (s)
			fprintf(f, "%s %s: %s\n", prefix, what, s);
	}
}

/* One line per grant of each profile, sorted by profile (diffable). */
int pack_summary(const struct pack_image *img, char **ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < img->m->n_profiles; i++) {
		const char *text, *key;
		size_t len = 0;
		json_t *root, *v, *cmds, *cmd;
		char prefix[140];

		text = pack_image_profile(img, img->m->profiles[i].name, &len);
		root = text ? json_loadb(text, len, 0, NULL) : NULL;
		snprintf(prefix, sizeof(prefix), "  %s/%s/%s", img->m->owner, img->m->name, img->m->profiles[i].name);
		if (!root)
			continue;
		v = json_object_get(root, "mode");
		fprintf(f, "%s mode: %s\n", prefix, json_is_string(v) ? json_string_value(v) : "workspace-write");
		if ((v = json_object_get(root, "extends")) && json_is_string(v))
			fprintf(f, "%s extends: %s\n", prefix, json_string_value(v));
		add_list(f, prefix, "reads", json_object_get(json_object_get(root, "filesystem"), "read"));
		add_list(f, prefix, "writes", json_object_get(json_object_get(root, "filesystem"), "write"));
		v = json_object_get(json_object_get(root, "network"), "mode");
		fprintf(f, "%s network: %s\n", prefix, json_is_string(v) ? json_string_value(v) : "(inherited)");
		add_list(f, prefix, "network host", json_object_get(json_object_get(root, "network"), "allow_domains"));
		cmds = json_object_get(json_object_get(root, "command_policies"), "commands");
		json_object_foreach(cmds, key, cmd) {
			char p2[300];
			json_t *sb = json_object_get(cmd, "sandbox");

			fprintf(f, "%s controlled command: %s\n", prefix, key);
			snprintf(p2, sizeof(p2), "%s command %s", prefix, key);
			add_list(f, p2, "writes", json_object_get(sb, "fs_write"));
			add_list(f, p2, "network host", json_object_get(json_object_get(sb, "network"), "allow_domains"));
		}
		fprintf(f, "%s credential names: none; lifted groups: none (a pack may carry neither)\n", prefix);
		json_decref(root);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* Lines of b not in a, with mark. */
void pack_summary_diff(FILE *f, const char *a, const char *b, char mark)
{
	const char *p = b;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = a;
		bool found = false;

		while (!found && *q) {
			const char *ql = strchr(q, '\n');
			size_t m = ql ? (size_t)(ql - q) : strlen(q);

			found = m == n && memcmp(p, q, n) == 0;
			q += m + (ql ? 1 : 0);
		}
		if (!found)
			fprintf(f, "%c %.*s\n", mark, (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}
