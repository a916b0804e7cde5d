/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: many confined processes driven from one poll loop.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include <poll.h>

#include "cordon/launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Spawn: many confined processes from one poll loop -------------------
 *
 * cordon_spawn starts a confined command and returns at once; the caller's
 * own poll loop drives it, and may drive many at once:
 *
 *     struct pollfd pfd[N * CORDON_CHILD_MAX_POLLFDS];
 *     for (;;) {
 *             int timeout = -1; size_t n = 0, at[N];
 *             for (i...) { at[i] = n; n += cordon_child_pollfds(c[i], pfd + n, &timeout); }
 *             poll(pfd, n, timeout);
 *             for (i...) if (cordon_child_step(c[i], pfd + at[i], ...) == 1) cordon_collect(c[i], &res);
 *     }
 *
 * cordon_child_step drains output into the capture buffer, and enforces the
 * timeout, the output cap, the tree's CPU limit and opts->stop, exactly as
 * cordon_run does (cordon_run is this loop for one child). The child is
 * started as cordon_run starts it (parent-death signal, its own process
 * group, limits joined before exec); without limits and runner_main it is
 * started by a vfork-like clone, safe in a multi-threaded caller.
 */
struct cordon_child;

/* The child's stdin, stdout and stderr: the caller's fds (dup'ed: the
 * caller keeps and closes its own), or -1: stdin /dev/null, stdout and
 * stderr captured (into one pipe, merged, as cordon_run does). A stream
 * given here is not captured, so the result's output lacks it (and no
 * denial can be read from it). Not with opts->passthrough. */
struct cordon_stdio {
	int in, out, err;
};
#define CORDON_STDIO_CAPTURE ((struct cordon_stdio){ .in = -1, .out = -1, .err = -1 })

/* Most fds one child asks to poll. */
#define CORDON_CHILD_MAX_POLLFDS 6

/* Spawn argv confined by the launch: cordon_launch_confine, then start it
 * with the launch's limits (already checked: not checked again) and run
 * options; opts gives the caller's own fields (cwd, stop, runner_main) and
 * may be NULL; its limit fields are ignored. stdio may be NULL (all -1).
 * The caller owns *ret and frees it with cordon_child_free. */
CORDON_API int cordon_spawn(const struct cordon_launch *l, const char *const *argv, const struct cordon_stdio *stdio,
			    const struct cordon_run_opts *opts, struct cordon_child **ret, struct cordon_error *reterr);
/* The same for an already confined value, with opts as cordon_run takes
 * them (limits checked here). confined must outlive the child. */
CORDON_API int cordon_spawn_confined(const struct cordon_confined *confined, const struct cordon_run_opts *opts,
				     const struct cordon_stdio *stdio, struct cordon_child **ret,
				     struct cordon_error *reterr);

CORDON_API pid_t cordon_child_pid(const struct cordon_child *c);
/* The command runs on a terminal of its own (cordon_run_opts.terminal
 * took effect): its runner reads ours and relays it in. */
CORDON_API bool cordon_child_terminal(const struct cordon_child *c);
/* Readable once the child has exited (-1 where the kernel has no pidfd). */
CORDON_API int cordon_child_pidfd(const struct cordon_child *c);
/* The read end of the capture pipe (-1 when nothing is captured). Poll it,
 * do not read it: cordon_child_step reads. */
CORDON_API int cordon_child_output_fd(const struct cordon_child *c);
/* Fill pfd (room for CORDON_CHILD_MAX_POLLFDS) with what to poll for this
 * child, and lower *timeout_ms (-1: none yet) to the longest it may wait.
 * Returns how many entries it filled; 0 once the child has ended. */
CORDON_API size_t cordon_child_pollfds(struct cordon_child *c, struct pollfd *pfd, int *timeout_ms);
/* Handle what poll returned for the n entries cordon_child_pollfds filled
 * (n = 0 after a poll timeout or EINTR). 1: the child has ended, collect
 * it; 0: still running; -errno: failed (the tree is killed). */
CORDON_API int cordon_child_step(struct cordon_child *c, const struct pollfd *pfd, size_t n);
/* Kill the whole tree now (the result reads as killed by SIGKILL). */
CORDON_API void cordon_child_kill(struct cordon_child *c);
/* Once cordon_child_step returned 1: how it ended, classified and
 * annotated as cordon_run's result. -EBUSY while it runs; once only. */
CORDON_API int cordon_collect(struct cordon_child *c, struct cordon_result **ret);
/* Block until the child ends (poll, step), then cordon_collect. */
CORDON_API int cordon_wait(struct cordon_child *c, struct cordon_result **ret);
/* Kill a tree still running, reap it, remove its cgroups, close, free. */
CORDON_API struct cordon_child *cordon_child_free(struct cordon_child *c);

#ifdef __cplusplus
}
#endif
