/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net proxy for a library caller that enters the runner in-process
 * (cordon_run_opts.runner_main): this test program links libcordon and the
 * runner, so the runner runs in a forked child of a program that is not
 * cordon. The proxy must still be cordon's own (`cordon proxy` from the
 * runner binary the caller named), never this program; and when the
 * caller names a runner that is not cordon, the run fails closed: the
 * sandbox is given no way out and the command never runs.
 *
 * The upstream is a child of this test on 127.0.0.1 (an ephemeral port),
 * reached by the name localhost; curl inside the sandbox asks through the
 * proxy variables the runner sets.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"
#include "cordon/runner.h"

static char dir[64], marker[128], upstream_log[128];
static pid_t upstream_pid;
static int upstream_port;

static bool userns_works(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The upstream: for each connection, read the head, log its first line,
 * answer "upstream-ok". */
_Noreturn static void serve(int ls)
{
	static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nupstream-ok\n";

	for (;;) {
		char head[4096];
		size_t len = 0;
		int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC), log;
		ssize_t n;

		if (c < 0)
			_exit(1);
		while (len < sizeof(head) - 1 && (n = read(c, head + len, sizeof(head) - 1 - len)) > 0) {
			len += (size_t)n;
			head[len] = '\0';
			if (strstr(head, "\r\n\r\n"))
				break;
		}
		head[len] = '\0';
		log = open(upstream_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (log >= 0) {
			(void)!write(log, head, strcspn(head, "\r\n"));
			(void)!write(log, "\n", 1);
			close(log);
		}
		(void)!write(c, reply, sizeof(reply) - 1);
		close(c);
	}
}

static void setup(void)
{
	const char *cordon = getenv("CORDON");
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int ls;

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	live_skip_unless(userns_works(), "no unprivileged user namespaces here");
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-proxy-inproc.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(marker, sizeof(marker), "%s/entered-in-process", dir);
	snprintf(upstream_log, sizeof(upstream_log), "%s/upstream.log", dir);
	unsetenv("TMPDIR");

	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(ls, 0);
	cr_assert_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(ls, 16), 0);
	cr_assert_eq(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	upstream_port = ntohs(sa.sin_port);
	upstream_pid = fork();
	cr_assert_geq(upstream_pid, 0);
	if (upstream_pid == 0)
		serve(ls);
	close(ls);
}

static void teardown(void)
{
	char cmd[128];

	if (upstream_pid > 0) {
		kill(upstream_pid, SIGKILL);
		waitpid(upstream_pid, NULL, 0);
	}
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)!system(cmd);
	}
}

TestSuite(proxy_inprocess, .init = setup, .fini = teardown);

/* The runner entered in-process, leaving a mark that it was: the proof
 * that this program, not the cordon binary, ran the runner. */
static int marking_runner_main(int argc, char **argv)
{
	int fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	return cordon_exec_main(argc, argv);
}

/* What a run gave, copied out of the child that ran it. */
struct outcome {
	int exit_code;
	enum cordon_verdict verdict;
	bool has_runner_line;
	char runner_line[1024];
	char output[8192];
};

/* `sh -c script` confined under --net proxy (localhost and 127.0.0.1
 * allowed, bad.example denied), with runner as the runner binary. In a
 * child of its own: Criterion's worker has threads, and the runner is
 * entered in-process only in a single-threaded caller. */
static void run_proxied(const char *runner, const char *script, bool in_process, struct outcome *ret)
{
	struct outcome *out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	cr_assert_neq(out, MAP_FAILED);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
		const char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct cordon_run_opts o = { .timeout_ms = 30000,
					     .runner_main = in_process ? marking_runner_main : NULL };
		struct cordon_policy *p = NULL;
		struct cordon_confined *c = NULL;
		struct cordon_result *res = NULL;
		struct cordon_error e = {};

		if (cordon_set_runner_path(runner) < 0 || cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, dir, &p, &e) < 0 ||
		    cordon_policy_set_net(p, CORDON_NET_PROXY) < 0 ||
		    cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, "localhost", &e) < 0 ||
		    cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_ADDRESS, "127.0.0.1", &e) < 0 ||
		    cordon_policy_add_net_rule(p, CORDON_NET_DENY_DOMAIN, "bad.example", &e) < 0)
			_exit(2);
		snprintf(info.path, sizeof(info.path), "%s", runner);
		if (cordon_confine_with(&info, argv, p, &c, &e) < 0 || cordon_run(c, &o, &res) < 0)
			_exit(3);
		out->exit_code = res->exit_code;
		out->verdict = res->verdict;
		out->has_runner_line = res->runner_line != NULL;
		snprintf(out->runner_line, sizeof(out->runner_line), "%s", res->runner_line ?: "");
		snprintf(out->output, sizeof(out->output), "%s", res->output ?: "");
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the caller's child failed: status 0x%x", status);
	*ret = *out;
	munmap(out, sizeof(*out));
}

static bool file_has(const char *path, const char *needle)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Allowed: through the proxy to the upstream. Refused: bad.example gets
 * cordon's own refusal (403 and X-Cordon-Error), which only cordon's proxy
 * gives. */
#define CLIENT_SCRIPT                                                                                      \
	"curl -sS -m 10 --noproxy '' http://localhost:%d/in-process; "                                    \
	"curl -sS -m 10 --noproxy '' -i http://bad.example/ | tr -d '\\r' | grep -E '^(HTTP/1.1 403|X-Cordon-Error)'"

Test(proxy_inprocess, runner_main_uses_cordons_proxy)
{
	char script[512];

	snprintf(script, sizeof(script), CLIENT_SCRIPT, upstream_port);
	for (int in_process = 1; in_process >= 0; in_process--) {
		struct outcome o, *res = &o;

		unlink(marker);
		unlink(upstream_log);
		run_proxied(getenv("CORDON"), script, in_process, res);
		cr_assert_eq(res->exit_code, 0, "in_process=%d: exit %d, %s: %s", in_process, res->exit_code,
			     res->runner_line, res->output);
		/* the runner was entered in this program, or exec'd (the control) */
		cr_assert_eq(access(marker, F_OK) == 0, in_process, "in_process=%d: runner_main entered?", in_process);
		cr_assert(strstr(res->output, "upstream-ok\n"), "in_process=%d: %s", in_process, res->output);
		cr_assert(file_has(upstream_log, "GET /in-process HTTP/1.1"), "in_process=%d: the upstream did not get the request",
			  in_process);
		cr_assert(strstr(res->output, "HTTP/1.1 403"), "in_process=%d: %s", in_process, res->output);
		cr_assert(strstr(res->output, "X-Cordon-Error: host-denied"), "in_process=%d: %s", in_process,
			  res->output);
	}
}

/* A runner named by the caller that is not cordon: its "proxy" never says
 * it is ready, so init hands it nothing and the run ends (125) before the
 * command: fail closed, never a way out the rules did not check. */
Test(proxy_inprocess, a_runner_that_is_not_cordon_fails_closed)
{
	char script[512], ran[160];
	struct outcome o, *res = &o;

	snprintf(ran, sizeof(ran), "%s/command-ran", dir);
	snprintf(script, sizeof(script), "touch %s; curl -sS -m 5 --noproxy '' http://localhost:%d/not-cordon", ran,
		 upstream_port);
	run_proxied("/bin/true", script, true, res);
	cr_assert(access(marker, F_OK) == 0, "runner_main was not entered in-process");
	cr_assert_eq(res->exit_code, 125, "exit %d: %s", res->exit_code, res->output);
	cr_assert_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "%s", cordon_verdict_to_string(res->verdict));
	cr_assert(res->has_runner_line);
	cr_assert(strstr(res->runner_line, "cordon: proxy: the network proxy (/bin/true proxy) did not start"), "%s",
		  res->runner_line);
	cr_assert_neq(access(ran, F_OK), 0, "the command ran without its proxy");
	cr_assert_neq(access(upstream_log, F_OK), 0, "the upstream was reached");
}
