/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Signed profile packs (issue 24): `cordon pack install|list|show|verify|
 * remove`, and every use of a pack's profile (OWNER/NAME/PROFILE) verified
 * again. In libcordon_pack (it needs libcrypto), linked by
 * cordon-supervisor; not in libcordon.so, not installed. Nothing here
 * prints: texts come back in a malloc'd string the caller frees.
 */
#include <stdbool.h>
#include <stddef.h>

#include "cordon/common.h"

/* Make OWNER/NAME/PROFILE names loadable (profile names and extends):
 * each load verifies the installed pack against its lock and the trust
 * file, and parses the bytes it verified. Call once at start. */
void cordon_pack_enable(void);

/* Asked before an install writes anything: text says what the pack grants
 * (and what changes from the installed version); needs_terminal is set
 * for what only a person at a terminal may accept (a lower version, a
 * changed signer key). true installs. */
typedef bool (*cordon_pack_confirm_fn)(void *ctx, const char *text, bool needs_terminal);

/* Install the pack in directory src. -errno and the reason. */
int cordon_pack_install(const char *src, cordon_pack_confirm_fn confirm, void *ctx, struct cordon_error *reterr);
/* A transfer of url (https only, no redirect to anything else) of at
 * most max bytes into a malloc'd buffer; -errno and the reason in reterr
 * (may be NULL). */
typedef int (*cordon_pack_fetch_fn)(void *ctx, const char *url, size_t max, char **ret, size_t *ret_len,
				    struct cordon_error *reterr);
/* Install the pack at an https:// URL: URL/pack.json and URL/pack.json.sig
 * first, then (the signature holding) each file the manifest lists, into
 * a private staging directory, installed from there as a directory is. */
int cordon_pack_install_url(const char *url, cordon_pack_fetch_fn fetch, void *fctx, cordon_pack_confirm_fn confirm,
			    void *ctx, struct cordon_error *reterr);
/* Install the pack in a ustar archive (.tar): unpacked (no link, device,
 * absolute or ".." path, duplicate or executable; capped) into a private
 * staging directory, installed from there as a directory is. A gzip'd
 * archive (.tar.gz) is decompressed first by the host's gzip run in a
 * cordon sandbox (no network, no writes, capped output and limits); when
 * that sandbox cannot be made it is refused with the reason. */
int cordon_pack_install_archive(const char *file, cordon_pack_confirm_fn confirm, void *ctx,
				struct cordon_error *reterr);
/* One line per installed pack: OWNER/NAME VERSION profiles... */
int cordon_pack_list(char **ret_text, struct cordon_error *reterr);
/* What each profile of an installed pack grants. */
int cordon_pack_show(const char *name, char **ret_text, struct cordon_error *reterr);
/* Verify one installed pack (name) or all (NULL), as a use would: 0 when
 * all hold, else the first refusal's reason. */
int cordon_pack_verify(const char *name, char **ret_text, struct cordon_error *reterr);
int cordon_pack_remove(const char *name, struct cordon_error *reterr);
/* `cordon run --insecure-local DIR`: the pack in DIR, UNSIGNED, answers
 * for its OWNER/NAME in this process (its files still checked against its
 * pack.json, what it may carry still refused); its name into name. */
int cordon_pack_insecure_local(const char *dir, char *name, size_t size, struct cordon_error *reterr);
