/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * open_urls, read and compiled: which URLs a consumer (the session, at
 * the top; a command, in its own sandbox) may ask the host to open.
 *
 *   "open_urls": { "allow_origins": ["https://github.com"],
 *                  "allow_localhost_ports": [8080],
 *                  "path_prefixes": ["/login/"],
 *                  "approve": true, "backend": "me",
 *                  "rate_per_minute": 10 }
 *
 * Origins are written canonically (url_check.c's rules: exactly what a
 * browser would serialise, https, a named host, no path); http only to
 * the listed localhost ports. An approval needs its backend named; only
 * "approve": false opens without asking. Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "json_pos.h"
#include "profile_loader_get.h"
#include "profile_open_urls.h"
#include "strv.h"
#include "tools.h"
#include "url_check.h"

#define TARGET(l) ((struct raw_open_urls *)(l)->target)

struct raw_open_urls *raw_open_urls_free(struct raw_open_urls *o)
{
	if (!o)
		return NULL;
	raw_list_clear(&o->origins);
	raw_list_clear(&o->prefixes);
	free(o);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct raw_open_urls *, raw_open_urls_free)

static int check_origin(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	char o[URL_ORIGIN_MAX];
	struct cordon_error why;

	if (url_origin_check(s, o, &why) < 0)
		return loader_fail(l, -EINVAL, w, "\"%.200s\": %s", s, why.message);
	return 0;
}

static int check_prefix(struct loader *l, const struct where *w, const char *s, intptr_t unused)
{
	struct cordon_error why;

	if (url_path_prefix_check(s, &why) < 0)
		return loader_fail(l, -EINVAL, w, "\"%.200s\": %s", s, why.message);
	return 0;
}

static int read_origins(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_list(l, w, v, "an array of origins (\"https://github.com\")", URL_ORIGIN_MAX,
				check_origin, 0, &TARGET(l)->origins);
}

static int read_prefixes(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_list(l, w, v, "an array of paths (\"/login/\")", 1024, check_prefix, 0,
				&TARGET(l)->prefixes);
}

static int read_ports(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	struct raw_open_urls *o = TARGET(l);
	size_t i;
	json_t *e;
	int r;

	r = loader_expect(l, w, v, JSON_ARRAY, "an array of port numbers");
	if (r < 0)
		return r;
	json_array_foreach(v, i, e) {
		struct where we = where_child(w, NULL, i);

		if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > 65535)
			return loader_fail(l, -EINVAL, &we, "a localhost port is a number from 1 to 65535");
		if (o->n_ports >= OPEN_URLS_MAX_PORTS)
			return loader_fail(l, -E2BIG, &we, "more than %d localhost ports", OPEN_URLS_MAX_PORTS);
		for (size_t j = 0; j < o->n_ports; j++)
			if (o->ports[j] == (uint16_t)json_integer_value(e))
				return loader_fail(l, -EINVAL, &we, "port %u is named twice", (unsigned)o->ports[j]);
		o->ports[o->n_ports++] = (uint16_t)json_integer_value(e);
	}
	return 0;
}

static int read_approve(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	if (!json_is_boolean(v))
		return loader_fail(l, -EINVAL, w, "expected true or false, not %s", json_type_name(v));
	TARGET(l)->approve = json_is_true(v);
	return 0;
}

static int read_backend(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	int r = loader_get_string(l, w, v, TOOLS_NAME_MAX, &TARGET(l)->backend);

	if (r < 0)
		return r;
	TARGET(l)->backend_where = *w;
	return 0;
}

static int read_rate(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > OPEN_URLS_RATE_MAX)
		return loader_fail(l, -EINVAL, w, "rate_per_minute is a number from 1 to %d", OPEN_URLS_RATE_MAX);
	TARGET(l)->rate_per_minute = (unsigned)json_integer_value(v);
	return 0;
}

static const char *const open_urls_keys[] = {
	"allow_origins", "allow_localhost_ports", "path_prefixes", "approve", "backend", "rate_per_minute", NULL,
};
static const struct loader_key open_urls_readers[] = {
	{ read_origins }, { read_ports }, { read_prefixes }, { read_approve }, { read_backend }, { read_rate },
};
static const struct loader_object open_urls_object = { open_urls_keys, open_urls_readers };

int loader_read_open_urls(struct loader *l, const struct where *w, json_t *v, struct raw_open_urls **ret)
{
	_cleanup_(raw_open_urls_freep) struct raw_open_urls *o = calloc(1, sizeof(*o));
	int r;

	if (!o)
		return -ENOMEM;
	r = loader_expect(l, w, v, JSON_OBJECT, "an open_urls object");
	if (r < 0)
		return r;
	o->where = *w;
	o->approve = true;
	o->rate_per_minute = OPEN_URLS_RATE_DEFAULT;
	r = loader_read_into(l, w, v, &open_urls_object, o);
	if (r < 0)
		return r;
	if (o->origins.n == 0 && o->n_ports == 0)
		return loader_fail(l, -EINVAL, w,
				   "open_urls allows nothing: name allow_origins or allow_localhost_ports");
	if (o->origins.n > OPEN_URLS_MAX_ORIGINS || o->prefixes.n > OPEN_URLS_MAX_PREFIXES)
		return loader_fail(l, -E2BIG, w, "more than %d origins or path prefixes", OPEN_URLS_MAX_ORIGINS);
	if (o->approve && !o->backend)
		return loader_fail(l, -EINVAL, w,
				   "open_urls asks before opening: name its approval \"backend\" (one of "
				   "command_policies.approval_backends), or say \"approve\": false");
	raw_open_urls_free(*ret);
	*ret = TAKE_PTR(o);
	return 0;
}

int loader_read_session_open_urls(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k)
{
	return loader_read_open_urls(l, w, v, &l->tools.session_open_urls);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct tool_open_urls *, tool_open_urls_free)

int open_urls_compile(const struct raw_open_urls *ro, struct tool_open_urls **ret)
{
	_cleanup_(tool_open_urls_freep) struct tool_open_urls *o = calloc(1, sizeof(*o));
	struct profile_origin origin = {};
	int column, r;

	if (!o || !(o->origins = calloc(1, sizeof(char *))) || !(o->path_prefixes = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < ro->origins.n; i++)
		if ((r = strv_push_unique(&o->origins, ro->origins.v[i].spelled)) < 0)
			return r;
	for (size_t i = 0; i < ro->prefixes.n; i++)
		if ((r = strv_push_unique(&o->path_prefixes, ro->prefixes.v[i].spelled)) < 0)
			return r;
	memcpy(o->ports, ro->ports, sizeof(o->ports));
	o->n_ports = ro->n_ports;
	o->approve = ro->approve;
	o->rate_per_minute = ro->rate_per_minute;
	if (ro->backend && !(o->backend = strdup(ro->backend)))
		return -ENOMEM;
	r = where_origin(&ro->where, &origin);
	if (r < 0)
		return r;
	o->place.file = origin.file;
	o->place.pointer = origin.pointer;
	where_position(&ro->where, &o->place.line, &column);
	*ret = TAKE_PTR(o);
	return 0;
}
