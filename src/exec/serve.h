/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * cordon serve's sandbox side (--serve-fd): the wire between the front end
 * (src/cli/cli_serve*.c) and the server the runner starts in place of the
 * command. One sandbox instance per session: its mounts, Landlock domain
 * and seccomp filters are made once, for the server, and every command it
 * forks inherits them.
 *
 * Frames (msgframe.h) on the --serve-fd socket:
 *   server -> front end  SERVE_MSG_READY, empty: confined and listening.
 *   front end -> server  SERVE_MSG_RUN, 4 fds: stdin, stdout, stderr, ctl;
 *                        body: cwd (string), cwd dev, ino (u64, u64),
 *                        argv (strv), env additions (strv, NAME=VALUE),
 *                        n (u32) then n x (resource u32, value u64) rlimits.
 * The ctl socket is the command's own: its status channel (the runner's
 * records, "STEP\tERRNO\tLINE\n", from the command's setup), then one line
 * "=STATUS\n" (the wait status) from the command's own reaper, or one
 * line "!REASON\n" when the server refused the request. The front end
 * writes one byte (or hangs up) to kill the command and everything it
 * started. The end of the --serve-fd socket ends the session.
 */

#include <stdint.h>

#include "cordon/runner.h"

#define SERVE_MSG_READY 0x5301
#define SERVE_MSG_RUN 0x5302
#define SERVE_RLIMITS_MAX CORDON_SERVE_RLIMITS_MAX
#define SERVE_ARGV_MAX 4096
#define SERVE_ENV_MAX 256
#define SERVE_STRING_MAX (128u * 1024)

struct exec_ctx;

/* In the process the command would have been, after its last step but
 * execve: serve the socket until it ends. Never returns. */
_Noreturn void serve_main(struct exec_ctx *x);
