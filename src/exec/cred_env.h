/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --credentials-fd, the consumer's git (issue 23): git gets its phantom
 * through a credential helper cordon configures. The toolbox writes the
 * helper (a `!` command that prints the basic user and the phantom's
 * variable, never a value) into CREDTABLE_GIT_HELPER_ENV; the runner turns it
 * into git's command-line configuration, which git reads after every file
 * (system, global, repository):
 *
 *   GIT_CONFIG_COUNT=2
 *   credential.helper=          (reset: no helper of a config file is asked,
 *                                or told the phantom on `store`)
 *   credential.helper=HELPER
 *
 * The host's GIT_CONFIG_* never pass (injection variables), so nothing
 * from outside comes before or after ours.
 */

#include <stddef.h>

#define CRED_ENV_MAX 5

/* When envp[0..k) holds CREDTABLE_GIT_HELPER_ENV: git's configuration added
 * after it (at most CRED_ENV_MAX entries; the strings live as long as the
 * process). Returns the new k (envp NULL-terminated), or -ENOMEM. */
int cred_env_add(char **envp, size_t k);
