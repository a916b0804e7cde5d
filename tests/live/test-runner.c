/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner for real: each test forks (Criterion's worker has threads, and
 * a user namespace needs a single-threaded caller), runs cordon_exec_main in
 * the child with its output on a pipe, and asserts on what came back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cordon/runner.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-runner.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.light-out'", dir, dir);
	(void)!system(cmd);
}

/* Can a fresh single-threaded child make a user namespace here? */
static bool userns_works(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct run {
	pid_t pid;
	int out;         /* read end: the runner's stdout and stderr */
	int status;
	char output[8192];
};

static void start(struct run *r, char *const *argv)
{
	int p[2];
	int argc = 0;

	while (argv[argc])
		argc++;
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	r->pid = fork();
	cr_assert_geq(r->pid, 0);
	if (r->pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		_exit(cordon_exec_main(argc, (char **)argv));
	}
	close(p[1]);
	r->out = p[0];
}

static void finish(struct run *r)
{
	size_t len = 0;
	ssize_t n;

	while ((n = read(r->out, r->output + len, sizeof(r->output) - 1 - len)) > 0)
		len += (size_t)n;
	r->output[len] = '\0';
	close(r->out);
	cr_assert_eq(waitpid(r->pid, &r->status, 0), r->pid);
}

static void run(struct run *r, char *const *argv)
{
	start(r, argv);
	finish(r);
}

#define RUN(r, ...) run((r), (char *const[]){ "exec", __VA_ARGS__, NULL })
#define EXITED(r, code)                                                                            \
	cr_assert(WIFEXITED((r)->status) && WEXITSTATUS((r)->status) == (code),                    \
		  "expected exit %d, got status 0x%x; output:\n%s", (code), (r)->status, (r)->output)

static void setup(void)
{
	live_skip_unless(userns_works(), "no unprivileged user namespaces here");
	make_dir();
}

TestSuite(runner, .init = setup, .fini = remove_dir);

Test(runner, exit_status_is_relayed)
{
	struct run r;

	RUN(&r, "--", "/bin/sh", "-c", "exit 3");
	EXITED(&r, 3);
	RUN(&r, "--", "/bin/true");
	EXITED(&r, 0);
}

Test(runner, death_by_signal_is_relayed)
{
	struct run r;

	RUN(&r, "--", "/bin/sh", "-c", "kill -USR1 $$");
	cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGUSR1, "status 0x%x: %s", r.status, r.output);
}

Test(runner, the_command_runs_below_a_pid1_init)
{
	struct run r;

	RUN(&r, "--", "/bin/sh", "-c", "echo $$; ls /proc | grep -c '^[0-9]*$'");
	EXITED(&r, 0);
	/* pid 1 is init, the command pid 2; /proc shows init, sh and ls/grep */
	cr_assert_eq(strncmp(r.output, "2\n", 2), 0, "%s", r.output);
	cr_assert_lt(atoi(strchr(r.output, '\n') + 1), 8, "%s", r.output);
}

Test(runner, writes_outside_the_roots_are_refused)
{
	char target[128], cmd[256];
	struct run r;

	snprintf(target, sizeof(target), "%s/outside", dir);
	snprintf(cmd, sizeof(cmd), "echo x > %s", target);
	RUN(&r, "--", "/bin/sh", "-c", cmd);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0);
	/* the read-only root refuses before Landlock is asked */
	cr_assert(strstr(r.output, "Read-only file system"), "%s", r.output);
	cr_assert_eq(access(target, F_OK), -1);

	/* and allowed under a --write root */
	RUN(&r, "--write", dir, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 0);
	cr_assert_eq(access(target, F_OK), 0);
}

/* A mount goes where its path was resolved, once, with no symlink on the
 * way: a writable root reached through one is refused, not followed (the
 * plan's roots are canonical, so a symlink there now was swapped in since);
 * a --deny-read or --protect path that is a symlink still covers what it
 * names, as it did when the mounts went by path. */
Test(runner, mounts_resolve_with_no_symlink_on_the_way)
{
	char real[128], ws[160], via_link[160], cmd[512], secret[160], secret_link[160], envrc[160], conf[160];
	struct run r;
	struct stat st;

	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(ws, sizeof(ws), "%s/real/ws", dir);
	snprintf(via_link, sizeof(via_link), "%s/link/ws", dir);
	cr_assert_eq(mkdir(real, 0755), 0);
	cr_assert_eq(mkdir(ws, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s/link", dir);
	cr_assert_eq(symlink("real", cmd), 0);

	snprintf(cmd, sizeof(cmd), "echo x > %s/f", via_link);
	RUN(&r, "--write", via_link, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: read-only root: ") && strstr(r.output, "symbolic links"), "%s", r.output);
	snprintf(cmd, sizeof(cmd), "%s/f", ws);
	cr_assert_eq(access(cmd, F_OK), -1, "written through the link");
	/* control: the same root by its own path */
	snprintf(cmd, sizeof(cmd), "echo x > %s/f", ws);
	RUN(&r, "--write", ws, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 0);
	snprintf(cmd, sizeof(cmd), "%s/f", ws);
	cr_assert_eq(access(cmd, F_OK), 0);

	/* a hidden symlink hides what it names: the mode-000 stand-in */
	snprintf(secret, sizeof(secret), "%s/secret", real);
	snprintf(secret_link, sizeof(secret_link), "%s/secret-link", real);
	cr_assert_eq(close(creat(secret, 0644)), 0);
	cr_assert_eq(symlink("secret", secret_link), 0);
	snprintf(cmd, sizeof(cmd), "stat -L -c %%a %s", secret_link);
	RUN(&r, "--deny-read", secret_link, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 0);
	cr_assert_str_eq(r.output, "0\n");

	/* a protected symlink: what it names is read-only */
	snprintf(conf, sizeof(conf), "%s/conf", real);
	snprintf(envrc, sizeof(envrc), "%s/.envrc", real);
	cr_assert_eq(close(creat(conf, 0644)), 0);
	cr_assert_eq(symlink("conf", envrc), 0);
	snprintf(cmd, sizeof(cmd), "echo x >> %s; awk '$5 == \"%s\" { print \"mount\", substr($6, 1, 3) }' /proc/self/mountinfo",
		 envrc, conf);
	RUN(&r, "--write", real, "--protect", envrc, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 0);
	cr_assert(strstr(r.output, "Permission denied"), "%s", r.output);
	/* the link's target is bound read-only, not the link */
	cr_assert(strstr(r.output, "mount ro,"), "%s", r.output);
	cr_assert_eq(stat(conf, &st), 0);
	cr_assert_eq(st.st_size, 0, "written through the protected link");
}

/* Missing protected paths cannot be made (the creation gate says EACCES),
 * and nothing stands for them on the host, during the run or after. */
Test(runner, protected_missing_paths_cannot_be_made)
{
	char protect_hooks[128], protect_mcp[128], cmd[640];
	struct run r;

	snprintf(protect_hooks, sizeof(protect_hooks), "%s/.git/hooks", dir);
	snprintf(protect_mcp, sizeof(protect_mcp), "%s/.mcp.json", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s; ls -A; echo listed; echo x > .mcp.json; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit; "
		 "echo ok > plain && echo wrote-plain",
		 dir);
	RUN(&r, "--write", dir, "--protect", protect_hooks, "--protect", protect_mcp, "--", "/bin/sh", "-c", cmd);
	EXITED(&r, 0);
	cr_assert(strstr(r.output, "wrote-plain"), "%s", r.output);
	/* the workspace was empty inside too: no placeholder */
	cr_assert_eq(strncmp(r.output, "listed\n", 7), 0, "%s", r.output);
	cr_assert(strstr(r.output, "cannot create .mcp.json: Permission denied"), "%s", r.output);
	cr_assert(strstr(r.output, "mkdir: cannot create directory") && strstr(r.output, "Permission denied"), "%s",
		  r.output);

	char mcp[160], git[160], plain[160];
	snprintf(mcp, sizeof(mcp), "%s/.mcp.json", dir);
	snprintf(git, sizeof(git), "%s/.git", dir);
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	cr_assert_eq(access(mcp, F_OK), -1, "%s made", mcp);
	cr_assert_eq(access(git, F_OK), -1, "%s made", git);
	cr_assert_eq(access(plain, F_OK), 0);
}

Test(runner, setup_failures_say_cordon_and_exit_125)
{
	char link[128];
	struct run r;

	/* the command, not the setup, failed: a shell's 127 */
	RUN(&r, "--", "/nonexistent/command");
	EXITED(&r, 127);
	cr_assert_eq(strncmp(r.output, "cordon: execve: /nonexistent/command: ", 38), 0, "%s", r.output);

	RUN(&r, "--bogus", "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert_eq(strncmp(r.output, "cordon: flags: unknown flag '--bogus'", 37), 0, "%s", r.output);

	RUN(&r, "--setenv", "LD_PRELOAD", "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: flags: --setenv: refusing LD_PRELOAD"), "%s", r.output);

	/* a value would be on the command line, readable by every local user */
	RUN(&r, "--setenv", "SET_HERE=1", "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: flags: --setenv: give a NAME, not NAME=VALUE"), "%s", r.output);

	/* a protected path that is a dangling symlink cannot be kept read-only */
	snprintf(link, sizeof(link), "%s/.envrc", dir);
	cr_assert_eq(symlink("/nonexistent-target", link), 0);
	RUN(&r, "--write", dir, "--protect", link, "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: protect: "), "%s", r.output);
}

Test(runner, environment_is_an_allow_list)
{
	struct run r;

	setenv("AWS_SECRET_ACCESS_KEY", "aws-secret", 1);
	setenv("CORDON_TEST_KEPT", "kept", 1);
	setenv("LANG", "C", 1);
	setenv("SET_HERE", "1", 1);
	setenv("NOT_SET_HERE", "2", 1);
	RUN(&r, "--keep-env", "CORDON_TEST_K*", "--setenv", "SET_HERE", "--", "/usr/bin/env");
	EXITED(&r, 0);
	cr_assert_null(strstr(r.output, "AWS_SECRET"), "%s", r.output);
	cr_assert_null(strstr(r.output, "NOT_SET_HERE"), "%s", r.output);
	cr_assert(strstr(r.output, "CORDON_TEST_KEPT=kept\n"), "%s", r.output);
	/* --setenv NAME: the value comes from the runner's environment */
	cr_assert(strstr(r.output, "SET_HERE=1\n"), "%s", r.output);
	cr_assert(strstr(r.output, "LANG=C\n"), "%s", r.output);

	/* asked for and not there: refused, not silently dropped */
	unsetenv("SET_HERE");
	RUN(&r, "--setenv", "SET_HERE", "--", "/usr/bin/env");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: environment: --setenv SET_HERE: not in the runner's environment"), "%s",
		  r.output);
}

/* The runner with its status channel at fd 9 (a pipe): *record gets what
 * was written there once the runner has ended. */
static void run_with_status(struct run *r, char *const *argv, char *record, size_t size)
{
	int p[2], argc = 0;
	ssize_t n;
	size_t len = 0;

	while (argv[argc])
		argc++;
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	/* above 9, so the child's dup2 to 9 is a real copy */
	int w = fcntl(p[1], F_DUPFD_CLOEXEC, 10), out[2];
	cr_assert_geq(w, 10);
	close(p[1]);
	p[1] = w;
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	r->pid = fork();
	cr_assert_geq(r->pid, 0);
	if (r->pid == 0) {
		dup2(out[1], 1);
		dup2(out[1], 2);
		if (dup2(p[1], 9) < 0)
			_exit(99);
		_exit(cordon_exec_main(argc, (char **)argv));
	}
	close(out[1]);
	close(p[1]);
	r->out = out[0];
	finish(r);
	while ((n = read(p[0], record + len, size - 1 - len)) > 0)
		len += (size_t)n;
	record[len] = '\0';
	close(p[0]);
}

#define STARTS(s, lit) (strncmp((s), (lit), sizeof(lit) - 1) == 0)
#define RUN_STATUS(r, rec, ...) \
	run_with_status((r), (char *const[]){ "exec", "--status-fd", "9", __VA_ARGS__, NULL }, (rec), sizeof(rec))

/* A setup failure, in whichever runner process it happens, is one record on
 * the status fd; a command that fails, or prints the runner's words, writes
 * none, and the command never has the fd. */
Test(runner, failures_are_recorded_on_the_status_fd)
{
	char rec[2048], link[128];
	struct run r;

	/* the command process, before execve */
	RUN_STATUS(&r, rec, "--", "/nonexistent/command");
	EXITED(&r, 127);
	cr_assert(STARTS(rec, "execve\tENOENT\tcordon: execve: /nonexistent/command: "), "%s", rec);
	cr_assert_eq(strchr(rec, '\n'), rec + strlen(rec) - 1, "one record: %s", rec);
	/* ... under light isolation too (no init) */
	RUN_STATUS(&r, rec, "--isolation", "light", "--", "/nonexistent/command");
	EXITED(&r, 127);
	cr_assert(STARTS(rec, "execve\tENOENT\t"), "%s", rec);
	/* the runner itself: a bad flag, wherever it sits */
	RUN_STATUS(&r, rec, "--bogus", "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert_str_eq(rec, "flags\t-\tcordon: flags: unknown flag '--bogus' (see cordon exec --help)\n");
	/* a failure said before exiting (protect_prepare) */
	snprintf(link, sizeof(link), "%s/.envrc", dir);
	cr_assert_eq(symlink("/nonexistent-target", link), 0);
	RUN_STATUS(&r, rec, "--write", dir, "--protect", link, "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert(STARTS(rec, "protect\t-\tcordon: protect: "), "%s", rec);
	unlink(link);

	/* the command failing, and printing the runner's line: no record */
	RUN_STATUS(&r, rec, "--", "/bin/sh", "-c", "echo 'cordon: landlock: cannot open /: Permission denied' >&2; exit 125");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: landlock: cannot open /"), "%s", r.output);
	cr_assert_str_eq(rec, "");
	/* the command cannot write a record: the fd is close-on-exec */
	RUN_STATUS(&r, rec, "--", "/bin/sh", "-c", "echo 'x\t-\tforged' >&9");
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "%s", r.output);
	cr_assert(strstr(r.output, "Bad file descriptor"), "%s", r.output);
	cr_assert_str_eq(rec, "");
	RUN_STATUS(&r, rec, "--isolation", "light", "--", "/bin/sh", "-c", "echo forged >&9");
	cr_assert(strstr(r.output, "Bad file descriptor"), "%s", r.output);
	cr_assert_str_eq(rec, "");
	/* control: the same write works when the command opens fd 9 itself */
	RUN_STATUS(&r, rec, "--", "/bin/sh", "-c", "exec 9>&2; echo reached >&9");
	EXITED(&r, 0);
	cr_assert(strstr(r.output, "reached"), "%s", r.output);
	cr_assert_str_eq(rec, "");
}

Test(runner, status_fd_must_be_open)
{
	struct run r;

	RUN(&r, "--status-fd", "250", "--", "/bin/true");
	EXITED(&r, 125);
	cr_assert(strstr(r.output, "cordon: status-fd: fd 250 is not open"), "%s", r.output);
}

Test(runner, inherited_fds_are_closed)
{
	struct run r;
	int fd = open("/dev/null", O_WRONLY); /* no O_CLOEXEC: on purpose */

	cr_assert_geq(fd, 3);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "echo x >&%d", fd);
	/* control: without the runner the shell inherits and writes the fd */
	cr_assert_eq(system(cmd), 0, "control: %s", cmd);
	RUN(&r, "--", "/bin/sh", "-c", cmd);
	close(fd);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "%s", r.output);
	cr_assert(strstr(r.output, "Bad file descriptor"), "%s", r.output);
}

Test(runner, signals_are_forwarded)
{
	struct run r;
	char ready[8] = {};

	start(&r, (char *const[]){ "exec", "--", "/bin/sh", "-c",
				   "trap 'exit 42' TERM; echo ready; while :; do sleep 0.05; done", NULL });
	cr_assert_eq(read(r.out, ready, 6), 6);
	cr_assert_str_eq(ready, "ready\n");
	kill(r.pid, SIGTERM);
	finish(&r);
	EXITED(&r, 42);
}

Test(runner, the_sandbox_dies_with_the_runner)
{
	char marker[128], cmd[256], ready[8] = {};
	struct run r;

	snprintf(marker, sizeof(marker), "%s/marker", dir);
	snprintf(cmd, sizeof(cmd), "echo ready; sleep 1; echo alive > %s", marker);
	start(&r, (char *const[]){ "exec", "--write", dir, "--", "/bin/sh", "-c", cmd, NULL });
	cr_assert_eq(read(r.out, ready, 6), 6);
	kill(r.pid, SIGKILL);
	finish(&r);
	sleep(2);
	cr_assert_eq(access(marker, F_OK), -1, "the command outlived its runner");
}

Test(runner, light_isolation)
{
	char target[128], outside[128], cmd[512], ctl[256];
	struct run r;

	snprintf(target, sizeof(target), "%s/light", dir);
	/* a sibling of dir: outside the --write root, ours alone */
	snprintf(outside, sizeof(outside), "%s.light-out", dir);
	snprintf(cmd, sizeof(cmd), "echo x > %s && grep -E '^(NoNewPrivs|CapEff)' /proc/self/status; echo y > %s",
		 target, outside);
	/* control: the same write outside succeeds unconfined */
	snprintf(ctl, sizeof(ctl), "echo y > %s", outside);
	cr_assert_eq(system(ctl), 0);
	cr_assert_eq(unlink(outside), 0, "control did not write %s", outside);

	RUN(&r, "--isolation", "light", "--write", dir, "--", "/bin/sh", "-c", cmd);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "%s", r.output);
	cr_assert(strstr(r.output, "NoNewPrivs:\t1"), "%s", r.output);
	cr_assert(strstr(r.output, "CapEff:\t0000000000000000"), "%s", r.output);
	cr_assert(strstr(r.output, "Permission denied"), "%s", r.output);
	cr_assert_eq(access(target, F_OK), 0);
	cr_assert_eq(access(outside, F_OK), -1);
}

Test(runner, report_line)
{
	struct run r;

	RUN(&r, "--report", "--", "/bin/true");
	EXITED(&r, 0);
	cr_assert(strstr(r.output, "cordon-report: isolation=full "), "%s", r.output);
	cr_assert(strstr(r.output, " namespaces=yes "), "%s", r.output);
}
