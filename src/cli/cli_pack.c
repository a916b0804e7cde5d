/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon pack install [--yes] DIR|FILE.tar|https://URL | list | show
 * OWNER/NAME | verify [OWNER/NAME] | remove OWNER/NAME` (issue 24;
 * cordon-supervisor only: the signatures need libcrypto; the flag table
 * parses it). The library verifies and installs; this file fetches over
 * https, prints, and asks the person at the terminal.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cordon/pack.h"
#include "curl_dl.h"

static bool confirm(void *ctx, const char *text, bool needs_terminal)
{
	bool yes = *(bool *)ctx, tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	char line[16];

	fputs(text, stderr);
	if (needs_terminal && !tty) {
		cli_say("this change is accepted only by a person at a terminal (--yes does not accept it)");
		return false;
	}
	if (yes && !needs_terminal)
		return true;
	if (!tty) {
		cli_say("not a terminal: pass --yes to install");
		return false;
	}
	fputs("Install? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

struct body {
	char *buf;
	size_t len, max;
	bool too_big;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t n = size * nmemb;

	if (n > b->max - b->len) {
		b->too_big = true;
		return 0;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	return n;
}

/* One https:// transfer for the pack fetcher: https only, redirects only
 * to https, no proxy from the environment's netrc, peer and host
 * verified (CURL_CA_BUNDLE names another CA file, as for curl(1)), the
 * body capped. */
static int fetch_https(void *ctx, const char *url, size_t max, char **ret, size_t *ret_len, struct cordon_error *reterr)
{
	char *reason = reterr ? reterr->message : NULL;
	size_t rsize = reterr ? sizeof(reterr->message) : 0;
	char err[CURL_ERROR_SIZE] = "", dlerr[256] = "";
	const struct curl_dl *dl = curl_dl_get(dlerr, sizeof(dlerr));
	const char *ca = secure_getenv("CURL_CA_BUNDLE");
	struct body b = { .max = max };
	CURLcode c = CURLE_OK;
	long status = 0;
	CURL *curl;

	(void)ctx;
	if (!dl) {
		snprintf(reason, rsize, "%s", dlerr);
		return -ENOSYS;
	}
	b.buf = malloc(max + 1);
	curl = dl->easy_init();
	if (!b.buf || !curl) {
		free(b.buf);
		if (curl)
			dl->easy_cleanup(curl);
		return -ENOMEM;
	}
#define SET(opt, val)                                                                                                  \
	do {                                                                                                           \
		if (c == CURLE_OK)                                                                                     \
			c = dl->easy_setopt(curl, opt, val);                                                           \
	} while (0)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_PROTOCOLS_STR, "https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SET(CURLOPT_FOLLOWLOCATION, 1L);
	SET(CURLOPT_MAXREDIRS, 5L);
	SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	if (ca && ca[0] == '/')
		SET(CURLOPT_CAINFO, ca);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_TIMEOUT, 60L);
	SET(CURLOPT_CONNECTTIMEOUT, 15L);
	SET(CURLOPT_USERAGENT, "cordon-pack");
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, &b);
	SET(CURLOPT_ERRORBUFFER, err);
#undef SET
	if (c == CURLE_OK)
		c = dl->easy_perform(curl);
	if (c == CURLE_OK)
		dl->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	dl->easy_cleanup(curl);
	if (c != CURLE_OK || status != 200) {
		if (b.too_big || c == CURLE_FILESIZE_EXCEEDED)
			snprintf(reason, rsize, "%s: larger than %zu bytes", url, max);
		else if (c == CURLE_UNSUPPORTED_PROTOCOL || c == CURLE_TOO_MANY_REDIRECTS)
			snprintf(reason, rsize, "%s: refused (https only, also after a redirect): %s", url,
				 err[0] ? err : dl->easy_strerror(c));
		else if (c != CURLE_OK)
			snprintf(reason, rsize, "%s: %s", url, err[0] ? err : dl->easy_strerror(c));
		else
			snprintf(reason, rsize, "%s: HTTP status %ld", url, status);
		free(b.buf);
		return -EIO;
	}
	b.buf[b.len] = '\0';
	*ret = b.buf;
	*ret_len = b.len;
	return 0;
}

int cli_pack_insecure_local(const char *dir, char *name, size_t size)
{
	struct cordon_error reason = {};
	int r = cordon_pack_insecure_local(dir, name, size, &reason);

	if (r < 0)
		cli_say("--insecure-local %s: %s", dir, reason.message[0] ? reason.message : strerror(-r));
	return r;
}

static bool is_archive(const char *src)
{
	size_t n = strlen(src);

	return (n > 4 && strcmp(src + n - 4, ".tar") == 0) || (n > 7 && strcmp(src + n - 7, ".tar.gz") == 0) ||
	       (n > 4 && strcmp(src + n - 4, ".tgz") == 0);
}

int cli_pack(const struct cli_args *a)
{
	_cleanup_free_ char *text = NULL;
	const char *operand = a->operands ? a->operands[0] : NULL;
	struct cordon_error reason = {};
	bool yes = a->yes;
	int r = -EINVAL;

	switch (a->pack_action) {
	case CLI_PACK_INSTALL:
		if (strncmp(operand, "https://", 8) == 0)
			r = cordon_pack_install_url(operand, fetch_https, NULL, confirm, &yes, &reason);
		else if (is_archive(operand))
			r = cordon_pack_install_archive(operand, confirm, &yes, &reason);
		else
			r = cordon_pack_install(operand, confirm, &yes, &reason);
		break;
	case CLI_PACK_LIST:
		r = cordon_pack_list(&text, &reason);
		break;
	case CLI_PACK_SHOW:
		r = cordon_pack_show(operand, &text, &reason);
		break;
	case CLI_PACK_VERIFY:
		r = cordon_pack_verify(operand, &text, &reason);
		break;
	case CLI_PACK_REMOVE:
		r = cordon_pack_remove(operand, &reason);
		break;
	case CLI_PACK_NONE:
		break;
	}
	if (text)
		fputs(text, stdout);
	if (r < 0) {
		cli_say("%s", reason.message[0] ? reason.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->pack_action == CLI_PACK_INSTALL)
		printf("installed\n");
	return 0;
}
