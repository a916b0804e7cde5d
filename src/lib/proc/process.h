/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Low-level spawning shared by probes and cordon_run. */

struct limits_spawn;
struct limits_cgroup;

#define SPAWN_PASS_MAX 4 /* exec, broker, credentials, plan; spawn.c initialises each: keep them in step */

struct spawn_opts {
	const char *const *argv;  /* a bare argv[0] is looked up on PATH */
	char *const *envp;        /* NULL: inherit */
	const char *cwd;          /* NULL: inherit */
	bool cwd_pinned;          /* cwd must be this device and inode */
	uint64_t cwd_dev, cwd_ino;
	int timeout_ms;           /* 0: none */
	size_t cap;               /* bytes of output kept; the rest is read and counted */
	bool capture_stdout;      /* else inherited */
	bool capture_stderr;      /* else inherited; both go into one buffer */
	bool relay;               /* also copy captured bytes to our own stdout/stderr */
	bool inherit_stdin;       /* else /dev/null */
	bool own_group;           /* child leads a new process group (killed as a group) */
	/* Set: fork and call child_main(argc, argv + child_argv_skip) in the
	 * child (after the same fd, cwd, group and signal set-up) instead of
	 * exec'ing argv. The child _exits with its return value. */
	int (*child_main)(int argc, char **argv);
	int child_argv_skip;
	/* Limits the child applies before exec (cgroups to join, rlimits);
	 * NULL: none. When set the child is forked, not posix_spawn'ed. */
	const struct limits_spawn *limits;
	/* With relay: stdout gets a pipe of its own, relayed to our stdout
	 * (not captured), and each stream relays at most relay_cap bytes
	 * (0: unlimited). */
	bool pipe_stdout;
	uint64_t relay_cap;
	/* Output beyond the cap (relay_cap with relay, else cap) kills the
	 * whole tree instead of being counted and dropped. */
	bool stop_at_cap;
	/* > 2: the child gets the write end of a pipe at this fd number (the
	 * runner's status channel); what is in the pipe once the child has
	 * ended is returned in spawn_result.status. 0: none. */
	int status_fd;
	int status_fd2;           /* > 2: the same pipe's write end at this number too */
	/* With inherit_stdin: the child's stdin is a pipe we feed from ours,
	 * so a command cannot write to our terminal through fd 0. */
	bool relay_stdin;
	/* Set non-zero (a signal handler of the caller's): kill the tree and
	 * return with stopped. Checked at least every 100 ms. */
	const volatile sig_atomic_t *stop;
	/* The whole tree's CPU time, read from its cgroup every ~50 ms: past
	 * cpu_limit_usec the tree is killed (cpu_killed). */
	const struct limits_cgroup *cpu_cg;
	uint64_t cpu_limit_usec;
	/* With capture_stdout and not capture_stderr: stderr gets a pipe of
	 * its own, captured (up to cap) into spawn_result.err_output. */
	bool split_stderr;
	/* With caller_stdio: the caller's fds for the child's stdin, stdout
	 * and stderr (-1: as the flags above say). A given stdout or stderr is
	 * not captured; a given stdin replaces /dev/null. They are dup'ed:
	 * the caller keeps its own. */
	bool caller_stdio;
	int stdio_fd[3];
	/* The caller's fds the child gets at fixed numbers, not
	 * close-on-exec: pass_fd[i] at pass_at[i] (> 2; the runner's
	 * --exec-fd file and --broker-fd socket). */
	int pass_fd[SPAWN_PASS_MAX];
	int pass_at[SPAWN_PASS_MAX];
	size_t n_pass;
	/* Our stdin is a terminal the child may change (the runner with --pty
	 * puts it in raw mode): its settings are saved at start and put back
	 * once the child has ended, however it ended. */
	bool restore_terminal;
	/* > 2 (with child_main only): the child gets the write end of a pipe
	 * at this fd number, on which its tree may say, once, that it has
	 * ended: 4 bytes, a wait status (the native runner's init, once its
	 * sandbox is empty). The run then ends with that status, without
	 * waiting for the child's own exit: the child is left to finish it
	 * (spawn_child_left), neither killed nor reaped. 0: none. */
	int end_fd;
};

struct spawn_result {
	int exit_code;            /* -1 when killed by a signal */
	int signal;               /* 0 when it exited */
	bool timed_out;
	char *output;             /* NUL-terminated, at most cap bytes; never NULL on success */
	size_t output_len;
	uint64_t output_total;    /* bytes produced (kept + dropped) */
	uint64_t duration_us;
	bool output_over;         /* a stream went over its cap */
	bool output_killed;       /* ... and stop_at_cap killed the tree for it */
	uint64_t stdout_total;    /* bytes of stdout with pipe_stdout */
	uint64_t cpu_usec;        /* user + system time of the child and what it reaped */
	char *status;             /* with status_fd: what was written (NUL-terminated, capped); else NULL */
	size_t status_len;
	bool stopped;             /* *stop was set: the tree was killed */
	bool cpu_killed;          /* the tree's CPU time passed cpu_limit_usec */
	char *err_output;         /* with split_stderr: stderr, NUL-terminated, at most cap bytes; else NULL */
	size_t err_len;
	uint64_t err_total;
};

/* Most of a status channel that is kept. */
#define SPAWN_STATUS_MAX 65536

/* The non-blocking form, for a poll loop the caller owns (spawn.c):
 * spawn_start starts the child; spawn_pollfds says what to poll and for
 * how long at most (it lowers *timeout_ms; -1 is "no limit"); spawn_step
 * handles what poll returned (drains output, enforces timeout, caps, CPU
 * and stop) and returns 1 once the child has ended, 0 while it runs;
 * spawn_finish fills the result. spawn_child_free kills a tree still
 * running. o (and what it points to) must live as long as the child. */
struct spawn_child;
#define SPAWN_MAX_POLLFDS 6
int spawn_start(const struct spawn_opts *o, struct spawn_child **ret);
size_t spawn_pollfds(struct spawn_child *c, struct pollfd *pfd, int *timeout_ms);
int spawn_step(struct spawn_child *c, const struct pollfd *pfd, size_t n);
int spawn_finish(struct spawn_child *c, struct spawn_result *ret);
/* Kill the tree now; the next spawn_step returns 1. */
void spawn_kill(struct spawn_child *c);
pid_t spawn_child_pid(const struct spawn_child *c);
/* The run ended by the end pipe's word (end_fd): the child finishes its own
 * exit, and is the caller's to reap (or to leave, when it exits itself). */
bool spawn_child_left(const struct spawn_child *c);
int spawn_child_pidfd(const struct spawn_child *c);
int spawn_child_output_fd(const struct spawn_child *c);
struct spawn_child *spawn_child_free(struct spawn_child *c);

/* The fds the child is started with (process.c); -1: none. */
struct spawn_fds {
	int pipe_w;   /* captured stdout/stderr */
	int out_w;    /* stdout, when not captured */
	int err_w;    /* stderr, when not captured */
	int in_r;     /* stdin */
	int status_w; /* the status channel */
	int end_w;    /* the end pipe (end_fd), or -1 */
	int pass_w[SPAWN_PASS_MAX]; /* copies of pass_fd, above every fixed number */
};
/* A vfork-like clone then exec: safe in threaded callers. */
int spawn_start_exec(const struct spawn_opts *o, const struct spawn_fds *f, pid_t *ret);
/* fork, limits, then child_main or exec: child_main only for
 * single-threaded callers. */
int spawn_start_forked(const struct spawn_opts *o, const struct spawn_fds *f, pid_t *ret);
int fd_set_nonblock(int fd);
int pidfd_open_compat(pid_t pid);

/* Spawn, capture, time out (killing the whole tree), wait. Returns -errno if
 * the command could not be started; how it ended is in *ret. The caller
 * frees ret->output and ret->status. */
int spawn_run(const struct spawn_opts *o, struct spawn_result *ret);

/* Convenience for probes: stdin /dev/null, stdout+stderr captured, own group. */
int spawn_capture(const char *const *argv, char *const *envp, int timeout_ms, size_t cap,
		  struct spawn_result *ret);

/* Find an executable named NAME on PATH (or as given, if it contains '/').
 * *ret is malloc'd. -ENOENT if none. Touches the filesystem (stat only). */
int find_executable(const char *name, char **ret);

/* SIGKILL every descendant of pid (walking /proc/PID/task/TID/children,
 * stopping each first so it cannot fork away), then pid itself. Repeats until
 * no new descendant appears (64 rounds at most); no cap on how many there
 * are. Returns how many were signalled. */
int kill_tree(pid_t pid);
/* The same for every descendant of pid: cordon_kill_descendants (cordon.h). */

uint64_t now_usec(void);

/* Threads of this process (entries of /proc/self/task), or -errno. */
int process_count_threads(void);
