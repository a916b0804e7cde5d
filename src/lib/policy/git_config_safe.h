/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Which git configuration a sandboxed run may install in a repository the
 * host's git later reads (git_config_safe.c): only keys that name no
 * command, no helper, no other file, and remote URLs in plain forms.
 */

#include <stdbool.h>
#include <stddef.h>

#include "git_config_parse.h"

/* 0 when every entry of cand is safe, or the same entry (byte for byte)
 * is in current (the config it replaces; NULL when none), and cand keeps
 * every URL current gives an existing remote. Otherwise
 * -EPERM, the refused entry's name in key and the reason in *why. */
int git_config_check(const struct git_config *cand, const struct git_config *current, char *key, size_t keylen,
		     const char **why);

/* A URL git reaches with its own transports only: https://, ssh://,
 * file://, scp-like [user@]host:path, or a path; never helper::address,
 * another scheme (git-remote-SCHEME is a helper) or a leading '-'. */
bool git_url_plain(const char *url);
