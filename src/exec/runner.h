/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to the runner: what the modules share. */

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "create_gate.h"
#include "landlock.h"
#include "plan.h"
#include "terminal.h"

/* How the command ended, written by init into a page it shares with the
 * runner (a pid-1 init cannot die of a signal, so its own status would
 * lose the difference between "exit 137" and "killed by SIGKILL"). */
struct shared_status {
	int have_status;
	int status;             /* as from waitpid */
	int ns_unusable;        /* the user namespace came without capabilities: nothing ran */
	int proxy_ready;        /* --net proxy: init heard the proxy's ready word */
};

/* A --protect path that exists, resolved by init before the mounts. */
struct protect_target {
	size_t step;            /* index of its STEP_PROTECT */
	char *path;             /* what to bind read-only, canonical (protect.c) */
};

struct mount_state;

struct unix_pin;

struct exec_ctx {
	const struct plan *plan;
	uid_t uid;
	gid_t gid;
	char cwd[PATH_MAX];
	dev_t cwd_dev;        /* the directory the runner was started in ... */
	ino_t cwd_ino;        /* ... which the command's must be, in its own namespace */
	char **envp;                    /* built before any fork; entries point into environ/argv */
	sigset_t forward;               /* signals the runner and init pass on (plus SIGCHLD) */
	sigset_t old_mask;              /* restored before execve */
	struct shared_status *shared;
	pid_t expect_parent;            /* for the PDEATHSIG race check; 0: do not check */
	pid_t runner_parent;            /* light runner, and the runner with --pty: its parent; once gone, end the tree */

	struct protect_target *targets;
	size_t n_targets;
	struct create_set create;       /* init: the names the creation gate refuses (missing protected paths) */

	pid_t command_pid;              /* init: the command it forked (STEP_INIT), or -1 */
	int gate_listener;              /* init: the command's gate listener, or -1 */
	struct unix_pin *unix_pins;     /* init: each --allow-unix-socket held open (unix_gate_pin) */
	size_t n_unix_pins;
	bool init_ruleset;              /* init enforces the plan's Landlock ruleset, landlock_fd (-1: none) */
	int landlock_fd;

	struct landlock_report landlock;
	struct mount_state *mounts;     /* init, during mount_apply: what the mount steps share */
	struct landlock_held *held;     /* init: the HOME grants' fds (mount_home.c), for their Landlock
					 * rules; taken by the ruleset's build, the rest closed (init.c) */
	size_t n_held;
	int done_fd[2];                 /* init's word that the sandbox is empty (init_end): the runner's end, init's */
	int split_fd[2];                /* the ruleset's two halves (landlock_split.c): the runner's end, init's */
	int end_fd;                     /* --end-fd: init's word to cordon run that the sandbox has ended, or -1 */
	char **ll_inside;               /* the paths init mounts on, for the split, or NULL */

	pid_t proxy_pid;                /* --net proxy: the runner's child (netproxy.h), 0: none */
	int proxy_fd;                   /* init's end of the proxy's control socket, or -1 */
	int net_dns[2];                 /* --net allow: init's resolver sockets (net_allow.h), or -1 */
	char *net_resolv;               /* --net allow: the sandbox's resolv.conf, read from the host's (net_allow.h) */

	struct exec_terminal tty;       /* --pty (terminal.h) */
	bool self_is_cordon;            /* this program is the cordon binary (exec'd as the runner) */
	char proxy_exe[PATH_MAX];       /* the binary started as `cordon proxy` (netproxy_start) */
	int shim_fd;                    /* init: --shim-path, opened before the private tmpfs went on, or -1 */
	char *trust_ca_pem;             /* --credentials-fd: the session CA (trust.h), or NULL */
	unsigned trust_ca_hash;
	unsigned char *trust_java_store;  /* the JVM's trust store (PKCS#12), or NULL */
	size_t trust_java_store_n;
};

#define EXEC_EXIT_FAILED 125
/* As a shell's: the command cannot be executed (126), or is not there (127). */
#define EXEC_EXIT_CANNOT_EXEC 126
#define EXEC_EXIT_NOT_FOUND 127

/* One line "cordon: STEP: REASON" on stderr and, with a status channel,
 * the record "STEP\tERRNO-NAME\tcordon: STEP: REASON\n" on it (ERRNO-NAME
 * is "-" unless fmt uses %m), then _exit(125). */
_Noreturn void exec_die(const char *step, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with the exit code given. */
_Noreturn void exec_die_code(int code, const char *step, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same line, without exiting or a record. */
void exec_say(const char *step, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit 125 after an exec_say() that said why: the record carries the last line
 * said (or "cordon: STEP: failed"). */
_Noreturn void exec_die_said(const char *step);
/* The same record, returning 125 instead of exiting (for a refusal the
 * caller must see: cordon_exec_main called in a process it cannot fork). */
int exec_record_said(const char *step);

/* The status channel (--status-fd): made close-on-exec here, so the
 * command never has it. -errno if fd is not open. */
int status_channel_open(int fd);
int status_channel_fd(void); /* -1: none */
/* A denial init's gate decided (MECHANISM write-gate or unix-gate, OP
 * read, write or connect, TARGET a path): one record on the status
 * channel (cordon/classify.h), capped and deduplicated; nothing without
 * a channel. */
void status_denial(const char *mechanism, const char *op, const char *target);

/* fds.c: close every fd above 2 but the status channel's and the n in
 * keep (-1: none; at most 7). */
int close_fds_keep(const int *keep, size_t n);

/* env.c: the command's environment, from environ and the plan. */
int env_build(const struct plan *p, char *const *environ_in, char ***ret, char *err, size_t errlen);

/* env.c: why a request of cordon serve may not set NAME (cordon's own,
 * a proxy variable, an injection, the policy's --setenv, or outside the
 * allow-list), or NULL: it may. */
const char *env_request_refused(const struct plan *p, const char *name);

/* ns.c */
int ns_map_ids(uid_t uid, gid_t gid);
int ns_loopback_up(void);

/* mount.c: the mount steps of the plan, in init. */
void mount_apply(struct exec_ctx *x);
/* A read-only, nosuid, nodev, executable bind of the file at the O_PATH fd
 * src (taken while the tree was the host's) on a new file name in dir. */
int mount_file_copy(int src, int dir, const char *name);

/* protect.c, in init before the mounts: the existing --protect paths to
 * bind (x->targets) and the missing ones' names to refuse (x->create).
 * Says why on failure. */
int protect_prepare(struct exec_ctx *x);


/* harden.c: the command's own steps, then execve. Never returns. */
_Noreturn void command_main(struct exec_ctx *x);

/* init.c */
_Noreturn void init_main(struct exec_ctx *x);

/* Init's Landlock ruleset in two halves built at once (landlock_split.c):
 * before the clone (the runner), after it (the runner: its half, handed
 * over), init's first step, init taking the runner's half into rules
 * (false: init builds the whole), and what that took, freed. */
struct landlock_rules;
#define LANDLOCK_SPLIT_HALF 1  /* the frame of the runner's half (landlock_split.c) */
#define LANDLOCK_SPLIT_WHOLE 2 /* the frame saying init is to build the whole */
void landlock_split_start(struct exec_ctx *x);
void landlock_split_runner(struct exec_ctx *x);
void landlock_split_init_start(struct exec_ctx *x);
bool landlock_split_take(struct exec_ctx *x, struct landlock_rules *rules);
void landlock_split_release(struct exec_ctx *x, struct landlock_rules *rules);
/* Wait for child, forwarding x->forward to it; returns its wait status. */
int exec_supervise(struct exec_ctx *x, pid_t child);
/* One signal of that wait: 1 when child ended (*ret_status), 0 to go on,
 * -1 when cordon is gone (everything below the runner was killed: exit). */
int exec_supervise_signal(struct exec_ctx *x, pid_t child, int sig, int *ret_status);
/* Reap what has ended; when it is cmd, publish its status and exit. */
void init_reap(struct exec_ctx *x, pid_t cmd);
/* Pass sig on to the process to, and to its process group if it leads one. */
void exec_forward_signal(pid_t to, int sig);
/* End this process as status says (same exit code, or same signal). */
_Noreturn void exec_exit_like(int status);
