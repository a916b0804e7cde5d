/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the supervisor's files share (supervisor.c, call.c, call_run.c,
 * endpoint.c, tool_bin.c; from the top down: each header beside its file
 * says what the file does). Everything here lives on the event loop's thread,
 * except what a worker or relay thread is documented to touch. */

#include <event2/event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "approve.h"
#include "approve_pool.h"
#include "audit.h"
#include "cred_store.h"
#include "broker_proto.h"
#include "childwatch.h"
#include "cordon/cordon.h"
#include "identity.h"
#include "identity_hasher.h"
#include "msgdispatch.h"
#include "supervisor.h"

/* The caps: tool runs at once, and calls waiting for one. */
#define SUP_RUNNING_MAX 64
#define SUP_WAITING_MAX 128
/* Connections a sandbox may hold open before it asks anything. */
#define SUP_IDLE_MS 10000
/* One sandbox's share (issue 20 §5): its open broker connections (idle,
 * asking, waiting or running; more are closed as they come), its running
 * tools and its queued calls (more are refused as busy). Three quarters
 * of the whole for the last two: one sandbox never has all of it. */
#define SUP_CONNS_PER_SANDBOX 256
/* bytes a sandbox's calls hold in the supervisor: unfinished frames and
 * the requests of calls not yet ended (a call is at most MSG_FRAME_MAX) */
#define SUP_BYTES_PER_SANDBOX (32u << 20)
#define SUP_RUNNING_PER_SANDBOX (SUP_RUNNING_MAX * 3 / 4)
#define SUP_WAITING_PER_SANDBOX (SUP_WAITING_MAX * 3 / 4)
/* accept4 out of fds (EMFILE, ENFILE, ENOBUFS, ENOMEM): the listener
 * rests this long instead of waking the loop again at once */
#define SUP_ACCEPT_BACKOFF_MS 100
/* The longest a call waits for a binary's hash from session start (1 GiB,
 * IDENTITY_MAX_BYTES, is read in a few seconds even from a slow disk). */
#define SUP_HASH_WAIT_MS 60000

struct call;
struct open_urls_state;
struct supervisor;

/* What a connection to an endpoint becomes (call_accept, set by
 * supervisor.c above the endpoints): fd is taken. */
struct endpoint;
typedef void sup_accept_fn(struct endpoint *e, int fd);

/* A controlled command's binary, as it was at session start. */
struct tool_bin {
	char *name;
	char *path;                 /* canonical */
	struct file_identity id;    /* without its sha256: the hasher has it */
	size_t hash_job;            /* in supervisor.hasher */
};

/* One sandbox's broker endpoint: whatever connects here is `caller`. */
struct endpoint {
	struct supervisor *s;
	char *caller;               /* CORDON_TOOLS_SESSION or a command's name */
	int ctl;                    /* our end of the runner's socketpair, until the listener arrives */
	int listener;
	struct event *ev;
	struct event *rest;         /* the listener's pause after EMFILE */
	/* its budget (SUP_*_PER_SANDBOX): calls in s->calls from here */
	unsigned conns, running, waiting;
	size_t bytes;
	struct endpoint *next;
};

struct supervisor {
	struct event_base *base;
	sup_accept_fn *accept;      /* each endpoint's connections go here */
	const struct cordon_profile_handle *profile;
	const struct cordon_tools *tools;
	struct cordon_toolbox *box;
	char *session_id;
	char *homes;                /* the tools' private HOMEs (tool_homes.c) */
	int homes_held;             /* holds their flock while the session lives */
	char *shim_path;
	struct tool_bin *bins;
	size_t n_bins;
	struct identity_hasher *hasher; /* the bins' SHA-256, in a thread of its own */
	char **session_shims;       /* what the session may call */
	struct audit_log *audit;
	struct cred_store *creds;   /* the credentials' values (cred_store.c); NULL: none */
	struct cred_chan *cred_chans; /* each proxy's channel (cred_chan.c) */
	bool audit_broken;          /* a record could not be written: every call is refused */
	struct audit_seal seal;     /* the log's signed end, once the session is over */
	struct approvals *approvals;
	struct approve_pool *approve_pool; /* the threads that ask them */
	char policy_digest[65];     /* SHA-256 of the resolved profile: what an approval binds */
	unsigned approving;         /* approvals out (queued in the pool or being asked) */

	struct endpoint *endpoints;
	struct endpoint *session_ep;
	int session_fd[2];          /* [1] goes to the session's runner */

	struct call *calls;         /* every call not yet answered */
	size_t live_calls;          /* every call not yet freed */
	struct call *queue_head, *queue_tail;
	size_t running, waiting;

	struct cordon_child *session;
	int session_pidfd;          /* the session's runner, for a terminal prompt's hold; -1: none */
	struct child_watch *session_watch;
	bool session_ended;
	struct open_urls_state *open_urls; /* open_url.c's; NULL until the first request */
	struct supervisor_denial denials[SUPERVISOR_DENIALS_MAX]; /* the calls refused (supervisor_denials) */
	size_t n_denials, denials_omitted;
};
