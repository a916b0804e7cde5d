/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy parses untrusted bytes, so once it has what it needs (rules,
 * resolver configuration, the host's addresses, its sockets) it confines
 * itself: Landlock with no filesystem rule at all (nothing to open, read or
 * write), and one seccomp program, compiled by libseccomp at build time like
 * the runner's (gen_seccomp_bpf.c): the runner's rules (no tracing, no
 * io_uring, ...), no memfd, and no new programs, processes or threads.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include "errbuf.h"
#include "landlock.h"
#include "proxy.h"
#include "syscall_filter.h"

int proxy_confine(char *err, size_t errlen)
{
	static const char *const none[] = { NULL };
	struct landlock_rules rules = { .readable = none, .writable = none, .scope = true };
	struct landlock_report rep;
	char why[256] = "";
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errbuf_set(err, errlen, -errno, "no_new_privs: %s", strerror(errno));
	r = landlock_apply(&rules, &rep, why, sizeof(why));
	if (r < 0)
		return errbuf_set(err, errlen, r, "landlock: %s", why);
	r = seccomp_apply(&(struct seccomp_opts){ .deny_memfd = true, .no_spawn = true }, why, sizeof(why));
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: %s", why);
	return 0;
}
