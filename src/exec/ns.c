/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Namespace set-up done from inside the new namespaces (by pid 1): the id
 * maps and the loopback interface (or, under --net none, the runner's
 * part in that: below). The namespaces themselves come from one clone in
 * exec.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "msgframe.h"
#include "runner.h"

static int write_file(const char *path, const char *s)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

/* The caller's ids map to themselves, one each. Writing our own maps from
 * inside is what an unprivileged process may do (one id, our own euid/egid,
 * setgroups denied first); root gets the same, so root inside holds no
 * capability over the host. */
int ns_map_ids(uid_t uid, gid_t gid)
{
	char line[64];
	int r;

	r = write_file("/proc/self/setgroups", "deny");
	if (r < 0 && r != -ENOENT)
		return r;
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	r = write_file("/proc/self/uid_map", line);
	if (r < 0)
		return r;
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", line);
}

/* lo up in the network namespace of the socket fd (the ioctl acts on the
 * socket's namespace, whoever makes it). */
static int loopback_up_on(int fd)
{
	struct ifreq ifr = {};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	if (ifr.ifr_flags & IFF_UP)
		return 0;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	return 0;
}

int ns_loopback_up(void)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	return loopback_up_on(fd);
}

/*
 * The loopback interface brought up by the runner (--net none, full
 * isolation). The kernel's work for it (NETDEV_UP: addresses, routes,
 * IPv6) is some 0.1 ms, and init's way from its clone to the command is
 * the longer of the two the launch waits for, while the runner, after its
 * half of the ruleset, only waits. As the owner of init's user namespace
 * the runner holds CAP_NET_ADMIN over its network namespace from outside;
 * what it lacks is a way in, which a socket made inside gives: init hands
 * one over (ns_loopback_hand), the runner brings lo up through it and
 * answers 0 or an errno (ns_loopback_raise), and init reads that answer
 * before it starts the command (ns_loopback_answer): nothing runs before
 * lo is up, or without init saying why it is not.
 */
int ns_loopback_hand(int chan)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	return msg_frame_write(chan, NS_LOOPBACK_SOCKET, NULL, &fd, 1);
}

void ns_loopback_raise(int chan)
{
	struct msg_frame f = {};
	int32_t answer;

	/* end of file: init brought it up itself, or is gone (its wait says) */
	if (msg_frame_read(chan, 0, &f) != 1)
		return;
	if (f.type != NS_LOOPBACK_SOCKET || f.nfds != 1)
		answer = EPROTO;
	else
		answer = -loopback_up_on(f.fds[0]);
	msg_frame_done(&f);
	(void)!write(chan, &answer, sizeof(answer));
}

int ns_loopback_answer(int chan)
{
	int32_t answer;
	ssize_t n;

	do
		n = read(chan, &answer, sizeof(answer));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(answer))
		return -ECONNRESET; /* the runner is gone */
	return answer > 0 ? -answer : 0;
}
