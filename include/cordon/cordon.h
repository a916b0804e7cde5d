/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon — confine the subprocesses that AI-agent tools spawn.
 *
 * The shape: build a policy once (this is where the filesystem is read),
 * confine argv under it (pure: no syscalls that touch files or processes),
 * spawn the confined argv (cordon_run does it for you), then classify what
 * came back as ok, denied or runner-failed.
 *
 * Errors: every fallible function returns int, >= 0 on success and -errno on
 * failure. Out-parameters come last and are written only on success. Where a
 * function takes a struct cordon_error *reterr, it may be NULL; when it is not,
 * it receives a human-readable message on failure.
 *
 * Error codes at this boundary:
 *   -EINVAL   bad argument or bad value (message in reterr)
 *   -ENOMEM   allocation failed
 *   -ELOOP    too many symlinks while canonicalising a path
 *   -ENAMETOOLONG a path or argument exceeds a cap
 *   -ENOSYS   no backend can enforce the policy (SANDBOX_UNAVAILABLE)
 *   -ETIMEDOUT  a probe or run exceeded its time
 *   other -errno values come straight from the failing system call.
 */
#pragma once

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORDON_API __attribute__((visibility("default")))

/* What cordon_confine returns when nothing on this host can enforce the policy. */
#define CORDON_SANDBOX_UNAVAILABLE (-ENOSYS)

/* Exit code a runner uses for its own setup failures (the command never ran). */
#define CORDON_EXIT_RUNNER_FAILED 125
/* Exit code of `cordon run` on a wall-clock timeout. */
#define CORDON_EXIT_TIMEOUT 124
/* Exit code of a command a limit ended with SIGKILL (128 + 9). */
#define CORDON_EXIT_LIMIT_KILLED 137

struct cordon_error {
	char file[256];   /* "" when not about a file */
	int line;         /* 0 when unknown */
	int column;       /* 0 when unknown */
	char path[256];   /* JSON path, "" when not applicable */
	char message[512];
};

enum cordon_mode {
	CORDON_MODE_READ_ONLY,
	CORDON_MODE_WORKSPACE_WRITE,
	CORDON_MODE_DANGER_FULL_ACCESS,
};

enum cordon_net {
	CORDON_NET_NONE, /* loopback only */
	CORDON_NET_HOST, /* the host's network */
	CORDON_NET_PROXY, /* loopback, and cordon's proxy as the one way out (host rules) */
};

enum cordon_enforcement {
	CORDON_ENFORCEMENT_NONE,
	CORDON_ENFORCEMENT_NATIVE,
	CORDON_ENFORCEMENT_BWRAP,
	CORDON_ENFORCEMENT_SEATBELT,
};

enum cordon_backend {
	CORDON_BACKEND_NATIVE,
	CORDON_BACKEND_BWRAP,
	CORDON_BACKEND_SEATBELT,
	CORDON_BACKEND_UNAVAILABLE,
};

enum cordon_grade {
	CORDON_GRADE_FULL,    /* enforces everything the provider claims */
	CORDON_GRADE_PARTIAL, /* runs, with reduced fencing (reported) */
};

/* How much of the native runner's isolation to use. */
enum cordon_isolation {
	CORDON_ISOLATION_FULL,  /* namespaces + Landlock + seccomp */
	CORDON_ISOLATION_LIGHT, /* Landlock + seccomp only: no namespaces */
};

enum cordon_verdict {
	CORDON_VERDICT_OK,            /* no denial observed (not "none occurred") */
	CORDON_VERDICT_DENIED,        /* the command ran and the OS refused it something */
	CORDON_VERDICT_RUNNER_FAILED, /* the runner failed; the command may never have run */
	CORDON_VERDICT_TIMEOUT,       /* killed by cordon_run's wall-clock timeout */
	CORDON_VERDICT_UNAVAILABLE,   /* nothing could enforce the policy; nothing ran */
	CORDON_VERDICT_LIMIT_EXCEEDED, /* a resource or output limit ended or refused the command */
};

/* Names <-> enums. *_to_string never returns NULL for a valid value. */
CORDON_API const char *cordon_mode_to_string(enum cordon_mode m);
CORDON_API int cordon_mode_from_string(const char *s, enum cordon_mode *ret);
CORDON_API const char *cordon_net_to_string(enum cordon_net n);
CORDON_API int cordon_net_from_string(const char *s, enum cordon_net *ret);
CORDON_API const char *cordon_enforcement_to_string(enum cordon_enforcement e);
CORDON_API int cordon_enforcement_from_string(const char *s, enum cordon_enforcement *ret);
CORDON_API const char *cordon_backend_to_string(enum cordon_backend b);
CORDON_API int cordon_backend_from_string(const char *s, enum cordon_backend *ret);
CORDON_API const char *cordon_grade_to_string(enum cordon_grade g);
CORDON_API int cordon_grade_from_string(const char *s, enum cordon_grade *ret);
CORDON_API const char *cordon_verdict_to_string(enum cordon_verdict v);
CORDON_API const char *cordon_isolation_to_string(enum cordon_isolation i);
CORDON_API int cordon_isolation_from_string(const char *s, enum cordon_isolation *ret);

/* ---- Policy ------------------------------------------------------------
 *
 * Built once; this is where the filesystem is read. cordon_policy_new
 * canonicalises the workspace root (symlinks followed component by component,
 * 40 hops at most, ".." applied to the resolved prefix, a missing tail kept
 * verbatim), refuses a NUL byte or a root that canonicalises to "/", resolves
 * the default read-deny set under the caller's HOME (which entries exist, file
 * or directory) and snapshots the allowed environment. The setters below may
 * be called before the policy is first used; each validates its input.
 * The caller owns the policy and frees it with cordon_policy_free.
 */
struct cordon_policy;

/* mode: "read-only", "workspace-write" or "danger-full-access".
 * workspace_root: required unless mode is danger-full-access; NULL means the
 * current directory. */
CORDON_API int cordon_policy_new(const char *mode, const char *workspace_root,
				 struct cordon_policy **ret, struct cordon_error *reterr);
CORDON_API struct cordon_policy *cordon_policy_free(struct cordon_policy *p);

CORDON_API enum cordon_mode cordon_policy_mode(const struct cordon_policy *p);
/* Canonical workspace root; NULL only for danger-full-access without one. */
CORDON_API const char *cordon_policy_workspace(const struct cordon_policy *p);
CORDON_API int cordon_policy_set_net(struct cordon_policy *p, enum cordon_net net);
/* Host rules for network "proxy" (the proxy decides: deny, then allow;
 * an empty allow list admits nothing). ALLOW_DOMAIN / DENY_DOMAIN take
 * "host", "*.suffix" (subdomains only), either with ":PORT", or an IP
 * literal; ALLOW_ADDRESS takes "A" or "A/N": answers in it may be dialled
 * although they are loopback, private, link-local, metadata... Checked
 * now: -EINVAL with the reason in reterr. Rules are kept under any network
 * setting but only "proxy" uses them. */
enum cordon_net_rule {
	CORDON_NET_ALLOW_DOMAIN,
	CORDON_NET_DENY_DOMAIN,
	CORDON_NET_ALLOW_ADDRESS,
};
CORDON_API int cordon_policy_add_net_rule(struct cordon_policy *p, enum cordon_net_rule kind, const char *rule,
					  struct cordon_error *reterr);
/* The rules of one kind, NULL-terminated (never NULL). */
CORDON_API const char *const *cordon_policy_net_rules(const struct cordon_policy *p, enum cordon_net_rule kind);
CORDON_API enum cordon_net cordon_policy_net(const struct cordon_policy *p);
CORDON_API int cordon_policy_set_isolation(struct cordon_policy *p, enum cordon_isolation iso);

/* Let NAME (exact, or PREFIX_* / PREFIX* glob ending in '*') through the
 * environment filter; its current value is snapshotted now. */
CORDON_API int cordon_policy_keep_env(struct cordon_policy *p, const char *name,
				      struct cordon_error *reterr);
/* Set NAME=VALUE inside the sandbox. Loader and interpreter injection
 * variables (LD_PRELOAD, LD_LIBRARY_PATH, PYTHONPATH, NODE_OPTIONS, PERL5OPT,
 * BASH_ENV, ...) are refused with -EPERM. */
CORDON_API int cordon_policy_set_env(struct cordon_policy *p, const char *name, const char *value,
				     struct cordon_error *reterr);
/* Hide PATH (file or directory) from the sandbox; resolved now. A path that
 * does not exist is recorded as such and skipped by providers. */
CORDON_API int cordon_policy_deny_read(struct cordon_policy *p, const char *path,
				       struct cordon_error *reterr);
/* Keep PATH read-only inside the sandbox even though it is under a writable
 * root (native runner). Relative paths are relative to the workspace. */
CORDON_API int cordon_policy_protect(struct cordon_policy *p, const char *path,
				     struct cordon_error *reterr);
/* Let the sandbox reach the unix socket at PATH (absolute, canonicalised
 * now), which the native runner's unix gate (full isolation, network
 * "none") refuses otherwise, like every socket a host process bound. The
 * socket is compared by inode when the sandbox connects. */
CORDON_API int cordon_policy_allow_unix_socket(struct cordon_policy *p, const char *path,
					       struct cordon_error *reterr);
/* Make PATH (canonicalised now; it may not exist yet) writable too, under
 * workspace-write. Refused under read-only, for '/', and for a path a
 * read-deny entry covers (deny always wins). */
CORDON_API int cordon_policy_add_writable(struct cordon_policy *p, const char *path,
					  struct cordon_error *reterr);
/* Mark a feature required: the run is refused rather than degraded when the
 * kernel lacks it. Known: "landlock", "landlock-net", "landlock-scope",
 * "seccomp", "userns", "pidns", "netns". Unknown names: -EINVAL. */
CORDON_API int cordon_policy_require(struct cordon_policy *p, const char *feature,
				     struct cordon_error *reterr);

/* The canonical directories a confined process may write to: empty under
 * read-only, else the workspace root, /tmp and $TMPDIR, canonical and
 * de-duplicated. NULL-terminated; owned by the policy. */
CORDON_API const char *const *cordon_writable_roots(const struct cordon_policy *p);

/* Canonicalise and memoise the temp roots (/tmp, $TMPDIR) and the runner
 * path. Idempotent. Call once at start-up so later calls stay off the
 * filesystem. */
CORDON_API int cordon_warm(void);

/* Canonicalise PATH as cordon_policy_new does for the workspace root.
 * *ret is malloc'd and owned by the caller. */
CORDON_API int cordon_canonicalize(const char *path, char **ret, struct cordon_error *reterr);

/* ---- Backends ----------------------------------------------------------- */

struct cordon_backend_info {
	enum cordon_backend backend;
	enum cordon_grade grade;
	bool pinned;       /* from CORDON_BACKEND or cordon_pin_backend: never probed */
	bool from_cache;   /* taken from the persisted per-user probe cache */
	char path[4096];   /* the runner binary (bwrap, cordon, sandbox-exec); "" if none */
	unsigned lacks;    /* CORDON_LACKS_*: what this backend cannot give here */
};

/* What a backend cannot give on this host (bwrap). Zero claims everything:
 * a backend built from a zeroed info fails closed if the host disagrees. */
#define CORDON_LACKS_NAMESPACES (1u << 0) /* no fresh /dev, /proc or pid namespace */
#define CORDON_LACKS_RUNNER     (1u << 1) /* cordon's runner does not nest: no Landlock, no seccomp */

struct cordon_probe_report {
	enum cordon_backend backend;
	bool usable;
	enum cordon_grade grade;
	char path[4096];
	char reason[512];  /* why unusable, or what the partial grade lacks */
	uint64_t duration_us;
	unsigned lacks;    /* CORDON_LACKS_* (when usable) */
};

/* Candidates for this platform, best first, terminated by
 * CORDON_BACKEND_UNAVAILABLE. Linux: native, bwrap. macOS: seatbelt. */
CORDON_API const enum cordon_backend *cordon_backend_chain(void);

/* Pin a backend: it is used without probing. Pass CORDON_BACKEND_UNAVAILABLE
 * to pin "nothing", which makes every confine fail. */
CORDON_API int cordon_pin_backend(enum cordon_backend b);

/* The path of cordon's own runner binary (the `cordon` executable whose
 * `exec` subcommand the native provider calls). Defaults to the installed
 * binary; CORDON_RUNNER overrides. */
CORDON_API int cordon_set_runner_path(const char *path);
CORDON_API const char *cordon_runner_path(void);

/* Probe one backend now (may spawn), within timeout_ms. */
CORDON_API int cordon_probe_backend(enum cordon_backend b, int timeout_ms,
				    struct cordon_probe_report *ret);

/* In words, what backend b does not enforce that the native runner in full
 * isolation does ("" for none): the reason its grade is partial. Writes at
 * most n bytes into buf (NUL-terminated); returns the length it needed. */
CORDON_API size_t cordon_backend_gaps(const struct cordon_backend_info *b, char *buf, size_t n);

/* The selected backend: pinned, else memoised, else (when use_disk_cache)
 * the validated per-user cache, else a fresh probe of the chain (2 s each).
 * Only success is memoised. Falls back to CORDON_BACKEND_UNAVAILABLE. */
#define CORDON_SELECT_DISK_CACHE   (1u << 0) /* read and write the per-user cache */
#define CORDON_SELECT_REFRESH      (1u << 1) /* ignore every cache and probe again */
CORDON_API int cordon_backend_select(unsigned flags, struct cordon_backend_info *ret);
CORDON_API void cordon_reset_backend_cache(void);

/* ---- Confined ------------------------------------------------------------ */

/* What a runner writes on its status channel (cordon_confined.status_fd). */
enum cordon_status_format {
	CORDON_STATUS_NONE,       /* no channel: runner failures are read from the output's fatal signatures */
	CORDON_STATUS_CORDON,     /* cordon's runner: a failure is one line "STEP\tERRNO-NAME\tMESSAGE\n";
				   * nothing written: the runner did not fail */
	CORDON_STATUS_BWRAP_JSON, /* bwrap --json-status-fd: no {"exit-code": N} record means bwrap failed
				   * before (or while) starting the command */
	CORDON_STATUS_BWRAP_NESTED, /* bwrap's records on status_fd, and cordon's runner nested inside it
				     * writing its own (CORDON_STATUS_CORDON) on status_fd + 1, the same
				     * pipe: a cordon record, or no exit-code record, is a runner failure */
};

CORDON_API const char *cordon_status_format_to_string(enum cordon_status_format f);
CORDON_API int cordon_status_format_from_string(const char *s, enum cordon_status_format *ret);

struct cordon_confined {
	char **argv;                   /* NULL-terminated */
	enum cordon_mode mode;
	enum cordon_enforcement enforcement;
	enum cordon_grade grade;
	char **denial_signatures;      /* NULL-terminated; matched case-insensitively anywhere in a line */
	char **fatal_signatures;       /* NULL-terminated; matched at the start of a trimmed line */
	char **informational_lines;    /* NULL-terminated; dropped on exact case-insensitive full-line equality */
	int *allowed_exit_codes;       /* exempt from runner-failure, not from denial */
	size_t n_allowed_exit_codes;
	/* The environment argv must be started with: NULL-terminated
	 * NAME=VALUE entries, owned; NULL: inherit the caller's. Values travel
	 * here, never in argv (/proc/PID/cmdline is world-readable). */
	char **envp;
	/* The runner's out-of-band status channel: start argv with the write
	 * end of a pipe at fd number status_fd (> 2; -1: none) and, once it has
	 * ended, pass what was read from the pipe to cordon_classify_status.
	 * With a channel, fatal_signatures are not used: nothing the command
	 * prints can read as a runner failure. cordon_run does all of this.
	 * Without the pipe the native runner refuses to start (exit 125,
	 * "cordon: status-fd: fd N is not open") and bwrap fails. */
	int status_fd;
	enum cordon_status_format status_format;
};

/* Confine argv under policy with the selected backend (cordon_backend_select
 * with no flags; it probes on first use — call cordon_backend_select or
 * cordon_warm first to keep this call pure). The caller owns *ret. */
CORDON_API int cordon_confine(const char *const *argv, const struct cordon_policy *p,
			      struct cordon_confined **ret, struct cordon_error *reterr);
/* Confine with an explicit backend. Pure: no filesystem or process syscalls. */
CORDON_API int cordon_confine_with(const struct cordon_backend_info *backend,
				   const char *const *argv, const struct cordon_policy *p,
				   struct cordon_confined **ret, struct cordon_error *reterr);
CORDON_API struct cordon_confined *cordon_confined_free(struct cordon_confined *c);

/* JSON form of a confined value (what `cordon confine --json` prints and
 * `cordon classify --confined FILE` reads). Input is capped at 1 MiB. */
CORDON_API int cordon_confined_to_json(const struct cordon_confined *c, char **ret);
CORDON_API int cordon_confined_from_json(const char *json, size_t len,
					 struct cordon_confined **ret, struct cordon_error *reterr);

/* ["/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", argv...]; caller frees with
 * cordon_strv_free. */
CORDON_API int cordon_merge_stderr(const char *const *argv, char ***ret);
CORDON_API char **cordon_strv_free(char **v);

/* ---- Classify ------------------------------------------------------------ */

struct cordon_classification {
	enum cordon_verdict verdict; /* OK, DENIED or RUNNER_FAILED */
	char *line;                  /* the runner's line, verbatim, for RUNNER_FAILED; else NULL; caller frees */
};

/* exit_status: the exit code, or 128+N when killed by signal N. Pure.
 * For a confined value with a status channel this sees no runner failure
 * (the channel decides that): use cordon_classify_status. */
CORDON_API int cordon_classify(const struct cordon_confined *c, int exit_status,
			       const char *output, size_t output_len,
			       struct cordon_classification *ret);
/* The same, with what was read from the status channel (status_len bytes;
 * NULL/0: nothing was written). A runner's record makes RUNNER_FAILED with
 * its message (CORDON_STATUS_CORDON) or bwrap's first output line
 * (CORDON_STATUS_BWRAP_JSON) as ret->line; otherwise the output is looked
 * at for denials only. Without a channel it is cordon_classify. Pure. */
CORDON_API int cordon_classify_status(const struct cordon_confined *c, int exit_status,
				      const char *status, size_t status_len,
				      const char *output, size_t output_len,
				      struct cordon_classification *ret);

/* ---- Limits ---------------------------------------------------------------
 *
 * Resource limits for one run, enforced strongest first: a cgroup v2
 * subtree below the cgroup cordon runs in (when delegated and writable),
 * else cgroup v1 memory and pids controllers below our own cgroups (root),
 * else rlimits. CPU time is the whole tree's, counted by a cgroup (v2
 * cpu.stat, v1 cpuacct) and enforced by cordon_run's loop, else RLIMIT_CPU
 * (per process, weaker). File size and open files are always rlimits
 * (per process). cgroups cordon creates are named cordon-PID-N, removed
 * when the run ends, and swept at the next run when cordon was killed.
 */
enum cordon_limit {
	CORDON_LIMIT_NONE,
	CORDON_LIMIT_TIMEOUT,
	CORDON_LIMIT_CPU,
	CORDON_LIMIT_MEMORY,
	CORDON_LIMIT_PROCESSES,
	CORDON_LIMIT_FILE_SIZE,
	CORDON_LIMIT_OPEN_FILES,
	CORDON_LIMIT_OUTPUT,
	_CORDON_LIMIT_MAX,
};

enum cordon_limit_mechanism {
	CORDON_MECHANISM_NONE,     /* not set, or cannot be enforced */
	CORDON_MECHANISM_CGROUP2,
	CORDON_MECHANISM_CGROUP1,
	CORDON_MECHANISM_RLIMIT,
	CORDON_MECHANISM_SUPERVISOR, /* cordon itself: wall clock, output */
};

struct cordon_limits {
	uint64_t cpu_seconds;      /* 0: none; the whole tree's CPU time (cgroup), else RLIMIT_CPU per process */
	uint64_t memory;           /* bytes; 0: none */
	uint64_t processes;        /* 0: none */
	uint64_t file_size;        /* bytes; 0: none; the command sees EFBIG */
	uint64_t open_files;       /* 0: none */
	bool fallback_fail;        /* refuse rather than use a weaker mechanism */
};

/* How a run's limits will be enforced, per CORDON_LIMIT_*. */
struct cordon_limits_plan {
	enum cordon_limit_mechanism mechanism[_CORDON_LIMIT_MAX];
	bool weaker[_CORDON_LIMIT_MAX]; /* a weaker mechanism than the best one */
	char warning[512];               /* what is weaker and why; "" if nothing */
};

CORDON_API const char *cordon_limit_to_string(enum cordon_limit l);
CORDON_API const char *cordon_limit_mechanism_to_string(enum cordon_limit_mechanism m);

/* Decide how limits would be enforced for confined (reads /proc/self/cgroup
 * and the cgroup mounts once, memoised). -EOPNOTSUPP with a message naming
 * the limit when one cannot be enforced at all, or only by a weaker
 * mechanism and fallback_fail is set. */
CORDON_API int cordon_limits_check(const struct cordon_limits *l, const struct cordon_confined *confined,
				   struct cordon_limits_plan *ret, struct cordon_error *reterr);

/* What `cordon probe` shows: which mechanisms work here, in words. */
struct cordon_limits_probe {
	bool cgroup2;              /* a writable, delegated v2 subtree with memory and pids */
	bool cgroup1_memory;       /* v1 memory controller, writable below our cgroup */
	bool cgroup1_pids;
	bool rlimit_nproc;         /* RLIMIT_NPROC binds us (not root) */
	char cgroup2_reason[256];
	char cgroup1_reason[256];
};
CORDON_API int cordon_limits_probe(struct cordon_limits_probe *ret);

/* ---- Run ----------------------------------------------------------------- */

struct cordon_run_opts {
	int timeout_ms;          /* 0: none */
	size_t max_output;       /* capture cap; 0: the default, 1 MiB */
	const char *cwd;         /* NULL: inherit */
	bool passthrough;        /* stdio inherited; output not captured; stderr scanned for classification */
	/* When the confined argv runs cordon's own runner ([cordon_runner_path(),
	 * "exec", ...]) and this is set, the runner is entered in a forked child
	 * by calling it with (argc, argv) from "exec" on, instead of exec'ing the
	 * cordon binary again: one exec and one dynamic link less per launch.
	 * Only for single-threaded callers that link the runner (the cordon CLI
	 * passes cordon_exec_main). NULL: always exec. */
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
};

struct cordon_result {
	int exit_code;           /* the command's exit code; -1 if killed by a signal */
	int signal;              /* the signal that killed it, 0 if none */
	enum cordon_verdict verdict;
	char *runner_line;       /* for RUNNER_FAILED, else NULL */
	char *output;            /* captured merged output, NUL-terminated, at most max_output bytes */
	size_t output_len;
	uint64_t output_total;   /* bytes the command produced (captured + dropped) */
	bool truncated;
	uint64_t duration_ms;
	enum cordon_enforcement enforcement;
	enum cordon_grade grade;
	enum cordon_mode mode;
	char *annotated;         /* what an agent reads: exit line, output, marker */
	enum cordon_limit limit; /* the limit that fired, or CORDON_LIMIT_NONE */
	enum cordon_limit_mechanism limit_mechanism;
	struct cordon_limits_plan limits; /* how each limit was enforced */
};

/* Spawn confined->argv with its stdout and stderr on one pipe (the merge
 * cordon_merge_stderr gives callers that spawn argv themselves), capture up
 * to the cap, time out, kill the whole tree on timeout, classify, annotate. */
CORDON_API int cordon_run(const struct cordon_confined *confined, const struct cordon_run_opts *opts,
			  struct cordon_result **ret);
CORDON_API struct cordon_result *cordon_result_free(struct cordon_result *r);

#ifdef __cplusplus
}
#endif
