/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The runner's seccomp filter (built with libseccomp), loaded last, just
 * before execve. Default allow; what it refuses returns EPERM so that denials
 * are classifiable (clone3 returns ENOSYS, see syscall_filter.c). Syscalls from a
 * non-native ABI (i386 via int $0x80, x32) kill the process.
 */

struct seccomp_opts {
	bool deny_inet;        /* also refuse socket(AF_INET/AF_INET6) — used when there is no network namespace and the net is "none" */
	bool allow_userns;     /* reserved, keep false: unshare/clone with namespace flags refused */
	/* the execute-only gate or deny-exec (a tool, a session with tools):
	 * no anonymous file that could be mapped executable. memfd_create and
	 * memfd_secret refused outright: Landlock does not see a memfd, no
	 * noexec mount reaches it, and a sealed non-executable one
	 * (MFD_NOEXEC_SEAL) still maps with PROT_EXEC through /proc/self/fd
	 * (the seal stops execve only), here or in a tool it is passed to;
	 * shmat with SHM_EXEC too (a SysV segment is the same kind of file). */
	bool deny_memfd;
	/* the proxy (src/proxy/confine.c), with deny_memfd and without
	 * deny_inet: no new program, no new process or thread, no tracing
	 * (execve, execveat, fork, vfork, clone, clone3), in one program with
	 * the rules above */
	bool no_spawn;
};

struct sock_filter;

/* Load the filter on the calling thread: the one libseccomp compiled at
 * build time for these options (see gen_seccomp_bpf.c) (no_new_privs already set: -EPERM if
 * not). 0 or -errno with reason in err. allow_userns true is refused with
 * -EINVAL until it means something. */
int seccomp_apply(const struct seccomp_opts *o, char *err, size_t errlen);

/* The same filter, built by libseccomp now (syscall_filter_build.c: only the
 * build-time generator and the tests link it), for the generator and
 * for the test that shows the precompiled program is what libseccomp makes.
 * The context is released with seccomp_release (void * to keep libseccomp's
 * header out of ours). */
int seccomp_build(const struct seccomp_opts *o, void **ret, char *err, size_t errlen);
/* The precompiled program for these options. */
int seccomp_precompiled(const struct seccomp_opts *o, const struct sock_filter **ret, size_t *ret_len);

/* The notification filter of the gates init serves (unix_gate.c,
 * create_gate.c), the union of `which`: NOTIFY_UNIX (connect, sendto with
 * an address, sendmsg, sendmmsg), NOTIFY_CREATE (every call that makes a
 * name or changes a file by name), NOTIFY_READ (with NOTIFY_CREATE: every
 * open). Load it after seccomp_apply; 0 and the listener fd in
 * *ret_listener, or -errno with a reason in err. */
enum {
	NOTIFY_UNIX = 1 << 0,
	NOTIFY_CREATE = 1 << 1,
	NOTIFY_READ = 1 << 2,
	NOTIFY_NET = 1 << 3,    /* --net allow: bind and listen too (net_allow.h) */   /* with NOTIFY_CREATE: every open, reads too (a hidden file inside a writable root) */
};
int seccomp_apply_notify(unsigned which, int *ret_listener, char *err, size_t errlen);
int seccomp_build_notify(unsigned which, void **ret, char *err, size_t errlen);
int seccomp_precompiled_notify(unsigned which, const struct sock_filter **ret, size_t *ret_len);
