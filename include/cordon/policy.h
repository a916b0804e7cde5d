/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: the policy (what a run may do), the tool sandbox's mechanisms,
 * canonical paths.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* mode: CORDON_MODE_READ_ONLY, _WORKSPACE_WRITE or _DANGER_FULL_ACCESS
 * (cordon_mode_from_string reads the names "read-only", ...).
 * workspace_root: required unless mode is danger-full-access; NULL means the
 * current directory. */
CORDON_API int cordon_policy_new(enum cordon_mode mode, const char *workspace_root,
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
/* NAME never inside the sandbox, whatever kept or set it before: its
 * snapshotted value is dropped (zeroed). For a variable of the caller's own,
 * such as a key it read. */
CORDON_API int cordon_policy_withhold_env(struct cordon_policy *p, const char *name,
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

/* The HOME policy (default CORDON_HOME_CATALOGUE). ALLOWLIST: below HOME,
 * the passwd home, other users' homes (/home/<name>, /root, /mnt/<d>/Users)
 * and XDG_*_HOME outside HOME, nothing is visible but what is granted: the
 * workspace and writable roots there, restricted-read and execute grants,
 * cordon_policy_grant_home's, and the built-in toolchains, caches and
 * non-secret configuration (some as a filtered copy: see policy_home.c).
 * The native runner covers each such directory with an empty tmpfs and
 * binds the grants back (full isolation), and withholds it from Landlock
 * (both isolations); bwrap and seatbelt refuse it. A directory at or below
 * a writable root (the workspace is HOME) cannot be hidden from itself:
 * the catalogue alone applies there. Resolved now (reads the filesystem). */
CORDON_API int cordon_policy_set_home(struct cordon_policy *p, enum cordon_home h, struct cordon_error *reterr);
CORDON_API enum cordon_home cordon_policy_home_policy(const struct cordon_policy *p);
/* Under ALLOWLIST, PATH (below a hidden directory; canonicalised now) is
 * visible, read-only unless a writable root says otherwise. -EPERM below
 * an entry of cordon_policy_deny_read (deny wins); a missing path is kept
 * and skipped. Recorded under CATALOGUE too (it applies if the policy
 * turns to ALLOWLIST). */
CORDON_API int cordon_policy_grant_home(struct cordon_policy *p, const char *path, struct cordon_error *reterr);

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
	CORDON_POLICY_HOME_HIDDEN,   /* home: "allowlist": the directories covered (HOME, the
				      * passwd home, other users' homes, XDG_*_HOME outside
				      * HOME); empty under the catalogue */
	CORDON_POLICY_HOME_GRANTED,  /* below those, what is shown again: grants, the
				      * workspace and roots, and links made again (full
				      * isolation) */
	CORDON_POLICY_HOME_FILTERED, /* below those, the configuration shown as a filtered
				      * copy, credential-bearing keys removed (full isolation) */
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
/* A host path below /tmp or /dev/shm, which the sandbox's private tmpfs
 * hides (a sibling of a workspace below /tmp, a helper a build left
 * there), brought back read-only, at its own path. Canonicalised here; a
 * path elsewhere is -EINVAL (the mode decides what is readable there), one
 * below a read-deny entry -EPERM (deny wins). A missing path is skipped at
 * run time. cordon_policy_restrict_read of such a path does this too. */
CORDON_API int cordon_policy_read_host(struct cordon_policy *p, const char *path, struct cordon_error *reterr);
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

/* The lowest grade the caller accepts (default CORDON_GRADE_FULL). When the
 * best backend of the platform (native) cannot be used and a selected
 * fallback is graded below this, cordon_confine (and every launch) refuses
 * with CORDON_SANDBOX_UNAVAILABLE, naming why native was passed over.
 * CORDON_GRADE_PARTIAL accepts bwrap without cordon's runner: no Landlock,
 * no seccomp (cordon_backend_gaps names what is lost). A pinned backend
 * and light isolation are explicit choices and are not affected. */
CORDON_API int cordon_policy_require_grade(struct cordon_policy *p, enum cordon_grade g);

/* The tool sandbox's broker (the native runner, full isolation): the
 * sandbox gets /run/cordon, a read-only tmpfs of its own with the socket
 * /run/cordon/broker (its listener is handed to the caller over the
 * socket given as cordon_run_opts.broker_fd) and /run/cordon/bin, first on
 * PATH, holding one link to shim_path (absolute, canonicalised now) per
 * name in commands (bare command names). Replaces an earlier call's. */
CORDON_API int cordon_policy_set_broker(struct cordon_policy *p, const char *shim_path,
					const char *const *commands, struct cordon_error *reterr);

/* The sandbox consumes credentials (issue 23): its proxy (network proxy)
 * gets the session's credential table for it, which the caller writes to
 * a pipe whose read end it gives as cordon_run_opts.credentials_fd (or to
 * a socketpair, whose other end the proxy keeps to ask the caller for
 * values and approvals: cordon's supervisor does); the
 * runner reads the table's public part (the session CA its trust store
 * adds) and hands the fd to the proxy. Native runner only. */
CORDON_API int cordon_policy_set_credentials(struct cordon_policy *p);

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

#ifdef __cplusplus
}
#endif
