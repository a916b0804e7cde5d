/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A client connection's life in the proxy: made, touched, refused (in the
 * client's protocol, with its audit line), ended and freed. Below the
 * decision (dial.c) and the loop (proxy.c), which both end connections
 * through here.
 */
#include <errno.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "pipe_room.h"
#include "proxy.h"
#include "socks5.h"

uint64_t proxy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void conn_touch(struct conn *c)
{
	c->last = proxy_now();
}

/* A refusal line, also as a denial record on the runner's status channel
 * (cordon/classify.h): the caller's trusted word, where the line on stderr
 * shares the command's stream. Capped and deduplicated: nothing reads the
 * channel before the run ends, so a client looping on a refused host must
 * not fill it. */

static void status_denial(struct proxy *px, const char *line, size_t n)
{
	static const char refused[] = "cordon-proxy: refused ";
	char rec[CORDON_STATUS_DENIAL_MAX];
	uint64_t h = 1469598103934665603ULL;
	int len;

	if (px->cfg->status_fd < 0 || px->denials_said >= PROXY_STATUS_DENIALS_MAX ||
	    strncmp(line, refused, sizeof(refused) - 1) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)line[i]) * 1099511628211ULL;
	for (unsigned i = 0; i < px->denials_said; i++)
		if (px->denial_hash[i] == h)
			return;
	px->denial_hash[px->denials_said++] = h;
	len = snprintf(rec, sizeof(rec), "%s\tproxy\t%.*s\n", CORDON_STATUS_DENIAL_TAG,
		       (int)(n < sizeof(rec) - 32 ? n : sizeof(rec) - 32), line);
	/* never block on it, and leave room for the runner's own record */
	long room = pipe_room(px->cfg->status_fd);

	if (len > 0 && !(room >= 0 && room < len + 1400))
		(void)!write(px->cfg->status_fd, rec, (size_t)len);
}

void proxy_audit(struct proxy *px, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	/* one record, one line: no byte of a client's may break it */
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] == 0x7f)
			line[i] = '?';
	status_denial(px, line, (size_t)n);
	line[n++] = '\n';
	(void)!write(px->cfg->audit_fd >= 0 ? px->cfg->audit_fd : STDERR_FILENO, line, (size_t)n);
}

void proxy_set_accepting(struct proxy *px, bool on)
{
	if (px->accepting == on)
		return;
	px->accepting = on;
	for (size_t i = 0; i < px->n_listen; i++)
		if (on)
			event_add(px->listen_ev[i], NULL);
		else
			event_del(px->listen_ev[i]);
}

void conn_free(struct conn *c)
{
	struct proxy *px = c->px;

	if (c->dns) {
		struct evdns_getaddrinfo_request *q = c->dns;

		c->dns = NULL;
		evdns_getaddrinfo_cancel(q);
	}
	if (c->dns_res)
		evutil_freeaddrinfo(c->dns_res);
	relay_dir_done(&c->up);
	relay_dir_done(&c->down);
	if (c->cev)
		event_free(c->cev);
	if (c->uev)
		event_free(c->uev);
	if (c->reap)
		event_free(c->reap);
	if (c->next_req)
		event_free(c->next_req);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->ufd >= 0)
		close(c->ufd);
	cordon_netaddr_list_done(&c->answers);
	free(c->forward);
	free(c->resp);
	if (c->prev)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	px->n_conns--;
	free(c);
	if (px->n_conns < px->cfg->max_conns)
		proxy_set_accepting(px, true);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	conn_free(arg);
}

/* A new client connection on fd, of kind, read by on_read until its request
 * is in (NULL: its request is in already, --net allow's); linked into the
 * proxy's list. NULL (fd closed) when out of memory. */
struct conn *conn_new(struct proxy *px, int fd, int kind, event_callback_fn on_read)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	*c = (struct conn){ .px = px, .kind = kind, .cfd = fd, .ufd = -1,
			    .started = px->now, .state_since = px->now, .last = px->now };
	c->next = px->conns;
	if (px->conns)
		px->conns->prev = c;
	px->conns = c;
	px->n_conns++;
	if (on_read)
		c->cev = event_new(px->base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->reap = event_new(px->base, -1, 0, on_reap, c);
	if ((on_read && (!c->cev || event_add(c->cev, NULL) < 0)) || !c->reap) {
		conn_free(c);
		return NULL;
	}
	return c;
}

/* End the connection after the current callback: nothing is freed under a
 * caller's feet. */
void conn_end(struct conn *c)
{
	if (c->finished)
		return;
	c->finished = true;
	relay_stop(&c->up);
	relay_stop(&c->down);
	if (c->cev)
		event_del(c->cev);
	if (c->uev)
		event_del(c->uev);
	event_active(c->reap, EV_TIMEOUT, 0);
}

static void host_text(const struct conn *c, char *buf, size_t len)
{
	size_t n = c->host_len < len - 1 ? c->host_len : len - 1;

	memcpy(buf, c->host, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x21 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
}

static void on_client_drain(evutil_socket_t fd, short what, void *arg);

void conn_audit_refusal(struct conn *c, const char *reason, const char *detail)
{
	char host[CORDON_NET_HOST_MAX + 3];

	host_text(c, host, sizeof(host));
	proxy_audit(c->px, "cordon-proxy: refused %s %s:%u: %s%s%s%s%s%s", c->what, host[0] ? host : "-", c->port, reason,
		    detail && detail[0] ? ": " : "", detail ? detail : "", c->rule[0] ? " (rule: " : "", c->rule,
		    c->rule[0] ? ")" : "");
}

/* Out of the relay's callbacks: the relay's events are freed here. What
 * the previous request left of its own is dropped; what follows it in c->in
 * is the next request, read and decided as the first was. */
static void on_next_request(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->finished)
		return;
	relay_dir_done(&c->up);
	relay_dir_done(&c->down);
	if (c->uev)
		event_free(c->uev);
	c->uev = NULL;
	if (c->ufd >= 0)
		close(c->ufd);
	c->ufd = -1;
	cordon_netaddr_list_done(&c->answers);
	c->next_answer = 0;
	free(c->forward);
	c->forward = NULL;
	c->forward_len = 0;
	c->dns_done = false;
	c->dns_result = 0;
	c->host_len = 0;
	c->port = 0;
	c->consumed = 0;
	c->body = (struct http_body){};
	c->rule[0] = '\0';
	free(c->resp);
	c->resp = NULL;
	c->resp_len = 0;
	c->resp_done = c->resp_keep = c->req_close = c->req_head = false;
	snprintf(c->what, sizeof(c->what), "HTTP");
	c->state = C_HEAD;
	c->state_since = proxy_now();
	c->pending_parse = true;
	if (event_add(c->cev, NULL) < 0) {
		conn_end(c);
		return;
	}
	event_active(c->cev, EV_READ, 0);
}

void conn_next_request(struct conn *c)
{
	if (!c->next_req)
		c->next_req = event_new(c->px->base, -1, 0, on_next_request, c);
	if (!c->next_req) {
		conn_end(c);
		return;
	}
	event_active(c->next_req, EV_TIMEOUT, 0);
}

/* Write the refusal, then drain the client until it closes (closing with
 * unread bytes would reset the connection and lose the answer). */
void conn_refuse(struct conn *c, int status, const char *reason, const char *detail)
{
	char host[CORDON_NET_HOST_MAX + 3], msg[1536], body[512];
	int n, b;

	host_text(c, host, sizeof(host));
	conn_audit_refusal(c, reason, detail);
	if (c->ops) {
		c->ops->refused(c, reason, detail);
	} else if (c->kind == PROXY_LISTEN_SOCKS) {
		uint8_t rep[10];

		(void)!send(c->cfd, rep, socks5_reply(status, rep), MSG_NOSIGNAL | MSG_DONTWAIT);
	} else {
		if (host[0])
			b = snprintf(body, sizeof(body), "cordon: the proxy refused %s:%u: %s\n", host, c->port,
				     detail && detail[0] ? detail : reason);
		else
			b = snprintf(body, sizeof(body), "cordon: the proxy refused the request: %s\n",
				     detail && detail[0] ? detail : reason);
		if (b < 0 || (size_t)b >= sizeof(body))
			b = (int)strlen(body);
		n = snprintf(msg, sizeof(msg),
			     "HTTP/1.1 %d %s\r\nX-Cordon-Error: %s\r\n%s%s%sContent-Type: text/plain\r\n"
			     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
			     status,
			     status == 403   ? "Forbidden"
			     : status == 502 ? "Bad Gateway"
			     : status == 504 ? "Gateway Timeout"
			     : status == 414 ? "URI Too Long"
			     : status == 431 ? "Request Header Fields Too Large"
			     : status == 505 ? "HTTP Version Not Supported"
			     : status == 501 ? "Not Implemented"
			     : status == 503 ? "Service Unavailable"
			     : status == 408 ? "Request Timeout"
					     : "Bad Request",
			     reason, c->rule[0] ? "X-Cordon-Rule: " : "", c->rule, c->rule[0] ? "\r\n" : "", b, body);
		if (n > 0)
			(void)!send(c->cfd, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	conn_close_after_answer(c);
}

/* All the client will get is written: shut our side, then drain the
 * client until it closes (closing with unread bytes would reset the
 * connection and lose the answer). */
void conn_close_after_answer(struct conn *c)
{
	(void)shutdown(c->cfd, SHUT_WR);
	if (c->ufd >= 0) {
		if (c->uev)
			event_del(c->uev);
		close(c->ufd);
		c->ufd = -1;
	}
	relay_stop(&c->up);
	relay_stop(&c->down);
	c->state = C_CLOSING;
	c->state_since = proxy_now();
	if (c->cev)
		event_free(c->cev);
	c->cev = event_new(c->px->base, c->cfd, EV_READ | EV_PERSIST, on_client_drain, c);
	if (!c->cev || event_add(c->cev, NULL) < 0)
		conn_end(c);
}

static void on_client_drain(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	char sink[4096];
	ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_end(c);
}

static int socks_code(const char *reason)
{
	if (strncmp(reason, "address-", 8) == 0 || strncmp(reason, "host-", 5) == 0 || strcmp(reason, "ip-literal") == 0)
		return SOCKS5_NOT_ALLOWED;
	if (strcmp(reason, "no-address") == 0 || strcmp(reason, "resolve-failed") == 0)
		return SOCKS5_HOST_UNREACHABLE;
	if (strcmp(reason, "upstream-connect-timeout") == 0)
		return SOCKS5_TTL_EXPIRED;
	if (strcmp(reason, "upstream-connect-failed") == 0)
		return SOCKS5_REFUSED;
	return SOCKS5_GENERAL_FAILURE;
}

/* A refusal of the decision's or of the dial's, in the client's protocol. */
void conn_refuse_request(struct conn *c, int http_status, const char *reason, const char *detail)
{
	conn_refuse(c, c->kind == PROXY_LISTEN_SOCKS ? socks_code(reason) : http_status, reason, detail);
}
