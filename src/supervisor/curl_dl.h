/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * libcurl, loaded the first time a webhook approval backend needs it and
 * never otherwise: its dependency tree (TLS, Kerberos, LDAP, SASL, ...)
 * costs tens of milliseconds on every start of cordon-supervisor, and only
 * a profile with a webhook uses it. The supervisor is compiled against
 * libcurl's headers only; the functions it calls come from
 * dlopen(CURL_DL_SONAME) into one table.
 */

#include <curl/curl.h>
#include <stddef.h>

#define CURL_DL_SONAME "libcurl.so.4"

/* Named without their curl_ prefix: curl.h makes some of those names
 * function-like macros. */
struct curl_dl {
	typeof(curl_global_init) *global_init;
	typeof(curl_easy_init) *easy_init;
	typeof(curl_easy_setopt) *easy_setopt;
	typeof(curl_easy_perform) *easy_perform;
	typeof(curl_easy_getinfo) *easy_getinfo;
	typeof(curl_easy_cleanup) *easy_cleanup;
	typeof(curl_easy_strerror) *easy_strerror;
	typeof(curl_slist_append) *slist_append;
	typeof(curl_slist_free_all) *slist_free_all;
	typeof(curl_free) *free;
	typeof(curl_url) *url;
	typeof(curl_url_set) *url_set;
	typeof(curl_url_get) *url_get;
	typeof(curl_url_cleanup) *url_cleanup;
};

/*
 * libcurl loaded and curl_global_init'ed, once per process, from any
 * thread: the table, or NULL with why (naming libcurl) in err. A failure
 * is remembered: every later call gets the same answer.
 */
const struct curl_dl *curl_dl_get(char *err, size_t errlen);

/*
 * The loader: soname opened RTLD_NOW | RTLD_LOCAL and every function of
 * the table resolved into *ret (written only on success); -ENOENT or
 * -ENOSYS with why in err. The library is never unloaded once resolved
 * (libcurl keeps global state).
 */
int curl_dl_load(const char *soname, struct curl_dl *ret, char *err, size_t errlen);

/* For tests only: the library curl_dl_get loads, set before its first
 * call. */
void curl_dl_set_soname(const char *soname);
