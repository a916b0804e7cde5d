/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One tool call: a shim's connection, from its request to the tool's exit
 * (call.c: the protocol and the decision, above; call_run.c: the call's
 * life, the queue and the tool, below). */

#include "stdio_relay.h"
#include "sup_internal.h"

enum call_state {
	CALL_READING,    /* waiting for the request */
	CALL_APPROVING,  /* a worker thread asks a person or a webhook */
	CALL_QUEUED,     /* allowed, waiting for one of SUP_RUNNING_MAX slots */
	CALL_RUNNING,    /* the tool runs */
	CALL_ENDED,      /* answered; being torn down */
};

struct call {
	struct supervisor *s;
	char id[33];
	char *caller;
	int fd;
	struct event *ev, *idle;
	struct msg_reader *reader;
	struct msg_state st;
	enum call_state state;

	struct broker_call req;
	bool have_req;
	bool url_request;          /* an open_urls request (open_url.c): req.argv is the URL */
	int io[3];                 /* the shim's stdin, stdout, stderr */
	int cwd_fd;
	/* the working directory as checked (check_cwd): the tool's runner
	 * must find the same one by path in the tool's namespace; an
	 * approval may bind them too */
	uint64_t cwd_dev, cwd_ino;
	char **env_names;
	struct cordon_tool_decision decision;
	uint64_t t0_ms;

	/* CALL_APPROVING: the worker thread owns areq/ares until `approved` fires */
	struct event *approved;
	struct approval_request areq;
	struct approval_result ares;
	char digest[65];
	char **argv_redacted;
	char **env_redacted;
	bool in_thread;            /* the worker thread has the call */

	/* CALL_RUNNING */
	struct cordon_child *child;
	struct child_watch *watch;
	struct endpoint *tool_ep;  /* the tool's own broker, when it may call others */
	struct stdio_relay *relay[2];    /* stdout, stderr (NULL: passed directly) */
	/* one `done` per relay: two activations of one event before the loop
	 * runs are one callback */
	struct event *relay_over, *relay_done[2];
	int relays_open;
	bool child_ended, limit_output;
	struct cordon_result *res;

	bool child_live;           /* spawned and not yet reaped */
	bool counted;              /* in s->running */
	struct event *reap;        /* frees the call from the loop */

	struct endpoint *ep;       /* the sandbox it came from, while in s->calls (NULL: gone) */
	bool ep_running;           /* counted in ep->running */
	size_t bytes;              /* counted in ep->bytes */
	size_t req_bytes;          /* the request's frame, held while the call lives */
	struct call *prev, *next;  /* s->calls */
	struct call *qnext;        /* s->queue */
};

/* A call for a connection from a shim to an endpoint of caller's, fd
 * taken (closed on failure: NULL); not yet linked into s->calls. */
struct call *call_new(struct supervisor *s, const char *caller, int fd);
/* Free c at once: only a call not yet linked (call_accept's failure);
 * every other goes through call_drop and call_reap_later. */
void call_free(struct call *c);
/* Free the call from the loop once it has ended, no thread holds it and its
 * tool is reaped (call it again when one of those changes). */
void call_reap_later(struct call *c);
/* End the call (kill its tool) and free it, now or once its approval
 * thread is back. */
void call_drop(struct call *c);
/* The bytes the call holds now (its unfinished frame and its request),
 * counted against its sandbox's budget: false when the sandbox is over. */
bool call_account(struct call *c, size_t bytes);
/* The audit record of one call: 0 once written, else -errno (and every
 * later call is refused). */
int call_audit(struct call *c, const char *event, const char *reason);
/* Audit, answer "denied" with reason, drop. */
void call_deny(struct call *c, const char *event, const char *reason);
/* Allowed: run the tool now if a slot is free, else queue it (or deny when
 * the queue is full). On failure to start, the call is denied. */
void call_allowed(struct call *c);
/* The queue moved: start what may start. */
void calls_pump(struct supervisor *s);
void calls_kill_all(struct supervisor *s);
/* Forward a signal from the shim to the tool. */
void call_signal(struct call *c, int sig);
