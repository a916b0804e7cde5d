/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command's own steps, in the process that becomes the command: session,
 * parent-death signal, core dumps, fds, environment, capabilities,
 * no_new_privs, Landlock, seccomp (last: it refuses the prctl and mount
 * calls before it), execve. With gates their notification filter comes
 * before all of these (init.c's start_command, unix_gate_offer). These
 * steps run in init's memory while init waits for the execve (init.c's
 * start_command): none may make a call the gates send to init.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "runner.h"
#include "serve.h"
#include "steps.h"
#include "syscall_filter.h"
#include "unix_gate.h"

#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef SECBIT_NO_CAP_AMBIENT_RAISE
#define SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)
#endif

extern char **environ;

/* Every capability set empty. The bounding set (and the securebits that
 * stop uid 0 regaining capabilities at execve) need CAP_SETPCAP: always
 * there in our user namespace; under light isolation only for root, and a
 * caller without it has nothing to drop there. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	if (d[0].effective & (1u << CAP_SETPCAP)) {
		if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
						     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
						     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
			  0, 0, 0) < 0)
			return -errno;
		for (unsigned long cap = 0; cap <= 63; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
				if (errno == EINVAL)
					break; /* past the last capability */
				return -errno;
			}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

static void report(const struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	const struct landlock_report *l = &x->landlock;
	char line[768];
	int n;

	n = snprintf(line, sizeof(line),
		     "cordon-report: isolation=%s landlock-abi=%d landlock-fs=%s landlock-net=%s "
		     "landlock-scope=%s seccomp=yes namespaces=%s missing=%s\n",
		     p->isolation == CORDON_ISOLATION_FULL ? "full" : "light", l->abi, l->fs ? "yes" : "no",
		     l->net ? "yes" : p->landlock.deny_tcp ? "no" : "unused", l->scope ? "yes" : "no",
		     p->clone_flags ? "yes" : "no", l->missing);
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Landlock built here and enforced; for cordon serve's server the ruleset
 * stays open in x->landlock_fd (close-on-exec, as every ruleset fd), for
 * the domain each command nests from it. */
static int serve_landlock(struct exec_ctx *x, const struct landlock_rules *rules, char *err, size_t errlen)
{
	int r;

	if (x->plan->serve_fd <= 0)
		return landlock_apply(rules, &x->landlock, err, errlen);
	r = landlock_prepare(rules, &x->landlock, &x->landlock_fd, err, errlen);
	return r < 0 ? r : landlock_restrict(x->landlock_fd, err, errlen);
}

/* Landlock as planned; under light isolation the host's /dev is visible, so
 * the terminals stdio is open on are granted by name, one node each, and no
 * other terminal of the user's (full isolation has a devpts of its own). */
static int apply_landlock(struct exec_ctx *x, char *err, size_t errlen)
{
	const struct plan *p = x->plan;
	struct landlock_rules rules = p->landlock;
	const char *writable[EXEC_MAX_LIST + 16];
	char ttys[3][64];
	size_t n = 0;

	if (p->isolation != CORDON_ISOLATION_LIGHT && x->init_ruleset) {
		/* init built it and enforces it already: a domain of the
		 * command's own nested inside init's, its rules in force (the
		 * fd is a layer of no rule, init.c's nest_layer, or init's
		 * ruleset itself) */
		int r = landlock_restrict(x->landlock_fd, err, errlen);

		/* cordon serve's server keeps it: each command nests a domain
		 * of its own from it (serve.c) */
		if (x->landlock_fd >= 0 && p->serve_fd <= 0)
			close(x->landlock_fd);
		return r;
	}
	if (p->isolation != CORDON_ISOLATION_LIGHT)
		return serve_landlock(x, &rules, err, errlen);
	for (; p->landlock.writable && p->landlock.writable[n]; n++) {
		if (n >= ELEMENTSOF(writable) - 4)
			return -E2BIG;
		writable[n] = p->landlock.writable[n];
	}
	for (int fd = 0; fd <= 2 && !p->no_terminal; fd++)
		if (isatty(fd) && ttyname_r(fd, ttys[fd], sizeof(ttys[fd])) == 0 && strncmp(ttys[fd], "/dev/", 5) == 0)
			writable[n++] = ttys[fd];
	writable[n] = NULL;
	rules.writable = writable;
	return serve_landlock(x, &rules, err, errlen);
}

/* A script (#!) whose absolute argv[0] still names the file at fd: run by
 * that path, its interpreter sees the path in $0 (a tool's `dirname "$0"`),
 * not /dev/fd/N. The path is the file the caller checked (same inode now;
 * a controlled tool's file is one no sandbox can write). */
static bool script_at_path(int fd, const char *path)
{
	struct stat a, b;
	char magic[2];

	if (path[0] != '/' || pread(fd, magic, sizeof(magic), 0) != 2 || magic[0] != '#' || magic[1] != '!')
		return false;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Run exactly the file the caller opened (--exec-fd), argv as given.
 * Close-on-exec first, so the command does not inherit it; a script's
 * interpreter reads the script as /dev/fd/N, which close-on-exec would
 * have closed (the kernel says ENOENT before the point of no return): then
 * once more with N left open. Returns only on failure, errno set. */
static void exec_from_fd(const struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	int fd = p->exec_fd;

	if (script_at_path(fd, p->command[0])) {
		execve(p->command[0], p->command, x->envp);
		if (errno != ENOENT)
			return;
	}
	(void)syscall(SYS_execveat, fd, "", p->command, x->envp, AT_EMPTY_PATH);
	if (errno != ENOENT || fcntl(fd, F_SETFD, 0) < 0)
		return;
	(void)syscall(SYS_execveat, fd, "", p->command, x->envp, AT_EMPTY_PATH);
	/* an ELF whose interpreter is missing says ENOENT too: not found */
}

void harden_setsid(struct exec_ctx *x, size_t i)
{
	/* EPERM when we lead our own session already: fine */
	if (setsid() < 0 && !(errno == EPERM && getsid(0) == getpid()))
		exec_die("setsid", "%m");
	if (x->plan->pty)
		terminal_command_take(x);
}

void harden_pdeathsig(struct exec_ctx *x, size_t i)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		exec_die("pdeathsig", "%m");
	/* the parent may have gone before the prctl */
	if (x->expect_parent && getppid() != x->expect_parent)
		exec_die("pdeathsig", "the parent is gone");
}

void harden_rlimit_core(struct exec_ctx *x, size_t i)
{
	if (setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }) < 0)
		exec_die("rlimit", "RLIMIT_CORE: %m");
}

void harden_close_fds(struct exec_ctx *x, size_t i)
{
	int keep[] = { x->init_ruleset ? x->landlock_fd : -1, x->plan->exec_fd,
		       x->plan->serve_fd > 0 ? x->plan->serve_fd : -1 };
	int r = close_fds_keep(keep, ELEMENTSOF(keep));

	if (r < 0)
		exec_die("close fds", "%s", strerror(-r));
}

void harden_env(struct exec_ctx *x, size_t i)
{
	environ = x->envp;
}

void harden_drop_caps(struct exec_ctx *x, size_t i)
{
	int r = drop_caps();

	if (r < 0)
		exec_die("capabilities", "%s", strerror(-r));
}

void harden_no_new_privs(struct exec_ctx *x, size_t i)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		exec_die("no_new_privs", "%m");
}

void harden_landlock(struct exec_ctx *x, size_t i)
{
	char err[512] = "";
	int r = apply_landlock(x, err, sizeof(err));

	if (r < 0)
		exec_die("landlock", "%s", err[0] ? err : strerror(-r));
}

/* The main filter. With gates, their notification filter is in force
 * already (init.c's start_command, unix_gate_offer): the kernel runs
 * every filter and keeps the strictest action, the main filter's EPERM
 * or kill over the gates' notification. */
void harden_seccomp(struct exec_ctx *x, size_t i)
{
	char err[512] = "";
	int r = seccomp_apply(&x->plan->seccomp, err, sizeof(err));

	if (r < 0)
		exec_die("seccomp", "%s", err[0] ? err : strerror(-r));
}

_Noreturn void harden_exec(struct exec_ctx *x, size_t i)
{
	const struct plan *p = x->plan;

	/* cordon serve: this process, confined as the command would be, is
	 * the server that forks the commands */
	if (p->serve_fd > 0)
		serve_main(x);
	if (p->report)
		report(x);
	if (sigprocmask(SIG_SETMASK, &x->old_mask, NULL) < 0)
		exec_die("execve", "cannot restore the signal mask: %m");
	if (p->exec_fd >= 0) {
		exec_from_fd(x);
		exec_die_code(errno == ENOENT ? EXEC_EXIT_NOT_FOUND : EXEC_EXIT_CANNOT_EXEC, "execve",
			      "%s (the file at fd %d): %m", p->command[0], p->exec_fd);
	}
	if (strchr(p->command[0], '/'))
		execve(p->command[0], p->command, x->envp);
	else
		execvp(p->command[0], p->command);
	/* the command, not the sandbox, failed: exit as a shell would */
	exec_die_code(errno == ENOENT ? EXEC_EXIT_NOT_FOUND : EXEC_EXIT_CANNOT_EXEC, "execve", "%s: %m",
		      p->command[0]);
}

_Noreturn void command_main(struct exec_ctx *x)
{
	const struct plan *p = x->plan;

	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step_ops *o = step_ops(p->steps[i].kind);

		if (o->stage == STAGE_COMMAND)
			o->apply(x, i);
	}
	exec_die("execve", "the plan has no execve step");
}
