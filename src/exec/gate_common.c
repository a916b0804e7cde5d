/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gates' shared steps (see gate_common.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "gate_common.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

void gate_sync_wakeup(int listener)
{
	/* 6.6 and later: a notification wakes init on the caller's own CPU,
	 * and the answer wakes the caller on init's, instead of an
	 * inter-processor wake-up each way (the caller is blocked meanwhile,
	 * so nothing runs less). Only speed depends on it: an older kernel
	 * (EINVAL) answers the same calls, more slowly. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (__u64)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
}

void gate_reply(int listener, uint64_t id, int64_t val, int error)
{
	struct seccomp_notif_resp r = { .id = id, .val = error ? 0 : val, .error = error };

	/* ENOENT: the caller is gone, or a fatal signal ended its wait */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

void gate_reply_continue(int listener, uint64_t id)
{
	struct seccomp_notif_resp r = { .id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };

	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

bool gate_id_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

int gate_pidfd_open(pid_t tid)
{
	long fd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_pidfd_open, tid, 0); /* before 6.9: thread-group leaders only */
	return fd < 0 ? -errno : (int)fd;
}

int gate_pidfd_getfd(int pidfd, int fd)
{
	long r = syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	return r < 0 ? -errno : (int)r;
}

int gate_peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -EFAULT;
	return (size_t)n == len ? 0 : -EFAULT;
}
