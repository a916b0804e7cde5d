/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon serve`: one long-lived sandbox instance and the commands run in
 * it. The session's launch is built exactly as `cordon run` builds it
 * (profile, then flags) and opened once as the library's session
 * (cordon_session_open, src/lib/run/session.c: the runner's server forks
 * each command, its bounds, capture, timeout and result are the
 * library's). Here: the requests' ids, stdin data, streamed events and
 * `run --json` objects, and the one poll loop over stdin and every
 * command. The front ends: JSON lines (cli_serve_jsonl.c, the default)
 * and the Model Context Protocol (--mcp, cli_mcp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cli_serve.h"
#include "serve_request.h"

#define say cli_say
#define SERVE_DEFAULT_MAX_OUTPUT (1024u * 1024)
#define SERVE_END_GRACE_MS 5000     /* in-flight commands' results at the end */

struct run {
	bool used;
	struct serve *s;
	json_t *id;
	struct cordon_session_cmd *cmd;
	int in;                /* ours, feeding stdin_data; -1 when closed */
	char *stdin_data;
	size_t stdin_len, stdin_off;
	uint64_t max_output;
	int timeout_ms;
	bool ended, dropped, stream;
};

struct serve {
	struct cli_args *a;
	struct cordon_profile_handle *prof;
	const struct cordon_launch *launch;
	struct cordon_session *sess;
	struct cordon_backend_info info;
	struct serve_frontend fe;
	struct run runs[SERVE_RUNS_MAX];
	size_t n_runs;
};

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
	cordon_session_cmd_free(r->cmd);
	close_fd(&r->in);
	json_decref(r->id);
	free(r->stdin_data);
	*r = (struct run){ .in = -1 };
	s->n_runs--;
}

void serve_cancel(struct serve *s, json_t *id, bool drop)
{
	struct run *r = find_run(s, id);

	if (!r)
		return;
	r->dropped |= drop;
	cordon_session_cmd_kill(r->cmd);
}

/* Streamed as events while under the cap (the library captures). */
static void run_output(void *userdata, int stream, const char *buf, size_t n)
{
	struct run *r = userdata;

	if (r->stream && !r->dropped) {
		_cleanup_(json_decrefp) json_t *ev = json_pack("{s:O,s:s,s:o}", "id", r->id, "stream",
							       stream == 2 ? "stderr" : "stdout", "data",
							       cli_json_text(buf, n));

		(void)serve_emit(ev);
	}
}

int serve_submit(struct serve *s, const struct serve_spec *sp, char *err, size_t errlen)
{
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	struct cordon_error e = {};
	_cleanup_close_ int in_r = -1;
	int in[2] = { -1, -1 }, rc;
	struct run *r = NULL;

	if (find_run(s, sp->id))
		return snprintf(err, errlen, "id: a command with this id is still running"), -EEXIST;
	if (s->n_runs >= SERVE_RUNS_MAX)
		return snprintf(err, errlen, "busy: %d commands are in flight already", SERVE_RUNS_MAX), -EBUSY;
	for (size_t i = 0; i < SERVE_RUNS_MAX && !r; i++)
		if (!s->runs[i].used)
			r = &s->runs[i];
	if (sp->stdin_data) {
		if (pipe2(in, O_CLOEXEC) < 0)
			return snprintf(err, errlen, "cannot make the command's pipes: %s", strerror(errno)), -errno;
		in_r = in[0];
		(void)fcntl(in[1], F_SETFL, O_NONBLOCK);
	}
	*r = (struct run){ .s = s, .id = sp->id, .in = in[1], .stream = sp->stream };
	o.cwd = sp->cwd;
	o.env = (const char *const *)sp->env;
	o.stdin_fd = in_r;
	o.timeout_ms = sp->timeout_ms;
	o.max_output = sp->max_output;
	o.on_output = run_output;
	o.userdata = r;
	rc = cordon_session_spawn(s->sess, (const char *const *)sp->argv, &o, &r->cmd, &e);
	if (rc < 0) {
		close_fd(&r->in);
		*r = (struct run){ .in = -1 };
		snprintf(err, errlen, "%s", e.message[0] ? e.message : strerror(-rc));
		return rc;
	}
	r->used = true;
	r->id = json_incref(sp->id);
	r->max_output = sp->max_output ? sp->max_output
			: s->a->max_output_set ? s->a->max_output : SERVE_DEFAULT_MAX_OUTPUT;
	r->timeout_ms = sp->timeout_ms ? sp->timeout_ms : s->a->timeout_ms;
	if (sp->stdin_data) {
		r->stdin_data = malloc(sp->stdin_len + 1);
		if (r->stdin_data)
			memcpy(r->stdin_data, sp->stdin_data, sp->stdin_len);
		r->stdin_len = r->stdin_data ? sp->stdin_len : 0;
	}
	s->n_runs++;
	return 0;
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
static char *run_text(const struct cordon_result *res)
{
	char *t = NULL;
	const char *v = cordon_verdict_to_string(res->verdict);
	int code = res->signal ? 128 + res->signal : res->exit_code;

	if (asprintf(&t, "%.*s%s%s%.0d%s%s%s%s%s", (int)res->output_len, res->output,
		     res->output_len && res->output[res->output_len - 1] != '\n' ? "\n" : "", code ? "Exit code: " : "",
		     code, code ? "\n" : "", res->verdict != CORDON_VERDICT_OK ? "[cordon: " : "",
		     res->verdict != CORDON_VERDICT_OK ? v : "", res->verdict != CORDON_VERDICT_OK ? "]\n" : "",
		     res->runner_line ? res->runner_line : "") < 0)
		return NULL;
	return t;
}

/* `run --json`'s object for a result, with the hints and denials. */
static void run_report(struct serve *s, struct run *r, const struct cordon_result *res)
{
	struct cli_args a = *s->a;

	a.timeout_ms = r->timeout_ms;
	a.max_output = r->max_output;
	_cleanup_(json_decrefp) json_t *obj = cli_result_json(&a, res, &s->info, 0);
	_cleanup_(json_decrefp) json_t *hints = NULL, *denials = NULL;
	_cleanup_free_ char *text = run_text(res);
	size_t omitted = 0;

	if (obj && cli_hints_collect(&a, s->prof, cordon_session_confined(s->sess), res, &hints, &denials, &omitted) == 0) {
		if (res->verdict == CORDON_VERDICT_DENIED && json_is_array(hints) && cordon_session_home_changed(s->sess))
			json_array_append_new(hints, json_string(
				"your home directory changed after this cordon serve session started: what was created "
				"there since is unreadable in it (credential stores stay hidden), until a new session"));
		json_object_set(obj, "hints", hints);
		json_object_set(obj, "denials", denials);
		json_object_set_new(obj, "denials_omitted", json_integer((json_int_t)omitted));
	}
	s->fe.done(s, r->id, obj, text ? text : "", s->fe.userdata);
}

/* The command ended: its result, or the server's refusal. */
static void run_finish(struct serve *s, struct run *r)
{
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	struct cordon_error e = {};
	int rc = cordon_session_cmd_collect(r->cmd, &res, &e);

	if (!r->dropped && rc < 0)
		s->fe.done(s, r->id, NULL, e.message[0] ? e.message : strerror(-rc), s->fe.userdata);
	else if (!r->dropped)
		run_report(s, r, res);
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

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int serve_loop(struct serve *s)
{
	struct line_reader lr = { .buf = malloc(SERVE_LINE_MAX + 1) };
	uint64_t end_by = 0;

	if (!lr.buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p[1 + (CORDON_SESSION_CMD_MAX_POLLFDS + 1) * SERVE_RUNS_MAX];
		struct { struct run *r; size_t n; } who[1 + SERVE_RUNS_MAX];
		uint64_t now = now_us();
		size_t n = 0, nw = 0;
		int wait_ms = -1;

		if (stop_signal)
			lr.eof = true;
		if (lr.eof && !end_by) {
			/* the end of stdin ends the session: every command is killed */
			for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
				if (s->runs[i].used)
					cordon_session_cmd_kill(s->runs[i].cmd);
			end_by = now + SERVE_END_GRACE_MS * 1000u;
		}
		for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
			if (s->runs[i].used && s->runs[i].ended)
				run_finish(s, &s->runs[i]);
		if (lr.eof && (s->n_runs == 0 || now >= end_by))
			break;
		if (!lr.eof) {
			p[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
			who[nw++] = (typeof(who[0])){ NULL, 1 };
		}
		for (size_t i = 0; i < SERVE_RUNS_MAX; i++) {
			struct run *r = &s->runs[i];
			size_t k;

			if (!r->used)
				continue;
			k = cordon_session_cmd_pollfds(r->cmd, p + n, &wait_ms);
			if (r->in >= 0)
				p[n + k++] = (struct pollfd){ .fd = r->in, .events = POLLOUT };
			who[nw++] = (typeof(who[0])){ r, k };
			n += k;
		}
		if (end_by) {
			int ms = (int)((end_by > now ? end_by - now : 0) / 1000u) + 1;

			if (wait_ms < 0 || ms < wait_ms)
				wait_ms = ms;
		}
		int pr = poll(p, n, wait_ms);

		if (pr < 0 && errno != EINTR) {
			free(lr.buf);
			return -errno;
		}
		n = 0;
		for (size_t i = 0; i < nw; i++) {
			struct run *r = who[i].r;
			size_t k = who[i].n;

			if (!r) {
				if (pr > 0 && p[n].revents)
					read_lines(s, &lr);
			} else {
				if (r->in >= 0 && pr > 0 && p[n + k - 1].revents) {
					run_write_stdin(r);
					k--;
				} else if (r->in >= 0)
					k--;
				if (cordon_session_cmd_step(r->cmd, p + n, pr > 0 ? k : 0) != 0)
					r->ended = true;
				k = who[i].n;
			}
			n += k;
		}
	}
	free(lr.buf);
	return 0;
}

int cli_serve(const struct cli_args *args, void (*frontend)(struct serve_frontend *ret))
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *prof = NULL;
	_cleanup_(cordon_launch_freep) struct cordon_launch *launch = NULL;
	struct cli_args eff;
	struct serve s = { .a = &eff };
	struct cordon_error e = {};
	const char *kind;
	int r;

	for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
		s.runs[i] = (struct run){ .in = -1 };
	r = cli_load_profile(args, &prof);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (cordon_profile_tools(prof)) {
		say("a profile with command_policies runs under the supervisor; cordon serve does not serve it");
		return CLI_EXIT_REFUSED;
	}
	/* one road, as cordon run: the profile and the flags into a launch
	 * (policy, backend, the merged limits, checked once) */
	char *stand_in[] = { (char *)"true", NULL };
	eff = *args;
	eff.command = stand_in;
	r = cli_launch(&eff, prof, false, &launch, &kind);
	if (r < 0)
		return CLI_EXIT_REFUSED;
	/* from here on, eff has the launch's merged limits */
	cli_args_from_launch(&eff, launch, &eff);
	eff.command = NULL;
	s.info = *cordon_launch_backend(launch);
	s.prof = prof;
	s.launch = launch;
	frontend(&s.fe);
	struct sigaction stop = { .sa_handler = on_stop }; /* no SA_RESTART: poll wakes */

	sigfillset(&stop.sa_mask);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	r = cordon_session_open(launch, &s.sess, &e);
	if (r < 0) {
		say("cordon serve: %s", e.message[0] ? e.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	r = serve_loop(&s);
	for (size_t i = 0; i < SERVE_RUNS_MAX; i++)
		if (s.runs[i].used)
			run_free(&s, &s.runs[i]);
	cordon_session_close(s.sess);
	(void)cordon_kill_descendants(getpid());
	if (stop_signal)
		return 128 + stop_signal;
	return r < 0 ? CLI_EXIT_REFUSED : 0;
}
