/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit-driver: writes an audit log with the supervisor's writer
 * (src/supervisor/audit.c), as the supervisor would, for audit.t to read,
 * tamper with and verify through `cordon audit`.
 *
 *   audit-driver write DIR|- SESSION [--calls N] [--threads T]
 *                [--sleep-ms MS] [--no-close]
 *
 * Each tool call is an `allowed` and an `exited` record whose argv,
 * environment names and cwd carry secrets (audit.t checks that none reaches
 * the file). DIR "-" is the default directory. Prints the log's path, then
 * "head HEX" at the end. --no-close leaves without session_end; with
 * --sleep-ms the calls are slow enough to be killed midway.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

static const char *const secret_argv[] = {
	"push",
	"https://alice:hunter2-pass@example.com/repo.git",
	"--token",
	"tok-SECRET-1",
	"--password=pw-SECRET-2",
	"API_KEY=key-SECRET-3",
	"ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	"main",
	"--force",
	NULL,
};
static const char *const env_names[] = {"HOME", "GIT_SECRET_NAME", NULL};

struct job {
	struct audit_log *log;
	int calls, first, sleep_ms;
	int error;
};

static void *calls(void *p)
{
	struct job *j = p;

	for (int i = 0; i < j->calls && !j->error; i++) {
		char call[32];
		struct audit_event e = {
			.event = "allowed",
			.call_id = call,
			.caller = "session",
			.command = "git",
			.decision = "allow",
			.rule = "/command_policies/commands/git/invocation_policy/default",
			.argv = secret_argv,
			.env_names = env_names,
			.cwd = "/home/alice/secret-project",
		};
		struct timespec ts = {.tv_sec = j->sleep_ms / 1000, .tv_nsec = (long)(j->sleep_ms % 1000) * 1000000};
		int r;

		snprintf(call, sizeof(call), "c%d", j->first + i);
		r = audit_write(j->log, &e);
		if (r >= 0) {
			e = (struct audit_event){.event = "exited",
						 .call_id = call,
						 .caller = "session",
						 .command = "git",
						 .has_exit = true,
						 .exit_code = i % 3,
						 .duration_ms = 12,
						 .has_io = true,
						 .stdout_bytes = 100 + (uint64_t)i};
			r = audit_write(j->log, &e);
		}
		if (r < 0)
			j->error = r;
		if (j->sleep_ms)
			nanosleep(&ts, NULL);
	}
	return NULL;
}

static int usage(void)
{
	fputs("usage: audit-driver write DIR|- SESSION [--calls N] [--threads T] [--sleep-ms MS] [--no-close]\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct audit_session s = {
		.profile = "git", .profile_file = "/etc/cordon/profiles/git.json", .workspace = "/home/alice/work"};
	struct audit_log *log;
	struct job jobs[16];
	pthread_t threads[16];
	int ncalls = 3, nthreads = 1, sleep_ms = 0, r;
	bool close_it = true;
	char head[SHA256_HEX];

	if (argc < 4 || strcmp(argv[1], "write") != 0)
		return usage();
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
			ncalls = atoi(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--sleep-ms") == 0 && i + 1 < argc)
			sleep_ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-close") == 0)
			close_it = false;
		else
			return usage();
	}
	if (nthreads < 1 || nthreads > 16 || ncalls < 0)
		return usage();
	s.session_id = argv[3];
	r = audit_open(strcmp(argv[2], "-") == 0 ? NULL : argv[2], &s, &log);
	if (r < 0) {
		fprintf(stderr, "audit-driver: cannot open the log: %s\n", strerror(-r));
		return 1;
	}
	printf("%s\n", audit_path(log));
	fflush(stdout);
	for (int t = 0; t < nthreads; t++) {
		jobs[t] = (struct job){.log = log, .calls = ncalls, .first = t * ncalls, .sleep_ms = sleep_ms};
		if (pthread_create(&threads[t], NULL, calls, &jobs[t]) != 0) {
			fputs("audit-driver: cannot start a thread\n", stderr);
			return 1;
		}
	}
	for (int t = 0; t < nthreads; t++) {
		pthread_join(threads[t], NULL);
		if (jobs[t].error) {
			fprintf(stderr, "audit-driver: a write failed: %s\n", strerror(-jobs[t].error));
			return 1;
		}
	}
	if (!close_it)
		return 0;
	r = audit_close_head(log, head);
	if (r < 0) {
		fprintf(stderr, "audit-driver: cannot close the log: %s\n", strerror(-r));
		return 1;
	}
	printf("head %s\n", head);
	return 0;
}
