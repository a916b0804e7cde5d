/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resource limits: choose the strongest mechanism, build the cgroups of one
 * run, and tell afterwards which limit the kernel enforced.
 *
 * cgroups are only ever made strictly below the cgroup cordon itself runs in
 * (read from /proc/self/cgroup), named cordon-PID-N. The run's parent removes
 * them when the run ends; when cordon was killed instead, its child died with
 * it (PR_SET_PDEATHSIG, and the runner's init takes the pid namespace down)
 * and the next run sweeps cordon-PID-* siblings whose PID is gone.
 *
 * Mechanisms, strongest first:
 *   memory, processes: cgroup v2 (memory.max, pids.max) when our v2 cgroup
 *     delegates both controllers to its children and is writable; else cgroup
 *     v1 (memory.limit_in_bytes + memsw, pids.max) when we are root and the
 *     controllers are mounted; else memory falls back to RLIMIT_AS (per
 *     process, virtual: weaker) and processes are refused (RLIMIT_NPROC
 *     counts every process of the user outside a user namespace, and never
 *     binds root).
 *   cpu: the whole tree's CPU time, read from a cgroup of its own (cgroup v2
 *     cpu.stat usage_usec: every v2 cgroup has it, no controller needed, so
 *     a writable v2 cgroup is enough; else cgroup v1 cpuacct.usage, root
 *     only) by cordon_run's poll loop, which kills the tree past the limit;
 *     RLIMIT_CPU a second higher stays as a per-process backstop. Without
 *     such a cgroup RLIMIT_CPU alone (SIGKILL at the limit) bounds each
 *     process only: weaker, said so, refused under --limits-fallback fail.
 *   file size, open files: rlimits (RLIMIT_FSIZE with SIGXFSZ ignored so the
 *     command sees EFBIG, RLIMIT_NOFILE); per process: a tree of processes
 *     gets the limit each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "pathfd.h"
#include "runlimits.h"

#define CG_V2 0
#define CG_V1_MEMORY 1
#define CG_V1_PIDS 2
#define CG_V1_CPUACCT 3
#define CG_N 4
#define CG_KILL_ROUNDS 2000

static const char *const limit_names[] = {
	[CORDON_LIMIT_NONE] = "none",
	[CORDON_LIMIT_TIMEOUT] = "timeout",
	[CORDON_LIMIT_CPU] = "cpu",
	[CORDON_LIMIT_MEMORY] = "memory",
	[CORDON_LIMIT_PROCESSES] = "processes",
	[CORDON_LIMIT_FILE_SIZE] = "file_size",
	[CORDON_LIMIT_OPEN_FILES] = "open_files",
	[CORDON_LIMIT_OUTPUT] = "output",
};

static const char *const mechanism_names[] = {
	[CORDON_MECHANISM_NONE] = "none",
	[CORDON_MECHANISM_CGROUP2] = "cgroup2",
	[CORDON_MECHANISM_CGROUP1] = "cgroup1",
	[CORDON_MECHANISM_RLIMIT] = "rlimit",
	[CORDON_MECHANISM_SUPERVISOR] = "supervisor",
};

CORDON_API const char *cordon_limit_to_string(enum cordon_limit l)
{
	if ((size_t)l >= ELEMENTSOF(limit_names) || !limit_names[l])
		return "invalid";
	return limit_names[l];
}

CORDON_API const char *cordon_limit_mechanism_to_string(enum cordon_limit_mechanism m)
{
	if ((size_t)m >= ELEMENTSOF(mechanism_names) || !mechanism_names[m])
		return "invalid";
	return mechanism_names[m];
}

/* Where our cgroups are; memoised (the one cache this module keeps). */
static struct {
	struct cordon_limits_probe probe;
	char parent[CG_N][4096];  /* v2; v1 memory, pids, cpuacct: the directory we create children in */
	bool v2_cpu;              /* a writable v2 cgroup with cpu.stat */
	bool v1_cpuacct;          /* a writable v1 cpuacct cgroup (root) */
	char cpu_reason[256];     /* why neither, for the warning */
} cg_state;

static int write_str(const char *dir, const char *file, const char *value)
{
	char path[4352];
	_cleanup_close_ int fd = -1;
	size_t n = strlen(value);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t)n)
		return -errno;
	return 0;
}

/* Does the space-separated list contain word? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ','))
			return true;
	return false;
}

static void cg_detect_once(void)
{
	char own[CG_N][2048] = { "", "", "", "" }, mnt[CG_N][2048] = { "", "", "", "" }, buf[8192];
	bool have_own[CG_N] = { false, false, false, false };
	struct cordon_limits_probe *pr = &cg_state.probe;
	FILE *f;

	snprintf(pr->cgroup2_reason, sizeof(pr->cgroup2_reason), "no cgroup2 mount");
	snprintf(pr->cgroup1_reason, sizeof(pr->cgroup1_reason), "no cgroup v1 memory or pids mount");
	pr->rlimit_nproc = geteuid() != 0;
	snprintf(cg_state.cpu_reason, sizeof(cg_state.cpu_reason), "no cgroup2 or cpuacct mount");

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		int k = -1;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (strcmp(buf, "0") == 0 && c1[1] == '\0')
			k = CG_V2;
		else if (has_word(c1 + 1, "memory"))
			k = CG_V1_MEMORY;
		else if (has_word(c1 + 1, "pids"))
			k = CG_V1_PIDS;
		else if (has_word(c1 + 1, "cpuacct"))
			k = CG_V1_CPUACCT;
		if (k >= 0) {
			snprintf(own[k], sizeof(own[k]), "%s", strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
			have_own[k] = true;
		}
	}
	fclose(f);

	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return;
	for (struct mntent *m; (m = getmntent(f));) {
		int k = -1;

		if (strcmp(m->mnt_type, "cgroup2") == 0)
			k = CG_V2;
		else if (strcmp(m->mnt_type, "cgroup") == 0 && hasmntopt(m, "memory"))
			k = CG_V1_MEMORY;
		else if (strcmp(m->mnt_type, "cgroup") == 0 && hasmntopt(m, "pids"))
			k = CG_V1_PIDS;
		else if (strcmp(m->mnt_type, "cgroup") == 0 && hasmntopt(m, "cpuacct"))
			k = CG_V1_CPUACCT;
		if (k >= 0 && !mnt[k][0])
			snprintf(mnt[k], sizeof(mnt[k]), "%s", m->mnt_dir);
	}
	endmntent(f);

	/* v2: both controllers handed down to our children, and we may write. */
	if (mnt[CG_V2][0] && have_own[CG_V2]) {
		char path[4352];

		snprintf(cg_state.parent[CG_V2], sizeof(cg_state.parent[CG_V2]), "%s%s", mnt[CG_V2], own[CG_V2]);
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_state.parent[CG_V2]);
		if (read_small(path, buf, sizeof(buf)) < 0)
			snprintf(pr->cgroup2_reason, sizeof(pr->cgroup2_reason), "cannot read %.200s", path);
		else if (!has_word(buf, "memory") || !has_word(buf, "pids"))
			snprintf(pr->cgroup2_reason, sizeof(pr->cgroup2_reason),
				 "our cgroup %.160s does not delegate memory and pids to its children", own[CG_V2][0] ? own[CG_V2] : "/");
		else if (access(cg_state.parent[CG_V2], W_OK) < 0)
			snprintf(pr->cgroup2_reason, sizeof(pr->cgroup2_reason), "our cgroup %.200s is not writable",
				 own[CG_V2][0] ? own[CG_V2] : "/");
		else {
			pr->cgroup2 = true;
			pr->cgroup2_reason[0] = '\0';
		}
	}

	/* CPU time: any writable v2 cgroup counts it (cpu.stat is core). */
	if (mnt[CG_V2][0] && have_own[CG_V2]) {
		char path[4352];

		snprintf(path, sizeof(path), "%s/cpu.stat", cg_state.parent[CG_V2]);
		if (access(cg_state.parent[CG_V2], W_OK) < 0)
			snprintf(cg_state.cpu_reason, sizeof(cg_state.cpu_reason), "our cgroup v2 %.160s is not writable",
				 own[CG_V2][0] ? own[CG_V2] : "/");
		else if (access(path, R_OK) < 0)
			snprintf(cg_state.cpu_reason, sizeof(cg_state.cpu_reason), "no cpu.stat in our cgroup v2");
		else
			cg_state.v2_cpu = true;
	}

	/* v1: root only, below our own cgroup in each hierarchy. */
	for (int k = CG_V1_MEMORY; k <= CG_V1_PIDS; k++) {
		if (!mnt[k][0] || !have_own[k])
			continue;
		snprintf(cg_state.parent[k], sizeof(cg_state.parent[k]), "%s%s", mnt[k], own[k]);
		if (geteuid() != 0)
			snprintf(pr->cgroup1_reason, sizeof(pr->cgroup1_reason), "cgroup v1 is used only when cordon runs as root");
		else if (access(cg_state.parent[k], W_OK) < 0)
			snprintf(pr->cgroup1_reason, sizeof(pr->cgroup1_reason), "%.200s is not writable", cg_state.parent[k]);
		else if (k == CG_V1_MEMORY)
			pr->cgroup1_memory = true;
		else
			pr->cgroup1_pids = true;
	}
	if (mnt[CG_V1_CPUACCT][0] && have_own[CG_V1_CPUACCT]) {
		char *dir = cg_state.parent[CG_V1_CPUACCT];

		snprintf(dir, sizeof(cg_state.parent[0]), "%s%s", mnt[CG_V1_CPUACCT], own[CG_V1_CPUACCT]);
		if (geteuid() == 0 && access(dir, W_OK) == 0)
			cg_state.v1_cpuacct = true;
		else if (!cg_state.v2_cpu) {
			size_t n = strlen(cg_state.cpu_reason);

			snprintf(cg_state.cpu_reason + n, sizeof(cg_state.cpu_reason) - n, "; cgroup v1 cpuacct: %s",
				 geteuid() != 0 ? "used only when cordon runs as root" : "not writable");
		}
	}
	if (pr->cgroup1_memory && pr->cgroup1_pids)
		pr->cgroup1_reason[0] = '\0';
	else if (pr->cgroup1_memory || pr->cgroup1_pids)
		snprintf(pr->cgroup1_reason, sizeof(pr->cgroup1_reason), "only the %s controller is usable",
			 pr->cgroup1_memory ? "memory" : "pids");
}

/* Once per process, whichever thread asks first; the others wait for it
 * and then only read cg_state. */
static pthread_once_t cg_detect_done = PTHREAD_ONCE_INIT;

static void cg_detect(void)
{
	(void)pthread_once(&cg_detect_done, cg_detect_once);
}

CORDON_API int cordon_limits_probe(struct cordon_limits_probe *ret)
{
	if (!ret)
		return -EINVAL;
	cg_detect();
	*ret = cg_state.probe;
	return 0;
}

CORDON_API int cordon_limits_check(const struct cordon_limits *l, const struct cordon_confined *confined,
				   struct cordon_limits_plan *ret, struct cordon_error *reterr)
{
	struct cordon_limits_plan plan = {};
	const struct cordon_limits_probe *pr = &cg_state.probe;

	(void)confined; /* every backend gets the same limits, applied before it starts */
	if (!ret)
		return -EINVAL;
	plan.mechanism[CORDON_LIMIT_TIMEOUT] = CORDON_MECHANISM_SUPERVISOR;
	plan.mechanism[CORDON_LIMIT_OUTPUT] = CORDON_MECHANISM_SUPERVISOR;
	if (!l) {
		*ret = plan;
		return 0;
	}
	cg_detect();

	if (l->memory) {
		if (pr->cgroup2)
			plan.mechanism[CORDON_LIMIT_MEMORY] = CORDON_MECHANISM_CGROUP2;
		else if (pr->cgroup1_memory)
			plan.mechanism[CORDON_LIMIT_MEMORY] = CORDON_MECHANISM_CGROUP1;
		else {
			if (l->fallback_fail)
				return error_set(reterr, -EOPNOTSUPP,
						 "--memory: no writable memory cgroup here (cgroup2: %s; cgroup v1: %s); "
						 "refusing with --limits-fallback fail (RLIMIT_AS would bound each process's "
						 "virtual memory only)",
						 pr->cgroup2_reason, pr->cgroup1_reason);
			plan.mechanism[CORDON_LIMIT_MEMORY] = CORDON_MECHANISM_RLIMIT;
			plan.weaker[CORDON_LIMIT_MEMORY] = true;
			snprintf(plan.warning, sizeof(plan.warning),
				 "--memory is enforced by RLIMIT_AS (virtual memory, per process), not a cgroup: %s",
				 pr->cgroup1_reason);
		}
	}
	if (l->processes) {
		if (pr->cgroup2)
			plan.mechanism[CORDON_LIMIT_PROCESSES] = CORDON_MECHANISM_CGROUP2;
		else if (pr->cgroup1_pids)
			plan.mechanism[CORDON_LIMIT_PROCESSES] = CORDON_MECHANISM_CGROUP1;
		else
			/* RLIMIT_NPROC counts every process of the caller's uid
			 * (here, before any user namespace) and never binds root:
			 * no weaker mechanism that means the same thing. */
			return error_set(reterr, -EOPNOTSUPP,
					 "--max-processes: no writable pids cgroup here (cgroup2: %s; cgroup v1: %s), and "
					 "RLIMIT_NPROC cannot bound one run's processes; refusing",
					 pr->cgroup2_reason, pr->cgroup1_reason);
	}
	if (l->cpu_seconds) {
		if (cg_state.v2_cpu)
			plan.mechanism[CORDON_LIMIT_CPU] = CORDON_MECHANISM_CGROUP2;
		else if (cg_state.v1_cpuacct)
			plan.mechanism[CORDON_LIMIT_CPU] = CORDON_MECHANISM_CGROUP1;
		else {
			size_t n = strlen(plan.warning);

			if (l->fallback_fail)
				return error_set(reterr, -EOPNOTSUPP,
						 "--cpu: no cgroup here can count the run's CPU time (%s); refusing with "
						 "--limits-fallback fail (RLIMIT_CPU would bound each process, not the run)",
						 cg_state.cpu_reason);
			plan.mechanism[CORDON_LIMIT_CPU] = CORDON_MECHANISM_RLIMIT;
			plan.weaker[CORDON_LIMIT_CPU] = true;
			snprintf(plan.warning + n, sizeof(plan.warning) - n,
				 "%s--cpu is enforced by RLIMIT_CPU (each process gets the limit, not the run): %s",
				 n ? "; " : "", cg_state.cpu_reason);
		}
	}
	if (l->file_size)
		plan.mechanism[CORDON_LIMIT_FILE_SIZE] = CORDON_MECHANISM_RLIMIT;
	if (l->open_files)
		plan.mechanism[CORDON_LIMIT_OPEN_FILES] = CORDON_MECHANISM_RLIMIT;
	*ret = plan;
	return 0;
}

static bool procs_empty_and_kill(const char *dir, bool *ret_empty)
{
	char path[4352], buf[65536];
	int n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0) {
		*ret_empty = n == -ENOENT;
		return false;
	}
	*ret_empty = n == 0;
	for (char *s = buf, *end; *s; s = end) {
		long pid = strtol(s, &end, 10);

		if (end == s)
			break;
		if (pid > 1 && pid != getpid())
			(void)kill((pid_t)pid, SIGKILL);
		while (*end == '\n')
			end++;
	}
	return true;
}

/* Kill every process in dir until it is empty (bounded). */
static bool cg_dir_kill(const char *dir, bool v2)
{
	bool empty = false;

	if (v2)
		(void)write_str(dir, "cgroup.kill", "1");
	for (int round = 0; round < CG_KILL_ROUNDS; round++) {
		procs_empty_and_kill(dir, &empty);
		if (empty)
			return true;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return false;
}

static void cg_dir_remove(const char *dir, bool v2)
{
	cg_dir_kill(dir, v2);
	/* an exiting task may keep the directory busy for a moment; removed
	 * through its parent's fd, never through a symlink */
	for (int i = 0; i < 200; i++) {
		int r = path_remove(dir, AT_REMOVEDIR);

		if (r == 0 || r == -ENOENT)
			return;
		if (r != -EBUSY)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

/* cordon-PID-N left by a cordon that is gone. */
static void sweep_stale(const char *parent, bool v2)
{
	DIR *d = opendir(parent);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4352], *end;
		long pid;

		if (strncmp(de->d_name, "cordon-", 7) != 0)
			continue;
		pid = strtol(de->d_name + 7, &end, 10);
		if (end == de->d_name + 7 || *end != '-' || pid <= 0)
			continue;
		if (pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		cg_dir_remove(path, v2);
	}
	closedir(d);
}

/* Every controller's leftovers, whichever this run uses: a killed cordon
 * may have made a pids cgroup that a memory-only run would never look at. */
static void sweep_all_stale(void)
{
	for (int k = CG_V2; k < CG_N; k++)
		if (cg_state.parent[k][0])
			sweep_stale(cg_state.parent[k], k == CG_V2);
}

static int cg_dir_make(int k, struct limits_cgroup *cg, struct cordon_error *reterr)
{
	/* Names must differ between threads too: a counter taken atomically. */
	static unsigned counter;
	static pthread_once_t swept = PTHREAD_ONCE_INIT;
	char *dir, path[4352];

	(void)pthread_once(&swept, sweep_all_stale);
	if (asprintf(&dir, "%s/cordon-%d-%u", cg_state.parent[k], (int)getpid(),
		     __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED)) < 0)
		return -ENOMEM;
	if (mkdir(dir, 0755) < 0) {
		int r = -errno;

		error_set(reterr, r, "cannot create the cgroup %s: %s", dir, strerror(-r));
		free(dir);
		return r;
	}
	cg->dir[k] = dir;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	cg->procs_fd[k] = open(path, O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd[k] < 0)
		return error_set(reterr, -errno, "cannot open %s: %s", path, strerror(errno));
	return 0;
}

static int cg_set(const char *dir, const char *file, uint64_t value, bool optional, struct cordon_error *reterr)
{
	char v[32];
	int r;

	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	r = write_str(dir, file, v);
	if (r == -ENOENT && optional)
		return 0;
	if (r < 0)
		return error_set(reterr, r, "cannot set %s/%s to %s: %s", dir, file, v, strerror(-r));
	return 0;
}

static void add_rlimit2(struct limits_spawn *s, int resource, uint64_t soft, uint64_t hard)
{
	s->rl[s->n_rl].resource = resource;
	s->rl[s->n_rl].value = (rlim_t)soft;
	s->rl[s->n_rl].hard = (rlim_t)hard;
	s->n_rl++;
}

static void add_rlimit(struct limits_spawn *s, int resource, uint64_t value)
{
	add_rlimit2(s, resource, value, value);
}

int limits_prepare(const struct cordon_limits *l, const struct cordon_limits_plan *plan,
		   struct limits_cgroup *ret_cg, struct limits_spawn *ret_spawn, struct cordon_error *reterr)
{
	struct limits_cgroup cg = { .procs_fd = { -1, -1, -1, -1 } };
	struct limits_spawn s = { .procs_fd = { -1, -1, -1, -1 } };
	enum cordon_limit_mechanism mm = plan->mechanism[CORDON_LIMIT_MEMORY];
	enum cordon_limit_mechanism pm = plan->mechanism[CORDON_LIMIT_PROCESSES];
	enum cordon_limit_mechanism cm = l->cpu_seconds ? plan->mechanism[CORDON_LIMIT_CPU] : CORDON_MECHANISM_NONE;
	int r = 0;

	cg_detect();
	if (mm == CORDON_MECHANISM_CGROUP2 || pm == CORDON_MECHANISM_CGROUP2 || cm == CORDON_MECHANISM_CGROUP2) {
		r = cg_dir_make(CG_V2, &cg, reterr);
		/* only what the plan gave cgroup v2: on a hybrid host memory can
		 * be v1's while the CPU limit is v2's (no memory.max there) */
		if (r >= 0 && l->memory && mm == CORDON_MECHANISM_CGROUP2) {
			r = cg_set(cg.dir[CG_V2], "memory.max", l->memory, false, reterr);
			if (r >= 0)
				r = cg_set(cg.dir[CG_V2], "memory.swap.max", 0, true, reterr);
		}
		if (r >= 0 && l->processes && pm == CORDON_MECHANISM_CGROUP2)
			r = cg_set(cg.dir[CG_V2], "pids.max", l->processes, false, reterr);
	}
	if (r >= 0 && mm == CORDON_MECHANISM_CGROUP1) {
		r = cg_dir_make(CG_V1_MEMORY, &cg, reterr);
		if (r >= 0)
			r = cg_set(cg.dir[CG_V1_MEMORY], "memory.limit_in_bytes", l->memory, false, reterr);
		/* memory + swap no higher than memory: nothing escapes to swap */
		if (r >= 0)
			r = cg_set(cg.dir[CG_V1_MEMORY], "memory.memsw.limit_in_bytes", l->memory, true, reterr);
	}
	if (r >= 0 && pm == CORDON_MECHANISM_CGROUP1) {
		r = cg_dir_make(CG_V1_PIDS, &cg, reterr);
		if (r >= 0)
			r = cg_set(cg.dir[CG_V1_PIDS], "pids.max", l->processes, false, reterr);
	}
	if (r >= 0 && cm == CORDON_MECHANISM_CGROUP1)
		r = cg_dir_make(CG_V1_CPUACCT, &cg, reterr);
	if (r < 0) {
		limits_cgroup_destroy(&cg);
		return r;
	}

	for (int k = 0; k < CG_N; k++)
		s.procs_fd[k] = cg.procs_fd[k];
	/* Per process alone: SIGXCPU at the limit, a signal only this limit
	 * sends, so the run can say which limit ended it whatever CPU time
	 * reached us; SIGKILL a second later for a process that catches it.
	 * With a cgroup counting the tree, a second more, soft == hard: the
	 * tree's total (never less than one process's) ends the run first,
	 * whole, and this is only a backstop. */
	if (l->cpu_seconds && cm == CORDON_MECHANISM_RLIMIT)
		add_rlimit2(&s, RLIMIT_CPU, l->cpu_seconds, l->cpu_seconds + 1);
	else if (l->cpu_seconds)
		add_rlimit(&s, RLIMIT_CPU, l->cpu_seconds + 1);
	if (mm == CORDON_MECHANISM_RLIMIT)
		add_rlimit(&s, RLIMIT_AS, l->memory);
	if (l->file_size) {
		add_rlimit(&s, RLIMIT_FSIZE, l->file_size);
		s.ignore_sigxfsz = true;
	}
	if (l->open_files)
		add_rlimit(&s, RLIMIT_NOFILE, l->open_files);
	*ret_cg = cg;
	*ret_spawn = s;
	return 0;
}

int limits_child_apply(const struct limits_spawn *s)
{
	char pid[24];
	int n = 0;

	/* our pid in decimal, without stdio (we are between fork and exec) */
	for (unsigned long v = (unsigned long)getpid(); v || n == 0; v /= 10)
		pid[n++] = (char)('0' + v % 10);
	for (int i = 0; i < n / 2; i++) {
		char t = pid[i];
		pid[i] = pid[n - 1 - i];
		pid[n - 1 - i] = t;
	}
	for (int k = 0; k < CG_N; k++)
		if (s->procs_fd[k] >= 0 && write(s->procs_fd[k], pid, (size_t)n) != n)
			return -errno;
	for (int i = 0; i < s->n_rl; i++) {
		struct rlimit rl = { s->rl[i].value, s->rl[i].hard };

		if (setrlimit(s->rl[i].resource, &rl) < 0)
			return -errno;
	}
	if (s->ignore_sigxfsz)
		signal(SIGXFSZ, SIG_IGN);
	/* PR_SET_PDEATHSIG: set by the spawn for every child, limits or not. */
	return 0;
}

bool limits_cgroup_used(const struct limits_cgroup *cg)
{
	for (int k = 0; k < CG_N; k++)
		if (cg->dir[k])
			return true;
	return false;
}

void limits_cgroup_started(struct limits_cgroup *cg)
{
	for (int k = 0; k < CG_N; k++)
		if (cg->procs_fd[k] >= 0) {
			close(cg->procs_fd[k]);
			cg->procs_fd[k] = -1;
		}
}

static uint64_t key_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
	return 0;
}

void limits_cgroup_events(const struct limits_cgroup *cg, struct limits_events *ret)
{
	char path[4352], buf[4096];

	*ret = (struct limits_events){};
	if (cg->dir[CG_V2]) {
		snprintf(path, sizeof(path), "%s/memory.events", cg->dir[CG_V2]);
		if (read_small(path, buf, sizeof(buf)) >= 0) {
			ret->oom_kills += key_value(buf, "oom_kill");
			ret->mem_failcnt += key_value(buf, "max");
		}
		snprintf(path, sizeof(path), "%s/pids.events", cg->dir[CG_V2]);
		if (read_small(path, buf, sizeof(buf)) >= 0)
			ret->pids_max += key_value(buf, "max");
	}
	if (cg->dir[CG_V1_MEMORY]) {
		snprintf(path, sizeof(path), "%s/memory.oom_control", cg->dir[CG_V1_MEMORY]);
		if (read_small(path, buf, sizeof(buf)) >= 0)
			ret->oom_kills += key_value(buf, "oom_kill");
		snprintf(path, sizeof(path), "%s/memory.failcnt", cg->dir[CG_V1_MEMORY]);
		if (read_small(path, buf, sizeof(buf)) >= 0)
			ret->mem_failcnt += strtoull(buf, NULL, 10);
	}
	if (cg->dir[CG_V1_PIDS]) {
		snprintf(path, sizeof(path), "%s/pids.events", cg->dir[CG_V1_PIDS]);
		if (read_small(path, buf, sizeof(buf)) >= 0)
			ret->pids_max += key_value(buf, "max");
	}
}

int limits_cgroup_cpu_usec(const struct limits_cgroup *cg, uint64_t *ret)
{
	char path[4352], buf[4096];
	int r;

	/* v1 first: a v2 directory may be there for memory or pids only */
	if (cg->dir[CG_V1_CPUACCT]) {
		snprintf(path, sizeof(path), "%s/cpuacct.usage", cg->dir[CG_V1_CPUACCT]);
		r = read_small(path, buf, sizeof(buf));
		if (r < 0)
			return r;
		*ret = strtoull(buf, NULL, 10) / 1000u; /* ns */
		return 0;
	}
	if (cg->dir[CG_V2]) {
		snprintf(path, sizeof(path), "%s/cpu.stat", cg->dir[CG_V2]);
		r = read_small(path, buf, sizeof(buf));
		if (r < 0)
			return r;
		*ret = key_value(buf, "usage_usec");
		return 0;
	}
	return -ENOENT;
}

bool limits_cgroup_kill(const struct limits_cgroup *cg)
{
	bool empty = true;

	for (int k = 0; k < CG_N; k++)
		if (cg->dir[k] && !cg_dir_kill(cg->dir[k], k == CG_V2))
			empty = false;
	return empty;
}

void limits_cgroup_destroy(struct limits_cgroup *cg)
{
	limits_cgroup_started(cg);
	for (int k = 0; k < CG_N; k++) {
		if (!cg->dir[k])
			continue;
		cg_dir_remove(cg->dir[k], k == CG_V2);
		free(cg->dir[k]);
		cg->dir[k] = NULL;
	}
}
