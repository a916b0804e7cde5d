/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a caller's stdio may be when it reaches a tool (stdio_check.c):
 * each refused kind beside an accepted one of the same direction. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "stdio_check.h"

static int null_in, null_out;

static void setup(void)
{
	null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert(null_in >= 0 && null_out >= 0);
}

/* stdio_check with fd as stdin (which 0) or stdout (1), /dev/null elsewhere */
static int check_as(int which, int fd, char *why, size_t n)
{
	int io[3] = { null_in, null_out, null_out };

	io[which] = fd;
	why[0] = '\0';
	return stdio_check(io, why, n);
}

#define REFUSED(which, fd, words)                                                        \
	do {                                                                             \
		char why_[512];                                                          \
		cr_assert_eq(check_as(which, fd, why_, sizeof(why_)), -EPERM, "accepted"); \
		cr_assert(strstr(why_, words), "reason: %s", why_);                      \
	} while (0)
#define ACCEPTED(which, fd)                                                              \
	do {                                                                             \
		char why_[512];                                                          \
		cr_assert_eq(check_as(which, fd, why_, sizeof(why_)), 0, "refused: %s", why_); \
	} while (0)

TestSuite(stdio_check, .init = setup);

Test(stdio_check, pipes_in_their_direction_only)
{
	int p[2];
	char proc[64];

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	ACCEPTED(0, p[0]);
	ACCEPTED(1, p[1]);
	REFUSED(0, p[1], "not open for reading");
	REFUSED(1, p[0], "not open for writing");
	/* the same pipe opened read-write: never drained by anyone else */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p[0]);
	int rw = open(proc, O_RDWR | O_CLOEXEC);
	cr_assert(rw >= 0);
	REFUSED(1, rw, "read-write");
}

Test(stdio_check, named_fifo)
{
	char dir[] = "/var/tmp/stdio-check.XXXXXX", path[64];

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int w = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);

	cr_assert(fd >= 0 && w >= 0);
	REFUSED(1, fd, "named FIFO");
	REFUSED(1, w, "named FIFO");
	unlink(path);
	rmdir(dir);
}

Test(stdio_check, anonymous_files)
{
	int ev = eventfd(0, EFD_CLOEXEC), ep = epoll_create1(EPOLL_CLOEXEC);

	cr_assert(ev >= 0 && ep >= 0);
	REFUSED(1, ev, "stdout is ");
	REFUSED(0, ev, "stdin is ");
	REFUSED(1, ep, "stdout is ");
}

Test(stdio_check, files_local_or_not)
{
	char path[] = "/var/tmp/stdio-check-file.XXXXXX";
	int f = mkostemp(path, O_CLOEXEC);
	int proc = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);

	cr_assert(f >= 0);
	unlink(path);
	ACCEPTED(1, f);
	ACCEPTED(0, f);
	cr_assert(proc >= 0);
	REFUSED(1, proc, "not on a local filesystem");
	int sys = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
	if (sys >= 0)
		REFUSED(0, sys, "not on a local filesystem");
}

Test(stdio_check, devices)
{
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC), full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	int mem = open("/dev/kmsg", O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	ACCEPTED(0, null_in);
	ACCEPTED(0, zero);
	ACCEPTED(1, full);
	if (mem >= 0)
		REFUSED(0, mem, "not a terminal");
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REFUSED(0, dir, "not a pipe");
	int path = open("/dev/null", O_PATH | O_CLOEXEC);
	REFUSED(1, path, "not open for writing");
	REFUSED(0, path, "not open for reading");
}

Test(stdio_check, sockets)
{
	int sp[2], l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	ACCEPTED(0, sp[0]);
	ACCEPTED(1, sp[1]);
	/* an abstract name: no file left behind */
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "stdio-check-%d", (int)getpid());
	cr_assert_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(l, 1), 0);
	REFUSED(0, l, "listening socket");
}
