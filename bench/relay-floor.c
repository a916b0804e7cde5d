/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/proxy's floor: the least a user-space relay can cost on this
 * machine. One connection at a time, no event loop, no parsing beyond the
 * end of the head, no names, no rules: read the client's head, dial the one
 * upstream port it was given, send the head on as it came, then copy both
 * ways through one 1 MiB buffer each until both sides are done.
 *
 *     relay-floor UPSTREAM_PORT     (prints "relay-floor: listening PORT")
 *
 * cordon's proxy does all that and more (it is one process for every
 * connection, decides, resolves, times out, caps); the gap between the
 * two is what the proxy's own work costs, and the gap between this and
 * direct is what any copying relay costs here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF (1024 * 1024)
#define HEAD_MAX (64 * 1024)

static int tcp(uint16_t port, bool listening)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (listening ? bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0
		      : connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static bool send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Copy both ways until each side has ended its half. */
static void relay(int a, int b, char *buf[2])
{
	int fd[2] = { a, b };
	bool open_[2] = { true, true };

	while (open_[0] || open_[1]) {
		struct pollfd p[2] = { { open_[0] ? a : -1, POLLIN, 0 }, { open_[1] ? b : -1, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!open_[i] || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = recv(fd[i], buf[i], BUF, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0 || !send_all(fd[1 - i], buf[i], (size_t)n)) {
				open_[i] = false;
				(void)shutdown(fd[1 - i], SHUT_WR);
			}
		}
	}
}

static void serve(int c, uint16_t upstream, char *buf[2])
{
	char head[HEAD_MAX];
	size_t len = 0;
	int u;

	while (len < sizeof(head) && !memmem(head, len, "\r\n\r\n", 4)) {
		ssize_t n = recv(c, head + len, sizeof(head) - len, 0);

		if (n <= 0)
			return;
		len += (size_t)n;
	}
	u = tcp(upstream, false);
	if (u < 0)
		return;
	if (send_all(u, head, len))
		relay(c, u, buf);
	close(u);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	char *buf[2] = { malloc(BUF), malloc(BUF) };
	int l;

	if (argc != 2 || atoi(argv[1]) <= 0 || atoi(argv[1]) > 65535) {
		fprintf(stderr, "usage: relay-floor UPSTREAM_PORT\n");
		return 2;
	}
	l = tcp(0, true);
	if (l < 0 || !buf[0] || !buf[1] || getsockname(l, (struct sockaddr *)&sa, &sl) < 0) {
		perror("relay-floor");
		return 1;
	}
	printf("relay-floor: listening %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("relay-floor: accept");
			return 1;
		}
		(void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		serve(c, (uint16_t)atoi(argv[1]), buf);
		close(c);
	}
}
