/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * End this process as another one ended: of the same signal, so a shell
 * that ran us sees an interrupted command as interrupted, never with a
 * core file of our own. The runner (exec_exit_like) and the shim (the
 * tool's exit) both end this way. Header-only: the shim links libc and the
 * message codec only.
 */
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

static inline _Noreturn void die_of_signal(int sig)
{
	sigset_t one;

	(void)setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	(void)sigprocmask(SIG_UNBLOCK, &one, NULL);
	(void)kill(getpid(), sig);
	_exit(128 + sig);
}
