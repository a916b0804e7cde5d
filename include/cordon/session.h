/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: warm launches, a sandbox provider that stays up.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include <poll.h>

#include "cordon/launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Session: one sandbox instance, many commands -------------------------
 *
 * A session is one sandbox instance built from a launch: the native runner
 * makes its mounts (the private /tmp, /dev), its Landlock domain and its
 * seccomp filters once, for a server that stays up, and each command is
 * forked by that server and execs: only per-run work. The commands share
 * the session's user, mount and network namespaces and its private /tmp
 * (like commands typed in one shell); each gets its own nested Landlock
 * domain (it can neither trace nor signal the server or another command),
 * session and process group, rlimits, status channel, and a reaper that
 * ends its whole tree. `cordon serve` is this API with a JSON-lines or MCP
 * front end.
 *
 * What a command may do is what `cordon run` under the same launch may do,
 * and its result is classified the same way (cordon_result: verdict,
 * limit, status records, annotation). Requests are bounded by the launch:
 * env additions cannot set cordon-owned variables (the proxy, phantoms,
 * CORDON_*: the command is refused), a timeout or output cap over the
 * launch's is refused, the working directory is checked by identity and
 * must be visible inside the sandbox.
 *
 * Reused state is checked again at each spawn where the host can change
 * it: a file granted by inode or a directory whose entries the runner
 * split into rules by inode (the policy's exec grants of single files,
 * deny_exec's directories) replaced since the session opened (a package
 * upgrade) refuses the spawn (-ESTALE): open a new session. New entries in
 * HOME stay unreadable in the session (cordon_session_home_changed says
 * so; hints use it).
 *
 * Limits are the launch's, per command, by the mechanism the launch's plan
 * gave each (cordon_launch_limits_plan): the processes limit and a cgroup
 * memory limit in a cgroup of the command's own (its reaper joins it
 * before the command starts), the others as rlimits of the command.
 *
 * Native runner only (-EOPNOTSUPP otherwise), and not for a launch whose
 * confined value wants a broker (command_policies: the supervisor's), a
 * file to run from or a credential table. One thread drives a session and
 * its commands at a time.
 */
struct cordon_session;
struct cordon_session_cmd;

/* Start the instance and wait until its server is confined and serving.
 * The launch must outlive the session. The session's working directory is
 * the caller's at this call. The instance ends when the thread that called
 * this ends (it is bound to that thread with PR_SET_PDEATHSIG, so nothing
 * outlives a caller killed meanwhile): a threaded caller opens sessions
 * from a thread that lives as long as they do. */
CORDON_API int cordon_session_open(const struct cordon_launch *l, struct cordon_session **ret,
				   struct cordon_error *reterr);
/* Kill every command still running, end the instance (its /tmp with it),
 * free. Commands not freed yet are freed too. */
CORDON_API struct cordon_session *cordon_session_close(struct cordon_session *s);
/* The confined value the instance runs (for classification and hints). */
CORDON_API const struct cordon_confined *cordon_session_confined(const struct cordon_session *s);
/* HOME, ~/.config or ~/.local/share changed since the session opened:
 * what was created there since is unreadable in it. */
CORDON_API bool cordon_session_home_changed(const struct cordon_session *s);

/* Output as it arrives (stream 1: stdout, 2: stderr), the part under the
 * cap only. */
typedef void (*cordon_session_output_fn)(void *userdata, int stream, const char *buf, size_t n);

struct cordon_session_cmd_opts {
	size_t size;                      /* CORDON_SESSION_CMD_OPTS_INIT sets it */
	const char *cwd;                  /* absolute; NULL: the session's */
	const char *const *env;           /* NAME=VALUE on top of the session's; NULL: none */
	int stdin_fd;                     /* the command's stdin (dup'ed); -1: /dev/null */
	int timeout_ms;                   /* 0: the launch's; over it: refused (-EPERM) */
	uint64_t max_output;              /* 0: the launch's (1 MiB when none); over it: refused */
	cordon_session_output_fn on_output;
	void *userdata;
	/* new fields go here, at the end */
};
#define CORDON_SESSION_CMD_OPTS_INIT { .size = sizeof(struct cordon_session_cmd_opts), .stdin_fd = -1 }

/* Hand argv to the session's server; returns at once. opts may be NULL.
 * The caller frees *ret with cordon_session_cmd_free (before the
 * session's close, or the close does). */
CORDON_API int cordon_session_spawn(struct cordon_session *s, const char *const *argv,
				    const struct cordon_session_cmd_opts *opts, struct cordon_session_cmd **ret,
				    struct cordon_error *reterr);

/* Most fds one command asks to poll. */
#define CORDON_SESSION_CMD_MAX_POLLFDS 3

/* As cordon_child_pollfds / _step (spawn.h): fill pfd, lower *timeout_ms;
 * then handle what poll returned. Step returns 1 once the command has
 * ended (collect it), 0 while it runs, -errno on failure. The timeout and
 * the output cap (with output_terminate, the tree is killed) are enforced
 * here. */
CORDON_API size_t cordon_session_cmd_pollfds(struct cordon_session_cmd *c, struct pollfd *pfd, int *timeout_ms);
CORDON_API int cordon_session_cmd_step(struct cordon_session_cmd *c, const struct pollfd *pfd, size_t n);
/* Kill the command's whole tree (its result still comes). */
CORDON_API void cordon_session_cmd_kill(struct cordon_session_cmd *c);
/* Once step returned 1: its result, as cordon_run's. A command the server
 * refused (an env addition it may not set, a working directory it cannot
 * see) is -EPERM with the reason in reterr. Once only. */
CORDON_API int cordon_session_cmd_collect(struct cordon_session_cmd *c, struct cordon_result **ret,
					  struct cordon_error *reterr);
/* Poll and step until it ends, then collect. */
CORDON_API int cordon_session_cmd_wait(struct cordon_session_cmd *c, struct cordon_result **ret,
				       struct cordon_error *reterr);
CORDON_API struct cordon_session_cmd *cordon_session_cmd_free(struct cordon_session_cmd *c);

/* Spawn, wait, free: one command to its end. */
CORDON_API int cordon_session_run(struct cordon_session *s, const char *const *argv,
				  const struct cordon_session_cmd_opts *opts, struct cordon_result **ret,
				  struct cordon_error *reterr);

#ifdef __cplusplus
}
#endif
