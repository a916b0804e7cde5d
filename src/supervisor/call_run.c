/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A call's life below the protocol (call.c): made, answered and freed;
 * the queue of allowed calls; and its tool: a fresh sandbox of its own
 * (never nested in the caller's), built from the profile's policy for
 * this caller -> command edge, running
 * exactly the binary recorded at session start (checked on the fd it is
 * run from), with the caller's stdio, cwd and the environment the policy
 * lets through; stdout and stderr counted and capped on the way back. When
 * the tool may call others it gets a broker endpoint of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "call_run.h"
#include "cleanup.h"
#include "cred_chan.h"
#include "crypto.h"
#include "endpoint.h"
#include "tool_bin.h"
#include "tools.h"

static void call_run(struct call *c);
static void call_kill(struct call *c);
static void call_run_free(struct call *c);

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- a call's life: made, answered, freed ---- */

static void send_frame(struct call *c, uint16_t type, struct msgbuf *body)
{
	/* a shim that cannot take one small frame is gone: nothing to do */
	if (c->fd >= 0)
		(void)msg_frame_write(c->fd, type, body, NULL, 0);
}

/* Take a queued call off the queue. */
static void dequeue(struct supervisor *s, struct call *c)
{
	struct call **q = &s->queue_head, *last = NULL;

	for (; *q; last = *q, q = &(*q)->qnext)
		if (*q == c) {
			*q = c->qnext;
			if (s->queue_tail == c)
				s->queue_tail = last;
			c->qnext = NULL;
			s->waiting--;
			if (c->ep)
				c->ep->waiting--;
			return;
		}
}

static void unlink_call(struct call *c)
{
	struct supervisor *s = c->s;

	if (c->prev)
		c->prev->next = c->next;
	else if (s->calls == c)
		s->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
	if (c->state == CALL_QUEUED)
		dequeue(s, c);
	/* its sandbox's budget: the connection is closed from here on */
	if (c->ep) {
		c->ep->conns--;
		if (c->ep_running)
			c->ep->running--;
		c->ep->bytes -= c->bytes;
	}
	c->bytes = 0;
	c->ep = NULL;
	c->ep_running = false;
}

void call_free(struct call *c)
{
	call_run_free(c);
	if (c->ev)
		event_free(c->ev);
	if (c->idle)
		event_free(c->idle);
	if (c->approved)
		event_free(c->approved);
	if (c->reap)
		event_free(c->reap);
	msg_reader_free(c->reader);
	if (c->fd >= 0)
		close(c->fd);
	for (int i = 0; i < 3; i++)
		if (c->io[i] >= 0)
			close(c->io[i]);
	if (c->cwd_fd >= 0)
		close(c->cwd_fd);
	broker_call_done(&c->req);
	cordon_strv_free(c->env_names);
	cordon_strv_free(c->argv_redacted);
	cordon_strv_free(c->env_redacted);
	free(c->caller);
	c->s->live_calls--;
	free(c);
}

/* Freed from the loop, never inside one of its own callbacks, and only
 * once no thread and no tool still needs it. */
static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;

	if (c->state == CALL_ENDED && !c->in_thread && !c->child_live)
		call_free(c);
}

struct call *call_new(struct supervisor *s, const char *caller, int fd)
{
	struct call *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	*c = (struct call){ .s = s, .fd = fd, .io = { -1, -1, -1 }, .cwd_fd = -1, .state = CALL_READING,
			    .t0_ms = now_ms() };
	s->live_calls++;
	if (random_hex(16, c->id) < 0 || !(c->caller = strdup(caller)) ||
	    !(c->reap = event_new(s->base, -1, 0, on_reap, c))) {
		call_free(c);
		return NULL;
	}
	return c;
}

void call_reap_later(struct call *c)
{
	event_active(c->reap, EV_TIMEOUT, 0);
}

void call_drop(struct call *c)
{
	bool running = c->state == CALL_RUNNING;

	if (c->state == CALL_ENDED)
		return;
	unlink_call(c);
	c->state = CALL_ENDED;
	if (c->ev) {
		event_free(c->ev);
		c->ev = NULL;
	}
	event_del(c->idle);
	/* the shim sees the end of the connection now */
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	if (running)
		call_kill(c); /* its tool goes too; reaped once the tool is */
	call_reap_later(c);
}

bool call_account(struct call *c, size_t bytes)
{
	if (!c->ep)
		return true;
	c->ep->bytes = c->ep->bytes - c->bytes + bytes;
	c->bytes = bytes;
	return c->ep->bytes <= SUP_BYTES_PER_SANDBOX;
}

int call_audit(struct call *c, const char *event, const char *reason)
{
	struct supervisor *s = c->s;
	const char *const none[] = { NULL };
	struct audit_event e = {
		.event = event,
		.call_id = c->id,
		.caller = c->caller,
		.command = c->have_req ? c->req.command : NULL,
		.decision = c->decision.action == CORDON_TOOL_DENY ? "deny"
			    : c->decision.action == CORDON_TOOL_APPROVE ? "approve"
									: "allow",
		.rule = c->decision.rule[0] ? c->decision.rule : NULL,
		.reason = reason,
		.backend = c->decision.backend[0] ? c->decision.backend : NULL,
		/* a URL's query never reaches the log: its origin and path do */
		.argv = c->url_request ? (const char *const *)c->argv_redacted
			: c->have_req  ? (const char *const *)c->req.argv
				       : none,
		.secret_flags = c->have_req ? cordon_tools_secret_flags(s->tools, c->req.command) : NULL,
		.env_names = c->env_names ? (const char *const *)c->env_names : none,
		.cwd = c->have_req ? c->req.cwd : NULL,
	};

	if (c->res) {
		e.has_exit = true;
		e.exit_code = c->res->exit_code;
		e.signal = c->res->signal;
		e.duration_ms = now_ms() - c->t0_ms;
		e.has_io = true;
		e.stdout_bytes = c->relay[0] ? c->relay[0]->total : 0;
		e.stderr_bytes = c->relay[1] ? c->relay[1]->total : 0;
	}
	/* fail closed: a supervisor that cannot record refuses what comes next */
	int r = audit_write(s->audit, &e);

	if (r < 0)
		s->audit_broken = true;
	return r;
}

/* The refusal, kept for the session's result (supervisor_denials). */
static void note_denial(struct call *c, const char *event, const char *reason)
{
	struct supervisor *s = c->s;
	struct supervisor_denial d = {};

	snprintf(d.caller, sizeof(d.caller), "%s", c->caller ?: "");
	snprintf(d.command, sizeof(d.command), "%s", c->have_req && c->req.command ? c->req.command : "");
	snprintf(d.event, sizeof(d.event), "%s", event);
	snprintf(d.rule, sizeof(d.rule), "%s", c->decision.rule);
	snprintf(d.file, sizeof(d.file), "%s", c->decision.file);
	snprintf(d.reason, sizeof(d.reason), "%s", reason ?: "");
	for (size_t i = 0; i < s->n_denials; i++)
		if (strcmp(s->denials[i].caller, d.caller) == 0 && strcmp(s->denials[i].command, d.command) == 0 &&
		    strcmp(s->denials[i].event, d.event) == 0 && strcmp(s->denials[i].rule, d.rule) == 0)
			return;
	if (s->n_denials >= SUPERVISOR_DENIALS_MAX) {
		s->denials_omitted++;
		return;
	}
	s->denials[s->n_denials++] = d;
}

void call_deny(struct call *c, const char *event, const char *reason)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(BROKER_REASON_MAX + 16);

	note_denial(c, event, reason);
	call_audit(c, event, reason);
	if (b && broker_denied_encode(b, reason) >= 0)
		send_frame(c, BROKER_MSG_DENIED, b);
	call_drop(c);
}

/* ---- the queue ---- */

static bool sandbox_has_room(const struct call *c)
{
	return !c->ep || c->ep->running < SUP_RUNNING_PER_SANDBOX;
}

/* Start queued calls, first come first served, skipping those whose
 * sandbox already runs its share: a sandbox whose tools stall waits for
 * itself, never another. */
void calls_pump(struct supervisor *s)
{
	struct call *c = s->queue_head;

	while (c && s->running < SUP_RUNNING_MAX) {
		if (!sandbox_has_room(c)) {
			c = c->qnext;
			continue;
		}
		dequeue(s, c);
		call_run(c);
		/* from the top: a run that failed may have pumped already */
		c = s->queue_head;
	}
}

void call_allowed(struct call *c)
{
	struct supervisor *s = c->s;
	char why[200];

	if (s->running < SUP_RUNNING_MAX && sandbox_has_room(c) && !s->queue_head) {
		call_run(c);
		return;
	}
	if (s->waiting >= SUP_WAITING_MAX || (c->ep && c->ep->waiting >= SUP_WAITING_PER_SANDBOX)) {
		if (s->waiting >= SUP_WAITING_MAX)
			snprintf(why, sizeof(why), "the supervisor is busy: %d tool calls run and %d wait; try again",
				 SUP_RUNNING_MAX, SUP_WAITING_MAX);
		else
			snprintf(why, sizeof(why),
				 "this sandbox is busy: %d of its tool calls run and %d wait; try again",
				 SUP_RUNNING_PER_SANDBOX, SUP_WAITING_PER_SANDBOX);
		call_deny(c, "denied", why);
		return;
	}
	c->state = CALL_QUEUED;
	if (s->queue_tail)
		s->queue_tail->qnext = c;
	else
		s->queue_head = c;
	s->queue_tail = c;
	s->waiting++;
	if (c->ep)
		c->ep->waiting++;
	calls_pump(s);
}

void calls_kill_all(struct supervisor *s)
{
	while (s->calls)
		call_drop(s->calls);
}

/* ---- the tool ---- */

static void send_exit(struct call *c, const struct broker_exit *e)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(BROKER_REASON_MAX + 32);

	if (c->fd >= 0 && b && broker_exit_encode(b, e) >= 0)
		(void)msg_frame_write(c->fd, BROKER_MSG_EXIT, b, NULL, 0);
}

/* Answer once the tool is reaped and both streams are drained: the
 * caller has all the output before it has the exit. */
static void maybe_finish(struct call *c)
{
	struct supervisor *s = c->s;
	struct cordon_result *res = c->res;
	struct broker_exit e = { .how = BROKER_EXITED };
	char msg[BROKER_REASON_MAX] = "";

	if (!c->child_ended || c->relays_open > 0)
		return;
	if (!res) {
		e.value = CORDON_EXIT_RUNNER_FAILED;
		snprintf(msg, sizeof(msg), "cordon: %s: the tool's sandbox could not be collected", c->req.command);
	} else if (res->verdict == CORDON_VERDICT_RUNNER_FAILED) {
		e.value = res->exit_code >= 0 && res->exit_code <= 255 ? (uint32_t)res->exit_code : CORDON_EXIT_RUNNER_FAILED;
		snprintf(msg, sizeof(msg), "%s", res->runner_line ? res->runner_line : "cordon: the tool's runner failed");
	} else if (res->verdict == CORDON_VERDICT_TIMEOUT) {
		e.value = CORDON_EXIT_TIMEOUT;
		snprintf(msg, sizeof(msg), "cordon: %s: timed out; the tool and everything it started were killed",
			 c->req.command);
	} else if (res->signal) {
		e.how = BROKER_SIGNALED;
		e.value = (uint32_t)res->signal;
	} else
		e.value = (uint32_t)res->exit_code & 0xff;
	if (c->limit_output)
		snprintf(msg, sizeof(msg), "cordon: %s: output limit reached; the tool was killed", c->req.command);
	if (c->counted) {
		c->counted = false;
		s->running--;
		if (c->ep && c->ep_running)
			c->ep->running--;
		c->ep_running = false;
		call_audit(c, "exited", msg[0] ? msg : c->state == CALL_ENDED ? "the caller went away" : NULL);
	}
	if (c->state == CALL_RUNNING) {
		e.message = msg;
		send_exit(c, &e);
		call_drop(c);
	}
	call_reap_later(c);
	calls_pump(s);
}

static void on_tool_done(void *arg)
{
	struct call *c = arg;

	if (cordon_collect(c->child, &c->res) < 0)
		c->res = NULL;
	c->child_ended = true;
	c->child_live = false;
	/* the tool's own broker goes with its sandbox */
	endpoint_free(c->tool_ep);
	c->tool_ep = NULL;
	maybe_finish(c);
}

static void on_relay_done(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;

	c->relays_open--;
	maybe_finish(c);
}

static void on_relay_over(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;

	c->limit_output = true;
	call_kill(c);
}

static void call_kill(struct call *c)
{
	if (c->child && c->child_live) {
		cordon_child_kill(c->child);
		child_watch_poke(c->watch);
	}
}

void call_signal(struct call *c, int sig)
{
	pid_t pid = c->child ? cordon_child_pid(c->child) : -1;

	/* the tool's runner passes it on to the tool's process group */
	if (pid > 0 && c->child_live)
		(void)kill(pid, sig);
}

static void call_run_free(struct call *c)
{
	for (int i = 0; i < 2; i++) {
		stdio_relay_free(c->relay[i]);
		c->relay[i] = NULL;
	}
	child_watch_free(c->watch);
	c->watch = NULL;
	cordon_child_free(c->child);
	c->child = NULL;
	cordon_result_free(c->res);
	c->res = NULL;
	endpoint_free(c->tool_ep);
	c->tool_ep = NULL;
	if (c->relay_over)
		event_free(c->relay_over);
	c->relay_over = NULL;
	for (int i = 0; i < 2; i++) {
		if (c->relay_done[i])
			event_free(c->relay_done[i]);
		c->relay_done[i] = NULL;
	}
}

/* stdout (1) and stderr (2): through a counting relay unless it is a
 * terminal with no cap (then the tool gets the caller's terminal itself). */
static int setup_stream(struct call *c, int which, uint64_t cap, bool terminate, int *ret_fd)
{
	bool tty = c->req.tty & (which == 1 ? BROKER_TTY_OUT : BROKER_TTY_ERR);
	int w = -1, r;

	if (tty && !cap) {
		*ret_fd = c->io[which];
		return 0;
	}
	r = stdio_relay_new(c->io[which], cap, terminate, c->relay_over, c->relay_done[which - 1], &c->relay[which - 1],
			    &w);
	if (r < 0)
		return r;
	*ret_fd = w;
	return 1;
}

static void call_run(struct call *c)
{
	struct supervisor *s = c->s;
	const struct tool_bin *bin = tool_bin_find(s, c->req.command);
	const struct cordon_launch *launch = NULL;
	struct cordon_tool_sandbox sb = {};
	struct cordon_error e = {};
	char **env = NULL;
	_cleanup_free_ const char **argv = NULL;
	char why[BROKER_REASON_MAX], detail[256] = "";
	int exe = -1, out = -1, err = -1, broker = -1, creds_fd = -1, chan = -1, r, owned[2] = { -1, -1 };
	size_t n = 0;

	c->state = CALL_RUNNING;
	if (!bin) {
		snprintf(why, sizeof(why), "%s has no resolved binary", c->req.command);
		goto refuse;
	}
	/* exactly the binary recorded at session start, checked on the fd
	 * the runner will execute */
	exe = open(bin->path, O_RDONLY | O_CLOEXEC);
	if (exe < 0) {
		snprintf(why, sizeof(why), "%s: %s", bin->path, strerror(errno));
		goto refuse;
	}
	if (tool_bin_check(s, bin, exe, detail, sizeof(detail)) < 0) {
		snprintf(why, sizeof(why), "%.500s changed since the session started: %s", bin->path, detail);
		goto refuse;
	}
	r = cordon_toolbox_launch(s->box, c->caller, c->req.command, &launch, &e);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s's sandbox cannot be built: %s", c->req.command, e.message);
		goto refuse;
	}
	r = cordon_tools_sandbox(s->tools, c->caller, c->req.command, &sb);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s's sandbox: %s", c->req.command, strerror(-r));
		goto refuse;
	}
	c->relay_over = event_new(s->base, -1, 0, on_relay_over, c);
	c->relay_done[0] = event_new(s->base, -1, 0, on_relay_done, c);
	c->relay_done[1] = event_new(s->base, -1, 0, on_relay_done, c);
	if (!c->relay_over || !c->relay_done[0] || !c->relay_done[1])
		goto oom;
	r = setup_stream(c, 1, sb.stdout_max, sb.stdout_terminate, &out);
	if (r < 0) {
		snprintf(why, sizeof(why), "the caller's stdout cannot be relayed: %s", strerror(-r));
		goto refuse;
	}
	if (r > 0)
		owned[0] = out;
	r = setup_stream(c, 2, sb.stderr_max, sb.stderr_terminate, &err);
	if (r < 0) {
		snprintf(why, sizeof(why), "the caller's stderr cannot be relayed: %s", strerror(-r));
		goto refuse;
	}
	if (r > 0)
		owned[1] = err;
	/* its own broker: for the tools it may call, or its URL opener */
	if (cordon_tools_can_use(s->tools, c->req.command)[0] || tools_open_urls(s->tools, c->req.command)) {
		r = endpoint_new(s, c->req.command, &c->tool_ep, &broker);
		if (r < 0)
			goto oom;
	}
	while (c->req.argv[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	r = cordon_toolbox_call_env(s->box, c->caller, c->req.command, (const char *const *)c->req.env, &env, &e);
	if (r == -ENOMEM)
		goto oom;
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", e.message);
		goto refuse;
	}
	if (!argv)
		goto oom;
	argv[0] = bin->path;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = c->req.argv[i];

	/* the tool's proxy: what it may spend, its table written now, and its
	 * channel (cred_chan.c: a capture's value is asked for there on its
	 * first use, an approve rule's approval too) */
	r = cred_store_table_fd(s->creds, cordon_toolbox_creds(s->box), c->req.command,
				toolbox_creds_intercepted(cordon_toolbox_creds(s->box), c->req.command,
							  cordon_launch_policy(launch)),
				&creds_fd, &chan, why, sizeof(why));
	if (r >= 0 && chan >= 0 && (r = cred_chan_new(s, chan, c->req.command)) < 0)
		snprintf(why, sizeof(why), "the credential channel: %s", strerror(-r));
	if (r == -ENOMEM)
		goto oom;
	if (r < 0)
		goto refuse;

	struct cordon_stdio io = { .in = c->io[0], .out = out, .err = err };
	struct cordon_run_opts o = {
		.size = sizeof(o), /* credentials_fd is past the first release's fields */
		.credentials_fd = creds_fd,
		.cwd = c->req.cwd,
		/* looked up again by path, outside and then in the tool's own
		 * namespace: the same directory as checked, or nothing runs */
		.cwd_pinned = true,
		.cwd_dev = c->cwd_dev,
		.cwd_ino = c->cwd_ino,
		.broker_fd = broker,
		.env = (const char *const *)env,
		.exec_fd = exe,
	};
	r = cordon_spawn(launch, argv, &io, &o, &c->child, &e);
	cordon_strv_free(env);
	env = NULL;
	if (creds_fd >= 0)
		close(creds_fd);
	creds_fd = -1;
	for (int i = 0; i < 2; i++)
		if (owned[i] >= 0)
			close(owned[i]); /* the tool has its copies */
	if (broker >= 0)
		close(broker);
	close(exe);
	exe = -1;
	if (r == -ESTALE) {
		snprintf(why, sizeof(why),
			 "%s was not started: the working directory %.300s is no longer the directory that was "
			 "checked (renamed or replaced since)",
			 c->req.command, c->req.cwd);
		goto refuse_started;
	}
	if (r < 0) {
		snprintf(why, sizeof(why), "%s could not be started: %s", c->req.command, e.message);
		goto refuse_started;
	}
	c->child_live = true;
	c->counted = true;
	s->running++;
	if (c->ep) {
		c->ep->running++;
		c->ep_running = true;
	}
	for (int i = 0; i < 2; i++)
		if (c->relay[i]) {
			if (stdio_relay_start(c->relay[i]) < 0) {
				call_kill(c);
				break;
			}
			c->relays_open++;
		}
	r = child_watch_new(s->base, c->child, on_tool_done, c, &c->watch);
	if (r < 0) {
		cordon_child_kill(c->child);
		c->child_live = false;
		c->child_ended = true;
		maybe_finish(c);
	}
	return;
oom:
	snprintf(why, sizeof(why), "%s could not be started: out of memory", c->req.command);
refuse:
	cordon_strv_free(env);
	for (int i = 0; i < 2; i++)
		if (owned[i] >= 0)
			close(owned[i]);
	if (broker >= 0)
		close(broker);
	if (exe >= 0)
		close(exe);
	if (creds_fd >= 0)
		close(creds_fd);
refuse_started:
	c->state = CALL_READING; /* nothing runs: nothing to kill */
	call_deny(c, "exec_refused", why);
}
