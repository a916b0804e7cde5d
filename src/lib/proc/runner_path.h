/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where cordon's own runner is (runner_path.c; cordon_runner_path in
 * cordon.h), and whether it may be used. */

#include <stdbool.h>
#include <stddef.h>

/* The resolved runner is refused (CORDON_RUNNER failed its checks, or no
 * runner was found where libcordon looks): -EPERM and why. Memoised: after
 * the first resolution no syscall. */
int runner_refused(char *why, size_t n);
/* runner_refused, then: the runner is executable (access). */
int runner_check(char *why, size_t n);
/* The runner came from $CORDON_RUNNER. */
bool runner_from_env(void);
