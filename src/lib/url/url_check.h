/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A URL a sandbox asks the host to open (open_urls), parsed as a browser
 * parses it (the WHATWG URL standard) but strictly: every input whose
 * browser serialisation would differ from the bytes given is refused,
 * never rewritten, so the URL the policy checked is byte for byte the URL
 * the host's opener gets. The one exception is an empty path after the
 * host ("https://github.com"), which is serialised with its "/" as every
 * browser does. Pure, bounded (URL_MAX_BYTES), untrusted input (a fuzz
 * target: tests/fuzz/fuzz-url.c).
 *
 * Refused: more than URL_MAX_BYTES; NUL, control characters, space, DEL
 * and any byte above 0x7e; backslashes; a scheme other than "https" or
 * "http", or one not in lower case; no "//" after it; userinfo ('@' in the
 * authority); '%' in the host; a host not in lower case, or with a
 * character other than a-z 0-9 '-' '.', an empty label (a leading, doubled
 * or trailing dot), a label over 63 bytes or a name over 253; a numeric
 * host (one whose last label is digits or starts "0x", as the WHATWG IPv4
 * parser reads decimal, octal and hex forms) other than exactly
 * "127.0.0.1"; IPv6 literals; an empty port, a port with a leading zero,
 * over 65535, or the scheme's default port written out (":443" on https,
 * ":80" on http); "." and ".." path segments and the encoded forms of '.',
 * '/' and '\' (%2e %2f %5c) in the path; a '%' not followed by two hex
 * digits; in the path, query and fragment the bytes a browser would
 * percent-encode there (" < > ` { } in the path, " < > ' in the query,
 * " < > ` in the fragment).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/common.h"

/* The longest URL taken (the cap), in bytes. */
#define URL_MAX_BYTES 8192
/* A DNS name at most; "https://" + name + ":65535" fits the origin. */
#define URL_HOST_MAX 253
#define URL_ORIGIN_MAX (sizeof("https://") + URL_HOST_MAX + sizeof(":65535"))

struct url_parsed {
	/* the URL as a browser serialises it (the input, or with its "/") */
	char url[URL_MAX_BYTES + 2];
	size_t len;
	bool https;                 /* else http */
	char host[URL_HOST_MAX + 1];
	bool numeric_host;          /* "127.0.0.1", the only numeric host taken */
	uint16_t port;              /* 0: the scheme's default */
	char origin[URL_ORIGIN_MAX]; /* scheme "://" host [":" port] */
	/* in url: the path (starts with '/'), then the query ('?' first, or
	 * empty) and the fragment ('#' first, or empty) */
	size_t path_off, path_len, query_len, fragment_len;
	bool path_written;          /* the input had a path (origins have none) */
};

/* Parse s[0..len). 0 and *ret filled, or -EINVAL (-E2BIG over the cap)
 * with reterr (may be NULL) saying which rule
 * refused it. *ret may be written on failure too. */
int url_parse(const char *s, size_t len, struct url_parsed *ret, struct cordon_error *reterr);

/* A profile's origin ("https://github.com", "https://example.com:8443"):
 * canonical, https, not numeric, no path, query or fragment. The origin
 * into ret (URL_ORIGIN_MAX) or -EINVAL with the reason in reterr. */
int url_origin_check(const char *s, char *ret, struct cordon_error *reterr);

/* A profile's path prefix: starts with '/', and is a canonical path
 * (url_parse's rules for a path, no query or fragment). */
int url_path_prefix_check(const char *s, struct cordon_error *reterr);

/* Does the parsed URL's path fall under prefix? The path equals it, or
 * continues it after a '/' (the prefix's own, or the next byte): "/login"
 * takes "/login" and "/login/device", never "/loginx". */
bool url_path_under(const struct url_parsed *u, const char *prefix);
