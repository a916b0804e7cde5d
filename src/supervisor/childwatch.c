/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "childwatch.h"

struct child_watch {
	struct event_base *base;
	struct cordon_child *child;
	child_watch_done done;
	void *ctx;
	struct pollfd pfd[CORDON_CHILD_MAX_POLLFDS];
	struct event *ev[CORDON_CHILD_MAX_POLLFDS];
	size_t n;
	struct event *timer;
	/* the one deferred re-arm after a step: steps never recurse */
	struct event *rearm;
	bool ended;
};

static void disarm(struct child_watch *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->ev[i])
			event_free(w->ev[i]);
		w->ev[i] = NULL;
	}
	w->n = 0;
	event_del(w->timer);
}

static void step(struct child_watch *w, size_t fired, short what);

static void on_fd(evutil_socket_t fd, short what, void *arg)
{
	struct child_watch *w = arg;

	for (size_t i = 0; i < w->n; i++)
		if (w->pfd[i].fd == fd) {
			step(w, i, what);
			return;
		}
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	step(arg, CORDON_CHILD_MAX_POLLFDS, 0);
}

static void finish(struct child_watch *w)
{
	disarm(w);
	w->ended = true;
	w->done(w->ctx);
}

static int arm(struct child_watch *w)
{
	int timeout = -1;

	disarm(w);
	w->n = cordon_child_pollfds(w->child, w->pfd, &timeout);
	if (w->n == 0) {
		finish(w);
		return 0;
	}
	for (size_t i = 0; i < w->n; i++) {
		short what = (w->pfd[i].events & POLLOUT ? EV_WRITE : 0) | (w->pfd[i].events & ~POLLOUT ? EV_READ : 0);

		w->ev[i] = event_new(w->base, w->pfd[i].fd, what, on_fd, w);
		if (!w->ev[i] || event_add(w->ev[i], NULL) < 0)
			return -ENOMEM;
	}
	if (timeout >= 0) {
		struct timeval tv = { .tv_sec = timeout / 1000, .tv_usec = (timeout % 1000) * 1000 };

		if (event_add(w->timer, &tv) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void on_rearm(evutil_socket_t fd, short what, void *arg)
{
	struct child_watch *w = arg;

	if (!w->ended && arm(w) < 0) {
		cordon_child_kill(w->child);
		event_active(w->rearm, EV_TIMEOUT, 0);
	}
}

static void step(struct child_watch *w, size_t fired, short what)
{
	struct pollfd pfd[CORDON_CHILD_MAX_POLLFDS];
	size_t n = fired < w->n ? w->n : 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		pfd[i] = w->pfd[i];
		pfd[i].revents = 0;
	}
	if (fired < w->n)
		pfd[fired].revents = (short)((what & EV_READ ? w->pfd[fired].events & ~POLLOUT : 0) |
					     (what & EV_WRITE ? POLLOUT : 0));
	r = cordon_child_step(w->child, pfd, n);
	if (r != 0) {
		/* ended, or failed (the library killed the tree): collect */
		finish(w);
		return;
	}
	/* what to watch may have changed: ask again, once, from the loop */
	disarm(w);
	event_active(w->rearm, EV_TIMEOUT, 0);
}

int child_watch_new(struct event_base *base, struct cordon_child *c, child_watch_done done, void *ctx,
		    struct child_watch **ret)
{
	struct child_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	*w = (struct child_watch){ .base = base, .child = c, .done = done, .ctx = ctx };
	w->timer = evtimer_new(base, on_timer, w);
	w->rearm = event_new(base, -1, 0, on_rearm, w);
	if (!w->timer || !w->rearm) {
		child_watch_free(w);
		return -ENOMEM;
	}
	/* armed from the loop: done() never runs before the caller has *ret */
	event_active(w->rearm, EV_TIMEOUT, 0);
	*ret = w;
	return 0;
}

void child_watch_poke(struct child_watch *w)
{
	if (w && !w->ended)
		event_active(w->rearm, EV_TIMEOUT, 0);
}

struct child_watch *child_watch_free(struct child_watch *w)
{
	if (!w)
		return NULL;
	disarm(w);
	if (w->timer)
		event_free(w->timer);
	if (w->rearm)
		event_free(w->rearm);
	free(w);
	return NULL;
}
