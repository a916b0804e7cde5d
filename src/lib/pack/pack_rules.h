/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a pack's profile may carry (issue 24): read grants, controlled
 * commands with their own sandboxes and invocation policies, writes inside
 * the workspace. Refused, each by its key: credentials, credential_capture,
 * approval backends and webhooks, open_urls, network mode host,
 * allow_addresses, allow_unix_sockets, a workspace of its own, writes
 * outside the workspace, groups (bypass, lift), danger-full-access, extends
 * outside the pack or the built-ins.
 */
#include <stddef.h>

#include "cordon/common.h"

/* text: the profile's bytes; owner/name: its pack's. 0, or -EPERM with
 * the key named ("/command_policies/approval_backends: ...") in reterr
 * (-EBADMSG if it is not a JSON object). */
int pack_rules_check(const char *text, size_t len, const char *owner, const char *name, struct cordon_error *reterr);
