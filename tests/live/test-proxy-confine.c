/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's own confinement (src/proxy/confine.c), live: each attempt in a
 * forked child, after proxy_confine() or without it (the control), reported
 * through the exit status: 0 when the attempt succeeded, else its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "landlock.h"
#include "proxy.h"

#define SETUP_FAILED 200

enum attempt {
	OPEN_READ,
	OPEN_WRITE,
	EXEC,
	FORK,
	TCP_SOCKET,
	PIPE_SPLICE,
	MEMFD,
	CLONE3,
	VFORK,
	TRACEME,
};

static int attempt(enum attempt what)
{
	int fd, p[2];
	pid_t pid;

	switch (what) {
	case OPEN_READ:
		fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
		break;
	case OPEN_WRITE:
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	case EXEC:
		execl("/bin/true", "true", (char *)NULL);
		return errno;
	case FORK:
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			return errno;
		waitpid(pid, NULL, 0);
		return 0;
	case TCP_SOCKET:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case PIPE_SPLICE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return errno;
		close(p[0]);
		fd = p[1];
		break;
	case MEMFD:
		fd = memfd_create("x", MFD_CLOEXEC);
		break;
	case CLONE3:
		/* no arguments: the kernel answers EFAULT or EINVAL; the
		 * filter answers first */
		return syscall(SYS_clone3, NULL, 0) < 0 ? errno : 0;
	case VFORK:
		pid = vfork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			return errno;
		waitpid(pid, NULL, 0);
		return 0;
	case TRACEME:
		return ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 ? errno : 0;
	}
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int in_child(enum attempt what, bool confined)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[512];

		if (confined && proxy_confine(err, sizeof(err)) < 0)
			_exit(SETUP_FAILED);
		_exit(attempt(what));
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "the child died of a signal");
	return WEXITSTATUS(status);
}

Test(proxy_confine, no_file_access)
{
	live_skip_unless(landlock_get_abi() > 0, "no Landlock here");
	cr_assert_eq(in_child(OPEN_READ, false), 0, "control: /etc/hosts opens");
	cr_assert_eq(in_child(OPEN_READ, true), EACCES);
	cr_assert_eq(in_child(OPEN_WRITE, false), 0, "control: /dev/null opens for writing");
	cr_assert_eq(in_child(OPEN_WRITE, true), EACCES);
}

Test(proxy_confine, no_new_programs_or_processes)
{
	cr_assert_eq(in_child(FORK, false), 0, "control: fork works");
	cr_assert_eq(in_child(FORK, true), EPERM);
	cr_assert_eq(in_child(EXEC, true), EPERM);
	/* the control's execl replaces the child with true: exit 0 */
	cr_assert_eq(in_child(EXEC, false), 0);
}

/* members the filter holds beside fork and exec: each refused with EPERM,
 * each control reaching the kernel */
Test(proxy_confine, no_memfd_clone3_vfork_or_tracing)
{
	cr_assert_eq(in_child(MEMFD, false), 0, "control: memfd_create works");
	cr_assert_eq(in_child(MEMFD, true), EPERM);
	cr_assert_neq(in_child(CLONE3, false), EPERM, "control: clone3 reaches the kernel");
	cr_assert_eq(in_child(CLONE3, true), EPERM);
	cr_assert_eq(in_child(VFORK, false), 0, "control: vfork works");
	cr_assert_eq(in_child(VFORK, true), EPERM);
	cr_assert_eq(in_child(TRACEME, false), 0, "control: PTRACE_TRACEME works");
	cr_assert_eq(in_child(TRACEME, true), EPERM);
}

Test(proxy_confine, what_the_proxy_needs_still_works)
{
	cr_assert_eq(in_child(TCP_SOCKET, true), 0);
	cr_assert_eq(in_child(PIPE_SPLICE, true), 0);
}
