/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The relay of an established connection, each direction on its own:
 * from -> pipe -> to with splice (the bytes never enter our memory), or,
 * where the kernel refuses splice on these sockets, through a bounded
 * buffer. A direction that cannot write stops reading, so a slow reader
 * holds at most one pipe (64 KiB) per direction.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

#define RELAY_CHUNK (64 * 1024)  /* copy mode's buffer */
#define RELAY_PIPE (1024 * 1024)  /* a bigger pipe: fewer splices per MiB */
#define RELAY_ROUNDS 16 /* per wake-up: fairness between connections */

enum pump {
	PUMP_WAIT_READ,
	PUMP_WAIT_WRITE,
	PUMP_DONE,
	PUMP_ERROR,
};

static ssize_t write_some(int fd, const char *p, size_t n)
{
	return send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Flush what is pending towards d->to: the prefix, the pipe, the buffer.
 * 1: all written, 0: would block, -1: error. */
static int flush(struct relay_dir *d)
{
	ssize_t n;

	while (d->pre_off < d->pre_len) {
		n = write_some(d->to, d->pre + d->pre_off, d->pre_len - d->pre_off);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		d->pre_off += (size_t)n;
	}
	while (d->in_pipe > 0) {
		n = splice(d->pipe[0], NULL, d->to, NULL, d->in_pipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		d->in_pipe -= (size_t)n;
	}
	while (d->buf_off < d->buf_len) {
		n = write_some(d->to, d->buf + d->buf_off, d->buf_len - d->buf_off);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		d->buf_off += (size_t)n;
	}
	d->buf_off = d->buf_len = 0;
	return 1;
}

/* Read more from d->from: >0 bytes, 0 EOF, -1 with errno. */
static ssize_t fill(struct proxy *px, struct relay_dir *d)
{
	ssize_t n;

	if (!px->no_splice && d->pipe[0] >= 0) {
		n = splice(d->from, NULL, d->pipe[1], NULL, RELAY_PIPE, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n >= 0) {
			d->in_pipe += (size_t)n;
			d->moved += (size_t)n;
			/* a bulk transfer: a bigger pipe, fewer splices per MiB
			 * (best effort: pipe buffers count against the user's
			 * pipe-user-pages-soft, so only connections that need it) */
			if (!d->grown && d->moved >= RELAY_PIPE) {
				d->grown = true;
				(void)fcntl(d->pipe[0], F_SETPIPE_SZ, RELAY_PIPE);
			}
			return n;
		}
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		px->no_splice = true; /* this kernel: copy from now on */
	}
	if (!d->buf && !(d->buf = malloc(RELAY_CHUNK))) {
		errno = ENOMEM;
		return -1;
	}
	n = recv(d->from, d->buf, RELAY_CHUNK, MSG_DONTWAIT);
	if (n > 0) {
		d->buf_len = (size_t)n;
		d->buf_off = 0;
	}
	return n;
}

static enum pump pump(struct relay_dir *d)
{
	struct proxy *px = d->px;

	for (int round = 0; round < RELAY_ROUNDS; round++) {
		int f = flush(d);
		ssize_t n;

		if (f < 0)
			return PUMP_ERROR;
		if (f == 0)
			return PUMP_WAIT_WRITE;
		if (d->eof) {
			if (!d->shut) {
				(void)shutdown(d->to, SHUT_WR);
				d->shut = true;
			}
			return PUMP_DONE;
		}
		n = fill(px, d);
		if (n == 0)
			d->eof = true;
		else if (n < 0)
			return errno == EAGAIN || errno == EINTR ? PUMP_WAIT_READ : PUMP_ERROR;
		else
			d->hooks->touch(d->owner);
	}
	return PUMP_WAIT_READ; /* more may be there: level-triggered, we come back */
}

static void step(struct relay_dir *d, struct relay_dir *other)
{
	if (d->stopped)
		return;
	switch (pump(d)) {
	case PUMP_WAIT_READ:
		event_del(d->wr);
		event_add(d->rd, NULL);
		return;
	case PUMP_WAIT_WRITE:
		event_del(d->rd);
		event_add(d->wr, NULL);
		return;
	case PUMP_DONE:
		event_del(d->rd);
		event_del(d->wr);
		if (other->shut)
			d->hooks->finished(d->owner);
		return;
	case PUMP_ERROR:
		d->hooks->finished(d->owner);
		return;
	}
}

static void on_event(evutil_socket_t fd, short what, void *arg)
{
	struct relay_dir *d = arg;

	step(d, d->other);
}

static int dir_init(struct proxy *px, struct relay_dir *d)
{
	d->pipe[0] = d->pipe[1] = -1;
	if (!px->no_splice && pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		d->pipe[0] = d->pipe[1] = -1; /* copy mode for this one */
	d->rd = event_new(px->base, d->from, EV_READ | EV_PERSIST, on_event, d);
	d->wr = event_new(px->base, d->to, EV_WRITE | EV_PERSIST, on_event, d);
	return d->rd && d->wr ? 0 : -ENOMEM;
}

int relay_start(struct proxy *px, void *owner, const struct relay_hooks *hooks, struct relay_dir *up,
		struct relay_dir *down)
{
	int r;

	up->px = down->px = px;
	up->owner = down->owner = owner;
	up->hooks = down->hooks = hooks;
	up->other = down;
	down->other = up;
	if ((r = dir_init(px, up)) < 0 || (r = dir_init(px, down)) < 0)
		return r;
	/* the prefixes first: start both as if readable and writable */
	step(up, down);
	step(down, up);
	return 0;
}

void relay_stop(struct relay_dir *d)
{
	d->stopped = true;
	if (d->rd)
		event_del(d->rd);
	if (d->wr)
		event_del(d->wr);
}

void relay_dir_done(struct relay_dir *d)
{
	if (d->rd)
		event_free(d->rd);
	if (d->wr)
		event_free(d->wr);
	if (d->pipe[0] >= 0)
		close(d->pipe[0]);
	if (d->pipe[1] >= 0)
		close(d->pipe[1]);
	free(d->buf);
	free(d->pre);
	*d = (struct relay_dir){ .pipe = { -1, -1 } };
}
