/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The HOME allowlist's filtered configuration files (~/.gitconfig,
 * ~/.config/git/config, ~/.npmrc, ~/.cargo/config.toml, ~/.config/go/env):
 * a copy without the lines that can carry a credential. Pure: bytes in,
 * bytes out, capped at HOME_FILTER_MAX (the runner reads the host's file
 * into memory before its private HOME goes on and writes the copy there).
 *
 * Dropped, line by line (a line continued with a trailing backslash goes
 * with it):
 *   - a key whose name holds "token", "auth", "password", "passwd",
 *     "secret", "credential", "extraheader", "cookie", "sslkey" or
 *     "sslcert" (case-insensitive), or that starts with "//" (npm's
 *     per-registry settings, all of them about who you are);
 *   - any line with a URL carrying userinfo ("scheme://user[:pw]@host");
 *   - git: every key of the sections "credential", "include", "includeIf"
 *     (an included file is not filtered) and of a "url" or "http" section
 *     whose subsection (a URL) carries userinfo;
 *   - every comment (a commented-out token is still a token);
 *   - a line that is neither blank, a section header nor
 *     "key", "key = value" (fail closed).
 */

#define HOME_FILTER_MAX (256 * 1024)

/* in[0..len) filtered into a malloc'd, NUL-terminated *ret (length in
 * *ret_len). git: the input is a git config file (sections dropped whole).
 * -EFBIG over the cap, -ENOMEM. */
int home_filter(const char *in, size_t len, bool git, char **ret, size_t *ret_len);
/* The file at path is read as a git config file (by its name). */
bool home_filter_is_git(const char *path);
