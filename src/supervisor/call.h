/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One tool call: a shim's connection, from its request to the tool's exit
 * (call.c: the protocol and the decision; call_run.c: the tool). */

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
	int io[3];                 /* the shim's stdin, stdout, stderr */
	int cwd_fd;
	char **env_names;
	struct cordon_tool_decision decision;
	uint64_t t0_ms;

	/* CALL_APPROVING: the worker thread owns areq/ares until `approved` fires */
	struct event *approved;
	struct approval_request areq;
	struct approval_result ares;
	char digest[65];
	char **argv_redacted;
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

	struct call *prev, *next;  /* s->calls */
	struct call *qnext;        /* s->queue */
};

/* call.c */
void call_deny(struct call *c, const char *event, const char *reason);
/* Free the call from the loop once it has ended, no thread holds it and its
 * tool is reaped (call it again when one of those changes). */
void call_reap_later(struct call *c);
void call_allowed(struct call *c);

/* call_run.c */
/* Start the tool (a slot is free). On failure the call is denied. */
void call_run(struct call *c);
/* Forward a signal from the shim to the tool. */
void call_signal(struct call *c, int sig);
/* The caller went away, or the session ended: kill the tool. */
void call_kill(struct call *c);
void call_run_free(struct call *c);
