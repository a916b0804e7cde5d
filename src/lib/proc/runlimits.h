/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "cordon/cordon.h"

/*
 * Resource limits for one run. The parent (cordon_run) creates the cgroups
 * and opens their cgroup.procs; the forked child joins them and sets its
 * rlimits before it execs the runner, bwrap or the command, so every
 * backend inherits the same limits and nothing escapes between fork and
 * join.
 */

#define LIMITS_MAX_RLIMITS 5

/* What the forked child applies; async-signal-safe to use after fork. */
struct limits_spawn {
	int procs_fd[4];          /* cgroup.procs to join; -1: none */
	struct {
		int resource;
		rlim_t value;           /* the soft limit */
		rlim_t hard;            /* the hard limit (>= value) */
	} rl[LIMITS_MAX_RLIMITS];
	int n_rl;
	bool ignore_sigxfsz;      /* over the file-size limit a write fails with EFBIG */
};

/* The cgroups of one run: a v2 directory, or v1 memory, pids and cpuacct ones. */
struct limits_cgroup {
	char *dir[4];             /* v2; v1 memory; v1 pids; v1 cpuacct; NULL when unused */
	int procs_fd[4];
};

/* Build the cgroups the plan asks for (sweeping stale cordon-* siblings
 * first) and the child's settings. -errno with a message in reterr. */
int limits_prepare(const struct cordon_limits *l, const struct cordon_limits_plan *plan,
		   struct limits_cgroup *ret_cg, struct limits_spawn *ret_spawn, struct cordon_error *reterr);

/* In the child after fork: join, set rlimits. 0 or -errno. */
int limits_child_apply(const struct limits_spawn *s);

/* After the child started: close the cgroup.procs fds. */
void limits_cgroup_started(struct limits_cgroup *cg);
/* cg holds a cgroup of the run's (a run's processes join it). */
bool limits_cgroup_used(const struct limits_cgroup *cg);

/* Did the kernel act on a limit? (oom kills, fork refusals, memory
 * allocation failures charged to the cgroup) */
struct limits_events {
	uint64_t oom_kills;
	uint64_t pids_max;
	uint64_t mem_failcnt;
};
void limits_cgroup_events(const struct limits_cgroup *cg, struct limits_events *ret);

/* CPU time (user + system) of everything in the run's CPU cgroup, in
 * microseconds. -ENOENT when the run has no CPU cgroup. */
int limits_cgroup_cpu_usec(const struct limits_cgroup *cg, uint64_t *ret);

/* Kill everything left in the cgroups; true when they are empty. */
bool limits_cgroup_kill(const struct limits_cgroup *cg);

/* Kill what is left, remove the directories, free. */
void limits_cgroup_destroy(struct limits_cgroup *cg);
