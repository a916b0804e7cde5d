/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon run`: confine, check the limits, run, and report how it ended:
 * in words on stderr, or as one JSON object on stdout (--json).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cordon/runner.h"

#define say cli_say

/* Without a runner (danger-full-access) the command itself is what could
 * not be started: exit as a shell would. */
int cli_exec_failure_code(const struct cordon_confined *c, int r)
{
	if (c->enforcement != CORDON_ENFORCEMENT_NONE)
		return CLI_EXIT_REFUSED;
	switch (-r) {
	case ENOENT:
		return CORDON_EXIT_NOT_FOUND;
	case EACCES:
	case EPERM:
	case ENOEXEC:
	case EISDIR:
	case ENOTDIR:
	case ELOOP:
	case ETXTBSY:
		return CORDON_EXIT_CANNOT_EXECUTE;
	default:
		return CLI_EXIT_REFUSED;
	}
}

static void cli_session_freep(struct cli_session **s)
{
	if (*s)
		cli_supervisor()->session->session_free(*s);
}

/* What cli_run holds lives until exit (CLI_FREE_BEFORE_EXIT says why). */
#define RUN_DROP(name, type, freep)             \
	static void name(type **p)              \
	{                                       \
		if (CLI_FREE_BEFORE_EXIT)       \
			freep(p);               \
	}
RUN_DROP(run_profile_drop, struct cordon_profile_handle, cordon_profile_freep)
RUN_DROP(run_launch_drop, struct cordon_launch, cordon_launch_freep)
RUN_DROP(run_confined_drop, struct cordon_confined, cordon_confined_freep)
RUN_DROP(run_result_drop, struct cordon_result, cordon_result_freep)

static int exit_status_of(const struct cordon_result *res)
{
	if (res->verdict == CORDON_VERDICT_TIMEOUT)
		return CORDON_EXIT_TIMEOUT;
	if (res->signal)
		return 128 + res->signal;
	return res->exit_code;
}

/* The one interactive line saying which limit ended the command. */
static void say_limit(const struct cli_args *a, const struct cordon_result *res)
{
	const char *how = cordon_limit_mechanism_to_string(res->limit_mechanism);

	switch (res->limit) {
	case CORDON_LIMIT_CPU:
		say("CPU limit of %" PRIu64 " s reached (%s); the process was killed", a->limits.cpu_seconds, how);
		break;
	case CORDON_LIMIT_MEMORY:
		say("memory limit of %" PRIu64 " bytes reached (%s)%s", a->limits.memory, how,
		    res->signal == SIGKILL ? "; the command was killed" : "");
		break;
	case CORDON_LIMIT_PROCESSES:
		say("process limit of %" PRIu64 " reached (%s); forks beyond it were refused", a->limits.processes, how);
		break;
	case CORDON_LIMIT_FILE_SIZE:
		say("file size limit of %" PRIu64 " bytes reached (%s); writes beyond it failed with EFBIG",
		    a->limits.file_size, how);
		break;
	case CORDON_LIMIT_OPEN_FILES:
		say("open files limit of %" PRIu64 " reached (%s)", a->limits.open_files, how);
		break;
	case CORDON_LIMIT_OUTPUT:
		say("output limit of %" PRIu64 " bytes reached; the command and everything it started were killed",
		    a->max_output);
		break;
	case CORDON_LIMIT_TIMEOUT:
	case CORDON_LIMIT_NONE:
	case _CORDON_LIMIT_MAX:
		break;
	}
}

/* The signal that asked cordon run to stop; cordon_run polls it. */
static volatile sig_atomic_t run_stop_signal;

static void on_stop_signal(int sig)
{
	run_stop_signal = sig;
}

int cli_run(const struct cli_args *a)
{
	_cleanup_(run_confined_drop) struct cordon_confined *c = NULL;
	_cleanup_(run_result_drop) struct cordon_result *res = NULL;
	struct cordon_backend_info info;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit, old_term, old_hup;
	struct sigaction stop = { .sa_handler = on_stop_signal }; /* no SA_RESTART: poll wakes */
	_cleanup_(run_profile_drop) struct cordon_profile_handle *prof = NULL;
	_cleanup_(run_launch_drop) struct cordon_launch *launch = NULL;
	struct cli_args eff = *a;
	_cleanup_(cli_session_freep) struct cli_session *session = NULL;
	const char *kind;
	int r;

	if (a->json_schema)
		return cli_print_result_schema();
	/* an unsigned pack for this run (issue 24): said on every run */
	if (a->insecure_local) {
		const struct cli_supervisor_ops *ops = cli_supervisor();
		char name[140];

		if (!ops || !ops->pack_insecure_local) {
			(void)cli_exec_supervisor("--insecure-local");
			return cli_refuse(a, "spawn", CLI_EXIT_REFUSED);
		}
		if (ops->pack_insecure_local(a->insecure_local, name, sizeof(name)) < 0)
			return cli_refuse(a, "profile", CLI_EXIT_REFUSED);
		cli_say("WARNING: --insecure-local: the pack %s is read UNSIGNED and UNVERIFIED from %s, for this run only",
			name, a->insecure_local);
	}
	r = cli_load_profile(a, &prof);
	if (r < 0)
		return cli_refuse(a, "profile", CLI_EXIT_REFUSED);
	/* command_policies: the tool sandbox's supervisor runs the session */
	if (cordon_profile_tools(prof)) {
		const struct cli_supervisor_ops *ops = cli_supervisor();

		if (!ops || !ops->session) {
			(void)cli_exec_supervisor("a profile with command_policies");
			return cli_refuse(a, "spawn", CLI_EXIT_REFUSED);
		}
		if (ops->session->session_new(a, &session) < 0)
			return cli_refuse(a, "profile", CLI_EXIT_REFUSED);
		eff.session = session;
	}

	/* one road: the profile and the flags into a launch (policy, backend,
	 * the merged limits, checked once), in the library */
	r = cli_launch(&eff, prof, false, &launch, &kind);
	if (r < 0)
		return cli_refuse(a, kind, CLI_EXIT_REFUSED);
	/* from here on, a has the launch's merged limits */
	cli_args_from_launch(&eff, launch, &eff);
	a = &eff;
	info = *cordon_launch_backend(launch);
	r = cli_confine_launch(launch, a, &c, &kind);
	if (r < 0)
		return cli_refuse(a, kind, CLI_EXIT_REFUSED);
	/* a weaker mechanism for a limit is used only with a word about it */
	if (cordon_launch_limits_plan(launch)->warning[0])
		say("warning: %s", cordon_launch_limits_plan(launch)->warning);

	/* Orphans the command leaves behind come back to us, and we end them.
	 * Not under the native runner's full isolation: there the command's
	 * orphans stay in its pid namespace, whose init ends every one of them
	 * before the runner reports the end, and the runner then leaves init
	 * to finish its own exit (the namespaces' teardown) unawaited; taken
	 * in here it would only cost a walk of /proc after the run. (A tool
	 * session keeps it: its supervisor has children of its own.) */
	if (session || info.backend != CORDON_BACKEND_NATIVE ||
	    cordon_policy_isolation(cordon_launch_policy(launch)) != CORDON_ISOLATION_FULL)
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* Like system(3): ^C belongs to the command; we report how it ended.
	 * In --json mode ^C, like SIGTERM and SIGHUP in both modes, stops
	 * the run: the whole tree is killed, then we exit 128+sig. (SIGKILL
	 * of cordon: the children's parent-death signals end the tree.) */
	sigfillset(&stop.sa_mask);
	if (!a->json) {
		sigaction(SIGINT, &ign, &old_int);
		sigaction(SIGQUIT, &ign, &old_quit);
	} else
		sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	sigaction(SIGHUP, &stop, &old_hup);
	fflush(stdout);
	fflush(stderr);

	struct cordon_run_opts o = {
		.size = sizeof(o),
		.passthrough = !a->json,
		/* we are single-threaded and link the runner: enter it in the
		 * child instead of exec'ing ourselves again (in the forked
		 * child: one thread, no count of them) */
		.runner_main = cordon_exec_forked_main,
		.passthrough_max_output = !a->json && a->max_output_set ? a->max_output : 0,
		.stop = &run_stop_signal,
		/* the command's input is ours, captured or not */
		.capture_stdin = a->json,
		.separate_stderr = a->separate_stderr,
		/* on a terminal, the command gets one of its own (a pty the
		 * runner relays; our terminal is put back after the run) */
		.terminal = !a->json,
		/* we exit right after: the runner's own exit is not awaited
		 * (not in a tool session: its supervisor has children of its
		 * own, and more to do) */
		.return_at_end = !session,
	};
	/* the launch's timeout, output cap and limits */
	cordon_launch_run_opts(launch, &o);
	r = session ? cli_supervisor()->session->session_run(session, c, &o, &res) : cordon_run(c, &o, &res);
	/* Whatever is left below us goes. When init said the sandbox was
	 * empty, only the runner is (and its init), both finishing their exit
	 * (no subreaper there: orphans stayed in init's pid namespace). */
	if (r < 0 || !res || !res->runner_left)
		cordon_kill_descendants(getpid());
	sigaction(SIGINT, &old_int, NULL);
	if (!a->json)
		sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (run_stop_signal) {
		int sig = run_stop_signal;

		say("stopped by SIG%s: the command and everything it started were killed", sigabbrev_np(sig) ?: "?");
		if (!a->json || r < 0)
			return cli_refuse(a, "stopped", 128 + sig);
		_cleanup_(json_decrefp) json_t *obj = cli_result_json(a, res, &info, sig);
		(void)cli_print_json(obj);
		return 128 + sig;
	}
	if (r < 0) {
		say("cannot run %s: %s", c->argv[0], strerror(-r));
		return cli_refuse(a, "spawn", cli_exec_failure_code(c, r));
	}

	/* the tool sandbox's audit log, its end signed: the second place a
	 * cut log is caught is what the person (or the agent's caller) keeps */
	_cleanup_(json_decrefp) json_t *audit = session ? cli_supervisor()->session->session_audit(session) : NULL;

	if (session && !a->json) {
		if (audit)
			fprintf(stderr,
				"[cordon: audit: session %s ended with %lld records, signed head %s; check it with: cordon "
				"audit verify %s --head %s --pubkey %s --sig %s]\n",
				json_string_value(json_object_get(audit, "session")),
				(long long)json_integer_value(json_object_get(audit, "records")),
				json_string_value(json_object_get(audit, "head")),
				json_string_value(json_object_get(audit, "session")),
				json_string_value(json_object_get(audit, "head")),
				json_string_value(json_object_get(audit, "head_key")),
				json_string_value(json_object_get(audit, "signature")));
		else
			say("the audit log could not be closed and signed: check it with cordon audit verify");
	}

	/* what the output and the result explain: never the verdict */
	_cleanup_(json_decrefp) json_t *hints = NULL, *denials = NULL;
	size_t omitted = 0;
	if (cli_hints_collect(a, prof, c, res, &hints, &denials, &omitted) < 0)
		hints = denials = NULL;
	/* the tool calls the broker refused: its own word, whatever the exit */
	if (session && denials) {
		size_t more = 0;
		_cleanup_(json_decrefp) json_t *refused = cli_supervisor()->session->session_denials(session, &more);
		size_t i;
		json_t *d;

		json_array_foreach(refused, i, d) {
			if (json_array_size(denials) >= CLI_MAX_DENIALS)
				omitted++;
			else
				json_array_append(denials, d);
		}
		omitted += more;
	}

	if (a->json) {
		_cleanup_(json_decrefp) json_t *obj = cli_result_json(a, res, &info, 0);

		if (obj && hints)
			json_object_set(obj, "hints", hints);
		if (obj && denials)
			json_object_set(obj, "denials", denials);
		if (obj && session)
			json_object_set(obj, "audit", audit ? audit : json_null());
		if (obj && denials)
			json_object_set_new(obj, "denials_omitted", json_integer((json_int_t)omitted));
		if (cli_print_json(obj) < 0)
			return CLI_EXIT_REFUSED;
	} else {
		switch (res->verdict) {
		case CORDON_VERDICT_DENIED:
			fprintf(stderr, "[cordon: access denied under %s mode]\n", cordon_mode_to_string(res->mode));
			break;
		case CORDON_VERDICT_RUNNER_FAILED:
			fprintf(stderr, "[cordon: the %s runner reported an error, so the command may never have run: %s]\n",
				cordon_enforcement_to_string(res->enforcement), res->runner_line);
			break;
		case CORDON_VERDICT_TIMEOUT:
			say("timed out after %d ms; the command and everything it started were killed", a->timeout_ms);
			break;
		case CORDON_VERDICT_LIMIT_EXCEEDED:
			say_limit(a, res);
			break;
		case CORDON_VERDICT_OK:
			if (res->limit == CORDON_LIMIT_OUTPUT)
				say("output limit reached: at most %" PRIu64 " bytes of %s were shown, the rest was counted and "
				    "dropped", a->max_output, res->terminal ? "the terminal's output" : "stdout and of stderr");
			else if (res->limit != CORDON_LIMIT_NONE)
				say_limit(a, res); /* it fired, and the command coped */
			break;
		case CORDON_VERDICT_UNAVAILABLE:
			break;
		}
		size_t i;
		json_t *h;
		json_array_foreach(hints, i, h)
			fprintf(stderr, "[cordon: hint: %s]\n", json_string_value(h));
	}
	return exit_status_of(res);
}
