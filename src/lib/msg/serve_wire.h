/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A serve session's wire (serve_wire.c): between the library's session
 * (src/lib/run/session.c, which `cordon serve` drives too) and the server
 * the runner starts in place of a command (src/exec/serve.c). One sandbox
 * instance per session: its mounts, Landlock domain and seccomp filters
 * are made once, for the server, and every command it forks inherits them.
 *
 * Frames (msgframe.h) on the runner's --serve-fd socket:
 *   server -> session  SERVE_MSG_READY, empty: confined and listening.
 *   session -> server  SERVE_MSG_CGROUP, empty, 1 fd: the cgroup.procs of
 *                      the next command's own cgroup (its pids and memory
 *                      limits), right before its SERVE_MSG_RUN, when it
 *                      has one;
 *   session -> server  SERVE_MSG_RUN, 4 fds: stdin, stdout, stderr, ctl;
 *                      body: cwd (string), cwd dev, ino (u64, u64),
 *                      argv (strv), env additions (strv, NAME=VALUE),
 *                      n (u32) then n x (resource u32, value u64) rlimits.
 * The ctl socket is the command's own: its status channel (the runner's
 * records, "STEP\tERRNO\tLINE\n", from the command's setup), then one line
 * "=STATUS\n" (the wait status) from the command's own reaper, or one
 * line "!REASON\n" when the server refused the request. The session
 * writes one byte (or hangs up) to kill the command and everything it
 * started. The end of the --serve-fd socket ends the session.
 */

#include <stddef.h>
#include <stdint.h>

#define SERVE_MSG_READY 0x5301
#define SERVE_MSG_RUN 0x5302
#define SERVE_MSG_CGROUP 0x5303
#define SERVE_RLIMITS_MAX 8
#define SERVE_ARGV_MAX 4096
#define SERVE_ENV_MAX 256
#define SERVE_STRING_MAX (128u * 1024)

/* One command to run in the session's sandbox: its argv, the environment
 * it adds (checked by the server against the policy), the working
 * directory by path with the device and inode the caller checked it as,
 * the rlimits it gets (RLIMIT_CPU, _FSIZE, _NOFILE, _AS, _NPROC), its
 * stdin, stdout and stderr, and ctl: its end of the command's own
 * control socket; and the command's own cgroup, which its reaper joins
 * before the command starts, when the session's limits need one. */
struct serve_wire_run {
	const char *const *argv;
	const char *const *env;          /* NAME=VALUE; NULL: none */
	const char *cwd;
	uint64_t cwd_dev, cwd_ino;
	size_t n_rlimits;
	int rlimit_resource[SERVE_RLIMITS_MAX];
	uint64_t rlimit_value[SERVE_RLIMITS_MAX];
	int stdio[3];
	int ctl;
	int cgroup_procs;                /* cgroup.procs, opened for writing; -1: none */
};

/* Wait (blocking) for the server's word that it is confined and serving:
 * 0, or -ECONNRESET when it ended first (its status channel says why). */
int serve_wire_wait_ready(int sock);
/* Hand one command to the server (blocking; the fds are sent, the caller
 * keeps its own). 0 or -errno. */
int serve_wire_send(int sock, const struct serve_wire_run *r);
