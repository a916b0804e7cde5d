/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The commands that look without running: confine (the confined value as
 * JSON), classify (a verdict for a process the caller ran), probe (which
 * backends work here), explain (the runner's plan in words), why (which
 * rule decides a path, a host, or a command's invocation).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cordon/runner.h"

#define say cli_say

/* Caps on the files classify reads. */
#define CLI_CLASSIFY_MAX_OUTPUT (256u * 1024 * 1024)
#define CLI_CONFINED_MAX (1024 * 1024)

int cli_confine(const struct cli_args *a)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	_cleanup_free_ char *json = NULL;
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
	_cleanup_(cordon_launch_freep) struct cordon_launch *launch = NULL;
	struct cordon_profile_limits l;
	int r;

	r = cli_load_profile(a, &prof);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	/* The confined argv cannot carry limits: cordon run applies them
	 * (limits_fallback alone says only how to degrade: no limit). */
	cordon_profile_limits(prof, &l);
	if (l.timeout_ms || l.max_output || l.output_terminate_set || l.limits.cpu_seconds || l.limits.memory ||
	    l.limits.processes || l.limits.file_size || l.limits.open_files) {
		say("profile %s sets limits, which only `cordon run` enforces (the confined argv cannot carry them): "
		    "use `cordon run --profile`, or a profile without limits", cordon_profile_name(prof));
		return CLI_EXIT_REFUSED;
	}
	const char *kind;
	r = cli_launch(a, prof, false, &launch, &kind);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	r = cli_confine_launch(launch, a, &c, &kind);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (a->confine_status_fd) {
		r = cordon_confined_set_status_fd(c, a->confine_status_fd);
		if (r < 0) {
			say("--status-fd %d: %s", a->confine_status_fd,
			    r == -ENOTSUP ? "this confined value has no status channel" :
			    r == -EBUSY ? "the value's exec or broker fd already has that number" : strerror(-r));
			return CLI_EXIT_REFUSED;
		}
	}
	r = cordon_confined_to_json(c, &json);
	if (r < 0) {
		say("cannot encode the confined value: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	puts(json);
	return 0;
}

int cli_classify(const struct cli_args *a)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	_cleanup_free_ char *cj = NULL, *out = NULL, *rec = NULL;
	struct cordon_classification cls = {};
	struct cordon_error e = {};
	size_t cl = 0, ol = 0, rl = 0;
	int r;

	r = cordon_read_file(a->confined_file, CLI_CONFINED_MAX, &cj, &cl);
	if (r < 0) {
		say("--confined %s: %s", a->confined_file, r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	r = cordon_confined_from_json(cj, cl, &c, &e);
	if (r < 0) {
		if (e.line > 0)
			say("%s:%d:%d: %s", a->confined_file, e.line, e.column, e.message);
		else
			say("%s: %s", a->confined_file, e.message);
		return CLI_EXIT_REFUSED;
	}
	if (a->output_file) {
		r = cordon_read_file(a->output_file, CLI_CLASSIFY_MAX_OUTPUT, &out, &ol);
		if (r < 0) {
			say("--output %s: %s", a->output_file, r == -EFBIG ? "larger than 256 MiB" : strerror(-r));
			return CLI_EXIT_REFUSED;
		}
	}
	/* With a status channel only its records say "runner failed": without
	 * them no verdict could tell, so none is given. */
	if (c->status_format != CORDON_STATUS_NONE && !a->status_records_file) {
		say("%s reports runner failures on fd %d: pass what was written there with --status-records FILE "
		    "(an empty file if nothing)", a->confined_file, c->status_fd);
		return CLI_EXIT_REFUSED;
	}
	if (a->status_records_file) {
		r = cordon_read_file(a->status_records_file, CLI_CONFINED_MAX, &rec, &rl);
		if (r < 0) {
			say("--status-records %s: %s", a->status_records_file,
			    r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
			return CLI_EXIT_REFUSED;
		}
	}
	r = cordon_classify_status(c, a->status, rec, rl, out ?: "", ol, &cls);
	if (r < 0) {
		say("cannot classify: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:s,s:o}", "verdict", cordon_verdict_to_string(cls.verdict),
							      "runner_line", cls.line ? cli_json_text(cls.line, strlen(cls.line)) : json_null());
		_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
		json_t *hints = NULL, *denials = NULL;
		size_t omitted = 0;
		/* the denials and hints `run --json` gives for the same run: what
		 * the status records and the output say, under the same profile
		 * and flags */
		struct cordon_result res = {
			.exit_code = a->status > 128 ? -1 : a->status, .signal = a->status > 128 ? a->status - 128 : 0,
			.verdict = cls.verdict, .output = out ?: (char *)"", .output_len = ol, .enforcement = c->enforcement,
			.mode = c->mode, .limit = CORDON_LIMIT_NONE, .status = rec, .status_len = rl,
		};

		if (o && cli_load_profile(a, &prof) >= 0 &&
		    cli_hints_collect(a, prof, c, &res, &hints, &denials, &omitted) >= 0) {
			json_object_set_new(o, "hints", hints);
			json_object_set_new(o, "denials", denials);
			json_object_set_new(o, "denials_omitted", json_integer((json_int_t)omitted));
		}
		cli_print_json(o);
	} else if (cls.line)
		printf("%s: %s\n", cordon_verdict_to_string(cls.verdict), cls.line);
	else
		printf("%s\n", cordon_verdict_to_string(cls.verdict));
	free(cls.line);
	return 0;
}

/* Kernel facts, gathered without trusting any one probe. */
static int userns_works(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool seccomp_available(void)
{
	return access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
}

int cli_probe(const struct cli_args *a)
{
	_cleanup_(json_decrefp) json_t *arr = json_array();
	struct cordon_backend_info info;
	unsigned select_flags = CORDON_SELECT_DISK_CACHE | (a->refresh ? CORDON_SELECT_REFRESH : 0);
	int r, abi = cordon_landlock_abi(), userns = userns_works();
	bool sc = seccomp_available();

	struct cordon_limits_probe lp = {};
	(void)cordon_limits_probe(&lp);
	/* how --cpu would be counted: the check says */
	struct cordon_limits_plan cpu_plan = {};
	(void)cordon_limits_check(&(struct cordon_limits){ .cpu_seconds = 1 }, NULL, &cpu_plan, NULL);
	enum cordon_limit_mechanism cpu_m = cpu_plan.mechanism[CORDON_LIMIT_CPU];
	if (!a->json) {
		printf("runner: %s (%s)\n", cordon_runner_path(), cordon_runner_origin());
		printf("kernel: landlock ABI %d, user namespaces %s, seccomp %s\n", abi,
		       userns > 0 ? "usable" : "unusable", sc ? "available" : "unavailable");
		printf("limits: memory by %s, processes by %s, cpu by %s; file size and open files by rlimits\n",
		       lp.cgroup2 ? "cgroup v2" : lp.cgroup1_memory ? "cgroup v1" : "RLIMIT_AS (weaker: per process)",
		       lp.cgroup2 ? "cgroup v2" : lp.cgroup1_pids ? "cgroup v1" : "nothing (--max-processes is refused)",
		       cpu_m == CORDON_MECHANISM_CGROUP2 ? "cgroup v2 (the whole run)"
		       : cpu_m == CORDON_MECHANISM_CGROUP1 ? "cgroup v1 cpuacct (the whole run)"
		       : "RLIMIT_CPU (weaker: per process)");
		if (!lp.cgroup2)
			printf("  cgroup v2 unused: %s\n", lp.cgroup2_reason);
		if (!lp.cgroup1_memory || !lp.cgroup1_pids)
			printf("  cgroup v1 %s: %s\n", lp.cgroup1_memory || lp.cgroup1_pids ? "partly usable" : "unused",
			       lp.cgroup1_reason);
	}

	for (const enum cordon_backend *b = cordon_backend_chain(); *b != CORDON_BACKEND_UNAVAILABLE; b++) {
		struct cordon_probe_report rep;

		r = cordon_probe_backend(*b, 2000, &rep);
		if (r < 0) {
			say("probing %s failed: %s", cordon_backend_to_string(*b), strerror(-r));
			return CLI_EXIT_REFUSED;
		}
		if (a->json)
			json_array_append_new(arr, json_pack("{s:s,s:b,s:s?,s:s,s:s,s:I}",
				"backend", cordon_backend_to_string(rep.backend), "usable", rep.usable,
				"grade", rep.usable ? cordon_grade_to_string(rep.grade) : NULL,
				"path", rep.path, "reason", rep.reason, "duration_us", (json_int_t)rep.duration_us));
		else if (rep.usable)
			printf("backend %-9s usable, grade %s (%s, %.1f ms)%s%s\n", cordon_backend_to_string(rep.backend),
			       cordon_grade_to_string(rep.grade), rep.path, rep.duration_us / 1000.0,
			       rep.reason[0] ? ": " : "", rep.reason);
		else
			printf("backend %-9s unusable: %s\n", cordon_backend_to_string(rep.backend), rep.reason);
	}

	if (a->backend_set)
		cordon_pin_backend(a->backend);
	r = cordon_backend_select(select_flags, &info);
	if (r < 0) {
		say("cannot select a backend: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	/* what cordon run and cordon_confine do with it: a fallback below
	 * the best backend is refused unless asked for (confine.c) */
	bool fallback = !info.pinned && info.backend != CORDON_BACKEND_UNAVAILABLE &&
			info.backend != cordon_backend_chain()[0] && info.grade != CORDON_GRADE_FULL;
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:o,s:s,s:s?,s:b,s:b,s:b,s:{s:s,s:s},s:{s:i,s:b,s:b},s:{s:s,s:s,s:s,s:s,s:s,s:b,s:b,s:b,s:s,s:s}}",
			"backends", json_incref(arr),
			"selected", cordon_backend_to_string(info.backend),
			"grade", info.backend == CORDON_BACKEND_UNAVAILABLE ? NULL : cordon_grade_to_string(info.grade),
			"pinned", info.pinned, "from_cache", info.from_cache, "refused_unless_opted_in", fallback,
			"runner", "path", cordon_runner_path(), "origin", cordon_runner_origin(),
			"kernel", "landlock_abi", abi, "user_namespaces", userns > 0, "seccomp", sc,
			"limits",
			"memory", lp.cgroup2 ? "cgroup2" : lp.cgroup1_memory ? "cgroup1" : "rlimit",
			"processes", lp.cgroup2 ? "cgroup2" : lp.cgroup1_pids ? "cgroup1" : "none",
			"cpu", cordon_limit_mechanism_to_string(cpu_m), "file_size", "rlimit", "open_files", "rlimit",
			"cgroup2", lp.cgroup2, "cgroup1_memory", lp.cgroup1_memory, "cgroup1_pids", lp.cgroup1_pids,
			"cgroup2_reason", lp.cgroup2_reason, "cgroup1_reason", lp.cgroup1_reason);
		cli_print_json(o);
	} else if (info.backend == CORDON_BACKEND_UNAVAILABLE)
		printf("selected: unavailable — cordon will refuse to run anything except --mode danger-full-access\n");
	else
		printf("selected: %s, grade %s%s%s\n", cordon_backend_to_string(info.backend),
		       cordon_grade_to_string(info.grade), info.pinned ? " (pinned)" : "",
		       info.from_cache ? " (from the probe cache)" : "");
	if (fallback && !a->json)
		printf("  %s is not the best backend here: cordon run and libcordon refuse it unless asked for "
		       "(cordon run --backend %s; cordon_policy_require_grade(policy, CORDON_GRADE_PARTIAL))\n",
		       cordon_backend_to_string(info.backend), cordon_backend_to_string(info.backend));
	return info.backend == CORDON_BACKEND_UNAVAILABLE || fallback ? 1 : 0;
}

/* The limits, in words, as cordon run would enforce them here. */
static int explain_limits(const struct cli_args *a, const struct cordon_confined *c)
{
	struct cordon_limits_plan plan;
	struct cordon_error e = {};
	int r;

	if (!a->limits_set && !a->timeout_ms && !a->max_output_set)
		return 0;
	r = cordon_limits_check(a->limits_set ? &a->limits : NULL, c, &plan, &e);
	if (r < 0) {
		printf("limits: cordon run would refuse: %s\n", e.message);
		return 0;
	}
	printf("limits (applied by cordon run before the runner starts, inherited by everything it starts):\n");
	if (a->timeout_ms)
		printf("  wall clock %d ms: then the command and everything it started are killed (exit 124)\n",
		       a->timeout_ms);
	if (a->limits.cpu_seconds && plan.mechanism[CORDON_LIMIT_CPU] == CORDON_MECHANISM_RLIMIT)
		printf("  %" PRIu64 " CPU seconds per process (RLIMIT_CPU; weaker: no cgroup here counts the run): "
		       "SIGKILL at the limit (exit 137)\n", a->limits.cpu_seconds);
	else if (a->limits.cpu_seconds)
		printf("  %" PRIu64 " CPU seconds for the whole run (%s CPU accounting, checked every 50 ms): then the "
		       "command and everything it started are killed (exit 137)\n", a->limits.cpu_seconds,
		       plan.mechanism[CORDON_LIMIT_CPU] == CORDON_MECHANISM_CGROUP2 ? "cgroup v2" : "cgroup v1");
	if (a->limits.memory)
		printf("  %" PRIu64 " bytes of memory %s\n", a->limits.memory,
		       plan.mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_RLIMIT
		       ? "of address space per process (RLIMIT_AS; weaker: no cgroup is writable here)"
		       : plan.mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_CGROUP2
		       ? "for the whole run, swap included (cgroup v2 memory.max): the kernel kills inside it (exit 137)"
		       : "for the whole run, swap included (cgroup v1 memory controller): the kernel kills inside it (exit 137)");
	if (a->limits.processes)
		printf("  %" PRIu64 " processes and threads for the whole run, the runner's included (%s pids.max): "
		       "forks beyond fail with EAGAIN\n", a->limits.processes,
		       plan.mechanism[CORDON_LIMIT_PROCESSES] == CORDON_MECHANISM_CGROUP2 ? "cgroup v2" : "cgroup v1");
	if (a->limits.file_size)
		printf("  files up to %" PRIu64 " bytes (RLIMIT_FSIZE, SIGXFSZ ignored): a longer write fails with EFBIG\n",
		       a->limits.file_size);
	if (a->limits.open_files)
		printf("  %" PRIu64 " open file descriptors per process (RLIMIT_NOFILE): EMFILE beyond\n",
		       a->limits.open_files);
	if (a->max_output_set)
		printf("  output: %" PRIu64 " bytes kept (--json) or relayed per stream (interactive); beyond it %s\n",
		       a->max_output, a->output_terminate ? "the command and everything it started are killed (exit 137)"
		       : "the rest is counted and dropped, the command runs on");
	if (plan.warning[0])
		printf("  warning: %s\n", plan.warning);
	return 0;
}

/* bwrap's options that take values, and how many. */
static int bwrap_arity(const char *opt)
{
	static const char *const two[] = { "--ro-bind", "--ro-bind-try", "--bind", "--bind-try", "--setenv", NULL };
	static const char *const one[] = { "--dev", "--proc", "--tmpfs", "--size", "--perms", "--remount-ro",
					   "--cap-drop", NULL };

	for (size_t i = 0; two[i]; i++)
		if (strcmp(opt, two[i]) == 0)
			return 2;
	for (size_t i = 0; one[i]; i++)
		if (strcmp(opt, one[i]) == 0)
			return 1;
	return 0;
}

/* What an interactive run's command gets for a terminal (cordon run adds
 * --pty to the native runner's line then; explain shows the line without). */
static void explain_terminal(bool native)
{
	if (native)
		printf("terminal: when cordon run's stdin, stdout and stderr are one terminal (not --json), "
		       "the runner also gets --pty: the command's stdin, stdout, stderr and controlling terminal "
		       "are a pseudo-terminal of its own (full isolation: the sandbox's devpts; light: the host's "
		       "/dev/ptmx, only that node writable), relayed by the runner (job control, /dev/tty, pagers, "
		       "editors, window size); your terminal is raw during the run and put back after it. "
		       "Otherwise the command has no controlling terminal (/dev/tty: ENXIO)\n");
	else
		printf("terminal: none of its own under bwrap (--new-session: no controlling terminal, /dev/tty "
		       "fails with ENXIO, no job control); stdin and stdout are yours, stderr is relayed\n");
}

/* --backend bwrap: bwrap's own options one to a line (environment values
 * left out), what it does not enforce, then the nested runner's plan. */
static int explain_bwrap(const struct cli_args *a, const struct cordon_policy *p,
			 const struct cordon_backend_info *backend)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cordon_backend_info info = *backend;
	struct cordon_error e = {};
	char gaps[1024];
	size_t i = 1;
	int r;

	r = cordon_confine_with(&info, (const char *const *)a->command, p, &c, &e);
	if (r < 0) {
		say("%s", e.message[0] ? e.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	printf("bwrap backend (%s), grade %s:\n", c->argv[0], cordon_grade_to_string(c->grade));
	while (c->argv[i] && strcmp(c->argv[i], "--") != 0) {
		int n = bwrap_arity(c->argv[i]);

		printf("  %s", c->argv[i]);
		for (int k = 1; k <= n && c->argv[i + k]; k++)
			printf(" %s", strcmp(c->argv[i], "--setenv") == 0 && k == 2 ? "(value)" : c->argv[i + k]);
		putchar('\n');
		i += 1 + (size_t)n;
	}
	(void)cordon_backend_gaps(&info, gaps, sizeof(gaps));
	printf("not enforced here: %s\n", gaps);
	/* not gaps (nothing runs without them): refused when a policy asks */
	printf("refused here (the native runner's): restricted reads, the execute-only gate, deny-exec, "
	       "running the command from an fd\n");
	explain_terminal(false);
	if (info.lacks & CORDON_LACKS_RUNNER) {
		printf("then execve %s directly: cordon's runner does not nest (see cordon probe)\n",
		       c->argv[i] && c->argv[i + 1] ? c->argv[i + 1] : "?");
		return explain_limits(a, c);
	}
	printf("then, inside bwrap's namespaces (which give what light isolation lists as given up, "
	       "except as said above):\n");
	r = c->argv[i] ? cordon_explain_plan((const char *const *)c->argv + i + 1, stdout) : -EINVAL;
	if (r < 0) {
		say("cannot explain the plan: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	return explain_limits(a, c);
}

int cli_explain(const struct cli_args *a)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *launch = NULL;
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
	const struct cordon_policy *p;
	struct cordon_error e = {};
	struct cli_args eff;
	int r;

	r = cli_load_profile(a, &prof);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	/* the launch a run would make, to be shown: its policy and merged
	 * limits, the runner's plan for it */
	r = cli_build_policy(a, prof, &launch);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	cli_args_from_launch(a, launch, &eff);
	a = &eff;
	p = cordon_launch_policy(launch);
	if (cordon_policy_mode(p) == CORDON_MODE_DANGER_FULL_ACCESS) {
		printf("danger-full-access: the command runs unconfined, exactly as given.\n");
		return 0;
	}
	if (a->backend_set && a->backend == CORDON_BACKEND_BWRAP)
		return explain_bwrap(a, p, cordon_launch_backend(launch));
	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	r = cordon_confine_with(&info, (const char *const *)a->command, p, &c, &e);
	if (r < 0) {
		say("%s", e.message[0] ? e.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	/* c->argv is [RUNNER, "exec", flags..., "--", argv...] */
	r = cordon_explain_plan((const char *const *)c->argv + 1, stdout);
	if (r < 0) {
		say("cannot explain the plan: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	explain_terminal(true);
	return explain_limits(a, c);
}

/* ---- why ----------------------------------------------------------------- */

static void warnings_freep(char ***v)
{
	cordon_strv_free(*v);
}

/* Exit codes of why --command: allow and deny as for a path; an approval
 * is neither. */
#define CLI_WHY_APPROVE 2

/* --command NAME [--caller C] -- ARGS: what the profile's command_policies
 * decide for that call, with the caller's environment ours, as the
 * supervisor decides it (cordon_tools_decide). */
static int why_command(const struct cli_args *a)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *h = NULL;
	const struct cordon_profile_opts o = { .workspace = a->workspace };
	const char *caller = a->why_caller ? a->why_caller : CORDON_TOOLS_SESSION;
	const char *file;
	const struct cordon_tools *t;
	struct cordon_tool_decision d;
	struct cordon_error e = {};
	_cleanup_(warnings_freep) char **warnings = NULL;
	int r;

	r = cordon_profile_load_inspect(a->profile, &o, &h, &e);
	if (r < 0) {
		cli_note_origin(&e);
		say("%s", e.message[0] ? e.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	t = cordon_profile_tools(h);
	if (!t) {
		say("profile %s has no command_policies: no command is under a policy", cordon_profile_name(h));
		return CLI_EXIT_REFUSED;
	}
	r = cordon_tools_decide(t, caller, a->why_command, (const char *const *)a->command,
				(const char *const *)environ, &d);
	if (r < 0) {
		say("--command %s: %s", a->why_command, strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	/* deny rules the same call passes said another way: a warning each */
	r = cordon_tools_deny_warnings(t, caller, a->why_command, &warnings);
	if (r < 0) {
		say("--command %s: %s", a->why_command, strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	/* a decision no rule of a file made (an unknown name) is the profile's */
	file = d.file[0] ? d.file : cordon_profile_file(h);
	if (a->json) {
		_cleanup_(json_decrefp) json_t *argv = json_array(), *o2 = NULL, *warn = json_array();

		for (size_t i = 0; warn && warnings[i]; i++)
			json_array_append_new(warn, cli_json_text(warnings[i], strlen(warnings[i])));

		for (size_t i = 0; argv && a->command && a->command[i]; i++)
			json_array_append_new(argv, cli_json_text(a->command[i], strlen(a->command[i])));
		o2 = json_pack("{s:b,s:s,s:s,s:s,s:s?,s:s,s:s,s:O,s:s,s:i,s:s,s:s}", "allow",
			       d.action == CORDON_TOOL_ALLOW, "decision", cordon_tool_action_to_string(d.action), "reason",
			       d.reason, "pointer", d.rule, "backend", d.backend[0] ? d.backend : NULL, "command",
			       a->why_command, "caller", caller, "argv", argv, "file", file, "line", d.line, "profile",
			       cordon_profile_name(h), "profile_file", cordon_profile_file(h));
		if (o2 && warn)
			json_object_set(o2, "warnings", warn);
		if (!o2 || cli_print_json(o2) < 0) {
			say("cannot encode the answer as JSON (is every argument valid UTF-8?)");
			return CLI_EXIT_REFUSED;
		}
	} else {
		printf("%s: %s\n", cordon_tool_action_to_string(d.action), d.reason);
		if (d.backend[0])
			printf("  backend: %s\n", d.backend);
		if (d.line > 0)
			printf("  rule: %s:%d at %s\n", file, d.line, d.rule);
		else
			printf("  rule: %s at %s\n", file, d.rule);
		fflush(stdout);
		for (size_t i = 0; warnings[i]; i++)
			say("warning: %s", warnings[i]);
	}
	return d.action == CORDON_TOOL_ALLOW ? 0 : d.action == CORDON_TOOL_DENY ? 1 : CLI_WHY_APPROVE;
}

/* The port a --host question is about: --port, or HOST:PORT's, or 443. */
static unsigned why_port(const struct cli_args *a)
{
	return a->port_set ? a->port : a->host_port ? a->host_port : 443;
}

int cli_why(const struct cli_args *a)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *p = NULL;
	_cleanup_(cordon_why_freep) struct cordon_why *w = NULL;
	struct cordon_why_decision d;
	int r;

	/* a request through a credential proxy: decided with the proxy's
	 * matcher, which cordon-supervisor links */
	if (a->why_method) {
		const struct cli_supervisor_ops *ops = cli_supervisor();

		if (!ops || !ops->why_credential) {
			(void)cli_exec_supervisor("cordon why --method");
			return CLI_EXIT_REFUSED;
		}
		return ops->why_credential(a);
	}
	if (a->why_command)
		return why_command(a);
	if (cli_load_profile(a, &p) < 0)
		return CLI_EXIT_REFUSED;
	r = cli_why_new(a, p, &w);
	if (r < 0) {
		say("--deny-read/--protect: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->why_path)
		r = cordon_why_path(w, a->why_path, a->op, &d);
	else
		r = cordon_why_host(w, a->why_host, why_port(a), &d);
	if (r < 0) {
		if (a->why_path)
			say("--path %s: %s", a->why_path, strerror(-r));
		else
			say("--host %s: %s", a->why_host, strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:b,s:s,s:s,s:s,s:s,s:s,s:s}", "allow", d.allow, "decision",
							      d.allow ? "allow" : "deny", "reason", d.reason, "file",
							      d.file, "pointer", d.pointer, "profile",
							      cordon_profile_name(p), "profile_file",
							      cordon_profile_file(p));

		if (!o) {
			say("cannot encode the answer as JSON (is the path valid UTF-8?)");
			return CLI_EXIT_REFUSED;
		}
		if (a->why_path) {
			json_object_set_new(o, "path", json_string(a->why_path));
			json_object_set_new(o, "op", json_string(cordon_op_to_string(a->op)));
		} else {
			json_object_set_new(o, "host", json_string(a->why_host));
			json_object_set_new(o, "port", json_integer(why_port(a)));
		}
		if (cli_print_json(o) < 0)
			return CLI_EXIT_REFUSED;
	} else {
		printf("%s: %s\n", d.allow ? "allow" : "deny", d.reason);
		if (d.pointer[0])
			printf("  rule: %s at %s\n", d.file, d.pointer);
		else
			printf("  rule: %s\n", d.file);
		fflush(stdout);
	}
	return d.allow ? 0 : 1;
}
