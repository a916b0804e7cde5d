/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's seccomp rules, written for libseccomp. Used at build time by
 * gen-seccomp-bpf (and by the test that compares its output with the
 * precompiled programs); the runner itself never links libseccomp.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "cleanup.h"
#include "errbuf.h"
#include "syscall_filter.h"

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* clone(2)'s flags are its first argument everywhere but s390, where the
 * stack pointer comes first. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

DEFINE_TRIVIAL_CLEANUP_FUNC(scmp_filter_ctx, seccomp_release)

/* A syscall added since Linux 5.1 has one number on every architecture but
 * alpha and ia64: refused by number where this libseccomp does not know it. */
#if defined(__x86_64__) || defined(__aarch64__)
#define NR_GENERIC(nr) (nr)
#else
#define NR_GENERIC(nr) (-1)
#endif

/*
 * Refused with EPERM whatever their arguments. A name this libseccomp does
 * not know is skipped, unless `nr` gives its number (the same on every
 * architecture for syscalls added since Linux 5.1, except alpha/ia64).
 * With libseccomp 2.5.4 on x86_64 every name below resolves except
 * open_tree_attr (Linux 6.15), which is refused by number: left open it would
 * clone a mount tree without the overmounts that hide credentials.
 */
static const struct {
	const char *name;
	int nr; /* -1: skip when unknown */
} denied_syscalls[] = {
	/* reading or steering other processes */
	{ "ptrace", -1 },
	{ "process_vm_readv", -1 },
	{ "process_vm_writev", -1 },
	/* another process's fds, memory or kernel objects through a pidfd or
	 * a pid (Docker refuses them too without CAP_SYS_PTRACE). Nothing
	 * that runs under this filter needs them: init, which takes the
	 * gated caller's fds with pidfd_getfd, loads no filter of its own.
	 * pidfd_send_signal stays: it signals only what kill(2) may signal,
	 * and Landlock's signal scope bounds both. */
	{ "pidfd_getfd", NR_GENERIC(438) },
	{ "process_madvise", NR_GENERIC(440) },
	{ "process_mrelease", NR_GENERIC(448) },
	{ "kcmp", -1 },
	/* io_uring runs operations that seccomp never sees */
	{ "io_uring_setup", -1 },
	{ "io_uring_enter", -1 },
	{ "io_uring_register", -1 },
	/* kernel attack surface no tool needs */
	{ "bpf", -1 },
	{ "perf_event_open", -1 },
	{ "userfaultfd", -1 },
	{ "keyctl", -1 },
	{ "add_key", -1 },
	{ "request_key", -1 },
	{ "kexec_load", -1 },
	{ "kexec_file_load", -1 },
	{ "init_module", -1 },
	{ "finit_module", -1 },
	{ "delete_module", -1 },
	/* the mount API: would undo the runner's mount namespace */
	{ "mount", -1 },
	{ "umount2", -1 },
	{ "pivot_root", -1 },
	{ "move_mount", -1 },
	{ "open_tree", -1 },
#if defined(__x86_64__) || defined(__aarch64__)
	{ "open_tree_attr", 467 },
#else
	{ "open_tree_attr", -1 },
#endif
	{ "fsopen", -1 },
	{ "fsmount", -1 },
	{ "fsconfig", -1 },
	{ "fspick", -1 },
	{ "mount_setattr", -1 },
	/* namespaces: joining or making one (clone is below) */
	{ "setns", -1 },
	{ "unshare", -1 },
	/* host administration */
	{ "acct", -1 },
	{ "swapon", -1 },
	{ "swapoff", -1 },
	{ "reboot", -1 },
	{ "syslog", -1 },
};

static const uint64_t clone_namespace_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
	/* Inside clone()'s exit-signal byte, so clone() itself cannot ask for
	 * it; refusing the bit costs nothing (no signal is >= 128). */
	CLONE_NEWTIME,
};

static int resolve(const char *name, int fallback)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Negative numbers are libseccomp's pseudo-syscalls: names that
	 * exist on other architectures only. */
	if (nr == __NR_SCMP_ERROR || nr < 0)
		return fallback;
	return nr;
}

/*
 * Refuse NR with EPERM when the low 32 bits of argument ARG are none of
 * ALLOWED (ascending), and every comparison in EXTRA (n_extra, on other
 * arguments) holds. The kernel reads these arguments as int or unsigned int,
 * so the upper half of the register is ignored there and here. libseccomp
 * cannot AND two comparisons on one argument, so the complement of ALLOWED
 * is covered by aligned power-of-two blocks, one MASKED_EQ rule each (at most
 * 32 per gap).
 */
static int deny_unless_arg_in(scmp_filter_ctx ctx, int nr, unsigned arg, const uint32_t *allowed, size_t n,
			      const struct scmp_arg_cmp *extra, unsigned n_extra)
{
	struct scmp_arg_cmp cmp[2];
	uint64_t lo = 0;
	int r;

	if (n_extra > 1)
		return -EINVAL;
	for (size_t i = 0; i <= n; i++) {
		uint64_t hi = i < n ? (uint64_t)allowed[i] : UINT64_C(1) << 32;

		/* the gap [lo, hi) */
		while (lo < hi) {
			uint64_t size = lo ? lo & -lo : UINT64_C(1) << 32;

			while (lo + size > hi)
				size >>= 1;
			cmp[0] = (struct scmp_arg_cmp){
				.arg = arg,
				.op = SCMP_CMP_MASKED_EQ,
				.datum_a = ~(size - 1) & UINT32_MAX,
				.datum_b = lo,
			};
			if (n_extra)
				cmp[1] = extra[0];
			r = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1 + n_extra, cmp);
			if (r < 0)
				return r;
			lo += size;
		}
		lo = hi + 1;
	}
	return 0;
}

/*
 * No setuid or setgid bit can be set from inside, on any path: a writable
 * root is a host directory, and a setuid-root file planted there is a host
 * root shell for whoever runs it later. The bits are refused wherever a mode
 * is given: chmod and its fd/at variants, and the creation mode of open,
 * openat, creat, mkdir(at) and mknod(at) (open's mode counts only with
 * O_CREAT or O_TMPFILE; anything else in that register is ignored by the
 * kernel, so a rule without the flag would refuse innocent opens). openat2
 * carries flags and mode in a struct the filter cannot read: ENOSYS, and
 * callers fall back to openat, whose arguments it can.
 */
static int deny_setid_modes(scmp_filter_ctx ctx)
{
	static const struct {
		const char *name;
		int nr;           /* -1: skip when unknown */
		int mode_arg;
		int flags_arg;    /* -1: the mode always counts */
	} calls[] = {
		{ "chmod", -1, 1, -1 },
		{ "fchmod", -1, 1, -1 },
		{ "fchmodat", -1, 2, -1 },
#if defined(__x86_64__) || defined(__aarch64__)
		{ "fchmodat2", 452, 2, -1 },
#else
		{ "fchmodat2", -1, 2, -1 },
#endif
		{ "creat", -1, 1, -1 },
		{ "mkdir", -1, 1, -1 },
		{ "mkdirat", -1, 2, -1 },
		{ "mknod", -1, 1, -1 },
		{ "mknodat", -1, 2, -1 },
		{ "open", -1, 2, 1 },
		{ "openat", -1, 3, 2 },
	};
	static const uint64_t bits[] = { S_ISUID, S_ISGID };
	static const uint64_t creating[] = { O_CREAT, __O_TMPFILE };
	int nr, r;

	for (size_t i = 0; i < ELEMENTSOF(calls); i++) {
		nr = resolve(calls[i].name, calls[i].nr);
		if (nr < 0)
			continue;
		for (size_t b = 0; b < ELEMENTSOF(bits); b++) {
			struct scmp_arg_cmp mode = SCMP_CMP((unsigned)calls[i].mode_arg, SCMP_CMP_MASKED_EQ, bits[b], bits[b]);

			if (calls[i].flags_arg < 0) {
				r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, mode);
				if (r < 0)
					return r;
				continue;
			}
			for (size_t c = 0; c < ELEMENTSOF(creating); c++) {
				r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, mode,
						     SCMP_CMP((unsigned)calls[i].flags_arg, SCMP_CMP_MASKED_EQ,
							      creating[c], creating[c]));
				if (r < 0)
					return r;
			}
		}
	}
	nr = resolve("openat2", 437);
	if (nr >= 0) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_rules(scmp_filter_ctx ctx, const struct seccomp_opts *o, char *err, size_t errlen)
{
	static const uint32_t personality_allowed[] = { 0, 0xffffffff /* query */ };
	static const uint32_t families_all[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };
	static const uint32_t families_no_inet[] = { AF_UNIX, AF_NETLINK };
	static const uint32_t netlink_allowed[] = { NETLINK_ROUTE };
	static const unsigned long tty_ioctls[] = { TIOCSTI, TIOCLINUX };
	struct scmp_arg_cmp is_netlink;
	int nr, r;

	for (size_t i = 0; i < ELEMENTSOF(denied_syscalls); i++) {
		nr = resolve(denied_syscalls[i].name, denied_syscalls[i].nr);
		if (nr < 0)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot refuse %s: %s", denied_syscalls[i].name,
				    strerror(-r));
	}

	/* clone with any namespace flag; plain fork and threads go on. */
	for (size_t i = 0; !o->no_spawn && i < ELEMENTSOF(clone_namespace_flags); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, clone_namespace_flags[i],
					      clone_namespace_flags[i]));
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot filter clone: %s", strerror(-r));
	}

	/* The proxy: neither a program nor a process of its own, ever (it
	 * parses untrusted bytes). Every clone, not only those with
	 * namespace flags; clone3 refused rather than sent to clone. */
	if (o->no_spawn) {
		static const char *const spawning[] = { "execve", "execveat", "fork", "vfork", "clone", "clone3" };

		for (size_t i = 0; i < ELEMENTSOF(spawning); i++) {
			nr = resolve(spawning[i], -1);
			if (nr >= 0 && (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0)) < 0)
				return errbuf_set(err, errlen, r, "seccomp: cannot refuse %s: %s", spawning[i],
						  strerror(-r));
		}
	}

	/* clone3 passes its flags in a struct, out of the filter's reach.
	 * ENOSYS makes glibc (pthread_create, posix_spawn) fall back to
	 * clone, whose flags we can see. */
	nr = o->no_spawn ? -1 : resolve("clone3", -1);
	if (nr >= 0) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot refuse clone3: %s", strerror(-r));
	}

	/* personality: only the default persona and the query, so no
	 * READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE and the like. */
	r = deny_unless_arg_in(ctx, SCMP_SYS(personality), 0, personality_allowed,
			       ELEMENTSOF(personality_allowed), NULL, 0);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot filter personality: %s", strerror(-r));

	/* Pushing input into a terminal, and the console's control ioctl.
	 * The request is an unsigned int to the kernel: compare the low
	 * half only, or setting high bits would slip past. */
	for (size_t i = 0; i < ELEMENTSOF(tty_ioctls); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, UINT32_MAX, tty_ioctls[i]));
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot filter ioctl: %s", strerror(-r));
	}

	r = deny_setid_modes(ctx);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot filter set-id modes: %s", strerror(-r));

	/* A memfd lives on a mount of the kernel's own, which Landlock never
	 * looks at and no noexec reaches: a binary copied there would run
	 * past the execute-only gate, and a sealed non-executable one still
	 * maps with PROT_EXEC (the seal stops execve only). None at all. */
	if (o->deny_memfd) {
		static const struct {
			const char *name;
			int nr;
		} anon_files[] = { { "memfd_create", 319 }, { "memfd_secret", 447 } };

		for (size_t i = 0; i < ELEMENTSOF(anon_files); i++) {
			nr = resolve(anon_files[i].name, anon_files[i].nr);
			if (nr >= 0 && (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0)) < 0)
				return errbuf_set(err, errlen, r, "seccomp: cannot filter %s: %s", anon_files[i].name,
						  strerror(-r));
		}
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmat), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot filter shmat: %s", strerror(-r));
	}

	/* Socket families: unix, IP (unless deny_inet), and netlink for
	 * routing (getaddrinfo, ip) only. */
	if (o->deny_inet)
		r = deny_unless_arg_in(ctx, SCMP_SYS(socket), 0, families_no_inet, ELEMENTSOF(families_no_inet),
				       NULL, 0);
	else
		r = deny_unless_arg_in(ctx, SCMP_SYS(socket), 0, families_all, ELEMENTSOF(families_all), NULL, 0);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot filter socket: %s", strerror(-r));
	is_netlink = SCMP_A0(SCMP_CMP_MASKED_EQ, UINT32_MAX, AF_NETLINK);
	r = deny_unless_arg_in(ctx, SCMP_SYS(socket), 2, netlink_allowed, ELEMENTSOF(netlink_allowed), &is_netlink,
			       1);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot filter netlink sockets: %s", strerror(-r));
	return 0;
}

/* A filter that allows by default, for the native architecture only:
 * syscalls through another ABI (i386 int $0x80, x32) kill the process.
 * raw_rc: seccomp_load returns the kernel's own errno, not libseccomp's
 * -ECANCELED (the main filter's callers report it). */
static int new_filter(scmp_filter_ctx *ret, bool raw_rc, char *err, size_t errlen)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return errbuf_set(err, errlen, -ENOMEM, "seccomp: cannot create a filter");
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot set the bad-architecture action: %s", strerror(-r));
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot set the NNP attribute: %s", strerror(-r));
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	/* The syscall numbers in a binary tree instead of one chain of ~200
	 * tests: the same verdicts, and the kernel's check of each number at
	 * load (the action cache it builds under the signal lock, ~900
	 * numbers) and each call's run walk a dozen tests, not the chain. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot ask for the binary tree: %s", strerror(-r));
	if (raw_rc && (r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1)) < 0)
		return errbuf_set(err, errlen, r, "seccomp: cannot set the raw-errno attribute: %s", strerror(-r));
#else
	(void)raw_rc;
#endif
	*ret = TAKE_PTR(ctx);
	return 0;
}

int seccomp_build(const struct seccomp_opts *o, scmp_filter_ctx *ret, char *err, size_t errlen)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	int r;

	if (!o)
		return errbuf_set(err, errlen, -EINVAL, "seccomp: no options");
	if (o->allow_userns)
		return errbuf_set(err, errlen, -EINVAL, "seccomp: allow_userns is reserved and must be false");

	r = new_filter(&ctx, true, err, errlen);
	if (r < 0)
		return r;
	r = add_rules(ctx, o, err, errlen);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ctx);
	return 0;
}

/*
 * The notification filter (loaded before the main one, harden.c; the
 * order does not matter: the kernel keeps the strictest action of all
 * filters, so the main one's EPERM wins), the union of the gates asked for in `which`; the pid-1 init
 * answers each call (unix_gate.c dispatches by syscall number).
 *
 * NOTIFY_UNIX: every call that names a destination address. sendto only
 * when dest_addr is set (send(2) is sendto without one); sendmsg and
 * sendmmsg always, their address sits in memory the filter cannot read.
 *
 * NOTIFY_CREATE: every call that makes a name or changes a file by name
 * (create_gate.c, the write gate). open and openat only when they create,
 * write or truncate (O_CREAT, O_WRONLY, O_RDWR, O_TRUNC), so the reads of
 * the hot path never leave the kernel; truncate by path. bind always: its
 * family sits in memory the filter cannot read. NOTIFY_READ: every open,
 * whatever its flags.
 */
int seccomp_build_notify(unsigned which, scmp_filter_ctx *ret, char *err, size_t errlen)
{
	static const char *const creating[] = {
		"mkdir", "mkdirat", "mknod", "mknodat", "creat", "symlink", "symlinkat",
		"link", "linkat", "rename", "renameat", "renameat2", "bind", "truncate",
		"unlink", "unlinkat", "rmdir", /* a protected name is never removed */
	};
	/* the flag tests an open is sent for: any one of them */
	static const struct {
		unsigned mask, value;
	} writing[] = {
		{ O_CREAT, O_CREAT },
		{ O_TRUNC, O_TRUNC },
		{ O_ACCMODE, O_WRONLY },
		{ O_ACCMODE, O_RDWR },
		{ O_ACCMODE, O_ACCMODE }, /* 3: the kernel reads it as read-write */
	};
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	int r, nr;

	if (!which || (which & ~(unsigned)(NOTIFY_UNIX | NOTIFY_CREATE | NOTIFY_READ | NOTIFY_NET)) ||
	    ((which & NOTIFY_READ) && !(which & NOTIFY_CREATE)))
		return errbuf_set(err, errlen, -EINVAL, "seccomp: no such notification filter");
	r = new_filter(&ctx, false, err, errlen);
	if (r < 0)
		return r;
	if ((which & NOTIFY_UNIX) &&
	    ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0)) < 0 ||
	     (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0))) < 0 ||
	     (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg), 0)) < 0 ||
	     (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 0)) < 0))
		return errbuf_set(err, errlen, r, "seccomp: cannot add the unix gate's rules: %s", strerror(-r));
	/* --net allow: a handed-over socket never listens nor binds unseen */
	if ((which & NOTIFY_NET) &&
	    ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0)) < 0 ||
	     (!(which & NOTIFY_CREATE) && (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0)) < 0)))
		return errbuf_set(err, errlen, r, "seccomp: cannot add --net allow's rules: %s", strerror(-r));
	if (!(which & NOTIFY_CREATE)) {
		*ret = TAKE_PTR(ctx);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(creating); i++) {
		nr = resolve(creating[i], -1);
		if (nr < 0)
			continue; /* not on this architecture (open, mkdir... on arm64) */
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot gate %s: %s", creating[i], strerror(-r));
	}
	nr = resolve("open", -1);
	if (which & NOTIFY_READ) {
		/* every open: a hidden file the host may replace by rename
		 * inside a writable root is refused by name (create_gate.c) */
		if (nr >= 0 && (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0)) < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot gate open: %s", strerror(-r));
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 0);
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot gate openat: %s", strerror(-r));
		*ret = TAKE_PTR(ctx);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(writing); i++) {
		if (nr >= 0 && (r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
						     SCMP_A1(SCMP_CMP_MASKED_EQ, writing[i].mask, writing[i].value))) < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot gate open: %s", strerror(-r));
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, writing[i].mask, writing[i].value));
		if (r < 0)
			return errbuf_set(err, errlen, r, "seccomp: cannot gate openat: %s", strerror(-r));
	}
	*ret = TAKE_PTR(ctx);
	return 0;
}
