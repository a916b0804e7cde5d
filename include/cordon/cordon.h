/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon — confine the subprocesses that AI-agent tools spawn.
 *
 * The shape: build a policy once (this is where the filesystem is read),
 * confine argv under it (pure: no syscalls that touch files or processes),
 * spawn the confined argv (cordon_run does it for you), then classify what
 * came back as ok, denied or runner-failed.
 *
 * A front end (the CLI, the supervisor) usually starts one level up: load a
 * profile (cordon_profile_load), build a launch from it and its own
 * overrides (cordon_launch_new: policy, backend, limits, run options, all
 * checked once), then cordon_spawn as many commands through it as it likes,
 * driving them from its own poll loop, or cordon_wait for one.
 *
 * Threads: any function may be called from any thread, as long as one
 * object is not changed by one thread while another uses it (a policy's
 * setters) and nobody calls setenv meanwhile (cordon_policy_new reads the
 * environment). The process-wide state (the pinned backend, the runner
 * path, the memoised probe and temp roots, the cgroup layout) is locked or
 * set once; profiles and launches are immutable once built, so many
 * threads may spawn through one. Only cordon_run_opts.runner_main needs a
 * single-threaded caller (cordon_run execs the runner otherwise).
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
#include <poll.h>
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

/* Exit code a runner uses for its own setup failures (the command never ran);
 * also `cordon`'s own for every refusal (bad flag, profile error, --require,
 * no backend). */
#define CORDON_EXIT_RUNNER_FAILED 125
/* Exit code of `cordon run` on a wall-clock timeout (cordon_result.exit_code too). */
#define CORDON_EXIT_TIMEOUT 124
/* The native runner's, as a shell's: the command exists but cannot be
 * executed (EACCES, ENOEXEC, ...), or does not exist (ENOENT). The runner
 * reports it on its status channel: the verdict is RUNNER_FAILED. */
#define CORDON_EXIT_CANNOT_EXECUTE 126
#define CORDON_EXIT_NOT_FOUND 127
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
/* At most this many rules of one kind (-E2BIG past it). */
#define CORDON_NET_MAX_RULES 4096
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
 * read-deny entry covers (deny always wins; under restricted reads a
 * built-in entry at or above PATH is lifted instead, as by
 * cordon_policy_restrict_read). PATH may be a directory or a regular file:
 * a file is written in place (full isolation binds it back alone and
 * Landlock grants it alone: read, write, truncate; nothing can be created,
 * renamed or removed beside it, so an atomic replace by rename fails); it
 * must exist when the run starts, and it is never a workspace. What the
 * new root reaches is protected as for the workspace: HOME's start-up
 * files, PATH directories, git's hooks paths. */
CORDON_API int cordon_policy_add_writable(struct cordon_policy *p, const char *path,
					  struct cordon_error *reterr);

/* What a built policy applies, read back (`cordon profile show
 * --effective`): the lists as the providers will use them, not as asked. */
CORDON_API enum cordon_isolation cordon_policy_isolation(const struct cordon_policy *p);
/* The caller's HOME, canonical, as the policy resolved it; NULL if unknown. */
CORDON_API const char *cordon_policy_home(const struct cordon_policy *p);

/* One read-deny entry: the built-in catalogue and cordon_policy_deny_read's. */
struct cordon_read_deny {
	const char *path;          /* canonical */
	bool exists;               /* false: bwrap has nothing to hide */
	const char *hidden_at;     /* what the native runner hides: path, or for a missing
				    * entry its first missing component; NULL: not hidden */
	bool only_without_network; /* a local service socket: hidden unless the network is "host" */
};
/* The i-th read-deny entry (from 0), its strings owned by the policy: 0, or
 * -ENOENT past the last one. */
CORDON_API int cordon_policy_read_deny(const struct cordon_policy *p, size_t i, struct cordon_read_deny *ret);

/* Whether the native runner's write gate applies (full isolation,
 * workspace-write): what a run may not create or change by name below a
 * writable root. */
CORDON_API bool cordon_policy_write_gate(const struct cordon_policy *p);

enum cordon_policy_list {
	CORDON_POLICY_PROTECTED,     /* read-only below a writable root: absolute, lexically
				      * normalised, existing or not */
	CORDON_POLICY_UNIX_SOCKETS,  /* canonical socket paths the unix gate admits */
	CORDON_POLICY_ENV,           /* NAME=VALUE, passed into the sandbox */
	CORDON_POLICY_KEEP_ENV,      /* names and PREFIX* patterns also kept from the caller */
	CORDON_POLICY_GATE_NAMES,    /* the write gate's names, protected at any depth below a
				      * writable root; empty when the gate does not apply */
	CORDON_POLICY_GATE_LIFTED,   /* where no rule by name applies: the lifted persistence
				      * paths, then (when the gate applies) the writable roots
				      * inside a HOME dot-entry, a tool's cache */
	_CORDON_POLICY_LIST_MAX,
};
/* A copy of one of those lists, NULL-terminated (empty, never NULL); free
 * it with cordon_strv_free. -EINVAL for an unknown which, -ENOMEM. */
CORDON_API int cordon_policy_list(const struct cordon_policy *p, enum cordon_policy_list which, char ***ret);

/* ---- The tool sandbox's mechanisms --------------------------------------
 *
 * Four general features a tool's own sandbox is built from, enforced by
 * the native runner (Landlock, and execveat). Light isolation has no
 * unix-socket gate (a host service reachable over a pathname socket would
 * execute for the sandbox): a policy using the execute-only gate or
 * deny-exec is refused there by cordon_confine (-EOPNOTSUPP, saying why);
 * restricted reads and running from an fd work there too. The bwrap and
 * seatbelt backends refuse all four. `cordon explain` says so (refused,
 * not enforced less: so not among cordon_backend_gaps(), the reasons for
 * a partial grade). None of them is allowed under danger-full-access
 * (-EINVAL). Paths are canonicalised when given; "/" is refused.
 */

/* Restricted reads. The first call switches the policy from "everything
 * but the read-deny set" to "only the system's baseline and what is
 * granted": readable becomes the baseline (/usr, /etc, /bin, /sbin, /lib*,
 * the sandbox's own /dev, /proc, /tmp, /run, /sys/devices/system/cpu; not
 * HOME, /var, /opt, /srv, /home, /root or /mnt: see policy_tool.c), plus
 * PATH (a file or a directory) and each path added by later calls, plus
 * the writable roots. A PATH that does not exist is recorded and skipped.
 * The read-deny catalogue still applies inside readable roots, except
 * that a built-in entry at or above a granted PATH is lifted: granting
 * ~/.config/gh makes that store readable, granting ~ does not make ~/.ssh
 * readable. An entry the caller named (cordon_policy_deny_read) at or
 * above PATH refuses the grant (-EPERM: deny wins). */
CORDON_API int cordon_policy_restrict_read(struct cordon_policy *p, const char *path,
					   struct cordon_error *reterr);
/* The execute-only gate. The first call turns it on: EXECUTE (Landlock)
 * only on PATH (a file or a directory, which becomes readable too: the
 * kernel reads what it executes) and each path added later; readable and
 * writable roots lose it, so nothing the sandbox writes, into /tmp or the
 * workspace, can be executed; what it can write is mounted noexec too
 * (unless a granted path lies there), so the loader run as a program
 * cannot map it, and a memfd can be made only sealed non-executable
 * (MFD_NOEXEC_SEAL, Linux 6.3; Landlock does not see memfds). The dynamic
 * loader a binary names must be granted too. A script run as `sh script`
 * is read by an executable shell, not executed: the gate lets it run. A
 * missing PATH is recorded and skipped; one under a read-deny entry is
 * refused (-EPERM). */
CORDON_API int cordon_policy_allow_exec(struct cordon_policy *p, const char *path, struct cordon_error *reterr);
/* Never executable, though still readable (and writable where a root
 * says so): EXECUTE is withheld along the path, every sibling on the way
 * granted it, never the entry. Holds when the host renames a new file over
 * the name during the run and for a name created later in that directory;
 * a sibling the host renames over it keeps its own right (Landlock's rules
 * follow inodes). By path: a hard link or copy elsewhere
 * (/usr/lib/git-core/git for /usr/bin/git) is another path. Landlock
 * mediates execve, not mmap: running the dynamic loader on the file
 * (ld.so PATH) maps and runs it; deny the read too where that matters.
 * Memfds that could be executed are refused (a copy there would run).
 * Cost: one Landlock rule per entry of each directory on the way
 * (/usr/bin: about 1300), built once per launch. A missing PATH: its first
 * missing component is withheld, so nothing made there later runs. */
CORDON_API int cordon_policy_deny_exec(struct cordon_policy *p, const char *path, struct cordon_error *reterr);
/* Run the command from an fd the caller opens (and checks) itself: the
 * confined value then asks for it at cordon_confined.exec_fd and the
 * runner executes exactly that file with execveat(fd, "", argv, envp,
 * AT_EMPTY_PATH), argv kept as given, whatever the file's path names by
 * then. That file may be read and executed whatever the gate says (a
 * Landlock rule on it, not on its path); a --deny-exec path naming it
 * makes the runner refuse. A script (#!) keeps the fd open across exec:
 * its interpreter reads it as /dev/fd/N (which is then its $0). Errors
 * exit 126/127 as an execve's would. -EINVAL under danger-full-access. */
CORDON_API int cordon_policy_exec_from_fd(struct cordon_policy *p, bool on);
/* A policy for one tool's own sandbox: workspace-write (so the write
 * gate's rules by name, the persistence protections and what HOME and
 * PATH reach all apply to whatever becomes writable, and
 * cordon_policy_mode() says CORDON_MODE_WORKSPACE_WRITE: this is that mode
 * with an empty start, not a mode of its own), except that nothing is
 * writable until cordon_policy_add_writable adds it, not the workspace
 * either (the private /tmp stays writable; $TMPDIR elsewhere is set to
 * it), reads are restricted to the baseline until cordon_policy_restrict_read
 * adds, and the execute-only gate is on with nothing executable until
 * cordon_policy_allow_exec adds (or the command runs from an fd).
 * add_writable lifts a built-in read-deny entry at or above its path.
 * workspace: NULL means the current directory; it must be a directory. */
CORDON_API int cordon_policy_new_tool(const char *workspace, struct cordon_policy **ret,
				      struct cordon_error *reterr);
/* Mark a feature required: the run is refused rather than degraded when the
 * kernel lacks it. Known: "landlock", "landlock-net", "landlock-scope",
 * "seccomp", "userns", "pidns", "netns". Unknown names: -EINVAL. */
CORDON_API int cordon_policy_require(struct cordon_policy *p, const char *feature,
				     struct cordon_error *reterr);

/* The tool sandbox's broker (the native runner, full isolation): the
 * sandbox gets /run/cordon, a read-only tmpfs of its own with the socket
 * /run/cordon/broker (its listener is handed to the caller over the
 * socket given as cordon_run_opts.broker_fd) and /run/cordon/bin, first on
 * PATH, holding one link to shim_path (absolute, canonicalised now) per
 * name in commands (bare command names). Replaces an earlier call's. */
CORDON_API int cordon_policy_set_broker(struct cordon_policy *p, const char *shim_path,
					const char *const *commands, struct cordon_error *reterr);

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

/* Read all of PATH ("-": standard input, read to its end) into a malloc'd,
 * NUL-terminated buffer: *ret, and its length without the NUL in *ret_len.
 * At most max bytes: -EFBIG past them; -EINVAL for no path; other -errno
 * from open or read. The capped reader cordon reads its own files with,
 * for what a front end is handed (`cordon classify`'s --confined and
 * --output). */
CORDON_API int cordon_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

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
	enum cordon_verdict verdict; /* OK, DENIED or RUNNER_FAILED (TIMEOUT: cordon_classify_ex) */
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
 * at for denials only. Without a channel it is cordon_classify. One
 * exception, the only thing it asks the system: the runner's record that
 * it could not execute (EACCES) a file this process may execute is DENIED
 * (the sandbox refused it: the execute-only gate), with no line. */
CORDON_API int cordon_classify_status(const struct cordon_confined *c, int exit_status,
				      const char *status, size_t status_len,
				      const char *output, size_t output_len,
				      struct cordon_classification *ret);
/* The file in the runner's line "execve: PATH: EACCES" (it could not
 * execute PATH), as cordon_classify_status reads it: 0 with PATH in buf;
 * -ENOENT when line is not such a line, -ENAMETOOLONG when PATH does not
 * fit in size bytes. Pure. */
CORDON_API int cordon_runner_exec_refused(const char *line, char *buf, size_t size);
/* What a caller that spawned the confined argv itself knows of how it
 * ended, beyond its status: it killed it at its own deadline. */
struct cordon_classify_facts {
	bool timed_out;
};
/* cordon_classify_status, told what the caller knows: timed_out makes the
 * verdict CORDON_VERDICT_TIMEOUT, as cordon_run's own timeout does (a
 * runner failure that came first still wins: it is what kept the command
 * from running). facts may be NULL. Pure. */
CORDON_API int cordon_classify_ex(const struct cordon_confined *c, int exit_status, const char *status,
				  size_t status_len, const char *output, size_t output_len,
				  const struct cordon_classify_facts *facts, struct cordon_classification *ret);

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

/* Sizes and durations, in the one grammar cordon reads them in wherever
 * it meets one (the CLI's --memory, --max-output, --timeout, --cpu, ... and
 * a profile's "limits" strings). The callers check ranges; these only read
 * the number.
 *
 * Size:      DIGITS [UNIT [B | iB]]
 *            UNIT one of k K m M g G t T, binary multiples (k = 1024,
 *            M = 1024^2, G = 1024^3, T = 1024^4); "64M", "64MB" and
 *            "64MiB" are the same. No sign, no space, no fraction.
 * Duration:  NUMBER [ms | s | m | h], a bare number being seconds, read in
 *            microseconds. NUMBER is decimal: DIGITS, DIGITS.DIGITS,
 *            DIGITS. or .DIGITS ("1.5m" is 90 seconds). A fraction finer
 *            than a microsecond rounds up, so a tiny positive duration is
 *            never zero. No sign, no space, no exponent.
 *
 * Both return 0 and write *ret only on success; -EINVAL for anything that
 * is not in the grammar (NULL too), -ERANGE for a value that does not fit
 * in 64 bits. */
#define CORDON_USEC_PER_SEC UINT64_C(1000000)
CORDON_API int cordon_parse_size(const char *s, uint64_t *ret);
CORDON_API int cordon_parse_duration(const char *s, uint64_t *ret_usec);

/* ---- Profiles ------------------------------------------------------------
 *
 * A profile is one JSON file saying what a session may do (a built-in name
 * such as "default", a path, or NAME looked up in the user's and the
 * installed profile directories). cordon_profile_load parses it, resolves
 * its extends chain, expands path tokens and checks everything it can
 * without building a policy; what cordon cannot enforce is refused here.
 * The handle is immutable after load: every accessor is a read, safe from
 * any thread. The caller owns it and frees it with cordon_profile_free;
 * strings and vectors an accessor returns are owned by the handle.
 */
struct cordon_profile_handle;

struct cordon_profile_opts {
	/* The workspace ($WORKSPACE in the profile, and the policy's root);
	 * NULL: the profile's "workspace" key, else the current directory. */
	const char *workspace;
	/* $HOME and ~ for path tokens; NULL: the environment's HOME. */
	const char *home;
	/* Look NAME up among the embedded profiles only, never in a file:
	 * what runs is exactly what is compiled in. */
	bool builtin_only;
};

/* name_or_path: a path when it contains '/' or ends in ".json", else
 * ~/.config/cordon/profiles/NAME.json, else the installed NAME.json, else
 * the embedded NAME. NULL: the embedded "default" (as with builtin_only).
 * opts may be NULL. Errors: see the error codes above, plus -ENOENT (no
 * such profile), -EOPNOTSUPP (a key cordon cannot enforce yet), -EPERM (a
 * rule against a deny or a protected path), -ERANGE (a limit out of range),
 * -ELOOP (an extends cycle); reterr gets "file:line:column: at /pointer: what". */
CORDON_API int cordon_profile_load(const char *name_or_path, const struct cordon_profile_opts *opts,
				   struct cordon_profile_handle **ret, struct cordon_error *reterr);
CORDON_API struct cordon_profile_handle *cordon_profile_free(struct cordon_profile_handle *p);
/* cordon_profile_load for inspection only (`cordon why --command`): a
 * profile with command_policies loads too, to be read and asked
 * (cordon_profile_tools, cordon_tools_decide), never run: nothing but the
 * tool sandbox's supervisor enforces command_policies, and
 * cordon_launch_new refuses such a handle (-EOPNOTSUPP). */
CORDON_API int cordon_profile_load_inspect(const char *name_or_path, const struct cordon_profile_opts *opts,
					   struct cordon_profile_handle **ret, struct cordon_error *reterr);

/* What was asked for ("default" for NULL), and the file it came from
 * ("builtin:NAME" when embedded). Never NULL. */
CORDON_API const char *cordon_profile_name(const struct cordon_profile_handle *p);
CORDON_API const char *cordon_profile_file(const struct cordon_profile_handle *p);
/* meta.description; NULL when unset. */
CORDON_API const char *cordon_profile_description(const struct cordon_profile_handle *p);
CORDON_API enum cordon_mode cordon_profile_mode(const struct cordon_profile_handle *p);
/* Canonical workspace; NULL only for danger-full-access without one. */
CORDON_API const char *cordon_profile_workspace(const struct cordon_profile_handle *p);
CORDON_API enum cordon_net cordon_profile_net(const struct cordon_profile_handle *p);

enum cordon_profile_list {
	CORDON_PROFILE_READ,        /* filesystem.read: canonical paths */
	CORDON_PROFILE_WRITE,       /* filesystem.write */
	CORDON_PROFILE_DENY_READ,   /* filesystem.deny_read */
	CORDON_PROFILE_PROTECT,     /* filesystem.protect */
	CORDON_PROFILE_UNIX_SOCKETS, /* network.allow_unix_sockets */
	CORDON_PROFILE_ENV_ALLOW,   /* environment.allow: names and PREFIX* patterns */
	CORDON_PROFILE_ENV_SET,     /* environment.set: NAME=VALUE */
	CORDON_PROFILE_ALLOW_DOMAINS,   /* network.allow_domains (mode proxy): H, H:PORT, *.H */
	CORDON_PROFILE_DENY_DOMAINS,    /* network.deny_domains */
	CORDON_PROFILE_ALLOW_ADDRESSES, /* network.allow_addresses: A[/N] */
	_CORDON_PROFILE_LIST_MAX,
};
/* One of the profile's lists, NULL-terminated and read-only (empty, never
 * NULL, for a valid which; NULL for an invalid one). */
CORDON_API const char *const *cordon_profile_list(const struct cordon_profile_handle *p,
						  enum cordon_profile_list which);

/* The profile's "limits" section. A zero field is one the profile leaves
 * unset; the _set flags say whether the two choices were made. */
struct cordon_profile_limits {
	uint64_t timeout_ms;
	uint64_t max_output;          /* bytes */
	bool output_terminate_set;
	bool output_terminate;        /* on_output_limit: "kill" */
	bool fallback_set;            /* limits_fallback given: limits.fallback_fail holds it */
	struct cordon_limits limits;
};
CORDON_API void cordon_profile_limits(const struct cordon_profile_handle *p, struct cordon_profile_limits *ret);

/* The resolved profile as JSON (extends merged, paths expanded, sorted
 * keys); it loads back to the same profile. *ret is malloc'd. */
CORDON_API int cordon_profile_to_json(const struct cordon_profile_handle *p, char **ret);

/* ---- Tools: a profile's command_policies -----------------------------------
 *
 * The data and the decisions of the tool sandbox (DESIGN.md, "The tool
 * sandbox"): which commands are under policy, who may call which, with what
 * arguments and environment, through which approval, and in what sandbox
 * each edge (caller -> command) runs. Compiled once, at load, and owned by
 * the profile: every function here only reads it, from any thread, and
 * everything it returns lives as long as the profile.
 *
 * Only the tool sandbox's supervisor (`cordon run`, which is
 * cordon-supervisor for such a profile) runs a session under them:
 * cordon_launch_new refuses a profile with command_policies
 * (-EOPNOTSUPP), since a session launched without the supervisor would
 * reach no tool through its policy. cordon_toolbox (below) is what the
 * supervisor builds from them.
 *
 * Edges. The session (CORDON_TOOLS_SESSION) reaches every command unless
 * the command's from.session is "deny". A command X reaches Y only when Y
 * is X or Y is in X's can_use, and Y's from.X is not "deny". An unknown
 * command or caller is a deny, with a reason.
 *
 * Invocation policy: the edge's (from.CALLER.invocation_policy, else the
 * command's own; a command without one allows every invocation). Its deny
 * rules are tried first, then approve, then allow, each list in the order
 * written; the first rule that matches decides, and when none does the
 * policy's default. A rule matches when every condition it has holds:
 *   argv.exact     argv equals the list (the same words, the same count);
 *   argv.prefix    argv starts with the list;
 *   argv.contains  every word of the list is one of argv's words
 *                  (anywhere, in any order; whole words, compared exactly);
 *   env.VAR        VAR is set in envp and its value equals "equals", or is
 *                  one of "one_of" (an unset VAR matches neither; the first
 *                  VAR= entry of envp counts, as getenv has it).
 * argv is the arguments after the command name; words are compared byte
 * for byte, no globbing, no option parsing ("--force" is not "-f").
 */
struct cordon_tools;

/* The profile's command_policies; NULL when it has none. */
CORDON_API const struct cordon_tools *cordon_profile_tools(const struct cordon_profile_handle *p);
/* The command names under policy, sorted (strcmp), NULL-terminated. */
CORDON_API const char *const *cordon_tools_commands(const struct cordon_tools *t);
/* The executable as the profile gives it: an absolute path, or a bare name
 * (the command's own name when none is given) for cordon_tools_resolve.
 * NULL for an unknown command. */
CORDON_API const char *cordon_tools_executable(const struct cordon_tools *t, const char *command);
/* What command may call besides itself (its can_use), NULL-terminated;
 * NULL for an unknown command. */
CORDON_API const char *const *cordon_tools_can_use(const struct cordon_tools *t, const char *command);

/* The caller name of the agent's own sandbox; no command may be named so. */
#define CORDON_TOOLS_SESSION "session"

enum cordon_tool_action {
	CORDON_TOOL_ALLOW,
	CORDON_TOOL_DENY,
	CORDON_TOOL_APPROVE, /* ask the approval backend named in backend */
};
CORDON_API const char *cordon_tool_action_to_string(enum cordon_tool_action a);

struct cordon_tool_decision {
	enum cordon_tool_action action;
	/* The JSON pointer of what decided, e.g.
	 * "/command_policies/commands/git/invocation_policy/deny/0",
	 * ".../invocation_policy/default", ".../commands/ssh/from/session",
	 * ".../commands/git/can_use", "/command_policies/commands" (unknown). */
	char rule[256];
	char reason[256];  /* the rule's reason, else a sentence saying what matched */
	char backend[128]; /* CORDON_TOOL_APPROVE: the backend to ask; else "" */
	char file[256];    /* the file the rule is in ("" when no rule of the profile decided) */
	int line;          /* its line there (1-based; 0 when unknown) */
};

/* Decide one invocation: caller is CORDON_TOOLS_SESSION or a command name;
 * argv the arguments after the command name (NULL: none); envp the
 * caller's NAME=VALUE environment (NULL: empty). Pure: no system calls.
 * -EINVAL for a NULL t, command, caller or ret; an unknown name is a
 * decision (deny), not an error. */
CORDON_API int cordon_tools_decide(const struct cordon_tools *t, const char *caller, const char *command,
				   const char *const *argv, const char *const *envp,
				   struct cordon_tool_decision *ret);

/* The sandbox an edge runs the command in: from.CALLER's sandbox, else the
 * command's own, else an empty one (nothing granted). Paths are canonical
 * (a missing tail kept as written: it may not exist yet); lists are
 * NULL-terminated and never NULL. allow_vars holds names and PREFIX*
 * patterns (loader and interpreter injection variables, LD_PRELOAD and the
 * like, must still be dropped when a pattern matches them, as
 * cordon_policy_keep_env does); set_vars NAME=VALUE. A zero *_max is no
 * cap. */
struct cordon_tool_sandbox {
	const char *const *fs_read, *const *fs_write, *const *fs_read_file, *const *fs_write_file;
	const char *const *exec_paths;
	bool net_set;          /* false: the sandbox says nothing (no network) */
	enum cordon_net net;
	const char *const *allow_domains, *const *deny_domains, *const *allow_addresses;
	const char *const *allow_vars, *const *set_vars;
	struct cordon_profile_limits limits;
	uint64_t stdout_max, stderr_max;
	bool stdout_terminate, stderr_terminate; /* at the cap: kill (else drop the rest) */
};
/* -ENOENT for an unknown caller or command, -EPERM for an edge that does
 * not exist (can_use, from.CALLER "deny"). Pointers are owned by t. */
CORDON_API int cordon_tools_sandbox(const struct cordon_tools *t, const char *caller, const char *command,
				    struct cordon_tool_sandbox *ret);

enum cordon_approval_type {
	CORDON_APPROVAL_TERMINAL,
	CORDON_APPROVAL_WEBHOOK,
	CORDON_APPROVAL_CHAIN,
};

/* One of command_policies.approval_backends. terminal: timeout_ms and
 * default_allow (what an unanswered or unattended ask gets). webhook: url
 * (http or https), secret_env (the variable holding the HMAC key),
 * timeout_ms; default_allow is always false. chain: members (names of
 * other backends, in order; NULL-terminated) and chain_all (every member
 * must allow; else any one); timeout_ms is 0 (the members' own bound it),
 * default_allow false. Strings are owned by t; NULL where not used. */
struct cordon_approval_backend {
	const char *name;
	enum cordon_approval_type type;
	uint64_t timeout_ms;
	bool default_allow;
	const char *url;
	const char *secret_env;
	bool chain_all;
	const char *const *members;
};
/* The approval backends' names, sorted, NULL-terminated (never NULL). */
CORDON_API const char *const *cordon_tools_backend_names(const struct cordon_tools *t);
/* -ENOENT when there is no backend named so. */
CORDON_API int cordon_tools_backend(const struct cordon_tools *t, const char *name,
				    struct cordon_approval_backend *ret);

/* Resolve a command's executable once, at session start. An absolute one
 * as given, canonical; it must exist and be a regular file with an execute
 * bit (-ENOENT, -EACCES). A bare name is looked up on path_env (a PATH
 * value; empty and relative entries are skipped), taking the first regular
 * executable file found, canonical; every directory at or below one of
 * writable (NULL-terminated, may be NULL: the session's writable roots),
 * and every candidate whose canonical path lies there, is skipped: a
 * binary the session could plant there is never taken. -ENOENT when
 * nothing is found, and reterr says so, naming what was skipped. *ret is
 * malloc'd; the caller frees it. */
CORDON_API int cordon_tools_resolve(const struct cordon_tools *t, const char *command, const char *path_env,
				    const char *const *writable, char **ret, struct cordon_error *reterr);

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
	 * (cordon_policy_keep_env). NULL: none. */
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
};

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

/* ---- Launch ---------------------------------------------------------------
 *
 * One launch = a profile plus a front end's overrides, turned once, in the
 * library, into everything a run needs: the policy, the backend, the merged
 * limits (checked here, once) and the run options. A front end (the CLI,
 * the supervisor) fills cordon_launch_opts from its flags or messages and
 * never merges by hand. Overrides follow the CLI's rule: scalars replace the
 * profile's, lists add to it. Immutable once built: confining and spawning
 * through it only read it, from any thread. The caller owns it and frees it
 * with cordon_launch_free.
 */
struct cordon_launch;

struct cordon_launch_opts {
	const char *mode;                 /* NULL: the profile's; else as cordon_policy_new;
					   * a mode other than workspace-write drops the profile's
					   * write grants */
	const char *workspace;            /* NULL: the profile's; else the profile is loaded again
					   * with it ($WORKSPACE tokens expand at load) */
	bool net_set;
	enum cordon_net net;
	bool isolation_set;
	enum cordon_isolation isolation;
	/* Use this backend unprobed, for this launch only (nothing
	 * process-wide is pinned); else cordon_backend_select with the disk
	 * cache. Ignored under danger-full-access. */
	bool backend_set;
	enum cordon_backend backend;
	/* Lists added to the profile's: NULL-terminated, each may be NULL. */
	const char *const *read;          /* refused (-EPERM) at or under a read-deny: deny wins;
					   * anything else is readable anyway */
	const char *const *write;         /* cordon_policy_add_writable */
	const char *const *deny_read;     /* cordon_policy_deny_read */
	const char *const *deny_exec;     /* cordon_policy_deny_exec */
	const char *const *protect;       /* cordon_policy_protect */
	const char *const *allow_unix_sockets;
	const char *const *keep_env;      /* names or PREFIX* */
	const char *const *set_env;       /* NAME=VALUE; injection variables are refused */
	const char *const *require;       /* cordon_policy_require feature names */
	/* cordon_policy_add_net_rule: CORDON_NET_ALLOW_DOMAIN, _DENY_DOMAIN,
	 * _ALLOW_ADDRESS; refused (-EINVAL) unless the network is proxy */
	const char *const *allow_domains;
	const char *const *deny_domains;
	const char *const *allow_addresses;
	/* Limits: a set (non-zero) value replaces the profile's. */
	int timeout_ms;                   /* 1 .. one week */
	uint64_t max_output;              /* 1 .. 1 GiB */
	bool output_terminate_set;
	bool output_terminate;
	bool fallback_set;                /* limits.fallback_fail holds the choice */
	struct cordon_limits limits;      /* cpu 1..604800 s, memory 1M..1T, processes 4..4194304,
					   * file_size 1..1T, open_files 16..1048576 */
};

/* profile: NULL means the embedded "default" (never a file). opts may be
 * NULL. Refuses what cannot run: a bad override (-EINVAL, naming it), a
 * rule against a deny (-EPERM), limits that cannot be enforced here or
 * only by a weaker mechanism under limits_fallback "fail" (-EOPNOTSUPP),
 * no backend that can enforce the policy (CORDON_SANDBOX_UNAVAILABLE). The
 * profile is not kept: the caller may free it at once. */
CORDON_API int cordon_launch_new(const struct cordon_profile_handle *profile, const struct cordon_launch_opts *opts,
				 struct cordon_launch **ret, struct cordon_error *reterr);
CORDON_API struct cordon_launch *cordon_launch_free(struct cordon_launch *l);

/* What the launch was built into; owned by it, valid while it lives. */
CORDON_API const struct cordon_policy *cordon_launch_policy(const struct cordon_launch *l);
CORDON_API const struct cordon_backend_info *cordon_launch_backend(const struct cordon_launch *l);
/* The merged resource limits; NULL when none is set. */
CORDON_API const struct cordon_limits *cordon_launch_limits(const struct cordon_launch *l);
/* How each limit will be enforced (plan->warning: what is weaker, or ""). */
CORDON_API const struct cordon_limits_plan *cordon_launch_limits_plan(const struct cordon_launch *l);
/* Write the launch's run options into *o (timeout_ms, max_output,
 * output_terminate, limits, pointing into the launch); the caller's own
 * fields (cwd, passthrough, stop, runner_main, ...) are left as they are.
 * A max_output of 0 means none was set (cordon_run's default). */
CORDON_API void cordon_launch_run_opts(const struct cordon_launch *l, struct cordon_run_opts *o);
/* cordon_confine_with(the launch's backend, argv, the launch's policy). Pure. */
CORDON_API int cordon_launch_confine(const struct cordon_launch *l, const char *const *argv,
				     struct cordon_confined **ret, struct cordon_error *reterr);

/* ---- Toolbox: a session's tools, ready to launch ---------------------------
 *
 * What the supervisor starts a session with: every controlled command's
 * executable resolved once (cordon_tools_resolve on path_env, never from
 * one of session_writable), what executing it needs (its ELF and #!
 * closure, computed once per session, memoised), and each caller ->
 * command edge's launch, built on first use and kept: the tool's own
 * sandbox (cordon_policy_new_tool): reads restricted to the baseline and
 * fs_read, writes to fs_write, the execute-only gate open for the tool's
 * closure, exec_paths and the shim only, the binary run from the fd the
 * caller opens (cordon_policy_exec_from_fd), the edge's network,
 * environment and limits, and a broker of its own when it may call other
 * tools. Native runner only. Not thread-safe: one thread (the
 * supervisor's loop) uses it. The profile must outlive it.
 */
struct cordon_toolbox;

/* -ENOENT (with reterr naming it) when a command's executable cannot be
 * found or a library it needs is missing: the session does not start. */
CORDON_API int cordon_toolbox_new(const struct cordon_profile_handle *profile, const char *path_env,
				  const char *const *session_writable, const char *shim_path,
				  struct cordon_toolbox **ret, struct cordon_error *reterr);
CORDON_API struct cordon_toolbox *cordon_toolbox_free(struct cordon_toolbox *b);
/* The command's executable, canonical; NULL for an unknown command. */
CORDON_API const char *cordon_toolbox_executable(const struct cordon_toolbox *b, const char *command);
/* The commands caller's sandbox has shims for (the session: every command
 * it reaches; a command: its can_use that it reaches). NULL-terminated. */
CORDON_API const char *const *cordon_toolbox_shims(const struct cordon_toolbox *b, const char *caller);
/* The edge's launch; owned by the toolbox. */
CORDON_API int cordon_toolbox_launch(struct cordon_toolbox *b, const char *caller, const char *command,
				     const struct cordon_launch **ret, struct cordon_error *reterr);
/* The session's policy under the toolbox: the broker with a shim for
 * every command the session reaches (cordon_policy_set_broker), no
 * controlled binary executable directly (cordon_policy_deny_exec), and
 * what cordon_toolbox_hide named hidden. */
CORDON_API int cordon_toolbox_session_policy(const struct cordon_toolbox *b, struct cordon_policy *p,
					     struct cordon_error *reterr);
/* Hide path (a file or a tree) from the session and from every tool's
 * sandbox launched after this: the supervisor's own state (its audit
 * log) is no sandbox's to read, whatever a profile grants. */
CORDON_API int cordon_toolbox_hide(struct cordon_toolbox *b, const char *path, struct cordon_error *reterr);
/* The caller's NAME=VALUE entries the edge's environment.allow_vars let
 * through (injection variables never), for cordon_run_opts.env. *ret is
 * NULL-terminated; free it with cordon_strv_free. */
CORDON_API int cordon_toolbox_call_env(const struct cordon_toolbox *b, const char *caller, const char *command,
				       const char *const *envp, char ***ret);

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
