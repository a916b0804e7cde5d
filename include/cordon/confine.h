/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: backends (what can enforce a policy here) and the confined value
 * (a policy turned into an argv).
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * `exec` subcommand the native provider calls): the one set by
 * cordon_set_runner_path, else $CORDON_RUNNER, else bin/cordon of the prefix
 * this library was loaded from (a destdir or relocated install), else the
 * compiled-in install prefix's. $CORDON_RUNNER is used only when it is a
 * regular file owned by root or the caller, writable by neither group nor
 * others, that answers `--version` with this library's version; otherwise
 * the native backend is unusable (and cordon_confine refuses it) with the
 * reason. cordon_runner_origin says, in words, where the path came from. */
CORDON_API int cordon_set_runner_path(const char *path);
CORDON_API const char *cordon_runner_path(void);
CORDON_API const char *cordon_runner_origin(void);
/* The tool sandbox's shim (cordon-shim): $CORDON_SHIM, else beside the
 * runner, else the installed one; it must be executable. *ret is
 * malloc'd. */
CORDON_API int cordon_shim_path(char **ret);

/* Probe one backend now (may spawn), within timeout_ms. */
CORDON_API int cordon_probe_backend(enum cordon_backend b, int timeout_ms,
				    struct cordon_probe_report *ret);
/* The Landlock ABI version the kernel reports, 0 when it has none. Asked
 * once (a syscall, no spawn) and memoised. */
CORDON_API int cordon_landlock_abi(void);

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
	/* The tool sandbox's broker (cordon_policy_set_broker): start argv
	 * with the caller's broker socket at fd number broker_fd (> 2;
	 * cordon_run_opts.broker_fd gives it); <= 2: none. */
	int broker_fd;
	/* The file the command runs from (cordon_policy_exec_from_fd): start
	 * argv with the caller's fd at this number (> 2; -1, or any value
	 * <= 2: none). cordon_run and cordon_spawn do it with
	 * cordon_run_opts.exec_fd, and refuse a value that wants one without
	 * it. */
	int exec_fd;
	/* The credential table (cordon_policy_set_credentials): start argv
	 * with the read end of the caller's pipe at this number (> 2;
	 * cordon_run_opts.credentials_fd gives it); <= 2: none. */
	int credentials_fd;
};

/* Move c's status channel to fd number fd (> 2; a nested bwrap value uses
 * fd + 1 too), as bubblewrap's --json-status-fd N lets its caller choose:
 * the runner's own flags in argv and status_fd change, nothing else.
 * -ENOTSUP: c has no status channel; -EBADF: fd out of range; -EBUSY: fd
 * is c's exec_fd or broker_fd; -EINVAL: argv is not as a provider made it
 * (then c is unchanged). */
CORDON_API int cordon_confined_set_status_fd(struct cordon_confined *c, int fd);

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

#ifdef __cplusplus
}
#endif
