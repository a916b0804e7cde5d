/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: running one confined command to its end (cordon_run).
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "cordon/confine.h"
#include "cordon/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Run ----------------------------------------------------------------- */

/* Options a caller fills. size says which fields the caller knows, so a
 * field added later does not change what an older caller meant: set it to
 * sizeof(struct cordon_run_opts) (CORDON_RUN_OPTS_INIT does); 0 (a zeroed
 * struct) means the fields of the first release, CORDON_RUN_OPTS_SIZE_1. The
 * library reads what size covers and takes the rest as zero; a size larger
 * than the library knows is refused (-E2BIG) unless the bytes it does not
 * know are zero. */
struct cordon_run_opts {
	size_t size;
	int timeout_ms;          /* 0: none */
	size_t max_output;       /* capture cap; 0: the default, 1 MiB */
	const char *cwd;         /* NULL: inherit */
	/* With cwd: the device and inode the caller checked it as. The child
	 * refuses to start (exit 127, ESTALE) when the path names another
	 * directory by the time it changes into it; the native runner then
	 * holds the command's own namespace to the same directory. */
	bool cwd_pinned;
	uint64_t cwd_dev, cwd_ino;
	bool passthrough;        /* stdio inherited; output not captured; stderr scanned for classification */
	/* When the confined argv runs cordon's own runner ([cordon_runner_path(),
	 * "exec", ...]) and this is set, the runner is entered in a forked child
	 * by calling it with (argc, argv) from "exec" on, instead of exec'ing the
	 * cordon binary again: one exec and one dynamic link less per launch.
	 * Only for single-threaded callers that link the runner (the cordon CLI
	 * passes cordon_exec_main): when the caller has more than one thread
	 * at spawn time the runner is exec'd instead (and cordon_exec_main
	 * called directly in such a process refuses, exit 125). What the
	 * runner starts of cordon's own (the proxy under network "proxy") it
	 * execs from cordon_runner_path(), never from the caller's program.
	 * NULL: always exec. */
	int (*runner_main)(int argc, char **argv);
	/* With passthrough: relay at most this many bytes of stdout and of
	 * stderr each (0: unlimited; stdout is then inherited directly). */
	uint64_t passthrough_max_output;
	bool output_terminate;   /* at the output cap, kill the tree instead of dropping the rest */
	const struct cordon_limits *limits; /* NULL: none */
	/* Set non-zero (e.g. by the caller's signal handler): the whole tree
	 * is killed and cordon_run returns. Checked at least every 100 ms.
	 * NULL: never. */
	const volatile sig_atomic_t *stop;
	/* Captured runs (not passthrough): the command reads our stdin (a
	 * terminal through a pipe cordon feeds) instead of /dev/null. */
	bool capture_stdin;
	/* Captured runs: stdout alone in output, stderr in stderr_output; the
	 * verdict, limit and annotation read both (stdout, then stderr). */
	bool separate_stderr;
	/* For a confined value with a broker (its broker_fd > 2): the
	 * caller's end of the socket the runner hands the sandbox's broker
	 * listener to (a unix stream socket; dup'ed, the caller keeps its
	 * own). Must be given exactly when the confined value wants one. */
	int broker_fd;
	/* NAME=VALUE entries put on top of the confined value's environment
	 * for this run only (replacing the same name); NULL-terminated. The
	 * runner still passes on only what the policy's filter lets through
	 * (cordon_policy_keep_env). A name cordon sets itself (CORDON_SANDBOX*,
	 * the proxy variables in any case) or a loader's (LD_PRELOAD...) fails
	 * the start with -EPERM and the reason. NULL: none. */
	const char *const *env;
	/* The file the confined command runs from, when the confined value
	 * asks for one (cordon_confined.exec_fd > 2): an fd the caller opened
	 * (any mode, O_PATH too), placed at that number in the runner; the
	 * caller keeps its own. 0 (a zeroed struct) or -1: none. Given without
	 * a confined value that wants it, or missing when it does: -EINVAL;
	 * 1 and 2 are refused (-EBADF). */
	int exec_fd;
	/* With passthrough, when stdin, stdout and stderr are one terminal
	 * whose foreground we are, and the confined command runs cordon's own
	 * runner: the command gets a terminal of its own (a pseudo-terminal
	 * as its stdin, stdout, stderr and controlling terminal: job control,
	 * /dev/tty, pagers, editors, window size) whose output the runner
	 * relays to us merged, scanned like stderr (and capped by
	 * passthrough_max_output as one stream). The runner puts our terminal
	 * in raw mode for the run; its settings from before are put back when
	 * the run ends, however the runner ended. Otherwise (bwrap, no
	 * terminal, --json-style captured runs) nothing changes:
	 * cordon_result.terminal says which it was. */
	bool terminal;
	/* For a confined value with a credential table (its credentials_fd
	 * > 2): the read end of the pipe (or socket) the caller wrote the table to (dup'ed,
	 * the caller keeps its own). Must be given exactly when the confined
	 * value wants one; 0 or -1: none. */
	int credentials_fd;
	/* With runner_main (the runner forked in-process): the run ends when
	 * the sandbox's init says that the command and everything it started
	 * have ended, without waiting for the runner's own exit, which
	 * follows at once. The runner is then still the caller's child when
	 * cordon_run returns (cordon_result.runner_left): for a caller that
	 * exits right after (the cordon CLI) or reaps it. Where it does not
	 * apply (light isolation, a terminal of the command's own, a proxy,
	 * limits in a cgroup) the run ends with the runner's exit, as
	 * without it. */
	bool return_at_end;
	/* New fields go here, at the end: they are read only from callers
	 * whose size covers them. */
};

/* The first release's fields: size 0 means this many bytes. */
#define CORDON_RUN_OPTS_SIZE_1 \
	(offsetof(struct cordon_run_opts, terminal) + sizeof(((struct cordon_run_opts *)0)->terminal))
/* The second (issue 23): credentials_fd. */
#define CORDON_RUN_OPTS_SIZE_2 \
	(offsetof(struct cordon_run_opts, credentials_fd) + sizeof(((struct cordon_run_opts *)0)->credentials_fd))
/* The third (issue 22): return_at_end. */
#define CORDON_RUN_OPTS_SIZE_3 \
	(offsetof(struct cordon_run_opts, return_at_end) + sizeof(((struct cordon_run_opts *)0)->return_at_end))
#define CORDON_RUN_OPTS_INIT { .size = sizeof(struct cordon_run_opts) }

struct cordon_result {
	/* The command's exit code, as `cordon run --json` reports it:
	 * CORDON_EXIT_TIMEOUT when the timeout ended it (signal then says how),
	 * 126/127 when the runner could not execute it, -1 (JSON null) when a
	 * signal killed it otherwise. */
	int exit_code;
	int signal;              /* the signal that killed it, 0 if none */
	enum cordon_verdict verdict;
	char *runner_line;       /* for RUNNER_FAILED, else NULL */
	char *output;            /* captured merged output (stdout alone with separate_stderr), NUL-terminated, at most max_output bytes */
	size_t output_len;
	uint64_t output_total;   /* bytes the command produced (captured + dropped) */
	bool truncated;
	uint64_t duration_ms;
	enum cordon_enforcement enforcement;
	enum cordon_grade grade;
	enum cordon_mode mode;
	char *annotated;         /* what an agent reads: exit line, output, marker */
	/* The limit that fired, or CORDON_LIMIT_NONE; set also when the command
	 * exited 0 (forks refused by the pids limit): verdict is then OK. */
	enum cordon_limit limit;
	enum cordon_limit_mechanism limit_mechanism;
	struct cordon_limits_plan limits; /* how each limit was enforced */
	char *stderr_output;     /* with separate_stderr: stderr, NUL-terminated, at most max_output; else NULL */
	size_t stderr_len;
	uint64_t stderr_total;   /* bytes of stderr (captured + dropped) */
	/* The command ran on a terminal of its own (cordon_run_opts.terminal):
	 * output is what passed through it, stdout and stderr merged, with
	 * the terminal's "\r\n" line ends read as "\n". */
	bool terminal;
	/* What the runner wrote on its status channel (NUL-terminated; NULL
	 * when it has none): its failure record, and the denial records of
	 * what cordon itself refused while the command ran (cordon/classify.h),
	 * the trusted account beside the output's. */
	char *status;
	size_t status_len;
	/* With cordon_run_opts.return_at_end, when it applied: the runner,
	 * still finishing its own exit, the caller's child and not reaped;
	 * else 0. */
	pid_t runner_left;
};

/* Spawn confined->argv with its stdout and stderr on one pipe (the merge
 * cordon_merge_stderr gives callers that spawn argv themselves), capture up
 * to the cap, time out, kill the whole tree on timeout, classify, annotate. */
CORDON_API int cordon_run(const struct cordon_confined *confined, const struct cordon_run_opts *opts,
			  struct cordon_result **ret);
CORDON_API struct cordon_result *cordon_result_free(struct cordon_result *r);

/* SIGKILL every descendant of pid, sparing pid itself: what a subreaper
 * (PR_SET_CHILD_SUBREAPER) was left of a run, the command's orphans, once
 * the run is over. Walks /proc/PID/task/TID/children, stopping each
 * process first so it cannot fork away, until nothing new appears (64
 * rounds at most). Returns how many were signalled, or -ENOMEM when the
 * walk ran out of memory (every descendant it found is killed). */
CORDON_API int cordon_kill_descendants(pid_t pid);

#ifdef __cplusplus
}
#endif
