/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Landlock for the runner: filesystem read/write/execute, TCP bind/connect,
 * abstract-unix-socket and signal scoping, adapted to the kernel's ABI.
 *
 * Paths are canonicalised (realpath) when the ruleset is built; Landlock rules
 * attach to inodes, so a rule covers whatever path reaches that inode.
 *
 * deny_read ("readable minus these"): Landlock can only allow, so a root that
 * contains a denied path is not granted as a whole. Instead, for every
 * directory on the way from the root down to the denied path, each entry
 * present at apply time gets the root's rights, except the entry that leads
 * on towards the denied path (walked further) and the denied path itself
 * (no rule at all). Symlinks in a walked directory get no rule; what they
 * point at is granted or not on its own. The walked directories themselves
 * get READ_DIR only, and only when no denied *directory* lies beneath them
 * (READ_DIR is inherited by every directory beneath a rule). Semantics:
 *   - opening, reading or executing a denied path fails with EACCES; a denied
 *     directory cannot be listed and nothing beneath it can be read;
 *   - a denied file's name still shows in a listing of its parent; a
 *     directory on the way to a denied directory cannot be listed at all
 *     (`ls ~` fails when ~/.ssh is denied), though paths through it resolve;
 *   - entries created in a walked directory after apply are neither
 *     readable nor writable (fail closed); nor can files be created or
 *     removed directly in a walked directory of a writable root;
 *   - the more specific path wins: a denied path beneath a readable or
 *     writable root splits that root; a root that lies beneath a denied path
 *     is granted as usual; a root equal to a denied path gets nothing;
 *   - hiding is by path: the same inode reached through a bind mount or a
 *     hard link outside the walked directories is not hidden;
 *   - a denied path that does not exist: its parent is walked (it must
 *     exist), so whatever is created there after apply, under that name or
 *     any other, is unreadable: a credential store made during the run is
 *     hidden like one that was there.
 * The number of rules is capped at LANDLOCK_MAX_RULES; beyond it, -E2BIG.
 *
 * deny_exec ("never executable, still readable") is the same walk for one
 * right: every root that grants EXECUTE above a deny_exec path is granted
 * its other rights as a whole (so the path, and whatever appears next to it
 * later, stays readable, and writable where the root is), and EXECUTE entry
 * by entry on the way down, never on the path itself. A file created or
 * renamed into a walked directory after apply (the host upgrading the
 * package) has no rule of its own and cannot be executed; a sibling that
 * had its rule keeps it, whatever name the host gives it (rules follow
 * inodes). Hard links and copies elsewhere are other paths: /usr/bin/git
 * denied leaves /usr/lib/git-core/git executable. Landlock mediates
 * execve, not mmap(PROT_EXEC): the dynamic loader run as a program
 * (ld.so PATH) maps a readable file and runs it, whatever EXECUTE says.
 * Walking costs one rule per entry of each directory on the way (/usr/bin:
 * ~1300).
 *
 * The execute-only gate (exec_gate): readable and writable roots lose
 * EXECUTE; it is granted on exactly the exec paths (files or directories,
 * readable too: the kernel reads what it executes) and the exec_fd file.
 * A script run as `sh script` is read, not executed: the gate lets it run.
 *
 * Writable roots get every filesystem right the ABI has, except creating
 * character or block devices (a device node in a writable root would be a way
 * round every other rule) and IOCTL_DEV, which only roots under /dev get
 * (terminals need their ioctls; nothing else should issue device ioctls).
 */

/* Walking a crowded directory on a split path costs one open and one rule
 * per entry. Measured end to end (cordon run --isolation light with a
 * deny-read in a directory of N entries; medians of 3 on 2 shared, noisy
 * cores): N=10 ~20 ms, 10,000 ~60 ms, 50,000 0.2-0.6 s, 60,000 ~0.5 s;
 * the ruleset holds ~80 bytes of kernel memory a rule (~4 MB at 50,000)
 * and landlock_restrict_self takes up to ~60 ms there. 65,536 keeps a
 * launch at the bound under a second and ~5 MB: slow, but a crowded HOME
 * or /var/tmp still runs (the old 4096 refused them). Beyond it the launch
 * is refused with what to do (landlock.c). */
#define LANDLOCK_MAX_RULES 65536

/* A readable root opened already: a HOME allowlist grant, which init's
 * mount step opened on the host's tree (no symlink on the way) before a
 * tmpfs covered the home it lies in (under) and bound it back there. Its
 * rule goes on this fd, the same inode, instead of the path being resolved
 * again; only while no other denied path lies at or above the root (a hide
 * mounted after the home step would make the path name something else).
 * The ruleset's builder takes the fd (closed, fd set to -1). */
struct landlock_held {
	const char *path;
	const char *under;
	int fd;
	bool dir;
};

/* Which rules a landlock_prepare call adds (full isolation splits init's
 * ruleset in two halves built at once: landlock_split.c). Rules attach to
 * inodes, and the sandbox's tree is the host's except where init mounts
 * something (the `inside` paths): there the inode differs. */
enum landlock_part {
	LANDLOCK_WHOLE,  /* every rule (the default) */
	LANDLOCK_HOST,   /* every rule but those at or beneath an inside path, from the host's tree */
	LANDLOCK_INSIDE, /* only those, from the sandbox's tree, added to ruleset_fd */
};

struct denied;

struct landlock_rules {
	const char *const *readable;   /* NULL-terminated: read + execute (files and dirs); normally {"/", NULL} */
	const char *const *writable;   /* NULL-terminated: full read/write/create/remove/truncate under these */
	const char *const *deny_read;  /* NULL-terminated or NULL: paths to hide even though an ancestor is readable */
	const char *const *deny_absent; /* the same, for paths that did not exist when the policy was built
					 * (canonical): their parent is walked without looking at them */
	const char *const *deny_exec;  /* NULL-terminated or NULL: never executable, though readable */
	bool exec_gate;                /* EXECUTE only on exec (and exec_fd), not on readable or writable roots */
	const char *const *exec;       /* NULL-terminated or NULL: with exec_gate, read + execute under these */
	const char *shim_dir;          /* with exec_gate: read + execute under it too (the broker's shims,
					* bound there once the mounts are made), or NULL */
	int exec_fd;                   /* > 2: the open file the command runs from: read + execute on its inode,
					* whatever its path is now (0, -1: none) */
	struct landlock_held *held;    /* readable roots opened already (see above), or NULL */
	size_t n_held;
	bool list_walked;              /* walked directories stay listable even above a denied directory
					* (full isolation: the mounts hide its contents) */
	bool deny_tcp;                 /* deny TCP bind and connect to every port (needs ABI >= 4) */
	bool scope;                    /* scope abstract unix sockets and signals to the sandbox (ABI >= 6) */
	unsigned required;             /* REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_NET | REQUIRE_LANDLOCK_SCOPE from policy.h */
	/* Tests only; leave 0. > 0: behave as if the kernel's ABI were at
	 * most this; < 0: as if Landlock were unavailable. It can only take
	 * features away, and a required feature it takes away is refused. */
	int test_abi_cap;
	/* The split (LANDLOCK_WHOLE, 0, unless landlock_split.c sets them). */
	enum landlock_part part;
	const char *const *inside;     /* with a part: NULL-terminated, the paths init mounts on, canonical
					* (and as written, where that differs) */
	int ruleset_fd;                /* LANDLOCK_INSIDE: the host part's ruleset, taken over */
	unsigned rules_before;         /* LANDLOCK_INSIDE: how many rules the host part added */
	const struct denied *denied;   /* the denied paths resolved already (the split: the host part's,
					* for both parts), or NULL: resolved here */
	size_t n_denied;
};

struct landlock_report {
	int abi;              /* 0 when Landlock is unavailable */
	bool fs, net, scope;  /* what was actually enforced */
	char missing[256];    /* words for what the kernel lacks ("landlock-net (ABI 4)"), "" if nothing */
	unsigned rules;       /* rules in the ruleset (both parts, when split) */
};

/* The kernel's Landlock ABI version; memoised; 0 when unsupported/disabled. */
int landlock_get_abi(void);

/* Build and enforce the ruleset on the calling thread (caller has already set no_new_privs).
 * Returns 0, or -errno with a one-line reason in err. When a feature the kernel lacks is in
 * `required`, return -EOPNOTSUPP and apply NOTHING. When it is not required, drop it, record it
 * in rep->missing, and go on (the caller lowers the grade to partial). A path in readable/writable
 * that does not exist is skipped (not an error); any other failure to open or add a rule is an error.
 * Nothing is enforced unless 0 is returned; rep is written only then.
 * A required feature the kernel lacks is refused whether or not these rules
 * use it (REQUIRE_LANDLOCK_NET with deny_tcp false still needs ABI 4).
 * Besides the features asked for, rep->missing names the filesystem fences
 * the ABI lacks: "landlock-truncate (ABI 3)", "landlock-ioctl-dev (ABI 5)". */
int landlock_apply(const struct landlock_rules *r, struct landlock_report *rep, char *err, size_t errlen);

/* landlock_apply in two halves: build the ruleset (0 and its fd in *ret_fd,
 * -1 when the kernel has no Landlock; rep as above), then enforce it on the
 * calling thread. One build serves two processes: init enforces the
 * ruleset, and the command nests a domain of its own in init's, with
 * landlock_prepare_layer below (or the same ruleset again where that layer
 * would be stricter; see create_gate.h and init.c). */
int landlock_prepare(const struct landlock_rules *r, struct landlock_report *rep, int *ret_fd, char *err,
		     size_t errlen);
int landlock_restrict(int ruleset_fd, char *err, size_t errlen);

/* A ruleset for a domain nested in the one the caller already enforces,
 * with no rule of its own: the parent's rules stay in force unchanged, and
 * the nesting alone gives the new domain its own place in Landlock's
 * hierarchy (no trace of a process outside it; from ABI 6, with both
 * scopes, no signal to it nor its abstract unix sockets). It handles
 * MAKE_BLOCK, which no ruleset here ever grants (FS_WRITE_NEVER), so that
 * it is a valid ruleset on every ABI and denies nothing more. Enforcing it
 * costs one copy of the parent's rules, where enforcing the parent's own
 * ruleset again merges every rule a second time (cordon serve's commands,
 * serve.c). 0 and the fd (close-on-exec) in *ret_fd, or -errno and err. */
int landlock_prepare_layer(int *ret_fd, char *err, size_t errlen);
