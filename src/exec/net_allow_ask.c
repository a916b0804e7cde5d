/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow's one request to the proxy (net_allow_impl.h): a kind
 * ('T' a connect to hand over, 'R' a name to look up), flags, family,
 * port and host on init's control socket to the proxy, with a socket of
 * the request's own for the answer. The connect path (net_allow.c) and
 * the resolver (net_allow_dns.c) both ask this way.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "net_allow_impl.h"

int net_allow_ask(struct net_allow *na, char kind, unsigned flags, int family, uint16_t port, const char *host,
		  int *ret_reply)
{
	char msg[5 + CORDON_NET_HOST_MAX], cbuf[CMSG_SPACE(sizeof(int))] = {};
	size_t hl = strlen(host);
	struct iovec iov = { msg, 5 + hl };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int pair[2];

	if (hl > CORDON_NET_HOST_MAX)
		return -EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) < 0)
		return -errno;
	msg[0] = kind;
	msg[1] = (char)flags;
	msg[2] = family == AF_INET6 ? 6 : 4;
	msg[3] = (char)(port >> 8);
	msg[4] = (char)port;
	memcpy(msg + 5, host, hl);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pair[1], sizeof(int));
	if (sendmsg(na->proxy, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		int e = errno;

		close(pair[0]);
		close(pair[1]);
		return e == EAGAIN ? -EAGAIN : -ENETDOWN;
	}
	close(pair[1]);
	*ret_reply = pair[0];
	return 0;
}
