/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Warm launches through cordon.h only (cordon_session_*): a command in a
 * session is denied what the same launch's cordon_spawn is denied, with
 * the same verdict and exit; the session's commands share its private
 * /tmp; a request cannot set cordon's variables, exceed the launch's
 * bounds or start in a directory the sandbox does not show; state the host
 * changed under the instance refuses the next spawn.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"

static char dir[64], outside[64], hosttmp[64];

static void setup(void)
{
	const char *cordon = getenv("CORDON");

	cr_assert_not_null(cordon, "CORDON must name the built binary");
	cr_assert_eq(cordon_set_runner_path(cordon), 0);
	snprintf(dir, sizeof(dir), "/var/tmp/cordon-sess.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(outside, sizeof(outside), "/var/tmp/cordon-sess-out.XXXXXX");
	cr_assert_not_null(mkdtemp(outside));
	chmod(outside, 0755);
	/* the host's /tmp: the sandbox has a private one in its place */
	snprintf(hosttmp, sizeof(hosttmp), "/tmp/cordon-sess-host.XXXXXX");
	cr_assert_not_null(mkdtemp(hosttmp));
	chmod(hosttmp, 0755);
	unsetenv("TMPDIR");
	cr_assert_eq(chdir(dir), 0);
}

static void teardown(void)
{
	char cmd[256];

	(void)!chdir("/");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", dir, outside, hosttmp);
	(void)!system(cmd);
}

TestSuite(session, .init = setup, .fini = teardown);

static void skip_unless_native(void)
{
	struct cordon_probe_report rep = {};

	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_NATIVE, 5000, &rep), 0);
	live_skip_unless(rep.usable, "the native runner cannot run here: %s", rep.reason);
}

static char denied_dir[128], secret[128];

static struct cordon_launch *launch(int timeout_ms, uint64_t max_output)
{
	static const char *keep[] = { "FOO", NULL };
	static const char *set[] = { "POLICYVAR=policy", NULL };
	static const char *deny_exec[2], *deny_read[2];
	struct cordon_launch_opts o = CORDON_LAUNCH_OPTS_INIT;
	struct cordon_launch *l = NULL;
	struct cordon_error e = {};

	/* a directory with one binary deny_exec names and one it does not;
	 * a file deny_read names */
	snprintf(denied_dir, sizeof(denied_dir), "%s/bin", outside);
	(void)mkdir(denied_dir, 0755);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp /bin/echo '%s/no-echo' && cp /bin/echo '%s/echo' && echo s3cret > '%s/secret'",
		 denied_dir, denied_dir, outside);
	cr_assert_eq(system(cmd), 0);
	static char denied_bin[160];
	snprintf(denied_bin, sizeof(denied_bin), "%.128s/no-echo", denied_dir);
	snprintf(secret, sizeof(secret), "%s/secret", outside);
	deny_exec[0] = denied_bin;
	deny_read[0] = secret;
	o.workspace = dir;
	o.backend_set = true;
	o.backend = CORDON_BACKEND_NATIVE;
	o.keep_env = keep;
	o.set_env = set;
	o.deny_exec = deny_exec;
	o.deny_read = deny_read;
	o.timeout_ms = timeout_ms;
	o.max_output = max_output;
	cr_assert_eq(cordon_launch_new(NULL, &o, &l, &e), 0, "%s", e.message);
	return l;
}

static struct cordon_session *open_session(const struct cordon_launch *l)
{
	struct cordon_session *s = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_session_open(l, &s, &e), 0, "%s", e.message);
	return s;
}

static struct cordon_result *in_session(struct cordon_session *s, const char *script,
					const struct cordon_session_cmd_opts *o)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct cordon_result *res = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_session_run(s, argv, o, &res, &e), 0, "%s: %s", script, e.message);
	return res;
}

static struct cordon_result *cold(const struct cordon_launch *l, const char *script)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct cordon_child *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_error e = {};

	cr_assert_eq(cordon_spawn(l, argv, NULL, NULL, &c, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_wait(c, &res), 0);
	cordon_child_free(c);
	return res;
}

Test(session, a_denial_is_cordon_runs, .timeout = 120)
{
	struct cordon_launch *l;
	struct cordon_session *s;
	char scripts[5][512];
	bool want_denied[5] = { true, true, true, false, false };

	skip_unless_native();
	l = launch(0, 0);
	s = open_session(l);
	/* write outside the workspace; read a deny_read file; exec the
	 * deny_exec'd binary; controls: write in the workspace, exec the
	 * binary beside the denied one */
	snprintf(scripts[0], sizeof(scripts[0]), "echo x > '%s/written'", outside);
	snprintf(scripts[1], sizeof(scripts[1]), "cat '%s'", secret);
	snprintf(scripts[2], sizeof(scripts[2]), "'%s/no-echo' ran", denied_dir);
	snprintf(scripts[3], sizeof(scripts[3]), "echo y > '%s/written' && cat '%s/written'", dir, dir);
	snprintf(scripts[4], sizeof(scripts[4]), "'%s/echo' ran", denied_dir);
	for (int i = 0; i < 5; i++) {
		struct cordon_result *w = in_session(s, scripts[i], NULL), *c = cold(l, scripts[i]);

		cr_assert_eq(w->verdict, c->verdict, "%s: session %s, cordon_spawn %s (%s | %s)", scripts[i],
			     cordon_verdict_to_string(w->verdict), cordon_verdict_to_string(c->verdict), w->output,
			     c->output);
		cr_assert_eq(w->exit_code, c->exit_code, "%s: session exit %d, cordon_spawn exit %d", scripts[i],
			     w->exit_code, c->exit_code);
		cr_assert_eq(w->verdict == CORDON_VERDICT_DENIED, want_denied[i], "%s: %s: %s", scripts[i],
			     cordon_verdict_to_string(w->verdict), w->output);
		cr_assert_eq(w->enforcement, CORDON_ENFORCEMENT_NATIVE);
		cr_assert_not_null(w->annotated);
		cr_assert_null(strstr(w->output, "s3cret"));
		cordon_result_free(w);
		cordon_result_free(c);
	}
	char f[160];
	snprintf(f, sizeof(f), "%s/written", outside);
	cr_assert_neq(access(f, F_OK), 0, "a command wrote outside its workspace");
	cordon_session_close(s);
	cordon_launch_free(l);
}

Test(session, commands_share_the_private_tmp, .timeout = 60)
{
	struct cordon_launch *l;
	struct cordon_session *s, *s2;
	struct cordon_result *r;
	char f[128];

	skip_unless_native();
	l = launch(0, 0);
	s = open_session(l);
	r = in_session(s, "echo shared > /tmp/cordon-session-marker && echo done", NULL);
	cr_assert_eq(r->exit_code, 0, "%s", r->output);
	cordon_result_free(r);
	r = in_session(s, "cat /tmp/cordon-session-marker", NULL);
	cr_assert_str_eq(r->output, "shared\n", "the second command sees the first's /tmp: %s", r->output);
	cordon_result_free(r);
	/* private: the host's /tmp has no such file, nor has another session */
	snprintf(f, sizeof(f), "/tmp/cordon-session-marker");
	cr_assert_neq(access(f, F_OK), 0, "the session's /tmp is the host's");
	s2 = open_session(l);
	r = in_session(s2, "cat /tmp/cordon-session-marker", NULL);
	cr_assert_neq(r->exit_code, 0, "another session sees this one's /tmp: %s", r->output);
	cordon_result_free(r);
	cordon_session_close(s2);
	cordon_session_close(s);
	cordon_launch_free(l);
}

static void env_refused(struct cordon_session *s, const char *entry)
{
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	const char *env[] = { entry, NULL };
	const char *argv[] = { "/bin/sh", "-c", "echo RAN; env", NULL };
	struct cordon_result *res = NULL;
	struct cordon_error e = {};
	int r;

	o.env = env;
	r = cordon_session_run(s, argv, &o, &res, &e);
	cr_assert_eq(r, -EPERM, "%s: %d %s", entry, r, res ? res->output : "");
	cr_assert_not_null(strstr(e.message, "may not be set"), "%s: %s", entry, e.message);
	cr_assert_null(res);
}

Test(session, env_cannot_override_cordons_own, .timeout = 60)
{
	struct cordon_launch *l;
	struct cordon_session *s;
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	struct cordon_result *r;

	skip_unless_native();
	l = launch(0, 0);
	s = open_session(l);
	env_refused(s, "CORDON_SANDBOX=0");
	env_refused(s, "CORDON_ANYTHING=1");
	env_refused(s, "HTTPS_PROXY=http://127.0.0.1:1");
	env_refused(s, "NODE_USE_ENV_PROXY=0");
	env_refused(s, "Http_Proxy=http://127.0.0.1:1");
	env_refused(s, "LD_PRELOAD=/tmp/x.so");
	env_refused(s, "POLICYVAR=mine");
	/* control: a name the policy lets through is set */
	const char *env[] = { "FOO=bar", NULL };
	o.env = env;
	r = in_session(s, "echo \"$FOO $CORDON_SANDBOX $POLICYVAR\"", &o);
	cr_assert_eq(r->exit_code, 0);
	cr_assert_str_eq(r->output, "bar 1 policy\n", "%s", r->output);
	cordon_result_free(r);
	cordon_session_close(s);
	cordon_launch_free(l);
}

Test(session, cwd_outside_the_grants_is_refused, .timeout = 60)
{
	struct cordon_launch *l;
	struct cordon_session *s;
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	struct cordon_result *r;
	struct cordon_error e = {};
	const char *argv[] = { "/bin/sh", "-c", "touch ran; pwd", NULL };
	char ran[128], sub[128];

	skip_unless_native();
	l = launch(0, 0);
	s = open_session(l);
	/* the host's /tmp is not the sandbox's: refused by identity, not run */
	o.cwd = hosttmp;
	r = in_session(s, "touch ran; pwd", &o);
	cr_assert_eq(r->verdict, CORDON_VERDICT_RUNNER_FAILED, "%s: %s", cordon_verdict_to_string(r->verdict),
		     r->output);
	cr_assert_not_null(strstr(r->runner_line, "chdir"), "%s", r->runner_line);
	cordon_result_free(r);
	snprintf(ran, sizeof(ran), "%s/ran", hosttmp);
	cr_assert_neq(access(ran, F_OK), 0);
	/* a relative path, and one that does not exist: refused at the spawn */
	o.cwd = "relative";
	cr_assert_eq(cordon_session_run(s, argv, &o, &r, &e), -EINVAL);
	snprintf(sub, sizeof(sub), "%s/missing", dir);
	o.cwd = sub;
	cr_assert_eq(cordon_session_run(s, argv, &o, &r, &e), -ENOENT);
	/* control: the workspace */
	o.cwd = dir;
	r = in_session(s, "touch ran; pwd", &o);
	cr_assert_eq(r->exit_code, 0, "%s", r->output);
	cr_assert_eq(strncmp(r->output, dir, strlen(dir)), 0, "%s", r->output);
	cordon_result_free(r);
	cordon_session_close(s);
	cordon_launch_free(l);
}

Test(session, requests_are_bounded_by_the_launch, .timeout = 60)
{
	struct cordon_launch *l;
	struct cordon_session *s;
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	struct cordon_result *r = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "/bin/true", NULL };

	skip_unless_native();
	l = launch(2000, 4096);
	s = open_session(l);
	o.timeout_ms = 2001;
	cr_assert_eq(cordon_session_run(s, argv, &o, &r, &e), -EPERM);
	cr_assert_not_null(strstr(e.message, "timeout"), "%s", e.message);
	o.timeout_ms = 0;
	o.max_output = 4097;
	cr_assert_eq(cordon_session_run(s, argv, &o, &r, &e), -EPERM);
	cr_assert_not_null(strstr(e.message, "max_output"), "%s", e.message);
	/* the launch's own bounds apply: its timeout ends a sleeper, its cap
	 * cuts the output */
	o.max_output = 0;
	r = in_session(s, "sleep 30 & sleep 30", &o);
	cr_assert_eq(r->verdict, CORDON_VERDICT_TIMEOUT, "%s", cordon_verdict_to_string(r->verdict));
	cr_assert_lt(r->duration_ms, 10000);
	cordon_result_free(r);
	r = in_session(s, "head -c 10000 /dev/zero", &o);
	cr_assert_eq(r->output_len, 4096);
	cr_assert_eq(r->output_total, 10000);
	cr_assert(r->truncated);
	cordon_result_free(r);
	/* control: a smaller timeout of the request's own */
	o.timeout_ms = 300;
	r = in_session(s, "sleep 30", &o);
	cr_assert_eq(r->verdict, CORDON_VERDICT_TIMEOUT);
	cr_assert_lt(r->duration_ms, 1900);
	cordon_result_free(r);
	cordon_session_close(s);
	cordon_launch_free(l);
}

Test(session, a_replaced_binary_directory_refuses_the_next_spawn, .timeout = 60)
{
	struct cordon_launch *l;
	struct cordon_session *s;
	struct cordon_result *r = NULL;
	struct cordon_error e = {};
	const char *argv[] = { "/bin/true", NULL };
	char cmd[512];

	skip_unless_native();
	l = launch(0, 0);
	s = open_session(l);
	/* control: unchanged, it runs */
	cr_assert_eq(cordon_session_run(s, argv, NULL, &r, &e), 0, "%s", e.message);
	cordon_result_free(r);
	/* an upgrade replaces the binary beside the denied one (a new inode
	 * the session's rules never named) */
	snprintf(cmd, sizeof(cmd), "cp /bin/echo '%s/echo.new' && mv '%s/echo.new' '%s/echo'", denied_dir, denied_dir,
		 denied_dir);
	cr_assert_eq(system(cmd), 0);
	r = NULL;
	cr_assert_eq(cordon_session_run(s, argv, NULL, &r, &e), -ESTALE);
	cr_assert_not_null(strstr(e.message, denied_dir), "%s", e.message);
	cr_assert_null(r);
	cordon_session_close(s);
	/* a new session runs it */
	s = open_session(l);
	snprintf(cmd, sizeof(cmd), "'%s/echo' ran", denied_dir);
	r = in_session(s, cmd, NULL);
	cr_assert_eq(r->exit_code, 0, "%s", r->output);
	cordon_result_free(r);
	cordon_session_close(s);
	cordon_launch_free(l);
}

/* The processes limit, in a pids cgroup of each command's own: a command
 * that starts more than it may is refused forks and reported, as
 * cordon_spawn's is; one under it runs; the next command has its own
 * count again. */
Test(session, each_command_has_its_own_pids_cgroup, .timeout = 60)
{
	struct cordon_launch_opts o = CORDON_LAUNCH_OPTS_INIT;
	struct cordon_launch *l = NULL;
	struct cordon_session *s = NULL;
	struct cordon_result *r, *cr;
	struct cordon_error e = {};
	const char *many = "i=0; while [ $i -lt 24 ]; do sleep 3 & i=$((i+1)); done; wait";
	const char *few = "sleep 1 & sleep 1 & wait; echo fine";

	skip_unless_native();
	o.workspace = dir;
	o.backend_set = true;
	o.backend = CORDON_BACKEND_NATIVE;
	o.limits.processes = 8;
	if (cordon_launch_new(NULL, &o, &l, &e) < 0) {
		/* no pids cgroup for this user: the launch refuses it, for a
		 * session as for cordon_run, never runs unbounded */
		cr_assert_not_null(strstr(e.message, "pids cgroup"), "%s", e.message);
		cr_log_info("no pids cgroup here: the launch refuses the limit");
		return;
	}
	cr_assert_eq(cordon_session_open(l, &s, &e), 0, "%s", e.message);
	/* twice: the count is the command's, not the session's */
	for (int round = 0; round < 2; round++) {
		r = in_session(s, few, NULL);
		cr_assert_eq(r->exit_code, 0, "%s", r->output);
		cr_assert_eq(r->limit, CORDON_LIMIT_NONE, "%s", cordon_limit_to_string(r->limit));
		cordon_result_free(r);
		r = in_session(s, many, NULL);
		cr_assert_eq(r->limit, CORDON_LIMIT_PROCESSES, "%s: %s", cordon_limit_to_string(r->limit), r->output);
		cr_assert_eq(r->limit_mechanism, cordon_launch_limits_plan(l)->mechanism[CORDON_LIMIT_PROCESSES]);
		cr_assert_neq(r->limit_mechanism, CORDON_MECHANISM_RLIMIT);
		cordon_result_free(r);
	}
	/* as cordon_spawn reports the same command */
	cr = cold(l, many);
	cr_assert_eq(cr->limit, CORDON_LIMIT_PROCESSES, "%s", cordon_limit_to_string(cr->limit));
	cordon_result_free(cr);
	cordon_session_close(s);
	cordon_launch_free(l);
}

/* What the instance cannot carry: the bwrap backend (no server). */
Test(session, what_it_cannot_enforce_is_refused, .timeout = 60)
{
	struct cordon_launch_opts o = CORDON_LAUNCH_OPTS_INIT;
	struct cordon_launch *l = NULL;
	struct cordon_session *s = NULL;
	struct cordon_error e = {};
	int r;

	o.workspace = dir;
	o.backend_set = true;
	o.backend = CORDON_BACKEND_BWRAP;
	r = cordon_launch_new(NULL, &o, &l, &e);
	live_skip_unless(r == 0, "no bwrap launch here: %s", e.message);
	r = cordon_session_open(l, &s, &e);
	cr_assert_eq(r, -EOPNOTSUPP, "%d", r);
	cr_assert_not_null(strstr(e.message, "native runner"), "%s", e.message);
	cr_assert_null(s);
	cordon_launch_free(l);
}
