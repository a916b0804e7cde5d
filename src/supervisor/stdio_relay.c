/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "stdio_relay.h"

#define RELAY_TICK_MS 100

int stdio_relay_new(int dst, uint64_t cap, bool terminate, struct event *over, struct event *done, struct stdio_relay **ret,
	      int *ret_w)
{
	struct stdio_relay *r = calloc(1, sizeof(*r));
	int p[2];

	if (!r)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(r);
		return -errno;
	}
	r->src = p[0];
	r->dst = fcntl(dst, F_DUPFD_CLOEXEC, 3);
	if (r->dst < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		free(r);
		return e;
	}
	r->cap = cap;
	r->terminate = terminate;
	r->over = over;
	r->done = done;
	*ret = r;
	*ret_w = p[1];
	return 0;
}

/* Pass len bytes on, PIPE_BUF at a time when there is room; false once
 * the caller's end is gone or we were told to stop. */
static bool pass_on(struct stdio_relay *r, const char *buf, size_t len)
{
	while (len > 0 && !atomic_load(&r->stop)) {
		struct pollfd p = { .fd = r->dst, .events = POLLOUT };
		size_t n = len < PIPE_BUF ? len : PIPE_BUF;
		ssize_t w;

		if (poll(&p, 1, RELAY_TICK_MS) <= 0)
			continue;
		if (p.revents & (POLLERR | POLLNVAL))
			return false;
		w = write(r->dst, buf, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return false;
		}
		buf += w;
		len -= (size_t)w;
	}
	return len == 0;
}

static void *stdio_relay_main(void *arg)
{
	struct stdio_relay *r = arg;
	char buf[65536];
	bool passing = true, told = false;

	while (!atomic_load(&r->stop)) {
		struct pollfd p = { .fd = r->src, .events = POLLIN };
		ssize_t l;

		if (poll(&p, 1, RELAY_TICK_MS) <= 0)
			continue;
		l = read(r->src, buf, sizeof(buf));
		if (l < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (l <= 0)
			break;
		uint64_t before = r->total, room = r->cap ? (before < r->cap ? r->cap - before : 0) : (uint64_t)l;
		size_t take = (uint64_t)l < room ? (size_t)l : (size_t)room;

		r->total += (uint64_t)l;
		if (passing && take > 0)
			passing = pass_on(r, buf, take);
		if (r->cap && r->total > r->cap) {
			r->capped = true;
			if (r->terminate && !told) {
				told = true;
				event_active(r->over, EV_TIMEOUT, 0);
			}
		}
		/* past the cap the rest is read and counted, never passed on */
	}
	event_active(r->done, EV_TIMEOUT, 0);
	return NULL;
}

int stdio_relay_start(struct stdio_relay *r)
{
	sigset_t all, old;
	int e;

	/* signals are the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&r->thread, NULL, stdio_relay_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return -e;
	r->started = true;
	return 0;
}

void stdio_relay_free(struct stdio_relay *r)
{
	if (!r)
		return;
	if (r->started) {
		atomic_store(&r->stop, true);
		pthread_join(r->thread, NULL);
	}
	close(r->src);
	close(r->dst);
	free(r);
}
