/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * cordon serve's sandbox side (--serve-fd): the server the runner starts
 * in place of the command. The wire (frames, limits) is serve_wire.h's,
 * shared with the library's session (src/lib/run/session.c).
 */

#include "serve_wire.h"

struct exec_ctx;

/* In the process the command would have been, after its last step but
 * execve: serve the socket until it ends. Never returns. */
_Noreturn void serve_main(struct exec_ctx *x);
