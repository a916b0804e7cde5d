/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The sandbox a credential capture runs in (capture_sandbox.c). */

#include "cordon/cordon.h"
#include "creds.h"

/* cap's launch, and its command's executable (argv[0] found on path_env
 * unless absolute). Native runner only. */
int capture_sandbox_new(const struct tool_capture *cap, const char *path_env, char **ret_exe,
			struct cordon_launch **ret, struct cordon_error *reterr);
