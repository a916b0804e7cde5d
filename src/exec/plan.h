/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "landlock.h"
#include "parse.h"
#include "syscall_filter.h"

/*
 * Compile, then apply: the flags become an ordered list of steps. Compiling
 * is pure (no syscalls), so the order and the content of a plan are unit
 * tested without privileges; the runner then walks the list in the processes
 * it belongs to (runner, pid-1 init, command), each step applied through its
 * entry in the step table (steps.h).
 */

enum step_kind {
	STEP_NAMESPACES,   /* one clone: new user, mount, pid (and net) namespaces */
	STEP_MAP_IDS,      /* uid/gid map: the caller's ids map to themselves */
	STEP_RO_ROOT,      /* / read-only, recursively; writable roots outside the private dirs bound back */
	STEP_DEV,          /* a minimal /dev of our own: a few nodes, a fresh devpts, /dev/shm */
	STEP_TMPFS,        /* path: a private tmpfs */
	STEP_BIND_BACK,    /* path: a writable root below a private tmpfs, bound back from the host */
	STEP_PIN,          /* path: bound onto itself, so it cannot be renamed or removed */
	STEP_PROTECT,      /* path: bound read-only; missing: its first missing component cannot be made (create_gate.h) */
	STEP_HOME,         /* path: a HOME hidden by an empty tmpfs, the granted entries bound back (mount_home.c) */
	STEP_HIDE,         /* path: an empty, inaccessible read-only directory, or /dev/null */
	STEP_PROC,         /* a fresh /proc for the new pid namespace */
	STEP_TRUST,        /* --credentials-fd: the certificate directories with the session CA (trust.h) */
	STEP_LOOPBACK,     /* bring lo up in the new network namespace */
	STEP_PROXY,        /* --net proxy: listen on lo, hand the sockets to the proxy (netproxy.h) */
	STEP_BROKER,       /* --broker-fd: /run/cordon's socket and shims, the listener to the supervisor (broker.h) */
	STEP_CHDIR,        /* re-enter the working directory through the new mounts */
	STEP_INIT,         /* fork the command below a pid-1 init */
	STEP_SETSID,
	STEP_PDEATHSIG,
	STEP_RLIMIT_CORE,
	STEP_CLOSE_FDS,
	STEP_ENV,
	STEP_DROP_CAPS,
	STEP_NO_NEW_PRIVS,
	STEP_LANDLOCK,
	STEP_SECCOMP,
	STEP_EXEC,
	_STEP_MAX,
};

struct step {
	enum step_kind kind;
	const char *path;      /* mount steps: path[0..len) (an ancestor is a prefix of a --protect path) */
	size_t len;
};

#define PLAN_MAX_STEPS (6 * EXEC_MAX_LIST + 64)

struct plan {
	enum cordon_isolation isolation;
	enum cordon_net net;
	bool private_tmp;               /* private /tmp, /dev/shm, /run (always, in full isolation) */
	bool report;
	bool no_terminal;               /* --no-terminal: no terminal is writable, stdio's own neither */
	bool pty;                       /* --pty: the command's terminal is a pty of its own (terminal.h) */
	unsigned long clone_flags;      /* CLONE_NEW* for STEP_NAMESPACES; 0 under light */
	unsigned required;              /* REQUIRE_* the caller insists on */
	bool unix_gate;                 /* init decides every connect/send to an address (unix_gate.c) */
	const char *const *allow_unix;  /* --allow-unix-socket paths the gate admits, NULL-terminated */
	/* --net proxy: the proxy's rules, NULL-terminated */
	const char *const *allow_domains, *const *deny_domains, *const *allow_addresses;
	/* --broker-fd: the supervisor's socket, the shim program and its names */
	int broker_fd;
	int credentials_fd;             /* --credentials-fd, or -1 */
	int end_fd;                     /* --end-fd, or 0 */
	const char *shim_path;
	const char *const *shims;

	struct step *steps;
	size_t n_steps, max_steps;

	/* What Landlock and seccomp are given; the arrays point into argv. */
	struct landlock_rules landlock;
	struct seccomp_opts seccomp;
	const char *const *write;       /* the --write roots, NULL-terminated */
	const char *const *read_host;   /* --read-host, NULL-terminated */
	const char *const *home_grant;  /* --home-grant, --home-link, --home-filtered: NULL-terminated */
	const char *const *home_link;
	const char *const *home_filtered;
	const char *const *protect_names; /* --protect-name, NULL-terminated (the write gate) */
	const char *const *unprotect;   /* --unprotect, NULL-terminated */
	bool protect_git;               /* --protect-git */
	const char *const *keep_env;
	const char *const *setenv;
	char *const *command;
	int exec_fd;                    /* --exec-fd: execveat this fd; -1: execve the command by name */
	int serve_fd;                   /* --serve-fd: the command is cordon serve's server (serve.h); 0: none */

	void *storage;
};

/* Compile parsed flags into a plan. Pure. 0, or -EINVAL with a reason in err
 * when flags contradict each other (e.g. --protect under light isolation).
 * The plan points into f (and so into argv); both must outlive it. */
int plan_compile(const struct exec_flags *f, struct plan *ret, char *err, size_t errlen);
void plan_done(struct plan *p);


/* Which process applies a step (steps.h has the finer stages). */
enum step_phase {
	PHASE_RUNNER,      /* the `cordon exec` process, before the clone */
	PHASE_INIT,        /* pid 1 of the new namespaces */
	PHASE_COMMAND,     /* the process that execs the command */
};
enum step_phase step_phase(enum step_kind k);
const char *step_name(enum step_kind k);

/* Print the plan in words; uid/gid are the ids the map would use. */
void plan_describe(const struct plan *p, unsigned uid, unsigned gid, FILE *out);

/* The writable device nodes every plan allows (NULL-terminated): under full
 * isolation they are the sandbox's own minimal /dev. Light isolation has the
 * host's /dev, so it gets plan_writable_devices_light plus the terminal nodes
 * its stdio is open on (added when Landlock is applied), never all of
 * /dev/pts: another terminal of the user's must stay out of reach. */
extern const char *const plan_writable_devices[];
extern const char *const plan_writable_devices_light[];
/* What a plan reads without --read: everything; plan_describe tells the
 * two apart by this pointer. */
extern const char *const plan_readable_all[];

/* The directories that get a private tmpfs under full isolation; a writable
 * root below one of them is bound back into it. */
extern const char *const plan_private_dirs[];
/* path[0..len) lies strictly below one of plan_private_dirs, or is one. */
bool plan_in_private_dir(const char *path, size_t len, bool strictly_below);
/* Under the execute-only gate or deny-exec, what the sandbox can write is
 * mounted noexec, so no file there is mapped executable either (the loader
 * run as a program, `ld.so FILE`, maps what Landlock's EXECUTE never sees):
 * true for a writable root or private dir unless an --exec path lies at or
 * below it (then the caller declared code there). */
bool plan_noexec(const struct plan *p, const char *root);
/* Each deny-exec path (a controlled binary, in the session) is bound onto
 * itself noexec as well, so the loader (`ld.so FILE`), dlopen and
 * mmap(PROT_EXEC), which Landlock's EXECUTE never sees, cannot map it. The
 * session's own writable roots stay executable: it runs what it builds. */
/* Under the execute-only gate, / itself is noexec and only the library
 * directories (policy_library_dirs) and the --exec paths are bound back
 * executable. */
