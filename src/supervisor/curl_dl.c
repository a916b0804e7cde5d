/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcurl by dlopen (curl_dl.h says why), in the manner of systemd's
 * dlopen helpers: one table of function pointers, filled all at once or
 * not at all, so a missing symbol is found before anything is asked.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "curl_dl.h"
#include "errbuf.h"

int curl_dl_load(const char *soname, struct curl_dl *ret, char *err, size_t errlen)
{
	struct curl_dl t = {};
	/* every member of t, with its symbol's name */
	const struct {
		void **slot;
		const char *name;
	} syms[] = {
		{(void **)&t.global_init, "curl_global_init"},
		{(void **)&t.easy_init, "curl_easy_init"},
		{(void **)&t.easy_setopt, "curl_easy_setopt"},
		{(void **)&t.easy_perform, "curl_easy_perform"},
		{(void **)&t.easy_getinfo, "curl_easy_getinfo"},
		{(void **)&t.easy_cleanup, "curl_easy_cleanup"},
		{(void **)&t.easy_strerror, "curl_easy_strerror"},
		{(void **)&t.slist_append, "curl_slist_append"},
		{(void **)&t.slist_free_all, "curl_slist_free_all"},
		{(void **)&t.free, "curl_free"},
		{(void **)&t.url, "curl_url"},
		{(void **)&t.url_set, "curl_url_set"},
		{(void **)&t.url_get, "curl_url_get"},
		{(void **)&t.url_cleanup, "curl_url_cleanup"},
	};
	const char *why;
	void *dl;

	_Static_assert(ELEMENTSOF(syms) == sizeof(t) / sizeof(void *), "every member of struct curl_dl is resolved");
	dl = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		why = dlerror();
		return errbuf_set(err, errlen, -ENOENT, "libcurl cannot be loaded (%s): %s", soname,
				  why ? why : "unknown error");
	}
	for (size_t i = 0; i < ELEMENTSOF(syms); i++) {
		(void)dlerror();
		*syms[i].slot = dlsym(dl, syms[i].name);
		if (!*syms[i].slot) {
			why = dlerror();
			errbuf_set(err, errlen, -ENOSYS, "libcurl (%s) has no %s: %s", soname, syms[i].name,
				   why ? why : "the symbol is NULL");
			dlclose(dl);
			return -ENOSYS;
		}
	}
	*ret = t;
	return 0;
}

static const char *wanted_soname = CURL_DL_SONAME;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct curl_dl table;
static const struct curl_dl *loaded;
static char load_error[512];

void curl_dl_set_soname(const char *soname)
{
	wanted_soname = soname;
}

/* curl_global_init is not safe to race with itself or with another
 * thread's handles: it runs here, once, before any handle exists. */
static void load_once(void)
{
	CURLcode c;

	if (curl_dl_load(wanted_soname, &table, load_error, sizeof(load_error)) < 0)
		return;
	c = table.global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK) {
		snprintf(load_error, sizeof(load_error), "libcurl did not initialise: %s", table.easy_strerror(c));
		return;
	}
	loaded = &table;
}

const struct curl_dl *curl_dl_get(char *err, size_t errlen)
{
	pthread_once(&once, load_once);
	if (!loaded && err && errlen)
		snprintf(err, errlen, "%s", load_error);
	return loaded;
}
