/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pack's .tar.gz decompressed by the host's gzip (zlib is not among
 * cordon's dependencies and inflate is not hand-rolled), run confined by
 * libcordon's own public API: read-only (nothing writable), no network,
 * reads restricted to the baseline and gzip's execute-closure, the
 * execute-only gate open for that closure alone, the archive as its stdin,
 * its stdout captured up to the cap, CPU, memory and process limits, a
 * wall-clock timeout. Past the cap the tree is killed and the archive
 * refused. If the sandbox cannot be made, the archive is refused: gzip is
 * never run unconfined.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "error.h"
#include "exec_closure.h"
#include "pack_gunzip.h"

#define GUNZIP_TIMEOUT_MS 30000
#define GUNZIP_CPU_SECONDS 10
#define GUNZIP_MEMORY (256ULL * 1024 * 1024)
#define GUNZIP_PROCESSES 8

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_confined *, cordon_confined_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_child *, cordon_child_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_result *, cordon_result_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct exec_closure *, exec_closure_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, cordon_strv_free)

static const char *find_gzip(void)
{
	static const char *const where[] = { "/usr/bin/gzip", "/bin/gzip" };

	for (size_t i = 0; i < ELEMENTSOF(where); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* The sandbox gzip runs in; every failure is the reason the archive is refused. */
static int gunzip_confined(const char *gzip, struct cordon_confined **ret, struct cordon_error *reterr)
{
	_cleanup_(exec_closure_freep) struct exec_closure *clo = NULL;
	_cleanup_(cordon_strv_freep) char **files = NULL;
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	const char *const argv[] = { gzip, "-dc", NULL };
	struct cordon_error err = {};
	int r;

	r = exec_closure_new(&clo);
	if (r >= 0)
		r = exec_closure_of(clo, gzip, NULL, &files, &err);
	if (r >= 0)
		/* the workspace of a read-only policy is only read: /usr is in the baseline anyway */
		r = cordon_policy_new(CORDON_MODE_READ_ONLY, "/usr", &p, &err);
	if (r >= 0)
		r = cordon_policy_set_net(p, CORDON_NET_NONE);
	if (r >= 0)
		r = cordon_policy_require(p, "landlock", &err);
	if (r >= 0)
		r = cordon_policy_require(p, "seccomp", &err);
	if (r >= 0)
		r = cordon_policy_restrict_read(p, gzip, &err);
	for (size_t i = 0; r >= 0 && files && files[i]; i++)
		r = cordon_policy_allow_exec(p, files[i], &err);
	if (r >= 0)
		r = cordon_confine(argv, p, ret, &err);
	if (r < 0)
		return error_set(reterr, r, "cannot make the sandbox gzip runs in: %s",
				 err.message[0] ? err.message : strerror(-r));
	return 0;
}

int pack_gunzip(int fd, size_t cap, char **ret, size_t *ret_len, struct cordon_error *reterr)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *confined = NULL;
	_cleanup_(cordon_child_freep) struct cordon_child *child = NULL;
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	struct cordon_limits limits = {
		.cpu_seconds = GUNZIP_CPU_SECONDS,
		.memory = GUNZIP_MEMORY,
		.processes = GUNZIP_PROCESSES,
	};
	struct cordon_run_opts o = CORDON_RUN_OPTS_INIT;
	struct cordon_stdio stdio = { .in = fd, .out = -1, .err = -1 };
	struct cordon_error err = {};
	const char *gzip = find_gzip();
	char *out;
	int r;

	if (!gzip)
		return error_set(reterr, -ENOENT, "no gzip on this host (/usr/bin/gzip, /bin/gzip)");
	r = gunzip_confined(gzip, &confined, reterr);
	if (r < 0)
		return r;
	/* No pids cgroup for an unprivileged caller (and RLIMIT_NPROC counts
	 * the user's every process): gzip, which never forks, then runs
	 * bounded by CPU, memory, the wall clock and the output cap alone. */
	if (cordon_limits_check(&limits, confined, &(struct cordon_limits_plan){}, &err) == -EOPNOTSUPP) {
		limits.processes = 0;
		err = (struct cordon_error){};
	}
	/* one byte over the cap is how the cap is seen to be passed */
	o.max_output = cap + 1;
	o.output_terminate = true;
	o.separate_stderr = true;
	o.timeout_ms = GUNZIP_TIMEOUT_MS;
	o.limits = &limits;
	o.cwd = "/usr";
	r = cordon_spawn_confined(confined, &o, &stdio, &child, &err);
	if (r >= 0)
		r = cordon_wait(child, &res);
	if (r < 0)
		return error_set(reterr, r, "cannot run gzip in its sandbox: %s",
				 err.message[0] ? err.message : strerror(-r));
	if (res->output_total > cap || res->limit == CORDON_LIMIT_OUTPUT)
		return error_set(reterr, -EFBIG,
				 "the archive decompresses to more than %zu bytes (the cap): gzip was stopped", cap);
	if (res->limit != CORDON_LIMIT_NONE)
		return error_set(reterr, -E2BIG, "gzip was stopped by its %s limit",
				 cordon_limit_to_string(res->limit));
	if (res->verdict == CORDON_VERDICT_RUNNER_FAILED)
		return error_set(reterr, -EOPNOTSUPP, "cannot make the sandbox gzip runs in: %.300s",
				 res->runner_line ? res->runner_line : "the runner failed");
	if (res->verdict != CORDON_VERDICT_OK || res->exit_code != 0) {
		const char *why = res->stderr_output ? res->stderr_output : "";
		size_t n;

		why += strspn(why, " \t\r\n"); /* its first line that says something */
		n = strcspn(why, "\n");

		return error_set(reterr, -EBADMSG, "not a valid gzip stream (gzip exited %d%s%.*s)", res->exit_code,
				 n ? ": " : "", (int)(n > 300 ? 300 : n), why);
	}
	out = malloc(res->output_len + 1);
	if (!out)
		return -ENOMEM;
	memcpy(out, res->output, res->output_len);
	out[res->output_len] = '\0';
	*ret = out;
	*ret_len = res->output_len;
	return 0;
}
