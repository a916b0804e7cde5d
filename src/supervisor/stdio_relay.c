/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tool's stdout or stderr on its way back to the caller: a pipe the tool
 * writes, a thread that reads it, counts it and passes it on. The caller's
 * end (checked by stdio_check.c) is written without blocking where the
 * kernel allows it (a pipe reopened O_NONBLOCK, a socket with
 * MSG_DONTWAIT), and the thread looks at its stop flag at least every
 * RELAY_TICK_MS. Should a write block anyway (a terminal, a file), the
 * loop waits for the thread a bounded time and then leaves it behind: the
 * thread frees the relay itself when the write returns. A caller that
 * stops reading loses its own call, never the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stdio_relay.h"

#define RELAY_TICK_MS 100
/* how long freeing a relay waits for its thread before leaving it behind */
#define RELAY_JOIN_MS 300

/* The caller's end as the relay writes it: a pipe gets an open file
 * description of its own, non-blocking (the caller's stays as it is). */
static int open_dst(int dst, bool *ret_sock)
{
	struct stat st;
	char proc[64];

	if (fstat(dst, &st) < 0)
		return -errno;
	*ret_sock = S_ISSOCK(st.st_mode);
	if (S_ISFIFO(st.st_mode)) {
		int fd;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dst);
		fd = open(proc, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		return fd < 0 ? -errno : fd;
	}
	dst = fcntl(dst, F_DUPFD_CLOEXEC, 3);
	return dst < 0 ? -errno : dst;
}

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
	r->dst = open_dst(dst, &r->sock);
	if (r->dst < 0) {
		int e = r->dst;

		close(p[0]);
		close(p[1]);
		free(r);
		return e;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->cap = cap;
	r->terminate = terminate;
	r->over = over;
	r->done = done;
	*ret = r;
	*ret_w = p[1];
	return 0;
}

/* Tell the loop, unless it has left us behind (its events are gone). */
static void post(struct stdio_relay *r, struct event *ev)
{
	pthread_mutex_lock(&r->lock);
	if (!r->abandoned)
		event_active(ev, EV_TIMEOUT, 0);
	pthread_mutex_unlock(&r->lock);
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
		w = r->sock ? send(r->dst, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) : write(r->dst, buf, n);
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

static void relay_destroy(struct stdio_relay *r)
{
	close(r->src);
	close(r->dst);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static void *stdio_relay_main(void *arg)
{
	struct stdio_relay *r = arg;
	char buf[65536];
	bool passing = true, told = false, gone;

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
				post(r, r->over);
			}
		}
		/* past the cap the rest is read and counted, never passed on */
	}
	pthread_mutex_lock(&r->lock);
	r->finished = true;
	gone = r->abandoned;
	if (!gone)
		event_active(r->done, EV_TIMEOUT, 0);
	pthread_mutex_unlock(&r->lock);
	if (gone)
		relay_destroy(r);
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
	struct timespec until;

	if (!r)
		return;
	if (r->started) {
		atomic_store(&r->stop, true);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += RELAY_JOIN_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (pthread_timedjoin_np(r->thread, NULL, &until) != 0) {
			bool finished;

			/* stuck in a write that blocks: left behind, it
			 * frees the relay when the write returns */
			pthread_mutex_lock(&r->lock);
			finished = r->finished;
			r->abandoned = !finished;
			pthread_mutex_unlock(&r->lock);
			if (!finished) {
				pthread_detach(r->thread);
				return;
			}
			pthread_join(r->thread, NULL);
		}
	}
	relay_destroy(r);
}
