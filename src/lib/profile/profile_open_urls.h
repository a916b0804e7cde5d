/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* open_urls, in a command's sandbox or at the top (the session's):
 * read with positions, checked, compiled (profile_open_urls.c). */

#include "profile_loader.h"

#define OPEN_URLS_MAX_ORIGINS 64
#define OPEN_URLS_MAX_PORTS 16
#define OPEN_URLS_MAX_PREFIXES 64
#define OPEN_URLS_RATE_DEFAULT 10  /* per minute */

struct raw_open_urls {
	struct where where;
	struct raw_list origins, prefixes;
	uint16_t ports[OPEN_URLS_MAX_PORTS];
	size_t n_ports;
	bool approve;                  /* default true */
	const char *backend;           /* owned by the document's JSON */
	struct where backend_where;
	unsigned rate_per_minute;
};

/* An open_urls object into *ret (replacing what was there). */
int loader_read_open_urls(struct loader *l, const struct where *w, json_t *v, struct raw_open_urls **ret);
/* The top-level key: the session's open_urls (l->tools.session_open_urls). */
int loader_read_session_open_urls(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
struct raw_open_urls *raw_open_urls_free(struct raw_open_urls *o);
/* The compiled form (the backend's existence is checked by the caller). */
int open_urls_compile(const struct raw_open_urls *ro, struct tool_open_urls **ret);
