/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether this host delivers an address locally, asked of the kernel at
 * each decision (cordon/netrules.h: cordon_net_host). A route lookup, as
 * `ip route get ADDR` makes it: the route's type says local (an address of
 * this host, any address of a prefix on lo, a `local` route), broadcast,
 * multicast or anycast, and its output interface says loopback. A list of
 * interface addresses taken at start would miss all of these but the first,
 * and anything gained later (a VPN coming up).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netrule.h"

struct cordon_net_host {
	int fd;          /* NETLINK_ROUTE */
	uint32_t seq;
	unsigned lo;     /* the loopback interface's index (0: none) */
};

CORDON_API int cordon_net_host_open(struct cordon_net_host **ret)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct cordon_net_host *h = calloc(1, sizeof(*h));
	int e;

	if (!h)
		return -ENOMEM;
	h->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = -errno;
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return e;
	}
	h->lo = if_nametoindex("lo");
	*ret = h;
	return 0;
}

CORDON_API struct cordon_net_host *cordon_net_host_free(struct cordon_net_host *h)
{
	if (h) {
		close(h->fd);
		free(h);
	}
	return NULL;
}

/* The answer to request seq: 1 local, 0 not, -errno. */
static int read_answer(struct cordon_net_host *h, uint32_t seq)
{
	/* aligned for the netlink headers; a route's answer is a few hundred bytes */
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} u;

	for (int tries = 0; tries < 16; tries++) {
		ssize_t n;

		if (poll(&(struct pollfd){ .fd = h->fd, .events = POLLIN }, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = recv(h->fd, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *nh = &u.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			struct rtmsg *rt;
			size_t len;

			if (nh->nlmsg_seq != seq)
				continue; /* a stale answer, to a question that timed out */
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
					return -EBADMSG;
				/* no route: not delivered here (nor anywhere) */
				if (err->error == -ENETUNREACH || err->error == -EHOSTUNREACH || err->error == -ENETDOWN ||
				    err->error == -EACCES)
					return 0;
				return err->error ? err->error : -EBADMSG;
			}
			if (nh->nlmsg_type != RTM_NEWROUTE || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
				return -EBADMSG;
			rt = NLMSG_DATA(nh);
			switch (rt->rtm_type) {
			case RTN_LOCAL:
			case RTN_BROADCAST:
			case RTN_MULTICAST:
			case RTN_ANYCAST:
				return 1;
			default:
				break;
			}
			len = RTM_PAYLOAD(nh);
			for (struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(uint32_t) && h->lo) {
					uint32_t oif;

					memcpy(&oif, RTA_DATA(a), sizeof(oif));
					if (oif == h->lo)
						return 1;
				}
			return 0;
		}
	}
	return -EBADMSG;
}

CORDON_API int cordon_net_host_is_local(struct cordon_net_host *h, const struct cordon_netaddr *a)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(16)];
	} req = {};
	size_t alen = a->family == AF_INET ? 4 : 16;
	struct rtattr *dst;

	if (!h || (a->family != AF_INET && a->family != AF_INET6))
		return -EINVAL;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++h->seq;
	req.rt.rtm_family = (unsigned char)a->family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	dst = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	dst->rta_type = RTA_DST;
	dst->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(dst), a->a, alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_SPACE(alen);
	if (sendto(h->fd, &req, req.nh.nlmsg_len, MSG_NOSIGNAL, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return read_answer(h, req.nh.nlmsg_seq);
}
