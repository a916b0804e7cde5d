/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tool sandbox's mechanisms through the C API, for real: restricted
 * reads, the execute-only gate, deny-exec, writable files and the tool
 * policy, each confined by the native runner (exec'd) and run with
 * cordon_run. Every refusal sits beside a control that makes the same
 * attempt and succeeds: unconfined, or under the policy without the
 * feature. The commands print "NAME=EXIT" lines the tests read.
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

static char dir[64];
static char home[128];

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
	/* below /var/tmp: the sandbox's /tmp is its own */
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-toolgate.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	snprintf(home, sizeof(home), "%s/home", dir);
	cr_assert_eq(mkdir(home, 0755), 0);
	/* the read-deny catalogue resolves below this HOME */
	setenv("HOME", home, 1);
	unsetenv("TMPDIR");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(toolgate, .init = setup, .fini = teardown, .timeout = 60);

/* dir/REL, in storage that lives as long as the test. */
static const char *P(const char *rel)
{
	static char pool[64][256];
	static unsigned next;
	char *s;

	cr_assert(next < 64);
	s = pool[next++];
	snprintf(s, 256, "%s/%s", dir, rel);
	return s;
}

static void mkdirs(const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
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

static void copy_file(const char *from, const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", from, dir, rel);
	cr_assert_eq(system(cmd), 0);
}

static struct cordon_policy *ws_policy(const char *ws)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, ws, &p, &e), 0, "%s", e.message);
	return p;
}

static struct cordon_confined *confine(const struct cordon_policy *p, const char *script)
{
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	const char *argv[] = { "/bin/sh", "-c", script, "sh", dir, NULL };
	struct cordon_confined *c = NULL;
	struct cordon_error e = {};

	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
	return c;
}

/* Run script ($1 is dir) under p (NULL: unconfined, the control); the
 * captured output. */
static char *run(const struct cordon_policy *p, const char *script)
{
	struct cordon_run_opts o = { .timeout_ms = 30000 };
	struct cordon_confined *c;
	struct cordon_result *res = NULL;
	char *out;

	if (p)
		c = confine(p, script);
	else {
		const char *argv[] = { "/bin/sh", "-c", script, "sh", dir, NULL };
		struct cordon_policy *danger = NULL;

		cr_assert_eq(cordon_policy_new(CORDON_MODE_DANGER_FULL_ACCESS, NULL, &danger, NULL), 0);
		cr_assert_eq(cordon_confine_with(&(struct cordon_backend_info){ .backend = CORDON_BACKEND_UNAVAILABLE },
						 argv, danger, &c, NULL),
			     0);
		cordon_policy_free(danger);
	}
	cr_assert_eq(cordon_run(c, &o, &res), 0);
	cr_assert_neq(res->verdict, CORDON_VERDICT_RUNNER_FAILED, "runner failed: %s\n%s", res->runner_line,
		      res->output);
	out = strdup(res->output);
	cordon_result_free(res);
	cordon_confined_free(c);
	return out;
}

/* "NAME=CODE" in out, as the scripts print it. */
#define HAS(out, line) cr_assert(strstr((out), line "\n"), "expected '%s' in:\n%s", line, (out))

/* ---- restricted reads ---- */

#define READS "cat $1/granted/file >/dev/null 2>&1; echo granted=$?; " \
	      "cat $1/outside/secret >/dev/null 2>&1; echo outside=$?; " \
	      "cat /etc/passwd >/dev/null 2>&1; echo etc=$?; " \
	      "cat $1/home/plain >/dev/null 2>&1; echo home=$?; " \
	      "cat $1/home/.config/gh/hosts.yml >/dev/null 2>&1; echo gh=$?; " \
	      "cat $1/home/.ssh/id_test >/dev/null 2>&1; echo ssh=$?; " \
	      "cat $1/ws/in-ws >/dev/null 2>&1; echo ws=$?\n"

static void plant_reads(void)
{
	mkdirs("granted");
	mkdirs("outside");
	mkdirs("ws");
	mkdirs("home/.config/gh");
	mkdirs("home/.ssh");
	plant("granted/file", "g\n", 0644);
	plant("outside/secret", "s\n", 0644);
	plant("home/plain", "p\n", 0644);
	plant("home/.config/gh/hosts.yml", "token\n", 0644);
	plant("home/.ssh/id_test", "key\n", 0644);
	plant("ws/in-ws", "w\n", 0644);
}

Test(toolgate, restricted_reads_only_the_baseline_and_what_is_granted)
{
	struct cordon_policy *p;
	struct cordon_error e = {};
	char *out;

	plant_reads();
	/* control: unconfined, every file is readable */
	out = run(NULL, READS);
	HAS(out, "granted=0");
	HAS(out, "outside=0");
	HAS(out, "gh=0");
	HAS(out, "ssh=0");
	free(out);

	/* control: the default policy reads everything but the catalogue */
	p = ws_policy(P("ws"));
	out = run(p, READS);
	HAS(out, "outside=0");
	HAS(out, "home=0");
	HAS(out, "gh=1");
	HAS(out, "ssh=1");
	free(out);

	/* restricted: the baseline, the granted path, the writable workspace */
	cr_assert_eq(cordon_policy_restrict_read(p, P("granted"), &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_restrict_read(p, P("missing"), &e), 0, "a missing path is skipped: %s", e.message);
	out = run(p, READS);
	HAS(out, "granted=0");
	HAS(out, "outside=1");
	HAS(out, "etc=0");
	HAS(out, "home=1");
	HAS(out, "gh=1");
	HAS(out, "ssh=1");
	HAS(out, "ws=0");
	free(out);

	/* granting HOME lifts nothing below it; granting the store lifts it */
	cr_assert_eq(cordon_policy_restrict_read(p, home, &e), 0, "%s", e.message);
	out = run(p, READS);
	HAS(out, "home=0");
	HAS(out, "gh=1");
	HAS(out, "ssh=1");
	free(out);
	cr_assert_eq(cordon_policy_restrict_read(p, P("home/.config/gh"), &e), 0, "%s", e.message);
	out = run(p, READS);
	HAS(out, "gh=0");
	HAS(out, "ssh=1");
	free(out);
	cordon_policy_free(p);
}

/* An entry the caller named itself is never lifted: deny wins. */
Test(toolgate, an_explicit_deny_refuses_the_grant)
{
	struct cordon_policy *p;
	struct cordon_error e = {};

	plant_reads();
	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_deny_read(p, P("granted"), &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_restrict_read(p, P("granted/file"), &e), -EPERM);
	cr_assert(strstr(e.message, "deny always wins"), "%s", e.message);
	/* a catalogue entry named again by the caller is explicit too */
	cr_assert_eq(cordon_policy_deny_read(p, P("home/.ssh"), &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_restrict_read(p, P("home/.ssh/id_test"), &e), -EPERM);
	cordon_policy_free(p);
}

/* ---- the execute-only gate ---- */

#define GATE "cp /bin/true /tmp/t 2>/dev/null; /tmp/t; echo tmp=$?; " \
	     "cp /bin/true $1/ws/t; $1/ws/t; echo ws=$?; " \
	     "printf 'echo ran\\n' > /tmp/s; sh /tmp/s >/dev/null; echo sh-script=$?; " \
	     "chmod +x /tmp/s; /tmp/s; echo direct-script=$?; " \
	     "/bin/true; echo true=$?; " \
	     "/usr/bin/python3 -c 'import os,sys; fd=os.memfd_create(\"x\"); " \
	     "os.write(fd, open(\"/bin/true\",\"rb\").read()); os.execv(\"/proc/self/fd/%d\" % fd, [\"t\"])' " \
	     "2>/dev/null; echo memfd=$?; " \
	     "/usr/bin/python3 -c 'import os; os.memfd_create(\"y\", 8|1)'; echo memfd-sealed=$?; " \
	     "$(cat $1/loader) /tmp/t 2>/dev/null; echo loader=$?\n"

static void allow_system_exec(struct cordon_policy *p)
{
	struct cordon_error e = {};

	/* the programs, and the loader and libraries they name */
	cr_assert_eq(cordon_policy_allow_exec(p, "/usr/bin", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_allow_exec(p, "/usr/lib", &e), 0, "%s", e.message);
	if (access("/usr/lib64", F_OK) == 0)
		cr_assert_eq(cordon_policy_allow_exec(p, "/usr/lib64", &e), 0, "%s", e.message);
	if (access("/lib64", F_OK) == 0)
		cr_assert_eq(cordon_policy_allow_exec(p, "/lib64", &e), 0, "%s", e.message);
}

Test(toolgate, the_gate_executes_only_what_is_granted)
{
	struct cordon_policy *p;
	char *out;

	static const char *const loaders[] = { "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", NULL };
	const char *loader = NULL;

	live_skip_unless(access("/usr/bin/python3", X_OK) == 0, "no /usr/bin/python3 for the memfd attempt");
	for (size_t i = 0; loaders[i] && !loader; i++)
		if (access(loaders[i], X_OK) == 0)
			loader = loaders[i];
	live_skip_unless(loader, "no dynamic loader known here for the ld.so attempt");
	mkdirs("ws");
	plant("loader", loader, 0644);
	p = ws_policy(P("ws"));
	/* control: without the gate, what the sandbox writes runs, through
	 * the loader too */
	out = run(p, GATE);
	HAS(out, "tmp=0");
	HAS(out, "ws=0");
	HAS(out, "direct-script=0");
	HAS(out, "memfd=0");
	HAS(out, "loader=0");
	free(out);

	allow_system_exec(p);
	out = run(p, GATE);
	HAS(out, "true=0");
	HAS(out, "tmp=126");
	HAS(out, "ws=126");
	HAS(out, "sh-script=0");      /* read by an executable shell: allowed */
	HAS(out, "direct-script=126");
	cr_assert(!strstr(out, "memfd=0\n"), "a memfd copy ran under the gate:\n%s", out);
	/* not even a sealed one: it maps executable through /proc/self/fd */
	cr_assert(!strstr(out, "memfd-sealed=0\n"), "a tool made a memfd:\n%s", out);
	/* the loader cannot map what the sandbox wrote: its mounts are noexec */
	cr_assert(!strstr(out, "loader=0\n"), "the loader ran a copied binary under the gate:\n%s", out);
	free(out);
	cordon_policy_free(p);
}

/* The gate refuses the command itself when it is not granted. */
Test(toolgate, nothing_runs_when_nothing_is_granted)
{
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	const char *argv[] = { "/bin/true", NULL };
	struct cordon_run_opts o = { .timeout_ms = 30000 };
	struct cordon_policy *p;
	struct cordon_confined *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};

	mkdirs("ws");
	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_allow_exec(p, P("ws"), &e), 0, "%s", e.message);
	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_run(c, &o, &res), 0);
	cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%d: %s", res->exit_code, res->output);
	cr_assert(strstr(res->output, "EACCES"), "%s", res->output);
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* ---- deny-exec ---- */

#define DENIED "$1/bin/denied; echo denied=$?; $1/bin/other; echo other=$?; " \
	       "head -c 4 $1/bin/denied | od -c | grep -q E; echo read-denied=$?\n"

Test(toolgate, deny_exec_keeps_the_file_readable_and_unexecutable)
{
	struct cordon_policy *p;
	struct cordon_error e = {};
	char *out;

	mkdirs("bin");
	mkdirs("ws");
	copy_file("/bin/true", "bin/denied");
	copy_file("/bin/true", "bin/other");
	p = ws_policy(P("ws"));
	/* control: without the deny, both run */
	out = run(p, DENIED);
	HAS(out, "denied=0");
	HAS(out, "other=0");
	free(out);

	cr_assert_eq(cordon_policy_deny_exec(p, P("bin/denied"), &e), 0, "%s", e.message);
	out = run(p, DENIED);
	HAS(out, "denied=126");
	HAS(out, "other=0");
	HAS(out, "read-denied=0");
	free(out);
	cordon_policy_free(p);
}

/* The host replaces the denied file by rename during the run, and makes a
 * new one beside it: neither runs; a sibling that was there still does. */
Test(toolgate, deny_exec_survives_a_host_rename_and_new_names)
{
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	const char *script = "while [ ! -e $1/go ]; do sleep 0.02; done; "
			     "$1/bin/denied; echo denied=$?; $1/bin/later; echo later=$?; "
			     "$1/bin/other; echo other=$?";
	const char *argv[] = { "/bin/sh", "-c", script, "sh", dir, NULL };
	struct cordon_run_opts o = { .timeout_ms = 30000 };
	struct cordon_policy *p;
	struct cordon_confined *c = NULL;
	struct cordon_child *child = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};

	mkdirs("bin");
	mkdirs("ws");
	copy_file("/bin/true", "bin/denied");
	copy_file("/bin/true", "bin/other");
	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_deny_exec(p, P("bin/denied"), &e), 0, "%s", e.message);
	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_spawn_confined(c, &o, NULL, &child, &e), 0, "%s", e.message);
	/* give the runner time to apply Landlock before the host acts */
	usleep(500 * 1000);
	copy_file("/bin/true", "bin/new");
	cr_assert_eq(rename(P("bin/new"), P("bin/denied")), 0);
	copy_file("/bin/true", "bin/later");
	plant("go", "", 0644);
	cr_assert_eq(cordon_wait(child, &res), 0);
	HAS(res->output, "denied=126");
	HAS(res->output, "later=126");
	HAS(res->output, "other=0");
	/* control: the same files, from outside, run */
	cr_assert_eq(system(P("bin/denied")), 0);
	cr_assert_eq(system(P("bin/later")), 0);
	cordon_result_free(res);
	cordon_child_free(child);
	cordon_confined_free(c);
	cordon_policy_free(p);
}

/* A system binary, as the session sandbox will deny it. */
Test(toolgate, deny_exec_of_a_system_binary)
{
	struct cordon_policy *p;
	struct cordon_error e = {};
	char *out;

	live_skip_unless(access("/usr/bin/git", X_OK) == 0, "no /usr/bin/git");
	mkdirs("ws");
	p = ws_policy(P("ws"));
	out = run(p, "git --version >/dev/null; echo git=$?\n");
	HAS(out, "git=0");
	free(out);
	cr_assert_eq(cordon_policy_deny_exec(p, "/usr/bin/git", &e), 0, "%s", e.message);
	out = run(p, "git --version >/dev/null 2>&1; echo git=$?; /bin/true; echo true=$?; "
		     "cat /usr/bin/git >/dev/null; echo read=$?\n");
	HAS(out, "git=126");
	HAS(out, "true=0");
	HAS(out, "read=0");
	free(out);
	cordon_policy_free(p);
}

/* Light isolation has no unix-socket gate, bwrap no Landlock of its own:
 * both refuse rather than run without what the policy asks. */
Test(toolgate, light_and_bwrap_refuse)
{
	struct cordon_backend_info bwrap = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL,
					     .path = "/usr/bin/bwrap" };
	struct cordon_backend_info native = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	const char *argv[] = { "/bin/true", NULL };
	struct cordon_confined *c = NULL;
	struct cordon_policy *p;
	struct cordon_error e = {};

	mkdirs("ws");
	snprintf(native.path, sizeof(native.path), "%s", cordon_runner_path());
	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_deny_exec(p, "/bin/true", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_set_isolation(p, CORDON_ISOLATION_LIGHT), 0);
	cr_assert_eq(cordon_confine_with(&native, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, "need full isolation"), "%s", e.message);
	cr_assert_eq(cordon_policy_set_isolation(p, CORDON_ISOLATION_FULL), 0);
	cr_assert_eq(cordon_confine_with(&bwrap, argv, p, &c, &e), -EOPNOTSUPP);
	cr_assert(strstr(e.message, "deny-exec needs the native runner"), "%s", e.message);
	cordon_policy_free(p);

	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_allow_exec(p, "/usr", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_set_isolation(p, CORDON_ISOLATION_LIGHT), 0);
	cr_assert_eq(cordon_confine_with(&native, argv, p, &c, &e), -EOPNOTSUPP);
	cordon_policy_free(p);
}

/* ---- writable files ---- */

#define WFILE "echo more >> $1/wf/file; echo append=$?; : > $1/wf/file; echo truncate=$?; " \
	      "echo x >> $1/wf/file; echo rewrite=$?; " \
	      "echo x > $1/wf/beside 2>/dev/null; echo beside=$?; echo y >> $1/wf/other 2>/dev/null; echo other=$?; " \
	      "mv $1/wf/file $1/wf/moved 2>/dev/null; echo rename=$?; rm -f $1/wf/file 2>/dev/null; echo remove=$?\n"

Test(toolgate, a_writable_file_is_written_in_place_and_alone)
{
	struct cordon_policy *p;
	struct cordon_error e = {};
	char *out;
	FILE *f;
	char buf[64] = "";

	mkdirs("wf");
	mkdirs("ws");
	plant("wf/file", "orig\n", 0644);
	plant("wf/other", "other\n", 0644);
	p = ws_policy(P("ws"));
	/* control: without the grant, nothing there is writable */
	out = run(p, WFILE);
	HAS(out, "append=2");
	free(out);
	cr_assert_eq(cordon_policy_add_writable(p, P("wf/file"), &e), 0, "%s", e.message);
	out = run(p, WFILE);
	HAS(out, "append=0");
	HAS(out, "truncate=0");
	HAS(out, "rewrite=0");
	HAS(out, "beside=2");
	HAS(out, "other=2");
	HAS(out, "rename=1");
	HAS(out, "remove=1");
	free(out);
	f = fopen(P("wf/file"), "re");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_str_eq(buf, "x\n", "the host sees what was written");
	cr_assert_neq(access(P("wf/beside"), F_OK), 0);
	/* control: the same attempts from outside succeed */
	plant("wf/beside", "x\n", 0644);
	cr_assert_eq(rename(P("wf/file"), P("wf/moved")), 0);
	cr_assert_eq(unlink(P("wf/moved")), 0);
	cordon_policy_free(p);

	/* not a device, socket or fifo; and a file is never a workspace */
	p = ws_policy(P("ws"));
	cr_assert_eq(cordon_policy_add_writable(p, "/dev/null", &e), -EINVAL);
	cordon_policy_free(p);
	p = NULL;
	cr_assert_eq(cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, P("wf/other"), &p, &e), -ENOTDIR);
	cr_assert(strstr(e.message, "not a directory"), "%s", e.message);
	cr_assert_eq(cordon_policy_new_tool(P("wf/other"), &p, &e), -ENOTDIR);
}

/* ---- the tool policy ---- */

#define TOOL "echo w > $1/ws/new 2>/dev/null; echo ws-write=$?; echo t > /tmp/t; echo tmp-write=$?; " \
	     "cat $1/ws/in-ws >/dev/null 2>&1; echo ws-read=$?; cat /etc/passwd >/dev/null; echo etc=$?; " \
	     "cat $1/home/.config/gh/hosts.yml >/dev/null 2>&1; echo gh=$?; " \
	     "echo tok >> $1/home/.config/gh/hosts.yml 2>/dev/null; echo gh-write=$?; " \
	     "cp /bin/true /tmp/x; /tmp/x; echo tmp-exec=$?; " \
	     "echo x > $1/ws/.git/hooks/pre-commit 2>/dev/null; echo hook=$?\n"

Test(toolgate, the_tool_policy_starts_with_nothing)
{
	struct cordon_policy *p = NULL;
	struct cordon_error e = {};
	char *out;

	plant_reads();
	cr_assert_eq(cordon_policy_new_tool(P("ws"), &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_mode(p), CORDON_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cordon_policy_workspace(p), P("ws"));
	/* /tmp alone is writable */
	cr_assert_str_eq(cordon_writable_roots(p)[0], "/tmp");
	cr_assert_null(cordon_writable_roots(p)[1]);

	/* nothing executable: not even the shell */
	{
		const char *argv[] = { "/bin/sh", "-c", "true", NULL };
		struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
		struct cordon_run_opts o = { .timeout_ms = 30000 };
		struct cordon_confined *c = NULL;
		struct cordon_result *res = NULL;

		snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
		cr_assert_eq(cordon_confine_with(&info, argv, p, &c, &e), 0, "%s", e.message);
		cr_assert_eq(cordon_run(c, &o, &res), 0);
		cr_assert_eq(res->exit_code, CORDON_EXIT_CANNOT_EXECUTE, "%s", res->output);
		cordon_result_free(res);
		cordon_confined_free(c);
	}
	allow_system_exec(p);
	out = run(p, TOOL);
	HAS(out, "ws-write=2");
	HAS(out, "tmp-write=0");
	HAS(out, "ws-read=1");
	HAS(out, "etc=0");
	HAS(out, "gh=1");
	HAS(out, "tmp-exec=126");
	free(out);

	/* granted: the workspace writable (the write gate still keeps
	 * .git/hooks), the store writable, its read-deny lifted */
	mkdirs("ws/.git/hooks");
	cr_assert_eq(cordon_policy_add_writable(p, P("ws"), &e), 0, "%s", e.message);
	cr_assert_eq(cordon_policy_add_writable(p, P("home/.config/gh/hosts.yml"), &e), 0, "%s", e.message);
	out = run(p, TOOL);
	HAS(out, "ws-write=0");
	HAS(out, "ws-read=0");
	HAS(out, "gh=0");
	HAS(out, "gh-write=0");
	HAS(out, "hook=2");
	HAS(out, "tmp-exec=126");
	free(out);
	/* control: the hook is writable from outside */
	plant("ws/.git/hooks/pre-commit", "x\n", 0755);
	cordon_policy_free(p);
}
