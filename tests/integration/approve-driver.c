/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The approval backends (src/supervisor/approve*.c) as a program the
 * integration tests drive: backends described on the command line, one
 * request asked from one or more threads at once, one result line per ask:
 *
 *   outcome=granted allow=1 backend=me elapsed_ms=3 reason=...
 *
 *   approve-driver [--tty PATH | --no-tty] [--delay-ms N] [--threads N]
 *                  [--env NAME=VALUE]... --backend SPEC... --ask NAME [--] ARGV...
 *
 * SPEC is name=N,type=terminal|webhook|chain,timeout=MS,default=allow|deny,
 * url=U,secret_env=VAR,answer_env=VAR,mode=all|any,members=A:B. --tty makes PATH the
 * controlling terminal of a new session; --no-tty starts a session with
 * none. The webhook is sent the argv and the --env entries redacted as the
 * supervisor redacts them (redact.h). Exit 2: approvals_new refused (its
 * message on stderr); 3: approval_ask failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "approve.h"
#include "crypto.h"
#include "redact.h"

#define MAX_BACKENDS 16
#define MAX_THREADS  16

struct spec {
	struct cordon_approval_backend b;
	char *members[APPROVAL_MEMBERS_MAX + 1];
};

static struct spec specs[MAX_BACKENDS];
static size_t n_specs;
static struct approvals *approvals;
static const char *ask_name;
static struct approval_request request;

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "approve-driver: %s%s\n", what, arg);
	exit(1);
}

static int lookup(void *ctx, const char *name, struct cordon_approval_backend *ret)
{
	for (size_t i = 0; i < n_specs; i++)
		if (strcmp(specs[i].b.name, name) == 0) {
			*ret = specs[i].b;
			return 0;
		}
	return -ENOENT;
}

static void parse_spec(char *text)
{
	struct spec *s;
	char *save = NULL;

	if (n_specs == MAX_BACKENDS)
		die("too many backends", "");
	s = &specs[n_specs++];
	for (char *kv = strtok_r(text, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (!v)
			die("bad backend field: ", kv);
		*v++ = '\0';
		if (strcmp(kv, "name") == 0)
			s->b.name = v;
		else if (strcmp(kv, "type") == 0)
			s->b.type = strcmp(v, "terminal") == 0	? CORDON_APPROVAL_TERMINAL
				    : strcmp(v, "webhook") == 0 ? CORDON_APPROVAL_WEBHOOK
				    : strcmp(v, "chain") == 0	? CORDON_APPROVAL_CHAIN
								: (enum cordon_approval_type)99;
		else if (strcmp(kv, "timeout") == 0)
			s->b.timeout_ms = strtoull(v, NULL, 10);
		else if (strcmp(kv, "default") == 0)
			s->b.default_allow = strcmp(v, "allow") == 0;
		else if (strcmp(kv, "url") == 0)
			s->b.url = v;
		else if (strcmp(kv, "secret_env") == 0)
			s->b.secret_env = v;
		else if (strcmp(kv, "answer_env") == 0)
			s->b.answer_secret_env = v;
		else if (strcmp(kv, "mode") == 0)
			s->b.chain_all = strcmp(v, "all") == 0;
		else if (strcmp(kv, "members") == 0) {
			size_t n = 0;
			char *msave = NULL;

			for (char *m = strtok_r(v, ":", &msave); m && n < APPROVAL_MEMBERS_MAX;
			     m = strtok_r(NULL, ":", &msave))
				s->members[n++] = m;
			s->b.members = (const char *const *)s->members;
		} else
			die("unknown backend field: ", kv);
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void *ask(void *unused)
{
	struct approval_result r;
	uint64_t t0 = now_ms();
	int rc = approval_ask(approvals, ask_name, &request, &r);
	uint64_t elapsed = now_ms() - t0;

	pthread_mutex_lock(&print_lock);
	if (rc < 0)
		printf("error=%s elapsed_ms=%llu\n", strerror(-rc), (unsigned long long)elapsed);
	else
		printf("outcome=%s allow=%d backend=%s elapsed_ms=%llu reason=%s\n", approval_outcome_name(r.outcome),
		       r.allow, r.backend, (unsigned long long)elapsed, r.reason);
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
	return (void *)(intptr_t)(rc < 0);
}

/* A new session: setsid fails for a process group leader, so fork first. */
static void new_session(void)
{
	pid_t pid;
	int status;

	if (getsid(0) == getpid() || setsid() >= 0)
		return;
	pid = fork();
	if (pid < 0)
		die("fork: ", strerror(errno));
	if (pid == 0) {
		if (setsid() < 0)
			die("setsid: ", strerror(errno));
		return;
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: ", strerror(errno));
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int main(int argc, char **argv)
{
	const char *tty = NULL;
	bool no_tty = false;
	unsigned delay_ms = 0, threads = 1;
	char err[512] = "", id[33], digest[SHA256_HEX], cwd[4096];
	const char *names[2];
	char **redacted = NULL, **env_redacted = NULL;
	static const char *env[64];
	size_t n_env = 0;
	pthread_t tid[MAX_THREADS];
	int i, failed = 0, r;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--tty") == 0 && i + 1 < argc)
			tty = argv[++i];
		else if (strcmp(argv[i], "--no-tty") == 0)
			no_tty = true;
		else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc)
			delay_ms = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
			parse_spec(argv[++i]);
		else if (strcmp(argv[i], "--ask") == 0 && i + 1 < argc)
			ask_name = argv[++i];
		else if (strcmp(argv[i], "--env") == 0 && i + 1 < argc && n_env < 63)
			env[n_env++] = argv[++i];
		else if (argv[i][0] == '-')
			die("unknown option ", argv[i]);
		else
			break;
	}
	if (!ask_name || threads == 0 || threads > MAX_THREADS || argc - i > 4095)
		die("usage: see the comment at the top of approve-driver.c", "");

	if (tty || no_tty)
		new_session();
	if (tty) {
		int fd = open(tty, O_RDWR | O_CLOEXEC);

		if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
			die("cannot make this the controlling terminal: ", tty);
		close(fd);
	}

	names[0] = ask_name;
	names[1] = NULL;
	r = approvals_new(lookup, NULL, names, &approvals, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "approve-driver: %s (%s)\n", err, strerrorname_np(-r));
		return 2;
	}

	if (redact_argv_full((const char *const *)argv + i, NULL, 0, &redacted) < 0)
		die("cannot redact", "");
	env_redacted = calloc(n_env + 1, sizeof(char *));
	for (size_t k = 0; env_redacted && k < n_env; k++)
		if (redact_word(env[k], false, REDACT_MAX_WORD_BYTES, &env_redacted[k]) < 0)
			die("cannot redact", "");
	if (!getcwd(cwd, sizeof(cwd)))
		die("getcwd: ", strerror(errno));
	/* a stand-in for the digest the supervisor computes over the exact action */
	if (random_hex(16, id) < 0 || sha256_hex(cwd, strlen(cwd), digest) < 0)
		die("cannot make the request", "");
	request = (struct approval_request){
		.request_id = id,
		.session = "test-session",
		.caller = "session",
		.command = "tool",
		.argv = (const char *const *)argv + i,
		.argv_redacted = (const char *const *)redacted,
		.env = env,
		.env_redacted = (const char *const *)env_redacted,
		.cwd = cwd,
		.cwd_dev = 1,
		.cwd_ino = 2,
		.policy = digest,
		.digest = digest,
	};
	printf("request_id=%s digest=%s\n", id, digest);
	fflush(stdout);
	if (delay_ms)
		usleep(delay_ms * 1000);

	for (unsigned t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, ask, NULL) != 0)
			die("pthread_create failed", "");
	for (unsigned t = 0; t < threads; t++) {
		void *res;

		pthread_join(tid[t], &res);
		failed |= res != NULL;
	}
	approvals = approvals_free(approvals);
	return failed ? 3 : 0;
}
