/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_confine_with is pure: run it in a child under a seccomp filter that
 * kills the process on any filesystem, exec or process-creation syscall. The
 * control shows the filter really kills on open().
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "policy.h"

static const char *const forbidden[] = {
	"open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access",
	"faccessat", "faccessat2", "readlink", "readlinkat", "getdents64", "getcwd", "chdir",
	"fchdir", "mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat", "renameat2",
	"truncate", "symlink", "symlinkat", "link", "linkat", "chmod", "fchmodat", "execve",
	"execveat", "fork", "vfork", "clone", "clone3", "socket", "connect", "kill", "ptrace",
	NULL,
};

static int install_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -1;
	for (size_t i = 0; forbidden[i]; i++) {
		int nr = seccomp_syscall_resolve_name(forbidden[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0);
		if (r < 0) {
			seccomp_release(ctx);
			return r;
		}
	}
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

static int run_child(bool control)
{
	static const char *const argv[] = { "sh", "-c", "echo hi > out.txt", NULL };
	const enum cordon_backend backends[] = { CORDON_BACKEND_BWRAP, CORDON_BACKEND_NATIVE };
	const enum cordon_mode modes[] = { CORDON_MODE_READ_ONLY, CORDON_MODE_WORKSPACE_WRITE,
					 CORDON_MODE_DANGER_FULL_ACCESS };
	struct cordon_policy *policies[3];
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* Everything that may touch the filesystem happens before the filter. */
		for (size_t m = 0; m < 3; m++) {
			if (cordon_policy_new(modes[m], "/tmp", &policies[m], NULL) < 0)
				_exit(10);
			if (cordon_policy_deny_read(policies[m], "/etc/shadow", NULL) < 0 ||
			    cordon_policy_protect(policies[m], "/tmp/.git/hooks", NULL) < 0)
				_exit(11);
			cordon_policy_set_net(policies[m], m == 1 ? CORDON_NET_HOST : CORDON_NET_NONE);
		}
		if (install_filter() < 0)
			_exit(12);
		if (control) {
			/* must die here */
			open("/etc/hostname", O_RDONLY | O_CLOEXEC);
			_exit(0);
		}
		for (size_t b = 0; b < 2; b++)
			for (size_t m = 0; m < 3; m++) {
				struct cordon_backend_info info = { .backend = backends[b] };
				struct cordon_confined *c = NULL;

				strcpy(info.path, "/usr/bin/runner");
				if (cordon_confine_with(&info, argv, policies[m], &c, NULL) < 0)
					_exit(20 + (int)(b * 3 + m));
				if (!c->argv || !c->argv[0])
					_exit(30);
				cordon_confined_free(c);
			}
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return status;
}

Test(confine_pure, confine_makes_no_filesystem_or_process_syscall)
{
	int status = run_child(false);

	cr_assert(WIFEXITED(status), "child killed by signal %d: confine made a forbidden syscall",
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	cr_assert_eq(WEXITSTATUS(status), 0, "child exited %d", WEXITSTATUS(status));
}

Test(confine_pure, control_filter_kills_on_open)
{
	int status = run_child(true);

	cr_assert(WIFSIGNALED(status), "the filter did not kill on open(), so the purity test proves nothing");
	cr_assert_eq(WTERMSIG(status), SIGSYS);
}
