/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cordon/cordon.h"

/*
 * The host's URL opener for open_urls (toolbox_opener.c), found once at
 * session start: CORDON_BROWSER from cordon's own environment (an absolute
 * path; "none": no opener), else xdg-open on the session's search path.
 * The supervisor runs it outside every sandbox, so like cordon's own
 * binaries it may not lie where any sandbox of the session can write.
 */

/* 0 with *ret the canonical path, or NULL for no opener (the URL is
 * printed instead); -EINVAL for a relative CORDON_BROWSER, -EPERM when it
 * lies in one of writable (naming it). */
int toolbox_url_opener(const char *search_path, char *const *writable, char **ret, struct cordon_error *reterr);
