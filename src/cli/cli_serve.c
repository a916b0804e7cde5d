/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon serve`: one long-lived sandbox instance and the commands run in
 * it. The session's policy is built exactly as `cordon run` builds it
 * (profile, then flags) and started once through the native runner with
 * --serve-fd: its server, confined as a command would be, forks each
 * command (src/exec/serve.c). Here: the session's start and end, each
 * command's pipes, bounds (timeout, output cap, working directory), result
 * (`run --json`'s object), and the one poll loop over stdin and every
 * command's fds. The front ends: JSON lines (cli_serve_jsonl.c, the
 * default) and the Model Context Protocol (--mcp, cli_mcp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cli_serve.h"
#include "cordon/runner.h"
#include "serve_request.h"
#include "strv.h"

#define say cli_say
#define SERVE_DEFAULT_MAX_OUTPUT (1024u * 1024)
#define SERVE_CTL_MAX (64u * 1024)  /* the command's status records */
#define SERVE_END_GRACE_MS 5000     /* in-flight commands' results at the end */

extern char **environ;

struct run {
	bool used;
	json_t *id;
	int out, err, ctl, in; /* ours; -1 when closed */
	char *stdin_data;
	size_t stdin_len, stdin_off;
	char *output;          /* captured, merged, up to max_output */
	size_t output_len;
	uint64_t output_total;
	uint64_t max_output;
	char ctl_buf[SERVE_CTL_MAX];
	size_t ctl_len;
	bool ctl_over;
	int timeout_ms;
	uint64_t start_us, deadline_us;
	bool timed_out, output_killed, killed, dropped, stream;
};

struct serve {
	struct cli_args *a;
	struct cordon_profile_handle *prof;
	struct cordon_confined *c;
	struct cordon_backend_info info;
	struct serve_frontend fe;
	pid_t runner;
	int sock;
	int status_r;          /* the session's status channel (the runner's own failures) */
	char cwd[4096];
	struct run runs[SERVE_RUNS_MAX];
	size_t n_runs;
	struct timespec home_mtime[3]; /* $HOME, ~/.config, ~/.local/share at the start */
	int n_rl;
	int rl_res[CORDON_SERVE_RLIMITS_MAX];
	uint64_t rl_val[CORDON_SERVE_RLIMITS_MAX];
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int serve_emit(json_t *o)
{
	return cli_print_json(o);
}

/* ---- the session ---- */

/* [runner, "exec", "--serve-fd", N, "--no-terminal", flags..., "--", ...]:
 * the commands get pipes, never a terminal; and the terminal the runner's
 * stderr may be is no path a command can open for writing either (light
 * isolation would grant it by name, as it does for `cordon run` on one). */
static int with_serve_fd(char *const *argv, int fd, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	for (size_t i = 0; argv[i]; i++)
		if (strv_push(&v, argv[i]) < 0 || (i == 1 && (strv_push(&v, "--serve-fd") < 0 || strv_push(&v, num) < 0 ||
					   strv_push(&v, "--no-terminal") < 0)))
			return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/* Start the runner with its server; 0 once it said it is serving. */
static int session_start(struct serve *s)
{
	const struct cordon_confined *c = s->c;
	_cleanup_strv_free_ char **argv = NULL;
	int sp[2], st[2], serve_fd = 9, r;

	if (c->enforcement != CORDON_ENFORCEMENT_NATIVE || !c->argv[1] || strcmp(c->argv[1], "exec") != 0 ||
	    c->status_fd <= 2) {
		say("cordon serve needs the native runner (this policy runs under %s)",
		    cordon_enforcement_to_string(c->enforcement));
		return -EOPNOTSUPP;
	}
	while (serve_fd == c->status_fd || serve_fd == c->status_fd + 1 || serve_fd == c->exec_fd ||
	       serve_fd == c->broker_fd)
		serve_fd++;
	if (with_serve_fd(c->argv, serve_fd, &argv) < 0)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return -errno;
	if (pipe2(st, O_CLOEXEC) < 0) {
		r = -errno;
		close(sp[0]);
		close(sp[1]);
		return r;
	}
	s->runner = fork();
	if (s->runner < 0) {
		r = -errno;
		close(sp[0]), close(sp[1]), close(st[0]), close(st[1]);
		return r;
	}
	if (s->runner == 0) {
		int a = fcntl(sp[1], F_DUPFD_CLOEXEC, 100), b = fcntl(st[1], F_DUPFD_CLOEXEC, 100);
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* nothing outlives the session; stdout is the session's replies */
		if (a < 0 || b < 0 || null < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    dup2(a, serve_fd) < 0 || dup2(b, c->status_fd) < 0 || dup2(null, 0) < 0 || dup2(2, 1) < 0)
			_exit(CLI_EXIT_REFUSED);
		execve(argv[0], argv, c->envp ? c->envp : environ);
		_exit(CLI_EXIT_REFUSED);
	}
	close(sp[1]);
	close(st[1]);
	s->sock = sp[0];
	s->status_r = st[0];
	r = cordon_serve_wait_ready(s->sock);
	if (r < 0) {
		char rec[2048];
		ssize_t n = read(s->status_r, rec, sizeof(rec) - 1);
		char *line = n > 0 ? (rec[n] = '\0', strrchr(rec, '\t')) : NULL;

		say("the sandbox did not start: %s", line ? line + 1 : strerror(-r));
	}
	return r;
}

static void session_end(struct serve *s)
{
	int st;

	close_fd(&s->sock); /* the server ends, init and the namespace with it */
	if (s->runner > 0) {
		while (waitpid(s->runner, &st, 0) < 0 && errno == EINTR)
			;
		s->runner = -1;
	}
	close_fd(&s->status_r);
}

/* The session's rlimits for each command: those of the flags and the
 * profile that an rlimit enforces per command. */
static int session_limits(struct serve *s)
{
	const struct cordon_limits *l = &s->a->limits;

	if (!s->a->limits_set)
		return 0;
	if (l->processes) {
		say("--max-processes needs a pids cgroup per run, which cordon serve does not make: refused");
		return -EOPNOTSUPP;
	}
#define RL(res, v)                                  \
	if (v) {                                    \
		s->rl_res[s->n_rl] = res;           \
		s->rl_val[s->n_rl++] = (uint64_t)v; \
	}
	RL(RLIMIT_CPU, l->cpu_seconds);
	RL(RLIMIT_AS, l->memory);
	RL(RLIMIT_FSIZE, l->file_size);
	RL(RLIMIT_NOFILE, l->open_files);
#undef RL
	return 0;
}

/* The directories the credential catalogue lives in, as they were when the
 * sandbox was made. Its Landlock ruleset is the session's: a store created
 * there later stays hidden (no rule names it), and so does any other new
 * entry, which `cordon run` would show; a denial then says so. */
static const char *const home_dirs[] = { "", "/.config", "/.local/share" };

static bool home_stat(size_t i, struct timespec *ret)
{
	const char *home = getenv("HOME");
	char path[4096];
	struct stat st;

	if (!home || home[0] != '/' || snprintf(path, sizeof(path), "%s%s", home, home_dirs[i]) >= (int)sizeof(path) ||
	    stat(path, &st) < 0)
		return false;
	*ret = st.st_mtim;
	return true;
}

static void home_snapshot(struct serve *s)
{
	for (size_t i = 0; i < ELEMENTSOF(home_dirs); i++)
		if (!home_stat(i, &s->home_mtime[i]))
			s->home_mtime[i] = (struct timespec){ -1, 0 };
}

static bool home_changed(const struct serve *s)
{
	for (size_t i = 0; i < ELEMENTSOF(home_dirs); i++) {
		struct timespec t = { -1, 0 };

		(void)home_stat(i, &t);
		if (t.tv_sec != s->home_mtime[i].tv_sec || t.tv_nsec != s->home_mtime[i].tv_nsec)
			return true;
	}
	return false;
}

/* ---- commands ---- */

static struct run *find_run(struct serve *s, json_t *id)
{
	for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
		if (s->runs[i].used && json_equal(s->runs[i].id, id))
			return &s->runs[i];
	return NULL;
}

static void run_free(struct serve *s, struct run *r)
{
	close_fd(&r->out);
	close_fd(&r->err);
	close_fd(&r->ctl);
	close_fd(&r->in);
	json_decref(r->id);
	free(r->stdin_data);
	free(r->output);
	*r = (struct run){ .out = -1, .err = -1, .ctl = -1, .in = -1 };
	s->n_runs--;
}

static void run_kill(struct run *r)
{
	if (r->killed || r->ctl < 0)
		return;
	r->killed = true;
	(void)!write(r->ctl, "K", 1);
}

void serve_cancel(struct serve *s, json_t *id, bool drop)
{
	struct run *r = find_run(s, id);

	if (!r)
		return;
	r->dropped |= drop;
	run_kill(r);
}

/* The working directory, checked as the broker checks a tool's: an
 * absolute path to a directory that exists now, identified by device and
 * inode, which the command's own lookup inside the sandbox must find
 * again (src/exec/serve.c); what the sandbox cannot see is refused there. */
static int check_cwd(const char *cwd, struct stat *ret, char *err, size_t errlen)
{
	_cleanup_close_ int fd = -1;

	if (cwd[0] != '/')
		return snprintf(err, errlen, "cwd: %s is not an absolute path", cwd), -EINVAL;
	fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, ret) < 0)
		return snprintf(err, errlen, "cwd: %s: %s", cwd, strerror(errno)), -errno;
	return 0;
}

int serve_submit(struct serve *s, const struct serve_spec *sp, char *err, size_t errlen)
{
	uint64_t cap = s->a->max_output_set ? s->a->max_output : SERVE_DEFAULT_MAX_OUTPUT;
	int out[2] = { -1, -1 }, er[2] = { -1, -1 }, ctl[2] = { -1, -1 }, in[2] = { -1, -1 }, rc;
	const char *cwd = sp->cwd ? sp->cwd : s->cwd;
	struct run *r = NULL;
	struct stat st;

	if (find_run(s, sp->id))
		return snprintf(err, errlen, "id: a command with this id is still running"), -EEXIST;
	if (s->n_runs >= SERVE_RUNS_MAX)
		return snprintf(err, errlen, "busy: %d commands are in flight already", SERVE_RUNS_MAX), -EBUSY;
	/* the policy bounds every request: never above the session's */
	if (sp->timeout_ms && s->a->timeout_ms && sp->timeout_ms > s->a->timeout_ms)
		return snprintf(err, errlen, "timeout: %d ms is over the session's %d ms", sp->timeout_ms,
				s->a->timeout_ms), -EPERM;
	if (sp->max_output > cap)
		return snprintf(err, errlen, "max_output: %llu bytes is over the session's %llu",
				(unsigned long long)sp->max_output, (unsigned long long)cap), -EPERM;
	rc = check_cwd(cwd, &st, err, errlen);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < SERVE_RUNS_MAX && !r; i++)
		if (!s->runs[i].used)
			r = &s->runs[i];
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(er, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctl) < 0 ||
	    (sp->stdin_data ? pipe2(in, O_CLOEXEC) : ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0 ? -1 : 0)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot make the command's pipes: %s", strerror(errno));
		goto fail;
	}
	/* the server's end of ctl blocks: it writes the records once */
	(void)fcntl(ctl[1], F_SETFL, 0);
	struct cordon_serve_run q = {
		.argv = (const char *const *)sp->argv,
		.env = (const char *const *)sp->env,
		.cwd = cwd,
		.cwd_dev = st.st_dev,
		.cwd_ino = st.st_ino,
		.n_rlimits = (size_t)s->n_rl,
		.stdio = { in[0], out[1], er[1] },
		.ctl = ctl[1],
	};
	memcpy(q.rlimit_resource, s->rl_res, sizeof(q.rlimit_resource));
	memcpy(q.rlimit_value, s->rl_val, sizeof(q.rlimit_value));
	rc = cordon_serve_send(s->sock, &q);
	if (rc < 0) {
		snprintf(err, errlen, "cannot hand the command to the sandbox's server: %s", strerror(-rc));
		goto fail;
	}
	close(in[0]), close(out[1]), close(er[1]), close(ctl[1]);
	*r = (struct run){
		.used = true, .id = json_incref(sp->id), .out = out[0], .err = er[0], .ctl = ctl[0], .in = in[1],
		.max_output = sp->max_output ? sp->max_output : cap,
		.timeout_ms = sp->timeout_ms ? sp->timeout_ms : s->a->timeout_ms,
		.start_us = now_us(), .stream = sp->stream,
	};
	if (sp->stdin_data) {
		r->stdin_data = malloc(sp->stdin_len + 1);
		if (r->stdin_data)
			memcpy(r->stdin_data, sp->stdin_data, sp->stdin_len);
		r->stdin_len = r->stdin_data ? sp->stdin_len : 0;
		(void)fcntl(r->in, F_SETFL, O_NONBLOCK);
	}
	if (r->timeout_ms)
		r->deadline_us = r->start_us + (uint64_t)r->timeout_ms * 1000u;
	s->n_runs++;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (er[i] >= 0)
			close(er[i]);
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (in[i] >= 0)
			close(in[i]);
	}
	return rc;
}

/* Captured up to the cap (merged, in arrival order), counted past it;
 * streamed as events while under it. */
static void run_output(struct serve *s, struct run *r, const char *stream, const char *buf, size_t n)
{
	size_t room = r->output_len < r->max_output ? (size_t)(r->max_output - r->output_len) : 0, keep = n < room ? n : room;

	r->output_total += n;
	if (keep) {
		char *o = realloc(r->output, r->output_len + keep + 1);

		if (o) {
			memcpy(o + r->output_len, buf, keep);
			r->output_len += keep;
			o[r->output_len] = '\0';
			r->output = o;
		}
		if (r->stream && !r->dropped) {
			_cleanup_(json_decrefp) json_t *ev = json_pack("{s:O,s:s,s:o}", "id", r->id, "stream", stream,
								       "data", cli_json_text(buf, keep));

			(void)serve_emit(ev);
		}
	}
	if (keep < n && s->a->output_terminate && !r->killed) {
		r->output_killed = true;
		run_kill(r);
	}
}

static void run_read(struct serve *s, struct run *r, int *fd, const char *stream)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0)
		run_output(s, r, stream, buf, (size_t)n);
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		close_fd(fd);
}

static void run_read_ctl(struct run *r)
{
	char buf[4096];
	ssize_t n = read(r->ctl, buf, sizeof(buf));

	if (n > 0) {
		size_t keep = (size_t)n < sizeof(r->ctl_buf) - 1 - r->ctl_len ? (size_t)n : sizeof(r->ctl_buf) - 1 - r->ctl_len;

		memcpy(r->ctl_buf + r->ctl_len, buf, keep);
		r->ctl_len += keep;
		r->ctl_over |= keep < (size_t)n;
		r->ctl_buf[r->ctl_len] = '\0';
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		close_fd(&r->ctl);
}

static void run_write_stdin(struct run *r)
{
	ssize_t n = write(r->in, r->stdin_data + r->stdin_off, r->stdin_len - r->stdin_off);

	if (n > 0)
		r->stdin_off += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) || r->stdin_off >= r->stdin_len)
		close_fd(&r->in);
}

/* What an agent reads: the output, then the exit line and cordon's marker
 * when there is something to say. */
static char *run_text(const struct run *r, const struct cordon_result *res)
{
	char *t = NULL;
	const char *v = cordon_verdict_to_string(res->verdict);
	int code = res->signal ? 128 + res->signal : res->exit_code;

	if (asprintf(&t, "%.*s%s%s%.0d%s%s%s%s%s", (int)r->output_len, r->output ? r->output : "",
		     r->output_len && r->output[r->output_len - 1] != '\n' ? "\n" : "", code ? "Exit code: " : "", code,
		     code ? "\n" : "", res->verdict != CORDON_VERDICT_OK ? "[cordon: " : "",
		     res->verdict != CORDON_VERDICT_OK ? v : "", res->verdict != CORDON_VERDICT_OK ? "]\n" : "",
		     res->runner_line ? res->runner_line : "") < 0)
		return NULL;
	return t;
}

/* Which of the session's rlimits ended the command, read as cordon_run
 * reads it where there is no cgroup counter: the signal the kernel sends,
 * or the command's own error text. */
static enum cordon_limit rlimit_fired(const struct serve *s, const struct cordon_result *res)
{
	const struct cordon_limits *l = &s->a->limits;
	bool failed = res->signal || res->exit_code != 0;
	const char *out = res->output;

	if (!s->a->limits_set || !failed)
		return CORDON_LIMIT_NONE;
	if (l->cpu_seconds && (res->signal == SIGXCPU || res->signal == SIGKILL))
		return CORDON_LIMIT_CPU;
	if (l->memory && (strcasestr(out, "cannot allocate memory") || strcasestr(out, "memoryerror") ||
			  strcasestr(out, "out of memory")))
		return CORDON_LIMIT_MEMORY;
	if (l->file_size && (res->signal == SIGXFSZ || res->exit_code == 128 + SIGXFSZ || strcasestr(out, "file too large")))
		return CORDON_LIMIT_FILE_SIZE;
	if (l->open_files && strcasestr(out, "too many open files"))
		return CORDON_LIMIT_OPEN_FILES;
	return CORDON_LIMIT_NONE;
}

/* The command ended and every fd of it is closed: its result. */
static void run_finish(struct serve *s, struct run *r)
{
	struct cordon_result res = { .enforcement = s->c->enforcement, .grade = s->c->grade, .mode = s->c->mode };
	struct cordon_classification cls = {};
	struct cli_args a = *s->a;
	char *eq = NULL, *bang = r->ctl_len && r->ctl_buf[0] == '!' ? r->ctl_buf + 1 : NULL;
	int status = 0;
	bool have = false;

	/* the last line "=STATUS" is the reaper's; before it, the command's records */
	for (char *p = r->ctl_buf; p && *p;) {
		char *nl = strchr(p, '\n');

		if (*p == '=')
			eq = p;
		p = nl ? nl + 1 : NULL;
	}
	if (eq) {
		status = atoi(eq + 1);
		*eq = '\0';
		have = true;
	}
	if (bang || !have) {
		if (!r->dropped) {
			char *nl = bang ? strchr(bang, '\n') : NULL;

			if (nl)
				*nl = '\0';
			s->fe.done(s, r->id, NULL, bang ? bang : "the command's server ended before it did", s->fe.userdata);
		}
		run_free(s, r);
		return;
	}
	res.output = r->output ? r->output : "";
	res.output_len = r->output_len;
	res.output_total = r->output_total;
	res.truncated = r->output_total > r->output_len;
	res.duration_ms = (now_us() - r->start_us) / 1000u;
	res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (r->timed_out) {
		res.verdict = CORDON_VERDICT_TIMEOUT;
		res.exit_code = CORDON_EXIT_TIMEOUT;
		res.limit = CORDON_LIMIT_TIMEOUT;
	} else if (cordon_classify_status(s->c, res.signal ? 128 + res.signal : res.exit_code, r->ctl_buf,
					  strlen(r->ctl_buf), res.output, res.output_len, &cls) == 0) {
		res.verdict = cls.verdict;
		res.runner_line = cls.line;
	} else
		res.verdict = CORDON_VERDICT_RUNNER_FAILED;
	if (r->output_killed) {
		res.limit = CORDON_LIMIT_OUTPUT;
		if (res.verdict != CORDON_VERDICT_RUNNER_FAILED)
			res.verdict = CORDON_VERDICT_LIMIT_EXCEEDED;
	} else if ((res.limit == CORDON_LIMIT_NONE) && (res.limit = rlimit_fired(s, &res)) != CORDON_LIMIT_NONE) {
		if (res.verdict != CORDON_VERDICT_RUNNER_FAILED)
			res.verdict = CORDON_VERDICT_LIMIT_EXCEEDED;
	} else if (res.truncated && res.limit == CORDON_LIMIT_NONE)
		res.limit = CORDON_LIMIT_OUTPUT;
	res.limit_mechanism = res.limit == CORDON_LIMIT_NONE					    ? CORDON_MECHANISM_NONE
			      : res.limit == CORDON_LIMIT_TIMEOUT || res.limit == CORDON_LIMIT_OUTPUT ? CORDON_MECHANISM_SUPERVISOR
													      : CORDON_MECHANISM_RLIMIT;
	for (int k = 0; k < _CORDON_LIMIT_MAX; k++)
		res.limits.mechanism[k] = k == CORDON_LIMIT_TIMEOUT || k == CORDON_LIMIT_OUTPUT ? CORDON_MECHANISM_SUPERVISOR
											 : CORDON_MECHANISM_RLIMIT;
	a.timeout_ms = r->timeout_ms;
	a.max_output = r->max_output;
	if (!r->dropped) {
		_cleanup_(json_decrefp) json_t *obj = cli_result_json(&a, &res, &s->info, 0);
		_cleanup_(json_decrefp) json_t *hints = NULL, *denials = NULL;
		_cleanup_free_ char *text = run_text(r, &res);
		size_t omitted = 0;

		if (obj && cli_hints_collect(&a, s->prof, s->c, &res, &hints, &denials, &omitted) == 0) {
			if (res.verdict == CORDON_VERDICT_DENIED && json_is_array(hints) && home_changed(s))
				json_array_append_new(hints, json_string(
					"your home directory changed after this cordon serve session started: what was created "
					"there since is unreadable in it (credential stores stay hidden), until a new session"));
			json_object_set(obj, "hints", hints);
			json_object_set(obj, "denials", denials);
			json_object_set_new(obj, "denials_omitted", json_integer((json_int_t)omitted));
		}
		s->fe.done(s, r->id, obj, text ? text : "", s->fe.userdata);
	}
	free(cls.line);
	run_free(s, r);
}

/* ---- the loop ---- */

/* SIGTERM, SIGINT or SIGHUP to cordon serve: the session ends as at the
 * end of stdin (every command killed, their results said), then cordon
 * exits 128 + the signal. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct line_reader {
	char *buf;
	size_t len;
	bool overlong;
	size_t dropped;
	bool eof;
};

static void read_lines(struct serve *s, struct line_reader *lr)
{
	char chunk[65536];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		lr->eof = true;
		return;
	}
	for (ssize_t i = 0; i < n;) {
		char *nl = memchr(chunk + i, '\n', (size_t)(n - i));
		size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)(n - i);

		if (!lr->overlong && lr->len + take > SERVE_LINE_MAX) {
			lr->overlong = true;
			lr->dropped = lr->len;
			lr->len = 0;
		}
		if (lr->overlong)
			lr->dropped += take;
		else {
			memcpy(lr->buf + lr->len, chunk + i, take);
			lr->len += take;
		}
		i += (ssize_t)take;
		if (!nl)
			break;
		i++;
		if (lr->overlong)
			s->fe.overlong(s, lr->dropped, s->fe.userdata);
		else if (lr->len > 0)
			s->fe.line(s, lr->buf, lr->len, s->fe.userdata);
		lr->len = 0;
		lr->overlong = false;
		lr->dropped = 0;
	}
}

static int serve_loop(struct serve *s)
{
	struct line_reader lr = { .buf = malloc(SERVE_LINE_MAX + 1) };
	uint64_t end_by = 0;

	if (!lr.buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p[1 + 4 * SERVE_RUNS_MAX];
		struct { struct run *r; int which; } who[1 + 4 * SERVE_RUNS_MAX];
		uint64_t now = now_us(), next = 0;
		size_t n = 0;
		int wait_ms;

		if (stop_signal)
			lr.eof = true;
		if (lr.eof && !end_by) {
			/* the end of stdin ends the session: every command is killed */
			for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
				if (s->runs[i].used)
					run_kill(&s->runs[i]);
			end_by = now + SERVE_END_GRACE_MS * 1000u;
		}
		if (lr.eof && (s->n_runs == 0 || now >= end_by))
			break;
		if (!lr.eof) {
			p[n] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
			who[n++].r = NULL;
		}
		for (size_t i = 0; i < SERVE_RUNS_MAX; i++) {
			struct run *r = &s->runs[i];

			if (!r->used)
				continue;
			if (r->deadline_us && !r->killed && now >= r->deadline_us) {
				r->timed_out = true;
				run_kill(r);
			}
			if (r->out < 0 && r->err < 0 && r->ctl < 0) {
				run_finish(s, r);
				continue;
			}
			int fds[4] = { r->out, r->err, r->ctl, r->in };
			for (int k = 0; k < 4; k++)
				if (fds[k] >= 0) {
					p[n] = (struct pollfd){ .fd = fds[k], .events = k == 3 ? POLLOUT : POLLIN };
					who[n].r = r;
					who[n++].which = k;
				}
			if (r->deadline_us && !r->killed && (!next || r->deadline_us < next))
				next = r->deadline_us;
		}
		if (end_by && (!next || end_by < next))
			next = end_by;
		wait_ms = next ? (int)((next > now ? next - now : 0) / 1000u) + 1 : -1;
		if (poll(p, n, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			free(lr.buf);
			return -errno;
		}
		for (size_t i = 0; i < n; i++) {
			struct run *r = who[i].r;

			if (!p[i].revents)
				continue;
			if (!r) {
				read_lines(s, &lr);
				continue;
			}
			if (!r->used)
				continue;
			switch (who[i].which) {
			case 0:
				run_read(s, r, &r->out, "stdout");
				break;
			case 1:
				run_read(s, r, &r->err, "stderr");
				break;
			case 2:
				run_read_ctl(r);
				break;
			default:
				run_write_stdin(r);
			}
		}
	}
	free(lr.buf);
	return 0;
}

int cli_serve(const struct cli_args *args, void (*frontend)(struct serve_frontend *ret))
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
	_cleanup_(cordon_launch_freep) struct cordon_launch *launch = NULL;
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cli_args eff, *a = &eff;
	struct serve s = { .a = &eff, .runner = -1, .sock = -1, .status_r = -1 };
	const char *kind;
	int r;

	for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
		s.runs[i] = (struct run){ .out = -1, .err = -1, .ctl = -1, .in = -1 };
	r = cli_load_profile(args, &prof);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (cordon_profile_tools(prof)) {
		say("a profile with command_policies runs under the supervisor; cordon serve does not serve it");
		return CLI_EXIT_REFUSED;
	}
	/* one road, as cordon run: the profile and the flags into a launch
	 * (policy, backend, the merged limits, checked once); the session's
	 * command is a stand-in: the server runs none of it */
	char *stand_in[] = { (char *)"true", NULL };
	eff = *args;
	eff.command = stand_in;
	r = cli_launch(&eff, prof, false, &launch, &kind);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	/* from here on, eff has the launch's merged limits */
	cli_args_from_launch(&eff, launch, &eff);
	s.info = *cordon_launch_backend(launch);
	r = cli_confine_launch(launch, a, &c, &kind);
	eff.command = NULL;
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (!getcwd(s.cwd, sizeof(s.cwd))) {
		say("cannot read the working directory: %m");
		return CLI_EXIT_REFUSED;
	}
	s.prof = prof;
	s.c = c;
	if (session_limits(&s) < 0)
		return CLI_EXIT_REFUSED;
	frontend(&s.fe);
	struct sigaction stop = { .sa_handler = on_stop }; /* no SA_RESTART: poll wakes */

	sigfillset(&stop.sa_mask);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	home_snapshot(&s);
	r = session_start(&s);
	if (r < 0) {
		session_end(&s);
		return CLI_EXIT_REFUSED;
	}
	r = serve_loop(&s);
	for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
		if (s.runs[i].used)
			run_free(&s, &s.runs[i]);
	session_end(&s);
	(void)cordon_kill_descendants(getpid());
	if (stop_signal)
		return 128 + stop_signal;
	return r < 0 ? CLI_EXIT_REFUSED : 0;
}
