/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --broker-fd, the runner's side of the tool sandbox's broker. Init, in
 * the sandbox's private /run, makes /run/cordon: the socket the shims
 * connect to, and bin/ with one read-only bind of the shim (opened before
 * the private tmpfs went on, so it may live below /tmp) per controlled
 * command; then makes it read-only and hands the socket's listener to the
 * supervisor outside over the --broker-fd socket (SCM_RIGHTS), keeping no
 * copy. The supervisor accepts on it: whatever connects there is this
 * sandbox, since no other sandbox can reach a file in this one's /run.
 */

#include <stddef.h>

struct exec_ctx;

/* Init, after the mounts (and in the sandbox's network namespace): the
 * apply of STEP_BROKER (steps.c), step its index in the plan. Dies
 * on failure: a session whose tools cannot be reached does not start. */
void broker_listen(struct exec_ctx *x, size_t step);

/* "PATH=/run/cordon/bin:" + path (NULL: the default search path),
 * malloc'd; NULL on ENOMEM. */
char *broker_path_entry(const char *path);
