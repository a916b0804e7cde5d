/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy parses untrusted bytes, so once it has what it needs (rules,
 * resolver configuration, the host's addresses, its sockets) it confines
 * itself: Landlock with no filesystem rule at all (nothing to open, read or
 * write), the runner's own seccomp filter, and a small filter of its own:
 * no new programs, no new processes, no tracing.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errbuf.h"
#include "landlock.h"
#include "proxy.h"
#include "syscall_filter.h"

#if defined(__x86_64__)
#define PROXY_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PROXY_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the proxy's seccomp filter knows x86_64 and aarch64"
#endif

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

static int load_own_filter(void)
{
	static struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROXY_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		DENY(__NR_execve),
		DENY(__NR_execveat),
#ifdef __NR_fork
		DENY(__NR_fork),
#endif
#ifdef __NR_vfork
		DENY(__NR_vfork),
#endif
		DENY(__NR_clone),
		DENY(__NR_clone3),
		DENY(__NR_ptrace),
		DENY(__NR_process_vm_readv),
		DENY(__NR_process_vm_writev),
		DENY(__NR_memfd_create),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0 ? -errno : 0;
}

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
	r = seccomp_apply(&(struct seccomp_opts){}, why, sizeof(why));
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: %s", why);
	r = load_own_filter();
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp (own filter): %s", strerror(-r));
	return 0;
}
