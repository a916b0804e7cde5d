/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The relay of an established connection, each direction on its own:
 * recv into a buffer of ours, send from it. A direction that cannot write
 * stops reading, so a slow reader holds at most one buffer per direction
 * (the kernel's socket buffers hold the rest, and TCP's window stops the
 * sender).
 *
 * Why copies and not splice(2) through a pipe: measured on loopback (the
 * sandbox's side of every connection is loopback, and so is bench/proxy),
 * splice moved the same bytes for more CPU in total, not less, and more
 * slowly. Likely because the spliced pages stay referenced by the pipe and
 * the next socket until the reader has copied them, so the sender cannot
 * reuse them and the reader copies from memory gone cold, while one buffer
 * reused for the whole transfer stays in cache. docs/BENCHMARKS.md has the
 * numbers.
 *
 * The buffer is small (RELAY_BUF) until a direction has moved RELAY_BULK
 * bytes; then, while fewer than RELAY_BULK_MAX directions hold one, it
 * grows to RELAY_BULK: fewer system calls and wake-ups per MiB. A direction
 * idle for a while gives its buffer back (relay_release).
 */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proxy.h"

#define RELAY_BUF (64 * 1024)      /* every direction's first buffer */
#define RELAY_BULK (1024 * 1024)   /* a bulk direction's buffer, after it moved as much */
#define RELAY_BULK_MAX 64          /* bulk buffers at once, per proxy: 64 MiB at most */
#define RELAY_ROUNDS 16            /* per wake-up: fairness between connections */

enum pump {
	PUMP_WAIT_READ,
	PUMP_WAIT_WRITE,
	PUMP_DONE,
	PUMP_HELD,      /* framed: the message is written, nothing more is read */
	PUMP_ENDED,     /* keep_open: EOF, all written, the peer left open */
	PUMP_ERROR,
};

/* Write from p[*off..len) to fd. 1: all written, 0: would block, -1: error. */
static int write_out(int fd, const char *p, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(fd, p + *off, len - *off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		*off += (size_t)n;
	}
	return 1;
}

/* Flush what is pending towards d->to: the prefix, then the buffer. */
static int flush(struct relay_dir *d)
{
	int r = write_out(d->to, d->pre, d->pre_len, &d->pre_off);

	if (r <= 0)
		return r;
	r = write_out(d->to, d->buf, d->buf_len, &d->buf_off);
	if (r <= 0)
		return r;
	d->buf_off = d->buf_len = 0;
	return 1;
}

/* The buffer for the next read (d->buf is empty here): the small one, or
 * the bulk one once this direction has earned it and the proxy has room. */
static int buffer_for_read(struct proxy *px, struct relay_dir *d)
{
	char *bulk;

	if (d->buf_size < RELAY_BULK && d->moved >= RELAY_BULK && px->bulk_buffers < RELAY_BULK_MAX) {
		bulk = malloc(RELAY_BULK);
		if (bulk) {
			free(d->buf);
			d->buf = bulk;
			d->buf_size = RELAY_BULK;
			px->bulk_buffers++;
		}
	}
	if (!d->buf) {
		d->buf = malloc(RELAY_BUF);
		if (!d->buf)
			return -ENOMEM;
		d->buf_size = RELAY_BUF;
	}
	return 0;
}

/* Read more from d->from: >0 bytes, 0 EOF, -1 with errno. */
static ssize_t fill(struct proxy *px, struct relay_dir *d)
{
	ssize_t n;

	if (buffer_for_read(px, d) < 0) {
		errno = ENOMEM;
		return -1;
	}
	n = recv(d->from, d->buf, d->read_max && d->read_max < d->buf_size ? d->read_max : d->buf_size, MSG_DONTWAIT);
	if (n > 0) {
		d->buf_len = (size_t)n;
		d->buf_off = 0;
		d->moved += (size_t)n;
	}
	return n;
}

/* Up to RELAY_ROUNDS reads, each written out before the next; the last
 * read's bytes too, before the direction waits for its next read: a
 * stream that ended with that read (nothing more to make `from` readable)
 * would otherwise keep them in our buffer for good. */
static enum pump pump(struct relay_dir *d)
{
	struct proxy *px = d->px;

	for (int round = 0;; round++) {
		int f = flush(d);
		ssize_t n;

		if (f < 0)
			return PUMP_ERROR;
		if (f == 0)
			return PUMP_WAIT_WRITE;
		if (d->eof && d->keep_open)
			return PUMP_ENDED;
		if (d->eof) {
			if (!d->shut) {
				(void)shutdown(d->to, SHUT_WR);
				d->shut = true;
			}
			return PUMP_DONE;
		}
		if (d->held)
			return PUMP_HELD;
		if (round == RELAY_ROUNDS)
			return PUMP_WAIT_READ; /* all written; level-triggered: more, we come back */
		n = fill(px, d);
		if (n == 0)
			d->eof = true;
		else if (n < 0)
			return errno == EAGAIN || errno == EINTR ? PUMP_WAIT_READ : PUMP_ERROR;
		else {
			d->hooks->touch(d->owner);
			if (d->framed) {
				size_t used;
				bool end = false;

				if (d->hooks->frame(d->owner, d, d->buf, (size_t)n, &used, &end) < 0)
					return PUMP_ERROR;
				d->buf_len = used;
				d->held = end;
			}
		}
	}
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
	case PUMP_HELD:
		event_del(d->rd);
		event_del(d->wr);
		return;
	case PUMP_ENDED:
		event_del(d->rd);
		event_del(d->wr);
		d->stopped = true;
		d->hooks->ended(d->owner);
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

static void buffer_free(struct relay_dir *d)
{
	if (d->buf_size == RELAY_BULK)
		d->px->bulk_buffers--;
	free(d->buf);
	d->buf = NULL;
	d->buf_size = d->buf_len = d->buf_off = 0;
}

void relay_release(struct relay_dir *d)
{
	if (d->buf && d->buf_off == d->buf_len) {
		buffer_free(d);
		d->moved = 0; /* a bulk buffer is earned again */
	}
}

void relay_dir_done(struct relay_dir *d)
{
	if (d->rd)
		event_free(d->rd);
	if (d->wr)
		event_free(d->wr);
	if (d->buf)
		buffer_free(d);
	free(d->pre);
	*d = (struct relay_dir){};
}
