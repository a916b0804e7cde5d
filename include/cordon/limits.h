/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: resource limits, and the size and duration grammar.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/confine.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The range a limit takes in a run, the one table: cordon_launch_new checks
 * its overrides and a profile's values against it, and a front end's
 * messages (the CLI's --cpu, --max-processes, ...) read their bounds from
 * it. Units: the timeout in milliseconds, cpu in seconds, memory, file size
 * and output in bytes, processes and open files as counts. */
struct cordon_limit_range {
	const char *key;          /* a profile's limits key: "max_processes" */
	uint64_t min;
	uint64_t max;
	const char *min_why;      /* why the minimum is what it is ("the runner itself needs 4"),
				   * "" when it is just "more than nothing" */
};
/* NULL for CORDON_LIMIT_NONE and anything out of range. */
CORDON_API const struct cordon_limit_range *cordon_limit_range(enum cordon_limit l);
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

#ifdef __cplusplus
}
#endif
