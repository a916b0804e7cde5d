/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_run: spawn a confined argv, capture its merged output up to a cap,
 * enforce a wall-clock timeout on the whole tree, classify, and annotate.
 * The annotation is appended; the command's output is never replaced.
 * cordon_spawn is the same run, non-blocking: the caller's poll loop drives
 * it through cordon_child_pollfds/cordon_child_step (spawn.c has the state
 * machine); cordon_run is that loop for one child.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "launch.h"
#include "opts_size.h"
#include "policy.h"
#include "process.h"
#include "runlimits.h"
#include "runner_plan.h"
#include "strv.h"

#define RUN_DEFAULT_MAX_OUTPUT (1024 * 1024)
#define RUN_MAX_OUTPUT_CAP (1024u * 1024 * 1024)

CORDON_API struct cordon_result *cordon_result_free(struct cordon_result *r)
{
	if (!r)
		return NULL;
	free(r->runner_line);
	free(r->output);
	free(r->stderr_output);
	free(r->annotated);
	free(r->status);
	free(r);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_result *, cordon_result_free)

/* text: what the command printed (stdout then stderr when they were apart) */
int run_annotate(struct cordon_result *res, const char *text, size_t len, int timeout_ms)
{
	_cleanup_free_ char *head = NULL, *tail = NULL, *trunc = NULL;
	int status = res->signal ? 128 + res->signal : res->exit_code;
	const char *sep;

	if (res->verdict == CORDON_VERDICT_OK && status == 0 && !res->truncated) {
		res->annotated = strndup(text, len);
		return res->annotated ? 0 : -ENOMEM;
	}
	if (status != 0 || res->verdict == CORDON_VERDICT_TIMEOUT) {
		int code = res->verdict == CORDON_VERDICT_TIMEOUT ? CORDON_EXIT_TIMEOUT : status;

		if (res->signal && res->verdict != CORDON_VERDICT_TIMEOUT) {
			if (asprintf(&head, "Exit code: %d (killed by signal %d, %s)\n", code, res->signal,
				     sigabbrev_np(res->signal) ?: "?") < 0)
				return -ENOMEM;
		} else if (asprintf(&head, "Exit code: %d\n", code) < 0)
			return -ENOMEM;
	}
	if (res->truncated &&
	    asprintf(&trunc, "[cordon: output truncated: %zu of %llu bytes shown]", res->output_len,
		     (unsigned long long)res->output_total) < 0)
		return -ENOMEM;

	switch (res->verdict) {
	case CORDON_VERDICT_DENIED:
		if (asprintf(&tail, "[cordon: access denied under %s mode]", cordon_mode_to_string(res->mode)) < 0)
			return -ENOMEM;
		break;
	case CORDON_VERDICT_RUNNER_FAILED:
		if (asprintf(&tail, "[cordon: the %s runner reported an error, so the command may never have run: %s]",
			     cordon_enforcement_to_string(res->enforcement), res->runner_line) < 0)
			return -ENOMEM;
		break;
	case CORDON_VERDICT_TIMEOUT:
		if (asprintf(&tail, "[cordon: timed out after %d ms; the command and everything it started were killed]",
			     timeout_ms) < 0)
			return -ENOMEM;
		break;
	case CORDON_VERDICT_LIMIT_EXCEEDED:
		if (asprintf(&tail, "[cordon: the %s limit (enforced by %s) stopped the command]",
			     cordon_limit_to_string(res->limit), cordon_limit_mechanism_to_string(res->limit_mechanism)) < 0)
			return -ENOMEM;
		break;
	case CORDON_VERDICT_OK:
	case CORDON_VERDICT_UNAVAILABLE:
		break;
	}

	sep = (len > 0 && text[len - 1] != '\n') ? "\n" : "";
	if (asprintf(&res->annotated, "%s%.*s%s%s%s%s%s", head ?: "", (int)len, text, (trunc || tail) ? sep : "",
		     trunc ?: "", trunc ? "\n" : "", tail ?: "", tail ? "\n" : "") < 0) {
		res->annotated = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Case-insensitive: does the captured output carry this error text? */
static bool output_says(const struct spawn_result *sr, const char *what)
{
	return sr->output && strcasestr(sr->output, what);
}

/* Which limit ended (or, for output, cut) the run. The kernel's own
 * counters decide where there are any; a signal or the command's error
 * text where there are not. */
static enum cordon_limit limit_fired(const struct cordon_run_opts *o, const struct spawn_result *sr,
				     const struct limits_events *ev)
{
	const struct cordon_limits *l = o->limits;
	bool failed = sr->signal || sr->exit_code != 0;

	if (sr->timed_out)
		return CORDON_LIMIT_TIMEOUT;
	if (sr->output_killed)
		return CORDON_LIMIT_OUTPUT;
	if (sr->cpu_killed)
		return CORDON_LIMIT_CPU;
	if (l && l->memory && ev->oom_kills > 0)
		return CORDON_LIMIT_MEMORY;
	/* bwrap reports its command's death by signal N as exit 128+N */
	bool killed = sr->signal == SIGKILL || sr->signal == SIGXCPU || sr->exit_code == 128 + SIGKILL ||
		      sr->exit_code == 128 + SIGXCPU;

	/* only RLIMIT_CPU sends SIGXCPU */
	if (l && l->cpu_seconds && (sr->signal == SIGXCPU || sr->exit_code == 128 + SIGXCPU))
		return CORDON_LIMIT_CPU;
	if (l && l->cpu_seconds && killed &&
	    /* bwrap does not always reap its command, so its CPU time may
	     * not reach us: then the wall time (never less) stands in */
	    (sr->cpu_usec + 100000u >= l->cpu_seconds * 1000000u ||
	     (sr->cpu_usec < 100000u && sr->duration_us + 100000u >= l->cpu_seconds * 1000000u)))
		return CORDON_LIMIT_CPU;
	/* the kernel refused forks: the limit fired, whatever the exit */
	if (l && l->processes && ev->pids_max > 0)
		return CORDON_LIMIT_PROCESSES;
	if (l && l->memory && failed &&
	    (ev->mem_failcnt > 0 || output_says(sr, "cannot allocate memory") || output_says(sr, "memoryerror") ||
	     output_says(sr, "out of memory")))
		return CORDON_LIMIT_MEMORY;
	if (l && l->file_size && (sr->signal == SIGXFSZ || sr->exit_code == 128 + SIGXFSZ || (failed && output_says(sr, "file too large"))))
		return CORDON_LIMIT_FILE_SIZE;
	if (l && l->open_files && failed && output_says(sr, "too many open files"))
		return CORDON_LIMIT_OPEN_FILES;
	if (sr->output_over)
		return CORDON_LIMIT_OUTPUT;
	return CORDON_LIMIT_NONE;
}

_Static_assert(CORDON_CHILD_MAX_POLLFDS == SPAWN_MAX_POLLFDS, "one poll set size");

struct cordon_child {
	struct spawn_child *sc;
	struct spawn_opts so;
	char **argv;                          /* the packed argv the runner was exec'd with (runner_plan.c), or NULL */
	const struct cordon_confined *confined;
	struct cordon_confined *owned;        /* cordon_spawn's own confined value */
	struct cordon_run_opts o;             /* o.limits points at limits */
	struct cordon_limits limits;
	struct cordon_limits_plan plan;
	struct limits_cgroup cg;
	char **envp;                          /* the confined environment with opts->env on top, or NULL */
	bool pty;                             /* the command runs on a terminal of its own (--pty) */
	int plan_fd;                          /* the runner's sealed plan (runner_plan.c) until the start; -1 */
	bool ended, collected;
};

CORDON_API struct cordon_child *cordon_child_free(struct cordon_child *c)
{
	if (!c)
		return NULL;
	spawn_child_free(c->sc);
	if (c->plan_fd >= 0)
		close(c->plan_fd);
	strv_free(c->envp);
	/* Whatever the command left in its cgroups goes now. */
	limits_cgroup_destroy(&c->cg);
	strv_free(c->argv);
	cordon_confined_free(c->owned);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_child *, cordon_child_free)

static bool runs_our_runner(char **argv)
{
	return argv[0] && argv[1] && strcmp(argv[1], "exec") == 0 && strcmp(argv[0], cordon_runner_path()) == 0;
}

/* A runner flag, right after "exec": before "--" and the command. v (n
 * entries, at least RUNNER and "exec") has room for one more and the NULL. */
static void runner_flag(const char **v, size_t *n, const char *flag)
{
	memmove(v + 3, v + 2, (*n - 2) * sizeof(*v));
	v[2] = flag;
	v[++*n] = NULL;
}

/* stdin, stdout and stderr are one terminal, and we are in its
 * foreground (a background run must not take the terminal over). */
static bool on_one_terminal(void)
{
	struct stat st[3];

	for (int fd = 0; fd <= 2; fd++)
		if (!isatty(fd) || fstat(fd, &st[fd]) < 0)
			return false;
	return st[0].st_rdev == st[1].st_rdev && st[1].st_rdev == st[2].st_rdev && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

/* The terminal's line ends, as the classifier and the hints read lines. */
static size_t crlf_to_lf(char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
			s[o++] = s[i];
	s[o] = '\0';
	return o;
}

/* Start confined under o; plan: the launch's checked plan, or NULL to
 * check the limits here. Takes owned (freed on failure too). */
/* The broker's socket: given exactly when the confined value wants one
 * (its --exec-fd file is checked with the rest of the options). */
static int check_broker_fd(const struct cordon_child *c, const struct cordon_confined *confined,
			   struct cordon_error *reterr)
{
	if (confined->broker_fd > 2 && c->o.broker_fd <= 2)
		return error_set(reterr, -EINVAL, "the confined command wants the broker's socket, and none was given");
	if (confined->broker_fd <= 2 && c->o.broker_fd > 2)
		return error_set(reterr, -EINVAL, "a broker socket was given for a command that has no broker");
	if (confined->broker_fd > 2 && (confined->broker_fd == confined->status_fd || confined->broker_fd == confined->exec_fd))
		return error_set(reterr, -EINVAL, "the broker's socket and another fd the runner wants share number %d",
				 confined->broker_fd);
	/* the credential table likewise: exactly when the confined value wants it */
	if (confined->credentials_fd > 2 && c->o.credentials_fd <= 2)
		return error_set(reterr, -EINVAL, "the confined command wants a credential table, and none was given");
	if (confined->credentials_fd <= 2 && c->o.credentials_fd > 2)
		return error_set(reterr, -EINVAL, "a credential table was given for a command that takes none");
	return 0;
}

/* envp with each NAME=VALUE of add replacing (or joining) its name. A
 * name the sandbox never gets from outside is refused, not dropped: the
 * caller learns its value did not reach the command. */
static int env_overlay(char *const *envp, const char *const *add, char ***ret, struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **v = NULL;
	int r;

	if (envp) {
		v = strv_copy((const char *const *)envp);
		if (!v)
			return -ENOMEM;
	} else if (!(v = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; add[i]; i++) {
		size_t nl = strcspn(add[i], "=");
		bool replaced = false;
		char name[ENV_NAME_MAX + 1];
		const char *why;

		if (nl == 0 || add[i][nl] != '=' || nl > ENV_NAME_MAX)
			return error_set(reterr, -EINVAL, "the environment to add: '%.64s' is not NAME=VALUE", add[i]);
		memcpy(name, add[i], nl);
		name[nl] = '\0';
		if ((why = env_name_never_set(name)))
			return error_set(reterr, -EPERM, "the environment to add: refusing to set %s: %s", name, why);
		for (size_t j = 0; v[j] && !replaced; j++)
			if (strncmp(v[j], add[i], nl + 1) == 0) {
				char *s = strdup(add[i]);

				if (!s)
					return -ENOMEM;
				free(v[j]);
				v[j] = s;
				replaced = true;
			}
		if (!replaced && (r = strv_push(&v, add[i])) < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int spawn_child(const struct cordon_confined *confined, struct cordon_confined *owned,
		       const struct cordon_run_opts *opts, const struct cordon_limits_plan *plan,
		       const struct cordon_stdio *stdio, struct cordon_child **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_child_freep) struct cordon_child *c = NULL;
	struct limits_spawn ls = {};
	bool caller_stdio = stdio && (stdio->in >= 0 || stdio->out >= 0 || stdio->err >= 0);
	_cleanup_free_ const char **argv = NULL;
	size_t n_argv;
	bool ours;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		cordon_confined_free(owned);
		return -ENOMEM;
	}
	c->owned = owned;
	c->plan_fd = -1;
	c->confined = confined;
	c->cg = (struct limits_cgroup){ .procs_fd = { -1, -1, -1, -1 } };
	c->o = opts ? *opts : (struct cordon_run_opts){};
	if (c->o.limits) {
		c->limits = *c->o.limits;
		c->o.limits = &c->limits;
	}

	if (!confined || !confined->argv || !confined->argv[0])
		return error_set(reterr, -EINVAL, "nothing to run");
	if (c->o.timeout_ms < 0)
		return error_set(reterr, -EINVAL, "a negative timeout");
	if (c->o.max_output == 0)
		c->o.max_output = RUN_DEFAULT_MAX_OUTPUT;
	if (c->o.max_output > RUN_MAX_OUTPUT_CAP)
		return error_set(reterr, -EINVAL, "max_output is over 1G");
	if (caller_stdio && c->o.passthrough)
		return error_set(reterr, -EINVAL, "caller stdio fds and passthrough exclude each other");
	if (confined->status_format != CORDON_STATUS_NONE && confined->status_fd <= 2)
		return error_set(reterr, -EINVAL, "a status channel on fd %d", confined->status_fd);
	/* The file to run from: given exactly when it is asked for. */
	if (c->o.exec_fd == 1 || c->o.exec_fd == 2 || c->o.exec_fd < -1)
		return error_set(reterr, -EBADF, "exec_fd %d is not a file the caller opened", c->o.exec_fd);
	if (confined->exec_fd > 2 && c->o.exec_fd <= 0)
		return error_set(reterr, -EINVAL,
				 "the confined command runs from a file the caller opens (exec_fd), and none was given");
	if (confined->exec_fd <= 2 && c->o.exec_fd > 0)
		return error_set(reterr, -EINVAL,
				 "an exec_fd was given, but the confined command does not run from one "
				 "(cordon_policy_exec_from_fd)");
	if (confined->exec_fd > 2 && confined->exec_fd == confined->status_fd)
		return error_set(reterr, -EINVAL, "exec_fd and the status channel want the same fd %d", confined->exec_fd);
	r = check_broker_fd(c, confined, reterr);
	if (r < 0)
		return r;

	/* stdout and stderr share one pipe: the merge cordon_merge_stderr
	 * gives callers that spawn argv themselves, without an extra shell. */
	/* The runner's argv as it will be, its strings borrowed from confined
	 * (and the flags below, literals): copied only into the plan, never
	 * first into a copy the plan then frees. */
	n_argv = strv_length(confined->argv);
	argv = calloc(n_argv + 5, sizeof(*argv)); /* four flag words, the NULL */
	if (!argv)
		return -ENOMEM;
	memcpy(argv, confined->argv, n_argv * sizeof(*argv));
	ours = runs_our_runner(confined->argv);

	/* Interactive runs keep the terminal's stdin/stdout and the caller's
	 * process group (so ^C reaches the command); stderr is relayed as it
	 * arrives and kept for classification. Captured runs get their own
	 * process group so a timeout can kill it whole. */
	c->so = (struct spawn_opts){
		.envp = confined->envp,
		.status_fd = confined->status_format != CORDON_STATUS_NONE ? confined->status_fd : 0,
		/* the runner nested in bwrap reports on the next fd, into the same pipe */
		.status_fd2 = confined->status_format == CORDON_STATUS_BWRAP_NESTED ? confined->status_fd + 1 : 0,
		.cwd = c->o.cwd,
		.cwd_pinned = c->o.cwd && c->o.cwd_pinned,
		.cwd_dev = c->o.cwd_dev,
		.cwd_ino = c->o.cwd_ino,
		.timeout_ms = c->o.timeout_ms,
		.cap = c->o.max_output,
		.capture_stdout = !c->o.passthrough,
		.capture_stderr = c->o.passthrough || !c->o.separate_stderr,
		.split_stderr = !c->o.passthrough && c->o.separate_stderr,
		.relay = c->o.passthrough,
		.inherit_stdin = c->o.passthrough || c->o.capture_stdin,
		.own_group = !c->o.passthrough,
		.stop = c->o.stop,
		.caller_stdio = caller_stdio,
		.stdio_fd = { stdio ? stdio->in : -1, stdio ? stdio->out : -1, stdio ? stdio->err : -1 },
	};
	/* what the runner wants at fixed numbers: the file it runs, the broker's socket */
	if (confined->exec_fd > 2) {
		c->so.pass_at[c->so.n_pass] = confined->exec_fd;
		c->so.pass_fd[c->so.n_pass++] = c->o.exec_fd;
	}
	if (confined->broker_fd > 2) {
		c->so.pass_at[c->so.n_pass] = confined->broker_fd;
		c->so.pass_fd[c->so.n_pass++] = c->o.broker_fd;
	}
	if (confined->credentials_fd > 2) {
		c->so.pass_at[c->so.n_pass] = confined->credentials_fd;
		c->so.pass_fd[c->so.n_pass++] = c->o.credentials_fd;
	}
	/* In-process only where the fork copies no other thread's locks
	 * half-held: a multi-threaded caller execs the runner instead (the
	 * runner would refuse to run in it anyway). */
	if (c->o.runner_main && ours && process_count_threads() == 1) {
		c->so.child_main = c->o.runner_main;
		c->so.child_argv_skip = 1;
	}
	/* A terminal of its own: the runner holds the pty's master and relays
	 * everything the command writes to the terminal on its stderr, which
	 * we scan and relay (capped) as ever; the command never has ours. */
	c->pty = c->o.terminal && c->o.passthrough && !caller_stdio && ours && on_one_terminal();
	c->so.restore_terminal = c->pty;
	/* Output beyond the cap: counted and dropped, or the tree is ended.
	 * Interactive runs with a cap relay stdout through a pipe of ours. */
	c->so.stop_at_cap = c->o.output_terminate;
	if (c->o.passthrough && c->o.passthrough_max_output) {
		c->so.relay_cap = c->o.passthrough_max_output;
		/* A terminal on stdin is also a way out to the terminal (the
		 * command may write to fd 0): it gets a pipe we feed instead.
		 * With a pty of its own, the command has neither. */
		c->so.pipe_stdout = !c->pty;
		c->so.relay_stdin = !c->pty && isatty(STDIN_FILENO);
	}
	/* Captured runs reading our stdin: a terminal the same way (and the
	 * command is in a process group of its own: it could not read it). */
	if (!c->o.passthrough && c->o.capture_stdin)
		c->so.relay_stdin = isatty(STDIN_FILENO);
	/* ... and the native runner takes away write access to every
	 * terminal device (the caller's pty is reachable by path) */
	if (c->so.relay_stdin && ours)
		runner_flag(argv, &n_argv, "--no-terminal");
	if (c->pty)
		runner_flag(argv, &n_argv, "--pty");
	/* The plan by fd: the runner's flags (hundreds of paths) leave its
	 * command line for a sealed memfd. Where memfd_create is refused (a
	 * sandbox's seccomp filter, for cordon nested in one) the flags stay
	 * in argv, which the runner reads as ever. The in-process runner
	 * crosses no exec: it reads the same flags from the forked copy of
	 * our memory (no command line shows them, child_blank_cmdline), so
	 * the memfd's write, seals and read are not paid there. */
	if (ours && !c->so.child_main && c->so.n_pass < SPAWN_PASS_MAX) {
		r = runner_plan_pack(argv, &c->argv, &c->plan_fd);
		if (r == -ENOMEM)
			return r;
		if (r >= 0) {
			c->so.pass_at[c->so.n_pass] = RUNNER_PLAN_FD;
			c->so.pass_fd[c->so.n_pass++] = c->plan_fd;
		}
	}
	/* Unpacked, the argv is only read at the start, while confined's
	 * strings are alive: no copy of its hundreds of words */
	c->so.argv = c->argv ? (const char *const *)c->argv : argv;

	if (c->o.env) {
		r = env_overlay(confined->envp, c->o.env, &c->envp, reterr);
		if (r == -ENOMEM)
			return error_set(reterr, r, "the environment to add: %s", strerror(-r));
		if (r < 0)
			return r;
		c->so.envp = c->envp;
	}
	if (plan)
		c->plan = *plan;
	else {
		r = cordon_limits_check(c->o.limits, confined, &c->plan, reterr);
		if (r < 0)
			return r;
	}
	if (c->o.limits) {
		r = limits_prepare(c->o.limits, &c->plan, &c->cg, &ls, reterr);
		if (r < 0)
			return r;
		c->so.limits = &ls;
		if (c->o.limits->cpu_seconds && c->plan.mechanism[CORDON_LIMIT_CPU] != CORDON_MECHANISM_RLIMIT) {
			c->so.cpu_cg = &c->cg;
			c->so.cpu_limit_usec = c->o.limits->cpu_seconds * 1000000u;
		}
	}
	/* Return when init says the sandbox is empty, not when the runner
	 * has exited too (its exit is some 0.2 ms of wake-ups later): for a
	 * caller that asks (it exits right after, or reaps the runner), with
	 * the runner in-process, no terminal of its own to relay (the relay
	 * may hold the last output) and no cgroup (the runner would still be
	 * in it when the run's cgroups are removed). */
	if (c->o.return_at_end && c->so.child_main && !c->pty && !limits_cgroup_used(&c->cg)) {
		c->so.end_fd = RUNNER_END_FD;
		runner_flag(argv, &n_argv, RUNNER_END_FD_STR);
		runner_flag(argv, &n_argv, "--end-fd");
	}
	r = spawn_start(&c->so, &c->sc);
	c->so.argv = NULL; /* argv was for the start only */
	if (c->plan_fd >= 0) {
		/* the child has its copy; ours is not needed any more */
		close(c->plan_fd);
		c->plan_fd = -1;
	}
	limits_cgroup_started(&c->cg);
	c->so.limits = NULL; /* ls was for the start only */
	if (r < 0)
		return error_set(reterr, r, "cannot start %s: %s", confined->argv[0], strerror(-r));
	*ret = TAKE_PTR(c);
	return 0;
}

static int run_opts_take(const struct cordon_run_opts *in, struct cordon_run_opts *out, struct cordon_error *reterr)
{
	return opts_take(in, CORDON_RUN_OPTS_SIZE_1, out, sizeof(*out), "cordon_run_opts", reterr);
}

CORDON_API int cordon_spawn_confined(const struct cordon_confined *confined, const struct cordon_run_opts *opts,
				     const struct cordon_stdio *stdio, struct cordon_child **ret,
				     struct cordon_error *reterr)
{
	struct cordon_run_opts o;
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the child");
	r = run_opts_take(opts, &o, reterr);
	if (r < 0)
		return r;
	return spawn_child(confined, NULL, &o, NULL, stdio, ret, reterr);
}

CORDON_API int cordon_spawn(const struct cordon_launch *l, const char *const *argv, const struct cordon_stdio *stdio,
			    const struct cordon_run_opts *opts, struct cordon_child **ret, struct cordon_error *reterr)
{
	struct cordon_run_opts o;
	struct cordon_confined *c = NULL;
	int r;

	if (!l || !ret)
		return error_set(reterr, -EINVAL, "no launch or no place for the child");
	r = run_opts_take(opts, &o, reterr);
	if (r < 0)
		return r;
	r = cordon_launch_confine(l, argv, &c, reterr);
	if (r < 0)
		return r;
	cordon_launch_run_opts(l, &o);
	return spawn_child(c, c, &o, &l->plan, stdio, ret, reterr);
}

CORDON_API pid_t cordon_child_pid(const struct cordon_child *c)
{
	return c ? spawn_child_pid(c->sc) : -1;
}

CORDON_API bool cordon_child_terminal(const struct cordon_child *c)
{
	return c && c->pty;
}

CORDON_API int cordon_child_pidfd(const struct cordon_child *c)
{
	return c ? spawn_child_pidfd(c->sc) : -1;
}

CORDON_API int cordon_child_output_fd(const struct cordon_child *c)
{
	return c ? spawn_child_output_fd(c->sc) : -1;
}

CORDON_API size_t cordon_child_pollfds(struct cordon_child *c, struct pollfd *pfd, int *timeout_ms)
{
	if (!c || !pfd || !timeout_ms)
		return 0;
	if (c->ended) {
		*timeout_ms = 0;
		return 0;
	}
	return spawn_pollfds(c->sc, pfd, timeout_ms);
}

CORDON_API int cordon_child_step(struct cordon_child *c, const struct pollfd *pfd, size_t n)
{
	int r;

	if (!c || (n && !pfd))
		return -EINVAL;
	if (c->ended)
		return 1;
	r = spawn_step(c->sc, pfd, n);
	if (r != 0)
		c->ended = true;
	return r;
}

CORDON_API void cordon_child_kill(struct cordon_child *c)
{
	if (!c || c->ended)
		return;
	spawn_kill(c->sc);
	c->ended = true;
}

CORDON_API int cordon_collect(struct cordon_child *c, struct cordon_result **ret)
{
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	const struct cordon_confined *confined;
	struct cordon_classification cls = {};
	struct spawn_result sr = {};
	struct limits_events ev = {};
	int r;

	if (!c || !ret)
		return -EINVAL;
	if (!c->ended)
		return -EBUSY;
	if (c->collected)
		return -EALREADY;
	confined = c->confined;
	r = spawn_finish(c->sc, &sr);
	if (r < 0)
		return r;
	c->collected = true;
	if (c->o.limits)
		limits_cgroup_events(&c->cg, &ev);
	/* what the runner wrote on its status channel, if it has one */
	_cleanup_free_ char *status_record = TAKE_PTR(sr.status);

	res = calloc(1, sizeof(*res));
	if (!res) {
		free(sr.output);
		free(sr.err_output);
		return -ENOMEM;
	}
	res->stderr_output = sr.err_output;
	res->stderr_len = sr.err_len;
	res->stderr_total = sr.err_total;
	res->limits = c->plan;
	res->exit_code = sr.exit_code;
	res->signal = sr.signal;
	res->output = sr.output;
	res->output_len = sr.output_len;
	res->output_total = sr.output_total;
	res->truncated = sr.output_total > sr.output_len || sr.err_total > sr.err_len || sr.output_over;
	if (c->pty) {
		sr.output_len = crlf_to_lf(sr.output, sr.output_len);
		res->output_len = sr.output_len;
		res->terminal = true;
	}

	/* Kept apart, the streams are still read as one for the verdict, the
	 * limit and the annotation: stdout, then stderr. */
	_cleanup_free_ char *both = NULL;
	struct spawn_result view = sr;
	if (sr.err_output) {
		size_t n = sr.output_len;
		bool nl = n > 0 && sr.output[n - 1] != '\n' && sr.err_len > 0;

		both = malloc(n + nl + sr.err_len + 1);
		if (!both)
			return -ENOMEM;
		memcpy(both, sr.output, n);
		if (nl)
			both[n++] = '\n';
		memcpy(both + n, sr.err_output, sr.err_len);
		both[n + sr.err_len] = '\0';
		view.output = both;
		view.output_len = n + sr.err_len;
	}
	res->duration_ms = sr.duration_us / 1000;
	res->enforcement = confined->enforcement;
	res->grade = confined->grade;
	res->mode = confined->mode;

	if (sr.timed_out) {
		/* what `cordon run` exits with, also in the struct */
		res->verdict = CORDON_VERDICT_TIMEOUT;
		res->exit_code = CORDON_EXIT_TIMEOUT;
	} else {
		int status = sr.signal ? 128 + sr.signal : sr.exit_code;

		/* The status channel, where there is one, says whether the
		 * runner failed; the output never does then. */
		r = cordon_classify_status(confined, status, status_record, sr.status_len, view.output,
					   view.output_len, &cls);
		if (r < 0)
			return r;
		res->verdict = cls.verdict;
		res->runner_line = cls.line;
	}
	res->status_len = sr.status_len;
	res->status = TAKE_PTR(status_record);
	res->runner_left = spawn_child_left(c->sc) ? spawn_child_pid(c->sc) : 0;
	res->limit = limit_fired(&c->o, &view, &ev);
	res->limit_mechanism = c->plan.mechanism[res->limit];
	/* A limit that fired is always reported (limit); it is the verdict
	 * only when the command did not succeed anyway: exit 0 is OK. */
	if (res->limit != CORDON_LIMIT_NONE && res->limit != CORDON_LIMIT_TIMEOUT &&
	    res->verdict != CORDON_VERDICT_RUNNER_FAILED && (sr.signal || sr.exit_code != 0) &&
	    !(res->limit == CORDON_LIMIT_OUTPUT && !sr.output_killed))
		res->verdict = CORDON_VERDICT_LIMIT_EXCEEDED;

	r = run_annotate(res, view.output, view.output_len, c->o.timeout_ms);
	if (r < 0)
		return r;
	/* Whatever the command left in its cgroups goes now. */
	limits_cgroup_destroy(&c->cg);
	*ret = TAKE_PTR(res);
	return 0;
}

CORDON_API int cordon_wait(struct cordon_child *c, struct cordon_result **ret)
{
	int r = 0;

	if (!c || !ret)
		return -EINVAL;
	while (!c->ended) {
		struct pollfd pfd[CORDON_CHILD_MAX_POLLFDS];
		int wait_ms = -1;
		size_t n = cordon_child_pollfds(c, pfd, &wait_ms);
		int pr = n > 0 ? poll(pfd, (nfds_t)n, wait_ms) : (usleep((useconds_t)wait_ms * 1000), 0);

		if (pr < 0 && errno != EINTR) {
			r = -errno;
			cordon_child_kill(c);
			return r;
		}
		r = cordon_child_step(c, pfd, pr > 0 ? n : 0);
		if (r < 0)
			return r;
	}
	return cordon_collect(c, ret);
}

CORDON_API int cordon_run(const struct cordon_confined *confined, const struct cordon_run_opts *opts,
			  struct cordon_result **ret)
{
	_cleanup_(cordon_child_freep) struct cordon_child *c = NULL;
	int r;

	struct cordon_run_opts o;

	if (!confined || !confined->argv || !confined->argv[0] || !ret)
		return -EINVAL;
	r = run_opts_take(opts, &o, NULL);
	if (r < 0)
		return r;
	r = spawn_child(confined, NULL, &o, NULL, NULL, &c, NULL);
	if (r < 0)
		return r;
	return cordon_wait(c, ret);
}
