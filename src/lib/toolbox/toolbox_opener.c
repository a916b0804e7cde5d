/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host's URL opener, found and checked at session start (toolbox_opener.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "toolbox_opener.h"
#include "toolbox_writable.h"

int toolbox_url_opener(const char *search_path, char *const *writable, char **ret, struct cordon_error *reterr)
{
	const char *b = secure_getenv("CORDON_BROWSER"), *p;
	_cleanup_free_ char *found = NULL, *canon = NULL;
	int r;

	if (b && strcmp(b, "none") == 0) {
		*ret = NULL;
		return 0;
	}
	if (b && b[0]) {
		if (b[0] != '/')
			return error_set(reterr, -EINVAL, "CORDON_BROWSER must be an absolute path (or \"none\"), not "
					 "\"%.200s\"", b);
		found = strdup(b);
		if (!found)
			return -ENOMEM;
	}
	for (p = search_path && search_path[0] ? search_path : "/usr/local/bin:/usr/bin:/bin"; !found && *p;) {
		size_t n = strcspn(p, ":");
		char *cand = NULL;

		if (n > 0 && p[0] == '/' && asprintf(&cand, "%.*s/xdg-open", (int)n, p) >= 0) {
			if (access(cand, X_OK) == 0)
				found = cand;
			else
				free(cand);
		}
		p += n;
		if (*p == ':')
			p++;
	}
	if (!found) {
		*ret = NULL;
		return 0;
	}
	r = cordon_canonicalize(found, &canon, reterr);
	if (r < 0)
		return r;
	r = toolbox_check_unwritable(writable, "host's URL opener (CORDON_BROWSER, or xdg-open on PATH)", canon,
				     reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(canon);
	return 0;
}
