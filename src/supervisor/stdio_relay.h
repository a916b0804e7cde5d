/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A tool's stdout or stderr on its way to the caller's fd, counted and
 * capped: a thread per stream, so a caller that reads slowly blocks only
 * its own tool. The caller's fd is someone else's file description (the
 * agent's pipe or terminal): never made non-blocking; the thread writes at
 * most PIPE_BUF at a time once poll says there is room, and checks its
 * stop flag at least every 100 ms, so it can always be joined.
 *
 * Thread rules: the thread touches only its struct stdio_relay and posts two
 * events to the loop (event_active is thread-safe once
 * evthread_use_pthreads ran): `over` once the cap is reached with
 * terminate set, `done` at the end of the stream.
 */

#include <event2/event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct stdio_relay {
	int src;             /* the pipe's read end (owned) */
	int dst;             /* the caller's fd: a dup, or a pipe reopened non-blocking (owned) */
	bool sock;           /* dst is a socket: sent with MSG_DONTWAIT */
	uint64_t cap;        /* bytes passed on at most; 0: no cap */
	bool terminate;      /* at the cap: post `over` (the loop kills the tool) */
	struct event *over, *done;
	pthread_t thread;
	bool started;
	atomic_bool stop;
	pthread_mutex_t lock; /* finished and abandoned, and the events while not abandoned */
	bool finished;       /* the thread is past its last use of the events */
	bool abandoned;      /* the loop left the thread behind: it frees the relay */
	/* read by the loop once `done` fired (or after relay_join) */
	uint64_t total;      /* bytes the tool wrote */
	bool capped;         /* the cap was reached */
};

/* A pipe for one stream: *ret_w goes to the tool (close it once spawned);
 * the relay reads the other end. dst is dup'ed. */
int stdio_relay_new(int dst, uint64_t cap, bool terminate, struct event *over, struct event *done, struct stdio_relay **ret,
	      int *ret_w);
int stdio_relay_start(struct stdio_relay *r);
/* Stop (if still running), join, close, free. */
void stdio_relay_free(struct stdio_relay *r);
