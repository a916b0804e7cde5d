/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Broker endpoints. Each sandbox the supervisor starts gets a socketpair;
 * its runner's init binds the broker socket in the sandbox's own /run and
 * sends the listener back over it (src/exec/broker.c). From then on,
 * whatever connects to that listener is that sandbox: the caller is known
 * from the listener a connection arrived on, never from what it says.
 * Each connection goes to s->accept: the calls are above, not here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "call_run.h"
#include "endpoint.h"

#define HELLO "cordon-broker 1"

/* The listener rested after EMFILE: listen again. */
static void on_rest_over(evutil_socket_t fd, short what, void *arg)
{
	struct endpoint *e = arg;

	if (e->ev)
		(void)event_add(e->ev, NULL);
}

static void on_listener(evutil_socket_t fd, short what, void *arg)
{
	struct endpoint *e = arg;

	/* a bounded batch per wake-up: one sandbox cannot starve the loop */
	for (int i = 0; i < 32; i++) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (c < 0) {
			struct timeval tv = { .tv_sec = 0, .tv_usec = SUP_ACCEPT_BACKOFF_MS * 1000 };

			if (errno == EINTR)
				continue;
			if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM)
				return; /* EAGAIN, or a connection that went away */
			/* out of fds: the connection stays in the backlog, the
			 * listener readable; rest instead of spinning on it */
			event_del(e->ev);
			if (evtimer_add(e->rest, &tv) < 0)
				(void)event_add(e->ev, NULL);
			return;
		}
		/* over its budget: closed as it comes (the caller sees the end) */
		if (e->conns >= SUP_CONNS_PER_SANDBOX) {
			close(c);
			continue;
		}
		e->s->accept(e, c);
	}
}

/* The one listener the runner hands over: a listening unix stream socket,
 * with the hello, or nothing. */
static int take_listener(int ctl, int *ret)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u = {};
	char hello[sizeof(HELLO)] = "";
	struct iovec iov = { .iov_base = hello, .iov_len = sizeof(hello) - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	int fds[2] = { -1, -1 }, n = 0, v, r = -EBADMSG;
	socklen_t vl = sizeof(v);
	ssize_t l;

	do
		l = recvmsg(ctl, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (l < 0 && errno == EINTR);
	if (l < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (n > 2)
				n = 2;
			memcpy(fds, CMSG_DATA(c), (size_t)n * sizeof(int));
		}
	if (l == 0 && n == 0)
		return 0; /* the sandbox ended before it had a broker */
	if (n == 1 && (m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) == 0 && (size_t)l == sizeof(HELLO) - 1 &&
	    memcmp(hello, HELLO, sizeof(HELLO) - 1) == 0 &&
	    getsockopt(fds[0], SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) == 0 && v == 1 &&
	    getsockopt(fds[0], SOL_SOCKET, SO_DOMAIN, &v, &vl) == 0 && v == AF_UNIX &&
	    getsockopt(fds[0], SOL_SOCKET, SO_TYPE, &v, &vl) == 0 && v == SOCK_STREAM) {
		int fl = fcntl(fds[0], F_GETFL);

		if (fl >= 0 && fcntl(fds[0], F_SETFL, fl | O_NONBLOCK) >= 0) {
			*ret = fds[0];
			return 1;
		}
		r = -errno;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return r;
}

static void on_ctl(evutil_socket_t fd, short what, void *arg)
{
	struct endpoint *e = arg;
	int listener = -1, r = take_listener(e->ctl, &listener);

	if (r == -EAGAIN)
		return;
	event_free(e->ev);
	e->ev = NULL;
	close(e->ctl);
	e->ctl = -1;
	if (r <= 0)
		return; /* no broker: the sandbox's runner failed, and says why itself */
	e->listener = listener;
	e->ev = event_new(e->s->base, listener, EV_READ | EV_PERSIST, on_listener, e);
	if (!e->ev || event_add(e->ev, NULL) < 0) {
		/* fail closed: a sandbox whose calls cannot be served gets none */
		if (e->ev)
			event_free(e->ev);
		e->ev = NULL;
		close(e->listener);
		e->listener = -1;
	}
}

int endpoint_new(struct supervisor *s, const char *caller, struct endpoint **ret, int *ret_fd)
{
	struct endpoint *e = calloc(1, sizeof(*e));
	int pair[2];

	if (!e)
		return -ENOMEM;
	*e = (struct endpoint){ .s = s, .ctl = -1, .listener = -1 };
	e->caller = strdup(caller);
	if (!e->caller) {
		free(e);
		return -ENOMEM;
	}
	/* ours non-blocking; the runner's as sockets come */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		int r = -errno;

		endpoint_free(e);
		return r;
	}
	if (fcntl(pair[0], F_SETFL, O_NONBLOCK) < 0) {
		int r = -errno;

		close(pair[0]);
		close(pair[1]);
		endpoint_free(e);
		return r;
	}
	e->ctl = pair[0];
	e->rest = evtimer_new(s->base, on_rest_over, e);
	e->ev = event_new(s->base, e->ctl, EV_READ | EV_PERSIST, on_ctl, e);
	if (!e->rest || !e->ev || event_add(e->ev, NULL) < 0) {
		close(pair[1]);
		endpoint_free(e);
		return -ENOMEM;
	}
	e->next = s->endpoints;
	s->endpoints = e;
	*ret = e;
	*ret_fd = pair[1];
	return 0;
}

void endpoint_free(struct endpoint *e)
{
	struct endpoint **p;

	if (!e)
		return;
	for (p = &e->s->endpoints; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	if (e->ev)
		event_free(e->ev);
	if (e->rest)
		event_free(e->rest);
	/* its calls outlive it (answered, or dropped with their tools) */
	for (struct call *c = e->s->calls; c; c = c->next)
		if (c->ep == e)
			c->ep = NULL;
	if (e->ctl >= 0)
		close(e->ctl);
	if (e->listener >= 0)
		close(e->listener);
	free(e->caller);
	free(e);
}
