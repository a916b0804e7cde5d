/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running the command from an fd the caller opened, for real: the file is
 * replaced on disk by rename (as a package upgrade does) after it was
 * opened; run from the fd the original runs, run by path (the control) the
 * new one does. Through each way a child is started: the vfork-like clone,
 * the fork that applies limits, and the runner entered in-process. Then
 * scripts, the gate, the errors, and what is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"
#include "cordon/runner.h"
#include "process.h"

static char dir[64];

static bool userns_works(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void setup(void)
{
	const char *cordon = getenv("CORDON");

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	live_skip_unless(userns_works(), "no unprivileged user namespaces here");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-execfd.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(execfd, .init = setup, .fini = teardown, .timeout = 60);

static const char *P(const char *rel)
{
	static char pool[32][256];
	static unsigned next;
	char *s;

	cr_assert(next < 32);
	s = pool[next++];
	snprintf(s, 256, "%s/%s", dir, rel);
	return s;
}

static void copy_file(const char *from, const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", from, dir, rel);
	cr_assert_eq(system(cmd), 0);
}

static void plant(const char *rel, const char *content, mode_t mode)
{
	int fd = open(P(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "create %s: %s", rel, strerror(errno));
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	cr_assert_eq(chmod(P(rel), mode), 0);
}

static struct cordon_policy *policy(bool from_fd)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, dir, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_exec_from_fd(p, from_fd), 0);
	return p;
}

static struct cordon_confined *confine(const struct cordon_policy *p, const char *const *argv)
{
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};

	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
	return c;
}

enum start { START_CLONE, START_FORK_LIMITS, START_IN_PROCESS };

static const char *const start_names[] = { "clone", "fork with limits", "in-process runner" };

/* Run c with exec_fd (0: none) the way `how` says; the result (NULL when
 * cordon_run refused: *ret_r says why). In-process, the runner is entered
 * in a child of ours that has one thread, which reports the exit code. */
static struct cordon_result *run_fd(const struct cordon_confined *c, int exec_fd, enum start how, int *ret_r)
{
	struct cordon_limits lim = { .open_files = 256 };
	struct cordon_run_opts o = { .timeout_ms = 30000, .exec_fd = exec_fd };
	struct cordon_result *res = NULL;
	int status, p[2];
	pid_t pid;

	if (how == START_FORK_LIMITS)
		o.limits = &lim;
	if (how != START_IN_PROCESS) {
		*ret_r = cordon_run(c, &o, &res);
		return res;
	}
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char buf[4096];
		int r;

		close(p[0]);
		if (process_count_threads() != 1)
			_exit(201);
		o.runner_main = cordon_exec_main;
		r = cordon_run(c, &o, &res);
		if (r < 0)
			_exit(202);
		snprintf(buf, sizeof(buf), "%d\n%s", res->exit_code, res->output);
		(void)!write(p[1], buf, strlen(buf));
		_exit(0);
	}
	close(p[1]);
	{
		char buf[4096] = "";
		ssize_t n = 0, k;

		while ((k = read(p[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
			n += k;
		close(p[0]);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in-process child: status 0x%x", status);
		res = calloc(1, sizeof(*res));
		res->exit_code = atoi(buf);
		res->output = strdup(strchr(buf, '\n') ? strchr(buf, '\n') + 1 : "");
	}
	*ret_r = 0;
	return res;
}

static void result_free(struct cordon_result *res, enum start how)
{
	if (how == START_IN_PROCESS) {
		free(res->output);
		free(res);
	} else
		cordon_result_free(res);
}

/* The upgrade: the file is opened, then a new one is renamed over it. */
Test(execfd, the_file_opened_runs_not_the_one_renamed_over_it)
{
	const char *argv[] = { "prog", NULL };
	struct cordon_policy *pf = policy(true), *pp = policy(false);
	struct cordon_confined *by_fd = confine(pf, argv), *by_path;
	const char *path_argv[] = { P("bin/prog"), NULL };
	int fd, r;

	cr_assert_eq(mkdir(P("bin"), 0755), 0);
	copy_file("/bin/true", "bin/prog");
	fd = open(P("bin/prog"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	copy_file("/bin/false", "bin/new");
	cr_assert_eq(rename(P("bin/new"), P("bin/prog")), 0);
	by_path = confine(pp, path_argv);
	cr_assert_eq(by_fd->exec_fd, 4, "the runner takes it at fd 4");
	cr_assert_eq(by_path->exec_fd, -1);

	for (enum start how = START_CLONE; how <= START_IN_PROCESS; how++) {
		struct cordon_result *res = run_fd(by_fd, fd, how, &r);

		cr_assert_eq(r, 0, "%s: %s", start_names[how], strerror(-r));
		cr_assert_eq(res->exit_code, 0, "%s: the original (true) should run: exit %d\n%s", start_names[how],
			     res->exit_code, res->output);
		result_free(res, how);
		/* control: by path, the new one (false) runs */
		res = run_fd(by_path, 0, how, &r);
		cr_assert_eq(r, 0);
		cr_assert_eq(res->exit_code, 1, "%s: the new file (false) should run by path: exit %d\n%s",
			     start_names[how], res->exit_code, res->output);
		result_free(res, how);
	}
	close(fd);
	cordon_confined_free(by_fd);
	cordon_confined_free(by_path);
	cordon_policy_free(pf);
	cordon_policy_free(pp);
}

/* argv stays as given; the fd is not the command's (an ELF). */
Test(execfd, argv_as_given_and_the_fd_does_not_leak)
{
	const char *argv[] = { "named-as-i-like", "/proc/self/fd", NULL };
	struct cordon_policy *p = policy(true);
	struct cordon_confined *c = confine(p, argv);
	struct cordon_result *res;
	int fd = open("/bin/ls", O_PATH | O_CLOEXEC), r;

	cr_assert_geq(fd, 0);
	res = run_fd(c, fd, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	/* 0 1 2 and ls's own directory fd; never 4 */
	cr_assert(strstr(res->output, "0\n1\n2\n"), "%s", res->output);
	cr_assert_null(strstr(res->output, "\n4\n"), "the fd leaked into the command:\n%s", res->output);
	cordon_result_free(res);

	/* the same through the non-blocking start a supervisor's loop drives */
	{
		struct cordon_run_opts o = { .timeout_ms = 30000, .exec_fd = fd };
		struct cordon_child *child = NULL;
		struct cordon_error e = {};

		cr_assert_eq(cordon_spawn_confined(c, &o, NULL, &child, &e), 0, "%s", e.message);
		cr_assert_eq(cordon_wait(child, &res), 0);
		cr_assert_eq(res->exit_code, 0, "%s", res->output);
		cr_assert(strstr(res->output, "0\n1\n2\n"), "%s", res->output);
		cordon_result_free(res);
		cordon_child_free(child);
	}
	close(fd);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* A script (#!) needs its fd across exec: its interpreter reads /dev/fd/N. */
Test(execfd, a_script_runs_from_an_O_PATH_fd)
{
	const char *argv[] = { "script", "one", "two", NULL };
	struct cordon_policy *p = policy(true);
	struct cordon_confined *c = confine(p, argv);
	struct cordon_result *res;
	int fd, r;

	plant("script", "#!/bin/sh\necho \"ran $0 $*\"\n", 0755);
	fd = open(P("script"), O_PATH | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(unlink(P("script")), 0, "gone from disk: only the fd names it");
	res = run_fd(c, fd, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	cr_assert(strstr(res->output, "ran /dev/fd/4 one two\n"), "%s", res->output);
	cordon_result_free(res);
	close(fd);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* The gate lets the fd's file run, not what sits at its path. */
Test(execfd, the_gate_lets_the_fd_file_run)
{
	const char *argv[] = { "prog", NULL };
	const char *path_argv[] = { P("bin/prog"), NULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *by_fd, *by_path;
	struct cordon_result *res;
	struct cordon_error e = {};
	int fd, r;

	cr_assert_eq(mkdir(P("bin"), 0755), 0);
	copy_file("/bin/true", "bin/prog");
	fd = open(P("bin/prog"), O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(cordon_policy_new_tool(dir, &p, &e), 0, "%s", e.message);
	/* the loader and libraries only */
	cr_assert_eq(cordon_policy_allow_exec(p, "/usr/lib", &e), 0, "%s", e.message);
	if (access("/lib64", F_OK) == 0)
		cr_assert_eq(cordon_policy_allow_exec(p, "/lib64", &e), 0, "%s", e.message);
	if (access("/usr/lib64", F_OK) == 0)
		cr_assert_eq(cordon_policy_allow_exec(p, "/usr/lib64", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_restrict_read(p, P("bin"), &e), 0, "%s", e.message);
	by_path = confine(p, path_argv);
	cr_assert_eq(cordon_policy_exec_from_fd(p, true), 0);
	by_fd = confine(p, argv);
	res = run_fd(by_fd, fd, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	cordon_result_free(res);
	/* control: the same file by path is not granted */
	res = run_fd(by_path, 0, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%s", res->output);
	cordon_result_free(res);
	close(fd);
	cordon_confined_free(by_fd);
	cordon_confined_free(by_path);
	cordon_policy_free(p);
}

/* Errors exit as an execve's would, and say so on the status channel. */
Test(execfd, errors_are_126_and_127)
{
	const char *argv[] = { "x", NULL };
	struct cordon_policy *p = policy(true);
	struct cordon_confined *c = confine(p, argv);
	struct cordon_result *res;
	int fd, r;

	plant("data", "not a program\n", 0644);
	plant("nointerp", "#!/nonexistent/interpreter\n", 0755);
	fd = open(P("data"), O_RDONLY | O_CLOEXEC);
	res = run_fd(c, fd, START_CLONE, &r);
	cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%s", res->output);
	/* the command's own outcome, as a shell's 126: not cordon's machinery */
	cr_assert_eq(res->verdict, CORDON_VERDICT_OK);
	cr_assert(strstr(res->output, "execve"), "%s", res->output);
	cordon_result_free(res);
	close(fd);

	fd = open(P("nointerp"), O_RDONLY | O_CLOEXEC);
	res = run_fd(c, fd, START_CLONE, &r);
	cr_assert_eq(res->exit_code, CORDON_EXIT_NOT_FOUND, "%s", res->output);
	cordon_result_free(res);
	close(fd);

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	res = run_fd(c, fd, START_CLONE, &r);
	cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%s", res->output);
	cr_assert(strstr(res->output, "not a regular file"), "%s", res->output);
	cordon_result_free(res);
	close(fd);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* Asked for and not given, given and not asked for: refused before
 * anything starts. A --deny-exec naming the same file: the runner refuses. */
Test(execfd, refusals)
{
	const char *argv[] = { "true", NULL };
	struct cordon_policy *pf = policy(true), *pp = policy(false);
	struct cordon_confined *wants = confine(pf, argv), *not = confine(pp, argv);
	struct cordon_result *res = NULL;
	struct cordon_error e = {};
	int fd = open("/bin/true", O_RDONLY | O_CLOEXEC), r;

	cr_assert_eq(run_fd(wants, 0, START_CLONE, &r), NULL);
	cr_assert_eq(r, -EINVAL);
	cr_assert_eq(run_fd(not, fd, START_CLONE, &r), NULL);
	cr_assert_eq(r, -EINVAL);
	cr_assert_eq(run_fd(wants, 1, START_CLONE, &r), NULL);
	cr_assert_eq(r, -EBADF);
	/* control: given as asked */
	res = run_fd(wants, fd, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->exit_code, 0, "%s", res->output);
	cordon_result_free(res);
	cordon_confined_free(wants);

	cr_assert_eq(cordon_policy_deny_exec(pf, "/bin/true", &e), 0, "%s", e.message);
	wants = confine(pf, argv);
	res = run_fd(wants, fd, START_CLONE, &r);
	cr_assert_eq(r, 0);
	cr_assert_eq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "%s", res->output);
	cr_assert(strstr(res->runner_line, "--deny-exec"), "%s", res->runner_line);
	cordon_result_free(res);

	/* nowhere to take an fd: danger-full-access runs by name */
	{
		struct cordon_policy *d = NULL;

		cr_assert_eq(cordon_policy_new(CORDON_MODE_DANGER_FULL_ACCESS, NULL, &d, NULL), 0);
		cr_assert_eq(cordon_policy_exec_from_fd(d, true), -EINVAL);
		cordon_policy_free(d);
	}
	close(fd);
	cordon_confined_free(wants);
	cordon_confined_free(not);
	cordon_policy_free(pf);
	cordon_policy_free(pp);
}
